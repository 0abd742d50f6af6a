// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: when a sweep compares a certified warm-started
// point with a cold solve at its preference (SweepPoint::cold_check).
//
// Why: a warm start hands a point the neighbour's z. Where the neighbour
// sits in a region that the objectives no longer feel (a softmax
// saturated at a weight of 0, an end of a concave front on a closed set),
// the point can be certified there although a cold start finds a smaller
// WC value: the certificate judges the point, not where it came from.
// Measured on a 3-logit softmax problem (tests/sweep_cold_check_test.cc):
// 5 of 19 warm points certified 1.4-23% above an independent grid's best,
// 0 of 19 cold; on mtbl_logistic_reduced at n_y = 640, 1 of 15 points
// 10.8% above the cold sweep's (benchmarks/README.md, "Warm starts"). The
// tests below are cheap (no solve); the cold solve they trigger decides,
// and the sweep keeps the smaller WC value.

#ifndef ECMO_INTERNAL_SWEEP_COLD_CHECK_H_
#define ECMO_INTERNAL_SWEEP_COLD_CHECK_H_

#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/solver.h"

namespace ecmo {
namespace internal {

// Whether a cold retry is the better of two solves of the same point when
// the warm one did not converge: a CONVERGENCE retry; else, between usable
// points, a feasible one (constraint_max_norm within options'
// feasibility_tolerance) before an infeasible one; between two feasible
// ones the smaller WC value, the objective both minimize (within 1e-6 of
// it: a tie); between two infeasible ones, or on a tie, the smaller
// certificate ratio.
bool ColdRetryIsBetter(const Solver::Options& options,
                       const Solver::Summary& warm,
                       const Solver::Summary& cold);

// Whether the cold solve of a certified warm point that the checks
// flagged (a possibly spurious end, or a reason from the checks below)
// replaces it: usable, feasible (as above) and with a WC value smaller by
// more than 1e-6 of it, converged or not (a feasible point below the
// warm one shows that the warm one is not the WC minimizer). A tie keeps
// the warm point: on a legitimately saturated end both reach one value.
bool ColdSolveBeatsFlaggedPoint(const Solver::Options& options,
                                const Solver::Summary& warm,
                                const Solver::Summary& cold);

// A certified point where one objective j alone is active although f_j is
// above its minimum (the ideal point): a stationary point of f_j that is
// not its minimizer, the signature of an end that is KKT for every
// preference. Needs the ideal point (false without it). *why says so.
bool SpuriousEnd(const Solver::Summary& s,
                 const std::vector<double>& preference,
                 std::string* why);

// The point's objectives equal those of the point it was warm-started from
// (to 1e-6 of each |f_s - r_s|) although the preferences differ, with at
// least two objectives active (within 1e-3 of their scale of the WC
// level): one point KKT for two preferences, as at a saturated point or a
// kink of the front. (With one objective active, that is what every end
// of a front does; SpuriousEnd judges those.) Any reference point.
bool CollapsedOntoSource(const Solver::Summary& s,
                         const std::vector<double>& preference,
                         const Solver::Summary& source,
                         const std::vector<double>& source_preference);

// Scratch of SaturatedCoordinates, kept per worker.
struct ColdCheckScratch {
  Eigen::VectorXd weights, f, h0, h, z, response;
  Eigen::MatrixXd grad_f;
  // The objectives' gradients at `start` (computed once per start point).
  Eigen::VectorXd start;
  Eigen::MatrixXd start_grad_f;
};

// Saturation: coordinates z_i that the weighted objectives responded to at
// the sweep's start point but respond to a million times less at the
// point (max_s lambda_s / w_s |d f_s / d z_i|), and still so after a move
// of 1e-3 in them that the constraints do not notice: a plateau the point
// has run onto (a softmax weight at 0, a sigmoid at 1), where the
// certificate, which measures the terms at the point, can hold for other
// preferences too. Not an ordinary stationary coordinate (its gradient
// grows with its curvature over the move), not a parameter no objective
// uses (it responds nowhere), and not a coordinate the constraints
// depend on. The move is absolute: a logit's scale is 1 whatever its
// value, which drifts along the softmax's invariant direction (measured:
// logits of 4e6 on mtbl_logistic_reduced). Not judged (false) on a
// problem with a manifold, or when an evaluation fails. Costs two
// gradient evaluations per point, and one at the start per worker,
// counted in the evaluator's counts. *why names the coordinates.
bool SaturatedCoordinates(Evaluator* evaluator,
                          const Solver::Summary& s,
                          const std::vector<double>& preference,
                          const Eigen::VectorXd& start,
                          double feasibility_tolerance,
                          ColdCheckScratch* scratch,
                          std::string* why);

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_SWEEP_COLD_CHECK_H_
