// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// S = 1: equality-constrained nonlinear least squares with WC_NEWTON on an
// ordinary ceres::Problem (README, "Equality-constrained least squares").
//
// The fit: a circle (center c, radius r) through noisy points, by geometric
// distance residuals |p_i - c| - r, that must pass through an anchor point
// P: h = |P - c|^2 - r^2 = 0, a nonlinear equality Ceres cannot pose. The
// answer is checked against two independent references:
//   * the Ipopt reference (ecmo::Solve with IpoptReference::Options) on the
//     same fit written as an ecmo::Problem (one scalar objective
//     1/2 sum_i (|p_i - c| - r)^2, one constraint);
//   * plain ceres::Solve of the fit with the constraint eliminated by hand:
//     every circle through P is r = |P - c|, so min over c alone of
//     1/2 sum_i (|p_i - c| - |P - c|)^2 is the same problem unconstrained.

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ceres/dynamic_autodiff_cost_function.h"
#include "ceres/problem.h"
#include "ceres/solver.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/ipopt_reference.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

constexpr double kAnchor[2] = {3.0, 0.5};

struct Data {
  std::vector<double> x, y;
};

// Noisy points on the circle of center (0.2, -0.1) and radius 2, on an arc
// that does not reach the anchor (which lies off that circle), so the
// constraint is active.
Data MakeData(int n) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.05);
  std::uniform_real_distribution<double> angle(1.0, 5.0);
  Data data;
  for (int i = 0; i < n; ++i) {
    const double t = angle(rng);
    data.x.push_back(0.2 + 2.0 * std::cos(t) + noise(rng));
    data.y.push_back(-0.1 + 2.0 * std::sin(t) + noise(rng));
  }
  return data;
}

// |p - c| - r.
struct CircleDistance {
  CircleDistance(double x, double y) : x(x), y(y) {}
  template <typename T>
  bool operator()(const T* center, const T* radius, T* r) const {
    using std::sqrt;
    const T dx = T(x) - center[0], dy = T(y) - center[1];
    r[0] = sqrt(dx * dx + dy * dy) - radius[0];
    return true;
  }
  double x, y;
};

// |P - c|^2 - r^2.
struct ThroughAnchor {
  template <typename T>
  bool operator()(const T* center, const T* radius, T* h) const {
    const T dx = T(kAnchor[0]) - center[0], dy = T(kAnchor[1]) - center[1];
    h[0] = dx * dx + dy * dy - radius[0] * radius[0];
    return true;
  }
};

// The whole objective as one scalar: 1/2 sum_i (|p_i - c| - r)^2.
struct FitCost {
  explicit FitCost(const Data* data) : data(data) {}
  template <typename T>
  bool operator()(const T* center, const T* radius, T* f) const {
    f[0] = T(0.0);
    for (size_t i = 0; i < data->x.size(); ++i) {
      T r;
      CircleDistance(data->x[i], data->y[i])(center, radius, &r);
      f[0] += 0.5 * r * r;
    }
    return true;
  }
  const Data* data;
};

// The constraint eliminated: |p_i - c| - |P - c|.
struct EliminatedDistance {
  EliminatedDistance(double x, double y) : x(x), y(y) {}
  template <typename T>
  bool operator()(const T* center, T* r) const {
    using std::sqrt;
    const T dx = T(x) - center[0], dy = T(y) - center[1];
    const T ax = T(kAnchor[0]) - center[0], ay = T(kAnchor[1]) - center[1];
    r[0] = sqrt(dx * dx + dy * dy) - sqrt(ax * ax + ay * ay);
    return true;
  }
  double x, y;
};

const double kStartCenter[2] = {0.0, 0.0};
const double kStartRadius = 1.5;

