// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Tests of the Gauss-Newton structure of ecmo::CeresProblemAdapter
// (CeresProblemAdapter::GaussNewtonMatrix, see "Gauss-Newton structure" in
// adapters/include/ecmo/ceres_problem_adapter.h), against independent
// references:
//   - ceres::Problem::Evaluate's Jacobians (loss-corrected by Ceres itself
//     for objectives, raw for constraints, in tangent coordinates):
//     G = sum_s a_s J_s^T J_s + c J_h^T J_h, compared through products with
//     random vectors and entry by entry;
//   - for linear residuals without loss, the exact Hessian of
//     sum_s a_s f_s + c/2 |h|^2 by central differences of the adapter's own
//     gradients;
//   - the pattern is the same on every call (and the caller's storage is
//     reused);
//   - end to end: WC_NEWTON on the pipeline examples' problems takes the
//     sparse path and reaches WC_AUGMENTED_LAGRANGIAN's point.

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/Geometry"
#include "Eigen/SparseCore"
#include "ceres/autodiff_cost_function.h"
#include "ceres/crs_matrix.h"
#include "ceres/loss_function.h"
#include "ceres/manifold.h"
#include "ceres/problem.h"
#include "ceres/rotation.h"
#include "ceres/sphere_manifold.h"
#include "attitude_costs.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

using Adapter = CeresProblemAdapter;
using Ids = std::vector<ceres::ResidualBlockId>;

// ------------------------------------------------------------ functors --

// r = R(q) x - p + 0.3 x0 x1 (3 residuals; x in R^3, q a unit quaternion).
struct Rotated {
  explicit Rotated(const Eigen::Vector3d& p) : p{p.x(), p.y(), p.z()} {}
  template <typename T>
  bool operator()(const T* x, const T* q, T* r) const {
    ceres::QuaternionRotatePoint(q, x, r);
    for (int i = 0; i < 3; ++i) r[i] += T(0.3) * x[0] * x[1] - T(p[i]);
    return true;
  }
  double p[3];
};

// Reads n (on a sphere, 3), y (2) and the constant c (2); 2 residuals.
struct OnSphere {
  explicit OnSphere(double t) : t(t) {}
  template <typename T>
  bool operator()(const T* n, const T* y, const T* c, T* r) const {
    r[0] = n[0] * y[0] + n[1] * y[1] + n[2] * c[0] - T(t);
    r[1] = n[0] * n[1] - y[0] * y[1] * c[1] + T(t) * n[2];
    return true;
  }
  double t;
};

// Four blocks at once: x (3), q (4), n (3), y (2); 4 residuals.
struct Everything {
  explicit Everything(double t) : t(t) {}
  template <typename T>
  bool operator()(const T* x, const T* q, const T* n, const T* y, T* r) const {
    r[0] = q[0] * x[0] + q[1] * n[1] - y[0] + T(t);
    r[1] = q[2] * q[3] + x[1] * n[2] - T(t) * y[1];
    r[2] = x[2] * x[2] - n[0] * y[1] + q[1];
    r[3] = T(t) * (x[0] - y[0] * n[0]) + q[3] * q[3];
    return true;
  }
  double t;
};

// h: |x|^2 - 2 (1 residual).
struct Norm {
  template <typename T>
  bool operator()(const T* x, T* r) const {
    r[0] = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] - T(2.0);
    return true;
  }
};

// h: y0 - n1 y1, x2 + y1 (2 residuals).
struct Couple {
  template <typename T>
  bool operator()(const T* y, const T* n, const T* x, T* r) const {
    r[0] = y[0] - n[1] * y[1];
    r[1] = x[2] + y[1];
    return true;
  }
};

// ------------------------------------------------------------- helpers --

Eigen::MatrixXd Dense(const ceres::CRSMatrix& crs) {
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(crs.num_rows, crs.num_cols);
  for (int r = 0; r < crs.num_rows; ++r) {
    for (int i = crs.rows[r]; i < crs.rows[r + 1]; ++i) {
      dense(r, crs.cols[i]) = crs.values[i];
    }
  }
  return dense;
}

