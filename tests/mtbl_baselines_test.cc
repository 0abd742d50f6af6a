// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The MTBL baselines (ecmo/mtbl_baselines.h) against independent references:
// MinNormWeights against brute force, closed forms and the optimality
// condition; the ITD hypergradient against finite differences of the
// unrolled map; the LS methods against the closed-form minimizer of a
// quadratic bilevel problem; Pareto stationarity of the multi-objective
// methods with exact implicit hypergradients; FORUM's first step against
// its QP solved by brute force; bad input; the oracle accounting on
// mtbl_logistic.

#include "ecmo/mtbl_baselines.h"

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Dense"
#include "ceres/cost_function.h"
#include "ecmo/mtbl.h"
#include "ecmo/problems/mtbl_logistic.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

MatrixXd RandomMatrix(int rows, int cols, std::mt19937_64* rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  MatrixXd m(rows, cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) m(i, j) = normal(*rng);
  }
  return m;
}

double Quadratic(const MatrixXd& M, const VectorXd& l) { return l.dot(M * l); }

// ------------------------------------------------------- MinNormWeights --

// Optimality on the simplex: (M l)_i >= l^T M l for every i (the KKT
// conditions of min l^T M l, l in the simplex), up to tol * ||M||.
void ExpectSimplexOptimal(const MatrixXd& M, const VectorXd& l, double tol) {
  ASSERT_EQ(l.size(), M.rows());
  EXPECT_NEAR(l.sum(), 1.0, 1e-12);
  EXPECT_GE(l.minCoeff(), 0.0);
  const double value = Quadratic(M, l);
  const VectorXd Ml = M * l;
  for (int i = 0; i < l.size(); ++i) {
    EXPECT_GE(Ml[i], value - tol * M.norm()) << "coordinate " << i;
  }
}

TEST(MinNormWeightsTest, TwoTasksMatchTheClosedForm) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 20; ++trial) {
    const MatrixXd H = RandomMatrix(5, 2, &rng);
    // Make some pairs nearly aligned so that the clipping is exercised.
    MatrixXd G = H;
    if (trial % 3 == 0) G.col(1) = 2.0 * G.col(0) + 0.1 * G.col(1);
    const MatrixXd M = G.transpose() * G;
    const double denominator = M(0, 0) + M(1, 1) - 2.0 * M(0, 1);
    const double c =
        std::min(1.0, std::max(0.0, (M(1, 1) - M(0, 1)) / denominator));
    const VectorXd l = MinNormWeights(M);
    ASSERT_EQ(l.size(), 2);
    EXPECT_NEAR(l[0], c, 1e-10) << "trial " << trial;
    EXPECT_NEAR(l[1], 1.0 - c, 1e-10) << "trial " << trial;
  }
}

TEST(MinNormWeightsTest, MatchesDenseGridsForTwoAndThreeTasks) {
  std::mt19937_64 rng(2);
  for (int S : {2, 3}) {
    for (int trial = 0; trial < 10; ++trial) {
      // Rank-deficient Gram matrices (2 rows) half of the time.
      const int rows = trial % 2 == 0 ? 2 : 6;
      const MatrixXd G = RandomMatrix(rows, S, &rng);
      const MatrixXd M = G.transpose() * G;
      const VectorXd l = MinNormWeights(M);
      const double value = Quadratic(M, l);
      const int n = 400;
      double grid_min = std::numeric_limits<double>::infinity();
      for (int i = 0; i <= n; ++i) {
        for (int j = 0; j <= (S == 3 ? n - i : 0); ++j) {
          VectorXd g(S);
          if (S == 2) {
            g << i / double(n), 1.0 - i / double(n);
          } else {
            g << i / double(n), j / double(n), (n - i - j) / double(n);
          }
          grid_min = std::min(grid_min, Quadratic(M, g));
        }
      }
      // Never worse than a grid point; the grid is within O(1/n) of the
      // minimum, so the exact value is not much below it either.
      EXPECT_LE(value, grid_min + 1e-12 * M.norm());
      EXPECT_GE(value, grid_min - 2e-2 * M.norm());
      ExpectSimplexOptimal(M, l, 1e-10);
    }
  }
}

TEST(MinNormWeightsTest, ExactUpToTwelveAndProjectedGradientBeyond) {
  std::mt19937_64 rng(3);
  for (int S : {5, 8, 12, 15, 20}) {
    const MatrixXd G = RandomMatrix(S / 2 + 3, S, &rng);
    const MatrixXd M = G.transpose() * G;
    const VectorXd l = MinNormWeights(M);
    // Projected gradient (S > 12) is converged, not exact.
    ExpectSimplexOptimal(M, l, S <= 12 ? 1e-10 : 1e-6);
  }
}

