// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The KKT system against hand-derived KKT points, the paper's two
// counterexamples (closed-form least-squares residuals), and the
// least-squares multipliers against random multipliers.

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"
#include "ecmo/problem.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

KktSystem Linearized(Evaluator* evaluator, const Eigen::VectorXd& lambda,
                     const Eigen::VectorXd& offset, double rho,
                     const Eigen::VectorXd& z) {
  KktSystem system;
  std::string error;
  EXPECT_TRUE(system.Linearize(evaluator, lambda, offset, rho, z, &error))
      << error;
  return system;
}

TEST(Kkt, ZeroAtSymmetricGebkenPoint) {
  // lambda = (1/2, 1/2): z = (1, 0), f = (2, 2), rho = 1. grad f1 = (-2, -2),
  // grad f2 = (-2, 2), grad h = (-2, 0): omega = (1/2, 1/2), nu = -1/2.
  double z[2] = {1.0, 0.0};
  Problem problem;
  testing::BuildGebken(z, &problem);
  ProblemEvaluator evaluator(&problem);
  KktSystem system = Linearized(&evaluator, Eigen::Vector2d(0.5, 0.5),
                                Eigen::VectorXd(), 1.0, Eigen::Vector2d(1, 0));
  KktMultipliers m;
  m.omega = Eigen::Vector2d(0.5, 0.5);
  m.nu = Eigen::VectorXd::Constant(1, -0.5);
  EXPECT_LT(system.Residual(m).SquaredNorm(), 1e-24);

  const KktMultipliers ls = system.LeastSquaresMultipliers();
  EXPECT_NEAR(ls.omega[0], 0.5, 1e-12);
  EXPECT_NEAR(ls.omega[1], 0.5, 1e-12);
  EXPECT_NEAR(ls.nu[0], -0.5, 1e-12);
  EXPECT_LT(system.Residual(ls).SquaredNorm(), 1e-24);

  // Wrong multipliers: every block is what the definition says.
  m.omega = Eigen::Vector2d(1.0, 1.0);
  m.nu[0] = 0.0;
  const KktResidual r = system.Residual(m);
  EXPECT_NEAR(r.simplex, 1.0, 1e-15);
  EXPECT_NEAR(r.stationarity[0], -2.0, 1e-14);  // (-1) + (-1)
  EXPECT_NEAR(r.stationarity[1], 0.0, 1e-14);
  EXPECT_NEAR(r.complementarity[0], 0.0, 1e-14);  // min(1, 1 - 1)
  EXPECT_NEAR(r.SquaredNorm(), 5.0, 1e-13);
}

TEST(Kkt, ZeroAtAsymmetricGebkenPoint) {
  // z = (0.96, 0.28) on the arc: f = (1.6, 2.72). Both inequalities are
  // active when lambda1 f1 = lambda2 f2: lambda = (17/27, 10/27),
  // rho = 27.2/27. grad f1 = (-2.08, -1.44), grad f2 = (-2.08, 2.56),
  // grad h = (-1.92, -0.56). Solving the stationarity equations by hand:
  // omega = (38/55, 17/55), nu = -884/1485.
  double z[2] = {0.96, 0.28};
  Problem problem;
  testing::BuildGebken(z, &problem);
  ProblemEvaluator evaluator(&problem);
  const Eigen::Vector2d lambda(17.0 / 27.0, 10.0 / 27.0);
  KktSystem system = Linearized(&evaluator, lambda, Eigen::VectorXd(),
                                27.2 / 27.0, Eigen::Vector2d(0.96, 0.28));
  KktMultipliers m;
  m.omega = Eigen::Vector2d(38.0 / 55.0, 17.0 / 55.0);
  m.nu = Eigen::VectorXd::Constant(1, -884.0 / 1485.0);
  EXPECT_LT(system.Residual(m).SquaredNorm(), 1e-24);
  const KktMultipliers ls = system.LeastSquaresMultipliers();
  EXPECT_NEAR(ls.omega[0], 38.0 / 55.0, 1e-10);
  EXPECT_NEAR(ls.omega[1], 17.0 / 55.0, 1e-10);
  EXPECT_NEAR(ls.nu[0], -884.0 / 1485.0, 1e-10);
}