// The symmetric matrix whose lower triangle `lower` stores; fails the test
// if `lower` has an entry above the diagonal.
Eigen::MatrixXd Symmetric(const Eigen::SparseMatrix<double>& lower) {
  Eigen::MatrixXd full = Eigen::MatrixXd::Zero(lower.rows(), lower.cols());
  for (int c = 0; c < lower.outerSize(); ++c) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(lower, c); it; ++it) {
      EXPECT_GE(it.row(), it.col()) << "entry above the diagonal";
      full(it.row(), it.col()) += it.value();
      if (it.row() != it.col()) full(it.col(), it.row()) += it.value();
    }
  }
  return full;
}

// sum_s a_s J_s^T J_s + c J_h^T J_h from ceres::Problem::Evaluate at the
// user's current values, columns = the adapter's blocks in z order
// (tangent coordinates).
Eigen::MatrixXd CeresGaussNewton(ceres::Problem* problem,
                                 const Adapter& adapter,
                                 const std::vector<Ids>& objectives,
                                 const std::vector<Ids>& constraints,
                                 const std::vector<double>& a,
                                 double c) {
  ceres::Problem::EvaluateOptions options;
  for (const Adapter::ParameterBlock& b : adapter.parameter_blocks()) {
    options.parameter_blocks.push_back(b.values);
  }
  const int n = adapter.NumTangentParameters();
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(n, n);
  auto add = [&](const Ids& ids, bool apply_loss, double weight) {
    options.residual_blocks = ids;
    options.apply_loss_function = apply_loss;
    ceres::CRSMatrix jacobian;
    EXPECT_TRUE(
        problem->Evaluate(options, nullptr, nullptr, nullptr, &jacobian));
    const Eigen::MatrixXd j = Dense(jacobian);
    EXPECT_EQ(j.cols(), n);
    if (j.cols() == n) g += weight * j.transpose() * j;
  };
  for (size_t s = 0; s < objectives.size(); ++s) add(objectives[s], true, a[s]);
  Ids all_constraints;
  for (const Ids& ids : constraints) {
    all_constraints.insert(all_constraints.end(), ids.begin(), ids.end());
  }
  if (!all_constraints.empty()) add(all_constraints, false, c);
  return g;
}

// --------------------------------------------------- (a) against Ceres --

// Blocks: x (3, Euclidean), q (QuaternionManifold), n (SphereManifold in
// R^3), y (2, Euclidean), k (2, constant). Objective A: Huber (outer
// region), no loss, and a block shared with B; objective B: Cauchy,
// TolerantLoss (rho'' > 0: the rank-one part of the correction), and the
// shared block. Two constraint groups, one block with a loss that must be
// ignored.
class GaussNewtonAgainstCeresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Eigen::Quaterniond rotation = Eigen::Quaterniond(
        Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, -1).normalized()));
    q_[0] = rotation.w();
    q_[1] = rotation.x();
    q_[2] = rotation.y();
    q_[3] = rotation.z();
    const Eigen::Vector3d n = Eigen::Vector3d(0.3, -0.5, 0.8).normalized();
    for (int i = 0; i < 3; ++i) n_[i] = n[i];

    // A: Huber(0.5) far from the origin (|r| >> 0.5, outer region).
    a_.push_back(problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Rotated, 3, 3, 4>(
            new Rotated(Eigen::Vector3d(3.0, -2.0, 1.0))),
        new ceres::HuberLoss(0.5),
        x_,
        q_));
    a_.push_back(problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<OnSphere, 2, 3, 2, 2>(
            new OnSphere(0.4)),
        nullptr,
        n_,
        y_,
        k_));
    const ceres::ResidualBlockId shared = problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Everything, 4, 3, 4, 3, 2>(
            new Everything(0.8)),
        new ceres::CauchyLoss(0.7),
        x_,
        q_,
        n_,
        y_);
    a_.push_back(shared);
    // B.
    b_.push_back(problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Rotated, 3, 3, 4>(
            new Rotated(Eigen::Vector3d(-1.0, 0.5, 0.2))),
        new ceres::CauchyLoss(1.0),
        x_,
        q_));
    // TolerantLoss(a, b): rho'' > 0 everywhere; |r|^2 near a keeps the
    // correction large.
    b_.push_back(problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Everything, 4, 3, 4, 3, 2>(
            new Everything(-0.6)),
        new ceres::TolerantLoss(1.0, 0.5),
        x_,
        q_,
        n_,
        y_));
    b_.push_back(shared);
    // Constraints.
    h1_.push_back(problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Norm, 1, 3>(new Norm),
        new ceres::CauchyLoss(0.1),  // not applied to constraints
        x_));
    h2_.push_back(problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Couple, 2, 2, 3, 3>(new Couple),
        nullptr,
        y_,
        n_,
        x_));
    problem_.SetManifold(q_, new ceres::QuaternionManifold());
    problem_.SetManifold(n_, new ceres::SphereManifold<ceres::DYNAMIC>(3));
    problem_.SetParameterBlockConstant(k_);
  }

  double x_[3] = {1.2, -0.7, 0.4};
  double q_[4];
  double n_[3];
  double y_[2] = {0.6, -1.1};
  double k_[2] = {0.9, -0.3};
  ceres::Problem problem_;
  Ids a_, b_, h1_, h2_;
};