TEST(MinNormWeightsTest, CornerCases) {
  std::mt19937_64 rng(4);
  // One zero gradient: all weight on it (the unique minimizer when the
  // others are linearly independent).
  MatrixXd G = RandomMatrix(6, 3, &rng);
  G.col(1).setZero();
  VectorXd l = MinNormWeights(G.transpose() * G);
  EXPECT_NEAR(l[1], 1.0, 1e-10);
  // Identical gradients: every point of the simplex is optimal, value a.
  MatrixXd same(4, 3);
  const VectorXd h = RandomMatrix(4, 1, &rng).col(0);
  same << h, h, h;
  const MatrixXd M = same.transpose() * same;
  l = MinNormWeights(M);
  EXPECT_NEAR(l.sum(), 1.0, 1e-12);
  EXPECT_GE(l.minCoeff(), 0.0);
  EXPECT_NEAR(Quadratic(M, l), h.squaredNorm(), 1e-10 * h.squaredNorm());
  // Zero matrix: uniform; one task: weight 1; tiny gradients: scale-free.
  l = MinNormWeights(MatrixXd::Zero(3, 3));
  EXPECT_TRUE(l.isApprox(VectorXd::Constant(3, 1.0 / 3)));
  EXPECT_DOUBLE_EQ(MinNormWeights(MatrixXd::Constant(1, 1, 2.0))[0], 1.0);
  const MatrixXd Gs = RandomMatrix(5, 3, &rng);
  const VectorXd big = MinNormWeights(Gs.transpose() * Gs);
  const VectorXd tiny = MinNormWeights(1e-24 * (Gs.transpose() * Gs));
  EXPECT_LT((big - tiny).norm(), 1e-9);
}

// ------------------------------------------------- a quadratic bilevel --

// g(x, y) = 1/2 y^T A y - y^T B x (A SPD): y*(x) = A^{-1} B x.
class QuadraticLowerLevel final : public LowerLevel {
 public:
  QuadraticLowerLevel(MatrixXd A, MatrixXd B, bool has_grad_x = true)
      : A_(std::move(A)), B_(std::move(B)), has_grad_x_(has_grad_x) {}
  int NumUpperParameters() const override { return B_.cols(); }
  int NumLowerParameters() const override { return B_.rows(); }
  bool Value(const double* x, const double* y, double* g) const override {
    const VectorXd xv = Eigen::Map<const VectorXd>(x, B_.cols());
    const VectorXd yv = Eigen::Map<const VectorXd>(y, B_.rows());
    *g = 0.5 * yv.dot(A_ * yv) - yv.dot(B_ * xv);
    return true;
  }
  bool GradY(const double* x, const double* y, double* h) const override {
    Eigen::Map<VectorXd>(h, B_.rows()) =
        A_ * Eigen::Map<const VectorXd>(y, B_.rows()) -
        B_ * Eigen::Map<const VectorXd>(x, B_.cols());
    return true;
  }
  bool GradX(const double*, const double* y, double* out) const override {
    if (!has_grad_x_) return false;
    Eigen::Map<VectorXd>(out, B_.cols()) =
        -B_.transpose() * Eigen::Map<const VectorXd>(y, B_.rows());
    return true;
  }
  bool GradYJacobianTransposeProduct(const double*,
                                     const double*,
                                     const double* v,
                                     double* out_x,
                                     double* out_y) const override {
    const Eigen::Map<const VectorXd> vv(v, B_.rows());
    Eigen::Map<VectorXd>(out_x, B_.cols()) = -B_.transpose() * vv;
    Eigen::Map<VectorXd>(out_y, B_.rows()) = A_ * vv;
    return true;
  }

  const MatrixXd& A() const { return A_; }
  const MatrixXd& B() const { return B_; }

 private:
  MatrixXd A_, B_;
  bool has_grad_x_;
};

// f(x, y) = 1/2 ||y - c||^2 + mu/2 ||x||^2 over blocks (x, y). Returns NaN
// when |x[0] - nan_center| > nan_radius (to test failures).
class QuadraticUpperCost final : public ceres::CostFunction {
 public:
  QuadraticUpperCost(
      int nx, VectorXd c, double mu, double nan_center, double nan_radius)
      : nx_(nx),
        c_(std::move(c)),
        mu_(mu),
        nan_center_(nan_center),
        nan_radius_(nan_radius) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(nx);
    mutable_parameter_block_sizes()->push_back(static_cast<int>(c_.size()));
  }
  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    const Eigen::Map<const VectorXd> x(parameters[0], nx_);
    const Eigen::Map<const VectorXd> y(parameters[1], c_.size());
    residuals[0] = 0.5 * (y - c_).squaredNorm() + 0.5 * mu_ * x.squaredNorm();
    if (std::abs(x[0] - nan_center_) > nan_radius_) {
      residuals[0] = std::nan("");
    }
    if (jacobians != nullptr) {
      if (jacobians[0] != nullptr) {
        Eigen::Map<VectorXd>(jacobians[0], nx_) = mu_ * x;
      }
      if (jacobians[1] != nullptr) {
        Eigen::Map<VectorXd>(jacobians[1], c_.size()) = y - c_;
      }
    }
    return true;
  }

 private:
  int nx_;
  VectorXd c_;
  double mu_;
  double nan_center_;
  double nan_radius_;
};

