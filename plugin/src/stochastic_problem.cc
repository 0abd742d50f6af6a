// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// StochasticFunction, SingleSampleFunction, FiniteSumFunction and
// StochasticProblem (the model side of ecmo/stochastic.h).

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "ecmo/internal/report.h"
#include "ecmo/stochastic.h"
#include "parameter_bounds.h"

namespace ecmo {

using internal::AllFinite;

// ------------------------------------------------------ StochasticFunction --

StochasticFunction::~StochasticFunction() = default;

bool StochasticFunction::EvaluateExpectation(const double* const*,
                                             double*,
                                             double**) const {
  return false;
}

bool SingleSampleFunction::EvaluateMiniBatch(const double* const* parameters,
                                             int batch_size,
                                             std::mt19937_64* rng,
                                             double* values,
                                             double** jacobians) const {
  const int m = num_residuals();
  const auto& sizes = parameter_block_sizes();
  const size_t nb = sizes.size();
  std::vector<double> sample_values(m);
  std::vector<std::vector<double>> sample_jacobians(nb);
  std::vector<double*> pointers(nb, nullptr);
  std::fill(values, values + m, 0.0);
  for (size_t j = 0; j < nb; ++j) {
    if (jacobians != nullptr && jacobians[j] != nullptr) {
      sample_jacobians[j].resize(static_cast<size_t>(m) * sizes[j]);
      pointers[j] = sample_jacobians[j].data();
      std::fill(jacobians[j], jacobians[j] + sample_jacobians[j].size(), 0.0);
    }
  }
  if (batch_size <= 0) return false;
  const double weight = 1.0 / batch_size;
  for (int b = 0; b < batch_size; ++b) {
    if (!EvaluateSample(parameters,
                        rng,
                        sample_values.data(),
                        jacobians != nullptr ? pointers.data() : nullptr)) {
      return false;
    }
    for (int i = 0; i < m; ++i) values[i] += weight * sample_values[i];
    for (size_t j = 0; j < nb; ++j) {
      if (pointers[j] == nullptr) continue;
      for (size_t e = 0; e < sample_jacobians[j].size(); ++e) {
        jacobians[j][e] += weight * sample_jacobians[j][e];
      }
    }
  }
  return true;
}

// ------------------------------------------------------- FiniteSumFunction --

FiniteSumFunction::FiniteSumFunction() = default;
FiniteSumFunction::~FiniteSumFunction() = default;

bool FiniteSumFunction::AddSample(ceres::CostFunction* cost_function) {
  std::unique_ptr<ceres::CostFunction> owned(cost_function);
  if (owned == nullptr) return false;
  if (samples_.empty()) {
    set_num_residuals(owned->num_residuals());
    *mutable_parameter_block_sizes() = owned->parameter_block_sizes();
  } else if (owned->num_residuals() != num_residuals() ||
             owned->parameter_block_sizes() != parameter_block_sizes()) {
    return false;
  }
  samples_.push_back(std::move(owned));
  return true;
}

bool FiniteSumFunction::Accumulate(const double* const* parameters,
                                   int index,
                                   double weight,
                                   double* values,
                                   double** jacobians) const {
  const int m = num_residuals();
  const auto& sizes = parameter_block_sizes();
  std::vector<double> v(m);
  std::vector<std::vector<double>> jac(sizes.size());
  std::vector<double*> pointers(sizes.size(), nullptr);
  for (size_t j = 0; j < sizes.size(); ++j) {
    if (jacobians != nullptr && jacobians[j] != nullptr) {
      jac[j].resize(static_cast<size_t>(m) * sizes[j]);
      pointers[j] = jac[j].data();
    }
  }
  if (!samples_[index]->Evaluate(
          parameters,
          v.data(),
          jacobians != nullptr ? pointers.data() : nullptr)) {
    return false;
  }
  for (int i = 0; i < m; ++i) values[i] += weight * v[i];
  for (size_t j = 0; j < sizes.size(); ++j) {
    if (pointers[j] == nullptr) continue;
    for (size_t e = 0; e < jac[j].size(); ++e) {
      jacobians[j][e] += weight * jac[j][e];
    }
  }
  return true;
}

namespace {
void ZeroOutputs(const StochasticFunction& f, double* values, double** jac) {
  std::fill(values, values + f.num_residuals(), 0.0);
  if (jac == nullptr) return;
  for (size_t j = 0; j < f.parameter_block_sizes().size(); ++j) {
    if (jac[j] != nullptr) {
      std::fill(jac[j],
                jac[j] + static_cast<size_t>(f.num_residuals()) *
                             f.parameter_block_sizes()[j],
                0.0);
    }
  }
}
}  // namespace

bool FiniteSumFunction::EvaluateMiniBatch(const double* const* parameters,
                                          int batch_size,
                                          std::mt19937_64* rng,
                                          double* values,
                                          double** jacobians) const {
  if (samples_.empty() || batch_size <= 0) return false;
  ZeroOutputs(*this, values, jacobians);
  std::uniform_int_distribution<int> pick(
      0, static_cast<int>(samples_.size()) - 1);
  const double weight = 1.0 / batch_size;
  for (int b = 0; b < batch_size; ++b) {
    if (!Accumulate(parameters, pick(*rng), weight, values, jacobians)) {
      return false;
    }
  }
  return true;
}

bool FiniteSumFunction::EvaluateExpectation(const double* const* parameters,
                                            double* values,
                                            double** jacobians) const {
  if (samples_.empty()) return false;
  ZeroOutputs(*this, values, jacobians);
  const double weight = 1.0 / samples_.size();
  for (size_t n = 0; n < samples_.size(); ++n) {
    if (!Accumulate(
            parameters, static_cast<int>(n), weight, values, jacobians)) {
      return false;
    }
  }
  return true;
}

// ------------------------------------------------------- StochasticProblem --

StochasticProblem::StochasticProblem() = default;
StochasticProblem::~StochasticProblem() = default;

void StochasticProblem::RecordError(const std::string& error) {
  if (first_error_.empty()) first_error_ = error;
}

bool StochasticProblem::AddParameterBlock(double* values, int size) {
  std::ostringstream os;
  if (values == nullptr) {
    os << "StochasticProblem::AddParameterBlock: null parameter block.";
  } else if (size <= 0) {
    os << "StochasticProblem::AddParameterBlock: size = " << size
       << "; a parameter block needs at least one entry.";
  } else {
    auto it = block_index_.find(values);
    if (it != block_index_.end()) {
      if (blocks_[it->second].size == size) return true;
      os << "StochasticProblem::AddParameterBlock: the block was registered "
            "with size "
         << blocks_[it->second].size << " and is now used with size " << size
         << ".";
    }
  }
  if (!os.str().empty()) {
    RecordError(os.str());
    return false;
  }
  Block block;
  block.values = values;
  block.size = size;
  block.offset = num_parameters_;
  num_parameters_ += size;
  block_index_[values] = static_cast<int>(blocks_.size());
  blocks_.push_back(block);
  return true;
}

int StochasticProblem::AddObjective(StochasticFunction* function,
                                    const std::vector<double*>& blocks,
                                    const std::string& name) {
  return AddTerm(function, blocks, name, true);
}

int StochasticProblem::AddConstraint(StochasticFunction* function,
                                     const std::vector<double*>& blocks,
                                     const std::string& name) {
  return AddTerm(function, blocks, name, false);
}

int StochasticProblem::AddTerm(StochasticFunction* function,
                               const std::vector<double*>& parameter_blocks,
                               const std::string& name,
                               bool is_objective) {
  std::unique_ptr<StochasticFunction> owned(function);
  const char* kind = is_objective ? "objective" : "constraint";
  const size_t index = is_objective ? objectives_.size() : constraints_.size();
  const std::string label =
      name.empty()
          ? std::string(is_objective ? "f" : "h") + std::to_string(index + 1)
          : name;
  std::ostringstream os;
  if (owned == nullptr) {
    os << "StochasticProblem: " << kind << " '" << label
       << "' has a null function.";
  } else if (is_objective && owned->num_residuals() != 1) {
    os << "StochasticProblem: objective '" << label << "' has "
       << owned->num_residuals()
       << " residuals; an objective is one value (num_residuals = 1).";
  } else if (!is_objective && owned->num_residuals() < 1) {
    os << "StochasticProblem: constraint '" << label << "' has no residuals.";
  } else if (owned->parameter_block_sizes().size() != parameter_blocks.size()) {
    os << "StochasticProblem: " << kind << " '" << label << "' takes "
       << owned->parameter_block_sizes().size() << " parameter blocks but "
       << parameter_blocks.size() << " were given.";
  }
  if (!os.str().empty()) {
    RecordError(os.str());
    return -1;
  }
  Term term;
  for (size_t j = 0; j < parameter_blocks.size(); ++j) {
    if (!AddParameterBlock(parameter_blocks[j],
                           owned->parameter_block_sizes()[j])) {
      return -1;
    }
    term.blocks.push_back(block_index_[parameter_blocks[j]]);
  }
  term.function = std::move(owned);
  term.name = label;
  if (is_objective) {
    objectives_.push_back(std::move(term));
  } else {
    term.residual_offset = num_constraints_;
    num_constraints_ += term.function->num_residuals();
    constraints_.push_back(std::move(term));
  }
  return static_cast<int>(index);
}

bool StochasticProblem::SetBound(double* values,
                                 int index,
                                 double bound,
                                 bool is_lower) {
  auto it = block_index_.find(values);
  const std::string error = internal::SetBlockBound(
      "StochasticProblem",
      values,
      it == block_index_.end() ? nullptr : &blocks_[it->second],
      index,
      bound,
      is_lower);
  if (!error.empty()) {
    RecordError(error);
    return false;
  }
  return true;
}

bool StochasticProblem::SetParameterLowerBound(double* values,
                                               int index,
                                               double lower_bound) {
  return SetBound(values, index, lower_bound, /*is_lower=*/true);
}

bool StochasticProblem::SetParameterUpperBound(double* values,
                                               int index,
                                               double upper_bound) {
  return SetBound(values, index, upper_bound, /*is_lower=*/false);
}

bool StochasticProblem::HasBounds() const {
  for (const Block& b : blocks_) {
    if (internal::HasFiniteBound(b.lower, b.upper)) return true;
  }
  return false;
}

void StochasticProblem::GetBounds(Eigen::VectorXd* lower,
                                  Eigen::VectorXd* upper) const {
  const double inf = std::numeric_limits<double>::infinity();
  lower->setConstant(num_parameters_, -inf);
  upper->setConstant(num_parameters_, inf);
  for (const Block& b : blocks_) {
    for (size_t i = 0; i < b.lower.size(); ++i) {
      (*lower)[b.offset + i] = b.lower[i];
      (*upper)[b.offset + i] = b.upper[i];
    }
  }
}

bool StochasticProblem::IsValid(std::string* error) const {
  std::string message = first_error_;
  if (message.empty() && objectives_.empty()) {
    message = "StochasticProblem: no objectives; call AddObjective.";
  }
  for (const Block& b : blocks_) {
    if (!message.empty()) break;
    message = internal::CrossedBoundsError(
        "StochasticProblem", b.values, b.lower, b.upper);
  }
  if (error != nullptr) *error = message;
  return message.empty();
}

void StochasticProblem::GetParameters(double* z) const {
  for (const Block& b : blocks_) {
    std::copy(b.values, b.values + b.size, z + b.offset);
  }
}

void StochasticProblem::SetParameters(const double* z) const {
  for (const Block& b : blocks_) {
    std::copy(z + b.offset, z + b.offset + b.size, b.values);
  }
}

bool StochasticProblem::EvaluateMiniBatch(const double* z,
                                          int objective_batch,
                                          int constraint_batch,
                                          std::mt19937_64* rng,
                                          double* f,
                                          double* grad_f,
                                          double* h,
                                          double* jt_h,
                                          std::string* error) const {
  const int k = num_parameters_;
  std::vector<const double*> parameters;
  std::vector<std::vector<double>> jac;
  std::vector<double*> pointers;
  auto run = [&](const Term& term,
                 int batch,
                 double* values,
                 bool want_jacobian,
                 const char* kind) {
    const size_t nb = term.blocks.size();
    const int m = term.function->num_residuals();
    parameters.resize(nb);
    jac.resize(std::max(jac.size(), nb));
    pointers.resize(nb);
    for (size_t j = 0; j < nb; ++j) {
      const Block& b = blocks_[term.blocks[j]];
      parameters[j] = z + b.offset;
      jac[j].assign(static_cast<size_t>(m) * b.size, 0.0);
      pointers[j] = jac[j].data();
    }
    const bool ok = term.function->EvaluateMiniBatch(
        parameters.data(),
        batch,
        rng,
        values,
        want_jacobian ? pointers.data() : nullptr);
    bool finite = ok && AllFinite(values, m);
    for (size_t j = 0; j < nb && finite && want_jacobian; ++j) {
      finite = AllFinite(jac[j].data(), jac[j].size());
    }
    if (!finite && error != nullptr) {
      *error = std::string("stochastic ") + kind + " '" + term.name +
               (ok ? "' returned a non-finite value or derivative."
                   : "' failed to evaluate its mini-batch.");
    }
    return finite;
  };
  if (jt_h != nullptr) std::fill(jt_h, jt_h + k, 0.0);
  if (grad_f != nullptr) {
    std::fill(
        grad_f, grad_f + static_cast<size_t>(k) * objectives_.size(), 0.0);
  }
  for (size_t s = 0; s < objectives_.size(); ++s) {
    const Term& term = objectives_[s];
    if (!run(term, objective_batch, f + s, grad_f != nullptr, "objective")) {
      return false;
    }
    if (grad_f == nullptr) continue;
    double* column = grad_f + s * static_cast<size_t>(k);
    for (size_t j = 0; j < term.blocks.size(); ++j) {
      const Block& b = blocks_[term.blocks[j]];
      for (int c = 0; c < b.size; ++c) column[b.offset + c] += jac[j][c];
    }
  }
  for (const Term& term : constraints_) {
    double* values = h + term.residual_offset;
    if (!run(term, constraint_batch, values, jt_h != nullptr, "constraint")) {
      return false;
    }
    if (jt_h == nullptr) continue;
    const int m = term.function->num_residuals();
    for (size_t j = 0; j < term.blocks.size(); ++j) {
      const Block& b = blocks_[term.blocks[j]];
      for (int r = 0; r < m; ++r) {
        const double* row = jac[j].data() + static_cast<size_t>(r) * b.size;
        for (int c = 0; c < b.size; ++c)
          jt_h[b.offset + c] += row[c] * values[r];
      }
    }
  }
  return true;
}

// An Evaluator over the functions' exact expectations.
class StochasticExpectationEvaluator final : public Evaluator {
 public:
  explicit StochasticExpectationEvaluator(const StochasticProblem* problem)
      : problem_(problem) {
    if (problem->HasBounds()) {
      Eigen::VectorXd lower, upper;
      problem->GetBounds(&lower, &upper);
      SetBounds(lower, upper);
    }
  }
  int NumParameters() const override { return problem_->NumParameters(); }
  int NumObjectives() const override { return problem_->NumObjectives(); }
  int NumConstraints() const override { return problem_->NumConstraints(); }

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string* error) override {
    const int k = NumParameters();
    const bool want = grad_f != nullptr;
    if (want) {
      std::fill(grad_f, grad_f + static_cast<size_t>(k) * NumObjectives(), 0.0);
      blocks_.clear();
    }
    auto run = [&](const StochasticProblem::Term& term,
                   double* values,
                   std::vector<std::vector<double>>* jac) {
      const size_t nb = term.blocks.size();
      const int m = term.function->num_residuals();
      std::vector<const double*> parameters(nb);
      std::vector<double*> pointers(nb);
      jac->assign(nb, {});
      for (size_t j = 0; j < nb; ++j) {
        const auto& b = problem_->blocks_[term.blocks[j]];
        parameters[j] = z + b.offset;
        (*jac)[j].assign(static_cast<size_t>(m) * b.size, 0.0);
        pointers[j] = (*jac)[j].data();
      }
      const bool ok = term.function->EvaluateExpectation(
          parameters.data(), values, want ? pointers.data() : nullptr);
      if (!ok || !AllFinite(values, m)) {
        if (error != nullptr) {
          *error = "the exact expectation of '" + term.name +
                   "' could not be evaluated.";
        }
        return false;
      }
      return true;
    };
    std::vector<std::vector<double>> jac;
    for (size_t s = 0; s < problem_->objectives_.size(); ++s) {
      const auto& term = problem_->objectives_[s];
      if (!run(term, f + s, &jac)) return false;
      if (!want) continue;
      double* column = grad_f + s * static_cast<size_t>(k);
      for (size_t j = 0; j < term.blocks.size(); ++j) {
        const auto& b = problem_->blocks_[term.blocks[j]];
        for (int c = 0; c < b.size; ++c) column[b.offset + c] += jac[j][c];
      }
    }
    for (const auto& term : problem_->constraints_) {
      if (!run(term, h + term.residual_offset, &jac)) return false;
      if (!want) continue;
      for (size_t j = 0; j < term.blocks.size(); ++j) {
        const auto& b = problem_->blocks_[term.blocks[j]];
        blocks_.push_back({term.residual_offset,
                           b.offset,
                           term.function->num_residuals(),
                           b.size,
                           jac[j]});
      }
    }
    return true;
  }
  void DoJacobianTransposeMultiply(const double* v,
                                   double* out) const override {
    std::fill(out, out + NumParameters(), 0.0);
    for (const JacobianBlock& b : blocks_) {
      for (int r = 0; r < b.rows; ++r) {
        for (int c = 0; c < b.cols; ++c) {
          out[b.col + c] += b.values[r * b.cols + c] * v[b.row + r];
        }
      }
    }
  }
  void DoJacobianMultiply(const double* x, double* out) const override {
    std::fill(out, out + NumConstraints(), 0.0);
    for (const JacobianBlock& b : blocks_) {
      for (int r = 0; r < b.rows; ++r) {
        for (int c = 0; c < b.cols; ++c) {
          out[b.row + r] += b.values[r * b.cols + c] * x[b.col + c];
        }
      }
    }
  }

 private:
  struct JacobianBlock {
    int row;
    int col;
    int rows;
    int cols;
    std::vector<double> values;
  };
  const StochasticProblem* problem_;
  std::vector<JacobianBlock> blocks_;
};

std::unique_ptr<Evaluator> StochasticProblem::MakeExpectationEvaluator() const {
  // Probe every function at the current parameter values.
  std::vector<double> z(num_parameters_);
  GetParameters(z.data());
  auto evaluator = std::make_unique<StochasticExpectationEvaluator>(this);
  std::vector<double> f(objectives_.size()), h(num_constraints_);
  std::string error;
  if (!IsValid(&error) ||
      !evaluator->Evaluate(z.data(), f.data(), h.data(), nullptr, &error)) {
    return nullptr;
  }
  evaluator->ResetCounts();
  return evaluator;
}

}  // namespace ecmo
