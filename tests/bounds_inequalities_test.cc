// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Bounds and inequality constraints in the problem model, the evaluator, the
// KKT function and the strategies that take them.
//
// The closed-form case used throughout: one parameter x, two objectives
//   f1 = (x - 3)^2,  f2 = (x - 4)^2,
// with x <= 1 posed either as an upper bound or as the inequality
// c(x) = x - 1 <= 0. At lambda = (1/2, 1/2) the WC solution is x = 1
// (both objectives decrease towards x = 3..4), where lambda f = (2, 4.5): only
// f2 is active, so rho = 4.5, omega = (0, 1), and stationarity
// omega_2 lambda_2 f2'(1) + z_U = 1/2 * 2 * (1 - 4) + z_U = 0 gives z_U = 3
// (or mu = 3 for the inequality). With x >= 1.5 as a lower bound instead
// the solution is x = 3.5 (both active: (x-3)^2 = (x-4)^2), interior.
//
// Bad inputs covered here: bounds on an unknown block, an index out of
// range, a NaN bound, a lower bound above the upper one, bounds on a block
// with a manifold, inequality constraints for the faithful strategy.

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/autodiff_cost_function.h"
#include "ceres/sphere_manifold.h"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"
#include "ecmo/problem.h"
#include "ecmo/result_writer.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"
#include "test_problems.h"
#include "test_vectors.h"