struct QuadraticBilevel {
  std::unique_ptr<QuadraticLowerLevel> lower;
  std::unique_ptr<MtblEvaluator> evaluator;
  std::vector<VectorXd> targets;  // c_s
  double mu = 0.1;
  VectorXd start;

  int nx() const { return lower->NumUpperParameters(); }
  int ny() const { return lower->NumLowerParameters(); }
  // y*(x) = M x.
  MatrixXd M() const { return lower->A().ldlt().solve(lower->B()); }
  // Exact implicit hypergradients of f_s(x, y*(x)) (nx x S).
  MatrixXd Hypergradients(const VectorXd& x) const {
    MatrixXd H(nx(), targets.size());
    const MatrixXd m = M();
    for (size_t s = 0; s < targets.size(); ++s) {
      H.col(s) = m.transpose() * (m * x - targets[s]) + mu * x;
    }
    return H;
  }
  // argmin_x sum_s w_s f_s(x, y*(x)).
  VectorXd LinearScalarizationMinimizer(const std::vector<double>& w) const {
    const MatrixXd m = M();
    VectorXd c = VectorXd::Zero(ny());
    for (size_t s = 0; s < w.size(); ++s) c += w[s] * targets[s];
    const MatrixXd normal =
        m.transpose() * m + mu * MatrixXd::Identity(nx(), nx());
    return normal.ldlt().solve(m.transpose() * c);
  }
};

// nx = 3, ny = 4, eigenvalues of A in [1, 3].
// f_0 is NaN when |x[0] - nan_center| > nan_radius.
QuadraticBilevel BuildQuadratic(
    int num_objectives = 2,
    bool has_grad_x = true,
    double nan_center = 0.0,
    double nan_radius = std::numeric_limits<double>::infinity()) {
  std::mt19937_64 rng(17);
  const int nx = 3, ny = 4;
  const MatrixXd Q = RandomMatrix(ny, ny, &rng).householderQr().householderQ();
  VectorXd eigenvalues(ny);
  eigenvalues << 1.0, 1.5, 2.2, 3.0;
  const MatrixXd A = Q * eigenvalues.asDiagonal() * Q.transpose();
  const MatrixXd B = RandomMatrix(ny, nx, &rng) * 0.7;
  QuadraticBilevel problem;
  problem.lower = std::make_unique<QuadraticLowerLevel>(A, B, has_grad_x);
  problem.evaluator = std::make_unique<MtblEvaluator>(problem.lower.get());
  for (int s = 0; s < num_objectives; ++s) {
    problem.targets.push_back(RandomMatrix(ny, 1, &rng).col(0) * 2.0);
    problem.evaluator->AddUpperObjective(
        new QuadraticUpperCost(
            nx,
            problem.targets.back(),
            problem.mu,
            nan_center,
            s == 0 ? nan_radius : std::numeric_limits<double>::infinity()),
        {MtblBlock::X, MtblBlock::Y},
        "f" + std::to_string(s));
  }
  problem.start = 0.3 * RandomMatrix(nx + ny, 1, &rng).col(0);
  return problem;
}

// ||sum lambda_s h_s|| for the min-norm lambda (two objectives: closed form
// of the test, independent of MinNormWeights).
double ParetoStationarity(const MatrixXd& H) {
  const MatrixXd M = H.transpose() * H;
  const double denominator = M(0, 0) + M(1, 1) - 2.0 * M(0, 1);
  const double c =
      denominator <= 0.0
          ? 0.5
          : std::min(1.0, std::max(0.0, (M(1, 1) - M(0, 1)) / denominator));
  return (c * H.col(0) + (1.0 - c) * H.col(1)).norm();
}

// y^T of T gradient steps on g(x, .) from y0 (the test's own unrolling);
// the first `frozen` steps use x_frozen instead of x.
VectorXd Unroll(const LowerLevel& lower,
                const VectorXd& x,
                const VectorXd& x_frozen,
                int frozen,
                const VectorXd& y0,
                int T,
                double eta) {
  VectorXd y = y0, g(y0.size());
  for (int t = 0; t < T; ++t) {
    const VectorXd& xt = t < frozen ? x_frozen : x;
    EXPECT_TRUE(lower.GradY(xt.data(), y.data(), g.data()));
    y -= eta * g;
  }
  return y;
}

// sum_s w_s f_s(x, y) through the evaluator.
double Weighted(MtblEvaluator* evaluator,
                const VectorXd& x,
                const VectorXd& y,
                const std::vector<double>& w) {
  VectorXd z(x.size() + y.size());
  z << x, y;
  VectorXd f(evaluator->NumObjectives()), h(y.size());
  std::string error;
  EXPECT_TRUE(
      evaluator->Evaluate(z.data(), f.data(), h.data(), nullptr, &error))
      << error;
  return Eigen::Map<const VectorXd>(w.data(), w.size()).dot(f);
}

