// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// A registry of named, documented ECMO problems with known answers where they
// exist. Each entry builds a fresh, self-contained instance (the instance
// owns the parameter blocks the ecmo::Problem points into), so instances can
// be built once per thread.
//
//   const ecmo::problems::ProblemInfo* info = ecmo::problems::Find("gebken_circle");
//   std::unique_ptr<ecmo::problems::ProblemInstance> p = info->build();
//   ecmo::Solve(options, p->problem, {0.5, 0.5}, &summary);

#ifndef ECMO_PROBLEMS_REGISTRY_H_
#define ECMO_PROBLEMS_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/problem.h"

namespace ecmo {
namespace problems {

// A built problem: parameter storage plus the ecmo::Problem over it. Not
// copyable or movable (the problem holds pointers into `blocks`).
struct ProblemInstance {
  ProblemInstance() = default;
  ProblemInstance(const ProblemInstance&) = delete;
  ProblemInstance& operator=(const ProblemInstance&) = delete;

  // Parameter blocks, owned here; problem points into them. They hold the
  // start point after build().
  std::vector<std::vector<double>> blocks;
  ecmo::Problem problem;
  // Packed start point z0 (the same values as `blocks` after build()).
  Eigen::VectorXd start;
  // Resets the parameter blocks to the start point.
  void ResetToStart();
};

struct ProblemInfo {
  std::string name;
  // One paragraph: where it comes from, the formulas, what is known.
  std::string description;
  int num_objectives = 0;
  int num_parameters = 0;
  int num_constraints = 0;
  // Default objective offset for this problem (size S): zeros when the
  // objectives are positive on the feasible set, otherwise a shift that
  // makes them so (documented in `description`).
  std::vector<double> objective_offset;
  std::function<std::unique_ptr<ProblemInstance>()> build;
  // Optional: the Pareto-optimal z (packed) that the WC problem selects for
  // preference lambda with objective offset `offset`. Empty when unknown.
  std::function<Eigen::VectorXd(const Eigen::VectorXd& lambda,
                                const Eigen::VectorXd& offset)>
      pareto_point;
  // Optional: n points of the analytic Pareto front in objective space
  // (rows = points, columns = objectives, unshifted). Empty when unknown.
  std::function<Eigen::MatrixXd(int n)> pareto_front;
  // Optional: the exact hypervolume (ecmo::Hypervolume convention: every
  // objective minimized, unshifted objectives) of the whole analytic Pareto
  // front for a hypervolume reference point R of size S, which must be
  // componentwise >= the front's nadir point. Empty when unknown. Known
  // values:
  //   circle_quarter, R = (a, b):     (a+1)(b+1) - (1 - pi/4);
  //   sphere_octant,  R = (a, b, c):  (a+1)(b+1)(c+1) - (1 - pi/6)
  //                                     - (1 - pi/4)(a + b + c).
  // The last term is not a typo: a point y with y_3 in [0, c] but
  // y_1^2 + y_2^2 > 1 (y_1, y_2 < 0) is dominated by no point of the octant,
  // so the unit square's corner outside the quarter disk is missing along
  // each of the three edges of the box as well.
  std::function<double(const Eigen::VectorXd& reference_point)>
      exact_hypervolume;
};

// All registered problems, in a stable order.
const std::vector<ProblemInfo>& AllProblems();
// The problem named `name`, or nullptr.
const ProblemInfo* Find(const std::string& name);
// "a, b, c": the valid names, for error messages.
std::string ProblemNames();

}  // namespace problems
}  // namespace ecmo

#endif  // ECMO_PROBLEMS_REGISTRY_H_
