// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Internal to ecmo::problems (not installed): the softmax helpers and the
// mean cross-entropy of a linear softmax classifier as a Ceres cost
// function, shared by the instances whose upper objectives are validation
// losses of such a classifier (mtbl_logistic, digits_data_weighting).

#ifndef ECMO_PROBLEMS_SRC_CROSS_ENTROPY_COST_H_
#define ECMO_PROBLEMS_SRC_CROSS_ENTROPY_COST_H_

#include <vector>

#include "Eigen/Core"
#include "ceres/cost_function.h"

namespace ecmo {
namespace problems {
namespace internal {

using RowMatrix =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Row-wise softmax of logits (in place) and, when lse is not null, the
// log-sum-exp of each row (computed stably, after subtracting the row max).
void SoftmaxRows(RowMatrix* logits, Eigen::VectorXd* lse);

// Mean cross-entropy (1/n) sum_i [lse(W a_i) - (W a_i)_{l_i}] of the linear
// classifier W (classes x d, row-major: one parameter block of size
// classes * d) on the labelled set (features: n x d, labels in
// [0, classes)). One residual: the value itself (not squared). Immutable,
// so Evaluate is thread-safe.
class CrossEntropyCost final : public ceres::CostFunction {
 public:
  CrossEntropyCost(RowMatrix features, std::vector<int> labels, int classes);

  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override;

 private:
  RowMatrix features_;
  std::vector<int> labels_;
  int classes_;
};

}  // namespace internal
}  // namespace problems
}  // namespace ecmo

#endif  // ECMO_PROBLEMS_SRC_CROSS_ENTROPY_COST_H_
