// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// mtbl_logistic and the lower-level numerics: hand-written products against
// finite differences, exact Lagrangian Hessian products of MtblEvaluator,
// SolveLowerLevel, the null-space estimate (l2 = 0 vs l2 > 0), and the
// reduced-space evaluator against finite differences and the full space.

#include "ecmo/problems/mtbl_logistic.h"

#include <cmath>
#include <random>
#include <string>

#include "ecmo/kkt.h"
#include "ecmo/lower_level_solver.h"
#include "ecmo/mtbl.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problems/registry.h"
#include "ecmo/solver.h"
#include "ecmo/sweep.h"
#include "gtest/gtest.h"
#include "test_vectors.h"

namespace ecmo {
namespace {

using testing::Random;
using testing::RelativeError;

using problems::BuildMtblLogistic;
using problems::MtblLogisticInstance;
using problems::MtblLogisticOptions;

std::unique_ptr<MtblLogisticInstance> Build(int ny, double l2, int seed = 7) {
  MtblLogisticOptions options;
  options.num_lower_parameters = ny;
  options.l2 = l2;
  options.seed = seed;
  options.train_samples_per_source = 60;
  options.validation_samples = 60;
  std::string error;
  auto instance = BuildMtblLogistic(options, &error);
  EXPECT_NE(instance, nullptr) << error;
  return instance;
}


// A random point with non-trivial weights and probabilities.
struct Point {
  Eigen::VectorXd x, y;
};
Point RandomPoint(const LowerLevel& lower, std::mt19937_64* rng) {
  Point p;
  p.x = 0.7 * Random(lower.NumUpperParameters(), rng);
  p.y = 0.5 * Random(lower.NumLowerParameters(), rng);
  return p;
}

TEST(MtblLogisticTest, BuildRoundsSizeAndRejectsBadOptions) {
  auto instance = Build(65, 1e-3);
  ASSERT_NE(instance, nullptr);
  EXPECT_EQ(instance->lower_level->NumLowerParameters(), 60);
  EXPECT_EQ(instance->evaluator->NumObjectives(), 3);
  EXPECT_EQ(instance->start.size(), 63);
  MtblLogisticOptions bad;
  bad.l2 = -1.0;
  std::string error;
  EXPECT_EQ(BuildMtblLogistic(bad, &error), nullptr);
  EXPECT_NE(error.find("l2"), std::string::npos) << error;
}

// grad_x g (FORUM's oracle) against central differences of Value in x.
TEST(MtblLogisticTest, GradXMatchesFiniteDifferencesOfValue) {
  auto instance = Build(40, 1e-3);
  const problems::MtblLogisticLowerLevel& lower = *instance->lower_level;
  std::mt19937_64 rng(11);
  const Point p = RandomPoint(lower, &rng);
  const int nx = lower.NumUpperParameters();
  Eigen::VectorXd grad(nx), fd(nx);
  ASSERT_TRUE(lower.GradX(p.x.data(), p.y.data(), grad.data()));
  const double t = 1e-6;
  for (int i = 0; i < nx; ++i) {
    Eigen::VectorXd xp = p.x, xm = p.x;
    xp[i] += t;
    xm[i] -= t;
    double gp = 0.0, gm = 0.0;
    ASSERT_TRUE(lower.Value(xp.data(), p.y.data(), &gp));
    ASSERT_TRUE(lower.Value(xm.data(), p.y.data(), &gm));
    fd[i] = (gp - gm) / (2.0 * t);
  }
  EXPECT_LT(RelativeError(grad, fd), 1e-7)
      << grad.transpose() << " vs " << fd.transpose();
  // Shifting every logit leaves the softmax weights unchanged.
  EXPECT_NEAR(grad.sum(), 0.0, 1e-14);
}

TEST(MtblLogisticTest, GradientAndProductsMatchFiniteDifferences) {
  auto instance = Build(40, 1e-3);
  const problems::MtblLogisticLowerLevel& lower = *instance->lower_level;
  std::mt19937_64 rng(3);
  const Point p = RandomPoint(lower, &rng);
  const int nx = 3, ny = 40;
  // GradY against central differences of Value.
  Eigen::VectorXd h(ny);
  ASSERT_TRUE(lower.GradY(p.x.data(), p.y.data(), h.data()));
  Eigen::VectorXd fd(ny);
  const double t = 1e-5;
  for (int i = 0; i < ny; ++i) {
    Eigen::VectorXd yp = p.y, ym = p.y;
    yp[i] += t;
    ym[i] -= t;
    double gp, gm;
    ASSERT_TRUE(lower.Value(p.x.data(), yp.data(), &gp));
    ASSERT_TRUE(lower.Value(p.x.data(), ym.data(), &gm));
    fd[i] = (gp - gm) / (2 * t);
  }
  EXPECT_LT(RelativeError(h, fd), 1e-8);

  // Transpose and forward products against central differences of GradY.
  const Eigen::VectorXd v = Random(ny, &rng);
  const Eigen::VectorXd wx = Random(nx, &rng), wy = Random(ny, &rng);
  Eigen::VectorXd out_x(nx), out_y(ny), forward(ny);
  ASSERT_TRUE(lower.GradYJacobianTransposeProduct(
      p.x.data(), p.y.data(), v.data(), out_x.data(), out_y.data()));
  ASSERT_TRUE(lower.GradYJacobianProduct(
      p.x.data(), p.y.data(), wx.data(), wy.data(), forward.data()));
  // Dense Jacobian of h by central differences: columns x then y.
  Eigen::MatrixXd jac(ny, nx + ny);
  for (int c = 0; c < nx + ny; ++c) {
    Eigen::VectorXd xp = p.x, xm = p.x, yp = p.y, ym = p.y;
    if (c < nx) {
      xp[c] += t;
      xm[c] -= t;
    } else {
      yp[c - nx] += t;
      ym[c - nx] -= t;
    }
    Eigen::VectorXd hp(ny), hm(ny);
    ASSERT_TRUE(lower.GradY(xp.data(), yp.data(), hp.data()));
    ASSERT_TRUE(lower.GradY(xm.data(), ym.data(), hm.data()));
    jac.col(c) = (hp - hm) / (2 * t);
  }
  EXPECT_LT(RelativeError(out_x, jac.leftCols(nx).transpose() * v), 1e-7);
  EXPECT_LT(RelativeError(out_y, jac.rightCols(ny).transpose() * v), 1e-7);
  EXPECT_LT(
      RelativeError(forward, jac.leftCols(nx) * wx + jac.rightCols(ny) * wy),
      1e-7);
}

TEST(MtblLogisticTest, ThirdOrderProductMatchesDifferencesOfHessianProducts) {
  auto instance = Build(40, 1e-3);
  const problems::MtblLogisticLowerLevel& lower = *instance->lower_level;
  std::mt19937_64 rng(5);
  const Point p = RandomPoint(lower, &rng);
  const int nx = 3, ny = 40;
  const Eigen::VectorXd v = Random(ny, &rng);
  const Eigen::VectorXd dx = Random(nx, &rng), dy = Random(ny, &rng);
  Eigen::VectorXd exact_x(nx), exact_y(ny);
  ASSERT_TRUE(lower.GradYJacobianTransposeProductDerivative(p.x.data(),
                                                            p.y.data(),
                                                            v.data(),
                                                            dx.data(),
                                                            dy.data(),
                                                            exact_x.data(),
                                                            exact_y.data()));
  // The base class's central difference of exact products (independent
  // code path) is the reference.
  Eigen::VectorXd ref_x(nx), ref_y(ny);
  ASSERT_TRUE(
      lower.LowerLevel::GradYJacobianTransposeProductDerivative(p.x.data(),
                                                                p.y.data(),
                                                                v.data(),
                                                                dx.data(),
                                                                dy.data(),
                                                                ref_x.data(),
                                                                ref_y.data()));
  EXPECT_LT(RelativeError(exact_x, ref_x), 1e-7);
  EXPECT_LT(RelativeError(exact_y, ref_y), 1e-7);
  // Only x moves, only y moves: each block separately.
  const Eigen::VectorXd zx = Eigen::VectorXd::Zero(nx);
  const Eigen::VectorXd zy = Eigen::VectorXd::Zero(ny);
  for (int part = 0; part < 2; ++part) {
    const Eigen::VectorXd& ddx = part == 0 ? dx : zx;
    const Eigen::VectorXd& ddy = part == 0 ? zy : dy;
    ASSERT_TRUE(lower.GradYJacobianTransposeProductDerivative(p.x.data(),
                                                              p.y.data(),
                                                              v.data(),
                                                              ddx.data(),
                                                              ddy.data(),
                                                              exact_x.data(),
                                                              exact_y.data()));
    ASSERT_TRUE(lower.LowerLevel::GradYJacobianTransposeProductDerivative(
        p.x.data(),
        p.y.data(),
        v.data(),
        ddx.data(),
        ddy.data(),
        ref_x.data(),
        ref_y.data()));
    EXPECT_LT(RelativeError(exact_x, ref_x), 1e-7) << "part " << part;
    EXPECT_LT(RelativeError(exact_y, ref_y), 1e-7) << "part " << part;
  }
}

TEST(MtblLogisticTest, LagrangianHessianProductMatchesGradientDifferences) {
  auto instance = Build(40, 1e-3);
  MtblEvaluator& evaluator = *instance->evaluator;
  EXPECT_TRUE(evaluator.HasExactLagrangianHessian());
  std::mt19937_64 rng(9);
  const int k = evaluator.NumParameters(), S = 3, q = 40;
  const Point p = RandomPoint(*instance->lower_level, &rng);
  Eigen::VectorXd z(k);
  z << p.x, p.y;
  const Eigen::VectorXd a = Random(S, &rng).cwiseAbs();
  const Eigen::VectorXd b = Random(q, &rng);
  const Eigen::VectorXd dir = Random(k, &rng);
  // grad L(z) = grad F a + J_h^T b.
  auto gradient_of_lagrangian = [&](const Eigen::VectorXd& point) {
    Eigen::VectorXd f(S), h(q), jt(k);
    Eigen::MatrixXd grad_f(k, S);
    std::string error;
    EXPECT_TRUE(evaluator.Evaluate(
        point.data(), f.data(), h.data(), grad_f.data(), &error))
        << error;
    evaluator.JacobianTransposeMultiply(b.data(), jt.data());
    return Eigen::VectorXd(grad_f * a + jt);
  };
  const double t = 1e-5;
  const Eigen::VectorXd reference = (gradient_of_lagrangian(z + t * dir) -
                                     gradient_of_lagrangian(z - t * dir)) /
                                    (2 * t);
  gradient_of_lagrangian(z);  // linearize at z
  Eigen::VectorXd product(k);
  std::string error;
  ASSERT_TRUE(evaluator.LagrangianHessianMultiply(
      a.data(), b.data(), dir.data(), product.data(), &error))
      << error;
  EXPECT_LT(RelativeError(product, reference), 1e-7);
}

TEST(MtblLogisticTest, SolveLowerLevelReachesTheGradientTolerance) {
  auto instance = Build(100, 1e-3);
  const LowerLevel& lower = *instance->lower_level;
  const Eigen::VectorXd x = Eigen::VectorXd::Constant(3, 0.3);
  Eigen::VectorXd y = Eigen::VectorXd::Zero(100);
  LowerLevelSolver::Options options;
  options.gradient_tolerance = 1e-11;
  LowerLevelSolver::Summary summary;
  ASSERT_TRUE(SolveLowerLevel(options, lower, x.data(), &y, &summary))
      << summary.message;
  EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE);
  Eigen::VectorXd h(100);
  ASSERT_TRUE(lower.GradY(x.data(), y.data(), h.data()));
  EXPECT_LE(h.norm(), 1e-11);
  // Newton: a handful of iterations, not hundreds.
  EXPECT_LE(summary.iterations, 30);
  // The minimum: no random nearby point is lower.
  double g_star, g_other;
  ASSERT_TRUE(lower.Value(x.data(), y.data(), &g_star));
  std::mt19937_64 rng(1);
  for (int i = 0; i < 5; ++i) {
    const Eigen::VectorXd other = y + 1e-3 * Random(100, &rng);
    ASSERT_TRUE(lower.Value(x.data(), other.data(), &g_other));
    EXPECT_GT(g_other, g_star);
  }
  // Bad input: the wrong size is refused with a message.
  Eigen::VectorXd wrong(3);
  EXPECT_FALSE(SolveLowerLevel(options, lower, x.data(), &wrong, &summary));
  EXPECT_NE(summary.message.find("ny = 100"), std::string::npos);
}

// grad^2_yy g(x, y) by ny products: the independent reference for the
// preconditioner's factorization.
Eigen::MatrixXd HessianByProducts(const LowerLevel& lower,
                                  const Eigen::VectorXd& x,
                                  const Eigen::VectorXd& y) {
  const int ny = lower.NumLowerParameters();
  Eigen::MatrixXd hessian(ny, ny);
  Eigen::VectorXd unit = Eigen::VectorXd::Zero(ny), out_x(x.size());
  for (int j = 0; j < ny; ++j) {
    unit[j] = 1.0;
    EXPECT_TRUE(lower.GradYJacobianTransposeProduct(
        x.data(), y.data(), unit.data(), out_x.data(), hessian.col(j).data()));
    unit[j] = 0.0;
  }
  return hessian;
}

TEST(MtblLogisticTest, DensePreconditionerInvertsTheLowerLevelHessian) {
  auto instance = Build(100, 1e-3);
  const LowerLevel& lower = *instance->lower_level;
  std::mt19937_64 rng(3);
  const Point p = RandomPoint(lower, &rng);
  LowerLevelSolver::Options options;
  options.preconditioner_type = LowerLevelPreconditionerType::DENSE_HESSIAN;
  LowerLevelPreconditioner preconditioner(options, 100);
  EXPECT_TRUE(preconditioner.enabled());
  EXPECT_FALSE(preconditioner.ready());
  // Without a factorization it is the identity.
  const Eigen::VectorXd v = Random(100, &rng);
  Eigen::VectorXd z;
  preconditioner.Apply(v, &z);
  EXPECT_EQ(z, v);
  std::string error;
  ASSERT_TRUE(preconditioner.Refresh(lower, p.x.data(), p.y.data(), &error))
      << error;
  EXPECT_TRUE(preconditioner.ready());
  EXPECT_EQ(preconditioner.refreshes(), 1);
  EXPECT_EQ(preconditioner.products(), 100);
  // M^{-1} (H v) = v for the Hessian formed independently.
  const Eigen::MatrixXd hessian = HessianByProducts(lower, p.x, p.y);
  preconditioner.Apply(hessian * v, &z);
  EXPECT_LT(RelativeError(z, v), 1e-8);
  // AUTOMATIC resolves against ny; IDENTITY never factorizes.
  options.preconditioner_type = LowerLevelPreconditionerType::AUTOMATIC;
  options.max_dense_preconditioner_size = 99;
  EXPECT_FALSE(LowerLevelPreconditioner(options, 100).enabled());
  EXPECT_TRUE(LowerLevelPreconditioner(options, 99).enabled());
  options.preconditioner_type = LowerLevelPreconditionerType::IDENTITY;
  LowerLevelPreconditioner identity(options, 100);
  EXPECT_FALSE(identity.Refresh(lower, p.x.data(), p.y.data(), &error));
  EXPECT_FALSE(identity.ready());
}

TEST(MtblLogisticTest, DensePreconditionerShiftsASingularHessian) {
  // l2 = 0 with more classifier weights than samples: grad^2_yy g is
  // singular. The factorization shifts it and still inverts it on the
  // range to the shift's accuracy; the preconditioner stays usable.
  auto instance = Build(400, 0.0);
  const LowerLevel& lower = *instance->lower_level;
  std::mt19937_64 rng(5);
  const Point p = RandomPoint(lower, &rng);
  LowerLevelSolver::Options options;
  options.preconditioner_type = LowerLevelPreconditionerType::DENSE_HESSIAN;
  LowerLevelPreconditioner preconditioner(options, 400);
  std::string error;
  ASSERT_TRUE(preconditioner.Refresh(lower, p.x.data(), p.y.data(), &error))
      << error;
  EXPECT_TRUE(preconditioner.ready());
  const Eigen::MatrixXd hessian = HessianByProducts(lower, p.x, p.y);
  const Eigen::VectorXd v = hessian * Random(400, &rng);  // in the range
  Eigen::VectorXd z;
  preconditioner.Apply(v, &z);
  EXPECT_TRUE(z.allFinite());
  EXPECT_LT(RelativeError(hessian * z, v), 1e-3);
}

// A lower level whose Hessian-vector products fail after `good` calls.
class FailingProducts final : public LowerLevel {
 public:
  FailingProducts(const LowerLevel* inner, int good)
      : inner_(inner), good_(good) {}
  int NumUpperParameters() const override {
    return inner_->NumUpperParameters();
  }
  int NumLowerParameters() const override {
    return inner_->NumLowerParameters();
  }
  bool GradY(const double* x, const double* y, double* h) const override {
    return inner_->GradY(x, y, h);
  }
  bool GradYJacobianTransposeProduct(const double* x,
                                     const double* y,
                                     const double* v,
                                     double* out_x,
                                     double* out_y) const override {
    if (calls_++ >= good_) return false;
    return inner_->GradYJacobianTransposeProduct(x, y, v, out_x, out_y);
  }

