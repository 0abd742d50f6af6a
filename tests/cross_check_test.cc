// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Tests of the strategy-vs-Ipopt cross-check (ecmo/cross_check.h).

#include "ecmo/cross_check.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/problem.h"
#include "ecmo/problems/registry.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

// gebken_circle, built locally: f1 = |z - (2, 1)|^2, f2 = |z - (2, -1)|^2,
// h = -z1^2 - z2^2 + 1, start (0.5, 0.5).
struct F1 {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - 2.0) * (z[0] - 2.0) + (z[1] - 1.0) * (z[1] - 1.0);
    return true;
  }
};
struct F2 {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - 2.0) * (z[0] - 2.0) + (z[1] + 1.0) * (z[1] + 1.0);
    return true;
  }
};
using testing::CircleH;

struct TestProblem {
  double z[2] = {0.5, 0.5};
  Problem problem;
};

std::unique_ptr<TestProblem> MakeGebken() {
  auto p = std::make_unique<TestProblem>();
  p->problem.AddObjective(
      new ceres::AutoDiffCostFunction<F1, 1, 2>(new F1), {p->z}, "f1");
  p->problem.AddObjective(
      new ceres::AutoDiffCostFunction<F2, 1, 2>(new F2), {p->z}, "f2");
  p->problem.AddConstraint(
      new ceres::AutoDiffCostFunction<CircleH, 1, 2>(new CircleH),
      {p->z},
      "circle");
  return p;
}

CrossCheckOptions FaithfulOptions(int iterations) {
  CrossCheckOptions options;
  options.solver.strategy = StrategyType::WC_PENALTY_PGD;
  options.solver.max_iterations = iterations;
  options.solver.record_history = false;
  options.solver.objective_offset = {0.0, 0.0};  // the paper's form, r = 0
  return options;
}

TEST(CrossCheck, FaithfulStrategyAgreesWithinItsOwnAccuracy) {
  for (double l1 : {0.5, 0.3}) {
    SCOPED_TRACE(l1);
    auto p = MakeGebken();
    const CrossCheckResult result =
        CrossCheck(FaithfulOptions(100000), p->problem, {l1, 1.0 - l1});
    ASSERT_TRUE(result.solver.IsSolutionUsable()) << result.solver.message;
    ASSERT_EQ(result.reference.termination_type, ceres::CONVERGENCE)
        << result.reference.message;
    EXPECT_TRUE(result.agree) << result.Report();
    EXPECT_EQ(result.verdict.rfind("AGREE: ", 0), 0u) << result.verdict;
    // The faithful strategy is slow: it is not within 1e-6 of the
    // reference, so the accuracy-dependent bound is what makes it agree.
    EXPECT_GT(result.z_distance, 1e-6);
    EXPECT_LE(result.z_distance, result.z_bound);
    EXPECT_LE(result.objective_distance, result.objective_bound);
    EXPECT_LE(result.rho_difference, result.objective_bound);
    EXPECT_LE(result.multiplier_distance, result.multiplier_bound);
    // The stated bound: eps = 3 sqrt(K_s + K_r).
    const double eps =
        3.0 *
        std::sqrt(
            result.solver.kkt.with_least_squares_multipliers.SquaredNorm() +
            result.reference.kkt.with_least_squares_multipliers.SquaredNorm());
    EXPECT_NEAR(result.z_bound, std::max(1e-6, eps), 1e-15);
    // J_h(z_ref) = -2 z_ref^T has the single singular value |2 z_ref| = 2.
    EXPECT_NEAR(result.constraint_jacobian_sigma_min, 2.0, 1e-6);
    // The reference itself is exact.
    EXPECT_LE(result.reference.kkt.with_least_squares_multipliers.SquaredNorm(),
              1e-14);
    // The parameter blocks hold the solver's solution.
    EXPECT_EQ(p->z[0], result.solver.z[0]);
    EXPECT_EQ(p->z[1], result.solver.z[1]);
  }
}

TEST(CrossCheck, BothRunsStartFromTheSameParameterBlocks) {
  auto p = MakeGebken();
  p->z[0] = 0.8;
  p->z[1] = -0.9;
  const CrossCheckResult result =
      CrossCheck(FaithfulOptions(1000), p->problem, {0.5, 0.5});
  // Both start rhos are max_s lambda_s f_s(z0) at the user's start point.
  const double f1 = 1.2 * 1.2 + 1.9 * 1.9;
  const double f2 = 1.2 * 1.2 + 0.1 * 0.1;
  EXPECT_DOUBLE_EQ(result.solver.initial_rho, 0.5 * std::max(f1, f2));
  EXPECT_DOUBLE_EQ(result.reference.initial_rho, 0.5 * std::max(f1, f2));
  EXPECT_EQ(p->z[0], result.solver.z[0]);
}

TEST(CrossCheck, StoppedEarlyDisagrees) {
  auto p = MakeGebken();
  const CrossCheckResult result =
      CrossCheck(FaithfulOptions(10), p->problem, {0.5, 0.5});
  EXPECT_FALSE(result.agree);
  EXPECT_EQ(result.verdict.rfind("DISAGREE: ", 0), 0u) << result.verdict;
  EXPECT_NE(result.verdict.find("not converged"), std::string::npos)
      << result.verdict;
  // The reference is unaffected by how the solver was configured.
  EXPECT_EQ(result.reference.termination_type, ceres::CONVERGENCE);
  EXPECT_NEAR(result.reference.z[0], 1.0, 1e-7);
  EXPECT_GT(result.z_distance, 1e-2);
}

