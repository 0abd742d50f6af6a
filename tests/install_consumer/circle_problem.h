// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The problem both component consumers solve: f1 = ||z - (1, 0)||^2,
// f2 = ||z - (0, 1)||^2 on the circle ||z||^2 = 4; at equal preference the
// WC point is z = (sqrt 2, sqrt 2). Uses ecmo::plugin's headers only.
#ifndef ECMO_INSTALL_CONSUMER_CIRCLE_PROBLEM_H_
#define ECMO_INSTALL_CONSUMER_CIRCLE_PROBLEM_H_

#include <cmath>
#include <memory>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"

namespace consumer {

struct DistanceTo {  // f(z) = ||z - c||^2
  DistanceTo(double cx, double cy) : cx(cx), cy(cy) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - cx) * (z[0] - cx) + (z[1] - cy) * (z[1] - cy);
    return true;
  }
  double cx, cy;
};

struct OnCircle {  // h(z) = ||z||^2 - 4
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = z[0] * z[0] + z[1] * z[1] - 4.0;
    return true;
  }
};

// Solves at equal preference; true iff the solution is usable and at
// (sqrt 2, sqrt 2) to 1e-4.
inline bool SolveCircle(ecmo::Solver::Summary* summary) {
  double z[2] = {1.0, 1.0};
  ecmo::Problem problem;
  problem.AddObjective(
      std::make_unique<ceres::AutoDiffCostFunction<DistanceTo, 1, 2>>(
          new DistanceTo(1.0, 0.0)),
      {z}, "to_x");
  problem.AddObjective(
      std::make_unique<ceres::AutoDiffCostFunction<DistanceTo, 1, 2>>(
          new DistanceTo(0.0, 1.0)),
      {z}, "to_y");
  problem.AddConstraint(
      std::make_unique<ceres::AutoDiffCostFunction<OnCircle, 1, 2>>(
          new OnCircle),
      {z}, "circle");
  ecmo::Solver::Options options;
  options.max_iterations = 20000;
  ecmo::Solve(options, problem, {0.5, 0.5}, summary);
  return summary->IsSolutionUsable() &&
         std::abs(summary->z[0] - std::sqrt(2.0)) < 1e-4 &&
         std::abs(summary->z[1] - std::sqrt(2.0)) < 1e-4;
}

}  // namespace consumer

#endif  // ECMO_INSTALL_CONSUMER_CIRCLE_PROBLEM_H_
