// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The quasi-Newton WC strategies (wc-penalty-lbfgs, wc-augmented-lagrangian):
// the slack-eliminated function against finite differences and the KKT
// function, the analytic Pareto points of every registry problem, honest
// termination (tolerance, budgets, LICQ failure), option validation and
// quiet logs.

#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"
#include "ecmo/problem.h"
#include "ecmo/problems/registry.h"
#include "ecmo/solver.h"
#include "ecmo/wc_reduced_penalty.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

const StrategyType kFastStrategies[] = {StrategyType::WC_PENALTY_LBFGS,
                                        StrategyType::WC_AUGMENTED_LAGRANGIAN,
                                        StrategyType::WC_NEWTON};

Eigen::VectorXd Vec(std::initializer_list<double> values) {
  Eigen::VectorXd v(values.size());
  int i = 0;
  for (double x : values) v[i++] = x;
  return v;
}

TEST(WcPenaltyLbfgsFunction, GradientMatchesFiniteDifferencesAndKkt) {
  double z[2] = {0.3, -0.8};
  Problem problem;
  testing::BuildGebken(z, &problem);
  ProblemEvaluator evaluator(&problem);
  const Eigen::VectorXd lambda = Vec({0.3, 0.7});
  const Eigen::VectorXd offset = Vec({0.5, 0.25});
  WcReducedPenalty function(&evaluator, lambda, offset);
  function.SetPenalties(7.0, 3.0);
  // Shifts make both inequality terms active at x, one of them only
  // through its shift.
  ASSERT_TRUE(function.SetMultiplierShifts(Vec({0.4, 2.0}), Vec({-0.3})));
  EXPECT_FALSE(function.SetMultiplierShifts(Vec({0.4}), Vec({-0.3})));
  const Eigen::VectorXd x = Vec({2.0, 0.3, -0.8});
  double cost;
  Eigen::VectorXd gradient(3);
  ASSERT_TRUE(function.Evaluate(x.data(), &cost, gradient.data()));
  const double step = 1e-6;
  for (int i = 0; i < 3; ++i) {
    Eigen::VectorXd xp = x, xm = x;
    xp[i] += step;
    xm[i] -= step;
    double cp, cm;
    ASSERT_TRUE(function.Evaluate(xp.data(), &cp, nullptr));
    ASSERT_TRUE(function.Evaluate(xm.data(), &cm, nullptr));
    EXPECT_NEAR(gradient[i], (cp - cm) / (2 * step), 1e-6) << i;
  }
  // The record equals ||K||^2 of the shared KKT function at (omega+, nu+).
  KktMultipliers multipliers;
  WcReducedPenalty::Point point;
  ASSERT_TRUE(function.Evaluate(x.data(), &cost, gradient.data()));
  ASSERT_TRUE(function.MultipliersAt(x.data(), &multipliers, &point));
  EXPECT_GE(multipliers.omega.minCoeff(), 0.0);
  KktSystem system;
  std::string error;
  ASSERT_TRUE(
      system.Linearize(&evaluator, lambda, offset, x[0], x.tail(2), &error))
      << error;
  const KktResidual residual = system.Residual(multipliers);
  EXPECT_NEAR(point.KktSq(),
              residual.SquaredNorm(),
              1e-12 * (1.0 + residual.SquaredNorm()));
  EXPECT_NEAR(point.gradient_sq,
              residual.SimplexSq() + residual.StationaritySq(),
              1e-10);
  WcReducedPenalty::Point found;
  EXPECT_TRUE(function.FindPoint(cost, true, &found));
  EXPECT_EQ(found.gradient_sq, point.gradient_sq);
}

struct Case {
  StrategyType strategy;
  std::string problem;
};

// Readable test parameter in gtest output.
void PrintTo(const Case& c, std::ostream* os) {
  *os << StrategyTypeToString(c.strategy) << " on " << c.problem;
}

class FastStrategyRegistry : public ::testing::TestWithParam<Case> {};