TEST_F(GaussNewtonAgainstCeresTest, EqualsCeresCorrectedJacobians) {
  Adapter adapter(
      &problem_, {{"A", a_}, {"B", b_}}, {{"H1", h1_}, {"H2", h2_}});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  ASSERT_TRUE(adapter.HasGaussNewtonMatrix());
  // z = (x, q, n, y); tangent sizes 3, 3, 2, 2; k is constant.
  ASSERT_EQ(adapter.NumParameters(), 12);
  ASSERT_EQ(adapter.NumTangentParameters(), 10);
  ASSERT_EQ(adapter.ParameterBlockOffset(k_), -1);

  // The loss corrections are really exercised: Huber beyond its scale,
  // TolerantLoss with rho'' > 0 at its |r|^2.
  {
    double cost;
    std::vector<double> r;
    ceres::Problem::EvaluateOptions eo;
    eo.apply_loss_function = false;
    eo.residual_blocks = {a_[0]};
    ASSERT_TRUE(problem_.Evaluate(eo, &cost, &r, nullptr, nullptr));
    EXPECT_GT(2.0 * cost, 0.25);  // |r|^2 > 0.5^2
    eo.residual_blocks = {b_[1]};
    ASSERT_TRUE(problem_.Evaluate(eo, &cost, &r, nullptr, nullptr));
    double rho[3];
    ceres::TolerantLoss(1.0, 0.5).Evaluate(2.0 * cost, rho);
    EXPECT_GT(rho[2] * 2.0 * cost / rho[1], 0.05);
  }

  const Eigen::VectorXd z = adapter.GetParameters();
  Eigen::VectorXd f(2), h(adapter.NumConstraints());
  Eigen::MatrixXd grad(adapter.NumParameters(), 2);
  ASSERT_TRUE(
      adapter.Evaluate(z.data(), f.data(), h.data(), grad.data(), &error))
      << error;

  std::mt19937 rng(11);
  std::normal_distribution<double> normal;
  for (const auto& weights :
       std::vector<std::pair<std::vector<double>, double>>{
           {{0.7, 1.3}, 2.5}, {{0.0, 1.0}, 0.0}, {{1.0, 0.0}, 1e-3}}) {
    const std::vector<double>& a = weights.first;
    const double c = weights.second;
    Eigen::SparseMatrix<double> lower;
    ASSERT_TRUE(adapter.GaussNewtonMatrix(a.data(), c, &lower, &error))
        << error;
    ASSERT_EQ(lower.rows(), 10);
    ASSERT_EQ(lower.cols(), 10);
    ASSERT_TRUE(lower.isCompressed());
    const Eigen::MatrixXd reference =
        CeresGaussNewton(&problem_, adapter, {a_, b_}, {h1_, h2_}, a, c);
    const double scale = reference.norm();
    ASSERT_GT(scale, 1e-3);
    // Products with random vectors, through the lower triangle as a
    // symmetric matrix.
    for (int trial = 0; trial < 5; ++trial) {
      Eigen::VectorXd v(10);
      for (int i = 0; i < 10; ++i) v[i] = normal(rng);
      const Eigen::VectorXd gv = lower.selfadjointView<Eigen::Lower>() * v;
      EXPECT_LE((gv - reference * v).norm(), 1e-12 * scale * v.norm())
          << "a = (" << a[0] << ", " << a[1] << "), c = " << c;
    }
    // And entry by entry.
    EXPECT_LE((Symmetric(lower) - reference).cwiseAbs().maxCoeff(),
              1e-12 * scale);
  }

  // The constraint part alone is c J_h^T J_h, raw (no loss), and the loss of
  // an objective changes G (the reference is not trivially loss-free).
  Eigen::SparseMatrix<double> objective_only, with_constraints;
  const double a[2] = {1.0, 1.0};
  ASSERT_TRUE(adapter.GaussNewtonMatrix(a, 0.0, &objective_only, &error));
  ASSERT_TRUE(adapter.GaussNewtonMatrix(a, 3.0, &with_constraints, &error));
  const Eigen::MatrixXd constraint_part =
      (Symmetric(with_constraints) - Symmetric(objective_only)) / 3.0;
  const Eigen::MatrixXd raw =
      CeresGaussNewton(&problem_, adapter, {}, {h1_, h2_}, {}, 1.0);
  EXPECT_LE((constraint_part - raw).cwiseAbs().maxCoeff(), 1e-12 * raw.norm());
  ceres::Problem::EvaluateOptions eo;
  for (const Adapter::ParameterBlock& b : adapter.parameter_blocks()) {
    eo.parameter_blocks.push_back(b.values);
  }
  eo.residual_blocks = b_;
  eo.apply_loss_function = false;
  ceres::CRSMatrix unrobust;
  ASSERT_TRUE(problem_.Evaluate(eo, nullptr, nullptr, nullptr, &unrobust));
  const Eigen::MatrixXd jb = Dense(unrobust);
  const Eigen::MatrixXd robust =
      CeresGaussNewton(&problem_, adapter, {b_}, {}, {1.0}, 0.0);
  EXPECT_GT((jb.transpose() * jb - robust).norm(), 1e-2 * robust.norm());
}