// Counterexample 1: F = (-z^2/2, -z), h = 0 on [-1, 1], (|z| - 1)^2 outside.
// z = 1 is Pareto stationary but grad h(1) = 0, so no multipliers exist.
struct NegHalfSquare {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = -0.5 * z[0] * z[0];
    return true;
  }
};
struct NegIdentity {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = -z[0];
    return true;
  }
};
struct FlatInside {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    const T a = abs(z[0]) - 1.0;
    h[0] = a > 0.0 ? a * a : a * 0.0;
    return true;
  }
};

TEST(Kkt, CounterexampleOneHasNoMultipliers) {
  // With offset 10 and lambda = (1/2, 1/2): f = (9.5, 9), rho = 4.75,
  // rho - lambda f = (0, 0.25). Stationarity is -(omega1 + omega2)/2 and
  // min over omega >= 0 of (a - 1)^2 + a^2/4 (+ omega2^2 if omega2 > 0) is
  // 1/5 at a = omega1 = 4/5.
  double z[1] = {1.0};
  Problem problem;
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<NegHalfSquare, 1, 1>(new NegHalfSquare),
      {z});
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<NegIdentity, 1, 1>(new NegIdentity), {z});
  problem.AddConstraint(
      new ceres::AutoDiffCostFunction<FlatInside, 1, 1>(new FlatInside), {z});
  ProblemEvaluator evaluator(&problem);
  KktSystem system =
      Linearized(&evaluator, Eigen::Vector2d(0.5, 0.5),
                 Eigen::Vector2d(10, 10), 4.75, Eigen::VectorXd::Ones(1));
  const KktMultipliers ls = system.LeastSquaresMultipliers();
  EXPECT_NEAR(system.Residual(ls).SquaredNorm(), 0.2, 1e-12);
  EXPECT_NEAR(ls.omega[0], 0.8, 1e-10);
  EXPECT_NEAR(ls.omega[1], 0.0, 1e-10);
}

// Counterexample 2: F = (z1 + z2, z1 - z2), h = (z1^2 + z3^2 - 1, z3 - 1).
struct LinearF {
  explicit LinearF(double sign) : sign(sign) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = z[0] + sign * z[1];
    return true;
  }
  double sign;
};
struct CounterexampleTwoH {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = z[0] * z[0] + z[2] * z[2] - 1.0;
    h[1] = z[2] - 1.0;
    return true;
  }
};

TEST(Kkt, CounterexampleTwoHasNoMultipliers) {
  // At z = (0, 0, 1) with offset 5 and lambda = (1/2, 1/2): rho = 2.5 and
  // both inequalities are active. J_h rows (0, 0, 2) and (0, 0, 1) cannot
  // cancel the first two stationarity components (a/2, b/2) with
  // a = omega1 + omega2, b = omega1 - omega2: the minimum of
  // (a - 1)^2 + a^2/4 + b^2/4 is 1/5 at a = 4/5, b = 0.
  double z[3] = {0.0, 0.0, 1.0};
  Problem problem;
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<LinearF, 1, 3>(new LinearF(1.0)), {z});
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<LinearF, 1, 3>(new LinearF(-1.0)), {z});
  problem.AddConstraint(
      new ceres::AutoDiffCostFunction<CounterexampleTwoH, 2, 3>(
          new CounterexampleTwoH),
      {z});
  ProblemEvaluator evaluator(&problem);
  KktSystem system = Linearized(&evaluator, Eigen::Vector2d(0.5, 0.5),
                                Eigen::Vector2d(5, 5), 2.5,
                                Eigen::Vector3d(0, 0, 1));
  const KktMultipliers ls = system.LeastSquaresMultipliers();
  EXPECT_NEAR(system.Residual(ls).SquaredNorm(), 0.2, 1e-12);
  EXPECT_NEAR(ls.omega[0], 0.4, 1e-10);
  EXPECT_NEAR(ls.omega[1], 0.4, 1e-10);
}

