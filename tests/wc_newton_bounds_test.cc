// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Bounds and inequality constraints in StrategyType::WC_NEWTON and in
// CeresProblemAdapter (its bounds, its per-row Gauss-Newton weights and its
// bounded weighted least-squares solve).
//
// The closed-form case: z = (x, y), two objectives that pull towards
// a = (-1, 2) and b = (1, 2),
//   f1 = (x + 1)^2 + (y - 2)^2,   f2 = (x - 1)^2 + (y - 2)^2,
// with y <= 1 (an upper bound, or the inequality x^2 + y^2 - 1 <= 0). At
// lambda = (1/2, 1/2), r = 0 the WC point minimizes max(f1, f2): by symmetry
// x = 0, f1 = f2 = 1 + (y - 2)^2, smallest at y = 1. So z* = (0, 1),
// f = (2, 2), rho = 1, omega = (1/2, 1/2) (both active, sum 1), and
// stationarity sum_s omega_s lambda_s grad f_s = 1/4 ((2, -2) + (-2, -2)) =
// (0, -1) is balanced by z_U = (0, 1) for the bound, or by mu = 1/2 on
// grad c = (0, 2) for the disc.
//
// The pipeline case (CeresProblemAdapter, costs 1/2 ||r||^2): an offset x
// and a scale s bounded below, s >= -1, with the residual groups
// r1 = (x + 1, s + 2), r2 = (x - 1, s + 2): z* = (0, -1), f = (1, 1),
// rho = 1/2, omega = (1/2, 1/2), and sum_s omega_s lambda_s grad f_s =
// 1/4 ((1, 1) + (-1, 1)) = (0, 1/2) = z_L.
//
// The bounded objectives' cost functions count and fail evaluations outside
// the box, and the tests require none: the iterates never leave it.

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/SparseCore"
#include "ceres/autodiff_cost_function.h"
#include "ceres/problem.h"
#include "ceres/sphere_manifold.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"
#include "test_vectors.h"

