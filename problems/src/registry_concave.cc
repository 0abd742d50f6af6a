// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// concave_quarter: a least-squares problem whose Pareto front is concave,
// so that weighted sums find only its two ends while the weighted-
// Chebyshev scalarization reaches every point.

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "ceres/autodiff_cost_function.h"
#include "registry_internal.h"

namespace ecmo {
namespace problems {
namespace internal {
namespace {

// f1 = r1^2 with r1 = z2.
struct ConcaveF1 {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = z[1] * z[1];
    return true;
  }
};
// f2 = r2^2 + r3^2 with r2 = z1, r3 = z1 z2.
struct ConcaveF2 {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = z[0] * z[0] + z[0] * z[0] * z[1] * z[1];
    return true;
  }
};
// h = z1^2 + z2^2 - 1.
struct ConcaveCircle {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = z[0] * z[0] + z[1] * z[1] - 1.0;
    return true;
  }
};

// On the circle, u = z2^2 in [0, 1]: f1 = u, f2 = (1 - u)(1 + u) = 1 - u^2.
Eigen::Vector2d ConcaveObjectives(double u) {
  return Eigen::Vector2d(u, 1.0 - u * u);
}

// The WC point for lambda > 0 and offset o: g(u) = lambda1 (u + o1) -
// lambda2 (1 - u^2 + o2) increases on [0, 1], so the WC problem picks its
// root when it lies inside, otherwise the end whose larger weighted
// objective is smaller; u -> z = (sqrt(1 - u), sqrt(u)), the preimage in
// the closed first quadrant (the others are its mirror images).
Eigen::VectorXd ConcaveWcPoint(const Eigen::VectorXd& lambda,
                               const Eigen::VectorXd& offset) {
  auto weighted = [&](double u) {
    const Eigen::Vector2d f = ConcaveObjectives(u);
    return Eigen::Vector2d(lambda[0] * (f[0] + offset[0]),
                           lambda[1] * (f[1] + offset[1]));
  };
  auto g = [&](double u) {
    const Eigen::Vector2d w = weighted(u);
    return w[0] - w[1];
  };
  double u;
  if (g(0.0) >= 0.0) {
    u = 0.0;
  } else if (g(1.0) <= 0.0) {
    u = 1.0;
  } else {
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 200; ++i) {
      const double mid = 0.5 * (lo + hi);
      (g(mid) < 0.0 ? lo : hi) = mid;
    }
    u = 0.5 * (lo + hi);
  }
  return Eigen::Vector2d(std::sqrt(1.0 - u), std::sqrt(u));
}

}  // namespace

ProblemInfo ConcaveQuarter() {
  ProblemInfo info;
  info.name = "concave_quarter";
  info.description =
      "A least-squares problem with a CONCAVE Pareto front: f1 = z2^2 "
      "(residual z2), f2 = z1^2 + z1^2 z2^2 (residuals z1 and z1 z2) "
      "subject to h = z1^2 + z2^2 - 1 = 0. With u = z2^2 on the circle, "
      "f1 = u and f2 = (1 - u)(1 + u) = 1 - u^2, so the front is "
      "f2 = 1 - f1^2, f1 in [0, 1]: every feasible point is Pareto optimal "
      "and the front bulges away from the ideal point (0, 0). A weighted "
      "sum w1 f1 + w2 f2 is concave in u, so its minimizers are the two "
      "ends (0, 1) and (1, 0) only; the weighted-Chebyshev problem reaches "
      "every point. WC point for lambda and offset o: the root u of "
      "lambda1 (u + o1) = lambda2 (1 - u^2 + o2) in [0, 1] (or the nearer "
      "end), z = (sqrt(1 - u), sqrt(u)) (or a mirror image). Exact "
      "hypervolume for R = (a, b) >= (1, 1): a b - 2/3. The objectives "
      "reach 0 at the ends, so the default objective offset is 1 for both. "
      "Start z0 = (0.8, 0.6).";
  info.num_objectives = 2;
  info.num_parameters = 2;
  info.num_constraints = 1;
  info.objective_offset = {1.0, 1.0};
  info.build = [] {
    auto p = MakeInstance({{0.8, 0.6}});
    double* z = p->blocks[0].data();
    p->problem.AddObjective(
        std::make_unique<ceres::AutoDiffCostFunction<ConcaveF1, 1, 2>>(
            new ConcaveF1),
        {z},
        "f1");
    p->problem.AddObjective(
        std::make_unique<ceres::AutoDiffCostFunction<ConcaveF2, 1, 2>>(
            new ConcaveF2),
        {z},
        "f2");
    p->problem.AddConstraint(
        std::make_unique<ceres::AutoDiffCostFunction<ConcaveCircle, 1, 2>>(
            new ConcaveCircle),
        {z},
        "unit_circle");
    return p;
  };
  info.pareto_point = ConcaveWcPoint;
  info.pareto_front = [](int n) {
    Eigen::MatrixXd front(std::max(n, 0), 2);
    for (int i = 0; i < n; ++i) {
      const double u = n == 1 ? 0.0 : i / (n - 1.0);
      front.row(i) = ConcaveObjectives(u).transpose();
    }
    return front;
  };
  info.exact_hypervolume = [](const Eigen::VectorXd& r) {
    if (r.size() != 2 || !r.allFinite() || r[0] < 1.0 || r[1] < 1.0) {
      return std::numeric_limits<double>::quiet_NaN();
    }
    return r[0] * r[1] - 2.0 / 3.0;
  };
  return info;
}

}  // namespace internal
}  // namespace problems
}  // namespace ecmo