TEST(Kkt, LeastSquaresMultipliersBeatRandomOnes) {
  double z[2] = {0.0, 0.0};
  Problem problem;
  testing::BuildGebken(z, &problem);
  ProblemEvaluator evaluator(&problem);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> uniform(-1.5, 1.5);
  std::uniform_real_distribution<double> positive(0.0, 1.5);
  for (int trial = 0; trial < 40; ++trial) {
    const Eigen::Vector2d point(uniform(rng), uniform(rng));
    const double l1 = positive(rng) / 1.5 * 0.98 + 0.01;
    const Eigen::Vector2d lambda(l1, 1.0 - l1);
    const double rho = 3.0 * positive(rng);
    KktSystem system =
        Linearized(&evaluator, lambda, Eigen::VectorXd(), rho, point);
    const KktMultipliers ls = system.LeastSquaresMultipliers();
    ASSERT_GE(ls.omega.minCoeff(), 0.0);
    const double best = system.Residual(ls).SquaredNorm();
    for (int j = 0; j < 200; ++j) {
      KktMultipliers m;
      m.omega = Eigen::Vector2d(positive(rng), positive(rng));
      m.nu = Eigen::VectorXd::Constant(1, 2.0 * uniform(rng));
      ASSERT_LE(best, system.Residual(m).SquaredNorm() + 1e-12)
          << "trial " << trial;
      // Small perturbations of the optimum never improve it.
      KktMultipliers p = ls;
      p.omega = (p.omega + 1e-3 * Eigen::Vector2d(uniform(rng), uniform(rng)))
                    .cwiseMax(0.0);
      p.nu[0] += 1e-3 * uniform(rng);
      ASSERT_LE(best, system.Residual(p).SquaredNorm() + 1e-12);
    }
  }
}

// Many constraints (q above the dense limit) take the matrix-free conjugate
// gradient path; it must agree with the dense path on the same geometry.
struct ShiftedSquare {
  explicit ShiftedSquare(double c) : c(c) {}
  template <typename T>
  bool operator()(const T* x, T* f) const {
    f[0] = (x[0] - c) * (x[0] - c) + 1.0;
    return true;
  }
  double c;
};
struct Follow {
  template <typename T>
  bool operator()(const T* x, const T* y, T* h) const {
    h[0] = y[0] - x[0];
    return true;
  }
};

// f1 = (x - 1)^2 + 1 and f2 = (x - 2)^2 + 1 of the one parameter *x.
void AddShiftedSquares(double* x, Problem* problem) {
  for (const double c : {1.0, 2.0}) {
    problem->AddObjective(new ceres::AutoDiffCostFunction<ShiftedSquare, 1, 1>(
                              new ShiftedSquare(c)),
                          {x});
  }
}

double LeastSquaresValue(int n) {
  std::vector<double> x = {1.2};
  std::vector<double> y(n, 1.2);
  Problem problem;
  AddShiftedSquares(x.data(), &problem);
  for (int i = 0; i < n; ++i) {
    problem.AddConstraint(
        new ceres::AutoDiffCostFunction<Follow, 1, 1, 1>(new Follow),
        {x.data(), &y[i]});
  }
  ProblemEvaluator evaluator(&problem);
  Eigen::VectorXd z(n + 1);
  problem.GetParameters(z.data());
  KktSystem system = Linearized(&evaluator, Eigen::Vector2d(0.5, 0.5),
                                Eigen::VectorXd(), 0.82, z);
  return system.Residual(system.LeastSquaresMultipliers()).SquaredNorm();
}

TEST(Kkt, MatrixFreePathAgreesWithBruteForce) {
  // f = (1.04, 1.64), rho = 0.82, rho - lambda f = (0.3, 0). J_h has -1 in
  // the x column and +1 in column y_i of row i, so the best nu spreads the
  // x component g = 0.2 w1 - 0.8 w2 of the stationarity over the n + 1
  // coordinates: min_nu ||.||^2 = g^2 / (n + 1). The value is therefore
  // min (w1 + w2 - 1)^2 + g^2 / (n + 1) + min(w1, 0.3)^2 over w >= 0,
  // checked by brute force for n = 3 (dense path) and n = 2100 (conjugate
  // gradients through Jacobian products).
  for (int n : {3, 2100}) {
    double grid_best = 1e9;
    for (int i = 0; i <= 1500; ++i) {
      for (int j = 0; j <= 1500; ++j) {
        const double w1 = i * 1e-3, w2 = j * 1e-3;
        const double m = std::min(w1, 0.3);
        const double g = 0.2 * w1 - 0.8 * w2;
        grid_best = std::min(grid_best, (w1 + w2 - 1) * (w1 + w2 - 1) +
                                            g * g / (n + 1) + m * m);
      }
    }
    const double value = LeastSquaresValue(n);
    EXPECT_LE(value, grid_best + 1e-12) << "n = " << n;
    EXPECT_GE(value, grid_best - 1e-5) << "n = " << n;
  }
}

