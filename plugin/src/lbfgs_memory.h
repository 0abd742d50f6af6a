// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: the pairs of limited-memory BFGS and the two-loop
// recursion (Nocedal and Wright, "Numerical Optimization", Algorithm 7.4),
// the one home of both for BoxLbfgs (the inner solver of the quasi-Newton
// strategies) and WC_SQP's limited-memory curvature.
//
// H approximates the inverse Hessian from the last `rank` pairs
// s_i = x_{i+1} - x_i, y_i = g_{i+1} - g_i, with H0 = gamma I,
// gamma = s^T y / y^T y of the newest pair (the identity before the first
// pair). The pairs live in a ring of `rank` columns allocated by Resize and
// reused: in steady state neither storing a pair nor applying H touches
// the heap (at large n, freed buffers were returned to the kernel and
// faulted in again on every solve; issue 16).

#ifndef ECMO_INTERNAL_LBFGS_MEMORY_H_
#define ECMO_INTERNAL_LBFGS_MEMORY_H_

#include "Eigen/Core"

namespace ecmo {
namespace internal {

class LbfgsMemory {
 public:
  // n variables, at most `rank` (>= 1) pairs. Forgets the pairs; allocates
  // only when n or rank change.
  void Resize(int n, int rank);
  // Forgets the pairs (H = I again), keeping the storage.
  void Clear() {
    size_ = 0;
    next_ = 0;
  }
  int size() const { return size_; }
  int rank() const { return rank_; }
  int num_variables() const { return static_cast<int>(s_.rows()); }
  // Doubles held (for workspace accounting).
  Eigen::Index StorageSize() const {
    return s_.size() + y_.size() + sy_.size() + alpha_.size();
  }

  // The slot of the next pair: write s and y into these columns, then
  // Commit. Until Commit the slot is not part of H.
  Eigen::MatrixXd::ColXpr next_s() { return s_.col(next_); }
  Eigen::MatrixXd::ColXpr next_y() { return y_.col(next_); }
  // Stores the pair written into the slot when its curvature is safely
  // positive: s^T y finite and > yy_factor y^T y and > norm_factor ||s||
  // ||y||. Returns false (pair skipped, H unchanged) otherwise: away from a
  // minimizer, or for a Lagrangian, the curvature along s may be negative.
  bool Commit(double yy_factor, double norm_factor);

  // x <- H x in place (x has n entries). With `free` (n entries, 1 for a
  // free variable, 0 for a fixed one) H acts on the free variables only:
  // every product is masked and pairs without curvature on the free set
  // are skipped, the scaling taken from the newest pair that has it. With
  // scale = false, H0 = I instead of gamma I.
  void ApplyInverse(Eigen::Ref<Eigen::VectorXd> x,
                    const Eigen::VectorXd* free,
                    bool scale) const;

 private:
  // Ring position of the i-th newest pair.
  int Slot(int i) const { return (next_ - 1 - i + rank_) % rank_; }

  int rank_ = 0;
  int size_ = 0;                   // pairs stored
  int next_ = 0;                   // ring position of the next pair
  Eigen::MatrixXd s_, y_;          // n x rank
  Eigen::VectorXd sy_;             // s^T y per stored pair
  mutable Eigen::VectorXd alpha_;  // two-loop scratch
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_LBFGS_MEMORY_H_