// The ITD_LS direction of one iteration (upper step 1: d = x0 - x1) against
// central differences of x -> sum_s w_s f_s(x, y^T(x)) unrolled from y0,
// with the first T - K steps frozen at x0 for truncation K.
void CheckItdHypergradient(const LowerLevel& lower,
                           MtblEvaluator* evaluator,
                           const VectorXd& start,
                           const std::vector<double>& w,
                           int T,
                           int K,
                           double eta,
                           double tolerance) {
  const int nx = lower.NumUpperParameters();
  const int ny = lower.NumLowerParameters();
  MtblBaseline::Options options;
  options.type = MtblBaselineType::ITD_LS;
  options.max_iterations = 1;
  options.inner_iterations = T;
  options.itd_truncation = K;
  options.inner_step_size = eta;
  options.upper_step_size = 1.0;
  VectorXd z = start;
  MtblBaseline::Summary summary;
  Solve(options, evaluator, w, &z, &summary);
  ASSERT_EQ(summary.termination_type, ceres::NO_CONVERGENCE) << summary.message;
  const VectorXd x0 = start.head(nx), y0 = start.tail(ny);
  const VectorXd direction = x0 - z.head(nx);
  EXPECT_NEAR(direction.norm(), summary.direction_norm, 1e-12);
  // y <- y^T.
  EXPECT_LT((z.tail(ny) - Unroll(lower, x0, x0, 0, y0, T, eta)).norm(), 1e-12);
  const int frozen = K == 0 ? 0 : T - K;
  VectorXd fd(nx);
  const double t = 1e-5;
  for (int i = 0; i < nx; ++i) {
    VectorXd xp = x0, xm = x0;
    xp[i] += t;
    xm[i] -= t;
    const double fp =
        Weighted(evaluator, xp, Unroll(lower, xp, x0, frozen, y0, T, eta), w);
    const double fm =
        Weighted(evaluator, xm, Unroll(lower, xm, x0, frozen, y0, T, eta), w);
    fd[i] = (fp - fm) / (2.0 * t);
  }
  EXPECT_LT((direction - fd).norm(), tolerance * fd.norm())
      << "T = " << T << ", K = " << K << ": " << direction.transpose() << " vs "
      << fd.transpose();
}

TEST(MtblBaselineTest, ItdHypergradientMatchesFiniteDifferencesOfTheUnroll) {
  QuadraticBilevel problem = BuildQuadratic();
  for (int K : {0, 2}) {
    CheckItdHypergradient(*problem.lower,
                          problem.evaluator.get(),
                          problem.start,
                          {0.3, 0.7},
                          /*T=*/6,
                          K,
                          0.3,
                          1e-8);
  }
  problems::MtblLogisticOptions options;
  options.num_lower_parameters = 40;
  options.train_samples_per_source = 40;
  options.validation_samples = 40;
  options.start_newton_iterations = 2;
  std::string error;
  auto instance = problems::BuildMtblLogistic(options, &error);
  ASSERT_NE(instance, nullptr) << error;
  VectorXd start = instance->start;
  start.head(3) << 0.4, -0.2, 0.1;
  for (int K : {0, 3}) {
    CheckItdHypergradient(*instance->lower_level,
                          instance->evaluator.get(),
                          start,
                          {0.2, 0.5, 0.3},
                          /*T=*/5,
                          K,
                          1.0,
                          1e-6);
  }
}

TEST(MtblBaselineTest, LinearScalarizationMethodsReachTheClosedFormMinimizer) {
  const std::vector<double> w = {0.35, 0.65};
  QuadraticBilevel problem = BuildQuadratic();
  const VectorXd expected = problem.LinearScalarizationMinimizer(w);
  // 1 / the Lipschitz constant of the gradient of the reduced objective.
  const MatrixXd m = problem.M();
  const double step =
      1.0 / ((m.transpose() * m).eigenvalues().real().maxCoeff() + problem.mu);
  {
    // Warm-started ITD: at its fixed point y = y^T = y*(x), and the ITD
    // hypergradient differs from the implicit one by (I - eta A)^T, i.e.
    // 0.7^60 ~ 5e-10 here.
    MtblBaseline::Options options;
    options.type = MtblBaselineType::ITD_LS;
    options.inner_iterations = 60;
    options.inner_step_size = 0.3;
    options.upper_step_size = step;
    options.max_iterations = 2000;
    options.direction_tolerance = 1e-10;
    options.lower_tolerance = 1e-10;
    VectorXd z = problem.start;
    MtblBaseline::Summary summary;
    Solve(options, problem.evaluator.get(), w, &z, &summary);
    EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_LT((z.head(problem.nx()) - expected).norm(), 1e-6)
        << z.head(problem.nx()).transpose() << " vs " << expected.transpose();
    EXPECT_TRUE(summary.IsSolutionUsable());
  }
  {
    // SOBA with constant steps (soba_decay = 0): in the deterministic
    // setting its (x, y, v) iteration is a contraction to the exact
    // solution. With the default 1/sqrt(t + 1) decay the error falls like
    // exp(-c sqrt(t)) (5e-4 after 40000 iterations here), too slow for a
    // 1e-6 check.
    MtblBaseline::Options options;
    options.type = MtblBaselineType::SOBA_LS;
    // (Steps on y and v of 1 / (2 max eig A); the x step is smaller than
    // ITD's: x moves on the lagging estimates of y and v.)
    options.soba_lower_step_size = 1.0 / 6.0;
    options.soba_upper_step_size = 0.2 * step;
    options.soba_decay = 0.0;
    options.max_iterations = 40000;
    options.direction_tolerance = 1e-9;
    options.lower_tolerance = 1e-9;
    options.history_stride = 0;
    VectorXd z = problem.start;
    MtblBaseline::Summary summary;
    Solve(options, problem.evaluator.get(), w, &z, &summary);
    EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_LT((z.head(problem.nx()) - expected).norm(), 1e-6)
        << z.head(problem.nx()).transpose() << " vs " << expected.transpose();
    EXPECT_TRUE(summary.history.empty());
  }
}

