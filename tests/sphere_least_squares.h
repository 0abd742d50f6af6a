// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Test evaluator shared by the second-order strategies' tests
// (wc_newton_test.cc, wc_sqp_test.cc): least-squares objectives on the unit
// sphere with exact Gauss-Newton matrices and Hessian products, and the WC
// point on the unit circle by brute force.

#ifndef ECMO_TESTS_SPHERE_LEAST_SQUARES_H_
#define ECMO_TESTS_SPHERE_LEAST_SQUARES_H_

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "Eigen/Dense"
#include "Eigen/SparseCore"
#include "ecmo/evaluator.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace testing {

// f_s(z) = 1/2 ||A_s z - b_s||^2 (s = 1, 2) on the unit circle/sphere
// h(z) = ||z||^2 - 1, with the exact Gauss-Newton matrix
//   G = sum_s a_s A_s^T A_s + c (2 z)(2 z)^T
// stored as a sparse lower triangle with a fixed (dense) pattern, and exact
// Lagrangian Hessian products when `exact_hessian` is set (the
// Gauss-Newton matrix drops the constraint's curvature 2 b I; the products
// keep it).
class SphereLeastSquares final : public Evaluator {
 public:
  SphereLeastSquares(std::vector<Eigen::MatrixXd> a,
                     std::vector<Eigen::VectorXd> b,
                     bool exact_hessian)
      : a_(std::move(a)), b_(std::move(b)), exact_hessian_(exact_hessian) {
    k_ = static_cast<int>(a_[0].cols());
  }
  int NumParameters() const override { return k_; }
  int NumObjectives() const override { return static_cast<int>(a_.size()); }
  int NumConstraints() const override { return 1; }
  bool HasGaussNewtonMatrix() const override { return true; }
  bool HasExactLagrangianHessian() const override { return exact_hessian_; }

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string* /*error*/) override {
    const Eigen::Map<const Eigen::VectorXd> x(z, k_);
    for (int s = 0; s < NumObjectives(); ++s) {
      const Eigen::VectorXd r = a_[s] * x - b_[s];
      f[s] = 0.5 * r.squaredNorm();
      if (grad_f != nullptr) {
        Eigen::Map<Eigen::VectorXd>(grad_f + s * k_, k_) =
            a_[s].transpose() * r;
      }
    }
    h[0] = x.squaredNorm() - 1.0;
    if (grad_f != nullptr) z_ = x;
    return true;
  }
  void DoJacobianTransposeMultiply(const double* v,
                                   double* out) const override {
    Eigen::Map<Eigen::VectorXd>(out, k_) = 2.0 * v[0] * z_;
  }
  void DoJacobianMultiply(const double* x, double* out) const override {
    out[0] = 2.0 * z_.dot(Eigen::Map<const Eigen::VectorXd>(x, k_));
  }
  bool DoLagrangianHessianMultiply(const double* a,
                                   const double* b,
                                   const double* x,
                                   double* out,
                                   std::string* error) override {
    if (!exact_hessian_) {
      return Evaluator::DoLagrangianHessianMultiply(a, b, x, out, error);
    }
    const Eigen::Map<const Eigen::VectorXd> d(x, k_);
    Eigen::Map<Eigen::VectorXd> result(out, k_);
    result = 2.0 * b[0] * d;
    for (int s = 0; s < NumObjectives(); ++s) {
      result += a[s] * (a_[s].transpose() * (a_[s] * d));
    }
    return true;
  }
  bool DoGaussNewtonMatrix(const double* a,
                           const double* c,
                           Eigen::SparseMatrix<double>* lower,
                           std::string* /*error*/) override {
    Eigen::MatrixXd g = 4.0 * c[0] * z_ * z_.transpose();
    for (int s = 0; s < NumObjectives(); ++s) {
      g += a[s] * a_[s].transpose() * a_[s];
    }
    std::vector<Eigen::Triplet<double>> entries;
    for (int j = 0; j < k_; ++j) {
      for (int i = j; i < k_; ++i) entries.emplace_back(i, j, g(i, j));
    }
    lower->resize(k_, k_);
    lower->setFromTriplets(entries.begin(), entries.end());
    return true;
  }

 private:
  std::vector<Eigen::MatrixXd> a_;
  std::vector<Eigen::VectorXd> b_;
  bool exact_hessian_;
  int k_ = 0;
  Eigen::VectorXd z_;
};