namespace ecmo {
namespace {

using testing::kInf;

// Evaluations outside the box, counted by the guarded cost functions.
int outside_evaluations = 0;

// (x - ax)^2 + (y - ay)^2; counts and fails above y_max (outside the box).
struct SquaredDistance {
  SquaredDistance(double ax, double ay, double y_max)
      : ax(ax), ay(ay), y_max(y_max) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    if (z[1] > T(y_max)) {
      ++outside_evaluations;
      return false;
    }
    f[0] = (z[0] - ax) * (z[0] - ax) + (z[1] - ay) * (z[1] - ay);
    return true;
  }
  double ax, ay, y_max;
};

// x^2 + y^2 - 1 <= 0.
struct Disc {
  template <typename T>
  bool operator()(const T* z, T* c) const {
    c[0] = z[0] * z[0] + z[1] * z[1] - 1.0;
    return true;
  }
};

// x - 5 <= 0: never active here.
struct FarRight {
  template <typename T>
  bool operator()(const T* z, T* c) const {
    c[0] = z[0] - 5.0;
    return true;
  }
};

ceres::CostFunction* Objective(double ax, double ay, double y_max) {
  return new ceres::AutoDiffCostFunction<SquaredDistance, 1, 2>(
      new SquaredDistance(ax, ay, y_max));
}

Solver::Options NewtonOptions() {
  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  options.objective_offset = {0.0, 0.0};  // r = 0, as in the closed form
  return options;
}

TEST(WcNewtonBounds, ProblemWithAnActiveUpperBound) {
  double z[2] = {0.7, -3.0};
  Problem problem;
  // Outside y <= 1 the objectives fail: the iterates must stay inside.
  problem.AddObjective(Objective(-1.0, 2.0, 1.0), {z});
  problem.AddObjective(Objective(1.0, 2.0, 1.0), {z});
  ASSERT_TRUE(problem.SetParameterUpperBound(z, 1, 1.0));
  outside_evaluations = 0;
  Solver::Summary summary;
  Solve(NewtonOptions(), &problem, {0.5, 0.5}, &summary);
  EXPECT_EQ(outside_evaluations, 0);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_NEAR(z[0], 0.0, 1e-6);
  EXPECT_NEAR(z[1], 1.0, 1e-8);
  EXPECT_LE(z[1], 1.0);
  EXPECT_NEAR(summary.final_rho, 1.0, 1e-6);
  const KktMultipliers& m = summary.kkt.least_squares_multipliers;
  ASSERT_EQ(m.bound_upper.size(), 2);
  EXPECT_NEAR(m.bound_upper[0], 0.0, 1e-6);
  EXPECT_NEAR(m.bound_upper[1], 1.0, 1e-5);
  EXPECT_NEAR(m.omega[0], 0.5, 1e-5);
  EXPECT_NEAR(m.omega[1], 0.5, 1e-5);
  // The Newton loop did the work (products: ProblemEvaluator has no
  // Gauss-Newton structure).
  EXPECT_GT(summary.evaluations.hessian_products, 0);
}

TEST(WcNewtonBounds, InactiveBoundChangesNothing) {
  // y <= 3 is not active: the unbounded WC point (0, 2), f = (1, 1).
  double z[2] = {0.7, -3.0};
  Problem problem;
  problem.AddObjective(Objective(-1.0, 2.0, 3.0), {z});
  problem.AddObjective(Objective(1.0, 2.0, 3.0), {z});
  ASSERT_TRUE(problem.SetParameterUpperBound(z, 1, 3.0));
  Solver::Summary summary;
  Solve(NewtonOptions(), &problem, {0.5, 0.5}, &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_NEAR(z[0], 0.0, 1e-6);
  EXPECT_NEAR(z[1], 2.0, 1e-6);
  EXPECT_NEAR(summary.final_rho, 0.5, 1e-6);
  EXPECT_NEAR(summary.kkt.least_squares_multipliers.bound_upper[1], 0.0, 1e-6);
}

TEST(WcNewtonInequalities, ActiveDiscAndInactiveHalfPlane) {
  double z[2] = {0.2, -0.3};
  Problem problem;
  problem.AddObjective(Objective(-1.0, 2.0, kInf), {z});
  problem.AddObjective(Objective(1.0, 2.0, kInf), {z});
  problem.AddInequalityConstraint(
      new ceres::AutoDiffCostFunction<Disc, 1, 2>(new Disc), {z});
  problem.AddInequalityConstraint(
      new ceres::AutoDiffCostFunction<FarRight, 1, 2>(new FarRight), {z});
  for (NewtonHessianType hessian :
       {NewtonHessianType::AUTOMATIC, NewtonHessianType::EXACT_PRODUCTS}) {
    z[0] = 0.2;
    z[1] = -0.3;
    Solver::Options options = NewtonOptions();
    options.newton.hessian = hessian;
    Solver::Summary summary;
    Solve(options, &problem, {0.5, 0.5}, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_NEAR(z[0], 0.0, 1e-6);
    EXPECT_NEAR(z[1], 1.0, 1e-6);
    EXPECT_NEAR(summary.final_rho, 1.0, 1e-6);
    for (const KktMultipliers* m : {&summary.kkt.solver_multipliers,
                                    &summary.kkt.least_squares_multipliers}) {
      ASSERT_EQ(m->nu.size(), 2);
      EXPECT_NEAR(m->nu[0], 0.5, 1e-5);
      EXPECT_NEAR(m->nu[1], 0.0, 1e-8);
      EXPECT_NEAR(m->omega[0], 0.5, 1e-5);
    }
  }
}

// The least-squares multipliers at the bounded point: y at its upper bound,
// x unbounded beside it. (An infinite bound once counted as "active"
// within a relative threshold, inf <= threshold * inf, which removed x
// from the stationarity norm and gave omega = (1/4, 1/4).)
TEST(KktBounds, UnboundedComponentBesideAnActiveBound) {
  for (bool lower : {false, true}) {
    const double sign = lower ? -1.0 : 1.0;
    double z[2] = {0.0, sign};
    Problem problem;
    problem.AddObjective(Objective(-1.0, 2.0 * sign, kInf), {z});
    problem.AddObjective(Objective(1.0, 2.0 * sign, kInf), {z});
    if (lower) {
      ASSERT_TRUE(problem.SetParameterLowerBound(z, 1, -1.0));
    } else {
      ASSERT_TRUE(problem.SetParameterUpperBound(z, 1, 1.0));
    }
    ProblemEvaluator evaluator(&problem);
    KktSystem system;
    std::string error;
    ASSERT_TRUE(system.Linearize(&evaluator,
                                 Eigen::Vector2d(0.5, 0.5),
                                 Eigen::VectorXd(),
                                 1.0,
                                 Eigen::Vector2d(z[0], z[1]),
                                 &error))
        << error;
    const KktMultipliers m = system.LeastSquaresMultipliers();
    EXPECT_NEAR(m.omega[0], 0.5, 1e-12);
    EXPECT_NEAR(m.omega[1], 0.5, 1e-12);
    const Eigen::VectorXd& active = lower ? m.bound_lower : m.bound_upper;
    const Eigen::VectorXd& other = lower ? m.bound_upper : m.bound_lower;
    ASSERT_EQ(active.size(), 2);
    EXPECT_NEAR(active[1], 1.0, 1e-12);
    EXPECT_EQ(active[0], 0.0);
    EXPECT_EQ(other.norm(), 0.0);
    EXPECT_LT(system.Residual(m).SquaredNorm(), 1e-24);
  }
}

// ---- CeresProblemAdapter ----

// 1/2 ||(x - ax, s - as)||^2 as two residuals over the blocks x and s;
// fails below s_min (outside the box).
struct Fit {
  Fit(double ax, double as, double s_min) : ax(ax), as(as), s_min(s_min) {}
  template <typename T>
  bool operator()(const T* x, const T* s, T* r) const {
    if (s[0] < T(s_min)) {
      ++outside_evaluations;
      return false;
    }
    r[0] = x[0] - ax;
    r[1] = s[0] - as;
    return true;
  }
  double ax, as, s_min;
};

ceres::CostFunction* FitCost(double ax, double as, double s_min) {
  return new ceres::AutoDiffCostFunction<Fit, 2, 1, 1>(new Fit(ax, as, s_min));
}

// x + y + s + fixed (blocks of sizes 2, 1, 1).
struct Sum {
  template <typename T>
  bool operator()(const T* x, const T* s, const T* fixed, T* r) const {
    r[0] = x[0] + x[1] + s[0] + fixed[0];
    return true;
  }
};

// q_0 - 1/2.
struct Norm {
  template <typename T>
  bool operator()(const T* q, T* r) const {
    r[0] = q[0] - 0.5;
    return true;
  }
};

// x - target.
struct Residual {
  explicit Residual(double target) : target(target) {}
  template <typename T>
  bool operator()(const T* x, T* r) const {
    r[0] = x[0] - target;
    return true;
  }
  double target;
};

// (x + s, x - s).
struct Pair {
  template <typename T>
  bool operator()(const T* x, const T* s, T* r) const {
    r[0] = x[0] + s[0];
    r[1] = x[0] - s[0];
    return true;
  }
};

// (x, s).
struct Both {
  template <typename T>
  bool operator()(const T* x, const T* s, T* r) const {
    r[0] = x[0];
    r[1] = s[0];
    return true;
  }
};

TEST(CeresProblemAdapterBounds, CarriesTheProblemsBounds) {
  double x[2] = {0.0, 0.0}, s[1] = {1.0}, fixed[1] = {2.0};
  ceres::Problem problem;
  auto id = problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Sum, 1, 2, 1, 1>(new Sum),
      nullptr,
      x,
      s,
      fixed);
  problem.SetParameterLowerBound(x, 1, -0.5);
  problem.SetParameterUpperBound(s, 0, 4.0);
  problem.SetParameterLowerBound(s, 0, -4.0);
  problem.SetParameterBlockConstant(fixed);
  problem.SetParameterUpperBound(fixed, 0, 1.0);  // not in z: irrelevant
  CeresProblemAdapter adapter(&problem, {{"f", {id}}}, {});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  ASSERT_TRUE(adapter.HasBounds());
  ASSERT_EQ(adapter.NumParameters(), 3);
  const int ox = adapter.ParameterBlockOffset(x);
  const int os = adapter.ParameterBlockOffset(s);
  for (int c = 0; c < 2; ++c) {
    const double lo = problem.GetParameterLowerBound(x, c);
    const double hi = problem.GetParameterUpperBound(x, c);
    EXPECT_EQ(adapter.lower_bounds()[ox + c],
              lo <= -std::numeric_limits<double>::max() ? -kInf : lo);
    EXPECT_EQ(adapter.upper_bounds()[ox + c],
              hi >= std::numeric_limits<double>::max() ? kInf : hi);
  }
  EXPECT_EQ(adapter.lower_bounds()[ox + 1], -0.5);
  EXPECT_EQ(adapter.lower_bounds()[os], -4.0);
  EXPECT_EQ(adapter.upper_bounds()[os], 4.0);

  // Without any bound in z: HasBounds() is false.
  ceres::Problem unbounded;
  double y[2] = {0.0, 0.0}, t[1] = {1.0}, g[1] = {2.0};
  auto id2 = unbounded.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Sum, 1, 2, 1, 1>(new Sum),
      nullptr,
      y,
      t,
      g);
  unbounded.SetParameterBlockConstant(g);
  unbounded.SetParameterUpperBound(g, 0, 1.0);
  CeresProblemAdapter free_adapter(&unbounded, {{"f", {id2}}}, {});
  ASSERT_TRUE(free_adapter.IsValid(&error)) << error;
  EXPECT_FALSE(free_adapter.HasBounds());
}

TEST(CeresProblemAdapterBounds, RefusesABoundedBlockWithAManifold) {
  double q[3] = {0.0, 0.0, 1.0};
  ceres::Problem problem;
  auto id = problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Norm, 1, 3>(new Norm), nullptr, q);
  problem.SetManifold(q, new ceres::SphereManifold<3>());
  problem.SetParameterLowerBound(q, 2, 0.0);
  CeresProblemAdapter::Options options;
  options.parameter_block_names[q] = "direction";
  CeresProblemAdapter adapter(&problem, {{"f", {id}}}, {}, options);
  std::string error;
  EXPECT_FALSE(adapter.IsValid(&error));
  EXPECT_NE(error.find("direction"), std::string::npos) << error;
  EXPECT_NE(error.find("manifold"), std::string::npos) << error;
  EXPECT_FALSE(adapter.HasBounds());
}