// Runs a multi-objective baseline on the quadratic problem and returns the
// exact Pareto-stationarity measure at its final x.
double FinalStationarity(MtblBaseline::Options options,
                         MtblBaseline::Summary* summary,
                         double y_tolerance) {
  QuadraticBilevel problem = BuildQuadratic();
  VectorXd z = problem.start;
  Solve(options, problem.evaluator.get(), {}, &z, summary);
  EXPECT_TRUE(summary->IsSolutionUsable()) << summary->message;
  const VectorXd x = z.head(problem.nx());
  // y is at the lower-level solution.
  EXPECT_LT((z.tail(problem.ny()) - problem.M() * x).norm(), y_tolerance);
  return ParetoStationarity(problem.Hypergradients(x));
}

TEST(MtblBaselineTest, MomlEndsParetoStationary) {
  MtblBaseline::Options options;
  options.type = MtblBaselineType::MOML;
  options.inner_iterations = 60;
  options.inner_step_size = 0.3;
  options.upper_step_size = 0.1;
  options.max_iterations = 3000;
  options.direction_tolerance = 1e-10;
  options.lower_tolerance = 1e-10;
  MtblBaseline::Summary summary;
  const double stationarity =
      FinalStationarity(options, &summary, /*y_tolerance=*/1e-8);
  EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_LT(stationarity, 1e-8);
  EXPECT_NEAR(summary.weights.sum(), 1.0, 1e-12);
}

TEST(MtblBaselineTest, MocoEndsParetoStationary) {
  // MoCo moves x along the tracked Y lambda, whose weights follow a softmax
  // update that is not the exact min-norm solution, with loss-scaled
  // hypergradients (directions of size f_s, hence the small step): it gets
  // there, but the measure is checked less tightly than MOML's.
  MtblBaseline::Options options;
  options.type = MtblBaselineType::MOCO;
  options.inner_iterations = 60;
  options.inner_step_size = 0.3;
  options.upper_step_size = 0.05;
  options.max_iterations = 5000;
  options.history_stride = 0;
  MtblBaseline::Summary summary;
  EXPECT_LT(FinalStationarity(options, &summary, /*y_tolerance=*/1e-6), 1e-6)
      << summary.FullReport();
  EXPECT_NEAR(summary.weights.sum(), 1.0, 1e-12);
}

// FORUM replaces the lower level by the constraint g(x, y) - g(x, y^T) <= 0
// whose gradient vanishes on the lower-level solution set (no constraint
// qualification), and balances the normalized upper gradients against it:
// with constant steps mu it ends O(mu) away from the solution set and from
// Pareto stationarity. So the test checks a looser level and that the
// residual shrinks with the step.
TEST(MtblBaselineTest, ForumApproachesParetoStationarityAsTheStepShrinks) {
  QuadraticBilevel problem = BuildQuadratic();
  const int nx = problem.nx(), ny = problem.ny();
  const double initial =
      ParetoStationarity(problem.Hypergradients(problem.start.head(nx)));
  ASSERT_GT(initial, 0.1);
  double previous = std::numeric_limits<double>::infinity();
  for (double step : {0.05, 0.01}) {
    MtblBaseline::Options options;
    options.type = MtblBaselineType::FORUM;
    options.inner_iterations = 60;
    options.inner_step_size = 0.3;
    options.upper_step_size = step;
    options.forum_lower_step_size = step;
    options.max_iterations = static_cast<int>(500 / step);
    options.history_stride = 0;
    VectorXd z = problem.start;
    MtblBaseline::Summary summary;
    Solve(options, problem.evaluator.get(), {}, &z, &summary);
    ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
    const VectorXd x = z.head(nx);
    const double stationarity = ParetoStationarity(problem.Hypergradients(x));
    const double lower_error = (z.tail(ny) - problem.M() * x).norm();
    EXPECT_LT(stationarity, 2.0 * step * initial) << "step " << step;
    EXPECT_LT(lower_error, 3.0 * step) << "step " << step;
    EXPECT_LT(stationarity, 0.5 * previous) << "step " << step;
    previous = stationarity;
  }
}

