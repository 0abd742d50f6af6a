// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo benchmarks: the sphere-constrained family of scaling_bench.cc
// (gebken_circle lifted to R^k, see there): its cost functions, and whole
// instances (MakeSphereInstance) for inner_solver_bench.cc,
// small_problem_bench.cc and bounds_bench.cc.

#ifndef ECMO_BENCHMARKS_SPHERE_FAMILY_H_
#define ECMO_BENCHMARKS_SPHERE_FAMILY_H_

#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "ceres/cost_function.h"
#include "ecmo/problem.h"

namespace ecmo_bench {

// f = ||z - c||^2 on one block of size k.
class DistanceSq final : public ceres::CostFunction {
 public:
  explicit DistanceSq(Eigen::VectorXd c) : c_(std::move(c)) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(static_cast<int>(c_.size()));
  }
  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    Eigen::Map<const Eigen::VectorXd> z(parameters[0], c_.size());
    residuals[0] = (z - c_).squaredNorm();
    if (jacobians != nullptr && jacobians[0] != nullptr) {
      Eigen::Map<Eigen::VectorXd>(jacobians[0], c_.size()) = 2.0 * (z - c_);
    }
    return true;
  }

 private:
  Eigen::VectorXd c_;
};

// h = ||z||^2 - r2 (r2 = 1: the unit sphere; bounds_bench also uses
// r2 = 4 as the inequality of a ball).
class SphereConstraint final : public ceres::CostFunction {
 public:
  explicit SphereConstraint(int k, double r2 = 1.0) : k_(k), r2_(r2) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(k);
  }
  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    Eigen::Map<const Eigen::VectorXd> z(parameters[0], k_);
    residuals[0] = z.squaredNorm() - r2_;
    if (jacobians != nullptr && jacobians[0] != nullptr) {
      Eigen::Map<Eigen::VectorXd>(jacobians[0], k_) = 2.0 * z;
    }
    return true;
  }

 private:
  int k_;
  double r2_;
};

// The angle t of the WC solution on the gebken arc |t| <= atan(1/2):
// lambda1 (6 - 4 cos t - 2 sin t) = lambda2 (6 - 4 cos t + 2 sin t).
inline double ParetoAngle(double l1) {
  auto g = [&](double t) {
    return l1 * (6.0 - 4.0 * std::cos(t) - 2.0 * std::sin(t)) -
           (1.0 - l1) * (6.0 - 4.0 * std::cos(t) + 2.0 * std::sin(t));
  };
  double lo = -std::atan(0.5), hi = std::atan(0.5);
  if (g(lo) <= 0.0) return lo;
  if (g(hi) >= 0.0) return hi;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (g(mid) > 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// One instance of the family at size k: the orthonormal directions a, b of
// the arc, the parameter block z (started off the arc, at 0.5 a + 0.5 b +
// 0.3 w with w orthogonal to both where k > 2) and the problem over it:
// f1 = ||z - (2a + b)||^2, f2 = ||z - (2a - b)||^2, ||z||^2 = 1.
struct SphereInstance {
  Eigen::VectorXd a, b;
  std::vector<double> z;
  ecmo::Problem problem;
};

inline std::shared_ptr<SphereInstance> MakeSphereInstance(int k) {
  auto instance = std::make_shared<SphereInstance>();
  const double scale = 1.0 / std::sqrt(static_cast<double>(k));
  Eigen::VectorXd& a = instance->a;
  Eigen::VectorXd& b = instance->b;
  a = Eigen::VectorXd::Constant(k, scale);
  b.resize(k);
  Eigen::VectorXd w(k);
  for (int i = 0; i < k; ++i) {
    b[i] = (i % 2 == 0 ? 1.0 : -1.0) * scale;
    w[i] = std::sin(0.37 * i + 0.1);
  }
  b -= a.dot(b) * a;  // zero for even k
  b.normalize();
  w -= a.dot(w) * a + b.dot(w) * b;
  if (w.norm() > 1e-12) w.normalize();  // w = 0 at k = 2
  instance->z.resize(k);
  Eigen::Map<Eigen::VectorXd>(instance->z.data(), k) =
      0.5 * a + 0.5 * b + 0.3 * w;
  double* z = instance->z.data();
  instance->problem.AddObjective(new DistanceSq(2.0 * a + b), {z});
  instance->problem.AddObjective(new DistanceSq(2.0 * a - b), {z});
  instance->problem.AddConstraint(new SphereConstraint(k), {z});
  return instance;
}

}  // namespace ecmo_bench

#endif  // ECMO_BENCHMARKS_SPHERE_FAMILY_H_