TEST(CrossCheck, SolverFailureDisagreesAndKeepsTheStartPoint) {
  auto p = MakeGebken();
  CrossCheckOptions options = FaithfulOptions(0);  // Invalid: T must be > 0.
  const CrossCheckResult result = CrossCheck(options, p->problem, {0.5, 0.5});
  EXPECT_EQ(result.solver.termination_type, ceres::FAILURE);
  EXPECT_FALSE(result.agree);
  EXPECT_NE(result.verdict.find("solver: FAILURE"), std::string::npos)
      << result.verdict;
  EXPECT_EQ(p->z[0], 0.5);
  EXPECT_EQ(p->z[1], 0.5);
  EXPECT_EQ(result.z_distance, -1.0);
}

TEST(CrossCheck, ReferenceFailureDisagrees) {
  auto p = MakeGebken();
  CrossCheckOptions options = FaithfulOptions(100);
  options.reference.tolerance = -1.0;
  const CrossCheckResult result = CrossCheck(options, p->problem, {0.5, 0.5});
  EXPECT_FALSE(result.agree);
  EXPECT_NE(result.verdict.find("reference: FAILURE"), std::string::npos)
      << result.verdict;
  EXPECT_NE(result.verdict.find("tolerance"), std::string::npos)
      << result.verdict;
}

TEST(CrossCheck, ReferenceUsesTheSolversObjectiveOffset) {
  auto p = MakeGebken();
  CrossCheckOptions options = FaithfulOptions(100);
  options.solver.automatic_objective_offset = true;
  const CrossCheckResult result = CrossCheck(options, p->problem, {0.5, 0.5});
  ASSERT_EQ(result.solver.objective_offset_used.size(), 2u);
  EXPECT_EQ(result.reference.objective_offset_used,
            result.solver.objective_offset_used);
  // Symmetric offsets keep the symmetric WC point: rho = 1 + offset / 2.
  EXPECT_NEAR(result.reference.final_rho,
              1.0 + 0.5 * result.solver.objective_offset_used[0],
              1e-8);
}

TEST(CrossCheck, AgreesOnEveryRegistryProblem) {
  for (const problems::ProblemInfo& info : problems::AllProblems()) {
    SCOPED_TRACE(info.name);
    std::unique_ptr<problems::ProblemInstance> instance = info.build();
    CrossCheckOptions options = FaithfulOptions(100000);
    options.solver.objective_offset = info.objective_offset;
    std::vector<double> lambda(info.num_objectives, 1.0 / info.num_objectives);
    const CrossCheckResult result =
        CrossCheck(options, instance->problem, lambda);
    EXPECT_TRUE(result.agree) << result.Report();
  }
}

TEST(CrossCheck, ReportAndJson) {
  auto p = MakeGebken();
  const CrossCheckResult result =
      CrossCheck(FaithfulOptions(2000), p->problem, {0.5, 0.5});
  const std::string report = result.Report();
  for (const char* needle : {StrategyTypeToString(StrategyType::WC_PENALTY_PGD),
                             "Ipopt reference",
                             "rho",
                             "||h(z)||_2",
                             "||K||^2 (own multipliers)",
                             "||K||^2 (least squares)",
                             "Iterations",
                             "Value evaluations",
                             "Time (s)",
                             "|z - z_ref|"}) {
    EXPECT_NE(report.find(needle), std::string::npos) << needle;
  }
  EXPECT_NE(report.find(result.verdict), std::string::npos);

  const nlohmann::json j = CrossCheckToJson(result);
  const nlohmann::json& ref = j.at("reference");
  for (const char* key : {"termination",
                          "iterations",
                          "objective_evaluations",
                          "gradient_evaluations",
                          "wall_time_seconds",
                          "rho",
                          "z",
                          "objectives",
                          "constraint_norm",
                          "kkt"}) {
    EXPECT_TRUE(ref.contains(key)) << key;
  }
  EXPECT_EQ(ref.at("termination"), "CONVERGENCE");
  EXPECT_EQ(ref.at("z").size(), 2u);
  EXPECT_DOUBLE_EQ(
      ref.at("kkt").at("residual_sq_least_squares").get<double>(),
      result.reference.kkt.with_least_squares_multipliers.SquaredNorm());
  const nlohmann::json& agreement = j.at("agreement");
  EXPECT_EQ(agreement.at("agree").get<bool>(), result.agree);
  EXPECT_EQ(agreement.at("verdict").get<std::string>(), result.verdict);
  EXPECT_DOUBLE_EQ(agreement.at("z_distance").get<double>(), result.z_distance);
  for (const char* key :
       {"objective_distance", "multiplier_distance", "rho_difference"}) {
    EXPECT_TRUE(agreement.contains(key)) << key;
  }
  // Round trip through text.
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

}  // namespace
}  // namespace ecmo
