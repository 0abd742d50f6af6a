// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "sparse_ldlt.h"

#include <algorithm>

namespace ecmo {
namespace internal {

bool SparseLdlt::SamePattern(const SparseMatrix& lower) const {
  if (!analyzed_ || !lower.isCompressed() ||
      lower.rows() + 1 != static_cast<Eigen::Index>(outer_.size()) ||
      lower.nonZeros() != static_cast<Eigen::Index>(inner_.size())) {
    return false;
  }
  return std::equal(outer_.begin(), outer_.end(), lower.outerIndexPtr()) &&
         std::equal(inner_.begin(), inner_.end(), lower.innerIndexPtr());
}

void SparseLdlt::Analyze(const SparseMatrix& lower) {
  const Eigen::Index n = lower.rows();
  outer_.assign(lower.outerIndexPtr(), lower.outerIndexPtr() + n + 1);
  inner_.assign(lower.innerIndexPtr(),
                lower.innerIndexPtr() + lower.nonZeros());
  diagonal_position_.assign(n, -1);
  full_diagonal_ = true;
  for (Eigen::Index j = 0; j < n; ++j) {
    for (Eigen::Index p = outer_[j]; p < outer_[j + 1]; ++p) {
      if (inner_[p] == j) diagonal_position_[j] = p;
    }
    full_diagonal_ = full_diagonal_ && diagonal_position_[j] >= 0;
  }
  if (full_diagonal_) damped_ = lower;
  FormDamped(lower, Eigen::VectorXd::Ones(n));
  ldlt_.analyzePattern(damped_);
  analyzed_ = true;
  ++num_analyses_;
}

void SparseLdlt::FormDamped(const SparseMatrix& lower,
                            const Eigen::VectorXd& shift) {
  const Eigen::Index n = lower.rows();
  if (full_diagonal_) {
    std::copy(lower.valuePtr(),
              lower.valuePtr() + lower.nonZeros(),
              damped_.valuePtr());
    for (Eigen::Index i = 0; i < n; ++i) {
      damped_.valuePtr()[diagonal_position_[i]] += shift[i];
    }
  } else {
    SparseMatrix diagonal(n, n);
    diagonal.setIdentity();
    std::copy(shift.data(), shift.data() + n, diagonal.valuePtr());
    damped_ = lower + diagonal;
  }
}

bool SparseLdlt::Factorize(const SparseMatrix& lower,
                           const Eigen::VectorXd& shift,
                           std::string* error) {
  if (!SamePattern(lower)) {
    SparseMatrix compressed = lower;
    compressed.makeCompressed();
    if (!SamePattern(compressed)) Analyze(compressed);
    return Factorize(compressed, shift, error);
  }
  FormDamped(lower, shift);
  ldlt_.factorize(damped_);
  if (ldlt_.info() != Eigen::Success) {
    *error = "the sparse LDL^T of the damped Gauss-Newton matrix failed";
    return false;
  }
  return true;
}

}  // namespace internal
}  // namespace ecmo
