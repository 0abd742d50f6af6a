// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Textbook problems with bounds and inequality constraints and known WC
// points (issue 14): three single-objective problems in the style of Hock
// and Schittkowski, and five multi-objective ones (S = 2 and 3) whose
// weighted-Chebyshev point is given in closed form or by a 1-D root find on
// a monotone function, for every preference.
//
// Every multi-objective entry here is convex (convex objectives, convex
// feasible set near the front), so its Pareto set is traced by one
// parameter t along which f_1 increases and f_2 decreases (for S = 2), and
// the WC point for lambda and offset o is the root of
//   g(t) = lambda_1 (f_1(t) + o_1) - lambda_2 (f_2(t) + o_2),
// which increases in t, or the end of the Pareto set nearer to it when g
// has no root there (then only one objective is active).

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "ceres/autodiff_cost_function.h"
#include "registry_internal.h"

namespace ecmo {
namespace problems {
namespace internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The root of an increasing g on [lo, hi], or the end where g has the sign
// that puts the root beyond it.
double IncreasingRoot(const std::function<double(double)>& g,
                      double lo,
                      double hi) {
  if (g(lo) >= 0.0) return lo;
  if (g(hi) <= 0.0) return hi;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (g(mid) < 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// The WC point of a bi-objective problem whose Pareto set is z(t),
// t in [lo, hi], with objectives F(z) (see the top of this file).
Eigen::VectorXd BiObjectiveWcPoint(
    const std::function<Eigen::VectorXd(double)>& path,
    const std::function<Eigen::Vector2d(const Eigen::VectorXd&)>& objectives,
    double lo,
    double hi,
    const Eigen::VectorXd& lambda,
    const Eigen::VectorXd& offset) {
  auto g = [&](double t) {
    const Eigen::Vector2d f = objectives(path(t));
    return lambda[0] * (f[0] + offset[0]) - lambda[1] * (f[1] + offset[1]);
  };
  return path(IncreasingRoot(g, lo, hi));
}

// n points of the front of a path-traced bi-objective problem.
Eigen::MatrixXd BiObjectiveFront(
    const std::function<Eigen::VectorXd(double)>& path,
    const std::function<Eigen::Vector2d(const Eigen::VectorXd&)>& objectives,
    double lo,
    double hi,
    int n) {
  Eigen::MatrixXd front(std::max(n, 0), 2);
  for (int i = 0; i < n; ++i) {
    const double t = n == 1 ? lo : lo + (hi - lo) * i / (n - 1.0);
    front.row(i) = objectives(path(t)).transpose();
  }
  return front;
}

// The single value of a single-objective problem's front, n times.
Eigen::MatrixXd ConstantFront(double value, int n) {
  return Eigen::MatrixXd::Constant(std::max(n, 0), 1, value);
}

// Hypervolume of a single-objective front {v} for R >= v.
double SingleObjectiveHypervolume(double value, const Eigen::VectorXd& r) {
  if (r.size() != 1 || !std::isfinite(r[0]) || r[0] < value) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return r[0] - value;
}

// ---- Cost functors -------------------------------------------------------

// f = sum_i (z_i - a_i)^2 over one block of size N.
template <int N>
struct SquaredDistance {
  explicit SquaredDistance(const double* a) { std::copy(a, a + N, center); }
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = T(0.0);
    for (int i = 0; i < N; ++i) f[0] += (z[i] - center[i]) * (z[i] - center[i]);
    return true;
  }
  double center[N];
};

// f = sum_i (x_i - a_i)^2 + sum_j (y_j - b_j)^2 over two blocks.
template <int N, int M>
struct SquaredDistance2 {
  SquaredDistance2(const double* a, const double* b) {
    std::copy(a, a + N, ca);
    std::copy(b, b + M, cb);
  }
  template <typename T>
  bool operator()(const T* x, const T* y, T* f) const {
    f[0] = T(0.0);
    for (int i = 0; i < N; ++i) f[0] += (x[i] - ca[i]) * (x[i] - ca[i]);
    for (int j = 0; j < M; ++j) f[0] += (y[j] - cb[j]) * (y[j] - cb[j]);
    return true;
  }
  double ca[N];
  double cb[M];
};

// c = a^T z + b (one residual) over one block of size N; also used for
// affine equalities.
template <int N>
struct Affine {
  Affine(const double* a, double b) : offset(b) { std::copy(a, a + N, coef); }
  template <typename T>
  bool operator()(const T* z, T* c) const {
    c[0] = T(offset);
    for (int i = 0; i < N; ++i) c[0] += coef[i] * z[i];
    return true;
  }
  double coef[N];
  double offset;
};

// c = ||z - a||^2 - r^2 over a block of size 2 (outside a disk when
// sign = -1: r^2 - ||z - a||^2).
struct Disk {
  Disk(double a0, double a1, double r2, double sign)
      : a0(a0), a1(a1), r2(r2), sign(sign) {}
  template <typename T>
  bool operator()(const T* z, T* c) const {
    c[0] = sign * ((z[0] - a0) * (z[0] - a0) + (z[1] - a1) * (z[1] - a1) - r2);
    return true;
  }
  double a0, a1, r2, sign;
};

template <int N>
ceres::CostFunction* Distance(std::initializer_list<double> a) {
  return new ceres::AutoDiffCostFunction<SquaredDistance<N>, 1, N>(
      new SquaredDistance<N>(a.begin()));
}
template <int N>
ceres::CostFunction* AffineFunction(std::initializer_list<double> a, double b) {
  return new ceres::AutoDiffCostFunction<Affine<N>, 1, N>(
      new Affine<N>(a.begin(), b));
}
ceres::CostFunction* DiskFunction(double a0,
                                  double a1,
                                  double r2,
                                  double sign) {
  return new ceres::AutoDiffCostFunction<Disk, 1, 2>(
      new Disk(a0, a1, r2, sign));
}

// hs_mixed_blocks: h = x1 + x2 + x3 - 3 over a = (x1, x2), b = (x3, x4).
struct MixedPlane {
  template <typename T>
  bool operator()(const T* a, const T* b, T* h) const {
    h[0] = a[0] + a[1] + b[0] - 3.0;
    return true;
  }
};

// ---- bnh (Binh and Korn) -------------------------------------------------

struct BnhF1 {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = 4.0 * z[0] * z[0] + 4.0 * z[1] * z[1];
    return true;
  }
};

Eigen::Vector2d BnhObjectives(const Eigen::VectorXd& z) {
  return Eigen::Vector2d(
      4.0 * z[0] * z[0] + 4.0 * z[1] * z[1],
      (z[0] - 5.0) * (z[0] - 5.0) + (z[1] - 5.0) * (z[1] - 5.0));
}
Eigen::VectorXd BnhPath(double t) {
  return Eigen::Vector2d(t, std::min(t, 3.0));
}

// ---- disk_biobjective ----------------------------------------------------

Eigen::Vector2d DiskObjectives(const Eigen::VectorXd& z) {
  return Eigen::Vector2d(
      z[0] * z[0] + (z[1] - 0.5) * (z[1] - 0.5),
      (z[0] - 2.0) * (z[0] - 2.0) + (z[1] - 0.5) * (z[1] - 0.5));
}
// The projection of (t, 1/2) onto the unit disk.
Eigen::VectorXd DiskPath(double t) {
  Eigen::Vector2d p(t, 0.5);
  const double norm = p.norm();
  if (norm > 1.0) p /= norm;
  return p;
}

// ---- bounded_segment -----------------------------------------------------

Eigen::Vector2d SegmentObjectives(const Eigen::VectorXd& z) {
  return Eigen::Vector2d(z.squaredNorm(),
                         (z - Eigen::Vector2d(2.0, 2.0)).squaredNorm());
}
Eigen::VectorXd SegmentPath(double t) {
  return Eigen::Vector2d(std::min(t, 1.0), t);
}

// ---- mixed_biobjective ---------------------------------------------------

Eigen::Vector2d MixedObjectives(const Eigen::VectorXd& z) {
  return Eigen::Vector2d(z.squaredNorm(),
                         (z - Eigen::Vector3d(2.0, 2.0, 2.0)).squaredNorm());
}
// The projection of (t, t, t) onto {x1 - x2 = 1, x2 >= -1/4} x {y <= 1.2}.
Eigen::VectorXd MixedPath(double t) {
  return Eigen::Vector3d(
      std::max(t + 0.5, 0.75), std::max(t - 0.5, -0.25), std::min(t, 1.2));
}

// ---- simplex_tri_objective -----------------------------------------------

// f = (z_i - 1)^2 for one component i of a block of size 3.
struct ComponentDistance {
  explicit ComponentDistance(int i) : i(i) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[i] - 1.0) * (z[i] - 1.0);
    return true;
  }
  int i;
};