 private:
  const LowerLevel* inner_;
  int good_;
  mutable int calls_ = 0;
};

TEST(MtblLogisticTest, DensePreconditionerFailureFallsBackToPlainCg) {
  auto instance = Build(60, 1e-3);
  FailingProducts failing(instance->lower_level.get(), 10);
  std::mt19937_64 rng(9);
  const Point p = RandomPoint(failing, &rng);
  LowerLevelSolver::Options options;
  options.preconditioner_type = LowerLevelPreconditionerType::DENSE_HESSIAN;
  LowerLevelPreconditioner preconditioner(options, 60);
  std::string error;
  EXPECT_FALSE(preconditioner.Refresh(failing, p.x.data(), p.y.data(), &error));
  EXPECT_NE(error.find("Hessian-vector product failed"), std::string::npos)
      << error;
  EXPECT_NE(error.find("without a preconditioner"), std::string::npos);
  EXPECT_FALSE(preconditioner.enabled());
  EXPECT_FALSE(preconditioner.ready());
  EXPECT_FALSE(preconditioner.refresh_due());
}

TEST(MtblLogisticTest,
     PreconditionedSolvesAlongAPathAgreeAndNeedFewerProducts) {
  // A path of x, each lower-level solve warm-started from the last, as
  // ReducedMtblEvaluator does: once the plain CG iterations beyond the
  // expected count add up to ny, the preconditioner is formed, and from
  // then on the solves reach the same y* with far fewer products.
  auto instance = Build(200, 1e-3);
  const LowerLevel& lower = *instance->lower_level;
  LowerLevelSolver::Options plain, dense;
  plain.gradient_tolerance = dense.gradient_tolerance = 1e-10;
  plain.cg_relative_tolerance = dense.cg_relative_tolerance = 1e-6;
  plain.preconditioner_type = LowerLevelPreconditionerType::IDENTITY;
  dense.preconditioner_type = LowerLevelPreconditionerType::AUTOMATIC;
  LowerLevelPreconditioner none(plain, 200), preconditioner(dense, 200);
  EXPECT_FALSE(none.enabled());
  EXPECT_TRUE(preconditioner.enabled());
  Eigen::VectorXd y_plain = Eigen::VectorXd::Zero(200), y_dense = y_plain;
  int64_t plain_products = 0, dense_products = 0, refreshes = 0;
  int late_plain_cg = 0, late_dense_cg = 0;
  for (int i = 0; i < 20; ++i) {
    const Eigen::Vector3d x(0.1 * i, -0.05 * i, 0.2);
    LowerLevelSolver::Summary a, b;
    ASSERT_TRUE(SolveLowerLevel(plain, lower, x.data(), &y_plain, &none, &a))
        << a.message;
    ASSERT_TRUE(
        SolveLowerLevel(dense, lower, x.data(), &y_dense, &preconditioner, &b))
        << b.message;
    EXPECT_EQ(a.preconditioner_refreshes, 0);
    EXPECT_LT((y_plain - y_dense).norm(), 1e-8 * (1.0 + y_plain.norm())) << i;
    plain_products += a.hessian_products;
    dense_products += b.hessian_products;
    refreshes += b.preconditioner_refreshes;
    if (i >= 10) {
      late_plain_cg += a.cg_iterations;
      late_dense_cg += b.cg_iterations;
    }
  }
  EXPECT_GE(refreshes, 1);
  EXPECT_EQ(refreshes, preconditioner.refreshes());
  // The refreshes' products are counted, and still the total is lower.
  EXPECT_LT(dense_products, plain_products);
  EXPECT_LT(2 * late_dense_cg, late_plain_cg);
}

TEST(MtblLogisticTest, PreconditionerTypeNamesAndOptions) {
  for (LowerLevelPreconditionerType type :
       {LowerLevelPreconditionerType::IDENTITY,
        LowerLevelPreconditionerType::DENSE_HESSIAN,
        LowerLevelPreconditionerType::AUTOMATIC}) {
    LowerLevelPreconditionerType parsed =
        LowerLevelPreconditionerType::IDENTITY;
    ASSERT_TRUE(StringToLowerLevelPreconditionerType(
        LowerLevelPreconditionerTypeToString(type), &parsed));
    EXPECT_EQ(parsed, type);
  }
  LowerLevelPreconditionerType parsed = LowerLevelPreconditionerType::IDENTITY;
  EXPECT_TRUE(StringToLowerLevelPreconditionerType("DENSE_HESSIAN", &parsed));
  EXPECT_EQ(parsed, LowerLevelPreconditionerType::DENSE_HESSIAN);
  EXPECT_FALSE(StringToLowerLevelPreconditionerType("jacobi", &parsed));
  LowerLevelSolver::Options options;
  std::string error;
  EXPECT_TRUE(options.IsValid(&error)) << error;
  options.max_dense_preconditioner_size = -1;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("max_dense_preconditioner_size"), std::string::npos);
  options = LowerLevelSolver::Options();
  options.preconditioned_cg_iterations = -2;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("preconditioned_cg_iterations"), std::string::npos);
  // A null preconditioner is refused with a message, not a crash.
  auto instance = Build(30, 1e-3);
  const Eigen::Vector3d x(0.1, 0.2, 0.3);
  Eigen::VectorXd y = Eigen::VectorXd::Zero(30);
  LowerLevelSolver::Summary summary;
  EXPECT_FALSE(SolveLowerLevel(LowerLevelSolver::Options(),
                               *instance->lower_level,
                               x.data(),
                               &y,
                               nullptr,
                               &summary));
  EXPECT_NE(summary.message.find("preconditioner is null"), std::string::npos);
}