namespace ecmo {
namespace {

using testing::ShiftedSquare;
using testing::XMinusOne;

using testing::kInf;

ceres::CostFunction* Objective(double a) {
  return new ceres::AutoDiffCostFunction<ShiftedSquare, 1, 1>(
      new ShiftedSquare(a));
}

// f1, f2 on the block x; with_inequality adds c(x) = x - 1 <= 0.
void Build(Problem* problem, double* x, bool with_inequality) {
  problem->AddObjective(Objective(3.0), {x});
  problem->AddObjective(Objective(4.0), {x});
  if (with_inequality) {
    problem->AddInequalityConstraint(
        new ceres::AutoDiffCostFunction<XMinusOne, 1, 1>(new XMinusOne), {x});
  }
}

TEST(ProblemBounds, SetGetAndPackOverVariableBlocks) {
  double a[2] = {0.0, 0.0}, b[1] = {0.0}, c[1] = {5.0};
  Problem problem;
  problem.AddParameterBlock(a, 2);
  problem.AddParameterBlock(b, 1);
  problem.AddParameterBlock(c, 1);
  EXPECT_FALSE(problem.HasBounds());
  EXPECT_EQ(problem.GetParameterLowerBound(a, 1), -kInf);
  ASSERT_TRUE(problem.SetParameterLowerBound(a, 1, -2.0));
  ASSERT_TRUE(problem.SetParameterUpperBound(c, 0, 7.0));
  // Ceres' "no bound" is +-max(): it means unbounded here too.
  ASSERT_TRUE(
      problem.SetParameterUpperBound(a, 0, std::numeric_limits<double>::max()));
  EXPECT_EQ(problem.GetParameterUpperBound(a, 0), kInf);
  EXPECT_EQ(problem.GetParameterLowerBound(a, 1), -2.0);
  EXPECT_TRUE(problem.HasBounds());
  // A constant block is not in z: its bound is not either.
  problem.SetParameterBlockConstant(c);
  EXPECT_TRUE(problem.HasBounds());  // a[1] still is
  Eigen::VectorXd lower(3), upper(3);
  problem.GetBounds(lower.data(), upper.data());
  EXPECT_EQ(lower, Eigen::Vector3d(-kInf, -2.0, -kInf));
  EXPECT_EQ(upper, Eigen::Vector3d(kInf, kInf, kInf));
}

TEST(ProblemBounds, RefusesBadCallsWithMessages) {
  double a[2] = {0.0, 0.0}, unknown[1] = {0.0};
  {
    Problem problem;
    problem.AddParameterBlock(a, 2);
    EXPECT_FALSE(problem.SetParameterLowerBound(unknown, 0, 1.0));
    std::string error;
    EXPECT_FALSE(problem.IsValid(&error));
    EXPECT_NE(error.find("parameter block not found"), std::string::npos)
        << error;
  }
  {
    Problem problem;
    problem.AddParameterBlock(a, 2);
    EXPECT_FALSE(problem.SetParameterUpperBound(a, 2, 1.0));
    std::string error;
    EXPECT_FALSE(problem.IsValid(&error));
    EXPECT_NE(error.find("index 2 is out of range"), std::string::npos)
        << error;
  }
  {
    Problem problem;
    problem.AddParameterBlock(a, 2);
    EXPECT_FALSE(problem.SetParameterUpperBound(
        a, 0, std::numeric_limits<double>::quiet_NaN()));
    std::string error;
    EXPECT_FALSE(problem.IsValid(&error));
    EXPECT_NE(error.find("NaN"), std::string::npos) << error;
  }
  {
    Problem problem;
    problem.AddObjective(Objective(1.0), {a});
    problem.SetParameterLowerBound(a, 0, 2.0);
    problem.SetParameterUpperBound(a, 0, 1.0);
    std::string error;
    EXPECT_FALSE(problem.IsValid(&error));
    EXPECT_NE(error.find("above its upper bound"), std::string::npos) << error;
  }
}

struct Norm2 {
  template <typename T>
  bool operator()(const T* x, T* f) const {
    f[0] = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    return true;
  }
};

TEST(ProblemBounds, RefusesBoundsOnAManifoldBlock) {
  double x[3] = {1.0, 0.0, 0.0};
  Problem problem;
  problem.AddObjective(new ceres::AutoDiffCostFunction<Norm2, 1, 3>(new Norm2),
                       {x});
  problem.SetManifold(x, new ceres::SphereManifold<3>);
  problem.SetParameterLowerBound(x, 0, 0.0);
  std::string error;
  EXPECT_FALSE(problem.IsValid(&error));
  EXPECT_NE(error.find("both a manifold and bounds"), std::string::npos)
      << error;
}

struct Eq {
  template <typename T>
  bool operator()(const T* x, const T* y, T* h) const {
    h[0] = x[0] + 2.0 * y[0] - 1.0;
    return true;
  }
};
struct Ineq {
  template <typename T>
  bool operator()(const T* x, const T* y, T* c) const {
    c[0] = x[0] * x[0] + y[0] * y[0] - 4.0;
    c[1] = x[0] * y[0];
    return true;
  }
};
struct LowerByInequality {
  template <typename T>
  bool operator()(const T* x, T* c) const {
    c[0] = 1.5 - x[0];
    return true;
  }
};

TEST(ProblemEvaluatorInequalities, StacksEqualitiesThenInequalities) {
  double x[1] = {0.5}, y[1] = {-1.5};
  Problem problem;
  problem.AddObjective(Objective(0.0), {x});
  // Inequality added first: it still comes after the equality in g.
  problem.AddInequalityConstraint(
      new ceres::AutoDiffCostFunction<Ineq, 2, 1, 1>(new Ineq), {x, y});
  problem.AddConstraint(new ceres::AutoDiffCostFunction<Eq, 1, 1, 1>(new Eq),
                        {x, y});
  EXPECT_EQ(problem.NumConstraints(), 1);
  EXPECT_EQ(problem.NumInequalityConstraints(), 2);
  ProblemEvaluator evaluator(&problem);
  ASSERT_EQ(evaluator.NumConstraints(), 3);
  ASSERT_EQ(evaluator.NumInequalityConstraints(), 2);
  EXPECT_EQ(evaluator.NumEqualityConstraints(), 1);
  const Eigen::Vector2d z(0.5, -1.5);
  Eigen::VectorXd f(1), g(3), grad(2);
  ASSERT_TRUE(
      evaluator.Evaluate(z.data(), f.data(), g.data(), grad.data(), nullptr));
  EXPECT_DOUBLE_EQ(g[0], 0.5 - 3.0 - 1.0);
  EXPECT_DOUBLE_EQ(g[1], 0.25 + 2.25 - 4.0);
  EXPECT_DOUBLE_EQ(g[2], -0.75);
  // J^T v against the hand-derived Jacobian [[1, 2], [2x, 2y], [y, x]].
  const Eigen::Vector3d v(1.0, -2.0, 3.0);
  Eigen::Vector2d jt;
  evaluator.JacobianTransposeMultiply(v.data(), jt.data());
  EXPECT_NEAR(jt[0], 1.0 - 2.0 * 1.0 + 3.0 * (-1.5), 1e-14);
  EXPECT_NEAR(jt[1], 2.0 - 2.0 * (-3.0) + 3.0 * 0.5, 1e-14);
}

TEST(KktBounds, ClosedFormMultiplierOfAnActiveUpperBound) {
  double x[1] = {1.0};
  Problem problem;
  Build(&problem, x, /*with_inequality=*/false);
  problem.SetParameterUpperBound(x, 0, 1.0);
  ProblemEvaluator evaluator(&problem);
  ASSERT_TRUE(evaluator.HasBounds());
  KktSystem system;
  const Eigen::Vector2d lambda(0.5, 0.5);
  ASSERT_TRUE(system.Linearize(&evaluator,
                               lambda,
                               Eigen::VectorXd(),
                               4.5,
                               Eigen::VectorXd::Constant(1, 1.0),
                               nullptr));
  const KktMultipliers m = system.LeastSquaresMultipliers();
  EXPECT_NEAR(m.omega[0], 0.0, 1e-12);
  EXPECT_NEAR(m.omega[1], 1.0, 1e-12);
  ASSERT_EQ(m.bound_upper.size(), 1);
  EXPECT_NEAR(m.bound_upper[0], 3.0, 1e-12);
  EXPECT_NEAR(m.bound_lower[0], 0.0, 1e-12);
  EXPECT_LT(system.Residual(m).SquaredNorm(), 1e-24);
  // The hand-derived multipliers score zero as well; without the bound
  // multiplier the stationarity entry is -3.
  KktMultipliers hand;
  hand.omega = Eigen::Vector2d(0.0, 1.0);
  hand.nu = Eigen::VectorXd();
  hand.bound_lower = Eigen::VectorXd::Zero(1);
  hand.bound_upper = Eigen::VectorXd::Constant(1, 3.0);
  EXPECT_LT(system.Residual(hand).SquaredNorm(), 1e-24);
  hand.bound_upper.setZero();
  EXPECT_NEAR(system.Residual(hand).StationaritySq(), 9.0, 1e-12);
  // Empty bound multipliers are completed by BoundMultiplier: 3 here.
  hand.bound_lower.resize(0);
  hand.bound_upper.resize(0);
  EXPECT_LT(system.Residual(hand).SquaredNorm(), 1e-24);
}

TEST(KktBounds, AwayFromTheBoundThePointIsNotStationary) {
  double x[1] = {0.9};
  Problem problem;
  Build(&problem, x, /*with_inequality=*/false);
  problem.SetParameterUpperBound(x, 0, 1.0);
  ProblemEvaluator evaluator(&problem);
  KktSystem system;
  // rho = lambda_2 f2(0.9) = 0.5 * 3.1^2.
  ASSERT_TRUE(system.Linearize(&evaluator,
                               Eigen::Vector2d(0.5, 0.5),
                               Eigen::VectorXd(),
                               0.5 * 3.1 * 3.1,
                               Eigen::VectorXd::Constant(1, 0.9),
                               nullptr));
  const KktMultipliers m = system.LeastSquaresMultipliers();
  // The bound is 0.1 away: crediting it costs at least 0.1^2, and the
  // stationarity entry is 3.1 without it.
  EXPECT_GT(system.Residual(m).SquaredNorm(), 0.009);
}

TEST(KktInequalities, ClosedFormMultiplierOfAnActiveInequality) {
  double x[1] = {1.0};
  Problem problem;
  Build(&problem, x, /*with_inequality=*/true);
  ProblemEvaluator evaluator(&problem);
  KktSystem system;
  ASSERT_TRUE(system.Linearize(&evaluator,
                               Eigen::Vector2d(0.5, 0.5),
                               Eigen::VectorXd(),
                               4.5,
                               Eigen::VectorXd::Constant(1, 1.0),
                               nullptr));
  const KktMultipliers m = system.LeastSquaresMultipliers();
  ASSERT_EQ(m.nu.size(), 1);
  EXPECT_NEAR(m.nu[0], 3.0, 1e-10);
  EXPECT_NEAR(m.omega[1], 1.0, 1e-10);
  EXPECT_LT(system.Residual(m).SquaredNorm(), 1e-20);
  // A negative inequality multiplier shows in the complementarity block.
  KktMultipliers wrong = m;
  wrong.nu[0] = -3.0;
  EXPECT_NEAR(system.Residual(wrong).ConstraintComplementaritySq(), 9.0, 1e-12);
}

TEST(KktInequalities, InactiveInequalityGetsNoMultiplier) {
  // x >= 1.5 is not binding at x = 3.5 (c = 1.5 - x <= 0 with slack 2).
  double x[1] = {3.5};
  Problem problem;
  Build(&problem, x, /*with_inequality=*/false);
  problem.AddInequalityConstraint(
      new ceres::AutoDiffCostFunction<LowerByInequality, 1, 1>(
          new LowerByInequality),
      {x});
  ProblemEvaluator evaluator(&problem);
  KktSystem system;
  ASSERT_TRUE(system.Linearize(&evaluator,
                               Eigen::Vector2d(0.5, 0.5),
                               Eigen::VectorXd(),
                               0.125,
                               Eigen::VectorXd::Constant(1, 3.5),
                               nullptr));
  const KktMultipliers m = system.LeastSquaresMultipliers();
  EXPECT_NEAR(m.nu[0], 0.0, 1e-12);
  EXPECT_NEAR(m.omega[0], 0.5, 1e-10);
  EXPECT_NEAR(m.omega[1], 0.5, 1e-10);
  EXPECT_LT(system.Residual(m).SquaredNorm(), 1e-20);
}

Solver::Summary SolveWith(StrategyType strategy,
                          bool bound,
                          bool inequality,
                          double* x) {
  Problem problem;
  Build(&problem, x, inequality);
  if (bound) problem.SetParameterUpperBound(x, 0, 1.0);
  Solver::Options options;
  options.strategy = strategy;
  options.objective_offset = {0.0, 0.0};  // r = 0, as in the closed form
  if (strategy == StrategyType::WC_PENALTY_PGD) {
    options.max_iterations = 200000;
  }
  Solver::Summary summary;
  Solve(options, &problem, {0.5, 0.5}, &summary);
  return summary;
}

TEST(StrategiesWithBounds, FaithfulProjectedGradientFindsTheBoundedPoint) {
  double x[1] = {3.0};  // outside the bound: projected to 1 first
  const Solver::Summary summary =
      SolveWith(StrategyType::WC_PENALTY_PGD, true, false, x);
  ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
  EXPECT_NEAR(x[0], 1.0, 1e-6);
  EXPECT_LE(x[0], 1.0);
  // The penalty's rho sits 1/v below the WC value (omega_2 = v (lambda_2
  // f_2 - rho) = 1), v = c0 T^(1/4) ~ 21 here: the paper's bias.
  EXPECT_NEAR(summary.final_rho, 4.5 - 1.0 / summary.penalty_v, 1e-3);
  ASSERT_EQ(summary.kkt.least_squares_multipliers.bound_upper.size(), 1);
  EXPECT_NEAR(summary.kkt.least_squares_multipliers.bound_upper[0], 3.0, 1e-3);
}

TEST(StrategiesWithInequalities, AugmentedLagrangianFindsTheActivePoint) {
  for (StrategyType strategy : {StrategyType::WC_AUGMENTED_LAGRANGIAN,
                                StrategyType::WC_PENALTY_LBFGS}) {
    double x[1] = {0.0};
    const Solver::Summary summary = SolveWith(strategy, false, true, x);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
        << StrategyTypeToString(strategy) << ": " << summary.message;
    EXPECT_NEAR(x[0], 1.0, 1e-6) << StrategyTypeToString(strategy);
    EXPECT_NEAR(summary.final_rho, 4.5, 1e-5);
    ASSERT_EQ(summary.kkt.solver_multipliers.nu.size(), 1);
    EXPECT_NEAR(summary.kkt.solver_multipliers.nu[0], 3.0, 1e-4);
    EXPECT_NEAR(summary.kkt.least_squares_multipliers.nu[0], 3.0, 1e-4);
  }
}

TEST(StrategiesWithBounds, ReportAndJsonCarryTheBoundsAndTheirMultipliers) {
  double x[1] = {3.0};
  Problem problem;
  Build(&problem, x, /*with_inequality=*/true);
  problem.SetParameterUpperBound(x, 0, 2.0);  // not active: c caps at 1
  Solver::Options options;
  options.strategy = StrategyType::WC_PENALTY_PGD;
  options.max_iterations = 10;
  Solver::Summary summary;
  // PGD refuses the inequality; the report still names the problem's sizes.
  Solve(options, &problem, {0.5, 0.5}, &summary);
  EXPECT_EQ(summary.num_inequality_constraints, 1);
  EXPECT_EQ(summary.num_bounded_parameters, 1);
  const std::string report = summary.FullReport();
  EXPECT_NE(report.find("of which inequalities (p)"), std::string::npos)
      << report;
  EXPECT_NE(report.find("Bounded parameters"), std::string::npos) << report;

  double y[1] = {3.0};
  Problem bounded;
  Build(&bounded, y, /*with_inequality=*/false);
  bounded.SetParameterUpperBound(y, 0, 1.0);
  options.max_iterations = 20000;
  options.objective_offset = {0.0, 0.0};
  Solve(options, &bounded, {0.5, 0.5}, &summary);
  const nlohmann::json j = SummaryToJson(summary, "two_parabolas");
  ASSERT_TRUE(j["kkt"].contains("bound_upper_least_squares")) << j.dump();
  EXPECT_NEAR(
      j["kkt"]["bound_upper_least_squares"][0].get<double>(), 3.0, 1e-2);
  EXPECT_TRUE(j["kkt"]["blocks"].contains("constraint_complementarity_sq"));
}

TEST(StrategiesWithInequalities, FaithfulStrategyRefusesThem) {
  double x[1] = {0.0};
  const Solver::Summary summary =
      SolveWith(StrategyType::WC_PENALTY_PGD, false, true, x);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("inequality constraint"), std::string::npos)
      << summary.message;
  EXPECT_NE(summary.message.find("wc-augmented-lagrangian"), std::string::npos)
      << summary.message;
}

}  // namespace
}  // namespace ecmo