// FORUM's first step: lambda-bar equals the QP's lambda (beta = 1 in epoch
// 0); it minimizes the QP (brute force over a grid of the simplex), and the
// direction d satisfies <grad q, d> >= rho ||grad q||^2.
TEST(MtblBaselineTest, ForumFirstStepSolvesItsQpAndDecreasesTheGap) {
  QuadraticBilevel problem = BuildQuadratic(3);
  const int nx = problem.nx(), ny = problem.ny(), S = 3;
  MtblBaseline::Options options;
  options.type = MtblBaselineType::FORUM;
  options.max_iterations = 1;
  options.inner_iterations = 5;
  options.inner_step_size = 0.3;
  options.upper_step_size = 0.2;
  options.forum_lower_step_size = 0.05;
  options.forum_rho = 0.1;
  VectorXd z = problem.start;
  MtblBaseline::Summary summary;
  Solve(options, problem.evaluator.get(), {}, &z, &summary);
  ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
  const VectorXd x0 = problem.start.head(nx), y0 = problem.start.tail(ny);
  VectorXd d(nx + ny);
  d << (x0 - z.head(nx)) / options.upper_step_size,
      (y0 - z.tail(ny)) / options.forum_lower_step_size;
  // grad q = (grad_x g(x, y0) - grad_x g(x, y^T), grad_y g(x, y0)).
  const VectorXd yT = Unroll(*problem.lower, x0, x0, 0, y0, 5, 0.3);
  VectorXd gx0(nx), gxT(nx), gy0(ny);
  problem.lower->GradX(x0.data(), y0.data(), gx0.data());
  problem.lower->GradX(x0.data(), yT.data(), gxT.data());
  problem.lower->GradY(x0.data(), y0.data(), gy0.data());
  VectorXd b(nx + ny);
  b << gx0 - gxT, gy0;
  ASSERT_GT(b.norm(), 1e-3);
  EXPECT_GE(b.dot(d), options.forum_rho * b.squaredNorm() * (1.0 - 1e-6));
  // The QP by brute force, with the normalized gradients G_s.
  MatrixXd G(nx + ny, S);
  for (int s = 0; s < S; ++s) {
    G.col(s) << problem.mu * x0, y0 - problem.targets[s];
    G.col(s) /= G.col(s).norm() + 1e-8;
  }
  const double B = b.squaredNorm() + 1e-8;
  const VectorXd pi =
      (options.forum_rho - (G.transpose() * b).array() / B).matrix();
  auto qp = [&](const VectorXd& l) {
    // min over nu >= max(0, pi.l) of ||G l + nu b||^2 - nu rho B (convex in
    // nu; its unconstrained minimizer is clipped).
    const VectorXd a = G * l;
    const double nu_free =
        (options.forum_rho * B - 2.0 * a.dot(b)) / (2.0 * b.squaredNorm());
    const double nu = std::max({0.0, pi.dot(l), nu_free});
    return (a + nu * b).squaredNorm() - nu * options.forum_rho * B;
  };
  double grid_min = std::numeric_limits<double>::infinity();
  const int n = 300;
  for (int i = 0; i <= n; ++i) {
    for (int j = 0; j <= n - i; ++j) {
      VectorXd l(3);
      l << i / double(n), j / double(n), (n - i - j) / double(n);
      grid_min = std::min(grid_min, qp(l));
    }
  }
  ASSERT_EQ(summary.weights.size(), S);
  EXPECT_LE(qp(summary.weights), grid_min + 1e-12);
  EXPECT_GE(qp(summary.weights), grid_min - 1e-2);
  // d is the code's "problem (12)" direction with lambda-bar.
  const double nu = std::max(pi.dot(summary.weights), 0.0);
  EXPECT_LT((d - (G * summary.weights + nu * b)).norm(), 1e-9 * d.norm());
}

// ------------------------------------------------------------- bad input --

