// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Linear scalarization (the paper's Algorithm 2): the theorem's bound
// L_lambda(z_t) - L_lambda(z*) <= L / (2t) ||z0 - z*||^2 at every t, on
// convex_line and on a random convex quadratic family, with z* from the KKT
// linear system; the LS KKT report; constraint extraction and its refusals.

#include "ecmo/linear_scalarization.h"

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Dense"
#include "ecmo/evaluator.h"
#include "ecmo/problem.h"
#include "ecmo/problems/registry.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

// f_s(z) = 1/2 z^T Q_s z + c_s^T z, optionally with constraints h = A z - b.
class QuadraticEvaluator final : public Evaluator {
 public:
  QuadraticEvaluator(std::vector<Eigen::MatrixXd> Q,
                     std::vector<Eigen::VectorXd> c,
                     Eigen::MatrixXd A,
                     Eigen::VectorXd b)
      : Q_(std::move(Q)),
        c_(std::move(c)),
        A_(std::move(A)),
        b_(std::move(b)) {}
  int NumParameters() const override { return static_cast<int>(c_[0].size()); }
  int NumObjectives() const override { return static_cast<int>(Q_.size()); }
  int NumConstraints() const override { return static_cast<int>(A_.rows()); }

 protected:
  bool DoEvaluate(const double* zp,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string*) override {
    const Eigen::Map<const Eigen::VectorXd> z(zp, NumParameters());
    for (size_t s = 0; s < Q_.size(); ++s) {
      f[s] = 0.5 * z.dot(Q_[s] * z) + c_[s].dot(z);
      if (grad_f != nullptr) {
        Eigen::Map<Eigen::VectorXd>(grad_f + s * z.size(), z.size()) =
            Q_[s] * z + c_[s];
      }
    }
    if (A_.rows() > 0) {
      Eigen::Map<Eigen::VectorXd>(h, A_.rows()) = A_ * z - b_;
    }
    return true;
  }
  void DoJacobianTransposeMultiply(const double* v,
                                   double* out) const override {
    Eigen::Map<Eigen::VectorXd>(out, NumParameters()) =
        A_.transpose() * Eigen::Map<const Eigen::VectorXd>(v, A_.rows());
  }
  void DoJacobianMultiply(const double* x, double* out) const override {
    Eigen::Map<Eigen::VectorXd>(out, A_.rows()) =
        A_ * Eigen::Map<const Eigen::VectorXd>(x, NumParameters());
  }

 private:
  std::vector<Eigen::MatrixXd> Q_;
  std::vector<Eigen::VectorXd> c_;
  Eigen::MatrixXd A_;
  Eigen::VectorXd b_;
};

// The LS optimum of sum_s lambda_s (1/2 z^T Q_s z + c_s^T z) s.t. A z = b
// from the KKT linear system [H A^T; A 0] [z; v] = [-c; b].
Eigen::VectorXd SolveKkt(const Eigen::MatrixXd& H,
                         const Eigen::VectorXd& c,
                         const Eigen::MatrixXd& A,
                         const Eigen::VectorXd& b) {
  const int k = static_cast<int>(H.rows());
  const int q = static_cast<int>(A.rows());
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(k + q, k + q);
  M.topLeftCorner(k, k) = H;
  M.topRightCorner(k, q) = A.transpose();
  M.bottomLeftCorner(q, k) = A;
  Eigen::VectorXd rhs(k + q);
  rhs << -c, b;
  return M.fullPivLu().solve(rhs).head(k);
}

// Checks the theorem at every t of the history. With backtracking the
// bound uses the largest estimate so far (recorded per iteration).
void ExpectTheoremBound(const LinearScalarizationSummary& summary,
                        double optimum,
                        const Eigen::VectorXd& z_star,
                        double given_L) {
  const double d0 = (summary.projected_initial_z - z_star).squaredNorm();
  ASSERT_EQ(static_cast<int>(summary.history.size()), summary.iterations + 1);
  for (size_t t = 1; t < summary.history.size(); ++t) {
    const LinearScalarizationIteration& it = summary.history[t];
    const double L = given_L > 0.0 ? given_L : it.lipschitz_constant;
    const double gap = it.weighted_objective - optimum;
    EXPECT_LE(gap, L / (2.0 * t) * d0 + 1e-12 * (1.0 + std::abs(optimum)))
        << "t = " << t << ", L = " << L;
    EXPECT_GE(gap, -1e-9 * (1.0 + std::abs(optimum)));
    // Monotone decrease (the proof's "decreasing property").
    EXPECT_LE(it.weighted_objective,
              summary.history[t - 1].weighted_objective +
                  1e-12 * (1.0 + std::abs(optimum)));
  }
}