TEST(EqualityConstrainedLeastSquares,
     CircleThroughAnchorMatchesIpoptAndElimination) {
  const Data data = MakeData(60);

  // The user's ceres::Problem: residual blocks of the fit, and the
  // constraint as one more residual block, kept apart in its own group.
  double center[2] = {kStartCenter[0], kStartCenter[1]};
  double radius[1] = {kStartRadius};
  ceres::Problem problem;
  std::vector<ceres::ResidualBlockId> fit, anchor;
  for (size_t i = 0; i < data.x.size(); ++i) {
    fit.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<CircleDistance, 1, 2, 1>(
            new CircleDistance(data.x[i], data.y[i])),
        nullptr,
        center,
        radius));
  }
  anchor.push_back(problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<ThroughAnchor, 1, 2, 1>(
          new ThroughAnchor),
      nullptr,
      center,
      radius));
  CeresProblemAdapter adapter(
      &problem, {{"fit", fit}}, {{"through_anchor", anchor}});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;

  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  Solver::Summary summary;
  Solve(options, &adapter, {1.0}, &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
      << summary.FullReport();
  EXPECT_TRUE(summary.IsCertified(options));
  EXPECT_LE(summary.constraint_max_norm, 1e-8);
  // Written back into the user's blocks, and on the anchor's circle.
  EXPECT_EQ(center[0], summary.z[0]);
  EXPECT_NEAR(std::hypot(kAnchor[0] - center[0], kAnchor[1] - center[1]),
              radius[0],
              1e-8);

  // Reference 1: Ipopt on the same fit as an ecmo::Problem.
  double ref_center[2] = {kStartCenter[0], kStartCenter[1]};
  double ref_radius[1] = {kStartRadius};
  Problem ecmo_problem;
  ecmo_problem.AddObjective(
      std::make_unique<ceres::AutoDiffCostFunction<FitCost, 1, 2, 1>>(
          new FitCost(&data)),
      {ref_center, ref_radius},
      "fit");
  ecmo_problem.AddConstraint(
      std::make_unique<ceres::AutoDiffCostFunction<ThroughAnchor, 1, 2, 1>>(
          new ThroughAnchor),
      {ref_center, ref_radius},
      "through_anchor");
  IpoptReference::Summary reference;
  Solve(IpoptReference::Options(), &ecmo_problem, {1.0}, &reference);
  ASSERT_EQ(reference.termination_type, ceres::CONVERGENCE)
      << reference.FullReport();
  EXPECT_NEAR(center[0], ref_center[0], 1e-6);
  EXPECT_NEAR(center[1], ref_center[1], 1e-6);
  EXPECT_NEAR(radius[0], ref_radius[0], 1e-6);
  // The certificate allows ||h||_inf <= 1e-8, which moves the cost by
  // about |nu| 1e-8.
  EXPECT_NEAR(summary.objectives[0],
              reference.objectives[0],
              1e-8 * reference.objectives[0]);

  // Reference 2: the constraint eliminated, plain Ceres.
  double free_center[2] = {kStartCenter[0], kStartCenter[1]};
  ceres::Problem eliminated;
  for (size_t i = 0; i < data.x.size(); ++i) {
    eliminated.AddResidualBlock(
        new ceres::AutoDiffCostFunction<EliminatedDistance, 1, 2>(
            new EliminatedDistance(data.x[i], data.y[i])),
        nullptr,
        free_center);
  }
  ceres::Solver::Options ceres_options;
  ceres_options.function_tolerance = 1e-14;
  ceres_options.gradient_tolerance = 1e-14;
  ceres_options.parameter_tolerance = 1e-14;
  ceres::Solver::Summary ceres_summary;
  ceres::Solve(ceres_options, &eliminated, &ceres_summary);
  ASSERT_TRUE(ceres_summary.IsSolutionUsable());
  EXPECT_NEAR(center[0], free_center[0], 1e-6);
  EXPECT_NEAR(center[1], free_center[1], 1e-6);
  EXPECT_NEAR(summary.objectives[0],
              ceres_summary.final_cost,
              1e-8 * ceres_summary.final_cost);
  // The constraint is active: the unconstrained fit (plain Ceres on the
  // user's fit residuals alone) is clearly better.
  ceres::Problem::Options borrow;
  borrow.cost_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
  ceres::Problem unconstrained(borrow);
  double open_center[2] = {kStartCenter[0], kStartCenter[1]};
  double open_radius[1] = {kStartRadius};
  for (ceres::ResidualBlockId id : fit) {
    unconstrained.AddResidualBlock(
        const_cast<ceres::CostFunction*>(
            problem.GetCostFunctionForResidualBlock(id)),
        nullptr,
        open_center,
        open_radius);
  }
  ceres::Solve(ceres_options, &unconstrained, &ceres_summary);
  ASSERT_TRUE(ceres_summary.IsSolutionUsable());
  EXPECT_GT(summary.objectives[0], 2.0 * ceres_summary.final_cost);
}

}  // namespace
}  // namespace ecmo