TEST(MtblLogisticTest, ReducedEvaluatorGivesTheSameGradientsWithEitherCg) {
  // Plain and preconditioned CG give the same hypergradients along a
  // sequence of evaluations (the preconditioner changes only the work).
  auto instance = Build(150, 1e-3);
  const int ny = 150;
  ReducedMtblEvaluator::Options plain, dense;
  plain.lower_level.gradient_tolerance = dense.lower_level.gradient_tolerance =
      1e-12;
  plain.lower_level.preconditioner_type =
      LowerLevelPreconditionerType::IDENTITY;
  dense.lower_level.preconditioner_type =
      LowerLevelPreconditionerType::DENSE_HESSIAN;
  ReducedMtblEvaluator a(
      instance->evaluator.get(), instance->start.tail(ny), plain);
  ReducedMtblEvaluator b(
      instance->evaluator.get(), instance->start.tail(ny), dense);
  std::string error;
  Eigen::VectorXd fa(3), fb(3);
  Eigen::MatrixXd ga(3, 3), gb(3, 3);
  for (int i = 0; i < 12; ++i) {
    const Eigen::Vector3d x(0.05 * i, 0.3 - 0.04 * i, -0.1);
    ASSERT_TRUE(a.Evaluate(x.data(), fa.data(), nullptr, ga.data(), &error))
        << error;
    ASSERT_TRUE(b.Evaluate(x.data(), fb.data(), nullptr, gb.data(), &error))
        << error;
    // Both lower-level solves stop at ||grad_y g|| <= 1e-12: F agrees to
    // about 1e-12 / l2.
    EXPECT_LT(RelativeError(fb, fa), 1e-10) << i;
    EXPECT_LT((gb - ga).norm(), 1e-7 * (1.0 + ga.norm())) << i;
  }
  EXPECT_EQ(a.work().preconditioner_refreshes, 0);
  EXPECT_GE(b.work().preconditioner_refreshes, 1);
  EXPECT_LT(b.work().cg_iterations, a.work().cg_iterations);
}