// x_s = max(0, 1 - sqrt(rho / lambda_s - o_s)): the smallest x_s >= 0 with
// lambda_s ((x_s - 1)^2 + o_s) <= rho (x_s <= 1); +inf when none exists.
double SimplexComponent(double rho, double lambda, double offset) {
  const double slack = rho / lambda - offset;
  if (slack < 0.0) return kInf;
  return std::max(0.0, 1.0 - std::sqrt(slack));
}

Eigen::VectorXd SimplexWcPoint(const Eigen::VectorXd& lambda,
                               const Eigen::VectorXd& offset) {
  // sum_s x_s(rho) decreases in rho; the WC rho is where it reaches 1.
  double lo = 0.0, hi = 0.0;
  for (int s = 0; s < 3; ++s) {
    lo = std::max(lo, lambda[s] * offset[s]);
    hi = std::max(hi, lambda[s] * (1.0 + offset[s]));
  }
  auto g = [&](double rho) {
    double sum = 0.0;
    for (int s = 0; s < 3; ++s) {
      sum += SimplexComponent(rho, lambda[s], offset[s]);
    }
    return 1.0 - sum;
  };
  const double rho = IncreasingRoot(g, lo, hi);
  Eigen::VectorXd z(3);
  for (int s = 0; s < 3; ++s) {
    z[s] = std::min(1.0, SimplexComponent(rho, lambda[s], offset[s]));
  }
  return z;
}

}  // namespace