TEST_F(GaussNewtonAgainstCeresTest,
       RefusesWithoutLinearizationOrWithBadWeights) {
  Adapter adapter(
      &problem_, {{"A", a_}, {"B", b_}}, {{"H1", h1_}, {"H2", h2_}});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  Eigen::SparseMatrix<double> lower;
  const double a[2] = {1.0, 1.0};
  // Before any Evaluate with gradients: a clear refusal.
  EXPECT_FALSE(adapter.GaussNewtonMatrix(a, 1.0, &lower, &error));
  EXPECT_NE(error.find("linearization point"), std::string::npos) << error;
  // A value-only evaluation does not linearize.
  const Eigen::VectorXd z = adapter.GetParameters();
  Eigen::VectorXd f(2), h(adapter.NumConstraints());
  ASSERT_TRUE(adapter.Evaluate(z.data(), f.data(), h.data(), nullptr, &error));
  EXPECT_FALSE(adapter.GaussNewtonMatrix(a, 1.0, &lower, &error));
  // Bad weights.
  Eigen::MatrixXd grad(adapter.NumParameters(), 2);
  ASSERT_TRUE(
      adapter.Evaluate(z.data(), f.data(), h.data(), grad.data(), &error));
  EXPECT_FALSE(adapter.GaussNewtonMatrix(a, -1.0, &lower, &error));
  EXPECT_NE(error.find("c must be"), std::string::npos) << error;
  const double bad[2] = {1.0, std::nan("")};
  EXPECT_FALSE(adapter.GaussNewtonMatrix(bad, 1.0, &lower, &error));
  EXPECT_NE(error.find("a[1]"), std::string::npos) << error;
  ASSERT_TRUE(adapter.GaussNewtonMatrix(a, 1.0, &lower, &error)) << error;
  EXPECT_EQ(adapter.counts().gauss_newton_matrices, 5);
}

TEST_F(GaussNewtonAgainstCeresTest, ValueOnlyEvaluationsKeepTheLinearization) {
  // G refers to the last Evaluate WITH gradients, whatever value-only
  // evaluations (e.g. trial points of a line search) came after it.
  Adapter adapter(
      &problem_, {{"A", a_}, {"B", b_}}, {{"H1", h1_}, {"H2", h2_}});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  const Eigen::VectorXd z = adapter.GetParameters();
  Eigen::VectorXd f(2), h(adapter.NumConstraints());
  Eigen::MatrixXd grad(adapter.NumParameters(), 2);
  ASSERT_TRUE(
      adapter.Evaluate(z.data(), f.data(), h.data(), grad.data(), &error));
  const double a[2] = {0.4, 0.9};
  Eigen::SparseMatrix<double> before, after;
  ASSERT_TRUE(adapter.GaussNewtonMatrix(a, 1.5, &before, &error)) << error;
  Eigen::VectorXd elsewhere = z;
  elsewhere.head(3) += Eigen::Vector3d(0.5, -0.2, 0.3);  // x only
  ASSERT_TRUE(
      adapter.Evaluate(elsewhere.data(), f.data(), h.data(), nullptr, &error));
  ASSERT_TRUE(adapter.GaussNewtonMatrix(a, 1.5, &after, &error)) << error;
  EXPECT_EQ((Symmetric(before) - Symmetric(after)).cwiseAbs().maxCoeff(), 0.0);
}