TEST_P(FastStrategyRegistry, ReachesTheAnalyticParetoPointWithTightKkt) {
  const Case& c = GetParam();
  const problems::ProblemInfo* info = problems::Find(c.problem);
  ASSERT_NE(info, nullptr);
  ASSERT_TRUE(static_cast<bool>(info->pareto_point));
  for (double l1 : {0.1, 0.3, 0.5, 0.7, 0.9}) {
    std::unique_ptr<problems::ProblemInstance> instance = info->build();
    Solver::Options options;
    options.strategy = c.strategy;
    options.objective_offset = info->objective_offset;
    // kkt_tolerance = 0: the certificate measured at the point applies. Its
    // stationarity test (1e-6 times sum omega lambda sigma, about 5 here)
    // implies ||K||^2 below about 1e-10 on these problems.
    const double raw_bound = 1e-10;
    const int num_objectives = info->num_objectives;
    const std::vector<double> preference =
        testing::RegistryPreference(l1, num_objectives);
    Solver::Summary summary;
    Solve(options, instance->problem, preference, &summary);
    SCOPED_TRACE(c.problem + " " + StrategyTypeToString(c.strategy) +
                 " lambda1 = " + std::to_string(l1) + ": " + summary.message);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE);
    EXPECT_LE(summary.kkt.with_least_squares_multipliers.SquaredNorm(),
              raw_bound);
    // The certificate that stopped the solve holds at the returned point.
    EXPECT_TRUE(summary.IsCertified(options));
    EXPECT_GE(summary.kkt.solver_multipliers.omega.minCoeff(), 0.0);
    const Eigen::VectorXd lambda =
        Eigen::Map<const Eigen::VectorXd>(preference.data(), num_objectives);
    const Eigen::VectorXd offset = Eigen::Map<const Eigen::VectorXd>(
        info->objective_offset.data(), num_objectives);
    const Eigen::VectorXd expected = info->pareto_point(lambda, offset);
    EXPECT_LE((summary.z - expected).norm(), 1e-5) << summary.z.transpose();
    // Written back into the user's blocks.
    Eigen::VectorXd z(instance->problem.NumParameters());
    instance->problem.GetParameters(z.data());
    EXPECT_EQ(z, summary.z);
    // Cheap: far below the faithful strategy's thousands. The Newton
    // strategy's Hessian products on these problems are gradient
    // differences (two gradient evaluations each).
    EXPECT_LE(summary.evaluations.gradient_evaluations,
              c.strategy == StrategyType::WC_NEWTON ? 800 : 300);
    // Summary bookkeeping.
    EXPECT_EQ(static_cast<int>(summary.history.size()), summary.iterations);
    int inner = 0;
    for (const IterationSummary& it : summary.history) {
      inner += it.inner_iterations;
    }
    EXPECT_EQ(inner, summary.inner_iterations);
    EXPECT_GT(summary.penalty_u, 0.0);
    EXPECT_FALSE(summary.certified_by.empty());
  }
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (StrategyType strategy : kFastStrategies) {
    for (const problems::ProblemInfo& info : problems::AllProblems()) {
      if (!info.pareto_point) continue;
      // Known limitation, not a registry bug: on the negative-front
      // problems the pure penalty path reaches max_penalty = 1e10 with
      // ||K||^2 ~ 5e-12 (least squares) on circle_quarter from every start
      // tried, and needs ~340 gradient evaluations on sphere_octant. The
      // default strategy (augmented Lagrangian) is held to the bounds here.
      // Likewise on mtbl_example_iii at lambda_1 = 0.3, measured by the
      // certificate at the point: one objective stands alone there (the
      // relative stationarity block cannot judge), and the penalty path
      // stalls with ||K||^2 = 2e-8, so its Newton model does not certify
      // the point (the old certificate, divided by scales from the start,
      // did).
      if (strategy == StrategyType::WC_PENALTY_LBFGS &&
          (info.name == "circle_quarter" || info.name == "sphere_octant" ||
           info.name == "mtbl_example_iii")) {
        continue;
      }
      cases.push_back({strategy, info.name});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Fast,
                         FastStrategyRegistry,
                         ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = std::string(StrategyTypeToString(
                                                  info.param.strategy)) +
                                              "_" + info.param.problem;
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name;
                         });