TEST(MtblLogisticTest, MerelyConvexLowerLevelIsReportedNonUnique) {
  // d = 6 features, 10 classes: with l2 = 0 the null space of the Hessian
  // holds (at least) the d directions that add one vector to every row of
  // W; l2 > 0 removes it.
  for (double l2 : {0.0, 1e-3}) {
    auto instance = Build(60, l2);
    const LowerLevel& lower = *instance->lower_level;
    const Eigen::VectorXd x = Eigen::VectorXd::Zero(3);
    Eigen::VectorXd y = Eigen::VectorXd::Zero(60);
    LowerLevelSolver::Options options;
    options.max_iterations = 50;
    LowerLevelSolver::Summary summary;
    SolveLowerLevel(options, lower, x.data(), &y, &summary);
    LowerLevelSpectrumOptions spectrum_options;
    spectrum_options.probes = 8;
    LowerLevelSpectrum spectrum;
    ASSERT_TRUE(EstimateLowerLevelSpectrum(
        lower, x.data(), y.data(), spectrum_options, &spectrum))
        << spectrum.message;
    if (l2 == 0.0) {
      EXPECT_FALSE(spectrum.unique) << spectrum.message;
      // 6 (stochastic estimate: allow its sampling error).
      EXPECT_GE(spectrum.null_space_dimension, 3) << spectrum.message;
      EXPECT_LE(spectrum.null_space_dimension, 10) << spectrum.message;
    } else {
      EXPECT_TRUE(spectrum.unique) << spectrum.message;
      EXPECT_EQ(spectrum.null_space_dimension, 0);
      // The smallest eigenvalue is l2 (the shift directions keep only it).
      EXPECT_NEAR(spectrum.smallest_eigenvalue, 1e-3, 1e-4) << spectrum.message;
    }
  }
}