// ------------------------------------- (b) exact Hessian, linear residuals --

// r = M x + N y - d with fixed M (m x 3), N (m x 2): linear in (x, y).
template <int M>
struct Linear {
  Linear(unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal;
    for (double& v : m) v = normal(rng);
    for (double& v : n) v = normal(rng);
    for (double& v : d) v = normal(rng);
  }
  template <typename T>
  bool operator()(const T* x, const T* y, const T* k, T* r) const {
    for (int i = 0; i < M; ++i) {
      r[i] = T(m[3 * i]) * x[0] + T(m[3 * i + 1]) * x[1] +
             T(m[3 * i + 2]) * x[2] + T(n[2 * i]) * y[0] +
             T(n[2 * i + 1]) * y[1] - T(d[i]) * k[0];
    }
    return true;
  }
  double m[3 * M], n[2 * M], d[M];
};

TEST(GaussNewtonLinearTest, EqualsTheExactHessianByFiniteDifferences) {
  double x[3] = {0.3, -1.0, 2.0}, y[2] = {0.5, 0.7}, w[3] = {-0.4, 1.1, 0.2};
  double k[1] = {1.5};  // constant
  ceres::Problem problem;
  Ids a, b, h;
  for (unsigned i = 0; i < 3; ++i) {
    a.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Linear<2>, 2, 3, 2, 1>(
            new Linear<2>(10 + i)),
        nullptr,
        x,
        y,
        k));
    b.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Linear<3>, 3, 3, 2, 1>(
            new Linear<3>(20 + i)),
        nullptr,
        i == 0 ? x : w,  // w only in B
        y,
        k));
  }
  h.push_back(problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Linear<1>, 1, 3, 2, 1>(new Linear<1>(30)),
      nullptr,
      w,
      y,
      k));
  problem.SetParameterBlockConstant(k);
  Adapter adapter(&problem, {{"A", a}, {"B", b}}, {{"h", h}});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  const int n = adapter.NumParameters();
  ASSERT_EQ(n, 8);  // x, y, w
  ASSERT_EQ(adapter.NumTangentParameters(), n);
  const int q = adapter.NumConstraints();
  const double weights[2] = {0.8, 1.7};
  const double c = 3.0;

  // grad of L(z) = sum_s a_s f_s + c/2 |h|^2 = sum_s a_s grad f_s + c J^T h.
  Eigen::VectorXd f(2), hv(q), jth(n);
  Eigen::MatrixXd grad(n, 2);
  auto gradient = [&](const Eigen::VectorXd& z) {
    EXPECT_TRUE(
        adapter.Evaluate(z.data(), f.data(), hv.data(), grad.data(), &error));
    adapter.JacobianTransposeMultiply(hv.data(), jth.data());
    return Eigen::VectorXd(weights[0] * grad.col(0) + weights[1] * grad.col(1) +
                           c * jth);
  };
  const Eigen::VectorXd z = adapter.GetParameters();
  Eigen::MatrixXd hessian(n, n);
  const double step = 1e-3;
  for (int j = 0; j < n; ++j) {
    Eigen::VectorXd plus = z, minus = z;
    plus[j] += step;
    minus[j] -= step;
    hessian.col(j) = (gradient(plus) - gradient(minus)) / (2.0 * step);
  }
  gradient(z);  // linearize at z
  Eigen::SparseMatrix<double> lower;
  ASSERT_TRUE(adapter.GaussNewtonMatrix(weights, c, &lower, &error)) << error;
  const Eigen::MatrixXd g = Symmetric(lower);
  ASSERT_GT(hessian.norm(), 1.0);
  EXPECT_LE((g - hessian).cwiseAbs().maxCoeff(), 1e-8 * hessian.norm())
      << "G =\n"
      << g << "\nfinite-difference Hessian =\n"
      << hessian;
  // The pattern has the blocks' couplings and nothing else: every residual
  // block couples y with x or w, none couples w with x.
  const int ox = adapter.ParameterBlockOffset(x);
  const int ow = adapter.ParameterBlockOffset(w);
  const int oy = adapter.ParameterBlockOffset(y);
  ASSERT_TRUE(ox < oy && oy < ow);
  auto stored = [&](int row, int col) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(lower, col); it; ++it) {
      if (it.row() == row) return true;
    }
    return false;
  };
  EXPECT_TRUE(stored(oy, ox));
  EXPECT_TRUE(stored(ow, oy));
  EXPECT_FALSE(stored(ow, ox));
}

