// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Registry problems whose objectives are the coordinates themselves on the
// unit circle / sphere: circle_quarter (S = 2) and sphere_octant (S = 3).
// Their fronts are negative, so they exercise scalarizations whose
// reference point lies below the front, and everything about them (WC point,
// front, hypervolume) is known in closed form.

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "registry_internal.h"

namespace ecmo {
namespace problems {
namespace internal {
namespace {

constexpr double kPi = 3.14159265358979323846;

// f = z[index]: the objective is one coordinate of the single block z.
template <int kSize>
struct Coordinate {
  explicit Coordinate(int index) : index(index) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = z[index];
    return true;
  }
  int index;
};

// h = ||z||^2 - 1.
template <int kSize>
struct UnitSphere {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    T norm_sq = T(0.0);
    for (int i = 0; i < kSize; ++i) norm_sq += z[i] * z[i];
    h[0] = norm_sq - 1.0;
    return true;
  }
};

template <int kSize>
std::unique_ptr<ProblemInstance> BuildSphere(const std::vector<double>& z0) {
  auto p = MakeInstance({z0});
  double* z = p->blocks[0].data();
  for (int s = 0; s < kSize; ++s) {
    p->problem.AddObjective(
        std::make_unique<
            ceres::AutoDiffCostFunction<Coordinate<kSize>, 1, kSize>>(
            new Coordinate<kSize>(s)),
        {z}, "f" + std::to_string(s + 1));
  }
  p->problem.AddConstraint(
      std::make_unique<ceres::AutoDiffCostFunction<UnitSphere<kSize>, 1,
                                                   kSize>>(
          new UnitSphere<kSize>),
      {z}, kSize == 2 ? "unit_circle" : "unit_sphere");
  return p;
}

// The WC point of  min rho  s.t.  lambda_s (z_s + offset_s) <= rho,
// ||z||^2 = 1, for any lambda > 0 and any offset (the registry promises it
// for reference points r = -offset strictly below the ideal (-1, ..., -1),
// i.e. offset_s > 1, where rho > 0).
//
// Derivation. Relax ||z||^2 = 1 to ||z||^2 <= 1: a convex problem. For a
// fixed rho the constraints say z_s <= c_s(rho) = rho / lambda_s - offset_s,
// and the point of smallest norm with z <= c is z_s = min(0, c_s). So rho is
// feasible iff phi(rho) = sum_s min(0, c_s(rho))^2 <= 1. phi is continuous
// and nonincreasing (strictly where it is positive), so the relaxed optimum
// is the root rho* of phi(rho) = 1 and z* = min(0, c(rho*)) has norm exactly
// 1: it is feasible for the sphere too, hence optimal for the original
// problem, and unique (the projection of 0 onto the convex set {z <= c} is
// unique). Objectives whose Chebyshev term is inactive (c_s > 0) sit on the
// octant's boundary z_s = 0.
//
// KKT check (ecmo/kkt.h convention, Lagrangian rho + sum_s omega_s
// (lambda_s (z_s + offset_s) - rho) + nu (||z||^2 - 1)): stationarity in z
// reads omega_s lambda_s + 2 nu z_s = 0. With A = {s : c_s(rho*) < 0}, take
// nu = 1 / (2 sum_{s in A} (-z_s) / lambda_s) > 0, omega_s =
// -2 nu z_s / lambda_s > 0 on A and omega_s = 0 (with z_s = 0) off A: then
// sum_s omega_s = 1, the inequalities on A are active and those off A hold
// because c_s >= 0 means lambda_s offset_s <= rho*. So (rho*, z*) is a KKT
// point with omega >= 0, as the tests confirm numerically.
Eigen::VectorXd SphereWcPoint(const Eigen::VectorXd& lambda,
                              const Eigen::VectorXd& offset) {
  const int n = static_cast<int>(lambda.size());
  auto point = [&](double rho) {
    Eigen::VectorXd z(n);
    for (int s = 0; s < n; ++s) {
      z[s] = std::min(0.0, rho / lambda[s] - offset[s]);
    }
    return z;
  };
  // Bracket: at lo every c_s <= -1, so phi(lo) >= S >= 1; at hi every
  // c_s >= 0, so phi(hi) = 0.
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  for (int s = 0; s < n; ++s) {
    lo = std::min(lo, lambda[s] * (offset[s] - 1.0));
    hi = std::max(hi, lambda[s] * offset[s]);
  }
  // Bisection to full double precision: stop when no double lies strictly
  // between lo and hi (at most about 2100 halvings from any bracket).
  for (int i = 0; i < 4000; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (!(mid > lo && mid < hi)) break;
    (point(mid).squaredNorm() >= 1.0 ? lo : hi) = mid;
  }
  const double rho =
      std::abs(point(lo).squaredNorm() - 1.0) <=
              std::abs(point(hi).squaredNorm() - 1.0)
          ? lo
          : hi;
  // Renormalizing removes the last rounding from h(z) = 0 and moves the
  // active Chebyshev terms by an ulp at most.
  const Eigen::VectorXd z = point(rho);
  return z / z.norm();
}

// Exact hypervolume of the front {z <= 0, ||z|| = 1} (S objectives) for the
// reference point R >= 0 (see registry.h). A point y <= R is dominated by
// the front iff ||min(y, 0)|| <= 1. So the dominated region is the box
// [-1, R] minus, for every set T of at least two coordinates, the points
// with y_T in [-1, 0)^T outside the unit ball and y_s in [0, R_s] for s not
// in T (one coordinate alone never leaves the ball: |y_s| <= 1). The first
// factor has volume 1 - V_|T|, V_m = pi^(m/2) / Gamma(m/2 + 1) / 2^m the
// volume of the unit ball's orthant in m dimensions (V_2 = pi/4,
// V_3 = pi/6). NaN for a reference point of the wrong size or not >= 0.
double SphereFrontHypervolume(int num_objectives, const Eigen::VectorXd& r) {
  if (r.size() != num_objectives || !r.allFinite() || r.minCoeff() < 0.0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  double volume = (r.array() + 1.0).prod();
  for (unsigned mask = 0; mask < (1u << num_objectives); ++mask) {
    int m = 0;
    double extrusion = 1.0;
    for (int s = 0; s < num_objectives; ++s) {
      if (mask & (1u << s)) {
        ++m;
      } else {
        extrusion *= r[s];
      }
    }
    if (m < 2) continue;
    const double orthant_ball = std::pow(kPi, 0.5 * m) /
                                std::tgamma(0.5 * m + 1.0) / std::ldexp(1.0, m);
    volume -= (1.0 - orthant_ball) * extrusion;
  }
  return volume;
}

}  // namespace

// ----------------------------------------------------------- circle_quarter
ProblemInfo CircleQuarter() {
  ProblemInfo info;
  info.name = "circle_quarter";
  info.description =
      "f1 = z1, f2 = z2 subject to h = z1^2 + z2^2 - 1 = 0. The Pareto front "
      "is the quarter circle (-cos t, -sin t), t in [0, pi/2]; the "
      "objectives are NEGATIVE on it (ideal (-1, -1), nadir (0, 0)), so it "
      "exercises scalarizations with a reference point below the front. The "
      "WC point for lambda > 0 and offset o (reference point -o below the "
      "ideal) is z_s = min(0, rho/lambda_s - o_s), with rho the root of "
      "sum_s min(0, rho/lambda_s - o_s)^2 = 1. Exact hypervolume for R = "
      "(a, b) >= 0: (a+1)(b+1) - (1 - pi/4). The default objective offset "
      "is 2 for both objectives, which makes them >= 1 on the feasible set "
      "(the solver needs positive shifted objectives). Start z0 = (0.6, "
      "-0.8), outside the quadrant z >= 0, where max_s lambda_s (z_s + 2) "
      "has a second, non-Pareto local minimum on the circle.";
  info.num_objectives = 2;
  info.num_parameters = 2;
  info.num_constraints = 1;
  info.objective_offset = {2.0, 2.0};
  info.build = [] { return BuildSphere<2>({0.6, -0.8}); };
  info.pareto_point = SphereWcPoint;
  info.pareto_front = [](int n) {
    Eigen::MatrixXd front(std::max(n, 0), 2);
    for (int i = 0; i < n; ++i) {
      const double t = n == 1 ? 0.0 : 0.5 * kPi * i / (n - 1.0);
      front(i, 0) = -std::cos(t);
      front(i, 1) = -std::sin(t);
    }
    return front;
  };
  info.exact_hypervolume = [](const Eigen::VectorXd& r) {
    return SphereFrontHypervolume(2, r);
  };
  return info;
}

// ------------------------------------------------------------ sphere_octant
ProblemInfo SphereOctant() {
  ProblemInfo info;
  info.name = "sphere_octant";
  info.description =
      "f_s = z_s (s = 1..3) subject to h = ||z||^2 - 1 = 0. The Pareto front "
      "is the negative octant of the unit sphere; the objectives are "
      "NEGATIVE on it (ideal (-1, -1, -1), nadir (0, 0, 0)). The WC point for "
      "lambda > 0 and offset o (reference point -o below the ideal) is "
      "z_s = min(0, rho/lambda_s - o_s), with rho the root of "
      "sum_s min(0, rho/lambda_s - o_s)^2 = 1. Exact hypervolume for R = "
      "(a, b, c) >= 0: (a+1)(b+1)(c+1) - (1 - pi/6) - (1 - pi/4)(a + b + c). "
      "The default objective offset is 2 for every objective, which makes "
      "them >= 1 on the feasible set (the solver needs positive shifted "
      "objectives). Start z0 = (0.48, -0.6, -0.64), outside the octant "
      "z >= 0, where max_s lambda_s (z_s + 2) has a non-Pareto local minimum "
      "on the sphere.";
  info.num_objectives = 3;
  info.num_parameters = 3;
  info.num_constraints = 1;
  info.objective_offset = {2.0, 2.0, 2.0};
  info.build = [] { return BuildSphere<3>({0.48, -0.6, -0.64}); };
  info.pareto_point = SphereWcPoint;
  // An area-uniform golden-angle spiral over the octant: by Archimedes'
  // hat-box theorem, height -z3 uniform in (0, 1) is area-uniform, and the
  // azimuth advances by the golden ratio's fractional part of the quarter
  // turn, so any n gives an even spread (no corners or edges repeated).
  info.pareto_front = [](int n) {
    Eigen::MatrixXd front(std::max(n, 0), 3);
    const double golden = 0.5 * (std::sqrt(5.0) - 1.0);
    for (int i = 0; i < n; ++i) {
      const double height = (i + 0.5) / n;
      const double radius = std::sqrt(1.0 - height * height);
      const double phi = 0.5 * kPi * std::fmod(i * golden, 1.0);
      front(i, 0) = -radius * std::cos(phi);
      front(i, 1) = -radius * std::sin(phi);
      front(i, 2) = -height;
    }
    return front;
  };
  info.exact_hypervolume = [](const Eigen::VectorXd& r) {
    return SphereFrontHypervolume(3, r);
  };
  return info;
}

}  // namespace internal
}  // namespace problems
}  // namespace ecmo