TEST(CeresProblemAdapterBounds, WeightedLeastSquaresRespectsTheBounds) {
  // a1/2 (x - 3)^2 + a2/2 (x - 5)^2 has its minimizer at
  // (3 a1 + 5 a2) / (a1 + a2) = 4 for a = (1, 1); with x <= 1 it is 1.
  double x[1] = {0.0};
  ceres::Problem problem;
  auto a = problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Residual, 1, 1>(new Residual(3.0)),
      nullptr,
      x);
  auto b = problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Residual, 1, 1>(new Residual(5.0)),
      nullptr,
      x);
  problem.SetParameterUpperBound(x, 0, 1.0);
  CeresProblemAdapter adapter(&problem, {{"a", {a}}, {"b", {b}}}, {});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  ceres::Solver::Options options;
  options.max_num_iterations = 100;
  options.function_tolerance = 1e-16;
  options.parameter_tolerance = 1e-16;
  options.gradient_tolerance = 1e-16;
  ceres::Solver::Summary summary;
  const double weights[2] = {1.0, 1.0};
  double z[1] = {7.0};  // outside: Ceres starts from its projection
  ASSERT_TRUE(adapter.SolveWeightedLeastSquares(
      options, weights, 1.0, nullptr, z, &summary, &error))
      << error;
  EXPECT_NEAR(z[0], 1.0, 1e-10);
  EXPECT_LE(z[0], 1.0);
  EXPECT_EQ(x[0], 0.0);  // the user's array is restored
  // Lower the bound's relevance: weights (1, 0) have the minimizer 3, still
  // above the bound; a bound above 4 would be inactive (checked next).
  problem.SetParameterUpperBound(x, 0, 10.0);
  CeresProblemAdapter inactive(&problem, {{"a", {a}}, {"b", {b}}}, {});
  ASSERT_TRUE(inactive.IsValid(&error)) << error;
  z[0] = 0.0;
  ASSERT_TRUE(inactive.SolveWeightedLeastSquares(
      options, weights, 1.0, nullptr, z, &summary, &error))
      << error;
  EXPECT_NEAR(z[0], 4.0, 1e-8);
}