// ------------------------------------------------------------ (c) pattern --

TEST_F(GaussNewtonAgainstCeresTest, PatternIsTheSameOnEveryCall) {
  Adapter adapter(
      &problem_, {{"A", a_}, {"B", b_}}, {{"H1", h1_}, {"H2", h2_}});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  const int k = adapter.NumParameters();
  Eigen::VectorXd f(2), h(adapter.NumConstraints());
  Eigen::MatrixXd grad(k, 2);
  Eigen::VectorXd z = adapter.GetParameters();
  ASSERT_TRUE(
      adapter.Evaluate(z.data(), f.data(), h.data(), grad.data(), &error));
  const double a[2] = {1.0, 1.0};
  Eigen::SparseMatrix<double> first;
  ASSERT_TRUE(adapter.GaussNewtonMatrix(a, 1.0, &first, &error)) << error;
  const std::vector<int> outer(first.outerIndexPtr(),
                               first.outerIndexPtr() + first.outerSize() + 1);
  const std::vector<int> inner(first.innerIndexPtr(),
                               first.innerIndexPtr() + first.nonZeros());
  // Every diagonal entry is stored.
  for (int j = 0; j < first.cols(); ++j) {
    ASSERT_LT(outer[j], outer[j + 1]);
    EXPECT_EQ(inner[outer[j]], j);
  }
  const double* storage = first.valuePtr();

  // Other points (moved along the manifold), other weights, including zero
  // weights that skip whole groups: same pattern, same storage.
  std::mt19937 rng(5);
  std::normal_distribution<double> normal(0.0, 0.3);
  const double weights[][3] = {
      {0.2, 3.0, 0.5}, {0.0, 1.0, 0.0}, {1.0, 0.0, 7.0}};
  for (const auto& w : weights) {
    Eigen::VectorXd delta(adapter.NumTangentParameters());
    for (int i = 0; i < delta.size(); ++i) delta[i] = normal(rng);
    Eigen::VectorXd moved(k);
    ASSERT_TRUE(adapter.manifold()->Plus(z.data(), delta.data(), moved.data()));
    z = moved;
    ASSERT_TRUE(
        adapter.Evaluate(z.data(), f.data(), h.data(), grad.data(), &error));
    for (Eigen::SparseMatrix<double>* m :
         {&first, new Eigen::SparseMatrix<double>()}) {
      ASSERT_TRUE(adapter.GaussNewtonMatrix(w, w[2], m, &error)) << error;
      EXPECT_TRUE(m->isCompressed());
      EXPECT_EQ(std::vector<int>(m->outerIndexPtr(),
                                 m->outerIndexPtr() + m->outerSize() + 1),
                outer);
      EXPECT_EQ(std::vector<int>(m->innerIndexPtr(),
                                 m->innerIndexPtr() + m->nonZeros()),
                inner);
      if (m != &first) delete m;
    }
    EXPECT_EQ(first.valuePtr(), storage) << "the caller's storage moved";
  }
  // A matrix of another shape is reshaped to the pattern.
  Eigen::SparseMatrix<double> other(3, 3);
  other.insert(2, 1) = 1.0;
  ASSERT_TRUE(adapter.GaussNewtonMatrix(a, 1.0, &other, &error)) << error;
  EXPECT_EQ(std::vector<int>(other.innerIndexPtr(),
                             other.innerIndexPtr() + other.nonZeros()),
            inner);
}

