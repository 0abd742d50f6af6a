// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// An example problem library: three problems that the installed ecmo_solve
// loads with --problem_library (see ecmo/problems/registration.h and
// docs/problem_libraries.md):
//
//   ecmo_solve --problem_library=./libecmo_example_problems.so --list_problems
//   ecmo_solve --problem_library=./libecmo_example_problems.so
//              --problem=library_segment --sweep=11 --plot=front.png
//              --reference=ipopt
//
// library_segment          S = 2: f_s = |z - e_s|^2 on the plane
//                          z1 + z2 + z3 = 1, with a closed-form front;
// library_triangle         S = 3: the same with three objectives;
// library_segment_evaluator  library_segment registered as an evaluator
//                          only (the form a matrix-free problem takes).

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "ceres/autodiff_cost_function.h"
#include "ecmo/evaluator.h"
#include "ecmo/problem.h"
#include "ecmo/problems/registration.h"
#include "ecmo/problems/registry.h"
#include "ecmo/sweep.h"

namespace {

using ecmo::problems::ProblemInfo;
using ecmo::problems::ProblemInstance;

// f = |z - e_corner|^2 in R^3.
struct DistanceToCorner {
  explicit DistanceToCorner(int corner) : corner(corner) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = T(0.0);
    for (int i = 0; i < 3; ++i) {
      const T d = z[i] - (i == corner ? 1.0 : 0.0);
      f[0] += d * d;
    }
    return true;
  }
  int corner;
};

// h = z1 + z2 + z3 - 1.
struct Plane {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = z[0] + z[1] + z[2] - 1.0;
    return true;
  }
};

// The problem with objectives f_s = |z - e_s|^2, s < num_objectives, on the
// plane, from z0 = (0.2, 0.2, 0.2) (off the plane).
std::unique_ptr<ProblemInstance> BuildCorners(int num_objectives) {
  auto instance = std::make_unique<ProblemInstance>();
  instance->blocks = {{0.2, 0.2, 0.2}};
  instance->start = Eigen::Vector3d(0.2, 0.2, 0.2);
  double* z = instance->blocks[0].data();
  for (int s = 0; s < num_objectives; ++s) {
    instance->problem.AddObjective(
        std::make_unique<ceres::AutoDiffCostFunction<DistanceToCorner, 1, 3>>(
            new DistanceToCorner(s)),
        {z},
        "distance_to_e" + std::to_string(s + 1));
  }
  instance->problem.AddConstraint(
      std::make_unique<ceres::AutoDiffCostFunction<Plane, 1, 3>>(new Plane),
      {z},
      "plane");
  return instance;
}

// On the Pareto set z = (1 - t, t, 0), t in [0, 1]: f = (2t^2, 2(1-t)^2).
Eigen::Vector2d SegmentObjectives(double t) {
  return Eigen::Vector2d(2.0 * t * t, 2.0 * (1.0 - t) * (1.0 - t));
}

// The WC point for preference lambda and objective offset o: the t where
// lambda_1 (f_1 + o_1) = lambda_2 (f_2 + o_2) (the difference increases with
// t), or the end of the segment nearest to it.
double SegmentParameter(const Eigen::VectorXd& lambda,
                        const Eigen::VectorXd& offset) {
  auto difference = [&](double t) {
    const Eigen::Vector2d f = SegmentObjectives(t);
    return lambda[0] * (f[0] + offset[0]) - lambda[1] * (f[1] + offset[1]);
  };
  if (difference(0.0) >= 0.0) return 0.0;
  if (difference(1.0) <= 0.0) return 1.0;
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (difference(mid) < 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

ProblemInfo SegmentInfo() {
  ProblemInfo info;
  info.num_objectives = 2;
  info.num_parameters = 3;
  info.num_constraints = 1;
  // The objectives reach 0 at the ends of the front.
  info.objective_offset = {1.0, 1.0};
  info.pareto_point = [](const Eigen::VectorXd& lambda,
                         const Eigen::VectorXd& offset) {
    const double t = SegmentParameter(lambda, offset);
    return Eigen::Vector3d(1.0 - t, t, 0.0).eval();
  };
  info.pareto_front = [](int n) {
    Eigen::MatrixXd front(n, 2);
    for (int i = 0; i < n; ++i) {
      const double t = n == 1 ? 0.0 : i / (n - 1.0);
      front.row(i) = SegmentObjectives(t).transpose();
    }
    return front;
  };
  return info;
}

ProblemInfo LibrarySegment() {
  ProblemInfo info = SegmentInfo();
  info.name = "library_segment";
  info.description =
      "Example problem library: f1 = |z - e1|^2, f2 = |z - e2|^2 subject to "
      "h = z1 + z2 + z3 - 1 = 0 (z in R^3). The Pareto set is the segment "
      "z = (1-t, t, 0), t in [0, 1], with front (2t^2, 2(1-t)^2). The "
      "objectives reach 0, so the default objective offset is 1 for both. "
      "Start z0 = (0.2, 0.2, 0.2).";
  info.build = [] { return BuildCorners(2); };
  return info;
}

ProblemInfo LibraryTriangle() {
  ProblemInfo info;
  info.name = "library_triangle";
  info.description =
      "Example problem library: f_s = |z - e_s|^2, s = 1, 2, 3, subject to "
      "h = z1 + z2 + z3 - 1 = 0. The Pareto set is the triangle with "
      "corners e1, e2, e3 (every point of the plane's simplex). Default "
      "objective offset 1. Start z0 = (0.2, 0.2, 0.2).";
  info.num_objectives = 3;
  info.num_parameters = 3;
  info.num_constraints = 1;
  info.objective_offset = {1.0, 1.0, 1.0};
  info.build = [] { return BuildCorners(3); };
  return info;
}

ProblemInfo LibrarySegmentEvaluator() {
  ProblemInfo info = SegmentInfo();
  info.name = "library_segment_evaluator";
  info.description =
      "Example problem library: library_segment registered as an evaluator "
      "only (build_evaluator), the form of a matrix-free problem; the same "
      "front, but no --reference=ipopt.";
  info.build_evaluator = [](int /*problem_size*/, std::string* /*error*/) {
    std::shared_ptr<ProblemInstance> built = BuildCorners(2);
    auto instance = std::make_unique<ecmo::EvaluatorInstance>();
    instance->evaluator =
        std::make_unique<ecmo::ProblemEvaluator>(&built->problem);
    instance->start = built->start;
    instance->storage = std::move(built);  // the problem outlives the evaluator
    return instance;
  };
  return info;
}

}  // namespace

ECMO_REGISTER_PROBLEM(LibrarySegment);
ECMO_REGISTER_PROBLEM(LibraryTriangle);
ECMO_REGISTER_PROBLEM(LibrarySegmentEvaluator);