ProblemInfo HsBoxQuadratic() {
  ProblemInfo info;
  info.name = "hs_box_quadratic";
  info.description =
      "Single objective with bounds (Hock-Schittkowski style): f = (x1 - 2)^2 "
      "+ (x2 - 1)^2 subject to 0 <= x1 <= 1 and 0 <= x2 <= 3. Optimum "
      "x = (1, 1), f = 1: the upper bound of x1 is active with multiplier "
      "z_U1 = -df/dx1 = 2 (lambda = 1), the other three bounds are inactive "
      "(multipliers 0). Start (0.5, 0.5); offset 0.";
  info.num_objectives = 1;
  info.num_parameters = 2;
  info.objective_offset = {0.0};
  info.build = [] {
    auto p = MakeInstance({{0.5, 0.5}});
    double* x = p->blocks[0].data();
    p->problem.AddObjective(Distance<2>({2.0, 1.0}), {x}, "f");
    p->problem.SetParameterLowerBound(x, 0, 0.0);
    p->problem.SetParameterUpperBound(x, 0, 1.0);
    p->problem.SetParameterLowerBound(x, 1, 0.0);
    p->problem.SetParameterUpperBound(x, 1, 3.0);
    return p;
  };
  info.pareto_point = [](const Eigen::VectorXd&, const Eigen::VectorXd&) {
    return Eigen::VectorXd(Eigen::Vector2d(1.0, 1.0));
  };
  info.pareto_front = [](int n) { return ConstantFront(1.0, n); };
  info.exact_hypervolume = [](const Eigen::VectorXd& r) {
    return SingleObjectiveHypervolume(1.0, r);
  };
  return info;
}

