// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The paper-faithful strategy (Algorithm 1): its gradient against finite
// differences, one step against the formula, the theorem's T^(-1/2) rate of
// the running average of ||K_t||^2, and the fixed-step divergence that the
// backtracking rule prevents.

#include <cmath>
#include <string>

#include "ecmo/evaluator.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "ecmo/wc_penalty.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

TEST(WcPenalty, GradientMatchesFiniteDifferences) {
  double z[2] = {0.3, -0.8};
  Problem problem;
  testing::BuildGebken(z, &problem);
  ProblemEvaluator evaluator(&problem);
  const Eigen::Vector2d lambda(0.3, 0.7), offset(0.5, 0.25);
  const double u = 7.0, v = 3.0, rho = 1.3;
  const Eigen::Vector2d z0(0.3, -0.8), delta(0.2, 0.05);
  double value;
  PenaltyGradient g;
  std::string error;
  ASSERT_TRUE(EvaluateWcPenalty(&evaluator, lambda, offset, u, v, rho, z0,
                                delta, &value, &g, &error));
  auto P = [&](double r, const Eigen::VectorXd& zz, const Eigen::VectorXd& d) {
    double p;
    EXPECT_TRUE(EvaluateWcPenalty(&evaluator, lambda, offset, u, v, r, zz, d,
                                  &p, nullptr, &error));
    return p;
  };
  const double h = 1e-6;
  EXPECT_NEAR(g.rho, (P(rho + h, z0, delta) - P(rho - h, z0, delta)) / (2 * h),
              1e-6);
  for (int i = 0; i < 2; ++i) {
    Eigen::VectorXd zp = z0, zm = z0, dp = delta, dm = delta;
    zp[i] += h;
    zm[i] -= h;
    dp[i] += h;
    dm[i] -= h;
    EXPECT_NEAR(g.z[i], (P(rho, zp, delta) - P(rho, zm, delta)) / (2 * h),
                1e-6);
    EXPECT_NEAR(g.delta[i], (P(rho, z0, dp) - P(rho, z0, dm)) / (2 * h), 1e-6);
  }
}

TEST(WcPenaltyPgd, OneFixedStepIsTheProjectedGradientStep) {
  // T = 1: eta = eta0, u = v = c0; theta_1 = P_C(theta_0 - eta grad P).
  double z[2] = {0.3, -0.8};
  Problem problem;
  testing::BuildGebken(z, &problem);
  Solver::Options options;
  options.strategy = StrategyType::WC_PENALTY_PGD;
  options.objective_offset = {0.0, 0.0};  // the paper's form, r = 0
  options.max_iterations = 1;
  options.pgd.eta0 = 0.01;
  options.pgd.c0 = 2.0;
  options.pgd.step_rule = StepRule::FIXED;
  const Eigen::Vector2d lambda(0.4, 0.6);
  Solver::Summary summary;
  Solve(options, problem, {0.4, 0.6}, &summary);
  ASSERT_EQ(summary.termination_type, ceres::NO_CONVERGENCE) << summary.message;
  EXPECT_EQ(summary.iterations, 1);

  ProblemEvaluator evaluator(&problem);
  const Eigen::Vector2d z0(0.3, -0.8);
  // f(z0) = (4.93, 3.93); rho_0 = max lambda f, delta_0 = rho_0 - lambda f.
  const Eigen::Vector2d f0(2.89 + 3.24, 2.89 + 0.04);
  const double rho0 = std::max(0.4 * f0[0], 0.6 * f0[1]);
  const Eigen::Vector2d delta0(rho0 - 0.4 * f0[0], rho0 - 0.6 * f0[1]);
  double value;
  PenaltyGradient g;
  std::string error;
  ASSERT_TRUE(EvaluateWcPenalty(&evaluator, lambda, Eigen::VectorXd(), 2.0, 2.0,
                                rho0, z0, delta0, &value, &g, &error));
  EXPECT_NEAR(summary.initial_rho, rho0, 1e-14);
  EXPECT_NEAR(summary.final_rho, rho0 - 0.01 * g.rho, 1e-14);
  EXPECT_NEAR(summary.z[0], z0[0] - 0.01 * g.z[0], 1e-14);
  EXPECT_NEAR(summary.z[1], z0[1] - 0.01 * g.z[1], 1e-14);
  EXPECT_NEAR(summary.delta[0], std::max(0.0, delta0[0] - 0.01 * g.delta[0]),
              1e-14);
  // The solution was written back into the user's block.
  EXPECT_EQ(z[0], summary.z[0]);
}

double AverageKkt(int T, StepRule rule) {
  double z[2] = {0.5, 0.5};
  Problem problem;
  testing::BuildGebken(z, &problem);
  Solver::Options options;
  options.strategy = StrategyType::WC_PENALTY_PGD;
  options.objective_offset = {0.0, 0.0};  // the paper's form, r = 0
  options.max_iterations = T;
  options.pgd.step_rule = rule;
  options.record_history = false;
  Solver::Summary summary;
  Solve(options, problem, {0.5, 0.5}, &summary);
  EXPECT_TRUE(summary.IsSolutionUsable()) << summary.message;
  return summary.average_kkt_residual_sq;
}