// Two objectives of one parameter and no constraints: the gradients are
// parallel, so the least-squares problem's quadratic in omega is singular
// and its minimizers form a line (the two-objective closed form's edge
// path). Its value is min (w1 + w2 - 1)^2 + (g1 w1 + g2 w2)^2 +
// sum_s min(w_s, c_s)^2 over w >= 0 with g_s = lambda_s f_s'(x) and c_s =
// rho - lambda_s f_s(x); checked by brute force over points whose slacks
// c_s are positive, zero and negative.
TEST(Kkt, TwoObjectiveLeastSquaresWithParallelGradientsMatchBruteForce) {
  std::vector<double> x = {0.0};
  Problem problem;
  AddShiftedSquares(x.data(), &problem);
  ProblemEvaluator evaluator(&problem);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> position(-0.5, 3.5);
  std::uniform_real_distribution<double> weight(0.05, 0.95);
  std::uniform_real_distribution<double> slack(-0.5, 0.8);
  for (int trial = 0; trial < 12; ++trial) {
    const double at = trial == 0 ? 1.5 : position(rng);  // 1.5: g1 = -g2
    const double l1 = weight(rng);
    const Eigen::Vector2d lambda(l1, 1.0 - l1);
    const Eigen::Vector2d f((at - 1) * (at - 1) + 1, (at - 2) * (at - 2) + 1);
    const Eigen::Vector2d g(lambda[0] * 2 * (at - 1), lambda[1] * 2 * (at - 2));
    const double rho = lambda.cwiseProduct(f).maxCoeff() + slack(rng);
    const Eigen::Vector2d c = Eigen::Vector2d::Constant(rho) -
                              lambda.cwiseProduct(f);
    double grid_best = 1e300;
    for (int i = 0; i <= 1500; ++i) {
      for (int j = 0; j <= 1500; ++j) {
        const double w1 = i * 1e-3, w2 = j * 1e-3;
        const double m1 = std::min(w1, c[0]), m2 = std::min(w2, c[1]);
        const double st = g[0] * w1 + g[1] * w2;
        grid_best = std::min(grid_best, (w1 + w2 - 1) * (w1 + w2 - 1) +
                                            st * st + m1 * m1 + m2 * m2);
      }
    }
    KktSystem system = Linearized(&evaluator, lambda, Eigen::VectorXd(), rho,
                                  Eigen::VectorXd::Constant(1, at));
    const KktMultipliers ls = system.LeastSquaresMultipliers();
    ASSERT_EQ(ls.omega.size(), 2);
    EXPECT_GE(ls.omega.minCoeff(), 0.0) << "trial " << trial;
    const double value = system.Residual(ls).SquaredNorm();
    EXPECT_LE(value, grid_best + 1e-12) << "trial " << trial;
    EXPECT_GE(value, grid_best - 1e-5) << "trial " << trial;
  }
}