TEST(MtblBaselineTest, BadInputFailsWithAClearMessage) {
  QuadraticBilevel problem = BuildQuadratic();
  MtblBaseline::Options options;
  options.type = MtblBaselineType::ITD_LS;
  options.max_iterations = 5;
  // Steps for this problem (the defaults suit a much flatter lower level).
  options.inner_step_size = 0.3;
  options.upper_step_size = 0.1;
  options.forum_lower_step_size = 0.1;
  auto run = [&](const MtblBaseline::Options& o,
                 MtblEvaluator* evaluator,
                 const std::vector<double>& w,
                 VectorXd* z) {
    MtblBaseline::Summary summary;
    Solve(o, evaluator, w, z, &summary);
    return summary;
  };
  VectorXd z = problem.start;
  for (const std::vector<double>& w : std::vector<std::vector<double>>{
           {}, {1.0}, {0.5, 0.6}, {-0.5, 1.5}, {std::nan(""), 1.0}}) {
    for (MtblBaselineType type :
         {MtblBaselineType::ITD_LS, MtblBaselineType::SOBA_LS}) {
      options.type = type;
      const MtblBaseline::Summary summary =
          run(options, problem.evaluator.get(), w, &z);
      EXPECT_EQ(summary.termination_type, ceres::FAILURE);
      EXPECT_NE(summary.message.find("weight"), std::string::npos)
          << summary.message;
      EXPECT_FALSE(summary.IsSolutionUsable());
      EXPECT_EQ(z, problem.start);  // untouched
    }
  }
  // The multi-objective methods ignore the weights.
  options.type = MtblBaselineType::MOML;
  EXPECT_TRUE(run(options, problem.evaluator.get(), {}, &z).IsSolutionUsable());
  z = problem.start;

  MtblBaseline::Options bad = options;
  bad.inner_iterations = 0;
  MtblBaseline::Summary summary = run(bad, problem.evaluator.get(), {}, &z);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("inner_iterations"), std::string::npos)
      << summary.message;
  bad = options;
  bad.upper_step_size = -1.0;
  std::string error;
  EXPECT_FALSE(bad.IsValid(&error));
  EXPECT_NE(error.find("Invalid configuration. MtblBaseline::Options::upper_"
                       "step_size = -1"),
            std::string::npos)
      << error;
  bad = options;
  bad.moco_beta = 2.0;
  EXPECT_FALSE(bad.IsValid(&error));

  // Null evaluator, wrong sizes, a non-finite start.
  summary = run(options, nullptr, {}, &z);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  VectorXd short_z = problem.start.head(4);
  summary = run(options, problem.evaluator.get(), {}, &short_z);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("nx + ny = 7"), std::string::npos)
      << summary.message;
  VectorXd nan_z = problem.start;
  nan_z[0] = std::nan("");
  summary = run(options, problem.evaluator.get(), {}, &nan_z);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);

  // FORUM on a lower level without GradX.
  QuadraticBilevel no_grad_x = BuildQuadratic(2, /*has_grad_x=*/false);
  options.type = MtblBaselineType::FORUM;
  z = no_grad_x.start;
  summary = run(options, no_grad_x.evaluator.get(), {}, &z);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("GradX"), std::string::npos)
      << summary.message;
  EXPECT_EQ(z, no_grad_x.start);
  // FORUM's exact QP has a size limit.
  QuadraticBilevel many = BuildQuadratic(11);
  z = many.start;
  summary = run(options, many.evaluator.get(), {}, &z);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("at most 10"), std::string::npos)
      << summary.message;
}

TEST(MtblBaselineTest, NonFiniteObjectiveStopsWithoutCrashing) {
  // f_0 is NaN away from x[0] = center: at the start (radius < 0) ->
  // FAILURE; during the run (radius = half of a clean run's move of x[0]
  // over 3 iterations) -> NO_CONVERGENCE at the last finite iterate.
  for (MtblBaselineType type : {MtblBaselineType::MOML,
                                MtblBaselineType::MOCO,
                                MtblBaselineType::FORUM,
                                MtblBaselineType::ITD_LS,
                                MtblBaselineType::SOBA_LS}) {
    SCOPED_TRACE(MtblBaselineTypeToString(type));
    QuadraticBilevel clean = BuildQuadratic();
    const double center = clean.start[0];
    QuadraticBilevel at_start = BuildQuadratic(2, true, center, -1.0);
    MtblBaseline::Options options;
    options.type = type;
    options.max_iterations = 3;
    options.inner_step_size = 0.3;
    options.upper_step_size = 0.1;
    options.forum_lower_step_size = 0.1;
    options.soba_lower_step_size = 0.1;
    options.soba_upper_step_size = 0.1;
    VectorXd z = at_start.start;
    MtblBaseline::Summary summary;
    Solve(options, at_start.evaluator.get(), {0.5, 0.5}, &z, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("start point"), std::string::npos)
        << summary.message;
    EXPECT_EQ(z, at_start.start);

    VectorXd z_clean = clean.start;
    MtblBaseline::Summary clean_summary;
    Solve(options, clean.evaluator.get(), {0.5, 0.5}, &z_clean, &clean_summary);
    ASSERT_TRUE(clean_summary.IsSolutionUsable()) << clean_summary.message;
    const double radius = 0.5 * std::abs(z_clean[0] - center);
    ASSERT_GT(radius, 0.0);
    QuadraticBilevel poisoned = BuildQuadratic(2, true, center, radius);
    z = poisoned.start;
    Solve(options, poisoned.evaluator.get(), {0.5, 0.5}, &z, &summary);
    EXPECT_EQ(summary.termination_type, ceres::NO_CONVERGENCE);
    EXPECT_NE(summary.message.find("non-finite"), std::string::npos)
        << summary.message;
    EXPECT_TRUE(z.allFinite());
    EXPECT_LE(std::abs(z[0] - center), radius);
    EXPECT_TRUE(summary.upper_objectives.allFinite());
    EXPECT_TRUE(summary.IsSolutionUsable());
  }
}

TEST(MtblBaselineTest, NamesRoundTrip) {
  for (MtblBaselineType type : {MtblBaselineType::MOML,
                                MtblBaselineType::MOCO,
                                MtblBaselineType::FORUM,
                                MtblBaselineType::ITD_LS,
                                MtblBaselineType::SOBA_LS}) {
    MtblBaselineType parsed = MtblBaselineType::MOML;
    ASSERT_TRUE(
        StringToMtblBaselineType(MtblBaselineTypeToString(type), &parsed));
    EXPECT_EQ(parsed, type);
  }
  MtblBaselineType parsed;
  EXPECT_TRUE(StringToMtblBaselineType("ITD_LS", &parsed));
  EXPECT_EQ(parsed, MtblBaselineType::ITD_LS);
  EXPECT_FALSE(StringToMtblBaselineType("mgda", &parsed));
}