TEST(LinearScalarization, TheoremBoundOnConvexLine) {
  const problems::ProblemInfo* info = problems::Find("convex_line");
  ASSERT_NE(info, nullptr);
  // f1 = z1^2 + 4 z2^2, f2 = 4 (z1-2)^2 + (z2-2)^2, 0.5 z1 - z2 = 0.1.
  Eigen::MatrixXd A(1, 2);
  A << 0.5, -1.0;
  const Eigen::VectorXd b = Eigen::VectorXd::Constant(1, 0.1);
  for (double l1 : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    const double l2 = 1.0 - l1;
    Eigen::MatrixXd H(2, 2);
    H << 2 * l1 + 8 * l2, 0, 0, 8 * l1 + 2 * l2;
    const Eigen::Vector2d c(-16 * l2, -4 * l2);
    const Eigen::VectorXd z_star = SolveKkt(H, c, A, b);
    const double L = H.diagonal().maxCoeff();
    auto f_of = [&](const Eigen::VectorXd& z) {
      const double f1 = z[0] * z[0] + 4 * z[1] * z[1];
      const double f2 = 4 * (z[0] - 2) * (z[0] - 2) + (z[1] - 2) * (z[1] - 2);
      return l1 * f1 + l2 * f2;
    };
    const double optimum = f_of(z_star);
    for (bool backtracking : {false, true}) {
      std::unique_ptr<problems::ProblemInstance> instance = info->build();
      LinearScalarizationOptions options;
      options.max_iterations = 200;
      options.lipschitz_constant = backtracking ? 0.0 : L;
      LinearScalarizationSummary summary;
      SolveLinearScalarization(options, instance->problem, {l1, l2}, &summary);
      ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
      EXPECT_EQ(summary.iterations, 200);
      EXPECT_EQ(summary.lipschitz_estimated, backtracking);
      EXPECT_NE(summary.constraint_source.find("extracted"), std::string::npos);
      // z0 = (0, 1) projected onto the line.
      EXPECT_NEAR(A.row(0).dot(summary.projected_initial_z), 0.1, 1e-14);
      ExpectTheoremBound(summary, optimum, z_star, backtracking ? 0.0 : L);
      if (backtracking) {
        EXPECT_LE(summary.lipschitz_constant, 2.0 * L + 1e-9);
      }
      // Strongly convex on the line: converged to z*.
      EXPECT_LT((summary.z - z_star).norm(), 1e-8) << "lambda1 = " << l1;
      EXPECT_LT(summary.kkt_residual_sq, 1e-14);
      EXPECT_LT(summary.kkt_feasibility.norm(), 1e-14);
      // The solution is written back into the parameter blocks.
      EXPECT_NEAR(instance->blocks[0][0], z_star[0], 1e-8);
      // The multiplier solves grad L + A^T v = 0.
      EXPECT_EQ(summary.multiplier_v.size(), 1);
    }
  }
}

TEST(LinearScalarization, TheoremBoundOnRandomConvexQuadratics) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  auto random_matrix = [&](int rows, int cols) {
    Eigen::MatrixXd M(rows, cols);
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) M(i, j) = normal(rng);
    }
    return M;
  };
  for (int trial = 0; trial < 20; ++trial) {
    const int k = 3 + trial % 6;
    const int q = trial % 3 == 0 ? 0 : 1 + trial % (k - 1);
    const int S = 2 + trial % 3;
    std::vector<Eigen::MatrixXd> Q;
    std::vector<Eigen::VectorXd> c;
    for (int s = 0; s < S; ++s) {
      // Rank-deficient Q_s (k - 1 columns) for s > 0: convex, not strongly.
      const Eigen::MatrixXd M = random_matrix(k, s == 0 ? k : k - 1);
      Q.push_back(M * M.transpose() / k);
      c.push_back(random_matrix(k, 1));
    }
    const Eigen::MatrixXd A = random_matrix(q, k);
    const Eigen::VectorXd b = random_matrix(q, 1);
    std::vector<double> lambda(S);
    double sum = 0.0;
    for (int s = 0; s < S; ++s)
      sum += (lambda[s] = 0.1 + std::abs(normal(rng)));
    for (double& l : lambda) l /= sum;
    if (trial % 5 == 4) {  // a boundary preference of the closed simplex
      lambda.assign(S, 0.0);
      lambda[0] = 1.0;
    }
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(k, k);
    Eigen::VectorXd cl = Eigen::VectorXd::Zero(k);
    for (int s = 0; s < S; ++s) {
      H += lambda[s] * Q[s];
      cl += lambda[s] * c[s];
    }
    const Eigen::VectorXd z_star = SolveKkt(H, cl, A, b);
    const double optimum = 0.5 * z_star.dot(H * z_star) + cl.dot(z_star);
    const double L = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(H)
                         .eigenvalues()
                         .maxCoeff();
    // Explicit constraints on an evaluator without its own (the legacy
    // argument, or LinearScalarization::Options::constraints), and
    // extracted constraints from an evaluator that has them.
    for (int mode : {0, 1, 2}) {
      const bool explicit_constraints = mode < 2;
      QuadraticEvaluator evaluator(
          Q,
          c,
          explicit_constraints ? Eigen::MatrixXd(0, k) : A,
          explicit_constraints ? Eigen::VectorXd(0) : b);
      AffineConstraints constraints{A, b};
      Eigen::VectorXd z = 3.0 * random_matrix(k, 1);
      LinearScalarization::Options options;
      options.max_iterations = 300;
      options.lipschitz_constant = trial % 2 == 0 ? L : 0.0;
      LinearScalarization::Summary summary;
      if (mode == 1) {
        options.constraints = std::make_shared<AffineConstraints>(constraints);
        Solve(options, &evaluator, lambda, &z, &summary);
      } else {
        SolveLinearScalarization(options,
                                 &evaluator,
                                 lambda,
                                 explicit_constraints ? &constraints : nullptr,
                                 &z,
                                 &summary);
      }
      ASSERT_TRUE(summary.IsSolutionUsable())
          << "trial " << trial << ": " << summary.message;
      EXPECT_EQ(summary.num_constraints, q);
      ExpectTheoremBound(summary, optimum, z_star, options.lipschitz_constant);
      EXPECT_LT((A * z - b).norm(), 1e-10);
    }
  }
}

