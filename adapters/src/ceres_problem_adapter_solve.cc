// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// CeresProblemAdapter::SolveWeightedLeastSquares: Ceres' own solver on
//
//   sum_s a_s f_s(z) + mu/2 ||h(z) + shift||^2,
//
// the far-from-solution phase of StrategyType::WC_NEWTON (see
// ecmo/evaluator.h). One ceres::Problem (the "view") over the user's
// parameter arrays and cost functions is built on the first call and kept:
// the weights live in the view and are read by its loss and cost wrappers
// at every evaluation, so a new call changes six numbers instead of
// rebuilding the problem. The adapter's bounds are set on the view once.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ceres/cost_function.h"
#include "ceres/loss_function.h"
#include "ceres/problem.h"
#include "ceres/solver.h"
#include "ecmo/ceres_problem_adapter.h"

namespace ecmo {
namespace {

// rho(s) = weight * inner(s) (inner = identity when null), the weight read
// at every call: ceres::ScaledLoss with a weight that can change between
// solves.
class ReweightableLoss final : public ceres::LossFunction {
 public:
  ReweightableLoss(const ceres::LossFunction* inner, const double* weight)
      : inner_(inner), weight_(weight) {}
  void Evaluate(double s, double rho[3]) const override {
    if (inner_ == nullptr) {
      rho[0] = s;
      rho[1] = 1.0;
      rho[2] = 0.0;
    } else {
      inner_->Evaluate(s, rho);
    }
    rho[0] *= *weight_;
    rho[1] *= *weight_;
    rho[2] *= *weight_;
  }

 private:
  const ceres::LossFunction* inner_;
  const double* weight_;
};

// sqrt(mu) (h_block + shift_block): one constraint block as an augmented-
// Lagrangian residual, mu and shift read at every call.
class AugmentedLagrangianCost final : public ceres::CostFunction {
 public:
  AugmentedLagrangianCost(const ceres::CostFunction* inner,
                          const double* mu,
                          const double* shift)
      : inner_(inner), mu_(mu), shift_(shift) {
    set_num_residuals(inner->num_residuals());
    *mutable_parameter_block_sizes() = inner->parameter_block_sizes();
  }
  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    if (!inner_->Evaluate(parameters, residuals, jacobians)) return false;
    const double scale = std::sqrt(*mu_);
    const int m = num_residuals();
    for (int i = 0; i < m; ++i)
      residuals[i] = scale * (residuals[i] + shift_[i]);
    if (jacobians != nullptr) {
      const std::vector<int32_t>& sizes = parameter_block_sizes();
      for (size_t j = 0; j < sizes.size(); ++j) {
        if (jacobians[j] == nullptr) continue;
        for (int e = 0; e < m * sizes[j]; ++e) jacobians[j][e] *= scale;
      }
    }
    return true;
  }

 private:
  const ceres::CostFunction* inner_;
  const double* mu_;
  const double* shift_;
};

}  // namespace

struct CeresProblemAdapter::LeastSquaresView {
  std::unique_ptr<ceres::Problem> problem;
  std::vector<double> weights;  // a_s, read by the losses
  double mu = 1.0;              // read by the constraint costs
  std::vector<double> shift;    // q, read by the constraint costs
  std::vector<std::unique_ptr<ceres::LossFunction>> losses;
  std::vector<std::unique_ptr<ceres::CostFunction>> costs;
};

