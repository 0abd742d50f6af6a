// ceres-ecmo: the Ipopt-backed reference solver for one WC subproblem.

#include "ecmo/ipopt_reference.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include "IpIpoptApplication.hpp"
#include "IpJournalist.hpp"
#include "IpTNLP.hpp"
#include "ecmo/problem.h"
#include "ecmo/solver.h"

namespace ecmo {
namespace {

// Ipopt treats any bound of magnitude >= 1e19 as infinite.
constexpr double kInfinity = 2e19;

// Debian's Ipopt uses the sequential MUMPS, which keeps global state: only
// one Ipopt solve may run in the process at a time.
std::mutex& IpoptMutex() {
  static std::mutex mutex;
  return mutex;
}

class WallTimer {
 public:
  WallTimer() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

const char* IpoptStatusName(Ipopt::ApplicationReturnStatus status) {
  switch (status) {
    case Ipopt::Solve_Succeeded:
      return "Solve_Succeeded";
    case Ipopt::Solved_To_Acceptable_Level:
      return "Solved_To_Acceptable_Level";
    case Ipopt::Infeasible_Problem_Detected:
      return "Infeasible_Problem_Detected";
    case Ipopt::Search_Direction_Becomes_Too_Small:
      return "Search_Direction_Becomes_Too_Small";
    case Ipopt::Diverging_Iterates:
      return "Diverging_Iterates";
    case Ipopt::User_Requested_Stop:
      return "User_Requested_Stop";
    case Ipopt::Feasible_Point_Found:
      return "Feasible_Point_Found";
    case Ipopt::Maximum_Iterations_Exceeded:
      return "Maximum_Iterations_Exceeded";
    case Ipopt::Restoration_Failed:
      return "Restoration_Failed";
    case Ipopt::Error_In_Step_Computation:
      return "Error_In_Step_Computation";
    case Ipopt::Maximum_CpuTime_Exceeded:
      return "Maximum_CpuTime_Exceeded";
    case Ipopt::Not_Enough_Degrees_Of_Freedom:
      return "Not_Enough_Degrees_Of_Freedom";
    case Ipopt::Invalid_Problem_Definition:
      return "Invalid_Problem_Definition";
    case Ipopt::Invalid_Option:
      return "Invalid_Option";
    case Ipopt::Invalid_Number_Detected:
      return "Invalid_Number_Detected";
    case Ipopt::Unrecoverable_Exception:
      return "Unrecoverable_Exception";
    case Ipopt::NonIpopt_Exception_Thrown:
      return "NonIpopt_Exception_Thrown";
    case Ipopt::Insufficient_Memory:
      return "Insufficient_Memory";
    case Ipopt::Internal_Error:
      return "Internal_Error";
  }
  return "Unknown_Ipopt_Status";
}

TerminationType IpoptStatusToTermination(
    Ipopt::ApplicationReturnStatus status) {
  switch (status) {
    case Ipopt::Solve_Succeeded:
    case Ipopt::Solved_To_Acceptable_Level:
      return ceres::CONVERGENCE;
    case Ipopt::Maximum_Iterations_Exceeded:
    case Ipopt::Maximum_CpuTime_Exceeded:
    case Ipopt::Search_Direction_Becomes_Too_Small:
      return ceres::NO_CONVERGENCE;
    default:
      return ceres::FAILURE;
  }
}

// Collects Ipopt's error messages (J_ERROR and worse) so that failures can
// quote them, without printing anything.
class StringJournal : public Ipopt::Journal {
 public:
  StringJournal() : Ipopt::Journal("ecmo_errors", Ipopt::J_ERROR) {}
  const std::string& text() const { return text_; }

 protected:
  void PrintImpl(Ipopt::EJournalCategory /*category*/,
                 Ipopt::EJournalLevel /*level*/,
                 const char* str) override {
    Append(str);
  }
  void PrintfImpl(Ipopt::EJournalCategory /*category*/,
                  Ipopt::EJournalLevel /*level*/,
                  const char* pformat,
                  va_list ap) override {
    char buffer[1024];
    std::vsnprintf(buffer, sizeof(buffer), pformat, ap);
    Append(buffer);
  }
  void FlushBufferImpl() override {}