TEST(QuasiNewtonStrategy, FullReportShowsOuterHistory) {
  double z[2] = {0.5, 0.5};
  Problem problem;
  testing::BuildGebken(z, &problem);
  Solver::Options options;
  options.strategy = StrategyType::WC_AUGMENTED_LAGRANGIAN;
  options.kkt_tolerance = 1e-10;
  Solver::Summary summary;
  Solve(options, problem, {0.5, 0.5}, &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  const std::string report = summary.FullReport();
  for (const char* needle : {"wc-augmented-lagrangian",
                             "Outer iterations",
                             "Inner (L-BFGS)",
                             "Final penalty u",
                             "inner termination",
                             "Certified by"}) {
    EXPECT_NE(report.find(needle), std::string::npos) << needle << report;
  }
  EXPECT_NEAR(z[0], 1.0, 1e-4);
  EXPECT_NEAR(z[1], 0.0, 1e-4);
}

TEST(QuasiNewtonStrategy, BudgetExhaustionIsNotConvergence) {
  for (StrategyType strategy : kFastStrategies) {
    double z[2] = {0.5, 0.5};
    Problem problem;
    testing::BuildGebken(z, &problem);
    Solver::Options options;
    options.strategy = strategy;
    options.max_iterations = 3;  // total inner iterations
    Solver::Summary summary;
    Solve(options, problem, {0.3, 0.7}, &summary);
    EXPECT_EQ(summary.termination_type, ceres::NO_CONVERGENCE)
        << summary.message;
    EXPECT_TRUE(summary.IsSolutionUsable());
    EXPECT_LE(summary.inner_iterations, 3);
    EXPECT_GT(summary.kkt.with_least_squares_multipliers.SquaredNorm(), 1e-12);
    EXPECT_NE(summary.message.find("||K||^2"), std::string::npos)
        << summary.message;

    options.max_iterations = 10000;
    options.quasi_newton.max_outer_iterations = 1;
    Solve(options, problem, {0.3, 0.7}, &summary);
    EXPECT_EQ(summary.termination_type, ceres::NO_CONVERGENCE)
        << summary.message;
    EXPECT_NE(summary.message.find("outer iterations"), std::string::npos)
        << summary.message;
  }
}

// h = (1 - z1^2 - z2^2)^2: the same feasible circle as gebken_circle, but
// grad h = 0 on it, so LICQ fails everywhere on the feasible set and the
// KKT system has no finite multipliers.
struct SquaredCircle {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    const T e = 1.0 - z[0] * z[0] - z[1] * z[1];
    h[0] = e * e;
    return true;
  }
};

TEST(QuasiNewtonStrategy, RankDeficientConstraintEndsWithAClearMessage) {
  for (StrategyType strategy : kFastStrategies) {
    double z[2] = {0.5, 0.5};
    Problem problem;
    problem.AddObjective(
        new ceres::AutoDiffCostFunction<testing::CircleF, 1, 2>(
            new testing::CircleF(1.0)),
        {z});
    problem.AddObjective(
        new ceres::AutoDiffCostFunction<testing::CircleF, 1, 2>(
            new testing::CircleF(-1.0)),
        {z});
    problem.AddConstraint(
        new ceres::AutoDiffCostFunction<SquaredCircle, 1, 2>(new SquaredCircle),
        {z});
    Solver::Options options;
    options.strategy = strategy;
    options.max_solver_time_in_seconds = 60.0;
    Solver::Summary summary;
    Solve(options, problem, {0.5, 0.5}, &summary);
    SCOPED_TRACE(summary.FullReport());
    // A guard against hanging, generous enough for sanitizer builds.
    EXPECT_LT(summary.total_time_in_seconds, 60.0);
    EXPECT_TRUE(summary.IsSolutionUsable());
    // ||K||^2 <= 1e-12 is reachable here with a huge nu (h = e^2 while
    // grad h ~ e), so the solve may end either way, but the message must
    // say that LICQ fails.
    EXPECT_NE(summary.message.find("LICQ"), std::string::npos)
        << summary.message;
    // Still close to the Pareto point (1, 0): a Fritz John point.
    EXPECT_NEAR(summary.z[0], 1.0, 1e-2);
    EXPECT_NEAR(summary.z[1], 0.0, 1e-2);
  }
}

