// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The evaluator against finite differences: grad f_s, J_h^T v and J_h x on a
// problem with several parameter blocks and constraint terms; plus the
// message for a cost function that returns NaN.

#include <cmath>
#include <random>
#include <string>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/evaluator.h"
#include "ecmo/problem.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

struct Coupled {  // f = sin(x0) y0 + exp(0.3 y1) x1^2 + y2^3
  template <typename T>
  bool operator()(const T* x, const T* y, T* f) const {
    f[0] = sin(x[0]) * y[0] + exp(0.3 * y[1]) * x[1] * x[1] + y[2] * y[2] * y[2];
    return true;
  }
};
struct Quadratic {  // f = sum_i (i+1) y_i^2
  template <typename T>
  bool operator()(const T* y, T* f) const {
    f[0] = y[0] * y[0] + 2.0 * y[1] * y[1] + 3.0 * y[2] * y[2];
    return true;
  }
};
struct TwoConstraints {  // h = (x0 y1 - 1, x1 + y2^2 + y0)
  template <typename T>
  bool operator()(const T* x, const T* y, T* h) const {
    h[0] = x[0] * y[1] - 1.0;
    h[1] = x[1] + y[2] * y[2] + y[0];
    return true;
  }
};
struct OneConstraint {  // h = x0^2 + x1^2 - 2
  template <typename T>
  bool operator()(const T* x, T* h) const {
    h[0] = x[0] * x[0] + x[1] * x[1] - 2.0;
    return true;
  }
};

class EvaluatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    problem_.AddObjective(
        new ceres::AutoDiffCostFunction<Coupled, 1, 2, 3>(new Coupled), {x_, y_});
    problem_.AddObjective(
        new ceres::AutoDiffCostFunction<Quadratic, 1, 3>(new Quadratic), {y_});
    problem_.AddConstraint(
        new ceres::AutoDiffCostFunction<TwoConstraints, 2, 2, 3>(
            new TwoConstraints),
        {x_, y_});
    problem_.AddConstraint(
        new ceres::AutoDiffCostFunction<OneConstraint, 1, 2>(new OneConstraint),
        {x_});
  }
  double x_[2] = {0.3, -0.7};
  double y_[3] = {1.1, 0.4, -0.2};
  Problem problem_;
};

TEST_F(EvaluatorTest, GradientsAndJacobianProductsMatchFiniteDifferences) {
  ProblemEvaluator evaluator(&problem_);
  const int k = 5, S = 2, q = 3;
  ASSERT_EQ(evaluator.NumParameters(), k);
  ASSERT_EQ(evaluator.NumConstraints(), q);
  Eigen::VectorXd z(k);
  problem_.GetParameters(z.data());
  Eigen::VectorXd f(S), h(q);
  Eigen::MatrixXd g(k, S);
  std::string error;
  ASSERT_TRUE(evaluator.Evaluate(z.data(), f.data(), h.data(), g.data(), &error));

  // Central differences of f and h, column by column.
  const double step = 1e-6;
  Eigen::MatrixXd fd_g(k, S), fd_j(q, k);
  for (int i = 0; i < k; ++i) {
    Eigen::VectorXd zp = z, zm = z, fp(S), fm(S), hp(q), hm(q);
    zp[i] += step;
    zm[i] -= step;
    ASSERT_TRUE(evaluator.Evaluate(zp.data(), fp.data(), hp.data(), nullptr, &error));
    ASSERT_TRUE(evaluator.Evaluate(zm.data(), fm.data(), hm.data(), nullptr, &error));
    fd_g.row(i) = ((fp - fm) / (2 * step)).transpose();
    fd_j.col(i) = (hp - hm) / (2 * step);
  }
  EXPECT_LT((g - fd_g).cwiseAbs().maxCoeff(), 1e-8);

  // Value-only evaluations above must not move the linearization point.
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 5; ++trial) {
    Eigen::VectorXd v(q), x(k), jtv(k), jx(q);
    for (int i = 0; i < q; ++i) v[i] = normal(rng);
    for (int i = 0; i < k; ++i) x[i] = normal(rng);
    evaluator.JacobianTransposeMultiply(v.data(), jtv.data());
    evaluator.JacobianMultiply(x.data(), jx.data());
    EXPECT_LT((jtv - fd_j.transpose() * v).cwiseAbs().maxCoeff(), 1e-8);
    EXPECT_LT((jx - fd_j * x).cwiseAbs().maxCoeff(), 1e-8);
  }
  EXPECT_EQ(evaluator.counts().gradient_evaluations, 1);
  EXPECT_EQ(evaluator.counts().value_evaluations, 1 + 2 * k);
  EXPECT_EQ(evaluator.counts().jacobian_transpose_products, 5);
  EXPECT_EQ(evaluator.counts().jacobian_products, 5);
}

TEST(Evaluator, NanFromCostFunctionNamesItAndThePoint) {
  double z[2] = {2.0, 0.0};
  Problem problem;
  problem.AddObjective(new testing::NanAbove(1.0), {z}, "fragile");
  ProblemEvaluator evaluator(&problem);
  double f[1];
  std::string error;
  EXPECT_FALSE(evaluator.Evaluate(z, f, nullptr, nullptr, &error));
  EXPECT_NE(error.find("objective 'fragile'"), std::string::npos) << error;
  EXPECT_NE(error.find("non-finite"), std::string::npos) << error;
  EXPECT_NE(error.find("z = [2, 0]"), std::string::npos) << error;
}

}  // namespace
}  // namespace ecmo
