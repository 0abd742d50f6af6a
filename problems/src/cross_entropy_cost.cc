// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The shared cross-entropy cost (see cross_entropy_cost.h).

#include "cross_entropy_cost.h"

#include <cmath>
#include <utility>

namespace ecmo {
namespace problems {
namespace internal {

void SoftmaxRows(RowMatrix* logits, Eigen::VectorXd* lse) {
  if (lse != nullptr) lse->resize(logits->rows());
  for (Eigen::Index i = 0; i < logits->rows(); ++i) {
    auto row = logits->row(i);
    const double m = row.maxCoeff();
    row.array() = (row.array() - m).exp();
    const double sum = row.sum();
    row /= sum;
    if (lse != nullptr) (*lse)[i] = m + std::log(sum);
  }
}

CrossEntropyCost::CrossEntropyCost(RowMatrix features,
                                   std::vector<int> labels,
                                   int classes)
    : features_(std::move(features)),
      labels_(std::move(labels)),
      classes_(classes) {
  set_num_residuals(1);
  mutable_parameter_block_sizes()->push_back(
      classes_ * static_cast<int>(features_.cols()));
}

bool CrossEntropyCost::Evaluate(double const* const* parameters,
                                double* residuals,
                                double** jacobians) const {
  const int d = static_cast<int>(features_.cols());
  const int n = static_cast<int>(labels_.size());
  const Eigen::Map<const RowMatrix> w(parameters[0], classes_, d);
  RowMatrix p = features_ * w.transpose();
  Eigen::VectorXd lse;
  double value = 0.0;
  for (int i = 0; i < n; ++i) value -= p(i, labels_[i]);
  SoftmaxRows(&p, &lse);
  value += lse.sum();
  residuals[0] = value / n;
  if (jacobians != nullptr && jacobians[0] != nullptr) {
    for (int i = 0; i < n; ++i) p(i, labels_[i]) -= 1.0;
    Eigen::Map<RowMatrix> g(jacobians[0], classes_, d);
    g.noalias() = p.transpose() * features_;
    g /= n;
  }
  return std::isfinite(residuals[0]);
}

}  // namespace internal
}  // namespace problems
}  // namespace ecmo