TEST(QuasiNewtonStrategy, DuplicatedConstraintStillConverges) {
  // Two identical constraints: J_h has rank 1 < q = 2, but multipliers
  // exist (any split of nu), so the least-squares certificate applies.
  for (StrategyType strategy : kFastStrategies) {
    double z[2] = {0.5, 0.5};
    Problem problem;
    testing::BuildGebken(z, &problem);
    problem.AddConstraint(
        new ceres::AutoDiffCostFunction<testing::CircleH, 1, 2>(
            new testing::CircleH),
        {z});
    Solver::Options options;
    options.strategy = strategy;
    Solver::Summary summary;
    Solve(options, problem, {0.5, 0.5}, &summary);
    EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_LE(summary.kkt.with_least_squares_multipliers.SquaredNorm(), 1e-12);
    EXPECT_NEAR(z[0], 1.0, 1e-6);
  }
}

TEST(QuasiNewtonStrategy, UserCallbackCanAbort) {
  struct Abort : IterationCallback {
    CallbackReturnType operator()(const IterationSummary&) override {
      return ceres::SOLVER_ABORT;
    }
  } abort_callback;
  double z[2] = {0.5, 0.5};
  Problem problem;
  testing::BuildGebken(z, &problem);
  Solver::Options options;
  options.strategy = StrategyType::WC_PENALTY_LBFGS;
  options.callbacks.push_back(&abort_callback);
  Solver::Summary summary;
  Solve(options, problem, {0.5, 0.5}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::USER_FAILURE);
  EXPECT_EQ(summary.iterations, 1);
}

TEST(QuasiNewtonStrategy, FailingObjectiveGivesFailureNotAbort) {
  // NaN beyond z1 > 0.6 while the solution wants z1 -> large: the line
  // search backs off; the solve must end, not crash.
  double z[2] = {0.1, 0.2};
  Problem problem;
  problem.AddObjective(new testing::NanAbove(0.6), {z});
  problem.AddObjective(new ceres::AutoDiffCostFunction<testing::CircleF, 1, 2>(
                           new testing::CircleF(1.0)),
                       {z});
  problem.AddConstraint(new ceres::AutoDiffCostFunction<testing::CircleH, 1, 2>(
                            new testing::CircleH),
                        {z});
  Solver::Options options;
  options.strategy = StrategyType::WC_AUGMENTED_LAGRANGIAN;
  options.max_solver_time_in_seconds = 60.0;
  Solver::Summary summary;
  Solve(options, problem, {0.5, 0.5}, &summary);
  EXPECT_FALSE(summary.message.empty());
  // A guard against hanging, generous enough for sanitizer builds.
  EXPECT_LT(summary.total_time_in_seconds, 60.0);
}

