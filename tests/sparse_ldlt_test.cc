// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Tests of the sparse LDL^T that keeps its symbolic analysis
// (plugin/src/sparse_ldlt.h) and of its use by wc-newton through the
// evaluator (Evaluator::gauss_newton_factorization):
//   - solves of (G + diag(shift)) x = b against a dense Cholesky of the
//     same matrix (independent), for new values on the same pattern (no new
//     analysis), a new pattern (a new analysis), a pattern without some
//     diagonal entries, and a singular matrix (refused with a message);
//   - the points of a pose-graph sweep solved on one adapter (one analysis
//     for all of them) equal the points solved each on a fresh adapter
//     (an analysis each).

#include "sparse_ldlt.h"

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Dense"
#include "Eigen/SparseCore"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/problems/pose_graph.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace internal {
namespace {

using SparseMatrix = Eigen::SparseMatrix<double>;

// Lower triangle of a symmetric matrix with a band of half-width 2, a few
// far entries (a pose graph's loop closures), and the diagonal except at
// `missing_diagonal` (-1: none missing). Values from `seed`; positive
// definite after a shift of n.
SparseMatrix RandomLower(int n, unsigned seed, int missing_diagonal = -1) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Eigen::Triplet<double>> entries;
  for (int j = 0; j < n; ++j) {
    for (int i = j; i < std::min(n, j + 3); ++i) {
      if (i == j && i == missing_diagonal) continue;
      entries.emplace_back(i, j, i == j ? 2.0 + value(random) : value(random));
    }
    if (j + n / 2 < n && j % 5 == 0) {
      entries.emplace_back(j + n / 2, j, value(random));
    }
  }
  SparseMatrix lower(n, n);
  lower.setFromTriplets(entries.begin(), entries.end());
  lower.makeCompressed();
  return lower;
}

// x from a dense Cholesky of lower + lower^T - diag(lower) + diag(shift).
Eigen::VectorXd DenseSolve(const SparseMatrix& lower,
                           const Eigen::VectorXd& shift,
                           const Eigen::VectorXd& b) {
  const Eigen::MatrixXd l = Eigen::MatrixXd(lower);
  Eigen::MatrixXd m = l + l.transpose();
  m.diagonal() -= l.diagonal();
  m.diagonal() += shift;
  return m.llt().solve(b);
}

void ExpectSolves(SparseLdlt& ldlt,
                  const SparseMatrix& lower,
                  const Eigen::VectorXd& shift,
                  unsigned seed) {
  std::string error;
  ASSERT_TRUE(ldlt.Factorize(lower, shift, &error)) << error;
  std::mt19937 random(seed);
  std::normal_distribution<double> normal;
  Eigen::VectorXd b(lower.rows());
  for (int i = 0; i < b.size(); ++i) b[i] = normal(random);
  const Eigen::VectorXd expected = DenseSolve(lower, shift, b);
  EXPECT_LE((ldlt.Solve(b) - expected).norm(), 1e-12 * expected.norm());
}

TEST(SparseLdlt, KeepsItsAnalysisWhileThePatternStays) {
  constexpr int n = 40;
  SparseLdlt ldlt;
  const Eigen::VectorXd shift = Eigen::VectorXd::Constant(n, n);
  ExpectSolves(ldlt, RandomLower(n, 1), shift, 10);
  EXPECT_EQ(ldlt.num_analyses(), 1);
  // New values, same pattern; a different shift.
  ExpectSolves(ldlt, RandomLower(n, 2), 2.0 * shift, 11);
  ExpectSolves(ldlt, RandomLower(n, 3), shift, 12);
  EXPECT_EQ(ldlt.num_analyses(), 1);
  // A new pattern (another size) is analyzed again, and so is the old
  // one when it comes back.
  ExpectSolves(
      ldlt, RandomLower(n + 5, 4), Eigen::VectorXd::Constant(n + 5, n), 13);
  EXPECT_EQ(ldlt.num_analyses(), 2);
  ExpectSolves(ldlt, RandomLower(n, 5), shift, 14);
  EXPECT_EQ(ldlt.num_analyses(), 3);
}

TEST(SparseLdlt, PatternWithoutSomeDiagonalEntries) {
  constexpr int n = 30;
  SparseLdlt ldlt;
  const Eigen::VectorXd shift = Eigen::VectorXd::Constant(n, n);
  ExpectSolves(ldlt, RandomLower(n, 6, /*missing_diagonal=*/7), shift, 15);
  ExpectSolves(ldlt, RandomLower(n, 7, /*missing_diagonal=*/7), shift, 16);
  EXPECT_EQ(ldlt.num_analyses(), 1);
}

TEST(SparseLdlt, SingularMatrixIsRefused) {
  constexpr int n = 10;
  SparseMatrix zero(n, n);
  zero.setIdentity();
  zero *= 0.0;
  SparseLdlt ldlt;
  std::string error;
  EXPECT_FALSE(ldlt.Factorize(zero, Eigen::VectorXd::Zero(n), &error));
  EXPECT_NE(error.find("LDL^T"), std::string::npos) << error;
}

// A sweep's points on one adapter (one analysis) equal the same points on a
// fresh adapter each (an analysis each): the kept analysis changes nothing
// but its cost.
TEST(SparseLdlt, SweepOnOneEvaluatorSharesOneAnalysisSamePoints) {
  problems::PoseGraph2d::Options graph_options;
  graph_options.num_poses = 60;
  std::string error;
  auto graph = problems::PoseGraph2d::Create(graph_options, &error);
  ASSERT_NE(graph, nullptr) << error;
  auto make_adapter = [&]() {
    return std::make_unique<CeresProblemAdapter>(
        &graph->problem,
        graph->ObjectiveGroups(),
        std::vector<CeresProblemAdapter::ResidualGroup>{});
  };
  std::unique_ptr<CeresProblemAdapter> shared = make_adapter();
  ASSERT_TRUE(shared->IsValid(&error)) << error;
  const Eigen::VectorXd start = shared->GetParameters();
  Solver::Options options;
  options.strategy = StrategyType::WC_NEWTON;
  options.reference_point = {0.0, 0.0};
  options.objective_scale = {1.0, 1.0};
  options.normalize_objectives = false;
  for (double t : {0.2, 0.5, 0.8}) {
    SCOPED_TRACE("lambda_1 = " + std::to_string(t));
    Solver::Summary on_shared, on_fresh;
    Eigen::VectorXd z = start;
    Solve(options, shared.get(), {t, 1.0 - t}, &z, &on_shared);
    std::unique_ptr<CeresProblemAdapter> fresh = make_adapter();
    z = start;
    Solve(options, fresh.get(), {t, 1.0 - t}, &z, &on_fresh);
    ASSERT_EQ(on_shared.termination_type, ceres::CONVERGENCE)
        << on_shared.message;
    ASSERT_EQ(on_fresh.termination_type, ceres::CONVERGENCE)
        << on_fresh.message;
    EXPECT_GT(on_shared.evaluations.gauss_newton_matrices, 0);
    EXPECT_LE((on_shared.objectives - on_fresh.objectives).norm(),
              1e-12 * on_fresh.objectives.norm());
    EXPECT_EQ(fresh->gauss_newton_factorization()->num_analyses(), 1);
  }
  EXPECT_EQ(shared->gauss_newton_factorization()->num_analyses(), 1);
}

}  // namespace
}  // namespace internal
}  // namespace ecmo