TEST(MtblLogisticTest, ReportSaysWhenTheLowerLevelSolutionIsNotUnique) {
  for (double l2 : {0.0, 1e-3}) {
    auto instance = Build(60, l2);
    const Eigen::VectorXd x = Eigen::VectorXd::Zero(3);
    Eigen::VectorXd y = instance->start.tail(60);
    LowerLevelSolver::Summary lower_summary;
    SolveLowerLevel(LowerLevelSolver::Options(),
                    *instance->lower_level,
                    x.data(),
                    &y,
                    &lower_summary);
    Solver::Summary summary;
    summary.termination_type = ceres::CONVERGENCE;
    summary.z.resize(63);
    summary.z << x, y;
    MtblReportOptions options;
    options.probe_steps = 0;
    options.estimate_lower_level_gap = false;
    MtblReport report;
    ASSERT_TRUE(
        ComputeMtblReport(instance->evaluator.get(), summary, options, &report))
        << report.message;
    EXPECT_EQ(report.lower_level_unique, l2 > 0.0) << report.message;
    if (l2 == 0.0) {
      EXPECT_GT(report.lower_level_spectrum.null_space_dimension, 0);
      EXPECT_NE(report.message.find("not unique"), std::string::npos)
          << report.message;
    } else {
      EXPECT_EQ(report.lower_level_spectrum.null_space_dimension, 0);
      EXPECT_EQ(report.message.find("not unique"), std::string::npos)
          << report.message;
    }
  }
}