TEST(QuasiNewtonStrategy, InvalidOptionsAreRefusedWithTheFieldName) {
  struct Bad {
    const char* field;
    void (*apply)(Solver::Options*);
  };
  const Bad bad[] = {
      {"quasi_newton.max_outer_iterations",
       [](Solver::Options* o) { o->quasi_newton.max_outer_iterations = 0; }},
      {"quasi_newton.initial_penalty",
       [](Solver::Options* o) { o->quasi_newton.initial_penalty = -1.0; }},
      {"quasi_newton.penalty_increase",
       [](Solver::Options* o) { o->quasi_newton.penalty_increase = 1.0; }},
      {"quasi_newton.max_penalty",
       [](Solver::Options* o) { o->quasi_newton.max_penalty = -5.0; }},
      {"quasi_newton.max_penalty",
       [](Solver::Options* o) {
         o->quasi_newton.initial_penalty = 100.0;
         o->quasi_newton.max_penalty = 10.0;
       }},
      {"quasi_newton.feasibility_decrease",
       [](Solver::Options* o) { o->quasi_newton.feasibility_decrease = 1.0; }},
      {"quasi_newton.inner_tolerance_factor",
       [](Solver::Options* o) {
         o->quasi_newton.inner_tolerance_factor = 0.0;
       }},
      {"quasi_newton.least_squares_certification_factor",
       [](Solver::Options* o) {
         o->quasi_newton.least_squares_certification_factor = -1.0;
       }},
      {"quasi_newton.inner.max_num_iterations",
       [](Solver::Options* o) {
         o->quasi_newton.inner.max_num_iterations = 0;
       }},
      {"quasi_newton.inner.max_lbfgs_rank",
       [](Solver::Options* o) { o->quasi_newton.inner.max_lbfgs_rank = 0; }},
      {"quasi_newton.inner.function_tolerance",
       [](Solver::Options* o) {
         o->quasi_newton.inner.function_tolerance = -1.0;
       }},
      {"quasi_newton.inner",
       [](Solver::Options* o) {
         o->quasi_newton.inner.line_search_sufficient_function_decrease = 2.0;
       }},
      {"quasi_newton.inner.callbacks[0]",
       [](Solver::Options* o) {
         o->quasi_newton.inner.callbacks.push_back(nullptr);
       }},
  };
  for (const Bad& b : bad) {
    Solver::Options options;
    options.strategy = StrategyType::WC_AUGMENTED_LAGRANGIAN;
    b.apply(&options);
    std::string error;
    EXPECT_FALSE(options.IsValid(&error)) << b.field;
    EXPECT_NE(error.find(std::string("Solver::Options::") + b.field),
              std::string::npos)
        << error;
    // Solve refuses them too, without touching the user's blocks.
    double z[2] = {0.5, 0.5};
    Problem problem;
    testing::BuildGebken(z, &problem);
    Solver::Summary summary;
    Solve(options, problem, {0.5, 0.5}, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find(b.field), std::string::npos)
        << summary.message;
    EXPECT_EQ(z[0], 0.5);
  }
  Solver::Options defaults;
  std::string error;
  EXPECT_TRUE(defaults.IsValid(&error)) << error;
}

TEST(QuasiNewtonStrategy, StrategyNamesRoundTrip) {
  for (StrategyType strategy : kFastStrategies) {
    StrategyType parsed = StrategyType::WC_PENALTY_PGD;
    EXPECT_TRUE(StringToStrategyType(StrategyTypeToString(strategy), &parsed));
    EXPECT_EQ(parsed, strategy);
  }
  StrategyType parsed;
  EXPECT_TRUE(StringToStrategyType("WC_AUGMENTED_LAGRANGIAN", &parsed));
  EXPECT_EQ(parsed, StrategyType::WC_AUGMENTED_LAGRANGIAN);
  EXPECT_TRUE(StringToStrategyType("automatic", &parsed));
  EXPECT_EQ(parsed, StrategyType::AUTOMATIC);
  EXPECT_EQ(StrategyTypeNames().size(), 6u);
}

TEST(QuasiNewtonStrategy, SweepLogsNothingToStderr) {
  // Ceres' line search and polynomial code log glog WARNINGs near
  // convergence; by default none may reach the user.
  ::testing::internal::CaptureStderr();
  for (StrategyType strategy : kFastStrategies) {
    for (const problems::ProblemInfo& info : problems::AllProblems()) {
      for (int i = 1; i < 20; ++i) {
        const double l1 = i / 20.0;
        std::unique_ptr<problems::ProblemInstance> instance = info.build();
        Solver::Options options;
        options.strategy = strategy;
        options.objective_offset = info.objective_offset;
        options.kkt_tolerance = 1e-14;  // past the line search's precision
        const std::vector<double> preference =
            testing::RegistryPreference(l1, info.num_objectives);
        Solver::Summary summary;
        Solve(options, instance->problem, preference, &summary);
        EXPECT_TRUE(summary.IsSolutionUsable()) << summary.message;
      }
    }
  }
  const std::string captured = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(captured, "") << captured.substr(0, 2000);
}

}  // namespace
}  // namespace ecmo
