#include "ecmo/stochastic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "ecmo/solver.h"

namespace ecmo {
namespace {

constexpr int64_t kMaxBatchSize = 2147483647;

class Timer {
 public:
  Timer() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

bool AllFinite(const double* v, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) return false;
  }
  return true;
}

std::string FormatVector(const Eigen::VectorXd& v, int max_entries = 6) {
  std::ostringstream os;
  os.precision(6);
  os << "[";
  const int shown = std::min<int>(static_cast<int>(v.size()), max_entries);
  for (int i = 0; i < shown; ++i) os << (i ? ", " : "") << v[i];
  if (shown < v.size()) os << ", ... (" << v.size() << ")";
  os << "]";
  return os.str();
}

int64_t ScheduledBatch(double factor, double exponent, int T) {
  const double b =
      std::ceil(factor * std::pow(static_cast<double>(T), exponent));
  if (!(b >= 1.0)) return 1;
  if (b > static_cast<double>(kMaxBatchSize)) return kMaxBatchSize + 1;
  return static_cast<int64_t>(b);
}

}  // namespace

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

bool StochasticProblem::IsValid(std::string* error) const {
  std::string message = first_error_;
  if (message.empty() && objectives_.empty()) {
    message = "StochasticProblem: no objectives; call AddObjective.";
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
      : problem_(problem) {}
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

// ------------------------------------------------------------------ solver --

bool StochasticSolver::Options::IsValid(std::string* error) const {
  auto violation = [&](const char* field, auto value, const char* rule) {
    if (error != nullptr) {
      std::ostringstream os;
      os << "Invalid configuration. StochasticSolver::Options::" << field
         << " = " << value << ". Violated constraint: " << field << " " << rule;
      *error = os.str();
    }
    return false;
  };
  if (max_iterations <= 0) {
    return violation("max_iterations", max_iterations, "> 0");
  }
  if (!(eta0 > 0.0) || !std::isfinite(eta0)) {
    return violation("eta0", eta0, "> 0 and finite");
  }
  if (!(c0 > 0.0) || !std::isfinite(c0)) {
    return violation("c0", c0, "> 0 and finite");
  }
  if (!(batch_size_factor > 0.0) || !std::isfinite(batch_size_factor)) {
    return violation("batch_size_factor", batch_size_factor, "> 0 and finite");
  }
  if (!(batch_size_exponent >= 0.0) || !std::isfinite(batch_size_exponent)) {
    return violation(
        "batch_size_exponent", batch_size_exponent, ">= 0 and finite");
  }
  if (objective_batch_size < 0) {
    return violation("objective_batch_size",
                     objective_batch_size,
                     ">= 0 (0 = the theorem's schedule)");
  }
  if (constraint_batch_size < 0) {
    return violation("constraint_batch_size",
                     constraint_batch_size,
                     ">= 0 (0 = the theorem's schedule)");
  }
  if ((objective_batch_size == 0 || constraint_batch_size == 0) &&
      !batch_size_schedule &&
      ScheduledBatch(batch_size_factor, batch_size_exponent, max_iterations) >
          kMaxBatchSize) {
    return violation(
        "batch_size_factor",
        batch_size_factor,
        "small enough that batch_size_factor * T^batch_size_exponent fits "
        "in an int (2^31 - 1); lower it or set the batch sizes explicitly");
  }
  if (kkt_every_n_iterations < 0) {
    return violation("kkt_every_n_iterations",
                     kkt_every_n_iterations,
                     ">= 0 (0 = final point only)");
  }
  if (!(max_solver_time_in_seconds > 0.0)) {
    return violation(
        "max_solver_time_in_seconds", max_solver_time_in_seconds, "> 0");
  }
  if (history_stride < 1) {
    return violation("history_stride", history_stride, ">= 1");
  }
  if (std::isinf(initial_rho)) {
    return violation(
        "initial_rho", initial_rho, "finite (or NaN for automatic)");
  }
  for (size_t s = 0; s < objective_offset.size(); ++s) {
    if (!std::isfinite(objective_offset[s])) {
      return violation(
          "objective_offset", objective_offset[s], "finite in every entry");
    }
  }
  return true;
}

int StochasticSolver::Options::ObjectiveBatchSize(int t) const {
  int64_t b = objective_batch_size;
  if (batch_size_schedule) {
    b = batch_size_schedule(t, max_iterations);
  } else if (b == 0) {
    b = ScheduledBatch(batch_size_factor, batch_size_exponent, max_iterations);
  }
  return static_cast<int>(std::clamp<int64_t>(b, 1, kMaxBatchSize));
}

int StochasticSolver::Options::ConstraintBatchSize(int t) const {
  int64_t b = constraint_batch_size;
  if (batch_size_schedule) {
    b = batch_size_schedule(t, max_iterations);
  } else if (b == 0) {
    b = ScheduledBatch(batch_size_factor, batch_size_exponent, max_iterations);
  }
  return static_cast<int>(std::clamp<int64_t>(b, 1, kMaxBatchSize));
}

bool StochasticSolver::Summary::IsSolutionUsable() const {
  return ecmo::IsSolutionUsable(termination_type);
}

std::string StochasticSolver::Summary::BriefReport() const {
  std::ostringstream os;
  os.precision(6);
  os << "ecmo::Solve (stochastic WC-Penalty) Report: Iterations: " << iterations
     << ", Samples: " << samples_drawn;
  if (has_exact_kkt) {
    os << ", avg ||K_t||^2: " << average_kkt_residual_sq
       << ", final ||K||^2: " << kkt.with_solver_multipliers.SquaredNorm()
       << " (least squares: "
       << kkt.with_least_squares_multipliers.SquaredNorm() << ")";
  }
  os << ", Termination: " << TerminationTypeName(termination_type);
  return os.str();
}

std::string StochasticSolver::Summary::FullReport() const {
  char line[256];
  std::ostringstream os;
  auto row = [&](const char* label, const std::string& value) {
    std::snprintf(line, sizeof(line), "%-40s %s\n", label, value.c_str());
    os << line;
  };
  auto num = [](double x) {
    char b[64];
    std::snprintf(b, sizeof(b), "%.6e", x);
    return std::string(b);
  };
  Eigen::VectorXd p(preference.size());
  for (size_t i = 0; i < preference.size(); ++i) p[i] = preference[i];
  os << "\nceres-ecmo Stochastic WC-Penalty Report (Algorithm 3)\n";
  os << "----------------------------------------------------\n";
  row("Parameters (k)", std::to_string(num_parameters));
  row("Objectives (S)", std::to_string(num_objectives));
  row("Constraint residuals (q)", std::to_string(num_constraints));
  row("Preference lambda", FormatVector(p));
  row("Seed", std::to_string(seed));
  os << "\nSchedule\n";
  row("  eta = eta0 T^(-1/4)", num(eta));
  row("  u = v = c0 T^(1/4)", num(penalty_u));
  row("  Objective batch size (t = 0)",
      std::to_string(first_objective_batch_size));
  row("  Constraint batch size (t = 0)",
      std::to_string(first_constraint_batch_size));
  os << "\nPoint\n";
  row("  Initial rho", num(initial_rho));
  row("  Final rho", num(final_rho));
  row(objectives_exact ? "  Objectives (exact)"
                       : "  Objectives (mini-batch estimate)",
      FormatVector(objectives));
  row("  z", FormatVector(z));
  if (has_exact_kkt) {
    row("  ||h(z)||_2 (exact)", num(constraint_norm));
    os << "\nKKT system (exact functions)\n";
    row("  ||K||^2 (Algorithm 3 multipliers)",
        num(kkt.with_solver_multipliers.SquaredNorm()));
    row("  ||K||^2 (least squares)",
        num(kkt.with_least_squares_multipliers.SquaredNorm()));
    row("  Average ||K_t||^2 (scored iterations)",
        num(average_kkt_residual_sq));
    row("  Scored iterations", std::to_string(num_scored_iterations));
  } else {
    os << "\nKKT system: not scored (no exact functions available).\n";
  }
  os << "\nWork\n";
  row("  Iterations", std::to_string(iterations));
  row("  Objective samples", std::to_string(objective_samples));
  row("  Constraint samples", std::to_string(constraint_samples));
  row("  Samples drawn", std::to_string(samples_drawn));
  row("  Total time (s)", num(total_time_in_seconds));
  os << "\nTermination: " << TerminationTypeName(termination_type) << " ("
     << message << ")\n";
  return os.str();
}

void Solve(const StochasticSolver::Options& options,
           const StochasticProblem& problem,
           const std::vector<double>& preference,
           StochasticSolver::Summary* summary,
           Evaluator* exact) {
  if (summary == nullptr) return;
  const Timer timer;
  *summary = StochasticSolver::Summary();
  summary->preference = preference;
  summary->seed = options.seed;
  auto fail = [&](const std::string& message) {
    summary->termination_type = ceres::FAILURE;
    summary->message = message;
    summary->total_time_in_seconds = timer.Seconds();
  };
  std::string error;
  if (!options.IsValid(&error)) return fail(error);
  if (!problem.IsValid(&error)) return fail("Invalid problem: " + error);
  const int k = problem.NumParameters();
  const int S = problem.NumObjectives();
  const int q = problem.NumConstraints();
  summary->num_parameters = k;
  summary->num_objectives = S;
  summary->num_constraints = q;
  if (!ValidatePreference(preference, S, &error)) return fail(error);
  if (!options.objective_offset.empty() &&
      static_cast<int>(options.objective_offset.size()) != S) {
    std::ostringstream os;
    os << "StochasticSolver::Options::objective_offset has "
       << options.objective_offset.size() << " entries but the problem has "
       << S << " objectives; give one offset per objective or none.";
    return fail(os.str());
  }
  std::unique_ptr<Evaluator> owned_exact;
  if (exact == nullptr) {
    owned_exact = problem.MakeExpectationEvaluator();
    exact = owned_exact.get();
  } else if (exact->NumParameters() != k || exact->NumObjectives() != S ||
             exact->NumConstraints() != q) {
    std::ostringstream os;
    os << "The exact evaluator has (k, S, q) = (" << exact->NumParameters()
       << ", " << exact->NumObjectives() << ", " << exact->NumConstraints()
       << ") but the stochastic problem has (" << k << ", " << S << ", " << q
       << ").";
    return fail(os.str());
  }
  if (exact != nullptr && exact->manifold() != nullptr) {
    return fail(
        "The exact evaluator declares a manifold (Evaluator::manifold() != "
        "nullptr), but the stochastic solver steps in R^k and would leave "
        "it. Pass an evaluator without a manifold, or write the manifold as "
        "an equality constraint.");
  }
  summary->has_exact_kkt = exact != nullptr;

  Eigen::VectorXd lambda =
      Eigen::Map<const Eigen::VectorXd>(preference.data(), S);
  lambda /= lambda.sum();
  Eigen::VectorXd offset = Eigen::VectorXd::Zero(S);
  if (!options.objective_offset.empty()) {
    offset =
        Eigen::Map<const Eigen::VectorXd>(options.objective_offset.data(), S);
  }
  summary->objective_offset_used.assign(offset.data(), offset.data() + S);

  const int T = options.max_iterations;
  const double eta = options.eta0 * std::pow(T, -0.25);
  const double u = options.c0 * std::pow(T, 0.25);
  const double v = u;
  summary->eta = eta;
  summary->penalty_u = u;
  summary->penalty_v = v;
  summary->first_objective_batch_size = options.ObjectiveBatchSize(0);
  summary->first_constraint_batch_size = options.ConstraintBatchSize(0);

  std::mt19937_64 rng(options.seed);
  Eigen::VectorXd z(k);
  problem.GetParameters(z.data());
  if (!z.allFinite()) {
    return fail(
        "The start point has non-finite entries; initialize every "
        "parameter block.");
  }

  Eigen::VectorXd f(S), h(q), jt_h(k), f_exact(S), h_exact(q), jt_nu(k);
  Eigen::MatrixXd grad_f(k, S), grad_exact(k, S);
  auto count_samples = [&](int objective_batch, int constraint_batch) {
    summary->objective_samples += static_cast<int64_t>(objective_batch) * S;
    summary->constraint_samples +=
        static_cast<int64_t>(constraint_batch) * problem.NumConstraintBlocks();
    summary->samples_drawn =
        summary->objective_samples + summary->constraint_samples;
  };

  // rho_0.
  double rho = options.initial_rho;
  if (std::isnan(rho)) {
    Eigen::VectorXd f0(S);
    if (exact != nullptr) {
      if (!exact->Evaluate(
              z.data(), f0.data(), h_exact.data(), nullptr, &error)) {
        return fail("At the start point (exact functions): " + error);
      }
    } else {
      const int b = options.ObjectiveBatchSize(0);
      if (!problem.EvaluateMiniBatch(z.data(),
                                     b,
                                     1,
                                     &rng,
                                     f0.data(),
                                     nullptr,
                                     h.data(),
                                     nullptr,
                                     &error)) {
        return fail("At the start point: " + error);
      }
      count_samples(b, 1);
    }
    rho = lambda.cwiseProduct(f0 + offset).maxCoeff();
  }
  rho = std::max(rho, 0.0);
  summary->initial_rho = rho;

  Eigen::VectorXd delta = Eigen::VectorXd::Zero(S);
  double kkt_sum = 0.0;
  int scored = 0;
  summary->termination_type = ceres::NO_CONVERGENCE;
  int t = 0;
  for (; t < T; ++t) {
    // Exact ||K_t||^2 with Algorithm 3's multipliers.
    double kkt_sq = -1.0;
    if (exact != nullptr && options.kkt_every_n_iterations > 0 &&
        t % options.kkt_every_n_iterations == 0) {
      if (!exact->Evaluate(z.data(),
                           f_exact.data(),
                           h_exact.data(),
                           grad_exact.data(),
                           &error)) {
        std::ostringstream os;
        os << "Iteration " << t << " (exact functions): " << error
           << " ||z|| = " << z.norm()
           << "; if the iterates diverged, lower eta0 or raise the batch "
              "sizes.";
        return fail(os.str());
      }
      f_exact += offset;
      const Eigen::VectorXd omega =
          v * ((lambda.cwiseProduct(f_exact) + delta).array() - rho).matrix();
      const Eigen::VectorXd nu = u * h_exact;
      if (q > 0) {
        exact->JacobianTransposeMultiply(nu.data(), jt_nu.data());
      } else {
        jt_nu.setZero();
      }
      kkt_sq = ComputeKktResidual(
                   rho, lambda, f_exact, grad_exact, h_exact, jt_nu, omega)
                   .SquaredNorm();
      kkt_sum += kkt_sq;
      ++scored;
    }

    const int b_obj = options.ObjectiveBatchSize(t);
    const int b_con = options.ConstraintBatchSize(t);
    if (!problem.EvaluateMiniBatch(z.data(),
                                   b_obj,
                                   b_con,
                                   &rng,
                                   f.data(),
                                   grad_f.data(),
                                   h.data(),
                                   jt_h.data(),
                                   &error)) {
      return fail("Iteration " + std::to_string(t) + ": " + error);
    }
    count_samples(b_obj, b_con);
    f += offset;
    const Eigen::VectorXd r = (lambda.cwiseProduct(f) + delta).array() - rho;
    const double d_rho = 1.0 - v * r.sum();
    const Eigen::VectorXd d_z =
        u * jt_h + v * (grad_f * lambda.cwiseProduct(r));
    const Eigen::VectorXd d_delta = v * r;
    rho -= eta * d_rho;
    z -= eta * d_z;
    delta = (delta - eta * d_delta).cwiseMax(0.0);
    const double gradient_norm =
        std::sqrt(d_rho * d_rho + d_z.squaredNorm() + d_delta.squaredNorm());
    if (!std::isfinite(rho) || !z.allFinite() || !delta.allFinite() ||
        std::abs(rho) > 1e150) {
      std::ostringstream os;
      os << "Iteration " << t << ": the iterates diverged (rho = " << rho
         << "). The step eta = " << eta
         << " is too long for this problem's curvature or noise; lower eta0 "
            "or raise the batch sizes.";
      return fail(os.str());
    }
    if (options.record_history &&
        (t % options.history_stride == 0 || t + 1 == T)) {
      StochasticSolver::IterationSummary it;
      it.iteration = t;
      it.rho = rho;
      it.kkt_residual_sq = kkt_sq;
      it.average_kkt_residual_sq = scored > 0 ? kkt_sum / scored : -1.0;
      it.gradient_norm = gradient_norm;
      it.samples_drawn = summary->samples_drawn;
      summary->history.push_back(it);
    }
    if (timer.Seconds() > options.max_solver_time_in_seconds) {
      ++t;
      summary->message = "Maximum solver time reached.";
      break;
    }
  }
  summary->iterations = t;
  if (summary->message.empty() || t == T) {
    std::ostringstream os;
    os << "Completed T = " << T
       << " iterations (Algorithm 3 runs exactly T "
          "steps); "
       << summary->samples_drawn << " samples drawn.";
    summary->message = os.str();
  }
  summary->final_rho = rho;
  summary->delta = delta;
  summary->z = z;
  summary->num_scored_iterations = scored;
  if (scored > 0) summary->average_kkt_residual_sq = kkt_sum / scored;

  if (exact != nullptr) {
    if (!exact->Evaluate(
            z.data(), f_exact.data(), h_exact.data(), nullptr, &error)) {
      return fail("At the final point (exact functions): " + error);
    }
    summary->objectives = f_exact;
    summary->objectives_exact = true;
    summary->constraint_norm = h_exact.norm();
    KktMultipliers multipliers;
    multipliers.omega =
        v * ((lambda.cwiseProduct(f_exact + offset) + delta).array() - rho)
                .matrix();
    multipliers.nu = u * h_exact;
    if (!ComputeKktReport(exact,
                          lambda,
                          offset,
                          rho,
                          z,
                          multipliers,
                          &summary->kkt,
                          &error)) {
      return fail("Scoring the final point: " + error);
    }
    summary->exact_evaluations = exact->counts();
  } else {
    const int b = options.ObjectiveBatchSize(T > 0 ? T - 1 : 0);
    Eigen::VectorXd f_final(S);
    if (problem.EvaluateMiniBatch(z.data(),
                                  b,
                                  1,
                                  &rng,
                                  f_final.data(),
                                  nullptr,
                                  h.data(),
                                  nullptr,
                                  &error)) {
      count_samples(b, 1);
      summary->objectives = f_final;
    }
  }
  problem.SetParameters(z.data());
  summary->total_time_in_seconds = timer.Seconds();
}

}  // namespace ecmo