TEST(LinearScalarization, KktToleranceStopsEarly) {
  const problems::ProblemInfo* info = problems::Find("convex_line");
  std::unique_ptr<problems::ProblemInstance> instance = info->build();
  LinearScalarizationOptions options;
  options.max_iterations = 100000;
  options.kkt_tolerance = 1e-20;
  LinearScalarizationSummary summary;
  SolveLinearScalarization(options, instance->problem, {0.3, 0.7}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_LT(summary.iterations, 1000);
  EXPECT_LE(summary.kkt_residual_sq, 1e-20);
  EXPECT_NE(summary.FullReport().find("KKT system of the LS problem"),
            std::string::npos);
}

TEST(LinearScalarization, RefusesWhatItCannotSolve) {
  {
    // A nonlinear constraint (the unit circle) is not extracted.
    double z[2] = {0.5, 0.5};
    Problem problem;
    testing::BuildGebken(z, &problem);
    LinearScalarizationOptions options;
    LinearScalarizationSummary summary;
    SolveLinearScalarization(options, problem, {0.5, 0.5}, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("not affine"), std::string::npos)
        << summary.message;
    EXPECT_EQ(z[0], 0.5);  // untouched
  }
  std::vector<Eigen::MatrixXd> Q = {Eigen::MatrixXd::Identity(3, 3)};
  std::vector<Eigen::VectorXd> c = {Eigen::VectorXd::Ones(3)};
  QuadraticEvaluator evaluator(Q, c, Eigen::MatrixXd(0, 3), Eigen::VectorXd(0));
  Eigen::VectorXd z = Eigen::VectorXd::Zero(3);
  LinearScalarizationOptions options;
  LinearScalarizationSummary summary;
  {
    // Rank-deficient A: two identical rows.
    Eigen::MatrixXd A(2, 3);
    A << 1, 2, 3, 1, 2, 3;
    AffineConstraints constraints{A, Eigen::Vector2d(1, 1)};
    SolveLinearScalarization(
        options, &evaluator, {1.0}, &constraints, &z, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("rank deficient: rank 1 < 2"),
              std::string::npos)
        << summary.message;
  }
  {
    // Sizes that do not match.
    AffineConstraints constraints{Eigen::MatrixXd::Ones(1, 2),
                                  Eigen::VectorXd::Ones(1)};
    SolveLinearScalarization(
        options, &evaluator, {1.0}, &constraints, &z, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("must be q x 3"), std::string::npos)
        << summary.message;
  }
  {
    // Preferences: closed simplex accepted, negative entries refused.
    std::string error;
    EXPECT_TRUE(ValidateClosedSimplexPreference({1.0, 0.0}, 2, &error));
    EXPECT_FALSE(ValidateClosedSimplexPreference({1.2, -0.2}, 2, &error));
    EXPECT_NE(error.find("closed simplex"), std::string::npos);
    EXPECT_FALSE(ValidateClosedSimplexPreference({0.5, 0.4}, 2, &error));
  }
  {
    LinearScalarizationOptions bad;
    bad.lipschitz_increase = 1.0;
    std::string error;
    EXPECT_FALSE(bad.IsValid(&error));
    EXPECT_NE(error.find("lipschitz_increase"), std::string::npos) << error;
    SolveLinearScalarization(bad, &evaluator, {1.0}, nullptr, &z, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  }
  {
    // No constraints at all: plain gradient descent to -c.
    SolveLinearScalarization(options, &evaluator, {1.0}, nullptr, &z, &summary);
    ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
    EXPECT_LT((z + Eigen::VectorXd::Ones(3)).norm(), 1e-10);
  }
}

}  // namespace
}  // namespace ecmo