TEST(GaussNewtonAvailabilityTest, ProblemEvaluatePathHasNone) {
  double x[3] = {1.0, 2.0, 3.0};
  ceres::Problem problem;
  const Ids a = {problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Norm, 1, 3>(new Norm), nullptr, x)};
  Adapter::Options options;
  options.evaluation_path = Adapter::EvaluationPath::kProblemEvaluate;
  Adapter through(&problem, {{"A", a}}, {}, options);
  std::string error;
  ASSERT_TRUE(through.IsValid(&error)) << error;
  EXPECT_FALSE(through.HasGaussNewtonMatrix());
  Eigen::VectorXd z = through.GetParameters(), f(1), grad(3);
  ASSERT_TRUE(
      through.Evaluate(z.data(), f.data(), nullptr, grad.data(), &error));
  Eigen::SparseMatrix<double> lower;
  const double weight = 1.0;
  EXPECT_FALSE(through.GaussNewtonMatrix(&weight, 0.0, &lower, &error));
  EXPECT_NE(error.find("kDirect"), std::string::npos) << error;

  Adapter direct(&problem, {{"A", a}}, {});
  ASSERT_TRUE(direct.IsValid(&error)) << error;
  EXPECT_TRUE(direct.HasGaussNewtonMatrix());
  Adapter invalid(&problem, {}, {});
  EXPECT_FALSE(invalid.HasGaussNewtonMatrix());
}

// ------------------------------------------------------- (d) end to end --

// Signed distance of (x, y) to the line n . p = d (examples/pipelines/
// line_fit_front.cc).
struct PointToLine {
  PointToLine(double x, double y) : x(x), y(y) {}
  template <typename T>
  bool operator()(const T* n, const T* d, T* r) const {
    r[0] = n[0] * x + n[1] * y - d[0];
    return true;
  }
  double x, y;
};

struct UnitNorm2 {
  template <typename T>
  bool operator()(const T* n, T* r) const {
    r[0] = n[0] * n[0] + n[1] * n[1] - T(1.0);
    return true;
  }
};

using ecmo_pipelines::HorizontalBoresight;
using ecmo_pipelines::Observation;

// Solves `preference` with WC_AUGMENTED_LAGRANGIAN and WC_NEWTON from the
// same start, with one scalarization (utopia reference point and
// normalized scales, as the examples compute it) for both, and checks that
// WC_NEWTON took the sparse Gauss-Newton path, is certified, and agrees.
void ExpectNewtonMatchesAugmentedLagrangian(
    Adapter* adapter, const std::vector<double>& preference) {
  std::string error;
  ASSERT_TRUE(adapter->IsValid(&error)) << error;
  ASSERT_TRUE(adapter->HasGaussNewtonMatrix());
  const Eigen::VectorXd start = adapter->GetParameters();
  Solver::Options options;
  options.max_iterations = 20000;
  options.record_history = false;
  options.normalize_objectives = true;
  Scalarization scalarization;
  ASSERT_TRUE(
      ComputeScalarization(options, adapter, start, &scalarization, &error))
      << error;
  const Eigen::VectorXd& r = scalarization.reference_point;
  const Eigen::VectorXd& w = scalarization.objective_scale;
  options.reference_point.assign(r.data(), r.data() + r.size());
  options.objective_scale.assign(w.data(), w.data() + w.size());

  Solver::Summary al, newton;
  options.strategy = StrategyType::WC_AUGMENTED_LAGRANGIAN;
  Solve(options, adapter, preference, &al);
  adapter->SetParameters(start.data());
  options.strategy = StrategyType::WC_NEWTON;
  Solve(options, adapter, preference, &newton);
  adapter->SetParameters(start.data());

  ASSERT_EQ(al.termination_type, ceres::CONVERGENCE) << al.FullReport();
  ASSERT_EQ(newton.termination_type, ceres::CONVERGENCE) << newton.FullReport();
  EXPECT_FALSE(newton.certified_by.empty());
  EXPECT_GT(newton.evaluations.gauss_newton_matrices, 0);
  EXPECT_EQ(newton.evaluations.hessian_products, 0);
  EXPECT_EQ(al.evaluations.gauss_newton_matrices, 0);
  EXPECT_LE((newton.z - al.z).cwiseAbs().maxCoeff(), 1e-6)
      << "AL z = " << al.z.transpose()
      << "\nNewton z = " << newton.z.transpose();
  EXPECT_LE((newton.objectives - al.objectives).cwiseAbs().maxCoeff(),
            1e-6 * (1.0 + al.objectives.cwiseAbs().maxCoeff()));
}

// Sensor A: y = 0.5 x + 1; sensor B: y = 0.2 x + 1.6 with 10% outliers and
// a CauchyLoss. n on a SphereManifold, or |n|^2 = 1 as a constraint group.
class LineFitTest : public ::testing::TestWithParam<bool> {};