ProblemInfo HsDiskLinear() {
  ProblemInfo info;
  info.name = "hs_disk_linear";
  info.description =
      "Single objective with inequalities (Hock-Schittkowski style): "
      "f = x1 + x2 subject to c1 = x1^2 + x2^2 - 2 <= 0 and c2 = x1 - x2 - 3 "
      "<= 0. Optimum x = (-1, -1), f = -2: c1 is active with multiplier "
      "mu1 = 1/2 (grad f + mu1 grad c1 = (1, 1) + mu1 (-2, -2) = 0), c2 is "
      "inactive (c2 = -3, mu2 = 0). Start (0.5, 0.5); offset 3 (f + 3 >= "
      "1 on the disk).";
  info.num_objectives = 1;
  info.num_parameters = 2;
  info.num_inequality_constraints = 2;
  info.objective_offset = {3.0};
  info.build = [] {
    auto p = MakeInstance({{0.5, 0.5}});
    double* x = p->blocks[0].data();
    p->problem.AddObjective(AffineFunction<2>({1.0, 1.0}, 0.0), {x}, "f");
    p->problem.AddInequalityConstraint(
        DiskFunction(0.0, 0.0, 2.0, 1.0), {x}, "disk");
    p->problem.AddInequalityConstraint(
        AffineFunction<2>({1.0, -1.0}, -3.0), {x}, "half_plane");
    return p;
  };
  info.pareto_point = [](const Eigen::VectorXd&, const Eigen::VectorXd&) {
    return Eigen::VectorXd(Eigen::Vector2d(-1.0, -1.0));
  };
  info.pareto_front = [](int n) { return ConstantFront(-2.0, n); };
  info.exact_hypervolume = [](const Eigen::VectorXd& r) {
    return SingleObjectiveHypervolume(-2.0, r);
  };
  return info;
}

ProblemInfo HsMixedBlocks() {
  ProblemInfo info;
  info.name = "hs_mixed_blocks";
  info.description =
      "Single objective mixing an equality, an inequality and bounds over two "
      "parameter blocks a = (x1, x2) and b = (x3, x4), only a bounded: "
      "f = (x1 - 1)^2 + (x2 - 2)^2 + (x3 - 3)^2 + (x4 - 1)^2 subject to "
      "h = x1 + x2 + x3 - 3 = 0, c = x3 - 3/2 <= 0, x1 >= 1/2, x2 <= 5. "
      "Optimum x = (1/2, 1, 3/2, 1), f = 7/2, with nu = 2 (h), mu = 1 (c, "
      "active), z_L1 = 1 (x1 >= 1/2, active) and 0 for the inactive x2 <= 5 "
      "(grad f = (-1, -2, -3, 0); grad f + nu (1, 1, 1, 0) + mu (0, 0, 1, 0) "
      "- z_L1 e1 = 0). Start a = (1, 1), b = (1, 0); offset 0.";
  info.num_objectives = 1;
  info.num_parameters = 4;
  info.num_constraints = 1;
  info.num_inequality_constraints = 1;
  info.objective_offset = {0.0};
  info.build = [] {
    auto p = MakeInstance({{1.0, 1.0}, {1.0, 0.0}});
    double* a = p->blocks[0].data();
    double* b = p->blocks[1].data();
    const double ca[2] = {1.0, 2.0}, cb[2] = {3.0, 1.0};
    p->problem.AddObjective(
        new ceres::AutoDiffCostFunction<SquaredDistance2<2, 2>, 1, 2, 2>(
            new SquaredDistance2<2, 2>(ca, cb)),
        {a, b},
        "f");
    p->problem.AddConstraint(
        new ceres::AutoDiffCostFunction<MixedPlane, 1, 2, 2>(new MixedPlane),
        {a, b},
        "plane");
    p->problem.AddInequalityConstraint(
        AffineFunction<2>({1.0, 0.0}, -1.5), {b}, "x3_cap");
    p->problem.SetParameterLowerBound(a, 0, 0.5);
    p->problem.SetParameterUpperBound(a, 1, 5.0);
    return p;
  };
  info.pareto_point = [](const Eigen::VectorXd&, const Eigen::VectorXd&) {
    return Eigen::VectorXd(Eigen::Vector4d(0.5, 1.0, 1.5, 1.0));
  };
  info.pareto_front = [](int n) { return ConstantFront(3.5, n); };
  info.exact_hypervolume = [](const Eigen::VectorXd& r) {
    return SingleObjectiveHypervolume(3.5, r);
  };
  return info;
}