TEST(CeresProblemAdapterGaussNewton, PerRowConstraintWeights) {
  // Objective 1/2 x^2 + 1/2 s^2 and the constraint block (x + s, x - s):
  // J_h = [1 1; 1 -1]. With a = 0, G = J^T diag(c) J.
  double x[1] = {0.3}, s[1] = {-0.2};
  ceres::Problem problem;
  auto f = problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Both, 2, 1, 1>(new Both), nullptr, x, s);
  auto h = problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Pair, 2, 1, 1>(new Pair), nullptr, x, s);
  CeresProblemAdapter adapter(&problem, {{"f", {f}}}, {{"h", {h}}});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  Eigen::VectorXd z = adapter.GetParameters(), fv(1), hv(2), grad(2, 1);
  ASSERT_TRUE(
      adapter.Evaluate(z.data(), fv.data(), hv.data(), grad.data(), &error));
  const double zero[1] = {0.0};
  Eigen::MatrixXd j(2, 2);
  j << 1.0, 1.0, 1.0, -1.0;
  auto dense = [](const Eigen::SparseMatrix<double>& lower) {
    Eigen::MatrixXd m(lower);
    m.triangularView<Eigen::StrictlyUpper>() =
        m.triangularView<Eigen::StrictlyLower>().transpose();
    return m;
  };
  Eigen::SparseMatrix<double> scalar, rows;
  const double equal[2] = {2.0, 2.0};
  ASSERT_TRUE(adapter.GaussNewtonMatrix(zero, 2.0, &scalar, &error)) << error;
  ASSERT_TRUE(adapter.GaussNewtonMatrix(zero, equal, &rows, &error)) << error;
  EXPECT_LT((dense(scalar) - 2.0 * j.transpose() * j).norm(), 1e-14);
  EXPECT_LT((dense(rows) - dense(scalar)).norm(), 1e-14);
  const double first_only[2] = {3.0, 0.0};
  ASSERT_TRUE(adapter.GaussNewtonMatrix(zero, first_only, &rows, &error))
      << error;
  const Eigen::Vector2d c(3.0, 0.0);
  EXPECT_LT((dense(rows) - j.transpose() * c.asDiagonal() * j).norm(), 1e-14);
  EXPECT_EQ(rows.nonZeros(), scalar.nonZeros());  // same pattern
  const double negative[2] = {1.0, -1.0};
  EXPECT_FALSE(adapter.GaussNewtonMatrix(zero, negative, &rows, &error));
  EXPECT_NE(error.find("row 1"), std::string::npos) << error;
}

