// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// AutoDiffLowerLevel (ecmo/autodiff_lower_level.h): every product against
// central differences on a small coupled g, against the hand-written
// mtbl_logistic lower level, re-recording at branch changes, refusals and
// failures, concurrent products, tag reuse, and a full wc-newton solve.

#include "ecmo/autodiff_lower_level.h"

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "Eigen/Core"
#include "ceres/dynamic_autodiff_cost_function.h"
#include "ecmo/mtbl.h"
#include "ecmo/problems/mtbl_logistic.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"
#include "test_vectors.h"

namespace ecmo {
namespace {

using testing::Random;
using testing::RelativeError;

// g = exp(x0 y0) + log(1 + y1^2) x1^2 + y0 y1 y2 + (y2 - x1)^4 / 4
//     + 1/2 |y|^2: every kind of coupling, non-zero third derivatives.
struct CoupledG {
  template <typename T>
  bool operator()(const T* x, const T* y, T* g) const {
    const T d = y[2] - x[1];
    *g = exp(x[0] * y[0]) + log(K<T>(1.0) + y[1] * y[1]) * x[1] * x[1] +
         y[0] * y[1] * y[2] + K<T>(0.25) * d * d * d * d +
         K<T>(0.5) * (y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
    return true;
  }
};

// Huber-type: sum_i huber(y_i - x0) with threshold 1, one branch per term.
struct HuberG {
  template <typename T>
  bool operator()(const T* x, const T* y, T* g) const {
    T total = K<T>(0.0);
    for (int i = 0; i < 3; ++i) {
      const T r = y[i] - x[0];
      if (r * r < K<T>(1.0)) {
        total += K<T>(0.5) * r * r;
      } else if (r > K<T>(0.0)) {
        total += r - K<T>(0.5);
      } else {
        total += -r - K<T>(0.5);
      }
    }
    *g = total;
    return true;
  }
};
double Huber(double r) {
  return std::abs(r) < 1.0 ? 0.5 * r * r : std::abs(r) - 0.5;
}

// Refuses y0 < 0 (a recorded comparison), and has log(y1): NaN for y1 < 0.
struct DomainG {
  template <typename T>
  bool operator()(const T* x, const T* y, T* g) const {
    if (y[0] < K<T>(0.0)) return false;
    *g = x[0] * y[0] + log(y[1]);
    return true;
  }
};


// All products of a lower level at (x, y) for directions (v, w, d).
struct Products {
  Eigen::VectorXd grad_y, grad_x, hv_x, hv_y, jw, third_x, third_y;
};
Products AllProducts(const LowerLevel& lower,
                     const Eigen::VectorXd& x,
                     const Eigen::VectorXd& y,
                     const Eigen::VectorXd& v,
                     const Eigen::VectorXd& w_x,
                     const Eigen::VectorXd& w_y) {
  const int nx = lower.NumUpperParameters(), ny = lower.NumLowerParameters();
  Products p;
  p.grad_y.resize(ny);
  p.grad_x.resize(nx);
  p.hv_x.resize(nx);
  p.hv_y.resize(ny);
  p.jw.resize(ny);
  p.third_x.resize(nx);
  p.third_y.resize(ny);
  EXPECT_TRUE(lower.GradY(x.data(), y.data(), p.grad_y.data()));
  EXPECT_TRUE(lower.GradX(x.data(), y.data(), p.grad_x.data()));
  EXPECT_TRUE(lower.GradYJacobianTransposeProduct(
      x.data(), y.data(), v.data(), p.hv_x.data(), p.hv_y.data()));
  EXPECT_TRUE(lower.GradYJacobianProduct(
      x.data(), y.data(), w_x.data(), w_y.data(), p.jw.data()));
  EXPECT_TRUE(lower.GradYJacobianTransposeProductDerivative(x.data(),
                                                            y.data(),
                                                            v.data(),
                                                            w_x.data(),
                                                            w_y.data(),
                                                            p.third_x.data(),
                                                            p.third_y.data()));
  return p;
}

TEST(AutoDiffLowerLevelTest, ProductsMatchCentralDifferences) {
  AutoDiffLowerLevel<CoupledG> lower(new CoupledG, 2, 3);
  std::string error;
  ASSERT_TRUE(lower.IsValid(&error)) << error;
  EXPECT_TRUE(lower.HasExactThirdOrderProduct());
  std::mt19937_64 rng(3);
  const Eigen::VectorXd x = 0.5 * Random(2, &rng), y = 0.5 * Random(3, &rng);
  const Eigen::VectorXd v = Random(3, &rng), w_x = Random(2, &rng),
                        w_y = Random(3, &rng);
  const Products p = AllProducts(lower, x, y, v, w_x, w_y);
  const double t = 1e-5;

  // GradY and GradX against differences of Value.
  Eigen::VectorXd fd_y(3), fd_x(2);
  for (int i = 0; i < 5; ++i) {
    Eigen::VectorXd xp = x, xm = x, yp = y, ym = y;
    if (i < 2) {
      xp[i] += t;
      xm[i] -= t;
    } else {
      yp[i - 2] += t;
      ym[i - 2] -= t;
    }
    double gp = 0.0, gm = 0.0;
    ASSERT_TRUE(lower.Value(xp.data(), yp.data(), &gp));
    ASSERT_TRUE(lower.Value(xm.data(), ym.data(), &gm));
    (i < 2 ? fd_x[i] : fd_y[i - 2]) = (gp - gm) / (2 * t);
  }
  EXPECT_LT(RelativeError(p.grad_y, fd_y), 1e-8);
  EXPECT_LT(RelativeError(p.grad_x, fd_x), 1e-8);

  // Differences of (GradX, GradY) along a direction (dx, dy).
  auto gradient_difference = [&](const Eigen::VectorXd& dx,
                                 const Eigen::VectorXd& dy,
                                 Eigen::VectorXd* out_x,
                                 Eigen::VectorXd* out_y) {
    Eigen::VectorXd xp = x + t * dx, xm = x - t * dx;
    Eigen::VectorXd yp = y + t * dy, ym = y - t * dy;
    Eigen::VectorXd gxp(2), gxm(2), gyp(3), gym(3);
    ASSERT_TRUE(lower.GradX(xp.data(), yp.data(), gxp.data()));
    ASSERT_TRUE(lower.GradX(xm.data(), ym.data(), gxm.data()));
    ASSERT_TRUE(lower.GradY(xp.data(), yp.data(), gyp.data()));
    ASSERT_TRUE(lower.GradY(xm.data(), ym.data(), gym.data()));
    *out_x = (gxp - gxm) / (2 * t);
    *out_y = (gyp - gym) / (2 * t);
  };
  Eigen::VectorXd hx, hy;
  gradient_difference(Eigen::VectorXd::Zero(2), v, &hx, &hy);
  EXPECT_LT(RelativeError(p.hv_x, hx), 1e-8);
  EXPECT_LT(RelativeError(p.hv_y, hy), 1e-8);
  gradient_difference(w_x, w_y, &hx, &hy);
  EXPECT_LT(RelativeError(p.jw, hy), 1e-8);

  // The third-order product against differences of the transpose product.
  Eigen::VectorXd ox_p(2), oy_p(3), ox_m(2), oy_m(3);
  const Eigen::VectorXd xp = x + t * w_x, xm = x - t * w_x;
  const Eigen::VectorXd yp = y + t * w_y, ym = y - t * w_y;
  ASSERT_TRUE(lower.GradYJacobianTransposeProduct(
      xp.data(), yp.data(), v.data(), ox_p.data(), oy_p.data()));
  ASSERT_TRUE(lower.GradYJacobianTransposeProduct(
      xm.data(), ym.data(), v.data(), ox_m.data(), oy_m.data()));
  EXPECT_LT(RelativeError(p.third_x, (ox_p - ox_m) / (2 * t)), 1e-8);
  EXPECT_LT(RelativeError(p.third_y, (oy_p - oy_m) / (2 * t)), 1e-8);

  // Zero directions give zero third-order products.
  Eigen::VectorXd zx(2), zy(3);
  const Eigen::VectorXd zero3 = Eigen::VectorXd::Zero(3);
  ASSERT_TRUE(lower.GradYJacobianTransposeProductDerivative(x.data(),
                                                            y.data(),
                                                            zero3.data(),
                                                            w_x.data(),
                                                            w_y.data(),
                                                            zx.data(),
                                                            zy.data()));
  EXPECT_EQ(zx.norm() + zy.norm(), 0.0);
  // One recording served every point above (g has no branches).
  EXPECT_EQ(lower.TapeStatistics().recordings, 1);
}

// A small mtbl_logistic instance (n_y = 40) and an AutoDiffLowerLevel of
// the same g on its data.
struct Logistic {
  Logistic() {
    problems::MtblLogisticOptions options;
    options.num_lower_parameters = 40;
    options.train_samples_per_source = 40;
    options.validation_samples = 40;
    std::string error;
    instance = problems::BuildMtblLogistic(options, &error);
    EXPECT_NE(instance, nullptr) << error;
    hand = instance->lower_level.get();
    nx = hand->NumUpperParameters();
    ny = hand->NumLowerParameters();
    automatic =
        std::make_unique<AutoDiffLowerLevel<problems::MtblLogisticObjective>>(
            new problems::MtblLogisticObjective(*hand), nx, ny);
    EXPECT_TRUE(automatic->IsValid(&error)) << error;
  }
  std::unique_ptr<problems::MtblLogisticInstance> instance;
  const problems::MtblLogisticLowerLevel* hand = nullptr;
  int nx = 0, ny = 0;
  std::unique_ptr<AutoDiffLowerLevel<problems::MtblLogisticObjective>>
      automatic;
};

TEST(AutoDiffLowerLevelTest, MatchesTheHandWrittenLogisticLowerLevel) {
  const Logistic logistic;
  const LowerLevel& hand = *logistic.hand;
  const LowerLevel& lower = *logistic.automatic;
  const int nx = logistic.nx, ny = logistic.ny;
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 3; ++trial) {
    const Eigen::VectorXd x = 0.7 * Random(nx, &rng);
    const Eigen::VectorXd y = 0.5 * Random(ny, &rng);
    const Eigen::VectorXd v = Random(ny, &rng), w_x = Random(nx, &rng),
                          w_y = Random(ny, &rng);
    double g_hand = 0.0, g_auto = 0.0;
    ASSERT_TRUE(hand.Value(x.data(), y.data(), &g_hand));
    ASSERT_TRUE(lower.Value(x.data(), y.data(), &g_auto));
    EXPECT_NEAR(g_auto, g_hand, 1e-12 * std::abs(g_hand));
    const Products a = AllProducts(lower, x, y, v, w_x, w_y);
    const Products h = AllProducts(hand, x, y, v, w_x, w_y);
    EXPECT_LT(RelativeError(a.grad_y, h.grad_y), 1e-10);
    EXPECT_LT(RelativeError(a.grad_x, h.grad_x), 1e-10);
    EXPECT_LT(RelativeError(a.hv_x, h.hv_x), 1e-10);
    EXPECT_LT(RelativeError(a.hv_y, h.hv_y), 1e-10);
    EXPECT_LT(RelativeError(a.jw, h.jw), 1e-10);
    EXPECT_LT(RelativeError(a.third_x, h.third_x), 1e-10);
    EXPECT_LT(RelativeError(a.third_y, h.third_y), 1e-10);
  }
  EXPECT_EQ(logistic.automatic->TapeStatistics().recordings, 1);
}

TEST(AutoDiffLowerLevelTest, RecordsAgainWhenABranchChanges) {
  AutoDiffLowerLevel<HuberG> lower(new HuberG, 1, 3);
  const double x[1] = {0.0};
  const double near[3] = {0.5, -0.25, 0.1};  // every term quadratic
  const double far[3] = {2.0, -3.0, 0.1};    // two terms linear
  double g = 0.0;
  ASSERT_TRUE(lower.Value(x, near, &g));
  EXPECT_DOUBLE_EQ(g, Huber(0.5) + Huber(-0.25) + Huber(0.1));
  EXPECT_EQ(lower.TapeStatistics().recordings, 1);
  ASSERT_TRUE(lower.Value(x, far, &g));
  EXPECT_DOUBLE_EQ(g, Huber(2.0) + Huber(-3.0) + Huber(0.1));
  EXPECT_EQ(lower.TapeStatistics().recordings, 2);
  // Derivatives on the new branch: grad = (1, -1, 0.1), H_yy = diag(0, 0, 1).
  double h[3], ox[1], oy[3];
  ASSERT_TRUE(lower.GradY(x, far, h));
  EXPECT_DOUBLE_EQ(h[0], 1.0);
  EXPECT_DOUBLE_EQ(h[1], -1.0);
  EXPECT_DOUBLE_EQ(h[2], 0.1);
  const double v[3] = {1.0, 1.0, 1.0};
  ASSERT_TRUE(lower.GradYJacobianTransposeProduct(x, far, v, ox, oy));
  EXPECT_DOUBLE_EQ(oy[0], 0.0);
  EXPECT_DOUBLE_EQ(oy[1], 0.0);
  EXPECT_DOUBLE_EQ(oy[2], 1.0);
  EXPECT_DOUBLE_EQ(ox[0], -1.0);
  EXPECT_EQ(lower.TapeStatistics().recordings, 2);
  // And back.
  ASSERT_TRUE(lower.GradYJacobianTransposeProduct(x, near, v, ox, oy));
  EXPECT_DOUBLE_EQ(oy[0], 1.0);
  EXPECT_DOUBLE_EQ(ox[0], -3.0);
  EXPECT_EQ(lower.TapeStatistics().recordings, 3);
}

TEST(AutoDiffLowerLevelTest, FailuresAreReportedNotFatal) {
  AutoDiffLowerLevel<DomainG> lower(new DomainG, 1, 2);
  const double x[1] = {1.0};
  const double inside[2] = {1.0, 2.0};
  const double refused[2] = {-1.0, 2.0};  // the functor returns false
  const double nan[2] = {1.0, -2.0};      // log of a negative number
  double g = 0.0, h[2], ox[1], oy[2];
  const double v[2] = {1.0, 0.0};
  ASSERT_TRUE(lower.Value(x, inside, &g));
  EXPECT_DOUBLE_EQ(g, 1.0 + std::log(2.0));
  EXPECT_FALSE(lower.Value(x, refused, &g));
  EXPECT_FALSE(lower.GradY(x, refused, h));
  EXPECT_FALSE(lower.GradYJacobianTransposeProduct(x, refused, v, ox, oy));
  EXPECT_FALSE(lower.Value(x, nan, &g));
  EXPECT_FALSE(lower.GradY(x, nan, h));
  EXPECT_FALSE(lower.GradYJacobianTransposeProduct(x, nan, v, ox, oy));
  // Usable again inside the domain.
  ASSERT_TRUE(lower.GradY(x, inside, h));
  EXPECT_DOUBLE_EQ(h[0], 1.0);
  EXPECT_DOUBLE_EQ(h[1], 0.5);
}

TEST(AutoDiffLowerLevelTest, RefusesBadConstruction) {
  std::string error;
  AutoDiffLowerLevel<CoupledG> null_functor(nullptr, 2, 3);
  EXPECT_FALSE(null_functor.IsValid(&error));
  EXPECT_NE(error.find("null"), std::string::npos) << error;
  AutoDiffLowerLevel<CoupledG> no_y(new CoupledG, 2, 0);
  EXPECT_FALSE(no_y.IsValid(&error));
  EXPECT_NE(error.find("ny = 0"), std::string::npos) << error;
  const double x[2] = {0.0, 0.0}, y[3] = {0.0, 0.0, 0.0};
  double g = 0.0, h[3];
  EXPECT_FALSE(null_functor.Value(x, y, &g));
  EXPECT_FALSE(no_y.GradY(x, y, h));
}

TEST(AutoDiffLowerLevelTest, TapesAreReleased) {
  // More instances over time than there are tags: each destructor frees its
  // tag and its tape.
  const double x[2] = {0.1, 0.2}, y[3] = {0.3, -0.1, 0.2};
  for (int i = 0; i < 20000; ++i) {
    AutoDiffLowerLevel<CoupledG> lower(new CoupledG, 2, 3);
    std::string error;
    ASSERT_TRUE(lower.IsValid(&error)) << i << ": " << error;
    if (i % 100 == 0) {
      double g = 0.0;
      ASSERT_TRUE(lower.Value(x, y, &g));
    }
  }
}

TEST(AutoDiffLowerLevelTest, ConcurrentProductsEqualSequentialOnes) {
  const Logistic logistic;
  const LowerLevel& shared = *logistic.automatic;
  const int nx = logistic.nx, ny = logistic.ny;
  AutoDiffLowerLevel<HuberG> other(new HuberG, 1, 3);
  std::mt19937_64 rng(5);
  const int kPoints = 20;
  std::vector<Eigen::VectorXd> xs, ys, vs;
  for (int k = 0; k < kPoints; ++k) {
    xs.push_back(0.5 * Random(nx, &rng));
    ys.push_back(0.5 * Random(ny, &rng));
    vs.push_back(Random(ny, &rng));
  }
  auto run = [&](std::vector<Eigen::VectorXd>* outs, double* huber) {
    outs->assign(kPoints, Eigen::VectorXd());
    Eigen::VectorXd ox(nx);
    for (int k = 0; k < kPoints; ++k) {
      (*outs)[k].resize(ny);
      if (!shared.GradYJacobianTransposeProduct(xs[k].data(),
                                                ys[k].data(),
                                                vs[k].data(),
                                                ox.data(),
                                                (*outs)[k].data())) {
        (*outs)[k].setConstant(NAN);
      }
      // Another instance, with branch changes, in between.
      const double hx[1] = {0.0};
      const double hy[3] = {k % 2 ? 3.0 : 0.1, 0.2, -0.3};
      double g = 0.0;
      if (other.Value(hx, hy, &g)) *huber += g;
    }
  };
  std::vector<Eigen::VectorXd> sequential, first, second;
  double h0 = 0.0, h1 = 0.0, h2 = 0.0;
  run(&sequential, &h0);
  std::thread a(run, &first, &h1);
  std::thread b(run, &second, &h2);
  a.join();
  b.join();
  for (int k = 0; k < kPoints; ++k) {
    EXPECT_EQ(first[k], sequential[k]) << k;
    EXPECT_EQ(second[k], sequential[k]) << k;
  }
  EXPECT_EQ(h1, h0);
  EXPECT_EQ(h2, h0);
}

// f = 1/2 |y - t|^2 / ny + c/2 |x|^2 over the block(s) given.
struct Distance {
  Distance(std::vector<double> target, double x_weight, int nx)
      : target(std::move(target)), x_weight(x_weight), nx(nx) {}
  template <typename T>
  bool operator()(T const* const* blocks, T* f) const {
    const T* y = blocks[0];
    T sum = T(0.0);
    for (size_t i = 0; i < target.size(); ++i) {
      sum += (y[i] - target[i]) * (y[i] - target[i]);
    }
    sum = 0.5 * sum / static_cast<double>(target.size());
    if (x_weight > 0.0) {
      for (int i = 0; i < nx; ++i)
        sum += 0.5 * x_weight * blocks[1][i] * blocks[1][i];
    }
    f[0] = sum;
    return true;
  }
  std::vector<double> target;
  double x_weight;
  int nx;
};

void AddObjectives(MtblEvaluator* evaluator, int nx, int ny) {
  std::vector<double> t1(ny), t2(ny);
  for (int i = 0; i < ny; ++i) {
    t1[i] = 0.3 * std::sin(i);
    t2[i] = -0.2 * std::cos(0.5 * i);
  }
  auto* f1 = new ceres::DynamicAutoDiffCostFunction<Distance>(
      new Distance(t1, 0.0, nx));
  f1->AddParameterBlock(ny);
  f1->SetNumResiduals(1);
  auto* f2 = new ceres::DynamicAutoDiffCostFunction<Distance>(
      new Distance(t2, 0.1, nx));
  f2->AddParameterBlock(ny);
  f2->AddParameterBlock(nx);
  f2->SetNumResiduals(1);
  evaluator->AddUpperObjective(f1, {MtblBlock::Y}, "f1");
  evaluator->AddUpperObjective(f2, {MtblBlock::Y, MtblBlock::X}, "f2");
}

TEST(AutoDiffLowerLevelTest, NewtonSolveReachesTheHandWrittenPoint) {
  const Logistic logistic;
  const int nx = logistic.nx, ny = logistic.ny;
  MtblEvaluator hand_evaluator(logistic.hand),
      auto_evaluator(logistic.automatic.get());
  AddObjectives(&hand_evaluator, nx, ny);
  AddObjectives(&auto_evaluator, nx, ny);
  std::string error;
  ASSERT_TRUE(auto_evaluator.IsValid(&error)) << error;
  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  // The objectives as posed: both lower levels then certify the same point.
  // (Normalized, w = 0.005 and 0.01, the autodiff one stalls at ||h||_inf
  // 1.28e-8 against the 1e-8 tolerance, also with u allowed up to 1.4e12;
  // the hand-written one certifies.)
  options.normalize_objectives = false;
  const std::vector<double> preference = {0.4, 0.6};
  Eigen::VectorXd z_hand = logistic.instance->start;
  Eigen::VectorXd z_auto = z_hand;
  Solver::Summary hand_summary, auto_summary;
  Solve(options, &hand_evaluator, preference, &z_hand, &hand_summary);
  Solve(options, &auto_evaluator, preference, &z_auto, &auto_summary);
  ASSERT_EQ(hand_summary.termination_type, ceres::CONVERGENCE)
      << hand_summary.message;
  ASSERT_EQ(auto_summary.termination_type, ceres::CONVERGENCE)
      << auto_summary.FullReport();
  EXPECT_GT(auto_summary.evaluations.hessian_products, 0);
  EXPECT_LT((z_auto - z_hand).norm(), 1e-6 * (1.0 + z_hand.norm()))
      << (z_auto - z_hand).transpose();
  EXPECT_LT(RelativeError(auto_summary.objectives, hand_summary.objectives),
            1e-8);
}

}  // namespace
}  // namespace ecmo
