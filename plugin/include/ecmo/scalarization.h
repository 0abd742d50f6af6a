// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// The weighted-Chebyshev (WC) scalarization as ecmo::Solve poses it:
//
//   min_{rho, z} rho  s.t.  lambda_s (f_s(z) - r_s) / w_s <= rho  (s = 1..S),
//                           h(z) = 0,
//
// with the preference lambda in the open simplex, a reference point r and
// positive objective scales w. Every locally optimal (rho, z) is locally
// weakly Pareto optimal for ANY r and w (the max is monotone in F), so r and
// w only decide which Pareto point a preference selects:
//
//   * r below the attainable objective values (the utopia point) makes the
//     selected point the intersection of the front with the ray
//     r + t (w_1 / lambda_1, ..., w_S / lambda_S): larger lambda_s, smaller
//     f_s. With r above some attainable values the preference can act
//     backwards (a negative f_s - r_s shrinks when multiplied by a larger
//     lambda_s), which is why the paper takes r = 0 and assumes f_s > 0.
//   * w = nadir - utopia (normalization) makes objectives of different
//     units comparable: a uniform preference grid then spreads points evenly
//     over the front (exactly evenly when the normalized front is linear).
//
// No sign condition on f is needed anywhere: iterates below r (e.g.
// infeasible ones) are ordinary. The paper's form, lambda_s (f_s + offset_s)
// <= rho, is r = -offset and w = 1 (Solver::Options::objective_offset).
//
// Where r comes from (Solver::Options, first match wins):
//   OBJECTIVE_OFFSET  r = -objective_offset (or the legacy automatic offset);
//   GIVEN             Solver::Options::reference_point;
//   SINGLE_OBJECTIVE  S = 1: r = 0 (the scalarization is min f; r is moot);
//   UTOPIA            the ideal point minus a margin, from S single-objective
//                     solves min f_s on the problem's feasible set (h = 0,
//                     its inequalities and bounds; same strategy and start
//                     point as the WC solve): utopia_s = ideal_s -
//                     utopia_margin * range_s, where range_s = max(nadir_s -
//                     ideal_s, 1e-4 max(1, |ideal_s|, |nadir_s|)) and
//                     nadir_s = max_j f_s(z_j*) over the single-objective
//                     minimizers z_j* (the payoff table). The minimizers
//                     are lexicographic: from the minimizer z_j of f_j, a
//                     second solve minimizes f_j + sum_t w_t f_t with
//                     w_t = delta_j / ((S - 1) (f_t(z_j) - f_t*)) and
//                     delta_j = 1e-6 times the first table's range of f_j.
//                     That raises f_j by at most delta_j and takes the
//                     other objectives to their minimum over the set of
//                     minimizers of f_j. Without it, a minimizer that is
//                     not unique (the odometry chain of a pose graph is
//                     met exactly by a whole family of poses) leaves the
//                     other objectives arbitrary, and the nadir, margin
//                     and scales inherit them. Where the minimizer is
//                     unique the second solve moves f_j by O(w^2) and
//                     the others by about 1e-6 of their ranges.
//                     (Scalarization::num_lexicographic_solves counts
//                     them; they are skipped where the first table
//                     leaves nothing to break.)
// Scales: Solver::Options::objective_scale when given; otherwise, with the
// UTOPIA reference point and Solver::Options::normalize_objectives (the
// default), nadir - utopia (at least range_s), which makes the selected
// point independent of the objectives' units; otherwise ones.

#ifndef ECMO_SCALARIZATION_H_
#define ECMO_SCALARIZATION_H_

#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/types.h"

namespace ecmo {

enum class ReferencePointType {
  OBJECTIVE_OFFSET,
  GIVEN,
  SINGLE_OBJECTIVE,
  UTOPIA,
};
const char* ReferencePointTypeToString(ReferencePointType type);

// The scalarization a solve used, and what computing it cost.
struct Scalarization {
  ReferencePointType reference_point_type = ReferencePointType::UTOPIA;
  // r and w (size S each; w > 0).
  Eigen::VectorXd reference_point;
  Eigen::VectorXd objective_scale;
  // True when objective_scale = nadir - utopia.
  bool normalized = false;
  // True when objective_scale is Solver::Options::objective_scale (it then
  // caps the certificate's objective scales; ecmo/solver.h).
  bool scale_given = false;

  // From the single-objective solves (empty when none ran): the ideal point
  // (min of each objective found), the payoff-table nadir estimate, and
  // each solve's termination and objective values (row j: F at the
  // minimizer of f_j).
  Eigen::VectorXd ideal_point;
  Eigen::VectorXd nadir_point;
  Eigen::MatrixXd payoff_table;
  int num_single_objective_solves = 0;
  // Second solves of the lexicographic ends (see above); their work is in
  // `evaluations` and `time_in_seconds` below.
  int num_lexicographic_solves = 0;
  // Work of those solves (zeros when none ran). A Pareto sweep computes the
  // scalarization once and reports the cost once.
  EvaluationCounts evaluations;
  double time_in_seconds = 0.0;
  // True when ecmo::Solve took this scalarization from an earlier solve on
  // the same evaluator or problem (Solver::Options::reuse_scalarization):
  // the work above was that solve's, not this one's.
  bool reused = false;
  // Empty, or why an estimate is unreliable (e.g. a single-objective solve
  // that did not converge).
  std::string message;

  // "S + M lexicographic (G gradient evaluations, T s)" (without the
  // middle part when no lexicographic solve ran): the reports' line.
  std::string DescribeSolves() const;

  // The WC value of objective values f at `preference`:
  // max_s lambda_s (f_s - r_s) / w_s, lambda the preference normalized to
  // sum 1 (as ecmo::Solve takes it). +inf when a size differs from S, the
  // preference's sum is not positive or the value is not finite. What a WC
  // solve minimizes: it compares points (a grid's, or two solves') at one
  // preference.
  double WcValue(const std::vector<double>& preference,
                 const Eigen::VectorXd& f) const;
};

}  // namespace ecmo

#endif  // ECMO_SCALARIZATION_H_