// Two targets on the unit circle: f_s = 1/2 ||z - c_s||^2.
inline SphereLeastSquares MakeCircle(bool exact_hessian) {
  Eigen::VectorXd c1(2), c2(2);
  c1 << 2.0, 0.5;
  c2 << -0.5, 1.5;
  return SphereLeastSquares(
      {Eigen::MatrixXd::Identity(2, 2), Eigen::MatrixXd::Identity(2, 2)},
      {c1, c2},
      exact_hessian);
}

// The WC point on the unit circle by brute force over the angle: minimizes
// max_s lambda_s (f_s - r_s) on a fine grid, then by golden section.
inline Eigen::VectorXd BruteForceWcPoint(Evaluator* evaluator,
                                         const Eigen::VectorXd& lambda,
                                         const Eigen::VectorXd& r) {
  auto value = [&](double t) {
    Eigen::VectorXd z(2), f(2), h(1);
    z << std::cos(t), std::sin(t);
    evaluator->Evaluate(z.data(), f.data(), h.data(), nullptr, nullptr);
    return (lambda.array() * (f - r).array()).maxCoeff();
  };
  const int n = 20000;
  double best_t = 0.0;
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    const double t = 2.0 * M_PI * i / n;
    if (value(t) < best) {
      best = value(t);
      best_t = t;
    }
  }
  double lo = best_t - 2.0 * M_PI / n;
  double hi = best_t + 2.0 * M_PI / n;
  const double g = 0.5 * (std::sqrt(5.0) - 1.0);
  for (int i = 0; i < 200; ++i) {
    const double a = hi - g * (hi - lo);
    const double b = lo + g * (hi - lo);
    if (value(a) < value(b)) {
      hi = b;
    } else {
      lo = a;
    }
  }
  Eigen::VectorXd z(2);
  z << std::cos(0.5 * (lo + hi)), std::sin(0.5 * (lo + hi));
  return z;
}

// The random three-objective instance on the unit sphere in R^k of the
// second-order tests: A_s (k + 5 x k) and b_s (k + 5) uniform in [-1, 1]
// (b_s times 3) from std::srand(7).
struct RandomSphereData {
  std::vector<Eigen::MatrixXd> a;
  std::vector<Eigen::VectorXd> b;
};
inline RandomSphereData MakeRandomSphereData(int k) {
  RandomSphereData data;
  std::srand(7);
  for (int s = 0; s < 3; ++s) {
    data.a.push_back(Eigen::MatrixXd::Random(k + 5, k));
    data.b.push_back(Eigen::VectorXd::Random(k + 5) * 3.0);
  }
  return data;
}

// Solves MakeCircle(exact_products) at lambda_1 in {0.05, 0.3, 0.5, 0.8,
// 0.97} with `options` (r = 0 is set here) and expects each point
// CONVERGENCE and within 1e-6 of the brute-force WC point; `check` then
// sees each summary for the strategy's own expectations. The start is on
// the side of the targets: the far side of the circle holds local WC points
// too (between the two farthest points), which a local method may
// legitimately return.
template <typename Check>
void ExpectCircleWcPoints(Solver::Options options,
                          bool exact_products,
                          const std::string& name,
                          const Check& check) {
  options.reference_point = {0.0, 0.0};
  for (double l1 : {0.05, 0.3, 0.5, 0.8, 0.97}) {
    SphereLeastSquares evaluator = MakeCircle(exact_products);
    Eigen::VectorXd z(2);
    z << std::sqrt(0.5), std::sqrt(0.5);
    Solver::Summary summary;
    Solve(options, &evaluator, {l1, 1.0 - l1}, &z, &summary);
    SCOPED_TRACE(name + " lambda1 = " + std::to_string(l1) + ": " +
                 summary.message);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
        << summary.FullReport();
    Eigen::VectorXd lambda(2);
    lambda << l1, 1.0 - l1;
    const Eigen::VectorXd expected =
        BruteForceWcPoint(&evaluator, lambda, Eigen::VectorXd::Zero(2));
    EXPECT_LE((z - expected).norm(), 1e-6)
        << z.transpose() << " vs " << expected.transpose();
    check(summary);
  }
}

}  // namespace testing
}  // namespace ecmo

#endif  // ECMO_TESTS_SPHERE_LEAST_SQUARES_H_
