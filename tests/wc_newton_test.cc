// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// StrategyType::WC_NEWTON on an evaluator with Gauss-Newton structure
// (sparse LDL^T + Woodbury, dense LDL^T) and on Hessian products (CG):
// the answers are checked against a brute-force WC point, the evaluator's
// default Hessian products against the closed-form Hessian, and the best-rho
// evaluation against a brute-force minimization over rho.

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "Eigen/Dense"
#include "ecmo/evaluator.h"
#include "ecmo/solver.h"
#include "ecmo/wc_reduced_penalty.h"
#include "gtest/gtest.h"
#include "sphere_least_squares.h"

namespace ecmo {
namespace {

using testing::MakeCircle;
using testing::SphereLeastSquares;

struct Variant {
  const char* name;
  NewtonHessianType hessian;
  NewtonLinearSolverType solver;
  bool exact_products;
};

class WcNewtonVariants : public ::testing::TestWithParam<Variant> {};

TEST_P(WcNewtonVariants, ReachTheBruteForceWcPointCertified) {
  const Variant& variant = GetParam();
  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  options.newton.hessian = variant.hessian;
  options.newton.linear_solver = variant.solver;
  testing::ExpectCircleWcPoints(
      options,
      variant.exact_products,
      variant.name,
      [&](const Solver::Summary& summary) {
        if (variant.hessian == NewtonHessianType::GAUSS_NEWTON) {
          EXPECT_GT(summary.evaluations.gauss_newton_matrices, 0);
          EXPECT_EQ(summary.evaluations.hessian_products, 0);
        } else {
          EXPECT_EQ(summary.evaluations.gauss_newton_matrices, 0);
          EXPECT_GT(summary.evaluations.hessian_products, 0);
        }
        // Second order: tens of Newton iterations, not hundreds. (The
        // Gauss-Newton matrix drops the constraint's curvature, so those
        // variants converge linearly near lambda_1 = 0.97.)
        EXPECT_LE(summary.inner_iterations,
                  variant.hessian == NewtonHessianType::GAUSS_NEWTON ? 60 : 30);
      });
}

INSTANTIATE_TEST_SUITE_P(
    All,
    WcNewtonVariants,
    ::testing::Values(Variant{"gauss_newton_sparse",
                              NewtonHessianType::GAUSS_NEWTON,
                              NewtonLinearSolverType::SPARSE_CHOLESKY,
                              false},
                      Variant{"gauss_newton_dense",
                              NewtonHessianType::GAUSS_NEWTON,
                              NewtonLinearSolverType::DENSE_CHOLESKY,
                              false},
                      Variant{"exact_products_cg",
                              NewtonHessianType::EXACT_PRODUCTS,
                              NewtonLinearSolverType::CONJUGATE_GRADIENTS,
                              true},
                      Variant{"difference_products_cg",
                              NewtonHessianType::EXACT_PRODUCTS,
                              NewtonLinearSolverType::CONJUGATE_GRADIENTS,
                              false}),
    [](const ::testing::TestParamInfo<Variant>& info) {
      return std::string(info.param.name);
    });

TEST(WcNewton, ThreeObjectivesInHigherDimensionReachALocalWcMinimizer) {
  // S = 3 (the Woodbury correction has rank 2 where all three are active)
  // on the unit sphere in R^30. Checked by sampling: no feasible point
  // nearby has a smaller Chebyshev value max_s lambda_s (f_s - r_s) / w_s.
  // (WC_AUGMENTED_LAGRANGIAN stalls on this instance: its L-BFGS inner
  // solves leave the stationarity at 0.27.)
  const int k = 30;
  const testing::RandomSphereData data = testing::MakeRandomSphereData(k);
  const std::vector<Eigen::MatrixXd>& a = data.a;
  const std::vector<Eigen::VectorXd>& b = data.b;
  SphereLeastSquares evaluator(a, b, false);
  const std::vector<double> preference = {0.2, 0.3, 0.5};
  Eigen::VectorXd z = Eigen::VectorXd::Zero(k);
  z[0] = 1.0;
  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  Solver::Summary summary;
  Solve(options, &evaluator, preference, &z, &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_GT(summary.evaluations.gauss_newton_matrices, 0);
  EXPECT_NEAR(z.norm(), 1.0, 1e-8);

  const Scalarization& sc = summary.scalarization;
  auto chebyshev = [&](const Eigen::VectorXd& y) {
    Eigen::VectorXd f(3), h(1);
    evaluator.Evaluate(y.data(), f.data(), h.data(), nullptr, nullptr);
    double value = -std::numeric_limits<double>::infinity();
    for (int s = 0; s < 3; ++s) {
      value = std::max(value,
                       preference[s] * (f[s] - sc.reference_point[s]) /
                           sc.objective_scale[s]);
    }
    return value;
  };
  const double at_solution = chebyshev(z);
  int active = 0;
  for (int s = 0; s < 3; ++s) {
    Eigen::VectorXd f(3), h(1);
    evaluator.Evaluate(z.data(), f.data(), h.data(), nullptr, nullptr);
    active += std::abs(preference[s] * (f[s] - sc.reference_point[s]) /
                           sc.objective_scale[s] -
                       at_solution) <= 1e-7 * std::abs(at_solution)
                  ? 1
                  : 0;
  }
  EXPECT_GE(active, 2);  // a genuine Chebyshev point, not a single minimizer
  for (int trial = 0; trial < 2000; ++trial) {
    const double step = trial % 2 == 0 ? 1e-3 : 3e-2;
    Eigen::VectorXd y = z + step * Eigen::VectorXd::Random(k);
    y.normalize();
    EXPECT_GE(chebyshev(y), at_solution - 1e-9 * std::abs(at_solution));
  }
}

TEST(WcNewton, DefaultHessianProductsMatchTheClosedForm) {
  // The base class's gradient differences against the exact products.
  SphereLeastSquares exact = MakeCircle(true);
  SphereLeastSquares differences = MakeCircle(false);
  Eigen::VectorXd z(2), f(2), h(1), grad(4), x(2), a(2), b(1);
  z << 0.6, -0.8;
  x << 0.3, -1.7;
  a << 0.7, 1.9;
  b << -0.45;
  std::string error;
  ASSERT_TRUE(
      exact.Evaluate(z.data(), f.data(), h.data(), grad.data(), &error));
  ASSERT_TRUE(
      differences.Evaluate(z.data(), f.data(), h.data(), grad.data(), &error));
  Eigen::VectorXd hx_exact(2), hx_differences(2);
  ASSERT_TRUE(exact.LagrangianHessianMultiply(
      a.data(), b.data(), x.data(), hx_exact.data(), &error));
  ASSERT_TRUE(differences.LagrangianHessianMultiply(
      a.data(), b.data(), x.data(), hx_differences.data(), &error));
  EXPECT_LE((hx_exact - hx_differences).norm(), 1e-6 * hx_exact.norm());
  // Two gradient evaluations per difference product, and the linearization
  // is restored: J_h^T v is that of z again.
  EXPECT_EQ(differences.counts().gradient_evaluations, 3);
  Eigen::VectorXd v(1), jt(2);
  v << 1.0;
  differences.JacobianTransposeMultiply(v.data(), jt.data());
  EXPECT_LE((jt - 2.0 * z).norm(), 1e-15);
}

TEST(WcNewton, BestRhoIsTheBruteForceMinimizerOverRho) {
  SphereLeastSquares evaluator = MakeCircle(false);
  Eigen::VectorXd lambda(2), offset = Eigen::VectorXd::Zero(2);
  lambda << 0.4, 0.6;
  WcReducedPenalty function(&evaluator, lambda, offset);
  Eigen::VectorXd omega(2), nu(1);
  omega << 0.3, 0.2;
  nu << 0.1;
  for (double v : {0.5, 3.0, 40.0}) {
    function.SetPenalties(2.0, v);
    function.SetMultiplierShifts(omega, nu);
    Eigen::VectorXd x(3);
    x << 123.0, 0.3, -0.2;
    double cost = 0.0;
    ASSERT_TRUE(function.EvaluateAtBestRho(x.data(), &cost, nullptr));
    const double rho_star = x[0];
    double best = std::numeric_limits<double>::infinity();
    for (double rho = rho_star - 5.0; rho <= rho_star + 5.0; rho += 1e-4) {
      Eigen::VectorXd y = x;
      y[0] = rho;
      double c = 0.0;
      ASSERT_TRUE(function.Evaluate(y.data(), &c, nullptr));
      best = std::min(best, c);
    }
    EXPECT_LE(cost, best + 1e-12) << "v = " << v;
    // Stationary in rho there.
    Eigen::VectorXd gradient(3);
    ASSERT_TRUE(function.Evaluate(x.data(), &cost, gradient.data()));
    EXPECT_LE(std::abs(gradient[0]), 1e-12) << "v = " << v;
  }
}

TEST(WcNewton, GaussNewtonWithoutTheStructureIsRefusedWithAClearMessage) {
  // An evaluator without Gauss-Newton structure (the default
  // DoGaussNewtonMatrix) and hessian = GAUSS_NEWTON.
  class NoStructure final : public Evaluator {
   public:
    int NumParameters() const override { return 1; }
    int NumObjectives() const override { return 2; }
    int NumConstraints() const override { return 0; }

   protected:
    bool DoEvaluate(const double* z,
                    double* f,
                    double* /*h*/,
                    double* grad_f,
                    std::string* /*error*/) override {
      f[0] = (z[0] - 1.0) * (z[0] - 1.0);
      f[1] = (z[0] + 1.0) * (z[0] + 1.0);
      if (grad_f != nullptr) {
        grad_f[0] = 2.0 * (z[0] - 1.0);
        grad_f[1] = 2.0 * (z[0] + 1.0);
      }
      return true;
    }
    void DoJacobianTransposeMultiply(const double*, double*) const override {}
    void DoJacobianMultiply(const double*, double*) const override {}
  } evaluator;
  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  options.newton.hessian = NewtonHessianType::GAUSS_NEWTON;
  options.reference_point = {0.0, 0.0};
  Eigen::VectorXd z(1);
  z << 0.3;
  Solver::Summary summary;
  Solve(options, &evaluator, {0.5, 0.5}, &z, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("sums of squared residuals"),
            std::string::npos)
      << summary.message;
  EXPECT_NE(summary.message.find("exact-products"), std::string::npos)
      << summary.message;

  // A factorizing linear solver needs the structure too.
  options.newton.hessian = NewtonHessianType::AUTOMATIC;
  options.newton.linear_solver = NewtonLinearSolverType::DENSE_CHOLESKY;
  z << 0.3;
  Solve(options, &evaluator, {0.5, 0.5}, &z, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("dense-cholesky factorizes"),
            std::string::npos)
      << summary.message;
  options.newton.linear_solver = NewtonLinearSolverType::AUTOMATIC;

  // Automatic picks the products and converges to z = 0 (equal weights).
  options.newton.hessian = NewtonHessianType::AUTOMATIC;
  z << 0.3;
  Solve(options, &evaluator, {0.5, 0.5}, &z, &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_NEAR(z[0], 0.0, 1e-7);
}

TEST(WcNewton, InvalidNewtonOptionsNameTheField) {
  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  std::string error;
  options.newton.max_cg_iterations = 0;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("newton.max_cg_iterations"), std::string::npos) << error;
  options = Solver::Options();
  options.newton.linear_solver = NewtonLinearSolverType::SPARSE_CHOLESKY;
  options.newton.hessian = NewtonHessianType::EXACT_PRODUCTS;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("conjugate-gradients"), std::string::npos) << error;
  options = Solver::Options();
  options.newton.min_relative_decrease = 1.0;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("newton.min_relative_decrease"), std::string::npos)
      << error;
}

TEST(WcNewton, NamesRoundTrip) {
  for (NewtonHessianType type : {NewtonHessianType::AUTOMATIC,
                                 NewtonHessianType::GAUSS_NEWTON,
                                 NewtonHessianType::EXACT_PRODUCTS}) {
    NewtonHessianType parsed = NewtonHessianType::AUTOMATIC;
    EXPECT_TRUE(
        StringToNewtonHessianType(NewtonHessianTypeToString(type), &parsed));
    EXPECT_EQ(parsed, type);
  }
  for (NewtonLinearSolverType type :
       {NewtonLinearSolverType::AUTOMATIC,
        NewtonLinearSolverType::SPARSE_CHOLESKY,
        NewtonLinearSolverType::DENSE_CHOLESKY,
        NewtonLinearSolverType::CONJUGATE_GRADIENTS}) {
    NewtonLinearSolverType parsed = NewtonLinearSolverType::AUTOMATIC;
    EXPECT_TRUE(StringToNewtonLinearSolverType(
        NewtonLinearSolverTypeToString(type), &parsed));
    EXPECT_EQ(parsed, type);
  }
  NewtonHessianType unused;
  EXPECT_FALSE(StringToNewtonHessianType("newton", &unused));
}

}  // namespace
}  // namespace ecmo
