// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Uses only ecmo::plugin (find_package(ecmo COMPONENTS plugin), which needs
// neither Ipopt nor nlohmann-json): its own problem, one solve and the
// version header.
#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "ecmo/version.h"

// The core headers must not pull in the JSON library: a program that only
// solves should not need it.
#ifdef NLOHMANN_JSON_VERSION_MAJOR
#error "ecmo::plugin's headers include nlohmann/json.hpp"
#endif

namespace {

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

}  // namespace

int main() {
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
  ecmo::Solver::Summary summary;
  ecmo::Solve(options, problem, {0.5, 0.5}, &summary);
  std::cout << "ecmo " << ecmo::VersionString() << ": "
            << summary.BriefReport() << "\n";
  const bool on_diagonal = std::abs(summary.z[0] - std::sqrt(2.0)) < 1e-4 &&
                           std::abs(summary.z[1] - std::sqrt(2.0)) < 1e-4;
  return summary.IsSolutionUsable() && on_diagonal &&
                 ecmo::VersionString() == std::string(ECMO_VERSION_STRING)
             ? 0
             : 1;
}