TEST(MtblLogisticTest, ReducedEvaluatorGradientsMatchFiniteDifferences) {
  auto instance = Build(60, 1e-3);
  const int ny = 60;
  ReducedMtblEvaluator::Options options;
  options.lower_level.gradient_tolerance = 1e-12;
  ReducedMtblEvaluator reduced(
      instance->evaluator.get(), instance->start.tail(ny), options);
  std::string error;
  ASSERT_TRUE(reduced.IsValid(&error)) << error;
  ASSERT_EQ(reduced.NumParameters(), 3);
  ASSERT_EQ(reduced.NumConstraints(), 0);
  const Eigen::Vector3d x(0.4, -0.2, 0.1);
  Eigen::VectorXd f(3);
  Eigen::MatrixXd grad(3, 3);
  ASSERT_TRUE(
      reduced.Evaluate(x.data(), f.data(), nullptr, grad.data(), &error))
      << error;
  const double t = 1e-5;
  for (int c = 0; c < 3; ++c) {
    Eigen::Vector3d xp = x, xm = x;
    xp[c] += t;
    xm[c] -= t;
    Eigen::VectorXd fp(3), fm(3);
    ASSERT_TRUE(
        reduced.Evaluate(xp.data(), fp.data(), nullptr, nullptr, &error));
    ASSERT_TRUE(
        reduced.Evaluate(xm.data(), fm.data(), nullptr, nullptr, &error));
    const Eigen::VectorXd fd = (fp - fm) / (2 * t);
    EXPECT_LT(RelativeError(grad.row(c).transpose(), fd), 1e-6) << c;
  }
  // F is the full evaluator's objectives at (x, y*(x)), and y* solves the
  // lower level.
  const Eigen::VectorXd z = reduced.FullPoint(x);
  ASSERT_EQ(z.size(), 63);
  Eigen::VectorXd f_full(3), h(ny);
  ASSERT_TRUE(instance->evaluator->Evaluate(
      z.data(), f_full.data(), h.data(), nullptr, &error));
  EXPECT_LT(RelativeError(f_full, f), 1e-14);
  EXPECT_LE(h.norm(), 1e-12);
}

TEST(MtblLogisticTest, ReducedHessianProductMatchesGradientDifferences) {
  auto instance = Build(60, 1e-3);
  ReducedMtblEvaluator::Options options;
  options.lower_level.gradient_tolerance = 1e-13;
  options.cg_relative_tolerance = 1e-12;
  ReducedMtblEvaluator reduced(
      instance->evaluator.get(), instance->start.tail(60), options);
  EXPECT_TRUE(reduced.HasExactLagrangianHessian());
  const Eigen::Vector3d x(0.4, -0.2, 0.1), a(0.5, 0.2, 0.3), p(0.3, -1.0, 0.6);
  auto gradient = [&](const Eigen::Vector3d& point) {
    Eigen::VectorXd f(3);
    Eigen::MatrixXd grad(3, 3);
    std::string error;
    EXPECT_TRUE(
        reduced.Evaluate(point.data(), f.data(), nullptr, grad.data(), &error))
        << error;
    return Eigen::Vector3d(grad * a);
  };
  const double t = 1e-4;
  const Eigen::Vector3d reference =
      (gradient(x + t * p) - gradient(x - t * p)) / (2 * t);
  gradient(x);  // linearize at x
  // A value-only evaluation elsewhere must not change the product.
  Eigen::VectorXd f(3);
  std::string error;
  const Eigen::Vector3d elsewhere(1.0, 1.0, -1.0);
  ASSERT_TRUE(
      reduced.Evaluate(elsewhere.data(), f.data(), nullptr, nullptr, &error));
  Eigen::VectorXd product(3);
  ASSERT_TRUE(reduced.LagrangianHessianMultiply(
      a.data(), nullptr, p.data(), product.data(), &error))
      << error;
  EXPECT_LT(RelativeError(product, reference), 1e-6)
      << product.transpose() << " vs " << reference.transpose();
}