// A solver that certified its point hands its KktSystem to the report
// instead of linearizing again: the report must be the one a fresh
// linearization gives, whatever the system computed before (the scaled
// least-squares multipliers are cached per floor).
TEST(Kkt, ReportFromTheSolversSystemEqualsAFreshOne) {
  double z[2] = {0.0, 0.0};
  Problem problem;
  testing::BuildGebken(z, &problem);
  ProblemEvaluator evaluator(&problem);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uniform(-1.5, 1.5);
  std::uniform_real_distribution<double> positive(0.1, 2.0);
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Vector2d point(uniform(rng), uniform(rng));
    const double l1 = 0.05 + 0.9 * positive(rng) / 2.0;
    const Eigen::Vector2d lambda(l1, 1.0 - l1);
    const Eigen::Vector2d offset(0.1, -0.2);
    const double rho = 2.0 * positive(rng);
    CertificateRequest request;
    request.stationarity_floor = 0.1 * positive(rng);
    const double other_floor = positive(rng);
    KktMultipliers solver;
    solver.omega = Eigen::Vector2d(positive(rng), positive(rng)) / 2.0;
    solver.nu = Eigen::VectorXd::Constant(1, uniform(rng));

    KktReport fresh;
    std::string error;
    ASSERT_TRUE(ComputeKktReport(&evaluator, lambda, offset, rho, point,
                                 solver, &fresh, &error, &request))
        << error;

    KktSystem system = Linearized(&evaluator, lambda, offset, rho, point);
    // What a solver may have asked for first: another scaling, then this
    // one (both cached in turn).
    const KktMultipliers other =
        system.CertificateLeastSquaresMultipliers(other_floor);
    system.CertificateLeastSquaresMultipliers(request.stationarity_floor);
    KktReport reused;
    ASSERT_TRUE(ComputeKktReport(system, solver, &reused, &error, &request))
        << error;

    EXPECT_EQ(reused.with_solver_multipliers.SquaredNorm(),
              fresh.with_solver_multipliers.SquaredNorm());
    EXPECT_EQ(reused.least_squares_multipliers.omega,
              fresh.least_squares_multipliers.omega);
    EXPECT_EQ(reused.least_squares_multipliers.nu,
              fresh.least_squares_multipliers.nu);
    EXPECT_EQ(reused.scaled_least_squares_multipliers.omega,
              fresh.scaled_least_squares_multipliers.omega);
    EXPECT_EQ(reused.scaled_least_squares_multipliers.nu,
              fresh.scaled_least_squares_multipliers.nu);
    const KktCertificate& a = reused.certificate_with_least_squares_multipliers;
    const KktCertificate& b = fresh.certificate_with_least_squares_multipliers;
    EXPECT_EQ(a.stationarity, b.stationarity);
    EXPECT_EQ(a.complementarity, b.complementarity);
    EXPECT_EQ(reused.certificate_with_solver_multipliers.stationarity,
              fresh.certificate_with_solver_multipliers.stationarity);
    // The other scaling, asked for again, is recomputed, not the cache of
    // the last one.
    KktSystem again = Linearized(&evaluator, lambda, offset, rho, point);
    EXPECT_EQ(system.CertificateLeastSquaresMultipliers(other_floor).omega,
              again.CertificateLeastSquaresMultipliers(other_floor).omega);
    EXPECT_EQ(other.omega,
              again.CertificateLeastSquaresMultipliers(other_floor).omega);
    // Both reports computed the same model decision (the Newton model of
    // this small problem where the relative test misses).
    EXPECT_EQ(std::isnan(a.model_decrease), std::isnan(b.model_decrease));
  }
}

// Objectives beyond the small fixed-size path of the least-squares
// multipliers (S = 9 > 8 takes the heap path): they still beat random
// multipliers and their perturbations, and an objective with slack gets
// omega = 0.
TEST(Kkt, LeastSquaresMultipliersWithManyObjectivesBeatRandomOnes) {
  const int S = 9;
  std::vector<double> x = {0.3};
  std::vector<double> y = {0.7};
  Problem problem;
  for (int s = 0; s < S; ++s) {
    problem.AddObjective(new ceres::AutoDiffCostFunction<ShiftedSquare, 1, 1>(
                             new ShiftedSquare(0.25 * s)),
                         {x.data()});
  }
  problem.AddConstraint(
      new ceres::AutoDiffCostFunction<Follow, 1, 1, 1>(new Follow),
      {x.data(), y.data()});
  ProblemEvaluator evaluator(&problem);
  Eigen::VectorXd z(2);
  problem.GetParameters(z.data());
  const Eigen::VectorXd lambda = Eigen::VectorXd::Constant(S, 1.0 / S);
  Eigen::VectorXd f(S), h(1);
  std::string error;
  ASSERT_TRUE(evaluator.Evaluate(z.data(), f.data(), h.data(), nullptr,
                                 &error));
  // rho at the largest weighted objective: that one is active, the others
  // have slack.
  const double rho = (lambda.cwiseProduct(f)).maxCoeff();
  KktSystem system = Linearized(&evaluator, lambda, Eigen::VectorXd(), rho, z);
  const KktMultipliers ls = system.LeastSquaresMultipliers();
  ASSERT_EQ(ls.omega.size(), S);
  ASSERT_GE(ls.omega.minCoeff(), 0.0);
  const double best = system.Residual(ls).SquaredNorm();
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> positive(0.0, 0.3);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int j = 0; j < 300; ++j) {
    KktMultipliers m;
    m.omega.resize(S);
    for (int s = 0; s < S; ++s) m.omega[s] = positive(rng);
    m.nu = Eigen::VectorXd::Constant(1, uniform(rng));
    ASSERT_LE(best, system.Residual(m).SquaredNorm() + 1e-12);
    KktMultipliers p = ls;
    for (int s = 0; s < S; ++s) {
      p.omega[s] = std::max(0.0, p.omega[s] + 1e-3 * uniform(rng));
    }
    p.nu[0] += 1e-3 * uniform(rng);
    ASSERT_LE(best, system.Residual(p).SquaredNorm() + 1e-12);
  }
}

}  // namespace
}  // namespace ecmo
