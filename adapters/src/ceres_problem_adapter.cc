// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/ceres_problem_adapter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <unordered_set>
#include <utility>

#include "ceres/cost_function.h"
#include "ceres/loss_function.h"
#include "ecmo/internal/report.h"
#include "ecmo/manifold.h"

namespace ecmo {

using internal::AllFinite;

CeresProblemAdapter::CeresProblemAdapter(ceres::Problem* problem,
                                         std::vector<ResidualGroup> objectives,
                                         std::vector<ResidualGroup> constraints,
                                         Options options)
    : problem_(problem), options_(std::move(options)) {
  Initialize(std::move(objectives), std::move(constraints));
}

CeresProblemAdapter::CeresProblemAdapter(ceres::Problem* problem,
                                         std::vector<ResidualGroup> objectives,
                                         std::vector<ResidualGroup> constraints)
    : CeresProblemAdapter(
          problem, std::move(objectives), std::move(constraints), Options()) {}

CeresProblemAdapter::~CeresProblemAdapter() = default;

bool CeresProblemAdapter::IsValid(std::string* error) const {
  if (error != nullptr) *error = error_;
  return error_.empty();
}

std::string CeresProblemAdapter::DescribeBlock(const double* values) const {
  std::ostringstream os;
  auto name = options_.parameter_block_names.find(values);
  if (name != options_.parameter_block_names.end()) {
    os << "'" << name->second << "' (" << values;
  } else {
    os << values << " (";
  }
  os << (name != options_.parameter_block_names.end() ? ", " : "") << "size "
     << problem_->ParameterBlockSize(values);
  auto use = first_use_.find(values);
  if (use != first_use_.end()) os << ", " << use->second;
  os << ")";
  return os.str();
}

void CeresProblemAdapter::Initialize(std::vector<ResidualGroup> objectives,
                                     std::vector<ResidualGroup> constraints) {
  auto fail = [&](const std::string& message) {
    error_ = "CeresProblemAdapter: " + message;
    objectives_.clear();
    constraints_.clear();
    uses_.clear();
    parameter_blocks_.clear();
    block_index_.clear();
    jacobian_blocks_.clear();
    manifold_.reset();
    num_parameters_ = 0;
    num_constraints_ = 0;
  };
  if (problem_ == nullptr) return fail("the ceres::Problem is null.");
  if (objectives.empty()) {
    return fail(
        "no objective groups; give at least one group of residual blocks "
        "whose cost is an objective.");
  }
  if (options_.num_threads < 1) {
    return fail("Options::num_threads = " +
                std::to_string(options_.num_threads) + "; it must be >= 1.");
  }

  std::vector<ceres::ResidualBlockId> all;
  problem_->GetResidualBlocks(&all);
  const std::unordered_set<ceres::ResidualBlockId> known(all.begin(),
                                                         all.end());
  const double max = std::numeric_limits<double>::max();

  // Resolves one group; registers the non-constant parameter blocks it uses.
  auto resolve = [&](ResidualGroup& input,
                     bool is_objective,
                     int index,
                     Group* group) -> bool {
    const char* kind = is_objective ? "objective" : "constraint";
    group->name = input.name.empty() ? std::string(is_objective ? "f" : "h") +
                                           std::to_string(index + 1)
                                     : input.name;
    const std::string label =
        std::string(kind) + " group '" + group->name + "'";
    if (input.residual_blocks.empty()) {
      fail(label + " has no residual blocks.");
      return false;
    }
    std::unordered_set<ceres::ResidualBlockId> seen;
    for (size_t i = 0; i < input.residual_blocks.size(); ++i) {
      const ceres::ResidualBlockId id = input.residual_blocks[i];
      std::ostringstream os;
      if (id == nullptr || known.count(id) == 0) {
        os << label << ": residual block " << i << " (id " << id
           << ") is not in the ceres::Problem.";
      } else if (!seen.insert(id).second) {
        os << label << ": residual block " << i << " (id " << id
           << ") appears twice; its cost would be counted twice.";
      }
      if (!os.str().empty()) {
        fail(os.str());
        return false;
      }
      Block block;
      block.id = id;
      block.cost_function = problem_->GetCostFunctionForResidualBlock(id);
      block.loss_function = is_objective
                                ? problem_->GetLossFunctionForResidualBlock(id)
                                : nullptr;
      block.num_residuals = block.cost_function->num_residuals();
      std::vector<double*> user_blocks;
      problem_->GetParameterBlocksForResidualBlock(id, &user_blocks);
      block.first_use = static_cast<int>(uses_.size());
      block.num_uses = static_cast<int>(user_blocks.size());
      for (size_t j = 0; j < user_blocks.size(); ++j) {
        double* values = user_blocks[j];
        ParameterUse use;
        use.values = values;
        use.size = problem_->ParameterBlockSize(values);
        if (problem_->IsParameterBlockConstant(values)) {
          uses_.push_back(use);
          continue;
        }
        const int size = use.size;
        auto it = block_index_.find(values);
        if (it == block_index_.end()) {
          std::ostringstream first;
          first << "first used as parameter " << j << " of residual block " << i
                << " of " << label;
          first_use_[values] = first.str();
          for (int c = 0; c < size; ++c) {
            const double lo = problem_->GetParameterLowerBound(values, c);
            const double hi = problem_->GetParameterUpperBound(values, c);
            if (lo > -max || hi < max) {
              std::ostringstream bound;
              bound << "parameter block " << DescribeBlock(values) << " has "
                    << (lo > -max ? "a lower" : "an upper") << " bound "
                    << (lo > -max ? lo : hi) << " on coordinate " << c
                    << " (Problem::SetParameter"
                    << (lo > -max ? "Lower" : "Upper")
                    << "Bound). No ECMO strategy supports parameter bounds "
                       "yet; remove the bound, make the block constant, or "
                       "reformulate (e.g. a manifold or a change of "
                       "variables).";
              fail(bound.str());
              return false;
            }
          }
          ParameterBlock pb;
          pb.values = values;
          pb.size = size;
          pb.offset = num_parameters_;
          pb.manifold = problem_->GetManifold(values);
          if (pb.manifold != nullptr &&
              options_.evaluation_path == EvaluationPath::kProblemEvaluate) {
            fail("parameter block " + DescribeBlock(values) +
                 " has a manifold, which EvaluationPath::kProblemEvaluate "
                 "cannot handle (ceres::Problem::Evaluate returns "
                 "tangent-space gradients); use EvaluationPath::kDirect.");
            return false;
          }
          it = block_index_
                   .emplace(values, static_cast<int>(parameter_blocks_.size()))
                   .first;
          parameter_blocks_.push_back(pb);
          num_parameters_ += size;
        }
        use.offset = parameter_blocks_[it->second].offset;
        uses_.push_back(use);
      }
      if (!is_objective) {
        block.residual_offset = num_constraints_;
        num_constraints_ += block.num_residuals;
      }
      group->blocks.push_back(std::move(block));
    }
    return true;
  };

  for (size_t s = 0; s < objectives.size(); ++s) {
    Group group;
    if (!resolve(objectives[s], true, static_cast<int>(s), &group)) return;
    objectives_.push_back(std::move(group));
  }
  for (size_t i = 0; i < constraints.size(); ++i) {
    Group group;
    group.offset = num_constraints_;
    if (!resolve(constraints[i], false, static_cast<int>(i), &group)) return;
    constraints_.push_back(std::move(group));
  }
  if (num_parameters_ == 0) {
    return fail(
        "every parameter block used by the selected residual blocks is "
        "constant; there is nothing to optimize.");
  }

  // The manifold of z, if any block has one.
  bool any_manifold = false;
  for (const ParameterBlock& b : parameter_blocks_) {
    any_manifold = any_manifold || b.manifold != nullptr;
  }
  if (any_manifold) {
    std::vector<DynamicProductManifold::Factor> factors;
    for (const ParameterBlock& b : parameter_blocks_) {
      factors.push_back({b.size, b.manifold});
    }
    auto manifold = std::make_unique<DynamicProductManifold>(factors);
    std::string error;
    if (!manifold->IsValid(&error)) return fail(error);
    manifold_ = std::move(manifold);
  }

  // Scratch for the largest residual block, and the Jacobian blocks of the
  // constraints (kDirect), in evaluation order.
  size_t max_uses = 0, max_residuals = 0, max_jacobian = 0;
  auto size_scratch = [&](Block& block) {
    size_t jacobian = 0;
    for (int u = 0; u < block.num_uses; ++u) {
      ParameterUse& use = uses_[block.first_use + u];
      use.jacobian_offset = static_cast<int>(jacobian);
      if (use.offset >= 0) {
        jacobian += static_cast<size_t>(block.num_residuals) * use.size;
      }
    }
    max_uses = std::max(max_uses, static_cast<size_t>(block.num_uses));
    max_residuals =
        std::max(max_residuals, static_cast<size_t>(block.num_residuals));
    max_jacobian = std::max(max_jacobian, jacobian);
  };
  for (Group& group : objectives_) {
    for (Block& block : group.blocks) size_scratch(block);
  }
  for (Group& group : constraints_) {
    for (Block& block : group.blocks) {
      size_scratch(block);
      block.first_jacobian_block = static_cast<int>(jacobian_blocks_.size());
      for (int u = 0; u < block.num_uses; ++u) {
        const ParameterUse& use = uses_[block.first_use + u];
        if (use.offset < 0) continue;
        JacobianBlock jb;
        jb.residual_offset = block.residual_offset;
        jb.parameter_offset = use.offset;
        jb.rows = block.num_residuals;
        jb.cols = use.size;
        jb.values.assign(static_cast<size_t>(jb.rows) * jb.cols, 0.0);
        jacobian_blocks_.push_back(std::move(jb));
      }
    }
  }
  parameter_pointers_.resize(max_uses);
  jacobian_pointers_.resize(max_uses);
  residual_scratch_.resize(max_residuals);
  jacobian_scratch_.resize(max_jacobian);

  // EvaluateOptions for kProblemEvaluate.
  if (options_.evaluation_path == EvaluationPath::kProblemEvaluate) {
    std::vector<double*> z_blocks;
    for (const ParameterBlock& b : parameter_blocks_) {
      z_blocks.push_back(b.values);
    }
    for (const Group& group : objectives_) {
      ceres::Problem::EvaluateOptions eo;
      eo.parameter_blocks = z_blocks;
      for (const Block& block : group.blocks) {
        eo.residual_blocks.push_back(block.id);
      }
      eo.apply_loss_function = true;
      eo.num_threads = options_.num_threads;
      objective_evaluate_options_.push_back(std::move(eo));
    }
    constraint_evaluate_options_.parameter_blocks = z_blocks;
    for (const Group& group : constraints_) {
      for (const Block& block : group.blocks) {
        constraint_evaluate_options_.residual_blocks.push_back(block.id);
      }
    }
    constraint_evaluate_options_.apply_loss_function = false;
    constraint_evaluate_options_.num_threads = options_.num_threads;
  }
}

int CeresProblemAdapter::ParameterBlockOffset(const double* values) const {
  auto it = block_index_.find(values);
  return it == block_index_.end() ? -1 : parameter_blocks_[it->second].offset;
}

void CeresProblemAdapter::GetParameters(double* z) const {
  for (const ParameterBlock& b : parameter_blocks_) {
    std::copy(b.values, b.values + b.size, z + b.offset);
  }
}

Eigen::VectorXd CeresProblemAdapter::GetParameters() const {
  Eigen::VectorXd z(num_parameters_);
  GetParameters(z.data());
  return z;
}

void CeresProblemAdapter::SetParameters(const double* z) const {
  for (const ParameterBlock& b : parameter_blocks_) {
    std::copy(z + b.offset, z + b.offset + b.size, b.values);
  }
}

bool CeresProblemAdapter::DoEvaluate(
    const double* z, double* f, double* h, double* grad_f, std::string* error) {
  if (!error_.empty()) {
    if (error != nullptr) *error = error_;
    return false;
  }
  return options_.evaluation_path == EvaluationPath::kDirect
             ? EvaluateDirect(z, f, h, grad_f, error)
             : EvaluateThroughProblem(z, f, h, grad_f, error);
}

bool CeresProblemAdapter::EvaluateBlock(const Block& block,
                                        const double* z,
                                        bool want_jacobians,
                                        const char* kind,
                                        const std::string& group,
                                        int index,
                                        std::string* error) {
  const ParameterUse* uses = uses_.data() + block.first_use;
  for (int j = 0; j < block.num_uses; ++j) {
    const ParameterUse& use = uses[j];
    const bool in_z = use.offset >= 0;
    parameter_pointers_[j] = in_z ? z + use.offset : use.values;
    jacobian_pointers_[j] = want_jacobians && in_z
                                ? jacobian_scratch_.data() + use.jacobian_offset
                                : nullptr;
  }
  const bool ok = block.cost_function->Evaluate(
      parameter_pointers_.data(),
      residual_scratch_.data(),
      want_jacobians ? jacobian_pointers_.data() : nullptr);
  // The fast path builds no strings.
  const bool finite =
      ok && AllFinite(residual_scratch_.data(), block.num_residuals);
  int bad_jacobian = -1;
  if (finite && want_jacobians) {
    for (int j = 0; j < block.num_uses && bad_jacobian < 0; ++j) {
      if (jacobian_pointers_[j] != nullptr &&
          !AllFinite(jacobian_pointers_[j],
                     static_cast<size_t>(block.num_residuals) * uses[j].size)) {
        bad_jacobian = j;
      }
    }
  }
  if (finite && bad_jacobian < 0) return true;
  if (error != nullptr) {
    std::ostringstream os;
    os << kind << " group '" << group << "': residual block " << index
       << " (id " << block.id << "): its cost function ";
    if (!ok) {
      os << "returned false (evaluation failed).";
    } else if (!finite) {
      os << "returned a non-finite residual.";
    } else {
      os << "returned a non-finite Jacobian for parameter block "
         << DescribeBlock(uses[bad_jacobian].values) << ".";
    }
    *error = os.str();
  }
  return false;
}

bool CeresProblemAdapter::EvaluateDirect(
    const double* z, double* f, double* h, double* grad_f, std::string* error) {
  const int k = num_parameters_;
  const bool want_gradient = grad_f != nullptr;
  if (want_gradient) {
    std::fill(grad_f, grad_f + static_cast<size_t>(k) * NumObjectives(), 0.0);
  }
  for (size_t s = 0; s < objectives_.size(); ++s) {
    const Group& group = objectives_[s];
    double cost = 0.0;
    double* column =
        want_gradient ? grad_f + s * static_cast<size_t>(k) : nullptr;
    for (size_t i = 0; i < group.blocks.size(); ++i) {
      const Block& block = group.blocks[i];
      if (!EvaluateBlock(block,
                         z,
                         want_gradient,
                         "objective",
                         group.name,
                         static_cast<int>(i),
                         error)) {
        return false;
      }
      double squared_norm = 0.0;
      for (int r = 0; r < block.num_residuals; ++r) {
        squared_norm += residual_scratch_[r] * residual_scratch_[r];
      }
      // Ceres' cost of a residual block: 1/2 rho(|r|^2); its gradient is
      // rho'(|r|^2) J^T r.
      double scale = 1.0;
      if (block.loss_function != nullptr) {
        double rho[3];
        block.loss_function->Evaluate(squared_norm, rho);
        if (!std::isfinite(rho[0]) || !std::isfinite(rho[1])) {
          if (error != nullptr) {
            std::ostringstream os;
            os << "objective group '" << group.name << "': residual block " << i
               << " (id " << block.id
               << "): its loss function returned a non-finite value.";
            *error = os.str();
          }
          return false;
        }
        cost += 0.5 * rho[0];
        scale = rho[1];
      } else {
        cost += 0.5 * squared_norm;
      }
      if (!want_gradient) continue;
      for (int j = 0; j < block.num_uses; ++j) {
        const ParameterUse& use = uses_[block.first_use + j];
        if (use.offset < 0) continue;
        const double* jac = jacobian_scratch_.data() + use.jacobian_offset;
        const int cols = use.size;
        double* g = column + use.offset;
        for (int r = 0; r < block.num_residuals; ++r) {
          const double w = scale * residual_scratch_[r];
          if (w == 0.0) continue;
          const double* row = jac + static_cast<size_t>(r) * cols;
          for (int c = 0; c < cols; ++c) g[c] += w * row[c];
        }
      }
    }
    f[s] = cost;
  }

  for (const Group& group : constraints_) {
    for (size_t i = 0; i < group.blocks.size(); ++i) {
      const Block& block = group.blocks[i];
      if (!EvaluateBlock(block,
                         z,
                         want_gradient,
                         "constraint",
                         group.name,
                         static_cast<int>(i),
                         error)) {
        return false;
      }
      std::copy(residual_scratch_.begin(),
                residual_scratch_.begin() + block.num_residuals,
                h + block.residual_offset);
      if (!want_gradient) continue;
      int next = block.first_jacobian_block;
      for (int j = 0; j < block.num_uses; ++j) {
        const ParameterUse& use = uses_[block.first_use + j];
        if (use.offset < 0) continue;
        std::vector<double>& values = jacobian_blocks_[next++].values;
        const double* jac = jacobian_scratch_.data() + use.jacobian_offset;
        std::copy(jac, jac + values.size(), values.begin());
      }
    }
  }
  return true;
}

bool CeresProblemAdapter::EvaluateThroughProblem(
    const double* z, double* f, double* h, double* grad_f, std::string* error) {
  const int k = num_parameters_;
  const bool want_gradient = grad_f != nullptr;
  // Problem::Evaluate reads the user's blocks.
  SetParameters(z);
  for (size_t s = 0; s < objectives_.size(); ++s) {
    double cost = 0.0;
    if (!problem_->Evaluate(objective_evaluate_options_[s],
                            &cost,
                            nullptr,
                            want_gradient ? &problem_gradient_ : nullptr,
                            nullptr) ||
        !std::isfinite(cost) ||
        (want_gradient &&
         (static_cast<int>(problem_gradient_.size()) != k ||
          !AllFinite(problem_gradient_.data(), problem_gradient_.size())))) {
      if (error != nullptr) {
        *error = "objective group '" + objectives_[s].name +
                 "': ceres::Problem::Evaluate failed or returned non-finite "
                 "values.";
      }
      return false;
    }
    f[s] = cost;
    if (want_gradient) {
      std::copy(problem_gradient_.begin(),
                problem_gradient_.end(),
                grad_f + s * static_cast<size_t>(k));
    }
  }
  if (num_constraints_ > 0) {
    if (!problem_->Evaluate(constraint_evaluate_options_,
                            nullptr,
                            &problem_residuals_,
                            nullptr,
                            want_gradient ? &jacobian_crs_ : nullptr) ||
        static_cast<int>(problem_residuals_.size()) != num_constraints_ ||
        !AllFinite(problem_residuals_.data(), problem_residuals_.size()) ||
        (want_gradient && !AllFinite(jacobian_crs_.values.data(),
                                     jacobian_crs_.values.size()))) {
      if (error != nullptr) {
        *error =
            "constraint groups: ceres::Problem::Evaluate failed or returned "
            "non-finite values.";
      }
      return false;
    }
    std::copy(problem_residuals_.begin(), problem_residuals_.end(), h);
  }
  return true;
}

void CeresProblemAdapter::DoJacobianTransposeMultiply(const double* v,
                                                      double* out) const {
  std::fill(out, out + num_parameters_, 0.0);
  if (options_.evaluation_path == EvaluationPath::kProblemEvaluate) {
    const ceres::CRSMatrix& J = jacobian_crs_;
    for (int r = 0; r + 1 < static_cast<int>(J.rows.size()); ++r) {
      const double vr = v[r];
      if (vr == 0.0) continue;
      for (int i = J.rows[r]; i < J.rows[r + 1]; ++i) {
        out[J.cols[i]] += J.values[i] * vr;
      }
    }
    return;
  }
  for (const JacobianBlock& b : jacobian_blocks_) {
    for (int r = 0; r < b.rows; ++r) {
      const double vr = v[b.residual_offset + r];
      if (vr == 0.0) continue;
      const double* row = b.values.data() + static_cast<size_t>(r) * b.cols;
      double* o = out + b.parameter_offset;
      for (int c = 0; c < b.cols; ++c) o[c] += row[c] * vr;
    }
  }
}

void CeresProblemAdapter::DoJacobianMultiply(const double* x,
                                             double* out) const {
  std::fill(out, out + num_constraints_, 0.0);
  if (options_.evaluation_path == EvaluationPath::kProblemEvaluate) {
    const ceres::CRSMatrix& J = jacobian_crs_;
    for (int r = 0; r + 1 < static_cast<int>(J.rows.size()); ++r) {
      double sum = 0.0;
      for (int i = J.rows[r]; i < J.rows[r + 1]; ++i) {
        sum += J.values[i] * x[J.cols[i]];
      }
      out[r] = sum;
    }
    return;
  }
  for (const JacobianBlock& b : jacobian_blocks_) {
    const double* xb = x + b.parameter_offset;
    for (int r = 0; r < b.rows; ++r) {
      const double* row = b.values.data() + static_cast<size_t>(r) * b.cols;
      double sum = 0.0;
      for (int c = 0; c < b.cols; ++c) sum += row[c] * xb[c];
      out[b.residual_offset + r] += sum;
    }
  }
}

void Solve(const Solver::Options& options,
           CeresProblemAdapter* adapter,
           const std::vector<double>& preference,
           Solver::Summary* summary) {
  if (summary == nullptr) return;
  std::string error;
  if (adapter == nullptr || !adapter->IsValid(&error)) {
    *summary = Solver::Summary();
    summary->strategy = options.strategy;
    summary->preference = preference;
    summary->termination_type = ceres::FAILURE;
    summary->message = adapter == nullptr
                           ? "ecmo::Solve: the CeresProblemAdapter is null."
                           : "Invalid CeresProblemAdapter: " + error;
    return;
  }
  const Eigen::VectorXd z0 = adapter->GetParameters();
  Eigen::VectorXd z = z0;
  Solve(options, static_cast<Evaluator*>(adapter), preference, &z, summary);
  // kProblemEvaluate writes every evaluation point into the user's blocks:
  // leave them at the solution, or at the start when it is not usable.
  adapter->SetParameters(summary->IsSolutionUsable() ? z.data() : z0.data());
}

}  // namespace ecmo