TEST(MtblLogisticTest, ReducedEvaluatorAdjointModeMatchesFiniteDifferences) {
  MtblLogisticOptions options;
  options.num_lower_parameters = 40;
  options.num_sources = 5;  // nx = 5 > S = 3: adjoint solves
  options.train_samples_per_source = 40;
  options.validation_samples = 40;
  std::string error;
  auto instance = BuildMtblLogistic(options, &error);
  ASSERT_NE(instance, nullptr) << error;
  ReducedMtblEvaluator::Options reduced_options;
  reduced_options.lower_level.gradient_tolerance = 1e-12;
  ReducedMtblEvaluator reduced(
      instance->evaluator.get(), instance->start.tail(40), reduced_options);
  Eigen::VectorXd x(5);
  x << 0.3, -0.1, 0.2, 0.0, -0.4;
  Eigen::VectorXd f(3);
  Eigen::MatrixXd grad(5, 3);
  ASSERT_TRUE(
      reduced.Evaluate(x.data(), f.data(), nullptr, grad.data(), &error))
      << error;
  // Central differences of F, whose values carry the lower-level solve's
  // error (about gradient_tolerance / l2): t = 1e-4 keeps that noise and
  // the O(t^2) truncation both near 1e-7 of the gradients.
  const double t = 1e-4;
  for (int c = 0; c < 5; ++c) {
    Eigen::VectorXd xp = x, xm = x, fp(3), fm(3);
    xp[c] += t;
    xm[c] -= t;
    ASSERT_TRUE(
        reduced.Evaluate(xp.data(), fp.data(), nullptr, nullptr, &error))
        << error;
    ASSERT_TRUE(
        reduced.Evaluate(xm.data(), fm.data(), nullptr, nullptr, &error))
        << error;
    EXPECT_LT(RelativeError(grad.row(c).transpose(), (fp - fm) / (2 * t)), 1e-6)
        << c;
  }
}

TEST(MtblLogisticTest, ReducedAndFullSpaceNewtonAgree) {
  auto instance = Build(60, 1e-3);
  const std::vector<double> preference = {0.2, 0.3, 0.5};
  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  Solver::Summary full_summary, reduced_summary;
  Eigen::VectorXd z = instance->start;
  Solve(options, instance->evaluator.get(), preference, &z, &full_summary);
  ASSERT_TRUE(full_summary.IsSolutionUsable()) << full_summary.FullReport();
  EXPECT_LE(full_summary.kkt.with_least_squares_multipliers.SquaredNorm(),
            1e-10);

  ReducedMtblEvaluator reduced(instance->evaluator.get(),
                               instance->start.tail(60));
  Eigen::VectorXd x = instance->start.head(3);
  Solve(options, &reduced, preference, &x, &reduced_summary);
  ASSERT_TRUE(reduced_summary.IsSolutionUsable())
      << reduced_summary.FullReport();
  // Same Pareto point: the objectives agree closely (the two problems are
  // equivalent for a strongly convex lower level).
  EXPECT_LT(RelativeError(reduced_summary.objectives, full_summary.objectives),
            1e-5);
  EXPECT_LT((x - z.head(3)).norm(), 1e-3 * (1.0 + x.norm()));
}

// wc-sqp's limited-memory BFGS (what sqp.hessian = AUTOMATIC uses above
// sqp.max_parameters, e.g. on the meta-learning network) on the reduced
// form: certified, at the point wc-newton certifies for the same
// scalarization (given, so that neither depends on its own single-objective
// solves).
TEST(MtblLogisticTest, ReducedLimitedMemorySqpAgreesWithNewton) {
  auto instance = Build(60, 1e-3);
  const std::vector<double> preference = {0.2, 0.3, 0.5};
  ReducedMtblEvaluator reduced(instance->evaluator.get(),
                               instance->start.tail(60));
  Solver::Options newton;
  newton.reference_point = {0.0, 0.0, 0.0};
  newton.objective_scale = {1.0, 1.0, 1.0};
  newton.normalize_objectives = false;
  newton.strategy = StrategyType::WC_NEWTON;
  Solver::Summary newton_summary;
  Eigen::VectorXd x_newton = instance->start.head(3);
  Solve(newton, &reduced, preference, &x_newton, &newton_summary);
  ASSERT_EQ(newton_summary.termination_type, ceres::CONVERGENCE)
      << newton_summary.FullReport();

  Solver::Options sqp = newton;
  sqp.strategy = StrategyType::WC_SQP;
  sqp.sqp.hessian = SqpHessianType::LBFGS;
  sqp.sqp.lbfgs_memory = 2;  // fewer pairs than parameters
  Solver::Summary sqp_summary;
  Eigen::VectorXd x_sqp = instance->start.head(3);
  Solve(sqp, &reduced, preference, &x_sqp, &sqp_summary);
  ASSERT_EQ(sqp_summary.termination_type, ceres::CONVERGENCE)
      << sqp_summary.FullReport();
  EXPECT_TRUE(sqp_summary.IsCertified(sqp));
  EXPECT_NE(sqp_summary.inner_message.find("limited-memory"),
            std::string::npos);
  EXPECT_LT(RelativeError(sqp_summary.objectives, newton_summary.objectives),
            1e-5);
  // x: logits of the source weights, defined up to a common shift and
  // flat where a weight saturates (here one near 1e-7): compare the weights.
  auto weights = [](const Eigen::VectorXd& logits) {
    const Eigen::VectorXd e = (logits.array() - logits.maxCoeff()).exp();
    return Eigen::VectorXd(e / e.sum());
  };
  EXPECT_LT((weights(x_sqp) - weights(x_newton)).lpNorm<Eigen::Infinity>(),
            1e-3)
      << x_sqp.transpose() << " vs " << x_newton.transpose();
}

