// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Sparse LDL^T of a damped Gauss-Newton matrix, M = G + diag(d), that keeps
// its symbolic analysis (fill-reducing ordering and elimination tree) for as
// long as the pattern of G stays the same.
//
// Why a class of its own: an evaluator's Gauss-Newton matrix has the same
// pattern on every call (Evaluator::GaussNewtonMatrix), so one analysis
// serves every factorization of a sweep, not only of one point. The
// analysis (AMD ordering) costs about two factorizations; on a 334-pose
// pose graph it was 8% of a warm sweep when each ecmo::Solve redid it. The
// evaluator owns one (Evaluator::gauss_newton_factorization), so the points
// of a sweep on one evaluator share it, and workers with their own
// evaluators never share one.
//
// The pattern is compared entry by entry before every factorization (a few
// microseconds against a factorization's hundreds): a caller whose pattern
// changes gets a new analysis, never a wrong factorization.

#ifndef ECMO_INTERNAL_SPARSE_LDLT_H_
#define ECMO_INTERNAL_SPARSE_LDLT_H_

#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/SparseCholesky"
#include "Eigen/SparseCore"

namespace ecmo {
namespace internal {

class SparseLdlt {
 public:
  using SparseMatrix = Eigen::SparseMatrix<double>;

  // Factorizes M = lower + diag(shift), where `lower` is the lower
  // triangle (diagonal included) of a symmetric n x n matrix, compressed
  // column major, and shift has size n. Reuses the symbolic analysis when
  // `lower` has the pattern of the last call. False with a message when M
  // is not numerically factorizable (e.g. singular).
  bool Factorize(const SparseMatrix& lower,
                 const Eigen::VectorXd& shift,
                 std::string* error);

  // M^-1 b for the last successful Factorize.
  Eigen::VectorXd Solve(const Eigen::VectorXd& b) const {
    return ldlt_.solve(b);
  }

  // Symbolic analyses so far (tests check that a sweep does one).
  int num_analyses() const { return num_analyses_; }

 private:
  bool SamePattern(const SparseMatrix& lower) const;
  void Analyze(const SparseMatrix& lower);
  // damped_ = lower + diag(shift), in place when full_diagonal_.
  void FormDamped(const SparseMatrix& lower, const Eigen::VectorXd& shift);

  // The pattern of the analyzed `lower`.
  std::vector<SparseMatrix::StorageIndex> outer_, inner_;
  bool analyzed_ = false;
  // Whether `lower` stores every diagonal entry: then M has its pattern and
  // is filled in place; otherwise M = lower + diag(shift) is formed anew.
  bool full_diagonal_ = false;
  // Position of (i, i) in damped_'s values (full_diagonal_ only).
  std::vector<Eigen::Index> diagonal_position_;
  SparseMatrix damped_;
  Eigen::SimplicialLDLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<int>>
      ldlt_;
  int num_analyses_ = 0;
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_SPARSE_LDLT_H_
