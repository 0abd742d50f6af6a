// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: the Ipopt-backed reference solver for one WC subproblem.

#include "ecmo/ipopt_reference.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include "IpIpoptApplication.hpp"
#include "IpJournalist.hpp"
#include "IpTNLP.hpp"
#include "ceres/manifold.h"
#include "ceres/sphere_manifold.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/internal/report.h"
#include "ecmo/internal/solve_on_problem.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "ipopt_tnlp.h"

namespace ecmo {

using internal::FormatNumber;
using internal::FormatVector;
using internal::WcTnlp;

namespace {

// Ipopt's "mumps_pivot_order" for QAMD (approximate minimum degree with
// quasi-dense row detection).
constexpr int kQamdPivotOrder = 6;
// The size from which a limited-memory solve orders with QAMD.
constexpr int kQamdFromParameters = 5000;

// Debian's Ipopt uses the sequential MUMPS, which keeps global state: only
// one Ipopt solve may run in the process at a time.
std::mutex& IpoptMutex() {
  static std::mutex mutex;
  return mutex;
}

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

template <typename T>
std::string ToString(const T& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

// The "mumps_pivot_order" to give Ipopt (-1: none, Ipopt's automatic
// choice) for a problem with k parameters; see
// IpoptReference::Options::mumps_pivot_order.
int MumpsPivotOrder(const IpoptReference::Options& options,
                    IpoptReference::HessianType hessian,
                    int k) {
  if (options.mumps_pivot_order >= 0) return options.mumps_pivot_order;
  // With a limited-memory Hessian the KKT matrix is a diagonal plus the
  // S + m rows of the objectives and constraints, dense in z when they
  // couple every variable. MUMPS' automatic choice orders that in 0.36 s
  // at k = 8,000 and spends minutes from k = 1e4 on (where it switches to
  // another ordering); QAMD is made for such rows (benchmarks/README.md,
  // "MUMPS ordering"). Below, the automatic choice stays, as it was.
  if (hessian == IpoptReference::HessianType::LIMITED_MEMORY &&
      k >= kQamdFromParameters) {
    return kQamdPivotOrder;
  }
  return -1;
}

bool SetIpoptOptions(const IpoptReference::Options& options,
                     IpoptReference::HessianType hessian,
                     int mumps_pivot_order,
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
  // Ipopt's unscaled complementarity test (default 1e-4) lets a weakly
  // active Chebyshev row keep a slack of 1e-8 relative when its multiplier
  // is small; the certificate (complementarity_tolerance 1e-8 in units of
  // the objective's scale) needs tighter. Measured on the 3,500-pose graph:
  // one more iteration.
  set_numeric("compl_inf_tol", 1e-2 * options.tolerance);
  set_integer("max_iter", options.max_iterations);
  set_numeric("max_cpu_time", options.max_cpu_time_in_seconds);
  set_string("linear_solver", options.linear_solver);
  if (hessian == IpoptReference::HessianType::LIMITED_MEMORY) {
    set_string("hessian_approximation", "limited-memory");
    set_integer("limited_memory_max_history",
                options.limited_memory_max_history);
  } else {
    set_string("hessian_approximation", "exact");
  }
  if (mumps_pivot_order >= 0) {
    set_integer("mumps_pivot_order", mumps_pivot_order);
  }
  if (options.mumps_mem_percent >= 0) {
    set_integer("mumps_mem_percent", options.mumps_mem_percent);
  }
  // Ipopt relaxes every bound by 1e-8 relative by default; without that
  // its iterates, hence the returned z, stay inside the bounds and the
  // inequality rows' slacks exactly (the KKT function measures violations).
  set_numeric("bound_relax_factor", 0.0);
  // A fixed component (l_i = u_i) as an equality row: Ipopt 3.11's default
  // (make_parameter) drops it and reports z_L = z_U = 0 for it.
  set_string("fixed_variable_treatment", "make_constraint");
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

const char* HessianTypeName(IpoptReference::HessianType type) {
  switch (type) {
    case IpoptReference::HessianType::AUTOMATIC:
      return "AUTOMATIC";
    case IpoptReference::HessianType::EXACT:
      return "EXACT";
    case IpoptReference::HessianType::GAUSS_NEWTON:
      return "GAUSS_NEWTON";
    case IpoptReference::HessianType::LIMITED_MEMORY:
      return "LIMITED_MEMORY";
  }
  return "UNKNOWN";
}

// AUTOMATIC resolved (see HessianType); a choice the evaluator cannot
// serve gives false with a message.
bool ResolveHessian(IpoptReference::HessianType requested,
                    const Evaluator& evaluator,
                    IpoptReference::HessianType* used,
                    std::string* error) {
  using Type = IpoptReference::HessianType;
  const bool has_gauss_newton =
      evaluator.HasGaussNewtonMatrix() && evaluator.manifold() == nullptr;
  const bool sparse_pattern = has_gauss_newton;
  const int k = evaluator.NumParameters();
  switch (requested) {
    case Type::AUTOMATIC:
      *used = has_gauss_newton ? Type::GAUSS_NEWTON
              : evaluator.HasExactLagrangianHessian() &&
                      k <= IpoptReference::kMaxDenseExactHessianParameters
                  ? Type::EXACT
                  : Type::LIMITED_MEMORY;
      return true;
    case Type::GAUSS_NEWTON:
      if (!has_gauss_newton) {
        *error =
            std::string(
                "IpoptReference::Options::hessian = GAUSS_NEWTON needs an "
                "evaluator with a Gauss-Newton matrix in R^k "
                "(Evaluator::HasGaussNewtonMatrix(), e.g. a "
                "CeresProblemAdapter with EvaluationPath::kDirect) and no "
                "manifold; this one ") +
            (evaluator.HasGaussNewtonMatrix() ? "has a manifold" : "has none") +
            ". Use EXACT or LIMITED_MEMORY (or AUTOMATIC).";
        return false;
      }
      break;
    case Type::EXACT:
      if (!sparse_pattern &&
          k > IpoptReference::kMaxDenseExactHessianParameters) {
        *error =
            "IpoptReference::Options::hessian = EXACT on an evaluator "
            "without a sparsity pattern (no Gauss-Newton matrix, or a "
            "manifold) needs the dense Hessian, refused at k = " +
            std::to_string(k) + " > " +
            std::to_string(IpoptReference::kMaxDenseExactHessianParameters) +
            ". Use LIMITED_MEMORY, or an evaluator with a Gauss-Newton "
            "pattern.";
        return false;
      }
      break;
    case Type::LIMITED_MEMORY:
      break;
  }
  *used = requested;
  return true;
}

// Ceres' manifolds whose Plus keeps the block's norm, so that the
// reference can pose them as ||z_b||^2 = const.
bool IsNormPreservingManifold(const ceres::Manifold* manifold) {
  return dynamic_cast<const ceres::EigenQuaternionManifold*>(manifold) !=
             nullptr ||
         dynamic_cast<const ceres::QuaternionManifold*>(manifold) != nullptr ||
         dynamic_cast<const ceres::SphereManifold<ceres::DYNAMIC>*>(manifold) !=
             nullptr ||
         dynamic_cast<const ceres::SphereManifold<2>*>(manifold) != nullptr ||
         dynamic_cast<const ceres::SphereManifold<3>*>(manifold) != nullptr ||
         dynamic_cast<const ceres::SphereManifold<4>*>(manifold) != nullptr;
}

// The norm equalities of an evaluator's manifold blocks (see Solve in the
// header), or false with the message that names the block it cannot pose.
bool ManifoldNormConstraints(Evaluator* evaluator,
                             const Eigen::VectorXd& z0,
                             std::vector<WcTnlp::NormConstraint>* norms,
                             std::string* error) {
  norms->clear();
  if (evaluator->manifold() == nullptr) return true;
  const auto* adapter = dynamic_cast<const CeresProblemAdapter*>(evaluator);
  if (adapter == nullptr) {
    *error =
        "The Ipopt reference works in R^k and this evaluator has a "
        "ceres::Manifold without per-block information, so the reference "
        "cannot add the manifold's constraint itself. Ways out: write the "
        "residuals so that the parameters can live in R^k and drop the "
        "manifold, give the manifold's constraint as an equality (e.g. "
        "||q||^2 - 1 = 0 for a unit quaternion), or pose the problem as a "
        "CeresProblemAdapter (which names its blocks' manifolds; quaternion "
        "and sphere manifolds are then handled).";
    return false;
  }
  for (const CeresProblemAdapter::ParameterBlock& block :
       adapter->parameter_blocks()) {
    if (block.manifold == nullptr) continue;
    if (!IsNormPreservingManifold(block.manifold)) {
      *error =
          "The Ipopt reference works in R^k and cannot pose the manifold of "
          "parameter block " +
          adapter->DescribeParameterBlock(block.values) + " (offset " +
          std::to_string(block.offset) +
          " in z): it knows "
          "the constraints of Ceres' EigenQuaternionManifold, "
          "QuaternionManifold and SphereManifold only. Ways out: write the "
          "residuals so that the block can live in R^" +
          std::to_string(block.size) +
          " without a manifold (e.g. wrap an angle difference inside the "
          "residual, as PoseGraph2d::Options::angle_manifold = false does), "
          "or drop the manifold and give its constraint as a constraint "
          "group of the adapter.";
      return false;
    }
    WcTnlp::NormConstraint norm;
    norm.offset = block.offset;
    norm.size = block.size;
    norm.squared_norm = z0.segment(block.offset, block.size).squaredNorm();
    if (!(norm.squared_norm > 0.0)) {
      *error = "Parameter block " +
               adapter->DescribeParameterBlock(block.values) +
               " has a quaternion or sphere manifold but is zero at the "
               "start point; initialize it on the manifold.";
      return false;
    }
    norms->push_back(norm);
  }
  return true;
}

// Honest status (see Summary::termination_type): a budget stop is usable
// only at a certified point, and no point with rho below its own weighted
// objectives is.
void JudgeUsability(const IpoptReference::Options& options,
                    const Eigen::VectorXd& lambda,
                    const Eigen::VectorXd& offset,
                    const Eigen::VectorXd& f,
                    IpoptReference::Summary* summary) {
  const double rho = summary->final_rho;
  const double weighted_max = lambda.cwiseProduct(f + offset).maxCoeff();
  const bool rho_below = !(weighted_max - rho <= 1e-8 * (1.0 + std::abs(rho)));
  const bool budget = summary->termination_type == ceres::NO_CONVERGENCE;
  if (!rho_below && (!budget || summary->certified)) {
    if (budget) {
      summary->message +=
          ". The point stopped on a budget but passes the KKT certificate";
    }
    return;
  }
  std::string what;
  auto add = [&](const std::string& text) {
    what += (what.empty() ? "" : ", ") + text;
  };
  if (rho_below) {
    add("rho = " + ToString(rho) +
        " lies below max_s lambda_s (f_s + offset_s) / w_s = " +
        ToString(weighted_max) +
        " at its own z, which no feasible point allows");
  }
  if (budget) {
    const KktCertificate& c = summary->certificate;
    auto check = [&](const char* name, double value, double tolerance) {
      if (!(value <= tolerance)) {
        add(std::string(name) + " " + ToString(value) + " > " +
            ToString(tolerance));
      }
    };
    check(
        "feasibility ||h||_inf", c.feasibility, options.feasibility_tolerance);
    check("stationarity", c.stationarity, options.stationarity_tolerance);
    check("simplex |sum omega - 1|", c.simplex, options.stationarity_tolerance);
    check("complementarity",
          c.complementarity,
          options.complementarity_tolerance);
  }
  summary->termination_type = ceres::FAILURE;
  summary->message +=
      std::string(". Not usable: ") +
      (budget ? "Ipopt stopped on a budget at a point that fails the KKT "
                "certificate ("
              : "the returned point is not feasible (") +
      what +
      "). Raise max_iterations / max_cpu_time_in_seconds, start from a "
      "better point (e.g. a weighted-sum solution), or use another Hessian "
      "(IpoptReference::Options::hessian)";
}

}  // namespace

bool IpoptReference::Options::IsValid(std::string* error) const {
  static constexpr char kOptions[] = "IpoptReference::Options";
  ECMO_OPTION_CHECK(
      kOptions, tolerance, tolerance > 0.0 && std::isfinite(tolerance), "> 0");
  ECMO_OPTION_CHECK(kOptions, max_iterations, max_iterations >= 0, ">= 0");
  ECMO_OPTION_CHECK(
      kOptions, max_cpu_time_in_seconds, max_cpu_time_in_seconds > 0.0, "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    print_level,
                    print_level >= 0 && print_level <= 12,
                    "in [0, 12]");
  ECMO_OPTION_CHECK(
      kOptions, linear_solver, !linear_solver.empty(), "is not empty");
  ECMO_OPTION_CHECK(kOptions,
                    limited_memory_max_history,
                    limited_memory_max_history >= 1,
                    ">= 1");
  ECMO_OPTION_CHECK(
      kOptions, initial_rho, !std::isinf(initial_rho), "is finite or NaN");
  ECMO_OPTION_CHECK(kOptions,
                    mumps_pivot_order,
                    mumps_pivot_order >= -1 && mumps_pivot_order <= 7,
                    "-1 (Ipopt's default) or in [0, 7]");
  ECMO_OPTION_CHECK(kOptions,
                    mumps_mem_percent,
                    mumps_mem_percent >= -1,
                    ">= -1 (-1: Ipopt's default)");
  ECMO_OPTION_CHECK(
      kOptions,
      stationarity_tolerance,
      stationarity_tolerance > 0.0 && stationarity_tolerance < 1.0,
      "in (0, 1)");
  ECMO_OPTION_CHECK(
      kOptions,
      complementarity_tolerance,
      complementarity_tolerance > 0.0 && complementarity_tolerance < 1.0,
      "in (0, 1)");
  ECMO_OPTION_CHECK(kOptions,
                    feasibility_tolerance,
                    feasibility_tolerance > 0.0 && feasibility_tolerance < 1.0,
                    "in (0, 1)");
  ECMO_OPTION_CHECK(
      kOptions,
      warm_start_bound_push,
      warm_start_bound_push > 0.0 && std::isfinite(warm_start_bound_push),
      "> 0");
  ECMO_OPTION_CHECK(
      kOptions,
      warm_start_mu_init,
      warm_start_mu_init > 0.0 && std::isfinite(warm_start_mu_init),
      "> 0");
  using internal::CheckEntries;
  if (!CheckEntries(kOptions,
                    "initial_z",
                    initial_z,
                    internal::IsFinite,
                    "is finite",
                    error) ||
      !CheckEntries(kOptions,
                    "initial_omega",
                    initial_omega,
                    internal::IsNonNegativeFinite,
                    ">= 0",
                    error) ||
      !CheckEntries(kOptions,
                    "initial_nu",
                    initial_nu,
                    internal::IsFinite,
                    "is finite",
                    error) ||
      !CheckEntries(kOptions,
                    "objective_offset",
                    objective_offset,
                    internal::IsFinite,
                    "is finite",
                    error) ||
      !CheckEntries(kOptions,
                    "reference_point",
                    reference_point,
                    internal::IsFinite,
                    "is finite",
                    error) ||
      !CheckEntries(kOptions,
                    "objective_scale",
                    objective_scale,
                    internal::IsPositiveFinite,
                    "> 0 and finite",
                    error)) {
    return false;
  }
  ECMO_OPTION_CHECK(kOptions,
                    stationarity_floor,
                    stationarity_floor >= 0.0 && std::isfinite(stationarity_floor),
                    ">= 0 and finite (see Solver::Options::stationarity_floor)");
  ECMO_OPTION_CHECK(kOptions,
                    model_tolerance,
                    model_tolerance > 0.0 && model_tolerance <= 1e-4,
                    "in (0, 1e-4] (see Solver::Options::model_tolerance)");
  if (!initial_nu.empty() && initial_omega.empty()) {
    if (error != nullptr) {
      *error = internal::OptionError(
          kOptions,
          "initial_nu is set but IpoptReference::Options::initial_omega is "
          "empty; a multiplier warm start needs initial_omega.");
    }
    return false;
  }
  if (!objective_offset.empty() && !reference_point.empty()) {
    if (error != nullptr) {
      *error = internal::OptionError(
          kOptions,
          "objective_offset and reference_point are both set; they say the "
          "same thing (r = -offset): give one.");
    }
    return false;
  }
  if (error != nullptr) error->clear();
  return true;
}

bool IpoptReference::Summary::IsSolutionUsable() const {
  return ecmo::IsSolutionUsable(termination_type);
}

std::string IpoptReference::Summary::BriefReport() const {
  std::ostringstream os;
  os.precision(6);
  os << "ecmo::SolveReference Report: Ipopt: "
     << (ipopt_status_name.empty() ? "not run" : ipopt_status_name)
     << ", Iterations: " << iterations << ", rho: " << final_rho
     << ", ||h||: " << constraint_norm
     << ", ||K||^2: " << kkt.with_solver_multipliers.SquaredNorm()
     << " (least squares: " << kkt.with_least_squares_multipliers.SquaredNorm()
     << "), Termination: " << TerminationTypeName(termination_type);
  return os.str();
}

std::string IpoptReference::Summary::FullReport() const {
  internal::ReportWriter report("ceres-ecmo Ipopt Reference Report");
  report.Row("Parameters (k)", std::to_string(num_parameters));
  report.Row("Objectives (S)", std::to_string(num_objectives));
  report.Row("Constraint residuals (q)", std::to_string(num_constraints));
  if (num_inequality_constraints > 0) {
    report.Row("  of which inequalities (p)",
               std::to_string(num_inequality_constraints));
  }
  if (num_bounded_parameters > 0) {
    report.Row("Bounded parameters", std::to_string(num_bounded_parameters));
  }
  report.Row("Preference lambda", FormatVector(preference));
  report.Row("Objective offset", FormatVector(objective_offset_used));
  report.Section("Ipopt");
  report.Row(
      "  Status",
      ipopt_status_name.empty()
          ? std::string("not run")
          : ipopt_status_name + " (" + std::to_string(ipopt_status) + ")");
  report.Row("  Hessian", HessianTypeName(hessian_used));
  report.Row(
      "  MUMPS ordering",
      mumps_pivot_order_used < 0
          ? std::string("Ipopt's default (automatic)")
          : "mumps_pivot_order " + std::to_string(mumps_pivot_order_used));
  if (hessian_used == IpoptReference::HessianType::EXACT) {
    report.Row("  Hessian colors / products",
               std::to_string(hessian_colors) + " / " +
                   std::to_string(hessian_products));
  }
  if (hessian_nonzeros > 0) {
    report.Row("  Hessian nonzeros", std::to_string(hessian_nonzeros));
  }
  if (num_manifold_constraints > 0) {
    report.Row("  Manifold norm equalities",
               std::to_string(num_manifold_constraints));
  }
  report.Row("  Certified", certified ? "yes" : "no");
  report.Section("Point");
  report.Row("  Initial rho", FormatNumber(initial_rho));
  report.Row("  Final rho", FormatNumber(final_rho));
  report.Row("  Final objectives", FormatVector(objectives));
  report.Row("  z", FormatVector(z));
  report.Row("  ||h(z)||_2", FormatNumber(constraint_norm));
  report.Row("  ||h(z)||_inf", FormatNumber(constraint_max_norm));
  report.Row("  omega (Ipopt)", FormatVector(omega));
  report.Row("  nu (Ipopt)", FormatVector(nu));
  if (bound_lower.size() > 0) {
    report.Row("  z_L / z_U (Ipopt), max",
               FormatNumber(bound_lower.maxCoeff()) + " / " +
                   FormatNumber(bound_upper.maxCoeff()));
  }
  internal::WriteKktBlocks(kkt, "Ipopt", &report);
  report.Row("  omega (least squares)",
             FormatVector(kkt.least_squares_multipliers.omega));
  report.Row("  nu (least squares)",
             FormatVector(kkt.least_squares_multipliers.nu));
  report.Section("Work");
  report.Row("  Iterations", std::to_string(iterations));
  report.Evaluations(evaluations);
  report.TotalTime(total_time_in_seconds);
  report.Termination(termination_type, message);
  return report.str();
}

void Solve(const IpoptReference::Options& options,
           Evaluator* evaluator,
           const std::vector<double>& preference,
           Eigen::VectorXd* z,
           IpoptReference::Summary* summary) {
  if (summary == nullptr) return;
  internal::WallTimer timer;
  *summary = IpoptReference::Summary();
  summary->preference = preference;
  auto fail = [&](const std::string& message) {
    internal::Fail(timer, message, summary);
  };

  std::string error;
  if (!options.IsValid(&error)) return fail(error);
  if (evaluator == nullptr || z == nullptr) {
    return fail(
        "ecmo::Solve (Ipopt reference): evaluator and z must not be null.");
  }
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  // m = q + p rows of g = (h, c); the last p are inequalities c <= 0.
  const int q = evaluator->NumConstraints();
  summary->num_parameters = k;
  summary->num_objectives = S;
  summary->num_constraints = q;
  summary->num_inequality_constraints = evaluator->NumInequalityConstraints();
  const bool has_bounds = evaluator->HasBounds() &&
                          evaluator->lower_bounds().size() == k &&
                          evaluator->upper_bounds().size() == k;
  if (has_bounds) {
    summary->num_bounded_parameters = evaluator->NumBoundedParameters();
  }
  if (S < 1) return fail("The problem has no objectives.");
  if (!ValidatePreference(preference, S, &error)) return fail(error);
  // The offset (-r): Options::objective_offset, or minus
  // Options::reference_point, or zeros.
  std::vector<double> objective_offset = options.objective_offset;
  for (double r : options.reference_point) objective_offset.push_back(-r);
  if (!objective_offset.empty() &&
      static_cast<int>(objective_offset.size()) != S) {
    return fail(std::string("IpoptReference::Options::") +
                (options.reference_point.empty() ? "objective_offset"
                                                 : "reference_point") +
                " has " + std::to_string(objective_offset.size()) +
                " entries but the problem has " + std::to_string(S) +
                " objectives; give one per objective or none.");
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
  // As ecmo::Solve does: a start point outside the bounds is projected
  // onto them, so that the default rho0 and certificate scales are taken
  // at the point Ipopt starts from (Ipopt would move it inside anyway).
  evaluator->ProjectOntoBounds(z0.data());
  std::vector<WcTnlp::NormConstraint> norms;
  if (!ManifoldNormConstraints(evaluator, z0, &norms, &error)) {
    return fail(error);
  }
  IpoptReference::HessianType hessian = IpoptReference::HessianType::AUTOMATIC;
  if (!ResolveHessian(options.hessian, *evaluator, &hessian, &error)) {
    return fail(error);
  }
  summary->hessian_used = hessian;
  summary->mumps_pivot_order_used =
      MumpsPivotOrder(options, hessian, evaluator->NumParameters());
  summary->num_manifold_constraints = static_cast<int>(norms.size());
  if (!options.options_file.empty()) {
    std::ifstream file(options.options_file);
    if (!file) {
      return fail("IpoptReference::Options::options_file \"" +
                  options.options_file +
                  "\" cannot be read; give the path of an existing Ipopt "
                  "options file, or leave it empty.");
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
                  " constraint residuals (equalities, then inequalities).");
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
    summary->evaluations = evaluator->counts() - counts_at_start;
  };

  Ipopt::SmartPtr<WcTnlp> tnlp;
  std::string ipopt_errors;
  Ipopt::ApplicationReturnStatus status = Ipopt::Internal_Error;
  try {
    tnlp = new WcTnlp(evaluator, lambda, offset);
    tnlp->set_hessian_mode(hessian == IpoptReference::HessianType::GAUSS_NEWTON
                               ? WcTnlp::HessianMode::GAUSS_NEWTON
                           : hessian == IpoptReference::HessianType::EXACT
                               ? WcTnlp::HessianMode::EXACT
                               : WcTnlp::HessianMode::LIMITED_MEMORY);
    tnlp->set_norm_constraints(norms);
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
                         hessian,
                         summary->mumps_pivot_order_used,
                         use_warm_start,
                         Ipopt::GetRawPtr(app->Options()),
                         &error)) {
      record_counts();
      const std::string details = OneLine(journal->text());
      return fail("Ipopt: Invalid_Option: " + error +
                  (details.empty() ? "" : " (" + details + ")"));
    }
    // "" instead of the default "ipopt.opt": an options file in the
    // working directory must not change the reference; only a file the
    // user names is read.
    status = app->Initialize(options.options_file);
    if (status != Ipopt::Solve_Succeeded) {
      record_counts();
      summary->ipopt_status = static_cast<int>(status);
      summary->ipopt_status_name = IpoptStatusName(status);
      return fail(std::string("Ipopt: ") + IpoptStatusName(status) +
                  ": initialization failed" +
                  (options.options_file.empty()
                       ? std::string(". ")
                       : " reading options file \"" + options.options_file +
                             "\" (an unknown option name or an invalid "
                             "value; fix or remove the line). ") +
                  OneLine(journal->text()));
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
  if (status == Ipopt::Invalid_Option &&
      ipopt_errors.find("not available") != std::string::npos) {
    message += ". IpoptReference::Options::linear_solver = \"" +
               options.linear_solver +
               "\" is not available in the installed Ipopt (Debian's "
               "Ipopt ships only \"mumps\"); use linear_solver = "
               "\"mumps\" (the default), or install an Ipopt built with "
               "that solver";
  }
  summary->message = message;

  summary->hessian_colors = tnlp->num_colors();
  summary->hessian_products = tnlp->num_hessian_products();
  summary->hessian_nonzeros = tnlp->hessian_nonzeros();
  const int num_norms = static_cast<int>(norms.size());
  if (tnlp->has_solution() &&
      static_cast<int>(tnlp->solution_x().size()) == 1 + k &&
      static_cast<int>(tnlp->solution_lambda().size()) == S + q + num_norms) {
    const std::vector<double>& x = tnlp->solution_x();
    const std::vector<double>& ipopt_lambda = tnlp->solution_lambda();
    summary->final_rho = x[0];
    summary->z = Eigen::Map<const Eigen::VectorXd>(x.data() + 1, k);
    // Same convention as the paper: no sign change (see the header).
    summary->omega = Eigen::Map<const Eigen::VectorXd>(ipopt_lambda.data(), S);
    // Equalities, then the inequalities' multipliers (>= 0, as Ipopt's for
    // a row with g_u = 0 and g_l = -inf).
    summary->nu = Eigen::Map<const Eigen::VectorXd>(ipopt_lambda.data() + S, q);
    // Ipopt's z_L and z_U are ecmo's bound_lower / bound_upper as they are
    // (both conventions: grad L = ... - z_L + z_U, z_L, z_U >= 0).
    if (has_bounds && static_cast<int>(tnlp->solution_z_lower().size()) == k &&
        static_cast<int>(tnlp->solution_z_upper().size()) == k) {
      summary->bound_lower =
          Eigen::Map<const Eigen::VectorXd>(tnlp->solution_z_lower().data(), k);
      summary->bound_upper =
          Eigen::Map<const Eigen::VectorXd>(tnlp->solution_z_upper().data(), k);
    }
    summary->manifold_multipliers = Eigen::Map<const Eigen::VectorXd>(
        ipopt_lambda.data() + S + q, num_norms);

    Eigen::VectorXd f(S), h(q);
    bool ok = tnlp->CachedValues(summary->z, &f, &h) ||
              evaluator->Evaluate(
                  summary->z.data(), f.data(), h.data(), nullptr, &error);
    const CertificateRequest certificate = CertificateRequestOf(options);
    KktMultipliers multipliers;
    multipliers.omega = summary->omega;
    multipliers.nu = summary->nu;
    multipliers.bound_lower = summary->bound_lower;
    multipliers.bound_upper = summary->bound_upper;
    ok = ok && ComputeKktReport(evaluator,
                                lambda,
                                offset,
                                summary->final_rho,
                                summary->z,
                                multipliers,
                                &summary->kkt,
                                &error,
                                &certificate);
    if (ok) {
      summary->objectives = f;
      // h, then max(0, c): what violates the constraints.
      const Eigen::VectorXd violation = evaluator->ConstraintViolation(h);
      summary->constraint_norm = violation.norm();
      summary->constraint_max_norm =
          q > 0 ? violation.cwiseAbs().maxCoeff() : 0.0;
      summary->certificate =
          summary->kkt.BestCertificate(options.stationarity_tolerance,
                                       options.complementarity_tolerance,
                                       options.feasibility_tolerance,
                                       options.model_tolerance);
      summary->certified =
          summary->certificate.Certifies(options.stationarity_tolerance,
                                         options.complementarity_tolerance,
                                         options.feasibility_tolerance,
                                         options.model_tolerance);
      JudgeUsability(options, lambda, offset, f, summary);
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

namespace {

// The legacy positional offset, moved into the options.
IpoptReference::Options WithOffset(const IpoptReference::Options& options,
                                   const std::vector<double>& offset) {
  IpoptReference::Options with_offset = options;
  if (!offset.empty()) with_offset.objective_offset = offset;
  return with_offset;
}

}  // namespace

void Solve(const IpoptReference::Options& options,
           Problem* problem,
           const std::vector<double>& preference,
           IpoptReference::Summary* summary) {
  internal::SolveOnProblem(options, problem, preference, summary);
}

void SolveReference(const IpoptReference::Options& options,
                    Evaluator* evaluator,
                    const std::vector<double>& preference,
                    const std::vector<double>& objective_offset,
                    Eigen::VectorXd* z,
                    IpoptReference::Summary* summary) {
  Solve(
      WithOffset(options, objective_offset), evaluator, preference, z, summary);
}

void SolveReference(const IpoptReference::Options& options,
                    const Problem& problem,
                    const std::vector<double>& preference,
                    const std::vector<double>& objective_offset,
                    IpoptReference::Summary* summary) {
  internal::SolveOnProblem(
      WithOffset(options, objective_offset), &problem, preference, summary);
}

}  // namespace ecmo