TEST(WcNewtonBounds, AdapterPipelineWithABoundedScale) {
  double x[1] = {0.4}, s[1] = {0.5};
  ceres::Problem problem;
  // Below s = -1 the residuals fail: the iterates must stay inside.
  auto r1 = problem.AddResidualBlock(FitCost(-1.0, -2.0, -1.0), nullptr, x, s);
  auto r2 = problem.AddResidualBlock(FitCost(1.0, -2.0, -1.0), nullptr, x, s);
  problem.SetParameterLowerBound(s, 0, -1.0);
  CeresProblemAdapter adapter(&problem, {{"fit1", {r1}}, {"fit2", {r2}}}, {});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  for (bool ceres_phase : {true, false}) {
    x[0] = 0.4;
    s[0] = 0.5;
    Solver::Options options = NewtonOptions();
    options.newton.ceres_phase = ceres_phase;
    outside_evaluations = 0;
    Solver::Summary summary;
    Solve(options, &adapter, {0.5, 0.5}, &summary);
    EXPECT_EQ(outside_evaluations, 0) << "ceres_phase " << ceres_phase;
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
        << "ceres_phase " << ceres_phase << ": " << summary.message;
    EXPECT_NEAR(x[0], 0.0, 1e-6);
    EXPECT_NEAR(s[0], -1.0, 1e-8);
    EXPECT_GE(s[0], -1.0);
    EXPECT_NEAR(summary.final_rho, 0.5, 1e-6);
    const KktMultipliers& m = summary.kkt.least_squares_multipliers;
    const int os = adapter.ParameterBlockOffset(s);
    ASSERT_EQ(m.bound_lower.size(), 2);
    EXPECT_NEAR(m.bound_lower[os], 0.5, 1e-5);
    EXPECT_NEAR(m.bound_lower[1 - os], 0.0, 1e-6);
    EXPECT_GT(summary.evaluations.gauss_newton_matrices, 0);
    if (ceres_phase) {
      EXPECT_GT(summary.evaluations.least_squares_solves, 0);
    }
  }
}

}  // namespace
}  // namespace ecmo
