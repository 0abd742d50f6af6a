// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/problem.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include "parameter_bounds.h"
#include "scalarization_cache.h"

namespace ecmo {

Problem::Problem()
    : scalarization_cache_(std::make_shared<internal::ScalarizationCache>()) {}
Problem::Problem(const Options& options)
    : options_(options),
      scalarization_cache_(std::make_shared<internal::ScalarizationCache>()) {}
Problem::~Problem() = default;
Problem::Problem(Problem&&) noexcept = default;
Problem& Problem::operator=(Problem&&) noexcept = default;

void Problem::ForgetScalarization() const {
  if (scalarization_cache_ != nullptr) scalarization_cache_->Clear();
}

void Problem::RecordError(const std::string& error) {
  if (first_error_.empty()) first_error_ = error;
}

bool Problem::AddParameterBlock(double* values, int size) {
  ForgetScalarization();
  if (values == nullptr) {
    RecordError(
        "Problem::AddParameterBlock: the parameter block pointer is "
        "null; pass the address of a user-owned double array.");
    return false;
  }
  if (size <= 0) {
    std::ostringstream os;
    os << "Problem::AddParameterBlock: parameter block " << values
       << " has size " << size << "; sizes must be positive.";
    RecordError(os.str());
    return false;
  }
  auto it = block_index_.find(values);
  if (it != block_index_.end()) {
    const ParameterBlock& known = parameter_blocks_[it->second];
    if (known.size != size) {
      std::ostringstream os;
      os << "Problem::AddParameterBlock: parameter block " << values
         << " was registered with size " << known.size
         << " and is now used with size " << size
         << "; every use of a block must have the same size.";
      RecordError(os.str());
      return false;
    }
    return true;
  }
  // A new block must not overlap an existing one (Ceres' rule too), or z
  // would hold two copies of the same numbers.
  for (const ParameterBlock& b : parameter_blocks_) {
    if (values < b.values + b.size && b.values < values + size) {
      std::ostringstream os;
      os << "Problem::AddParameterBlock: parameter block " << values
         << " of size " << size << " overlaps block " << b.values << " of size "
         << b.size << "; parameter blocks must be disjoint arrays.";
      RecordError(os.str());
      return false;
    }
  }
  ParameterBlock block;
  block.values = values;
  block.size = size;
  block.offset = num_parameters_;
  block_index_[values] = static_cast<int>(parameter_blocks_.size());
  parameter_blocks_.push_back(block);
  num_parameters_ += size;
  return true;
}

void Problem::AdoptCostFunction(ceres::CostFunction* cost_function) {
  if (cost_function == nullptr) return;
  for (const auto& owned : owned_cost_functions_) {
    if (owned.get() == cost_function) return;
  }
  owned_cost_functions_.emplace_back(cost_function);
}

int Problem::AddTerm(ceres::CostFunction* cost_function,
                     bool adopt,
                     const std::vector<double*>& parameter_blocks,
                     const std::string& name,
                     TermKind kind) {
  ForgetScalarization();
  // Owned from here on, also on failure: a pointer shared with an earlier
  // term must not be deleted now (Ceres deletes shared cost functions
  // once, at the end).
  if (adopt) AdoptCostFunction(cost_function);
  const bool is_objective = kind == TermKind::kObjective;
  const char* what = is_objective                  ? "AddObjective"
                     : kind == TermKind::kEquality ? "AddConstraint"
                                                   : "AddInequalityConstraint";
  const int index = is_objective ? NumObjectives()
                    : kind == TermKind::kEquality
                        ? NumConstraintBlocks()
                        : NumInequalityConstraintBlocks();
  const char* prefix = is_objective                  ? "f"
                       : kind == TermKind::kEquality ? "h"
                                                     : "c";
  const std::string label =
      name.empty() ? std::string(prefix) + std::to_string(index + 1) : name;
  auto fail = [&](const std::string& why) {
    RecordError(std::string("Problem::") + what + "('" + label + "'): " + why);
    return -1;
  };
  if (!cost_function) {
    return fail("the cost function is null.");
  }
  const std::vector<int32_t>& sizes = cost_function->parameter_block_sizes();
  if (sizes.size() != parameter_blocks.size()) {
    std::ostringstream os;
    os << "the cost function declares " << sizes.size()
       << " parameter blocks but " << parameter_blocks.size()
       << " were given; pass one pointer per parameter block.";
    return fail(os.str());
  }
  if (sizes.empty()) {
    return fail("the cost function has no parameter blocks.");
  }
  if (is_objective && cost_function->num_residuals() != 1) {
    std::ostringstream os;
    os << "an objective must have exactly 1 residual (its value f_s), but "
          "this cost function has "
       << cost_function->num_residuals()
       << "; split it into one objective per residual, or sum them.";
    return fail(os.str());
  }
  if (!is_objective && cost_function->num_residuals() < 1) {
    std::ostringstream os;
    os << "a constraint must have at least 1 residual, but this cost "
          "function has "
       << cost_function->num_residuals() << ".";
    return fail(os.str());
  }
  Term term;
  for (size_t j = 0; j < parameter_blocks.size(); ++j) {
    const size_t errors_before = first_error_.size();
    if (!AddParameterBlock(parameter_blocks[j], sizes[j])) {
      if (errors_before == 0) {
        // Prefix the block error with the term it came from.
        std::string block_error = first_error_;
        first_error_.clear();
        std::ostringstream os;
        os << "parameter block " << j << ": " << block_error;
        return fail(os.str());
      }
      return -1;
    }
    term.blocks.push_back(block_index_.at(parameter_blocks[j]));
  }
  term.cost_function = cost_function;
  term.name = label;
  if (is_objective) {
    objectives_.push_back(std::move(term));
  } else if (kind == TermKind::kEquality) {
    term.residual_offset = num_constraints_;
    num_constraints_ += term.cost_function->num_residuals();
    constraints_.push_back(std::move(term));
  } else {
    term.residual_offset = num_inequality_constraints_;
    num_inequality_constraints_ += term.cost_function->num_residuals();
    inequality_constraints_.push_back(std::move(term));
  }
  return index;
}

int Problem::AddObjective(std::unique_ptr<ceres::CostFunction> cost_function,
                          const std::vector<double*>& parameter_blocks,
                          const std::string& name) {
  return AddTerm(cost_function.release(),
                 /*adopt=*/true,
                 parameter_blocks,
                 name,
                 TermKind::kObjective);
}

int Problem::AddObjective(ceres::CostFunction* cost_function,
                          const std::vector<double*>& parameter_blocks,
                          const std::string& name) {
  return AddTerm(cost_function,
                 options_.cost_function_ownership == ceres::TAKE_OWNERSHIP,
                 parameter_blocks,
                 name,
                 TermKind::kObjective);
}

int Problem::AddConstraint(std::unique_ptr<ceres::CostFunction> cost_function,
                           const std::vector<double*>& parameter_blocks,
                           const std::string& name) {
  return AddTerm(cost_function.release(),
                 /*adopt=*/true,
                 parameter_blocks,
                 name,
                 TermKind::kEquality);
}

int Problem::AddConstraint(ceres::CostFunction* cost_function,
                           const std::vector<double*>& parameter_blocks,
                           const std::string& name) {
  return AddTerm(cost_function,
                 options_.cost_function_ownership == ceres::TAKE_OWNERSHIP,
                 parameter_blocks,
                 name,
                 TermKind::kEquality);
}

int Problem::AddInequalityConstraint(
    std::unique_ptr<ceres::CostFunction> cost_function,
    const std::vector<double*>& parameter_blocks,
    const std::string& name) {
  return AddTerm(cost_function.release(),
                 /*adopt=*/true,
                 parameter_blocks,
                 name,
                 TermKind::kInequality);
}

int Problem::AddInequalityConstraint(
    ceres::CostFunction* cost_function,
    const std::vector<double*>& parameter_blocks,
    const std::string& name) {
  return AddTerm(cost_function,
                 options_.cost_function_ownership == ceres::TAKE_OWNERSHIP,
                 parameter_blocks,
                 name,
                 TermKind::kInequality);
}

bool Problem::SetManifoldImpl(double* values,
                              ceres::Manifold* manifold,
                              bool adopt) {
  ForgetScalarization();
  bool owned = false;
  for (const auto& m : manifolds_) owned = owned || m.get() == manifold;
  if (manifold != nullptr && !owned && adopt) {
    manifolds_.emplace_back(manifold);  // adopted even on error: destroyed
  }                                     // with the problem
  auto it = block_index_.find(values);
  std::ostringstream os;
  if (values == nullptr) {
    os << "Problem::SetManifold: the parameter block pointer is null.";
  } else if (it == block_index_.end()) {
    os << "Problem::SetManifold: parameter block " << values
       << " is not in the problem; add it first (AddParameterBlock or a "
          "term that uses it).";
  } else if (manifold != nullptr &&
             manifold->AmbientSize() != parameter_blocks_[it->second].size) {
    os << "Problem::SetManifold: parameter block " << values << " has size "
       << parameter_blocks_[it->second].size
       << " but the manifold has AmbientSize() = " << manifold->AmbientSize()
       << ".";
  }
  if (!os.str().empty()) {
    RecordError(os.str());
    return false;
  }
  parameter_blocks_[it->second].manifold = manifold;
  return true;
}

bool Problem::SetManifold(double* values,
                          std::unique_ptr<ceres::Manifold> manifold) {
  return SetManifoldImpl(values, manifold.release(), /*adopt=*/true);
}

bool Problem::SetManifold(double* values, ceres::Manifold* manifold) {
  return SetManifoldImpl(
      values, manifold, options_.manifold_ownership == ceres::TAKE_OWNERSHIP);
}

const ceres::Manifold* Problem::GetManifold(const double* values) const {
  auto it = block_index_.find(values);
  return it == block_index_.end() ? nullptr
                                  : parameter_blocks_[it->second].manifold;
}

bool Problem::HasManifolds() const {
  for (const ParameterBlock& b : parameter_blocks_) {
    if (b.manifold != nullptr && !b.constant) return true;
  }
  return false;
}

bool Problem::SetConstancy(const double* values, bool constant) {
  ForgetScalarization();
  auto it = block_index_.find(values);
  if (it == block_index_.end()) {
    std::ostringstream os;
    os << "Problem::SetParameterBlock" << (constant ? "Constant" : "Variable")
       << ": parameter block not found: " << values
       << ". You must add the parameter block to the problem before it can "
          "be set "
       << (constant ? "constant" : "varying")
       << " (AddParameterBlock or a term that uses it).";
    RecordError(os.str());
    return false;
  }
  ParameterBlock& block = parameter_blocks_[it->second];
  if (block.constant != constant) {
    block.constant = constant;
    ComputeOffsets();
  }
  return true;
}

bool Problem::SetParameterBlockConstant(const double* values) {
  return SetConstancy(values, /*constant=*/true);
}

bool Problem::SetParameterBlockVariable(const double* values) {
  return SetConstancy(values, /*constant=*/false);
}

bool Problem::IsParameterBlockConstant(const double* values) const {
  auto it = block_index_.find(values);
  return it != block_index_.end() && parameter_blocks_[it->second].constant;
}

void Problem::ComputeOffsets() {
  num_parameters_ = 0;
  for (ParameterBlock& b : parameter_blocks_) {
    b.offset = b.constant ? -1 : num_parameters_;
    if (!b.constant) num_parameters_ += b.size;
  }
}

bool Problem::SetBound(double* values, int index, double bound, bool is_lower) {
  ForgetScalarization();
  auto it = block_index_.find(values);
  const std::string error = internal::SetBlockBound(
      "Problem",
      values,
      it == block_index_.end() ? nullptr : &parameter_blocks_[it->second],
      index,
      bound,
      is_lower);
  if (!error.empty()) {
    RecordError(error);
    return false;
  }
  return true;
}

bool Problem::SetParameterLowerBound(double* values,
                                     int index,
                                     double lower_bound) {
  return SetBound(values, index, lower_bound, /*is_lower=*/true);
}

bool Problem::SetParameterUpperBound(double* values,
                                     int index,
                                     double upper_bound) {
  return SetBound(values, index, upper_bound, /*is_lower=*/false);
}

double Problem::GetParameterLowerBound(const double* values, int index) const {
  auto it = block_index_.find(values);
  if (it == block_index_.end()) return -std::numeric_limits<double>::infinity();
  const ParameterBlock& b = parameter_blocks_[it->second];
  if (b.lower.empty() || index < 0 || index >= b.size) {
    return -std::numeric_limits<double>::infinity();
  }
  return b.lower[index];
}

double Problem::GetParameterUpperBound(const double* values, int index) const {
  auto it = block_index_.find(values);
  if (it == block_index_.end()) return std::numeric_limits<double>::infinity();
  const ParameterBlock& b = parameter_blocks_[it->second];
  if (b.upper.empty() || index < 0 || index >= b.size) {
    return std::numeric_limits<double>::infinity();
  }
  return b.upper[index];
}

bool Problem::HasBounds() const {
  for (const ParameterBlock& b : parameter_blocks_) {
    if (!b.constant && internal::HasFiniteBound(b.lower, b.upper)) return true;
  }
  return false;
}

void Problem::GetBounds(double* lower, double* upper) const {
  const double inf = std::numeric_limits<double>::infinity();
  for (const ParameterBlock& b : parameter_blocks_) {
    if (b.constant) continue;
    for (int i = 0; i < b.size; ++i) {
      lower[b.offset + i] = b.lower.empty() ? -inf : b.lower[i];
      upper[b.offset + i] = b.upper.empty() ? inf : b.upper[i];
    }
  }
}

bool Problem::IsValid(std::string* error) const {
  std::string message = first_error_;
  for (const ParameterBlock& b : parameter_blocks_) {
    if (!message.empty() || b.constant || b.lower.empty()) continue;
    message =
        internal::CrossedBoundsError("Problem", b.values, b.lower, b.upper);
    if (message.empty() && b.manifold != nullptr &&
        internal::HasFiniteBound(b.lower, b.upper)) {
      std::ostringstream os;
      os << "Problem: parameter block " << b.values
         << " has both a manifold and bounds; bounds apply to Euclidean "
            "blocks only. Remove the bounds, or the manifold (e.g. pose a "
            "unit norm as an equality constraint).";
      message = os.str();
    }
  }
  if (message.empty() && objectives_.empty()) {
    message =
        "Problem has no objectives; add at least one with AddObjective().";
  }
  if (message.empty() && num_parameters_ == 0) {
    message =
        "Problem: every parameter block is constant; there is nothing to "
        "optimize. Make at least one block variable "
        "(SetParameterBlockVariable).";
  }
  if (error != nullptr) *error = message;
  return message.empty();
}

void Problem::GetParameters(double* z) const {
  for (const ParameterBlock& b : parameter_blocks_) {
    if (b.constant) continue;
    std::copy(b.values, b.values + b.size, z + b.offset);
  }
}

void Problem::SetParameters(const double* z) const {
  for (const ParameterBlock& b : parameter_blocks_) {
    if (b.constant) continue;
    std::copy(z + b.offset, z + b.offset + b.size, b.values);
  }
}

}  // namespace ecmo
