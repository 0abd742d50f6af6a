// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/ceres_problem_adapter.h"

#include <algorithm>
#include <cmath>
#include <functional>
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
    objective_residuals_.clear();
    objective_jacobians_.clear();
    manifold_.reset();
    SetBounds(Eigen::VectorXd(), Eigen::VectorXd());
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
  const double kInfinity = std::numeric_limits<double>::infinity();
  // Bounds over z, filled up to the last bounded block (then padded).
  std::vector<double> lower_bounds, upper_bounds;

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
          ParameterBlock pb;
          pb.values = values;
          pb.size = size;
          pb.offset = num_parameters_;
          pb.manifold = problem_->GetManifold(values);
          // Bounds (Ceres reports "none" as -+max): kept as -+inf in z.
          for (int c = 0; c < size; ++c) {
            const double lo = problem_->GetParameterLowerBound(values, c);
            const double hi = problem_->GetParameterUpperBound(values, c);
            if (lo <= -max && hi >= max) continue;
            if (pb.manifold != nullptr) {
              std::ostringstream bound;
              bound << "parameter block " << DescribeBlock(values)
                    << " has both a manifold and a bound (coordinate " << c
                    << ", Problem::SetParameter"
                    << (lo > -max ? "Lower" : "Upper")
                    << "Bound); bounds apply to Euclidean blocks only. "
                       "Remove the bounds, or the manifold (e.g. pose a unit "
                       "norm as a constraint group).";
              fail(bound.str());
              return false;
            }
            if (lower_bounds.size() <
                static_cast<size_t>(num_parameters_ + size)) {
              lower_bounds.resize(num_parameters_ + size, -kInfinity);
              upper_bounds.resize(num_parameters_ + size, kInfinity);
            }
            if (lo > -max) lower_bounds[num_parameters_ + c] = lo;
            if (hi < max) upper_bounds[num_parameters_ + c] = hi;
          }
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
        use.block = it->second;
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

  if (!lower_bounds.empty()) {
    lower_bounds.resize(num_parameters_, -kInfinity);
    upper_bounds.resize(num_parameters_, kInfinity);
    for (int i = 0; i < num_parameters_; ++i) {
      if (lower_bounds[i] > upper_bounds[i]) {
        std::ostringstream os;
        os << "coordinate " << i << " of z has lower bound " << lower_bounds[i]
           << " above its upper bound " << upper_bounds[i]
           << "; no point satisfies them.";
        return fail(os.str());
      }
    }
    SetBounds(
        Eigen::Map<const Eigen::VectorXd>(lower_bounds.data(), num_parameters_),
        Eigen::Map<const Eigen::VectorXd>(upper_bounds.data(),
                                          num_parameters_));
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

  // Scratch for the largest residual block, the objective residuals and
  // Jacobians kept for the Gauss-Newton matrix, and the Jacobian blocks of
  // the constraints (kDirect), in evaluation order.
  size_t max_uses = 0, max_residuals = 0, max_jacobian = 0;
  size_t stored_residuals = 0, stored_jacobians = 0;
  auto size_scratch = [&](Block& block) -> size_t {
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
    return jacobian;
  };
  for (Group& group : objectives_) {
    for (Block& block : group.blocks) {
      const size_t jacobian = size_scratch(block);
      block.stored_residual_offset = stored_residuals;
      block.stored_jacobian_offset = stored_jacobians;
      stored_residuals += block.num_residuals;
      stored_jacobians += jacobian;
    }
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
  if (options_.evaluation_path == EvaluationPath::kDirect) {
    objective_residuals_.resize(stored_residuals);
    objective_jacobians_.resize(stored_jacobians);
  }

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
                                        double* residuals,
                                        double* jacobians,
                                        const char* kind,
                                        const std::string& group,
                                        int index,
                                        std::string* error) {
  const bool want_jacobians = jacobians != nullptr;
  const ParameterUse* uses = uses_.data() + block.first_use;
  for (int j = 0; j < block.num_uses; ++j) {
    const ParameterUse& use = uses[j];
    const bool in_z = use.offset >= 0;
    parameter_pointers_[j] = in_z ? z + use.offset : use.values;
    jacobian_pointers_[j] =
        want_jacobians && in_z ? jacobians + use.jacobian_offset : nullptr;
  }
  const bool ok = block.cost_function->Evaluate(
      parameter_pointers_.data(),
      residuals,
      want_jacobians ? jacobian_pointers_.data() : nullptr);
  // The fast path builds no strings.
  const bool finite = ok && AllFinite(residuals, block.num_residuals);
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
      // With gradients, residuals and Jacobians go where the Gauss-Newton
      // matrix finds them.
      double* residuals = want_gradient ? objective_residuals_.data() +
                                              block.stored_residual_offset
                                        : residual_scratch_.data();
      double* jacobians = want_gradient ? objective_jacobians_.data() +
                                              block.stored_jacobian_offset
                                        : nullptr;
      if (!EvaluateBlock(block,
                         z,
                         residuals,
                         jacobians,
                         "objective",
                         group.name,
                         static_cast<int>(i),
                         error)) {
        return false;
      }
      double squared_norm = 0.0;
      for (int r = 0; r < block.num_residuals; ++r) {
        squared_norm += residuals[r] * residuals[r];
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
        const double* jac = jacobians + use.jacobian_offset;
        const int cols = use.size;
        double* g = column + use.offset;
        for (int r = 0; r < block.num_residuals; ++r) {
          const double w = scale * residuals[r];
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
                         residual_scratch_.data(),
                         want_gradient ? jacobian_scratch_.data() : nullptr,
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

bool CeresProblemAdapter::HasGaussNewtonMatrix() const {
  return error_.empty() && options_.evaluation_path == EvaluationPath::kDirect;
}

void CeresProblemAdapter::BuildGaussNewtonPattern() {
  // Tangent layout of z: blocks in z's order with their tangent sizes, as
  // DynamicProductManifold lays out its tangent space.
  const int num_blocks = static_cast<int>(parameter_blocks_.size());
  tangent_offsets_.resize(num_blocks);
  tangent_sizes_.resize(num_blocks);
  plus_jacobian_offsets_.assign(num_blocks, -1);
  int n = 0;
  int plus_size = 0;
  for (int b = 0; b < num_blocks; ++b) {
    const ParameterBlock& pb = parameter_blocks_[b];
    const int t = pb.manifold != nullptr ? pb.manifold->TangentSize() : pb.size;
    tangent_offsets_[b] = n;
    tangent_sizes_[b] = t;
    n += t;
    if (pb.manifold != nullptr) {
      plus_jacobian_offsets_[b] = plus_size;
      plus_size += pb.size * t;
    }
  }
  plus_jacobians_.resize(plus_size);

  // A use contributes columns if its block is in z with a nonempty tangent
  // space.
  auto contributes = [&](const ParameterUse& use) {
    return use.block >= 0 && tangent_sizes_[use.block] > 0;
  };
  auto for_each_block = [&](const std::function<void(Block*)>& visit) {
    for (Group& group : objectives_) {
      for (Block& block : group.blocks) visit(&block);
    }
    for (Group& group : constraints_) {
      for (Block& block : group.blocks) visit(&block);
    }
  };

  // below[j]: the blocks i > j that share a residual block with j, i.e.
  // the off-diagonal blocks of block column j of the lower triangle.
  std::vector<std::vector<int>> below(num_blocks);
  size_t max_uses = 0, max_tangent = 0, max_tangent_size = 0;
  for_each_block([&](Block* block) {
    const ParameterUse* uses = uses_.data() + block->first_use;
    size_t tangent = 0;
    for (int u = 0; u < block->num_uses; ++u) {
      if (!contributes(uses[u])) continue;
      const size_t t = static_cast<size_t>(tangent_sizes_[uses[u].block]);
      tangent += static_cast<size_t>(block->num_residuals) * t;
      max_tangent_size = std::max(max_tangent_size, t);
      for (int v = 0; v < block->num_uses; ++v) {
        if (contributes(uses[v]) && uses[u].block > uses[v].block) {
          below[uses[v].block].push_back(uses[u].block);
        }
      }
    }
    max_uses = std::max(max_uses, static_cast<size_t>(block->num_uses));
    max_tangent = std::max(max_tangent, tangent);
  });
  // prefix[j][i]: rows of below[j]'s blocks before block below[j][i].
  std::vector<std::vector<int>> prefix(num_blocks);
  for (int j = 0; j < num_blocks; ++j) {
    std::vector<int>& list = below[j];
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    prefix[j].resize(list.size() + 1, 0);
    for (size_t i = 0; i < list.size(); ++i) {
      prefix[j][i + 1] = prefix[j][i] + tangent_sizes_[list[i]];
    }
  }

  // Column c of block j holds rows c..t_j - 1 of the diagonal block, then
  // every block of below[j] in order.
  gauss_newton_outer_.assign(static_cast<size_t>(n) + 1, 0);
  for (int j = 0; j < num_blocks; ++j) {
    const int t = tangent_sizes_[j];
    const int o = tangent_offsets_[j];
    for (int c = 0; c < t; ++c) {
      gauss_newton_outer_[o + c + 1] =
          gauss_newton_outer_[o + c] + (t - c) + prefix[j].back();
    }
  }
  gauss_newton_inner_.resize(gauss_newton_outer_[n]);
  for (int j = 0; j < num_blocks; ++j) {
    const int t = tangent_sizes_[j];
    const int o = tangent_offsets_[j];
    for (int c = 0; c < t; ++c) {
      int position = gauss_newton_outer_[o + c];
      for (int r = c; r < t; ++r) gauss_newton_inner_[position++] = o + r;
      for (int i : below[j]) {
        for (int r = 0; r < tangent_sizes_[i]; ++r) {
          gauss_newton_inner_[position++] = tangent_offsets_[i] + r;
        }
      }
    }
  }

  // Every residual block's pairs of uses and where they land.
  gauss_newton_pairs_.clear();
  for_each_block([&](Block* block) {
    const ParameterUse* uses = uses_.data() + block->first_use;
    block->first_pair = static_cast<int>(gauss_newton_pairs_.size());
    for (int u = 0; u < block->num_uses; ++u) {
      if (!contributes(uses[u])) continue;
      for (int v = 0; v < block->num_uses; ++v) {
        if (!contributes(uses[v])) continue;
        const int bu = uses[u].block, bv = uses[v].block;
        GaussNewtonPair pair;
        pair.row_use = u;
        pair.col_use = v;
        if (u == v) {
          pair.prefix = -1;
        } else if (bu > bv) {
          // (Ceres refuses a block used twice by one residual block, so
          // bu != bv here.)
          const std::vector<int>& list = below[bv];
          const size_t i =
              std::lower_bound(list.begin(), list.end(), bu) - list.begin();
          pair.prefix = prefix[bv][i];
        } else {
          continue;
        }
        gauss_newton_pairs_.push_back(pair);
      }
    }
    block->num_pairs =
        static_cast<int>(gauss_newton_pairs_.size()) - block->first_pair;
  });

  tangent_scratch_.resize(max_tangent);
  projection_scratch_.resize(max_tangent_size);
  ambient_pointers_.resize(max_uses);
  tangent_pointers_.resize(max_uses);
  gauss_newton_built_ = true;
}

bool CeresProblemAdapter::AccumulateGaussNewton(const Block& block,
                                                const double* const* jacobians,
                                                const double* residuals,
                                                const ceres::LossFunction* loss,
                                                double weight,
                                                double* values,
                                                std::string* error) {
  const int m = block.num_residuals;
  const ParameterUse* uses = uses_.data() + block.first_use;
  // Triggs' correction (as Ceres' robust loss functions are applied to
  // Jacobians): J~ = sqrt(rho') (I - alpha r r^T / s) J. The factor rho'
  // goes into the weight, alpha / s into the rank-one part.
  double alpha_over_s = 0.0;
  if (loss != nullptr) {
    double s = 0.0;
    for (int k = 0; k < m; ++k) s += residuals[k] * residuals[k];
    double rho[3];
    loss->Evaluate(s, rho);
    if (!std::isfinite(rho[1]) || !std::isfinite(rho[2])) {
      if (error != nullptr) {
        *error = "its loss function returned a non-finite derivative";
      }
      return false;
    }
    // rho' <= 0 (e.g. beyond a redescending loss's cut-off): the corrected
    // residual does not depend on the parameters.
    if (!(rho[1] > 0.0)) return true;
    weight *= rho[1];
    if (s > 0.0 && rho[2] > 0.0) {
      alpha_over_s = (1.0 - std::sqrt(1.0 + 2.0 * s * rho[2] / rho[1])) / s;
    }
  }

  // Tangent (and corrected) Jacobians, m x t row-major. A Euclidean block
  // without correction is used in place.
  double* scratch = tangent_scratch_.data();
  for (int u = 0; u < block.num_uses; ++u) {
    tangent_pointers_[u] = nullptr;
    const int b = uses[u].block;
    if (b < 0 || tangent_sizes_[b] == 0) continue;
    const int size = uses[u].size;
    const int t = tangent_sizes_[b];
    const double* ambient = jacobians[u];
    const int plus = plus_jacobian_offsets_[b];
    if (plus < 0 && alpha_over_s == 0.0) {
      tangent_pointers_[u] = ambient;
      continue;
    }
    double* tangent = scratch;
    scratch += static_cast<size_t>(m) * t;
    if (plus >= 0) {
      const double* p = plus_jacobians_.data() + plus;  // size x t
      for (int k = 0; k < m; ++k) {
        const double* row = ambient + static_cast<size_t>(k) * size;
        double* out = tangent + static_cast<size_t>(k) * t;
        std::fill(out, out + t, 0.0);
        for (int i = 0; i < size; ++i) {
          const double x = row[i];
          if (x == 0.0) continue;
          const double* p_row = p + static_cast<size_t>(i) * t;
          for (int c = 0; c < t; ++c) out[c] += x * p_row[c];
        }
      }
    } else {
      std::copy(ambient, ambient + static_cast<size_t>(m) * t, tangent);
    }
    if (alpha_over_s != 0.0) {
      double* projection = projection_scratch_.data();  // alpha/s r^T J
      std::fill(projection, projection + t, 0.0);
      for (int k = 0; k < m; ++k) {
        const double* row = tangent + static_cast<size_t>(k) * t;
        for (int c = 0; c < t; ++c) projection[c] += residuals[k] * row[c];
      }
      for (int c = 0; c < t; ++c) projection[c] *= alpha_over_s;
      for (int k = 0; k < m; ++k) {
        double* row = tangent + static_cast<size_t>(k) * t;
        for (int c = 0; c < t; ++c) row[c] -= residuals[k] * projection[c];
      }
    }
    tangent_pointers_[u] = tangent;
  }

  // weight J~_row^T J~_col into place.
  const int* outer = gauss_newton_outer_.data();
  const GaussNewtonPair* pairs = gauss_newton_pairs_.data() + block.first_pair;
  for (int p = 0; p < block.num_pairs; ++p) {
    const GaussNewtonPair& pair = pairs[p];
    const int row_block = uses[pair.row_use].block;
    const int col_block = uses[pair.col_use].block;
    const int tr = tangent_sizes_[row_block];
    const int tc = tangent_sizes_[col_block];
    const int oc = tangent_offsets_[col_block];
    const double* jr = tangent_pointers_[pair.row_use];
    const double* jc = tangent_pointers_[pair.col_use];
    if (pair.prefix < 0) {
      // Diagonal block: its lower triangle.
      for (int c = 0; c < tc; ++c) {
        double* column = values + outer[oc + c];  // row r at column[r - c]
        for (int k = 0; k < m; ++k) {
          const double* row = jc + static_cast<size_t>(k) * tc;
          const double w = weight * row[c];
          if (w == 0.0) continue;
          for (int r = c; r < tc; ++r) column[r - c] += w * row[r];
        }
      }
      continue;
    }
    for (int c = 0; c < tc; ++c) {
      double* column = values + outer[oc + c] + (tc - c) + pair.prefix;
      for (int k = 0; k < m; ++k) {
        const double w = weight * jc[static_cast<size_t>(k) * tc + c];
        if (w == 0.0) continue;
        const double* row = jr + static_cast<size_t>(k) * tr;
        for (int r = 0; r < tr; ++r) column[r] += w * row[r];
      }
    }
  }
  return true;
}

bool CeresProblemAdapter::DoGaussNewtonMatrix(
    const double* a,
    const double* c,
    Eigen::SparseMatrix<double>* lower,
    std::string* error) {
  auto fail = [&](const std::string& message) {
    if (error != nullptr)
      *error = "CeresProblemAdapter::GaussNewtonMatrix: " + message;
    return false;
  };
  if (!error_.empty()) {
    if (error != nullptr) *error = error_;
    return false;
  }
  if (options_.evaluation_path != EvaluationPath::kDirect) {
    return fail(
        "EvaluationPath::kProblemEvaluate keeps no residual Jacobians; use "
        "EvaluationPath::kDirect, or Hessian products (newton.hessian = "
        "automatic or exact-products).");
  }
  if (lower == nullptr) return fail("the output matrix is null.");
  if (linearization_point().size() != num_parameters_) {
    return fail(
        "no linearization point: call Evaluate with gradients first (the "
        "last one failed or there was none).");
  }
  for (int s = 0; s < NumObjectives(); ++s) {
    if (!std::isfinite(a[s])) {
      return fail("the weight a[" + std::to_string(s) + "] is not finite.");
    }
  }
  for (int i = 0; i < num_constraints_; ++i) {
    if (!std::isfinite(c[i]) || c[i] < 0.0) {
      std::ostringstream os;
      os << "the constraint weight c must be finite and >= 0 (row " << i
         << " has " << c[i] << ").";
      return fail(os.str());
    }
  }
  if (!gauss_newton_built_) BuildGaussNewtonPattern();

  // The caller's matrix gets our pattern unless it has it already (the
  // usual case: then nothing is allocated).
  const int n = static_cast<int>(gauss_newton_outer_.size()) - 1;
  const int nnz = gauss_newton_outer_.back();
  if (lower->rows() != n || lower->cols() != n || !lower->isCompressed() ||
      lower->nonZeros() != nnz ||
      !std::equal(gauss_newton_outer_.begin(),
                  gauss_newton_outer_.end(),
                  lower->outerIndexPtr()) ||
      !std::equal(gauss_newton_inner_.begin(),
                  gauss_newton_inner_.end(),
                  lower->innerIndexPtr())) {
    lower->resize(n, n);
    lower->resizeNonZeros(nnz);
    std::copy(gauss_newton_outer_.begin(),
              gauss_newton_outer_.end(),
              lower->outerIndexPtr());
    std::copy(gauss_newton_inner_.begin(),
              gauss_newton_inner_.end(),
              lower->innerIndexPtr());
  }
  double* values = lower->valuePtr();
  std::fill(values, values + nnz, 0.0);

  const double* z = linearization_point().data();
  for (size_t b = 0; b < parameter_blocks_.size(); ++b) {
    const ParameterBlock& pb = parameter_blocks_[b];
    if (pb.manifold == nullptr) continue;
    if (!pb.manifold->PlusJacobian(
            z + pb.offset,
            plus_jacobians_.data() + plus_jacobian_offsets_[b])) {
      return fail("the manifold of parameter block " +
                  DescribeBlock(pb.values) +
                  " failed to compute its PlusJacobian at the linearization "
                  "point.");
    }
  }

  auto block_error = [&](const char* kind,
                         const std::string& group,
                         size_t index,
                         const Block& block,
                         const std::string& what) {
    std::ostringstream os;
    os << kind << " group '" << group << "': residual block " << index
       << " (id " << block.id << "): " << what << ".";
    return fail(os.str());
  };
  std::string what;
  for (size_t s = 0; s < objectives_.size(); ++s) {
    if (a[s] == 0.0) continue;
    const Group& group = objectives_[s];
    for (size_t i = 0; i < group.blocks.size(); ++i) {
      const Block& block = group.blocks[i];
      const double* jacobians =
          objective_jacobians_.data() + block.stored_jacobian_offset;
      for (int u = 0; u < block.num_uses; ++u) {
        ambient_pointers_[u] =
            jacobians + uses_[block.first_use + u].jacobian_offset;
      }
      if (!AccumulateGaussNewton(
              block,
              ambient_pointers_.data(),
              objective_residuals_.data() + block.stored_residual_offset,
              block.loss_function,
              a[s],
              values,
              &what)) {
        return block_error("objective", group.name, i, block, what);
      }
    }
  }
  for (const Group& group : constraints_) {
    for (size_t i = 0; i < group.blocks.size(); ++i) {
      const Block& block = group.blocks[i];
      const double* row_weights = c + block.residual_offset;
      const int rows = block.num_residuals;
      const bool uniform =
          std::all_of(row_weights, row_weights + rows, [&](double w) {
            return w == row_weights[0];
          });
      if (uniform && row_weights[0] == 0.0) continue;
      // Rows of different weights: scale row r by sqrt(c_r) into scratch
      // and accumulate with weight 1 (only for per-row weights that differ
      // inside one residual block, e.g. an inequality block with some rows
      // inactive).
      size_t scaled_size = 0;
      int next = block.first_jacobian_block;
      for (int u = 0; u < block.num_uses; ++u) {
        if (uses_[block.first_use + u].offset >= 0) {
          scaled_size += jacobian_blocks_[next++].values.size();
        }
      }
      if (!uniform && scaled_rows_.size() < scaled_size) {
        scaled_rows_.resize(scaled_size);
      }
      next = block.first_jacobian_block;
      size_t scaled_offset = 0;
      for (int u = 0; u < block.num_uses; ++u) {
        ambient_pointers_[u] = nullptr;
        if (uses_[block.first_use + u].offset < 0) continue;
        const JacobianBlock& jb = jacobian_blocks_[next++];
        if (uniform) {
          ambient_pointers_[u] = jb.values.data();
          continue;
        }
        double* scaled = scaled_rows_.data() + scaled_offset;
        for (int r = 0; r < jb.rows; ++r) {
          const double factor = std::sqrt(row_weights[r]);
          for (int col = 0; col < jb.cols; ++col) {
            scaled[r * jb.cols + col] = factor * jb.values[r * jb.cols + col];
          }
        }
        ambient_pointers_[u] = scaled;
        scaled_offset += jb.values.size();
      }
      if (!AccumulateGaussNewton(block,
                                 ambient_pointers_.data(),
                                 nullptr,
                                 nullptr,
                                 uniform ? row_weights[0] : 1.0,
                                 values,
                                 &what)) {
        return block_error("constraint", group.name, i, block, what);
      }
    }
  }
  return true;
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