TEST_P(LineFitTest, NewtonMatchesAugmentedLagrangian) {
  const bool unit_norm_residual = GetParam();
  std::mt19937 rng(42);
  std::normal_distribution<double> noise(0.0, 0.05);
  std::uniform_real_distribution<double> along(-3.0, 3.0);
  std::uniform_real_distribution<double> outlier(-2.0, 2.0);
  double n[2] = {0.0, 1.0}, d[1] = {1.3};
  ceres::Problem problem;
  Ids fit_a, fit_b, norm;
  for (int i = 0; i < 40; ++i) {
    const double xa = along(rng);
    const double ya = 0.5 * xa + 1.0 + noise(rng);
    const double xb = along(rng);
    const double yb =
        0.2 * xb + 1.6 + noise(rng) + (i % 10 == 0 ? outlier(rng) : 0.0);
    fit_a.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<PointToLine, 1, 2, 1>(
            new PointToLine(xa, ya)),
        nullptr,
        n,
        d));
    fit_b.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<PointToLine, 1, 2, 1>(
            new PointToLine(xb, yb)),
        new ceres::CauchyLoss(0.1),
        n,
        d));
  }
  std::vector<Adapter::ResidualGroup> constraints;
  if (unit_norm_residual) {
    norm.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<UnitNorm2, 1, 2>(new UnitNorm2),
        nullptr,
        n));
    constraints.push_back({"unit_norm", norm});
  } else {
    problem.SetManifold(n, new ceres::SphereManifold<ceres::DYNAMIC>(2));
  }
  Adapter adapter(
      &problem, {{"cost_A", fit_a}, {"cost_B", fit_b}}, constraints);
  for (const std::vector<double>& preference :
       std::vector<std::vector<double>>{{0.5, 0.5}, {0.2, 0.8}}) {
    SCOPED_TRACE(preference[0]);
    ExpectNewtonMatchesAugmentedLagrangian(&adapter, preference);
  }
}

INSTANTIATE_TEST_SUITE_P(ManifoldOrConstraint,
                         LineFitTest,
                         ::testing::Values(false, true));

TEST(RotationFitTest, NewtonMatchesAugmentedLagrangian) {
  const Eigen::Quaterniond qa =
      Eigen::AngleAxisd(0.6, Eigen::Vector3d::UnitZ()) *
      Eigen::AngleAxisd(-M_PI / 2 + 6.0 * M_PI / 180, Eigen::Vector3d::UnitY());
  const Eigen::Quaterniond qb =
      qa * Eigen::AngleAxisd(15.0 * M_PI / 180,
                             Eigen::Vector3d(1.0, -2.0, 0.5).normalized());
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0.0, 0.002);
  auto random_unit = [&] {
    return Eigen::Vector3d(noise(rng), noise(rng), noise(rng)).normalized();
  };
  // Start near the compromise (as the example starts from ceres::Solve's).
  const Eigen::Quaterniond start = qa.slerp(0.5, qb);
  double q[4] = {start.w(), start.x(), start.y(), start.z()};
  ceres::Problem problem;
  Ids star_tracker, sun_magnetometer, level;
  for (int i = 0; i < 6; ++i) {
    const Eigen::Vector3d u = random_unit();
    const Eigen::Vector3d v =
        qa * u + Eigen::Vector3d(noise(rng), noise(rng), noise(rng));
    star_tracker.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Observation, 3, 4>(
            new Observation(u, v)),
        nullptr,
        q));
  }
  for (int i = 0; i < 2; ++i) {
    const Eigen::Vector3d u = random_unit();
    sun_magnetometer.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Observation, 3, 4>(
            new Observation(u, qb * u)),
        nullptr,
        q));
  }
  level.push_back(problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<HorizontalBoresight, 1, 4>(
          new HorizontalBoresight),
      nullptr,
      q));
  problem.SetManifold(q, new ceres::QuaternionManifold());
  Adapter adapter(
      &problem,
      {{"star_tracker", star_tracker}, {"sun_magnetometer", sun_magnetometer}},
      {{"horizontal_boresight", level}});
  for (const std::vector<double>& preference :
       std::vector<std::vector<double>>{{0.5, 0.5}, {0.8, 0.2}}) {
    SCOPED_TRACE(preference[0]);
    ExpectNewtonMatchesAugmentedLagrangian(&adapter, preference);
  }
}

}  // namespace
}  // namespace ecmo