TEST(WcPenaltyPgd, AverageKktDecaysLikeInverseSquareRootOfT) {
  // Theorem "Finite-Time Convergence Rate": the average of ||K_t||^2 over
  // t < T is O(T^(-1/2)); from T to 100 T it should fall by about 10. The
  // transient (about 1/eta = T^(1/4) iterations) decays faster, so the
  // measured ratio sits between 10 and 100^(3/4) = 31.6; band [5, 20].
  for (StepRule rule : {StepRule::FIXED, StepRule::BACKTRACKING}) {
    const double a = AverageKkt(1000, rule);
    const double b = AverageKkt(100000, rule);
    const double ratio = a / b;
    EXPECT_GE(ratio, 5.0) << StepRuleToString(rule) << " " << a << " " << b;
    EXPECT_LE(ratio, 20.0) << StepRuleToString(rule) << " " << a << " " << b;
  }
}

TEST(WcPenaltyPgd, FixedStepDivergesWhereBacktrackingConverges) {
  // eta0 = 0.05, c0 = 10: eta L_P > 2 on gebken_circle.
  for (StepRule rule : {StepRule::FIXED, StepRule::BACKTRACKING}) {
    double z[2] = {0.5, 0.5};
    Problem problem;
    testing::BuildGebken(z, &problem);
    Solver::Options options;
    options.strategy = StrategyType::WC_PENALTY_PGD;
    options.objective_offset = {0.0, 0.0};  // the paper's form, r = 0
    options.max_iterations = 10000;
    options.pgd.eta0 = 0.05;
    options.pgd.c0 = 10.0;
    options.pgd.step_rule = rule;
    Solver::Summary summary;
    Solve(options, problem, {0.5, 0.5}, &summary);
    if (rule == StepRule::FIXED) {
      EXPECT_EQ(summary.termination_type, ceres::FAILURE);
      EXPECT_NE(summary.message.find("diverged"), std::string::npos)
          << summary.message;
      EXPECT_NE(summary.message.find("backtracking"), std::string::npos);
      EXPECT_EQ(z[0], 0.5);  // unusable: the start point is kept
    } else {
      EXPECT_EQ(summary.termination_type, ceres::NO_CONVERGENCE)
          << summary.message;
      EXPECT_GT(summary.num_shortened_steps, 0);
      EXPECT_LT(summary.kkt.with_least_squares_multipliers.SquaredNorm(), 1e-3);
      EXPECT_NEAR(z[0], 1.0, 2e-2);
      EXPECT_NEAR(z[1], 0.0, 2e-2);
    }
  }
}

TEST(WcPenaltyPgd, KktToleranceStopsEarlyWithConvergence) {
  double z[2] = {0.5, 0.5};
  Problem problem;
  testing::BuildGebken(z, &problem);
  Solver::Options options;
  options.strategy = StrategyType::WC_PENALTY_PGD;
  options.objective_offset = {0.0, 0.0};  // the paper's form, r = 0
  options.max_iterations = 100000;
  options.kkt_tolerance = 1e-2;
  Solver::Summary summary;
  Solve(options, problem, {0.5, 0.5}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_LT(summary.iterations, 100000);
  EXPECT_LE(summary.kkt.with_solver_multipliers.SquaredNorm(), 1e-2 * 1.0001);
}

class CountingCallback : public IterationCallback {
 public:
  explicit CountingCallback(int stop_at) : stop_at_(stop_at) {}
  CallbackReturnType operator()(const IterationSummary& s) override {
    ++calls;
    last_average = s.average_kkt_residual_sq;
    return s.iteration + 1 >= stop_at_ ? ceres::SOLVER_ABORT
                                       : ceres::SOLVER_CONTINUE;
  }
  int calls = 0;
  double last_average = -1;

 private:
  int stop_at_;
};

TEST(WcPenaltyPgd, CallbackSeesEveryIterationAndCanAbort) {
  double z[2] = {0.5, 0.5};
  Problem problem;
  testing::BuildGebken(z, &problem);
  CountingCallback callback(25);
  Solver::Options options;
  options.strategy = StrategyType::WC_PENALTY_PGD;
  options.objective_offset = {0.0, 0.0};  // the paper's form, r = 0
  options.max_iterations = 1000;
  options.callbacks.push_back(&callback);
  Solver::Summary summary;
  Solve(options, problem, {0.5, 0.5}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::USER_FAILURE);
  EXPECT_EQ(callback.calls, 25);
  EXPECT_EQ(summary.iterations, 25);
  ASSERT_EQ(summary.history.size(), 25u);
  EXPECT_DOUBLE_EQ(summary.history.back().average_kkt_residual_sq,
                   callback.last_average);
  EXPECT_EQ(z[0], 0.5);  // USER_FAILURE is not usable: blocks untouched
}

}  // namespace
}  // namespace ecmo
