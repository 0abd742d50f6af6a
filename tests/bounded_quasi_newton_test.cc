// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The quasi-Newton strategies with bounds (their BoxLbfgs inner solver,
// plugin/src/box_lbfgs.h) against a closed form: two parabolas on the line
// z1 + z2 = 1 with a box on z1 that is active from above, active from below
// or inactive depending on the preference.
//
// On the line z2 = 1 - z1: f1 = 2 (z1 - 2)^2, f2 = 2 (z1 + 1)^2, so
// max(lambda1 f1, lambda2 f2) is convex in z1 with its minimum where
// sqrt(lambda1) (2 - z1) = sqrt(lambda2) (z1 + 1); the bounded WC point is
// that z1 clamped to the box. At an active bound a single objective s is
// active (omega_s = 1) and stationarity along the two coordinates gives
// nu = -lambda_s df_s/dz2 and the bound multiplier
// lambda_s |df_s/dz1 - df_s/dz2| (Ipopt's z_L / z_U, >= 0).

#include <cmath>
#include <string>

#include "ceres/sized_cost_function.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

constexpr double kLower = -0.2;
constexpr double kUpper = 0.2;
int g_outside_box = 0;

// (z1 - a)^2 + (z2 - b)^2; counts evaluations outside the box.
class Parabola final : public ceres::SizedCostFunction<1, 2> {
 public:
  Parabola(double a, double b) : a_(a), b_(b) {}
  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    const double* z = parameters[0];
    if (z[0] < kLower || z[0] > kUpper) ++g_outside_box;
    residuals[0] = (z[0] - a_) * (z[0] - a_) + (z[1] - b_) * (z[1] - b_);
    if (jacobians != nullptr && jacobians[0] != nullptr) {
      jacobians[0][0] = 2.0 * (z[0] - a_);
      jacobians[0][1] = 2.0 * (z[1] - b_);
    }
    return true;
  }

 private:
  double a_, b_;
};

class SumIsOne final : public ceres::SizedCostFunction<1, 2> {
 public:
  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    residuals[0] = parameters[0][0] + parameters[0][1] - 1.0;
    if (jacobians != nullptr && jacobians[0] != nullptr) {
      jacobians[0][0] = 1.0;
      jacobians[0][1] = 1.0;
    }
    return true;
  }
};

Solver::Summary SolveBounded(StrategyType strategy,
                             double l1,
                             bool ceres_inner,
                             double z[2]) {
  Problem problem;
  problem.AddObjective(new Parabola(2.0, -1.0), {z});
  problem.AddObjective(new Parabola(-1.0, 2.0), {z});
  problem.AddConstraint(new SumIsOne, {z});
  problem.SetParameterLowerBound(z, 0, kLower);
  problem.SetParameterUpperBound(z, 0, kUpper);
  Solver::Options options;
  options.strategy = strategy;
  options.objective_offset = {0.0, 0.0};  // r = 0, as in the closed form
  options.quasi_newton.use_ceres_inner_solver = ceres_inner;
  Solver::Summary summary;
  Solve(options, &problem, {l1, 1.0 - l1}, &summary);
  return summary;
}

TEST(BoundedQuasiNewton, MatchesTheClampedClosedFormWithBoundMultipliers) {
  for (StrategyType strategy : {StrategyType::WC_AUGMENTED_LAGRANGIAN,
                                StrategyType::WC_PENALTY_LBFGS}) {
    for (double l1 : {0.05, 0.2, 0.5}) {
      const double l2 = 1.0 - l1;
      const double free_z1 = (2.0 * std::sqrt(l1) - std::sqrt(l2)) /
                             (std::sqrt(l1) + std::sqrt(l2));
      const double z1 = std::min(kUpper, std::max(kLower, free_z1));
      const double z2 = 1.0 - z1;
      const double f1 = 2.0 * (z1 - 2.0) * (z1 - 2.0);
      const double f2 = 2.0 * (z1 + 1.0) * (z1 + 1.0);
      const std::string label = std::string(StrategyTypeToString(strategy)) +
                                ", lambda1 = " + std::to_string(l1);
      g_outside_box = 0;
      double z[2] = {0.0, 0.0};
      const Solver::Summary summary = SolveBounded(strategy, l1, false, z);
      ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
          << label << ": " << summary.message;
      EXPECT_EQ(g_outside_box, 0) << label;
      EXPECT_NEAR(z[0], z1, 1e-6) << label;
      EXPECT_NEAR(z[1], z2, 1e-6) << label;
      EXPECT_NEAR(summary.final_rho, std::max(l1 * f1, l2 * f2), 1e-6) << label;
      // The strategy's multipliers, which the certificate checked, and the
      // least-squares ones of the shared KKT function.
      double expected_lower = 0.0, expected_upper = 0.0;
      if (free_z1 > kUpper) {  // objective 1 active, pushing z1 up
        const double g1 = 2.0 * (z1 - 2.0), g2 = 2.0 * (z2 + 1.0);
        expected_upper = l1 * (g2 - g1);
      } else if (free_z1 < kLower) {  // objective 2 active, pushing z1 down
        const double g1 = 2.0 * (z1 + 1.0), g2 = 2.0 * (z2 - 2.0);
        expected_lower = l2 * (g1 - g2);
      }
      for (const KktMultipliers* m : {&summary.kkt.solver_multipliers,
                                      &summary.kkt.least_squares_multipliers}) {
        ASSERT_EQ(m->bound_lower.size(), 2) << label;
        ASSERT_EQ(m->bound_upper.size(), 2) << label;
        EXPECT_NEAR(m->bound_upper[0], expected_upper, 1e-5) << label;
        EXPECT_NEAR(m->bound_lower[0], expected_lower, 1e-5) << label;
        EXPECT_GE(m->bound_upper[0], 0.0) << label;
        EXPECT_GE(m->bound_lower[0], 0.0) << label;
      }
    }
  }
}

TEST(BoundedQuasiNewton, CeresInnerSolverRefusesBoundsWithAMessage) {
  double z[2] = {0.0, 0.0};
  const Solver::Summary summary =
      SolveBounded(StrategyType::WC_AUGMENTED_LAGRANGIAN, 0.5, true, z);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("use_ceres_inner_solver"), std::string::npos)
      << summary.message;
}

}  // namespace
}  // namespace ecmo