TEST(MtblLogisticTest, RegisteredAsASizedEvaluatorFamily) {
  const problems::ProblemInfo* info = problems::Find("mtbl_logistic");
  ASSERT_NE(info, nullptr);
  EXPECT_FALSE(info->has_problem());
  EXPECT_TRUE(info->has_problem_size());
  std::string error;
  std::unique_ptr<EvaluatorInstance> instance =
      problems::BuildEvaluator(*info, 60, &error);
  ASSERT_NE(instance, nullptr) << error;
  EXPECT_EQ(instance->evaluator->NumParameters(), 3 + 60);
  EXPECT_EQ(instance->evaluator->NumConstraints(), 60);
  // A certified point with the Newton strategy and exact products.
  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  Eigen::VectorXd z = instance->start;
  Solver::Summary summary;
  Solve(options, instance->evaluator.get(), {0.3, 0.3, 0.4}, &z, &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_GT(summary.evaluations.hessian_products, 0);
  EXPECT_LE(summary.constraint_max_norm, 1e-8);
  // Too small a size is refused with the reason.
  EXPECT_EQ(problems::BuildEvaluator(*info, 5, &error), nullptr);
  EXPECT_NE(error.find(">= 10"), std::string::npos) << error;
}

// The reduced form is registered beside the full one: same instance, x
// only, and the wc-newton point is the full-space problem's.
TEST(MtblLogisticTest, ReducedFormIsRegisteredAndAgreesWithTheFullForm) {
  const problems::ProblemInfo* full_info = problems::Find("mtbl_logistic");
  const problems::ProblemInfo* reduced_info =
      problems::Find("mtbl_logistic_reduced");
  ASSERT_NE(full_info, nullptr);
  ASSERT_NE(reduced_info, nullptr);
  EXPECT_TRUE(reduced_info->has_problem_size());
  std::string error;
  std::unique_ptr<EvaluatorInstance> full =
      problems::BuildEvaluator(*full_info, 60, &error);
  std::unique_ptr<EvaluatorInstance> reduced =
      problems::BuildEvaluator(*reduced_info, 60, &error);
  ASSERT_NE(full, nullptr) << error;
  ASSERT_NE(reduced, nullptr) << error;
  EXPECT_EQ(reduced->evaluator->NumParameters(), 3);
  EXPECT_EQ(reduced->evaluator->NumConstraints(), 0);
  EXPECT_EQ(reduced->start, full->start.head(3));

  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  const std::vector<double> preference = {0.5, 0.3, 0.2};
  Solver::Summary full_summary, reduced_summary;
  Eigen::VectorXd z = full->start;
  Solve(options, full->evaluator.get(), preference, &z, &full_summary);
  Eigen::VectorXd x = reduced->start;
  Solve(options, reduced->evaluator.get(), preference, &x, &reduced_summary);
  ASSERT_EQ(full_summary.termination_type, ceres::CONVERGENCE)
      << full_summary.message;
  ASSERT_EQ(reduced_summary.termination_type, ceres::CONVERGENCE)
      << reduced_summary.message;
  EXPECT_LT(RelativeError(reduced_summary.objectives, full_summary.objectives),
            1e-5);
  EXPECT_LT((x - z.head(3)).norm(), 1e-3 * (1.0 + x.norm()));
  // Too small a size is refused with the full form's reason.
  EXPECT_EQ(problems::BuildEvaluator(*reduced_info, 5, &error), nullptr);
  EXPECT_NE(error.find(">= 10"), std::string::npos) << error;
}

// A sweep of the reduced form with the default strategy and warm starts:
// the minimizer of f_1 lies where the softmax saturates and every gradient
// vanishes, so it is a KKT point of every WC problem, and warm starts from
// it were certified again at once (before the sweep retried such points
// from the problem's start, all 15 points of this sweep sat on f_1's
// minimizer). Now no two preferences share a point, none is flagged, and
// the front matches the cold sweep's (each point solved from the problem's
// start) to within the spread of local solutions of this non-convex
// problem.
TEST(MtblLogisticTest, DefaultWarmSweepOfTheReducedFormDoesNotCollapse) {
  const problems::ProblemInfo* info = problems::Find("mtbl_logistic_reduced");
  ASSERT_NE(info, nullptr);
  std::string error;
  const std::vector<std::vector<double>> preferences = DasDennis(3, 4);
  ASSERT_EQ(preferences.size(), 15u);
  ParetoSweep::Summary warm, cold;
  for (ParetoSweep::Summary* summary : {&warm, &cold}) {
    ParetoSweep::Options options;
    options.warm_start = summary == &warm;
    Sweep(options,
          problems::MakeEvaluatorFactory(*info, 40),
          preferences,
          summary);
    ASSERT_EQ(summary->num_usable, 15) << summary->FullReport();
    ASSERT_EQ(summary->num_converged, 15) << summary->FullReport();
  }
  EXPECT_EQ(warm.num_possibly_spurious_ends, 0);
  for (size_t i = 0; i < warm.points.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      EXPECT_GT((warm.points[i].summary.objectives -
                 warm.points[j].summary.objectives)
                    .norm(),
                1e-4)
          << "points " << i << " and " << j << " coincide";
    }
  }
  EXPECT_GT(warm.hypervolume, 0.9 * cold.hypervolume);
}

}  // namespace
}  // namespace ecmo