ProblemInfo Bnh() {
  ProblemInfo info;
  info.name = "bnh";
  info.description =
      "Binh and Korn's BNH: f1 = 4 x1^2 + 4 x2^2, f2 = (x1 - 5)^2 + "
      "(x2 - 5)^2 subject to c1 = (x1 - 5)^2 + x2^2 - 25 <= 0, c2 = 7.7 - "
      "(x1 - 8)^2 - (x2 + 3)^2 <= 0, 0 <= x1 <= 5, 0 <= x2 <= 3. The "
      "Pareto set is x = (t, t) for t in [0, 3], then x = (t, 3) for t in "
      "[3, 5]: the bound x2 <= 3 becomes active on the second part (z_U2 = "
      "-24 omega1 lambda1 + 4 omega2 lambda2 > 0 for t > 3), c1 and c2 are "
      "inactive on the whole front. f1 increases and f2 decreases along it, "
      "so the WC point for lambda and offset o is the root t of lambda1 "
      "(f1 + o1) = lambda2 (f2 + o2) (or an end). f1 vanishes at (0, 0), so "
      "the default offset is (1, 1). Start (1, 1).";
  info.num_objectives = 2;
  info.num_parameters = 2;
  info.num_inequality_constraints = 2;
  info.objective_offset = {1.0, 1.0};
  info.build = [] {
    auto p = MakeInstance({{1.0, 1.0}});
    double* x = p->blocks[0].data();
    p->problem.AddObjective(
        new ceres::AutoDiffCostFunction<BnhF1, 1, 2>(new BnhF1), {x}, "f1");
    p->problem.AddObjective(Distance<2>({5.0, 5.0}), {x}, "f2");
    p->problem.AddInequalityConstraint(
        DiskFunction(5.0, 0.0, 25.0, 1.0), {x}, "c1");
    p->problem.AddInequalityConstraint(
        DiskFunction(8.0, -3.0, 7.7, -1.0), {x}, "c2");
    p->problem.SetParameterLowerBound(x, 0, 0.0);
    p->problem.SetParameterUpperBound(x, 0, 5.0);
    p->problem.SetParameterLowerBound(x, 1, 0.0);
    p->problem.SetParameterUpperBound(x, 1, 3.0);
    return p;
  };
  info.pareto_point = [](const Eigen::VectorXd& lambda,
                         const Eigen::VectorXd& offset) {
    return BiObjectiveWcPoint(BnhPath, BnhObjectives, 0.0, 5.0, lambda, offset);
  };
  info.pareto_front = [](int n) {
    return BiObjectiveFront(BnhPath, BnhObjectives, 0.0, 5.0, n);
  };
  return info;
}

ProblemInfo DiskBiobjective() {
  ProblemInfo info;
  info.name = "disk_biobjective";
  info.description =
      "Two squared distances in the unit disk, the inequality active on part "
      "of the front: f1 = x1^2 + (x2 - 1/2)^2, f2 = (x1 - 2)^2 + (x2 - "
      "1/2)^2 subject to c = x1^2 + x2^2 - 1 <= 0. The Pareto set is the "
      "projection onto the disk of the segment (t, 1/2), t in [0, 2]: inside "
      "the disk for t <= sqrt(3)/2 (c inactive, mu = 0), then the arc from "
      "(sqrt(3)/2, 1/2) to (2, 1/2)/sqrt(4.25) (c active, mu > 0). f1 "
      "increases and f2 decreases with t, so the WC point is the root t of "
      "lambda1 (f1 + o1) = lambda2 (f2 + o2) (or an end). f1 vanishes at "
      "(0, 1/2): default offset (0.1, 0.1). Start (0, 0).";
  info.num_objectives = 2;
  info.num_parameters = 2;
  info.num_inequality_constraints = 1;
  info.objective_offset = {0.1, 0.1};
  info.build = [] {
    auto p = MakeInstance({{0.0, 0.0}});
    double* x = p->blocks[0].data();
    p->problem.AddObjective(Distance<2>({0.0, 0.5}), {x}, "f1");
    p->problem.AddObjective(Distance<2>({2.0, 0.5}), {x}, "f2");
    p->problem.AddInequalityConstraint(
        DiskFunction(0.0, 0.0, 1.0, 1.0), {x}, "unit_disk");
    return p;
  };
  info.pareto_point = [](const Eigen::VectorXd& lambda,
                         const Eigen::VectorXd& offset) {
    return BiObjectiveWcPoint(
        DiskPath, DiskObjectives, 0.0, 2.0, lambda, offset);
  };
  info.pareto_front = [](int n) {
    return BiObjectiveFront(DiskPath, DiskObjectives, 0.0, 2.0, n);
  };
  return info;
}