// ------------------------------------------------- mtbl_logistic, small --

// Every method lowers the (weighted or mean) upper objective from the start
// and counts its oracle calls as the header states.
TEST(MtblBaselineTest, EveryMethodDecreasesTheObjectivesOnMtblLogistic) {
  problems::MtblLogisticOptions instance_options;
  // Six sources for two tasks: at x = 0 the tasks conflict on the
  // sources of the two groups but agree on sources within a group, so the
  // start is not Pareto stationary (with three sources and three tasks it
  // is, and MOML rightly stops at once).
  instance_options.num_lower_parameters = 40;
  instance_options.num_sources = 6;
  instance_options.num_tasks = 2;
  instance_options.train_samples_per_source = 40;
  instance_options.validation_samples = 60;
  std::string error;
  auto instance = problems::BuildMtblLogistic(instance_options, &error);
  ASSERT_NE(instance, nullptr) << error;
  const int S = 2, T = 4, K = 2, n = 20;
  const std::vector<double> w = {0.7, 0.3};
  const VectorXd wv = Eigen::Map<const VectorXd>(w.data(), S);
  for (MtblBaselineType type : {MtblBaselineType::MOML,
                                MtblBaselineType::MOCO,
                                MtblBaselineType::FORUM,
                                MtblBaselineType::ITD_LS,
                                MtblBaselineType::SOBA_LS}) {
    SCOPED_TRACE(MtblBaselineTypeToString(type));
    MtblBaseline::Options options;
    options.type = type;
    options.max_iterations = n;
    options.inner_iterations = T;
    options.itd_truncation = K;
    options.inner_step_size = 1.0;
    options.upper_step_size = 1.0;
    options.forum_lower_step_size = 1.0;
    options.soba_lower_step_size = 1.0;
    options.soba_upper_step_size = 1.0;
    options.history_stride = 7;
    const bool ls =
        type == MtblBaselineType::ITD_LS || type == MtblBaselineType::SOBA_LS;
    VectorXd z = instance->start;
    MtblBaseline::Summary summary;
    Solve(options,
          instance->evaluator.get(),
          ls ? w : std::vector<double>{},
          &z,
          &summary);
    ASSERT_TRUE(summary.IsSolutionUsable()) << summary.FullReport();
    EXPECT_EQ(summary.iterations, n);
    ASSERT_GE(summary.history.size(), 2u);
    const VectorXd& f0 = summary.history.front().upper_objectives;
    const VectorXd& f1 = summary.upper_objectives;
    if (ls) {
      EXPECT_LT(wv.dot(f1), wv.dot(f0) - 1e-4);
    } else {
      EXPECT_LT(f1.sum(), f0.sum() - 1e-4);
    }
    // History: iterations 0, 7, 14 and the last (20).
    ASSERT_EQ(summary.history.size(), 4u);
    EXPECT_EQ(summary.history[1].iteration, 7);
    EXPECT_EQ(summary.history.back().iteration, n);
    EXPECT_EQ(summary.history.back().upper_objectives, f1);
    // Oracle accounting (the table in the header).
    switch (type) {
      case MtblBaselineType::MOML:
      case MtblBaselineType::MOCO:
        EXPECT_EQ(summary.upper_values, n + 1);
        EXPECT_EQ(summary.upper_gradients, n);
        EXPECT_EQ(summary.lower_gradients, 1 + n * (T + 1));
        EXPECT_EQ(summary.hessian_products, n * S * K);
        EXPECT_EQ(summary.lower_x_gradients, 0);
        break;
      case MtblBaselineType::ITD_LS:
        EXPECT_EQ(summary.upper_values, n + 1);
        EXPECT_EQ(summary.upper_gradients, n);
        EXPECT_EQ(summary.lower_gradients, 1 + n * (T + 1));
        EXPECT_EQ(summary.hessian_products, n * K);
        break;
      case MtblBaselineType::FORUM:
        EXPECT_EQ(summary.upper_values, 0);
        EXPECT_EQ(summary.upper_gradients, n + 1);
        EXPECT_EQ(summary.lower_gradients, 1 + n * T);
        EXPECT_EQ(summary.lower_x_gradients, 2 * n);
        EXPECT_EQ(summary.hessian_products, 0);
        break;
      case MtblBaselineType::SOBA_LS:
        EXPECT_EQ(summary.upper_gradients, n + 1);
        EXPECT_EQ(summary.lower_gradients, n + 1);
        EXPECT_EQ(summary.hessian_products, n);
        break;
    }
    // The evaluator's own counters agree with the summary's.
    EXPECT_FALSE(summary.BriefReport().empty());
    EXPECT_NE(summary.FullReport().find("Hessian-vector products"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace ecmo