bool CeresProblemAdapter::BuildLeastSquaresView(std::string* error) {
  auto view = std::make_shared<LeastSquaresView>();
  ceres::Problem::Options problem_options;
  // Everything belongs to the user's problem or to the view's vectors.
  problem_options.cost_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
  problem_options.loss_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
  problem_options.manifold_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
  view->problem = std::make_unique<ceres::Problem>(problem_options);
  view->weights.assign(objectives_.size(), 1.0);
  view->shift.assign(num_constraints_, 0.0);
  std::vector<double*> blocks;
  for (size_t s = 0; s < objectives_.size(); ++s) {
    for (const Block& block : objectives_[s].blocks) {
      problem_->GetParameterBlocksForResidualBlock(block.id, &blocks);
      view->losses.push_back(std::make_unique<ReweightableLoss>(
          block.loss_function, &view->weights[s]));
      view->problem->AddResidualBlock(
          const_cast<ceres::CostFunction*>(block.cost_function),
          view->losses.back().get(),
          blocks);
    }
  }
  for (const Group& group : constraints_) {
    for (const Block& block : group.blocks) {
      problem_->GetParameterBlocksForResidualBlock(block.id, &blocks);
      view->costs.push_back(std::make_unique<AugmentedLagrangianCost>(
          block.cost_function,
          &view->mu,
          view->shift.data() + block.residual_offset));
      view->problem->AddResidualBlock(
          view->costs.back().get(), nullptr, blocks);
    }
  }
  std::vector<double*> all;
  view->problem->GetParameterBlocks(&all);
  for (double* values : all) {
    auto it = block_index_.find(values);
    if (it == block_index_.end()) {
      view->problem->SetParameterBlockConstant(values);
      continue;
    }
    const ParameterBlock& pb = parameter_blocks_[it->second];
    if (pb.manifold != nullptr) {
      view->problem->SetManifold(values,
                                 const_cast<ceres::Manifold*>(pb.manifold));
    }
    // The adapter's bounds (a block with a manifold has none): Ceres'
    // trust-region solver keeps its iterates inside them.
    if (HasBounds()) {
      for (int c = 0; c < pb.size; ++c) {
        const double lo = lower_bounds()[pb.offset + c];
        const double hi = upper_bounds()[pb.offset + c];
        if (std::isfinite(lo))
          view->problem->SetParameterLowerBound(values, c, lo);
        if (std::isfinite(hi))
          view->problem->SetParameterUpperBound(values, c, hi);
      }
    }
  }
  if (view->problem->NumResidualBlocks() == 0) {
    *error = "CeresProblemAdapter: no residual blocks to solve";
    return false;
  }
  least_squares_view_ = std::move(view);
  return true;
}

bool CeresProblemAdapter::DoSolveWeightedLeastSquares(
    const ceres::Solver::Options& options,
    const double* a,
    double mu,
    const double* shift,
    double* z,
    ceres::Solver::Summary* summary,
    std::string* error) {
  if (!error_.empty()) {
    *error = error_;
    return false;
  }
  if (!(mu > 0.0) || !std::isfinite(mu)) {
    *error = "SolveWeightedLeastSquares: mu = " + std::to_string(mu) +
             "; it must be positive and finite.";
    return false;
  }
  if (least_squares_view_ == nullptr && !BuildLeastSquaresView(error)) {
    return false;
  }
  LeastSquaresView& view = *least_squares_view_;
  double max_weight = 0.0;
  for (size_t s = 0; s < view.weights.size(); ++s) {
    if (!(a[s] >= 0.0) || !std::isfinite(a[s])) {
      *error = "SolveWeightedLeastSquares: a[" + std::to_string(s) +
               "] = " + std::to_string(a[s]) +
               "; weights must be finite and >= 0.";
      return false;
    }
    max_weight = std::max(max_weight, a[s]);
  }
  // A zero weight would give Ceres' loss corrector a zero derivative; a
  // vanishing one has the same minimizers in practice.
  for (size_t s = 0; s < view.weights.size(); ++s) {
    view.weights[s] = std::max(a[s], 1e-14 * max_weight);
  }
  view.mu = mu;
  for (int i = 0; i < num_constraints_; ++i) view.shift[i] = shift[i];

  // Ceres works on the user's arrays: keep them, solve from z, restore.
  // Ceres refuses a start outside the bounds: start from z's projection.
  const Eigen::VectorXd saved = GetParameters();
  ProjectOntoBounds(z);
  SetParameters(z);
  ceres::Solve(options, view.problem.get(), summary);
  GetParameters(z);
  SetParameters(saved.data());
  if (summary->termination_type == ceres::FAILURE) {
    *error = "ceres::Solve: " + summary->message;
    return false;
  }
  return true;
}

}  // namespace ecmo