ProblemInfo BoundedSegment() {
  ProblemInfo info;
  info.name = "bounded_segment";
  info.description =
      "Two squared distances with bounds only, one of them active on part of "
      "the front: f1 = x1^2 + x2^2, f2 = (x1 - 2)^2 + (x2 - 2)^2 subject to "
      "x1 <= 1, -1 <= x2 <= 3. The Pareto set is (t, t) for t in [0, 1], "
      "then (1, t) for t in [1, 2], where x1 <= 1 is active (z_U1 = "
      "2 omega2 lambda2 (2t - 2) / t); the bounds of x2 are never active. "
      "The WC point is the root t of lambda1 (f1 + o1) = lambda2 (f2 + o2) "
      "(or an end). f1 vanishes at the origin: default offset (0.1, 0.1). "
      "Start (0.5, 0). Small enough for the faithful projected gradient.";
  info.num_objectives = 2;
  info.num_parameters = 2;
  info.objective_offset = {0.1, 0.1};
  info.build = [] {
    auto p = MakeInstance({{0.5, 0.0}});
    double* x = p->blocks[0].data();
    p->problem.AddObjective(Distance<2>({0.0, 0.0}), {x}, "f1");
    p->problem.AddObjective(Distance<2>({2.0, 2.0}), {x}, "f2");
    p->problem.SetParameterUpperBound(x, 0, 1.0);
    p->problem.SetParameterLowerBound(x, 1, -1.0);
    p->problem.SetParameterUpperBound(x, 1, 3.0);
    return p;
  };
  info.pareto_point = [](const Eigen::VectorXd& lambda,
                         const Eigen::VectorXd& offset) {
    return BiObjectiveWcPoint(
        SegmentPath, SegmentObjectives, 0.0, 2.0, lambda, offset);
  };
  info.pareto_front = [](int n) {
    return BiObjectiveFront(SegmentPath, SegmentObjectives, 0.0, 2.0, n);
  };
  return info;
}

ProblemInfo MixedBiobjective() {
  ProblemInfo info;
  info.name = "mixed_biobjective";
  info.description =
      "Two squared distances with an equality, an inequality and bounds over "
      "two blocks x = (x1, x2) and y = (y1), only x bounded: f1 = ||z||^2, "
      "f2 = ||z - (2, 2, 2)||^2 with z = (x1, x2, y1), subject to h = x1 - x2 "
      "- 1 = 0, c = y1 - 1.2 <= 0, x2 >= -1/4, x1 <= 10. The Pareto set is "
      "the projection of (t, t, t), t in [0, 2], onto the feasible set: "
      "z(t) = (max(t + 1/2, 3/4), max(t - 1/2, -1/4), min(t, 1.2)); the "
      "bound x2 >= -1/4 is active for t < 1/4, the inequality for t > 1.2, "
      "x1 <= 10 never. The WC point is the root t of lambda1 (f1 + o1) = "
      "lambda2 (f2 + o2) (or an end). Both objectives are >= 0.625 on the "
      "feasible set: default offset 0. Start x = (1, 0), y = 0.";
  info.num_objectives = 2;
  info.num_parameters = 3;
  info.num_constraints = 1;
  info.num_inequality_constraints = 1;
  info.objective_offset = {0.0, 0.0};
  info.build = [] {
    auto p = MakeInstance({{1.0, 0.0}, {0.0}});
    double* x = p->blocks[0].data();
    double* y = p->blocks[1].data();
    const double zero[2] = {0.0, 0.0}, two[2] = {2.0, 2.0};
    const double y0[1] = {0.0}, y2[1] = {2.0};
    p->problem.AddObjective(
        new ceres::AutoDiffCostFunction<SquaredDistance2<2, 1>, 1, 2, 1>(
            new SquaredDistance2<2, 1>(zero, y0)),
        {x, y},
        "f1");
    p->problem.AddObjective(
        new ceres::AutoDiffCostFunction<SquaredDistance2<2, 1>, 1, 2, 1>(
            new SquaredDistance2<2, 1>(two, y2)),
        {x, y},
        "f2");
    p->problem.AddConstraint(AffineFunction<2>({1.0, -1.0}, -1.0), {x}, "h");
    p->problem.AddInequalityConstraint(
        AffineFunction<1>({1.0}, -1.2), {y}, "y_cap");
    p->problem.SetParameterLowerBound(x, 1, -0.25);
    p->problem.SetParameterUpperBound(x, 0, 10.0);
    return p;
  };
  info.pareto_point = [](const Eigen::VectorXd& lambda,
                         const Eigen::VectorXd& offset) {
    return BiObjectiveWcPoint(
        MixedPath, MixedObjectives, 0.0, 2.0, lambda, offset);
  };
  info.pareto_front = [](int n) {
    return BiObjectiveFront(MixedPath, MixedObjectives, 0.0, 2.0, n);
  };
  return info;
}

