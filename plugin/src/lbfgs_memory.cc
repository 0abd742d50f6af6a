// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).

#include "lbfgs_memory.h"

#include <cmath>
#include <limits>

namespace ecmo {
namespace internal {
namespace {

constexpr double kSkipped = std::numeric_limits<double>::infinity();

}  // namespace

void LbfgsMemory::Resize(int n, int rank) {
  if (s_.rows() != n || rank_ != rank) {
    s_.resize(n, rank);
    y_.resize(n, rank);
    sy_.resize(rank);
    alpha_.resize(rank);
    rank_ = rank;
  }
  Clear();
}

bool LbfgsMemory::Commit(double yy_factor, double norm_factor) {
  const auto s = s_.col(next_);
  const auto y = y_.col(next_);
  const double sy = s.dot(y);
  const double yy = y.squaredNorm();
  if (!std::isfinite(sy) || !(sy > yy_factor * yy)) return false;
  if (norm_factor > 0.0 && !(sy > norm_factor * s.norm() * std::sqrt(yy))) {
    return false;
  }
  sy_[next_] = sy;
  next_ = (next_ + 1) % rank_;
  if (size_ < rank_) ++size_;
  return true;
}

void LbfgsMemory::ApplyInverse(Eigen::Ref<Eigen::VectorXd> x,
                               const Eigen::VectorXd* free,
                               bool scale) const {
  const bool masked = free != nullptr;
  auto dot = [&](const auto& a, const auto& b) {
    return masked ? (a.array() * b.array() * free->array()).sum() : a.dot(b);
  };
  double gamma = 1.0;
  bool have_gamma = false;
  for (int i = 0; i < size_; ++i) {
    const int j = Slot(i);
    double sy = sy_[j];
    if (masked) {
      sy = dot(s_.col(j), y_.col(j));
      const double yy = dot(y_.col(j), y_.col(j));
      if (!(sy > std::numeric_limits<double>::epsilon() * yy) || yy <= 0.0) {
        alpha_[j] = kSkipped;  // no curvature on the free set
        continue;
      }
      if (!have_gamma) gamma = sy / yy;
    } else if (!have_gamma) {
      gamma = sy / y_.col(j).squaredNorm();
    }
    have_gamma = true;
    alpha_[j] = dot(s_.col(j), x) / sy;
    if (masked) {
      x.array() -= alpha_[j] * y_.col(j).array() * free->array();
    } else {
      x -= alpha_[j] * y_.col(j);
    }
  }
  if (scale && have_gamma) x *= gamma;
  for (int i = size_ - 1; i >= 0; --i) {
    const int j = Slot(i);
    if (alpha_[j] == kSkipped) continue;
    const double sy = masked ? dot(s_.col(j), y_.col(j)) : sy_[j];
    const double beta = dot(y_.col(j), x) / sy;
    if (masked) {
      x.array() += (alpha_[j] - beta) * s_.col(j).array() * free->array();
    } else {
      x += (alpha_[j] - beta) * s_.col(j);
    }
  }
}

}  // namespace internal
}  // namespace ecmo