 private:
  void Append(const char* str) {
    // Keep the text bounded; the first messages are the informative ones.
    if (text_.size() < 2000) text_ += str;
  }
  std::string text_;
};

// Collapses whitespace runs (Ipopt's messages contain newlines and
// indentation) so the text fits in a one-line message.
std::string OneLine(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// The WC problem as an Ipopt TNLP over w = (rho, z). See the header for the
// formulation and the multiplier convention.
class WcTnlp : public Ipopt::TNLP {
 public:
  WcTnlp(Evaluator* evaluator,
         const Eigen::VectorXd& lambda,
         const Eigen::VectorXd& offset)
      : evaluator_(evaluator),
        problem_evaluator_(dynamic_cast<ProblemEvaluator*>(evaluator)),
        k_(evaluator->NumParameters()),
        S_(evaluator->NumObjectives()),
        q_(evaluator->NumConstraints()),
        lambda_(lambda),
        offset_(offset),
        f_(S_),
        h_(q_),
        grad_f_(k_, S_) {}

  // Evaluates at z0 (with gradients), fixes the Jacobian sparsity and sets
  // the start point (rho is set by set_start_rho). Returns false with the
  // evaluator's message on failure.
  bool Setup(const Eigen::VectorXd& z0,
             const KktMultipliers* warm_start,
             std::string* error) {
    start_x_.resize(1 + k_);
    start_x_[0] = 0.0;
    for (int j = 0; j < k_; ++j) start_x_[1 + j] = z0[j];
    if (warm_start != nullptr) {
      warm_start_ = true;
      start_lambda_.resize(S_ + q_);
      for (int s = 0; s < S_; ++s) start_lambda_[s] = warm_start->omega[s];
      for (int i = 0; i < q_; ++i) start_lambda_[S_ + i] = warm_start->nu[i];
    }
    if (!evaluator_->Evaluate(
            z0.data(), f_.data(), h_.data(), grad_f_.data(), error)) {
      return false;
    }
    BuildJacobianStructure();
    if (!FillJacobianValues(error)) return false;
    cached_z_ = z0;
    values_valid_ = gradient_valid_ = true;
    return true;
  }

  void set_start_rho(double rho0) { start_x_[0] = rho0; }

  // Result access, after OptimizeTNLP.
  bool has_solution() const { return has_solution_; }
  const std::vector<double>& solution_x() const { return solution_x_; }
  const std::vector<double>& solution_lambda() const {
    return solution_lambda_;
  }
  int iterations() const { return iterations_; }
  const std::string& last_error() const { return last_error_; }

  // The cached F(z) and h(z) if the cache holds exactly z.
  bool CachedValues(const Eigen::VectorXd& z,
                    Eigen::VectorXd* f,
                    Eigen::VectorXd* h) const {
    if (!values_valid_ || cached_z_.size() != z.size() || cached_z_ != z) {
      return false;
    }
    *f = f_;
    *h = h_;
    return true;
  }

  // ---- Ipopt::TNLP ----
  bool get_nlp_info(Ipopt::Index& n,
                    Ipopt::Index& m,
                    Ipopt::Index& nnz_jac_g,
                    Ipopt::Index& nnz_h_lag,
                    IndexStyleEnum& index_style) override {
    n = 1 + k_;
    m = S_ + q_;
    nnz_jac_g = S_ * (1 + k_) + static_cast<int>(h_rows_.size());
    nnz_h_lag = 0;  // L-BFGS: eval_h is never called.
    index_style = C_STYLE;
    return true;
  }

  bool get_bounds_info(Ipopt::Index n,
                       Ipopt::Number* x_l,
                       Ipopt::Number* x_u,
                       Ipopt::Index m,
                       Ipopt::Number* g_l,
                       Ipopt::Number* g_u) override {
    for (int j = 0; j < n; ++j) {
      x_l[j] = -kInfinity;
      x_u[j] = kInfinity;
    }
    for (int s = 0; s < S_; ++s) {
      g_l[s] = -kInfinity;
      g_u[s] = 0.0;
    }
    for (int i = S_; i < m; ++i) g_l[i] = g_u[i] = 0.0;
    return true;
  }

  bool get_starting_point(Ipopt::Index n,
                          bool init_x,
                          Ipopt::Number* x,
                          bool init_z,
                          Ipopt::Number* z_L,
                          Ipopt::Number* z_U,
                          Ipopt::Index m,
                          bool init_lambda,
                          Ipopt::Number* lambda) override {
    if (init_x) std::copy(start_x_.begin(), start_x_.end(), x);
    if (init_z) {
      // No finite variable bounds: these multipliers are unused.
      std::fill(z_L, z_L + n, 0.0);
      std::fill(z_U, z_U + n, 0.0);
    }
    if (init_lambda) {
      if (warm_start_) {
        std::copy(start_lambda_.begin(), start_lambda_.end(), lambda);
      } else {
        std::fill(lambda, lambda + m, 0.0);
      }
    }
    return true;
  }

  bool eval_f(Ipopt::Index /*n*/,
              const Ipopt::Number* x,
              bool /*new_x*/,
              Ipopt::Number& obj_value) override {
    obj_value = x[0];
    return true;
  }

  bool eval_grad_f(Ipopt::Index n,
                   const Ipopt::Number* /*x*/,
                   bool /*new_x*/,
                   Ipopt::Number* grad_f) override {
    std::fill(grad_f, grad_f + n, 0.0);
    grad_f[0] = 1.0;
    return true;
  }

  bool eval_g(Ipopt::Index /*n*/,
              const Ipopt::Number* x,
              bool new_x,
              Ipopt::Index /*m*/,
              Ipopt::Number* g) override {
    if (!EnsureEvaluated(x, new_x, /*need_gradient=*/false)) return false;
    for (int s = 0; s < S_; ++s) {
      g[s] = lambda_[s] * (f_[s] + offset_[s]) - x[0];
    }
    for (int i = 0; i < q_; ++i) g[S_ + i] = h_[i];
    return true;
  }

  bool eval_jac_g(Ipopt::Index /*n*/,
                  const Ipopt::Number* x,
                  bool new_x,
                  Ipopt::Index /*m*/,
                  Ipopt::Index /*nele_jac*/,
                  Ipopt::Index* iRow,
                  Ipopt::Index* jCol,
                  Ipopt::Number* values) override {
    if (values == nullptr) {
      int e = 0;
      for (int s = 0; s < S_; ++s) {
        for (int j = 0; j <= k_; ++j, ++e) {
          iRow[e] = s;
          jCol[e] = j;
        }
      }
      for (size_t t = 0; t < h_rows_.size(); ++t, ++e) {
        iRow[e] = S_ + h_rows_[t];
        jCol[e] = 1 + h_cols_[t];
      }
      return true;
    }
    if (!EnsureEvaluated(x, new_x, /*need_gradient=*/true)) return false;
    int e = 0;
    for (int s = 0; s < S_; ++s) {
      values[e++] = -1.0;
      for (int j = 0; j < k_; ++j) values[e++] = lambda_[s] * grad_f_(j, s);
    }
    std::copy(h_values_.begin(), h_values_.end(), values + e);
    return true;
  }

  Ipopt::Index get_number_of_nonlinear_variables() override { return k_; }

  bool get_list_of_nonlinear_variables(Ipopt::Index num_nonlin_vars,
                                       Ipopt::Index* pos_nonlin_vars) override {
    // rho enters linearly; only z needs the quasi-Newton approximation.
    for (int j = 0; j < num_nonlin_vars; ++j) pos_nonlin_vars[j] = 1 + j;
    return true;
  }

  bool intermediate_callback(
      Ipopt::AlgorithmMode /*mode*/,
      Ipopt::Index iter,
      Ipopt::Number /*obj_value*/,
      Ipopt::Number /*inf_pr*/,
      Ipopt::Number /*inf_du*/,
      Ipopt::Number /*mu*/,
      Ipopt::Number /*d_norm*/,
      Ipopt::Number /*regularization_size*/,
      Ipopt::Number /*alpha_du*/,
      Ipopt::Number /*alpha_pr*/,
      Ipopt::Index /*ls_trials*/,
      const Ipopt::IpoptData* /*ip_data*/,
      Ipopt::IpoptCalculatedQuantities* /*ip_cq*/) override {
    iterations_ = iter;
    return true;
  }

  void finalize_solution(Ipopt::SolverReturn /*status*/,
                         Ipopt::Index n,
                         const Ipopt::Number* x,
                         const Ipopt::Number* /*z_L*/,
                         const Ipopt::Number* /*z_U*/,
                         Ipopt::Index m,
                         const Ipopt::Number* /*g*/,
                         const Ipopt::Number* lambda,
                         Ipopt::Number /*obj_value*/,
                         const Ipopt::IpoptData* /*ip_data*/,
                         Ipopt::IpoptCalculatedQuantities* /*ip_cq*/) override {
    if (x == nullptr || lambda == nullptr) return;
    solution_x_.assign(x, x + n);
    solution_lambda_.assign(lambda, lambda + m);
    has_solution_ = true;
  }

 private:
  // Fixes the sparsity of J_h: the union of the evaluator's Jacobian blocks
  // (duplicates, e.g. a parameter block used twice by one term, are merged),
  // or dense q x k for a general evaluator.
  void BuildJacobianStructure() {
    h_rows_.clear();
    h_cols_.clear();
    block_targets_.clear();
    if (problem_evaluator_ != nullptr) {
      std::map<std::pair<int, int>, int> index;
      for (const ProblemEvaluator::JacobianBlock& block :
           problem_evaluator_->jacobian_blocks()) {
        for (int r = 0; r < block.rows; ++r) {
          for (int c = 0; c < block.cols; ++c) {
            const std::pair<int, int> key(block.residual_offset + r,
                                          block.parameter_offset + c);
            auto it = index.find(key);
            if (it == index.end()) {
              it = index.emplace(key, static_cast<int>(h_rows_.size())).first;
              h_rows_.push_back(key.first);
              h_cols_.push_back(key.second);
            }
            block_targets_.push_back(it->second);
          }
        }
      }
    } else {
      for (int i = 0; i < q_; ++i) {
        for (int j = 0; j < k_; ++j) {
          h_rows_.push_back(i);
          h_cols_.push_back(j);
        }
      }
    }
    h_values_.assign(h_rows_.size(), 0.0);
  }

  // Copies J_h at the last linearization point into h_values_.
  bool FillJacobianValues(std::string* error) {
    std::fill(h_values_.begin(), h_values_.end(), 0.0);
    if (problem_evaluator_ != nullptr) {
      size_t e = 0;
      for (const ProblemEvaluator::JacobianBlock& block :
           problem_evaluator_->jacobian_blocks()) {
        const size_t size = static_cast<size_t>(block.rows) * block.cols;
        if (block.values.size() != size || e + size > block_targets_.size()) {
          *error =
              "The evaluator's Jacobian block structure changed between "
              "evaluations.";
          return false;
        }
        for (size_t t = 0; t < size; ++t) {
          h_values_[block_targets_[e + t]] += block.values[t];
        }
        e += size;
      }
      if (e != block_targets_.size()) {
        *error =
            "The evaluator's Jacobian block structure changed between "
            "evaluations.";
        return false;
      }
    } else if (q_ > 0) {
      // Column j of J_h is J_h e_j.
      Eigen::VectorXd unit = Eigen::VectorXd::Zero(k_);
      Eigen::VectorXd column(q_);
      for (int j = 0; j < k_; ++j) {
        unit[j] = 1.0;
        evaluator_->JacobianMultiply(unit.data(), column.data());
        unit[j] = 0.0;
        for (int i = 0; i < q_; ++i) {
          h_values_[static_cast<size_t>(i) * k_ + j] = column[i];
        }
      }
    }
    for (double v : h_values_) {
      if (!std::isfinite(v)) {
        *error = "The constraint Jacobian has a non-finite entry.";
        return false;
      }
    }
    return true;
  }

  // Evaluates at z = x[1..k] unless the cache already holds it (with the
  // gradients if needed). Ipopt's new_x is honored and the point is also
  // compared, so a stale cache is never used.
  bool EnsureEvaluated(const Ipopt::Number* x, bool new_x, bool need_gradient) {
    const Eigen::Map<const Eigen::VectorXd> z(x + 1, k_);
    if (new_x || cached_z_.size() != k_ || cached_z_ != z) {
      values_valid_ = gradient_valid_ = false;
      cached_z_ = z;
    }
    if (need_gradient ? gradient_valid_ : values_valid_) return true;
    std::string error;
    bool ok = evaluator_->Evaluate(cached_z_.data(),
                                   f_.data(),
                                   h_.data(),
                                   need_gradient ? grad_f_.data() : nullptr,
                                   &error);
    if (ok && need_gradient) ok = FillJacobianValues(&error);
    if (!ok) {
      last_error_ = error;
      values_valid_ = gradient_valid_ = false;
      cached_z_.resize(0);
      return false;
    }
    values_valid_ = true;
    gradient_valid_ = need_gradient;
    return true;
  }

  Evaluator* evaluator_;
  ProblemEvaluator* problem_evaluator_;
  const int k_;
  const int S_;
  const int q_;
  const Eigen::VectorXd lambda_;
  const Eigen::VectorXd offset_;

  // Start point.
  std::vector<double> start_x_;
  bool warm_start_ = false;
  std::vector<double> start_lambda_;

  // J_h sparsity (row in h, column in z) and values; block_targets_ maps
  // every entry of every evaluator block to its position in h_values_.
  std::vector<int> h_rows_;
  std::vector<int> h_cols_;
  std::vector<int> block_targets_;
  std::vector<double> h_values_;

  // Evaluation cache.
  Eigen::VectorXd cached_z_;
  bool values_valid_ = false;
  bool gradient_valid_ = false;
  Eigen::VectorXd f_;  // unshifted F(z)
  Eigen::VectorXd h_;
  Eigen::MatrixXd grad_f_;  // k x S
  std::string last_error_;

  // Results.
  int iterations_ = -1;
  bool has_solution_ = false;
  std::vector<double> solution_x_;
  std::vector<double> solution_lambda_;
};

std::string Invalid(const std::string& field,
                    const std::string& value,
                    const std::string& rule) {
  return "Invalid configuration. IpoptReference::Options::" + field + " = " +
         value + ". Violated constraint: IpoptReference::Options::" + field +
         " " + rule;
}

template <typename T>
std::string ToString(const T& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

std::string FormatVector(const Eigen::VectorXd& v) {
  std::ostringstream os;
  os.precision(8);
  os << "[";
  for (int i = 0; i < v.size(); ++i) os << (i > 0 ? ", " : "") << v[i];
  os << "]";
  return os.str();
}

std::string FormatVector(const std::vector<double>& v) {
  return FormatVector(Eigen::Map<const Eigen::VectorXd>(
      v.data(), static_cast<Eigen::Index>(v.size())));
}

// Sets the Ipopt options; returns false with the name of a rejected option.
bool SetIpoptOptions(const IpoptReference::Options& options,
                     bool warm_start,
                     Ipopt::OptionsList* list,
                     std::string* error) {
  bool ok = true;
  auto set_string = [&](const char* name, const std::string& value) {
    if (ok && !list->SetStringValue(name, value)) {
      ok = false;
      *error = std::string("Ipopt rejected option ") + name + " = " + value;
    }
  };
  auto set_integer = [&](const char* name, int value) {
    if (ok && !list->SetIntegerValue(name, value)) {
      ok = false;
      *error = std::string("Ipopt rejected option ") + name + " = " +
               ToString(value);
    }
  };
  auto set_numeric = [&](const char* name, double value) {
    if (ok && !list->SetNumericValue(name, value)) {
      ok = false;
      *error = std::string("Ipopt rejected option ") + name + " = " +
               ToString(value);
    }
  };
  set_string("sb", "yes");
  set_integer("print_level", options.print_level);
  set_numeric("tol", options.tolerance);
  set_integer("max_iter", options.max_iterations);
  set_numeric("max_cpu_time", options.max_cpu_time_in_seconds);
  set_string("linear_solver", options.linear_solver);
  set_string("hessian_approximation", "limited-memory");
  set_integer("limited_memory_max_history", options.limited_memory_max_history);
  set_numeric("bound_relax_factor", 0.0);
  if (warm_start) {
    set_string("warm_start_init_point", "yes");
    set_numeric("warm_start_bound_push", options.warm_start_bound_push);
    set_numeric("warm_start_bound_frac", options.warm_start_bound_push);
    set_numeric("warm_start_slack_bound_push", options.warm_start_bound_push);
    set_numeric("warm_start_slack_bound_frac", options.warm_start_bound_push);
    set_numeric("warm_start_mult_bound_push", options.warm_start_bound_push);
    set_numeric("mu_init", options.warm_start_mu_init);
  }
  return ok;
}

}  // namespace

bool IpoptReference::Options::IsValid(std::string* error) const {
  std::string message;
  if (!(tolerance > 0.0 && std::isfinite(tolerance))) {
    message = Invalid("tolerance", ToString(tolerance), "> 0");
  } else if (max_iterations < 0) {
    message = Invalid("max_iterations", ToString(max_iterations), ">= 0");
  } else if (!(max_cpu_time_in_seconds > 0.0)) {
    message = Invalid(
        "max_cpu_time_in_seconds", ToString(max_cpu_time_in_seconds), "> 0");
  } else if (print_level < 0 || print_level > 12) {
    message = Invalid("print_level", ToString(print_level), "in [0, 12]");
  } else if (linear_solver.empty()) {
    message = Invalid("linear_solver", "\"\"", "is not empty");
  } else if (limited_memory_max_history < 1) {
    message = Invalid("limited_memory_max_history",
                      ToString(limited_memory_max_history),
                      ">= 1");
  } else if (std::isinf(initial_rho)) {
    message = Invalid("initial_rho", ToString(initial_rho), "is finite or NaN");
  } else if (!(warm_start_bound_push > 0.0 &&
               std::isfinite(warm_start_bound_push))) {
    message = Invalid(
        "warm_start_bound_push", ToString(warm_start_bound_push), "> 0");
  } else if (!(warm_start_mu_init > 0.0 && std::isfinite(warm_start_mu_init))) {
    message =
        Invalid("warm_start_mu_init", ToString(warm_start_mu_init), "> 0");
  }
  for (size_t j = 0; j < initial_z.size() && message.empty(); ++j) {
    if (!std::isfinite(initial_z[j])) {
      message = Invalid("initial_z[" + ToString(j) + "]",
                        ToString(initial_z[j]),
                        "is finite");
    }
  }
  for (size_t s = 0; s < initial_omega.size() && message.empty(); ++s) {
    if (!(initial_omega[s] >= 0.0 && std::isfinite(initial_omega[s]))) {
      message = Invalid("initial_omega[" + ToString(s) + "]",
                        ToString(initial_omega[s]),
                        ">= 0");
    }
  }
  for (size_t i = 0; i < initial_nu.size() && message.empty(); ++i) {
    if (!std::isfinite(initial_nu[i])) {
      message = Invalid("initial_nu[" + ToString(i) + "]",
                        ToString(initial_nu[i]),
                        "is finite");
    }
  }
  if (message.empty() && !initial_nu.empty() && initial_omega.empty()) {
    message =
        "Invalid configuration. IpoptReference::Options::initial_nu is set "
        "but IpoptReference::Options::initial_omega is empty; a multiplier "
        "warm start needs initial_omega.";
  }
  if (error != nullptr) *error = message;
  return message.empty();
}

bool IpoptReference::Summary::IsSolutionUsable() const {
  return ecmo::IsSolutionUsable(termination_type);
}

std::string IpoptReference::Summary::BriefReport() const {
  std::ostringstream os;
  os.precision(6);
  os << "ecmo::SolveReference Report: Ipopt: "
     << (ipopt_status_name.empty() ? "not run" : ipopt_status_name)
     << ", Iterations: " << iterations << ", rho: " << rho
     << ", ||h||: " << constraint_norm
     << ", ||K||^2: " << kkt.with_solver_multipliers.SquaredNorm()
     << " (least squares: " << kkt.with_least_squares_multipliers.SquaredNorm()
     << "), Termination: " << TerminationTypeName(termination_type);
  return os.str();
}

std::string IpoptReference::Summary::FullReport() const {
  std::ostringstream os;
  char line[512];
  auto row = [&](const char* label, const std::string& value) {
    std::snprintf(line, sizeof(line), "%-38s %s\n", label, value.c_str());
    os << line;
  };
  auto num = [](double x) {
    char b[64];
    std::snprintf(b, sizeof(b), "%.6e", x);
    return std::string(b);
  };
  os << "\nceres-ecmo Ipopt Reference Report\n";
  os << "---------------------------------\n";
  row("Parameters (k)", std::to_string(num_parameters));
  row("Objectives (S)", std::to_string(num_objectives));
  row("Constraint residuals (q)", std::to_string(num_constraints));
  row("Preference lambda", FormatVector(preference));
  row("Objective offset", FormatVector(objective_offset_used));
  os << "\nIpopt\n";
  row("  Status",
      ipopt_status_name.empty()
          ? std::string("not run")
          : ipopt_status_name + " (" + std::to_string(ipopt_status) + ")");
  row("  Hessian", "limited-memory (L-BFGS)");
  os << "\nPoint\n";
  row("  Initial rho", num(initial_rho));
  row("  Final rho", num(rho));
  row("  Final objectives", FormatVector(objectives));
  row("  z", FormatVector(z));
  row("  ||h(z)||_2", num(constraint_norm));
  row("  omega (Ipopt)", FormatVector(omega));
  row("  nu (Ipopt)", FormatVector(nu));
  os << "\nKKT system (||K||^2 and its blocks)\n";
  std::snprintf(
      line, sizeof(line), "  %-36s %14s %14s\n", "", "Ipopt", "least squares");
  os << line;
  auto kkt_row = [&](const char* label, double a, double b) {
    std::snprintf(line, sizeof(line), "  %-36s %14.6e %14.6e\n", label, a, b);
    os << line;
  };
  const KktResidual& a = kkt.with_solver_multipliers;
  const KktResidual& b = kkt.with_least_squares_multipliers;
  kkt_row("|sum omega - 1|^2", a.SimplexSq(), b.SimplexSq());
  kkt_row("|stationarity|^2", a.StationaritySq(), b.StationaritySq());
  kkt_row("|h|^2", a.FeasibilitySq(), b.FeasibilitySq());
  kkt_row("|min(omega, rho - lambda f)|^2",
          a.ComplementaritySq(),
          b.ComplementaritySq());
  kkt_row("||K||^2", a.SquaredNorm(), b.SquaredNorm());
  row("  omega (least squares)",
      FormatVector(kkt.least_squares_multipliers.omega));
  row("  nu (least squares)", FormatVector(kkt.least_squares_multipliers.nu));
  os << "\nWork\n";
  row("  Iterations", std::to_string(iterations));
  row("  Value evaluations", std::to_string(evaluations.value_evaluations));
  row("  Gradient evaluations",
      std::to_string(evaluations.gradient_evaluations));
  row("  J x products", std::to_string(evaluations.jacobian_products));
  row("  Total time (s)", num(total_time_in_seconds));
  os << "\nTermination: " << TerminationTypeName(termination_type) << " ("
     << message << ")\n";
  return os.str();
}

void SolveReference(const IpoptReference::Options& options,
                    Evaluator* evaluator,
                    const std::vector<double>& preference,
                    const std::vector<double>& objective_offset,
                    Eigen::VectorXd* z,
                    IpoptReference::Summary* summary) {
  if (summary == nullptr) return;
  WallTimer timer;
  *summary = IpoptReference::Summary();
  summary->preference = preference;
  auto fail = [&](const std::string& message) {
    summary->termination_type = ceres::FAILURE;
    summary->message = message;
    summary->total_time_in_seconds = timer.Seconds();
  };

  std::string error;
  if (!options.IsValid(&error)) return fail(error);
  if (evaluator == nullptr || z == nullptr) {
    return fail("ecmo::SolveReference: evaluator and z must not be null.");
  }
  if (evaluator->manifold() != nullptr) {
    return fail(
        "ecmo::SolveReference cannot solve on a manifold: parameter blocks "
        "of this problem have a ceres::Manifold (e.g. a quaternion or "
        "sphere), and Ipopt works in R^k, so its iterates would leave it. "
        "Write the manifold as an equality constraint (e.g. ||q||^2 - 1 = "
        "0) to cross-check, or use the quasi-Newton strategies alone.");
  }
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  summary->num_parameters = k;
  summary->num_objectives = S;
  summary->num_constraints = q;
  if (S < 1) return fail("The problem has no objectives.");
  if (!ValidatePreference(preference, S, &error)) return fail(error);
  if (!objective_offset.empty() &&
      static_cast<int>(objective_offset.size()) != S) {
    return fail("The objective offset has " +
                std::to_string(objective_offset.size()) +
                " entries but the problem has " + std::to_string(S) +
                " objectives; give one offset per objective or none.");
  }
  for (size_t s = 0; s < objective_offset.size(); ++s) {
    if (!std::isfinite(objective_offset[s])) {
      return fail("Objective offset entry " + std::to_string(s) + " is " +
                  ToString(objective_offset[s]) + "; offsets must be finite.");
    }
  }
  Eigen::VectorXd z0 = *z;
  if (!options.initial_z.empty()) {
    if (static_cast<int>(options.initial_z.size()) != k) {
      return fail("IpoptReference::Options::initial_z has " +
                  std::to_string(options.initial_z.size()) +
                  " entries but the problem has " + std::to_string(k) +
                  " parameters.");
    }
    z0 = Eigen::Map<const Eigen::VectorXd>(options.initial_z.data(), k);
  }
  if (z0.size() != k) {
    return fail("The start point has " + std::to_string(z0.size()) +
                " entries but the problem has " + std::to_string(k) +
                " parameters.");
  }
  for (int j = 0; j < k; ++j) {
    if (!std::isfinite(z0[j])) {
      return fail("Start point entry z[" + std::to_string(j) +
                  "] = " + ToString(z0[j]) +
                  " is not finite; initialize every parameter block.");
    }
  }
  KktMultipliers warm_start;
  const bool use_warm_start = !options.initial_omega.empty();
  if (use_warm_start) {
    if (static_cast<int>(options.initial_omega.size()) != S) {
      return fail("IpoptReference::Options::initial_omega has " +
                  std::to_string(options.initial_omega.size()) +
                  " entries but the problem has " + std::to_string(S) +
                  " objectives.");
    }
    if (!options.initial_nu.empty() &&
        static_cast<int>(options.initial_nu.size()) != q) {
      return fail("IpoptReference::Options::initial_nu has " +
                  std::to_string(options.initial_nu.size()) +
                  " entries but the problem has " + std::to_string(q) +
                  " constraint residuals.");
    }
    warm_start.omega =
        Eigen::Map<const Eigen::VectorXd>(options.initial_omega.data(), S);
    warm_start.nu = options.initial_nu.empty()
                        ? Eigen::VectorXd::Zero(q)
                        : Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(
                              options.initial_nu.data(), q));
  }

  Eigen::VectorXd lambda =
      Eigen::Map<const Eigen::VectorXd>(preference.data(), S);
  lambda /= lambda.sum();
  summary->preference.assign(lambda.data(), lambda.data() + S);
  if (!options.objective_scale.empty()) {
    if (static_cast<int>(options.objective_scale.size()) != S) {
      return fail("IpoptReference::Options::objective_scale has " +
                  std::to_string(options.objective_scale.size()) +
                  " entries but the problem has " + std::to_string(S) +
                  " objectives; give one per objective or none.");
    }
    for (int s = 0; s < S; ++s) {
      if (!(options.objective_scale[s] > 0.0) ||
          !std::isfinite(options.objective_scale[s])) {
        return fail("IpoptReference::Options::objective_scale[" +
                    std::to_string(s) + "] = " +
                    ToString(options.objective_scale[s]) +
                    "; scales must be finite and > 0.");
      }
      // The same weights as ecmo::Solve: lambda_s / w_s, not renormalized,
      // so rho and the multipliers are on the solver's scale.
      lambda[s] /= options.objective_scale[s];
    }
  }
  const Eigen::VectorXd offset =
      objective_offset.empty()
          ? Eigen::VectorXd::Zero(S)
          : Eigen::VectorXd(
                Eigen::Map<const Eigen::VectorXd>(objective_offset.data(), S));
  summary->objective_offset_used.assign(offset.data(), offset.data() + S);

  const EvaluationCounts counts_at_start = evaluator->counts();
  auto record_counts = [&]() {
    const EvaluationCounts& now = evaluator->counts();
    summary->evaluations.value_evaluations =
        now.value_evaluations - counts_at_start.value_evaluations;
    summary->evaluations.gradient_evaluations =
        now.gradient_evaluations - counts_at_start.gradient_evaluations;
    summary->evaluations.jacobian_transpose_products =
        now.jacobian_transpose_products -
        counts_at_start.jacobian_transpose_products;
    summary->evaluations.jacobian_products =
        now.jacobian_products - counts_at_start.jacobian_products;
  };

  Ipopt::SmartPtr<WcTnlp> tnlp;
  std::string ipopt_errors;
  Ipopt::ApplicationReturnStatus status = Ipopt::Internal_Error;
  try {
    tnlp = new WcTnlp(evaluator, lambda, offset);
    if (!tnlp->Setup(z0, use_warm_start ? &warm_start : nullptr, &error)) {
      record_counts();
      return fail("At the start point: " + error);
    }
    Eigen::VectorXd f0, h0;
    tnlp->CachedValues(z0, &f0, &h0);
    const double rho0 = std::isnan(options.initial_rho)
                            ? lambda.cwiseProduct(f0 + offset).maxCoeff()
                            : options.initial_rho;
    summary->initial_rho = rho0;
    tnlp->set_start_rho(rho0);

    std::lock_guard<std::mutex> lock(IpoptMutex());
    // No console journal unless output was asked for: Ipopt then prints
    // nothing at all, not even messages about rejected options.
    Ipopt::SmartPtr<Ipopt::IpoptApplication> app = new Ipopt::IpoptApplication(
        /*create_console_out=*/options.print_level > 0);
    Ipopt::SmartPtr<StringJournal> journal = new StringJournal();
    journal->SetAllPrintLevels(Ipopt::J_ERROR);
    app->Jnlst()->AddJournal(Ipopt::GetRawPtr(journal));
    if (!SetIpoptOptions(options,
                         use_warm_start,
                         Ipopt::GetRawPtr(app->Options()),
                         &error)) {
      record_counts();
      const std::string details = OneLine(journal->text());
      return fail("Ipopt: Invalid_Option: " + error +
                  (details.empty() ? "" : " (" + details + ")"));
    }
    // "" instead of the default "ipopt.opt": an options file in the
    // working directory must not change the reference.
    status = app->Initialize("");
    if (status != Ipopt::Solve_Succeeded) {
      record_counts();
      summary->ipopt_status = static_cast<int>(status);
      summary->ipopt_status_name = IpoptStatusName(status);
      return fail(std::string("Ipopt: ") + IpoptStatusName(status) +
                  ": initialization failed. " + OneLine(journal->text()));
    }
    status =
        app->OptimizeTNLP(Ipopt::SmartPtr<Ipopt::TNLP>(Ipopt::GetRawPtr(tnlp)));
    ipopt_errors = OneLine(journal->text());
  } catch (const std::exception& e) {
    record_counts();
    return fail(std::string("Ipopt threw an exception: ") + e.what());
  } catch (...) {
    record_counts();
    return fail("Ipopt threw an exception.");
  }
  record_counts();

  summary->ipopt_status = static_cast<int>(status);
  summary->ipopt_status_name = IpoptStatusName(status);
  summary->iterations = tnlp->iterations();
  summary->termination_type = IpoptStatusToTermination(status);
  std::string message = std::string("Ipopt: ") + IpoptStatusName(status);
  if (!tnlp->last_error().empty()) {
    message += ". Last evaluation error: " + tnlp->last_error();
  }
  if (!ipopt_errors.empty() && summary->termination_type == ceres::FAILURE) {
    message += ". Ipopt said: " + ipopt_errors;
  }
  summary->message = message;

  if (tnlp->has_solution() &&
      static_cast<int>(tnlp->solution_x().size()) == 1 + k &&
      static_cast<int>(tnlp->solution_lambda().size()) == S + q) {
    const std::vector<double>& x = tnlp->solution_x();
    const std::vector<double>& ipopt_lambda = tnlp->solution_lambda();
    summary->rho = x[0];
    summary->z = Eigen::Map<const Eigen::VectorXd>(x.data() + 1, k);
    // Same convention as the paper: no sign change (see the header).
    summary->omega = Eigen::Map<const Eigen::VectorXd>(ipopt_lambda.data(), S);
    summary->nu = Eigen::Map<const Eigen::VectorXd>(ipopt_lambda.data() + S, q);

    Eigen::VectorXd f(S), h(q);
    bool ok = tnlp->CachedValues(summary->z, &f, &h) ||
              evaluator->Evaluate(
                  summary->z.data(), f.data(), h.data(), nullptr, &error);
    KktMultipliers multipliers;
    multipliers.omega = summary->omega;
    multipliers.nu = summary->nu;
    ok = ok && ComputeKktReport(evaluator,
                                lambda,
                                offset,
                                summary->rho,
                                summary->z,
                                multipliers,
                                &summary->kkt,
                                &error);
    if (ok) {
      summary->objectives = f;
      summary->constraint_norm = h.norm();
    } else if (summary->IsSolutionUsable()) {
      summary->termination_type = ceres::FAILURE;
      summary->message += ". At the final point: " + error;
    }
  } else if (summary->IsSolutionUsable()) {
    summary->termination_type = ceres::FAILURE;
    summary->message += ". Ipopt returned no point.";
  }
  if (summary->IsSolutionUsable()) *z = summary->z;
  summary->total_time_in_seconds = timer.Seconds();
}

void SolveReference(const IpoptReference::Options& options,
                    const Problem& problem,
                    const std::vector<double>& preference,
                    const std::vector<double>& objective_offset,
                    IpoptReference::Summary* summary) {
  if (summary == nullptr) return;
  std::string error;
  if (!problem.IsValid(&error)) {
    *summary = IpoptReference::Summary();
    summary->preference = preference;
    summary->termination_type = ceres::FAILURE;
    summary->message = "Invalid problem: " + error;
    return;
  }
  ProblemEvaluator evaluator(&problem);
  Eigen::VectorXd z(problem.NumParameters());
  problem.GetParameters(z.data());
  SolveReference(
      options, &evaluator, preference, objective_offset, &z, summary);
  if (summary->IsSolutionUsable()) problem.SetParameters(z.data());
}

}  // namespace ecmo