ProblemInfo SimplexTriObjective() {
  ProblemInfo info;
  info.name = "simplex_tri_objective";
  info.description =
      "Three objectives on the simplex, bounds active on part of the front: "
      "f_s = (x_s - 1)^2 (s = 1, 2, 3) subject to c = x1 + x2 + x3 - 1 <= 0 "
      "and x >= 0. The Pareto set is the face {x >= 0, sum x = 1} (c always "
      "active). The WC point for lambda and offset o: x_s(rho) = max(0, 1 - "
      "sqrt(rho / lambda_s - o_s)), with rho the root of sum_s x_s(rho) = 1 "
      "(decreasing in rho). A component at its bound 0 belongs to an "
      "inactive objective (lambda_s (1 + o_s) < rho) and z_L,s = mu; the "
      "active ones have omega_s = mu / (2 lambda_s (1 - x_s)), so mu = 1 / "
      "sum_active 1 / (2 lambda_s (1 - x_s)). f_s vanishes at the vertex "
      "e_s: default offset (0.1, 0.1, 0.1). Start (0.2, 0.2, 0.2). "
      "pareto_front(n) samples the face on a triangular grid of at most n "
      "points.";
  info.num_objectives = 3;
  info.num_parameters = 3;
  info.num_inequality_constraints = 1;
  info.objective_offset = {0.1, 0.1, 0.1};
  info.build = [] {
    auto p = MakeInstance({{0.2, 0.2, 0.2}});
    double* x = p->blocks[0].data();
    for (int s = 0; s < 3; ++s) {
      p->problem.AddObjective(
          new ceres::AutoDiffCostFunction<ComponentDistance, 1, 3>(
              new ComponentDistance(s)),
          {x},
          "f" + std::to_string(s + 1));
    }
    p->problem.AddInequalityConstraint(
        AffineFunction<3>({1.0, 1.0, 1.0}, -1.0), {x}, "simplex");
    for (int s = 0; s < 3; ++s) p->problem.SetParameterLowerBound(x, s, 0.0);
    return p;
  };
  info.pareto_point = SimplexWcPoint;
  info.pareto_front = [](int n) {
    int m = 0;
    while ((m + 2) * (m + 3) / 2 <= n) ++m;
    Eigen::MatrixXd front((m + 1) * (m + 2) / 2, 3);
    int row = 0;
    for (int i = 0; i <= m; ++i) {
      for (int j = 0; i + j <= m; ++j) {
        const double x1 = m == 0 ? 1.0 : double(i) / m;
        const double x2 = m == 0 ? 0.0 : double(j) / m;
        const double x3 = 1.0 - x1 - x2;
        front.row(row++) << (x1 - 1) * (x1 - 1), (x2 - 1) * (x2 - 1),
            (x3 - 1) * (x3 - 1);
      }
    }
    return front;
  };
  return info;
}

}  // namespace internal
}  // namespace problems
}  // namespace ecmo
