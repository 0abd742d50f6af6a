// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/solver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <new>
#include <sstream>

#include "ecmo/internal/report.h"
#include "ecmo/internal/solve_on_problem.h"
#include "ecmo/problem.h"
#include "scalarization_cache.h"
#include "scalarization_internal.h"
#include "solve_workspace.h"
#include "strategy.h"

namespace ecmo {
bool Solver::Options::IsValid(std::string* error) const {
  static constexpr char kOptions[] = "Solver::Options";
  ECMO_OPTION_CHECK(kOptions, max_iterations, max_iterations > 0, "> 0");
  // ||K||^2 of the start point of a typical problem is O(1): a tolerance
  // above 1e-4 certifies points that were never solved (0.5 certified
  // ||h|| = 0.015 far from the solution). The faithful strategy keeps the
  // paper's epsilon up to 1e-2: its ||K||^2 falls like T^-1/2, and 1e-4
  // is out of reach at T = 1e5 on a two-parameter problem.
  const bool faithful = strategy == StrategyType::WC_PENALTY_PGD;
  ECMO_OPTION_CHECK(
      kOptions,
      kkt_tolerance,
      kkt_tolerance >= 0.0 && kkt_tolerance <= (faithful ? 1e-2 : 1e-4),
      faithful ? "in [0, 1e-2] for wc-penalty-pgd (||K||^2 is a "
                 "squared residual: 1e-2 leaves residuals of 0.1)"
               : "in [0, 1e-4] (0: the certificate measured at the "
                 "point; ||K||^2 is a squared residual: 1e-4 leaves "
                 "residuals of 1e-2, meaningful values are about "
                 "1e-16 to 1e-4; wc-penalty-pgd accepts up to "
                 "1e-2)");
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
  // The model test compares a predicted decrease with the weighted values
  // at the point: 1e-2 would already accept points a Gauss-Newton step
  // improves by a percent.
  ECMO_OPTION_CHECK(kOptions,
                    model_tolerance,
                    model_tolerance > 0.0 && model_tolerance <= 1e-4,
                    "in (0, 1e-4] (the largest decrease of the point's own "
                    "weighted sum, relative to the weighted objective "
                    "values, that a Gauss-Newton step may still predict)");
  // An absolute level of the stationarity block, in the units of the
  // Lagrangian gradient: infinity or NaN would certify any point.
  ECMO_OPTION_CHECK(kOptions,
                    stationarity_floor,
                    stationarity_floor >= 0.0 && std::isfinite(stationarity_floor),
                    ">= 0 and finite (an absolute level of the Lagrangian "
                    "gradient ||sum omega lambda grad f + J^T nu||_inf, in "
                    "the objectives' units per parameter unit, below which "
                    "the stationarity block is not measured relatively; "
                    "0 = none)");
  ECMO_OPTION_CHECK(
      kOptions,
      second_order.negative_curvature_tolerance,
      second_order.negative_curvature_tolerance > 0.0 &&
          second_order.negative_curvature_tolerance < 1.0,
      "in (0, 1) (a curvature below -tolerance times the reduced Hessian's "
      "scale is negative)");
  ECMO_OPTION_CHECK(kOptions,
                    second_order.max_dense_dimension,
                    second_order.max_dense_dimension >= 0,
                    ">= 0");
  ECMO_OPTION_CHECK(kOptions,
                    second_order.max_lanczos_iterations,
                    second_order.max_lanczos_iterations >= 1,
                    ">= 1");
  ECMO_OPTION_CHECK(kOptions,
                    second_order.max_work_fraction,
                    second_order.max_work_fraction >= 0.0 &&
                        std::isfinite(second_order.max_work_fraction),
                    ">= 0 and finite (0: no cap)");
  ECMO_OPTION_CHECK(kOptions,
                    second_order.min_hessian_products,
                    second_order.min_hessian_products >= 1,
                    ">= 1");
  ECMO_OPTION_CHECK(kOptions,
                    max_saddle_escapes,
                    max_saddle_escapes >= 0,
                    ">= 0 (0: a saddle ends NO_CONVERGENCE at once)");
  ECMO_OPTION_CHECK(kOptions,
                    utopia_margin,
                    utopia_margin > 0.0 && utopia_margin <= 1.0,
                    "in (0, 1]");
  ECMO_OPTION_CHECK(kOptions,
                    max_solver_time_in_seconds,
                    max_solver_time_in_seconds > 0.0,
                    "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    pgd.eta0,
                    pgd.eta0 > 0.0 && std::isfinite(pgd.eta0),
                    "> 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    pgd.c0,
                    pgd.c0 > 0.0 && std::isfinite(pgd.c0),
                    "> 0 and finite");
  ECMO_OPTION_CHECK(
      kOptions, pgd.armijo, pgd.armijo >= 0.0 && pgd.armijo < 1.0, "in [0, 1)");
  ECMO_OPTION_CHECK(kOptions,
                    pgd.max_backtracking_steps,
                    pgd.max_backtracking_steps >= 0,
                    ">= 0");
  ECMO_OPTION_CHECK(kOptions,
                    quasi_newton.max_outer_iterations,
                    quasi_newton.max_outer_iterations > 0,
                    "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    quasi_newton.initial_penalty,
                    quasi_newton.initial_penalty >= 0.0 &&
                        std::isfinite(quasi_newton.initial_penalty),
                    ">= 0 and finite (0 = automatic)");
  ECMO_OPTION_CHECK(kOptions,
                    quasi_newton.penalty_increase,
                    quasi_newton.penalty_increase > 1.0 &&
                        std::isfinite(quasi_newton.penalty_increase),
                    "> 1 and finite");
  ECMO_OPTION_CHECK(
      kOptions,
      quasi_newton.max_penalty,
      quasi_newton.max_penalty > 0.0 &&
          std::isfinite(quasi_newton.max_penalty) &&
          quasi_newton.max_penalty >= quasi_newton.initial_penalty,
      "> 0, finite and >= quasi_newton.initial_penalty");
  ECMO_OPTION_CHECK(kOptions,
                    quasi_newton.feasibility_decrease,
                    quasi_newton.feasibility_decrease > 0.0 &&
                        quasi_newton.feasibility_decrease < 1.0,
                    "in (0, 1)");
  ECMO_OPTION_CHECK(kOptions,
                    quasi_newton.inner_tolerance_factor,
                    quasi_newton.inner_tolerance_factor > 0.0 &&
                        quasi_newton.inner_tolerance_factor <= 1.0,
                    "in (0, 1]");
  ECMO_OPTION_CHECK(
      kOptions,
      quasi_newton.least_squares_certification_factor,
      quasi_newton.least_squares_certification_factor >= 0.0 &&
          std::isfinite(quasi_newton.least_squares_certification_factor),
      ">= 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    quasi_newton.inner.max_num_iterations,
                    quasi_newton.inner.max_num_iterations > 0,
                    "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    quasi_newton.inner.max_solver_time_in_seconds,
                    quasi_newton.inner.max_solver_time_in_seconds > 0.0,
                    "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    quasi_newton.inner.function_tolerance,
                    quasi_newton.inner.function_tolerance >= 0.0 &&
                        quasi_newton.inner.function_tolerance < 1.0,
                    "in [0, 1)");
  ECMO_OPTION_CHECK(kOptions,
                    quasi_newton.inner.gradient_tolerance,
                    quasi_newton.inner.gradient_tolerance >= 0.0 &&
                        quasi_newton.inner.gradient_tolerance < 1.0,
                    "in [0, 1)");
  ECMO_OPTION_CHECK(kOptions,
                    quasi_newton.inner.parameter_tolerance,
                    quasi_newton.inner.parameter_tolerance >= 0.0 &&
                        quasi_newton.inner.parameter_tolerance < 1.0,
                    "in [0, 1)");
  ECMO_OPTION_CHECK(kOptions,
                    quasi_newton.inner.max_lbfgs_rank,
                    quasi_newton.inner.max_lbfgs_rank > 0,
                    "> 0");
  ECMO_OPTION_CHECK(
      kOptions, sqp.max_parameters, sqp.max_parameters > 0, "> 0");
  ECMO_OPTION_CHECK(kOptions, sqp.lbfgs_memory, sqp.lbfgs_memory > 0, "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    sqp.armijo,
                    sqp.armijo > 0.0 && sqp.armijo < 0.5,
                    "in (0, 0.5)");
  ECMO_OPTION_CHECK(kOptions,
                    sqp.least_squares_certification_factor,
                    sqp.least_squares_certification_factor >= 0.0 &&
                        std::isfinite(sqp.least_squares_certification_factor),
                    ">= 0 and finite");
  ECMO_OPTION_CHECK(
      kOptions, newton.max_ceres_solves, newton.max_ceres_solves > 0, "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    newton.ceres_phase_tolerance,
                    newton.ceres_phase_tolerance > 0.0 &&
                        std::isfinite(newton.ceres_phase_tolerance),
                    "> 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    newton.ceres_phase_function_tolerance,
                    newton.ceres_phase_function_tolerance < 1.0 &&
                        !std::isnan(newton.ceres_phase_function_tolerance),
                    "< 1 (<= 0: the nested options' own)");
  ECMO_OPTION_CHECK(kOptions,
                    newton.max_inner_iterations,
                    newton.max_inner_iterations > 0,
                    "> 0");
  ECMO_OPTION_CHECK(
      kOptions,
      newton.initial_trust_region_radius,
      newton.initial_trust_region_radius > 0.0 &&
          newton.initial_trust_region_radius <= newton.max_trust_region_radius,
      "> 0 and <= newton.max_trust_region_radius");
  ECMO_OPTION_CHECK(
      kOptions,
      newton.min_trust_region_radius,
      newton.min_trust_region_radius > 0.0 &&
          newton.min_trust_region_radius < newton.initial_trust_region_radius,
      "> 0 and < newton.initial_trust_region_radius");
  ECMO_OPTION_CHECK(kOptions,
                    newton.max_trust_region_radius,
                    std::isfinite(newton.max_trust_region_radius),
                    "finite");
  ECMO_OPTION_CHECK(
      kOptions,
      newton.min_diagonal,
      newton.min_diagonal > 0.0 && newton.min_diagonal <= newton.max_diagonal,
      "> 0 and <= newton.max_diagonal");
  ECMO_OPTION_CHECK(kOptions,
                    newton.max_diagonal,
                    std::isfinite(newton.max_diagonal),
                    "finite");
  ECMO_OPTION_CHECK(
      kOptions,
      newton.min_relative_decrease,
      newton.min_relative_decrease > 0.0 && newton.min_relative_decrease < 1.0,
      "in (0, 1)");
  ECMO_OPTION_CHECK(
      kOptions, newton.max_cg_iterations, newton.max_cg_iterations > 0, "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    newton.backtracking_steps,
                    newton.backtracking_steps >= 0,
                    ">= 0");
  ECMO_OPTION_CHECK(
      kOptions,
      newton.cg_relative_tolerance,
      newton.cg_relative_tolerance > 0.0 && newton.cg_relative_tolerance < 1.0,
      "in (0, 1)");
  if ((newton.linear_solver == NewtonLinearSolverType::SPARSE_CHOLESKY ||
       newton.linear_solver == NewtonLinearSolverType::DENSE_CHOLESKY) &&
      newton.hessian == NewtonHessianType::EXACT_PRODUCTS) {
    if (error != nullptr) {
      *error =
          "Invalid configuration. Solver::Options::newton.linear_solver = " +
          std::string(NewtonLinearSolverTypeToString(newton.linear_solver)) +
          " factorizes a Gauss-Newton matrix and cannot use hessian = "
          "exact-products; use linear_solver = conjugate-gradients (or "
          "automatic) with exact products.";
    }
    return false;
  }
  if (!internal::CheckNoNull(kOptions,
                             "quasi_newton.inner.callbacks",
                             quasi_newton.inner.callbacks,
                             error)) {
    return false;
  }
  {
    // Everything else about the inner options is Ceres' to judge.
    std::string ceres_error;
    if (!quasi_newton.inner.IsValid(&ceres_error)) {
      if (error != nullptr) {
        *error =
            "Invalid configuration. Solver::Options::quasi_newton.inner "
            "(ceres::GradientProblemSolver::Options): " +
            ceres_error;
      }
      return false;
    }
  }
  ECMO_OPTION_CHECK(kOptions, history_stride, history_stride >= 1, ">= 1");
  ECMO_OPTION_CHECK(kOptions,
                    progress_every_n_iterations,
                    progress_every_n_iterations >= 1,
                    ">= 1");
  ECMO_OPTION_CHECK(kOptions,
                    initial_rho,
                    !std::isinf(initial_rho),
                    "finite (or NaN for automatic)");
  ECMO_OPTION_CHECK(
      kOptions,
      warm_start.penalty_u,
      warm_start.penalty_u >= 0.0 && std::isfinite(warm_start.penalty_u),
      ">= 0 and finite (0 = automatic)");
  ECMO_OPTION_CHECK(
      kOptions,
      warm_start.penalty_v,
      warm_start.penalty_v >= 0.0 && std::isfinite(warm_start.penalty_v),
      ">= 0 and finite (0 = automatic)");
  if (!internal::CheckEntries(kOptions,
                              "objective_offset",
                              objective_offset,
                              internal::IsFinite,
                              "finite",
                              error) ||
      !internal::CheckEntries(kOptions,
                              "reference_point",
                              reference_point,
                              internal::IsFinite,
                              "finite",
                              error) ||
      !internal::CheckEntries(kOptions,
                              "objective_scale",
                              objective_scale,
                              internal::IsPositiveFinite,
                              "finite and > 0",
                              error)) {
    return false;
  }
  if (!reference_point.empty() &&
      (!objective_offset.empty() || automatic_objective_offset)) {
    if (error != nullptr) {
      *error =
          "Invalid configuration. Solver::Options::reference_point and "
          "objective_offset (or automatic_objective_offset) both set; they "
          "say the same thing (r = -offset): give one.";
    }
    return false;
  }
  if (!internal::CheckNoNull(kOptions, "callbacks", callbacks, error)) {
    return false;
  }
  return true;
}

bool ValidatePreference(const std::vector<double>& preference,
                        int num_objectives,
                        std::string* error) {
  // One pass finds the first bad entry and the sum; the message stream (a
  // locale set-up, visible in a solve at small k) only for an invalid one.
  const bool sized = static_cast<int>(preference.size()) == num_objectives;
  int bad = -1;
  double sum = 0.0;
  for (int s = 0; sized && s < num_objectives; ++s) {
    if (bad < 0 && !(std::isfinite(preference[s]) && preference[s] > 0.0)) {
      bad = s;
    }
    sum += preference[s];
  }
  if (sized && bad < 0 && std::abs(sum - 1.0) <= 1e-9) {
    if (error != nullptr) error->clear();
    return true;
  }
  std::ostringstream os;
  if (!sized) {
    os << "The preference has " << preference.size()
       << " entries but the problem has " << num_objectives
       << " objectives; give one weight per objective.";
  } else if (bad >= 0 && !std::isfinite(preference[bad])) {
    os << "Preference entry " << bad << " is " << preference[bad]
       << "; weights must be finite numbers.";
  } else if (bad >= 0) {
    os << "Preference entry " << bad << " is " << preference[bad]
       << "; the weighted-Chebyshev theory needs the open simplex "
          "(every weight > 0). Use a small positive weight such as 1e-4 "
          "instead of 0.";
  } else {
    os.precision(12);
    os << "The preference sums to " << sum
       << "; weights must sum to 1 (divide each by " << sum << ").";
  }
  if (error != nullptr) *error = os.str();
  return false;
}

namespace {

// Below this largest weighted objective gradient |lambda_s / w_s grad f_s|
// at the start, Solve scales the objectives up to it: the strategies'
// penalties and multiplier estimates start from O(1) constants, and
// objective scales 1e3 times the objectives' size (weighted gradients of
// 5e-4) left the augmented Lagrangian stalled at max_penalty.
constexpr double kSmallestWeightedGradient = 1e-1;

// Inequality constraints and bounds: which strategies take them, whether
// the bounds are consistent, and the start point moved inside them.
bool ValidateConstraintKinds(StrategyType strategy,
                             bool box_inner_solver,
                             const Evaluator* evaluator,
                             Eigen::VectorXd* z,
                             std::string* error) {
  const int p = evaluator->NumInequalityConstraints();
  if (p == 0 && !evaluator->HasBounds()) {
    // Nothing to check (and no message stream to build).
    if (error != nullptr) error->clear();
    return true;
  }
  const char* name = StrategyTypeToString(strategy);
  std::ostringstream os;
  if (p > 0 && strategy == StrategyType::WC_PENALTY_PGD) {
    os << "The problem has " << p
       << " inequality constraint residuals (c(z) <= 0), which the strategy "
       << name
       << " does not take (it is the paper's Algorithm 1, which has "
          "equality constraints only). Use strategy wc-augmented-lagrangian "
          "(or automatic), wc-penalty-lbfgs or wc-newton, or the Ipopt "
          "reference.";
  }
  if (strategy == StrategyType::WC_SQP && (p > 0 || evaluator->HasBounds())) {
    if (p > 0) {
      os << "The problem has " << p
         << " inequality constraint residuals (c(z) <= 0), which";
    } else {
      os << "The problem has bounds on its parameters, which";
    }
    os << " the strategy " << name
       << " does not take (its quadratic programs have equality "
          "constraints only). Use automatic (the default), "
          "wc-augmented-lagrangian or "
          "wc-newton, or the Ipopt reference.";
  }
  if (os.str().empty() && evaluator->HasBounds()) {
    const int k = evaluator->NumParameters();
    const Eigen::VectorXd& lower = evaluator->lower_bounds();
    const Eigen::VectorXd& upper = evaluator->upper_bounds();
    if (lower.size() != k || upper.size() != k) {
      os << "The evaluator declares bounds of sizes " << lower.size() << " and "
         << upper.size() << " for " << k << " parameters.";
    } else if (evaluator->manifold() != nullptr) {
      os << "The problem has both bounds and a manifold; bounds apply to "
            "Euclidean parameters only. Remove one of them.";
    } else if (strategy != StrategyType::WC_PENALTY_PGD &&
               strategy != StrategyType::WC_NEWTON && !box_inner_solver) {
      // Only the quasi-Newton strategies on Ceres' inner solver are left.
      os << "The problem has bounds on its parameters, which the strategy "
         << name
         << " takes only with its own L-BFGS inner solver (Ceres' "
            "GradientProblemSolver has no bounds): leave "
            "quasi_newton.use_ceres_inner_solver false and "
            "quasi_newton.inner.line_search_direction_type LBFGS, or use "
            "wc-newton or the Ipopt reference.";
    } else {
      for (int i = 0; i < k && os.str().empty(); ++i) {
        if (!(lower[i] <= upper[i])) {
          os << "Parameter " << i << " has lower bound " << lower[i]
             << " above its upper bound " << upper[i]
             << "; no point satisfies them.";
        }
      }
    }
    if (os.str().empty()) evaluator->ProjectOntoBounds(z->data());
  }
  if (error != nullptr) *error = os.str();
  return os.str().empty();
}

}  // namespace

// Solver::Options::WarmStart::preference: omega and nu were found for that
// preference. At their point, sum_s omega_s lambda_s grad f_s + J^T nu = 0
// (lambda = preference / scales, the scales shared); the multipliers that
// keep it for the new preference `lambda` (normalized) are omega_s
// lambda_old_s / lambda_s and nu, divided by one factor that keeps
// sum omega. Only for changes of at most a factor 4 per entry.
bool CarryWarmStartOver(const Eigen::VectorXd& lambda,
                        Solver::Options::WarmStart* warm) {
  if (warm == nullptr ||
      warm->preference.size() != static_cast<size_t>(lambda.size()) ||
      warm->omega.size() != lambda.size() || !(lambda.array() > 0.0).all()) {
    return false;
  }
  constexpr double kMaxChange = 4.0;
  const int S = static_cast<int>(lambda.size());
  Eigen::VectorXd old =
      Eigen::Map<const Eigen::VectorXd>(warm->preference.data(), S);
  old /= old.sum();
  const Eigen::VectorXd lambda_normalized = lambda / lambda.sum();
  const Eigen::VectorXd ratio = old.cwiseQuotient(lambda_normalized);
  if (!(ratio.maxCoeff() <= kMaxChange) ||
      !(ratio.minCoeff() >= 1.0 / kMaxChange)) {
    return false;  // a large change: the multipliers as given
  }
  const Eigen::VectorXd carried = warm->omega.cwiseProduct(ratio);
  const double total = warm->omega.sum();
  const double factor = total > 0.0 ? carried.sum() / total : 0.0;
  if (!(factor > 0.0) || !std::isfinite(factor) || !carried.allFinite()) {
    return false;  // keep the multipliers as given
  }
  warm->omega = carried / factor;
  if (warm->nu.size() > 0) warm->nu /= factor;
  return true;
}

bool Solver::Summary::IsSolutionUsable() const {
  return ecmo::IsSolutionUsable(termination_type);
}

double Solver::Summary::CertificateRatio(const Options& options) const {
  if (!IsSolutionUsable() || !kkt.has_certificates) {
    return std::numeric_limits<double>::infinity();
  }
  return kkt
      .BestCertificate(options.stationarity_tolerance,
                       options.complementarity_tolerance,
                       options.feasibility_tolerance,
                       options.model_tolerance)
      .Ratio(options.stationarity_tolerance,
             options.complementarity_tolerance,
             options.feasibility_tolerance,
             options.model_tolerance);
}

double Solver::Summary::WcValue() const {
  return scalarization.WcValue(preference, objectives);
}

bool Solver::Summary::IsCertified(const Options& options) const {
  return termination_type == ceres::CONVERGENCE &&
         CertificateRatio(options) <= 1.0;
}

namespace internal {

std::string DescribeFailingBlocks(const KktCertificate& c,
                                  const Solver::Options& options) {
  std::string out;
  auto block = [&out](const char* name, double value, double tolerance,
                      const char* units) {
    if (!(value <= tolerance)) {
      if (!out.empty()) out += "; ";
      out += name;
      out += " ";
      AppendScientific(value, 2, &out);
      out += " > ";
      AppendScientific(tolerance, 2, &out);
      out += units;
    }
  };
  block("simplex |sum omega - 1|", c.simplex, options.stationarity_tolerance,
        "");
  if (std::isnan(c.model_decrease)) {
    block("stationarity", c.stationarity, options.stationarity_tolerance, "");
    if (!(c.stationarity <= options.stationarity_tolerance)) {
      out += " (relative to the largest term of the Lagrangian gradient, ";
      AppendScientific(c.stationarity_scale, 2, &out);
      out += ")";
    }
  } else {
    block("Gauss-Newton model decrease", c.model_decrease,
          options.model_tolerance, " (relative to the weighted values, ");
    if (!(c.model_decrease <= options.model_tolerance)) {
      AppendScientific(c.value_scale, 2, &out);
      out += "): a Gauss-Newton step of the point's own weighted sum would "
             "still lower it, the point is not stationary";
    }
  }
  block("complementarity", c.complementarity,
        options.complementarity_tolerance, "");
  if (!(c.complementarity <= options.complementarity_tolerance)) {
    out += " (slack relative to the weighted values, ";
    AppendScientific(c.value_scale, 2, &out);
    out += ")";
  }
  block("feasibility ||h||_inf", c.feasibility, options.feasibility_tolerance,
        " in the constraints' units");
  return out.empty() ? "no block fails" : out;
}

bool EvaluateShifted(Evaluator* evaluator,
                     const Eigen::VectorXd& offset,
                     const Eigen::VectorXd& z,
                     Eigen::VectorXd* f,
                     Eigen::VectorXd* h,
                     Eigen::MatrixXd* grad_f,
                     std::string* error) {
  f->resize(evaluator->NumObjectives());
  h->resize(evaluator->NumConstraints());
  if (grad_f != nullptr) {
    grad_f->resize(evaluator->NumParameters(), evaluator->NumObjectives());
  }
  if (!evaluator->Evaluate(z.data(),
                           f->data(),
                           h->data(),
                           grad_f != nullptr ? grad_f->data() : nullptr,
                           error)) {
    return false;
  }
  *f += offset;
  return true;
}

double StopRule::RawEquivalent() const {
  if (absolute) return kkt_tolerance;
  const double t = std::min(
      std::min(stationarity_tolerance, complementarity_tolerance) *
          heuristic_weight,
      feasibility_tolerance);
  return t * t;
}

KktCertificate StopRule::CertifyAt(const KktSystem& system,
                                   const KktMultipliers& multipliers,
                                   const KktResidual& residual) const {
  KktCertificate c = Certificate(system, multipliers, residual);
  if (absolute) return c;
  AddModelDecrease(system, multipliers, CertificateRequestOf(*this), &c);
  return c;
}

std::string StopRule::Describe(const KktResidual& residual,
                               const KktCertificate& c) const {
  // One string appended to: this message is part of every solve, and
  // concatenating temporaries cost a few percent of a small one.
  std::string out;
  out.reserve(200);
  auto number = [&out](const char* label, double x, int precision) {
    out += label;
    AppendScientific(x, precision, &out);
  };
  if (absolute) {
    number("||K||^2 = ", residual.SquaredNorm(), 3);
    number(" <= kkt_tolerance = ", kkt_tolerance, 3);
    return out;
  }
  number("certificate: simplex ", c.simplex, 1);
  if (std::isnan(c.model_decrease)) {
    number(", stationarity ", c.stationarity, 1);
    number(" <= ", stationarity_tolerance, 1);
  } else {
    number(", model decrease ", c.model_decrease, 1);
    number(" <= ", model_tolerance, 1);
  }
  number(", complementarity ", c.complementarity, 1);
  number(" <= ", complementarity_tolerance, 1);
  number(", ||h||_inf ", c.feasibility, 1);
  number(" <= ", feasibility_tolerance, 1);
  number(" (||K||^2 = ", residual.SquaredNorm(), 3);
  out += ")";
  return out;
}

bool IsUnboundedEvidence(const StrategyInput& input,
                         double rho,
                         double constraint_max_norm) {
  return rho < input.rho_floor && constraint_max_norm <= kNearlyFeasible;
}

std::string UnboundedMessage(double rho,
                             double constraint_max_norm,
                             double rho_floor) {
  char buffer[512];
  std::snprintf(buffer,
                sizeof(buffer),
                "rho fell to %.3e at a nearly feasible point (||h||_inf = "
                "%.1e), below %.3e, far beneath anything the start point and "
                "the objective scales make attainable: the objective is "
                "likely unbounded below on the feasible set. If it is "
                "bounded, give Solver::Options::reference_point (or "
                "objective_offset) near its infimum.",
                rho,
                constraint_max_norm,
                rho_floor);
  return buffer;
}

CallbackReturnType RunCallbacks(const Solver::Options& options,
                                const IterationSummary& summary) {
  for (IterationCallback* callback : options.callbacks) {
    const CallbackReturnType answer = (*callback)(summary);
    if (answer != ceres::SOLVER_CONTINUE) return answer;
  }
  return ceres::SOLVER_CONTINUE;
}

}  // namespace internal

namespace {

// One solve by `strategy` (never AUTOMATIC). `scalarization`, when not
// null, is used instead of computing it (AUTOMATIC's second attempt reuses
// the first one's single-objective solves); `max_iterations` caps
// WC_SQP's iterations below options.max_iterations (AUTOMATIC's budget).
void SolveWith(const Solver::Options& options,
               StrategyType strategy,
               int max_iterations,
               const Scalarization* scalarization_given,
               Evaluator* evaluator,
               const std::vector<double>& preference,
               Eigen::VectorXd* z,
               Solver::Summary* summary) {
  internal::WallTimer timer;
  *summary = Solver::Summary();
  summary->strategy = strategy;
  summary->preference = preference;
  auto fail = [&](const std::string& message) {
    internal::Fail(timer, message, summary);
  };

  std::string error;
  if (!options.IsValid(&error)) return fail(error);
  if (evaluator == nullptr || z == nullptr) {
    return fail("ecmo::Solve: evaluator and z must not be null.");
  }
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  summary->num_parameters = k;
  summary->num_objectives = S;
  summary->num_constraints = q;
  summary->num_inequality_constraints = evaluator->NumInequalityConstraints();
  summary->num_bounded_parameters = evaluator->NumBoundedParameters();
  if (S < 1) return fail("The problem has no objectives.");
  if (z->size() != k) {
    std::ostringstream os;
    os << "The start point has " << z->size() << " entries but the problem has "
       << k << " parameters.";
    return fail(os.str());
  }
  for (int i = 0; i < k; ++i) {
    if (!std::isfinite((*z)[i])) {
      std::ostringstream os;
      os << "Start point entry z[" << i << "] = " << (*z)[i]
         << " is not finite; initialize every parameter block.";
      return fail(os.str());
    }
  }
  if (!ValidatePreference(preference, S, &error)) return fail(error);
  // The quasi-Newton strategies take bounds through BoxLbfgs.
  if (!ValidateConstraintKinds(strategy,
                               internal::CanUseBoxLbfgs(options, strategy),
                               evaluator,
                               z,
                               &error)) {
    return fail(error);
  }
  if (!internal::CheckScalarizationSizes(options, S, &error)) {
    return fail(error);
  }

  {
    // Warm-start multipliers: both empty, or omega of size S (finite,
    // >= 0) and nu of size q (empty allowed when q = 0).
    const Solver::Options::WarmStart& warm = options.warm_start;
    const bool any = warm.omega.size() > 0 || warm.nu.size() > 0;
    // Nothing to check for a cold start; the message's stream is created
    // only when a check fails.
    if (any || !warm.preference.empty()) {
      internal::LazyMessage os;
      if (any && warm.omega.size() != S) {
        os << "Solver::Options::warm_start.omega has " << warm.omega.size()
           << " entries but the problem has " << S
           << " objectives; give one multiplier per objective (and nu with "
              "one per constraint), or leave both empty for a cold start.";
      } else if (any && warm.nu.size() != q &&
                 !(q == 0 && warm.nu.size() == 0)) {
        os << "Solver::Options::warm_start.nu has " << warm.nu.size()
           << " entries but the problem has " << q
           << " constraints; give one multiplier per constraint (with omega), "
              "or leave both empty for a cold start.";
      } else {
        for (int s = 0; s < warm.omega.size(); ++s) {
          if (!std::isfinite(warm.omega[s]) || warm.omega[s] < 0.0) {
            os << "Solver::Options::warm_start.omega[" << s
               << "] = " << warm.omega[s]
               << "; inequality multipliers must be finite and >= 0.";
            break;
          }
        }
        const int first_inequality = q - evaluator->NumInequalityConstraints();
        for (int i = 0; i < warm.nu.size() && os.empty(); ++i) {
          if (!std::isfinite(warm.nu[i])) {
            os << "Solver::Options::warm_start.nu[" << i << "] = " << warm.nu[i]
               << "; equality multipliers must be finite.";
          } else if (i >= first_inequality && warm.nu[i] < 0.0) {
            os << "Solver::Options::warm_start.nu[" << i << "] = " << warm.nu[i]
               << " is the multiplier of an inequality constraint; it must be "
                  ">= 0.";
          }
        }
      }
      if (os.empty() && !warm.preference.empty()) {
        if (static_cast<int>(warm.preference.size()) != S ||
            warm.omega.size() != S) {
          os << "Solver::Options::warm_start.preference has "
             << warm.preference.size() << " entries (omega "
             << warm.omega.size() << ") but the problem has " << S
             << " objectives; give the preference the multipliers belong to, "
                "with omega, or leave it empty.";
        } else {
          for (int s = 0; s < S; ++s) {
            if (!(warm.preference[s] > 0.0) ||
                !std::isfinite(warm.preference[s])) {
              os << "Solver::Options::warm_start.preference[" << s
                 << "] = " << warm.preference[s] << "; entries must be > 0.";
              break;
            }
          }
        }
      }
      if (!os.empty()) return fail(os.str());
    }
  }
  {
    // What WC_NEWTON's Gauss-Newton path needs (the one place this is
    // checked; the inner solver relies on it).
    const Solver::Options::NewtonOptions& newton = options.newton;
    const bool factorizing =
        newton.linear_solver == NewtonLinearSolverType::SPARSE_CHOLESKY ||
        newton.linear_solver == NewtonLinearSolverType::DENSE_CHOLESKY;
    if (strategy == StrategyType::WC_NEWTON &&
        (newton.hessian == NewtonHessianType::GAUSS_NEWTON || factorizing) &&
        !evaluator->HasGaussNewtonMatrix()) {
      const std::string option =
          newton.hessian == NewtonHessianType::GAUSS_NEWTON
              ? std::string("newton.hessian = gauss-newton")
              : "newton.linear_solver = " +
                    std::string(
                        NewtonLinearSolverTypeToString(newton.linear_solver));
      return fail("Solver::Options::" + option +
                  " factorizes a Gauss-Newton matrix, which needs objectives "
                  "that are sums of squared residuals (an evaluator with "
                  "one, e.g. ecmo::CeresProblemAdapter); this problem has "
                  "none. Use newton.hessian = automatic or exact-products "
                  "with linear_solver = automatic or conjugate-gradients "
                  "(Hessian products, matrix-free), or the strategy "
                  "wc-augmented-lagrangian.");
    }
  }

  internal::StrategyInput input;
  input.options = &options;
  input.strategy = strategy;
  input.max_iterations = std::min(options.max_iterations, max_iterations);
  input.evaluator = evaluator;
  input.timer = &timer;
  input.z0 = *z;

  // The scalarization: reference point r and scales w (may run the
  // single-objective solves; their work is reported separately).
  if (scalarization_given != nullptr) {
    summary->scalarization = *scalarization_given;
  } else if (!internal::FindOrComputeScalarization(
                 options, evaluator, *z, &summary->scalarization, &error)) {
    return fail(error);
  }
  const Scalarization& scalarization = summary->scalarization;
  const EvaluationCounts counts_before = evaluator->counts();
  // Internal scaling (the quasi-Newton strategies on the certificate only;
  // the faithful strategy and the paper's absolute test see the problem as
  // posed): like Ipopt's gradient-based scaling, lambda is multiplied by
  // s <= 1 so that the largest weighted objective gradient at the start is
  // at most 100. The WC point, omega and the certificate do not change with
  // s; rho and nu scale with it and are reported unscaled. Without it the
  // penalties, sized for O(1) values, cannot enforce feasibility against
  // objectives in large units (1e6 and up).
  const bool scale_problem =
      options.kkt_tolerance == 0.0 && strategy != StrategyType::WC_PENALTY_PGD;
  // In the evaluator's workspace: a sweep's worker solves point after point
  // on one evaluator, and these were allocated and freed at every one.
  internal::SolveWorkspace& workspace = *evaluator->workspace();
  Eigen::VectorXd& f0 = workspace.start_f;
  Eigen::VectorXd& h0 = workspace.start_h;
  Eigen::MatrixXd& grad0 = workspace.start_grad;
  f0.resize(S);
  h0.resize(q);
  if (scale_problem) grad0.resize(k, S);
  if (!evaluator->Evaluate(z->data(),
                           f0.data(),
                           h0.data(),
                           scale_problem ? grad0.data() : nullptr,
                           &error)) {
    return fail("At the start point: " + error);
  }
  summary->initial_objectives = f0;
  input.offset = -scalarization.reference_point;
  summary->objective_offset_used.assign(input.offset.data(),
                                        input.offset.data() + S);
  Eigen::VectorXd lambda =
      Eigen::Map<const Eigen::VectorXd>(preference.data(), S);
  lambda /= lambda.sum();
  input.lambda = lambda.cwiseQuotient(scalarization.objective_scale);

  // The heuristic weight of the stop rule (StopRule::heuristic_weight;
  // never part of a verdict): the smallest lambda_s sigma_s, sigma_s the
  // range when the payoff table gave one, otherwise the size of f_s - r_s
  // at the start (at least 1), capped by the caller's scale.
  double heuristic_weight = 1.0;
  for (int s = 0; s < S; ++s) {
    double sigma;
    if (scalarization.normalized) {
      sigma = scalarization.objective_scale[s];
    } else if (scalarization.nadir_point.size() == S) {
      sigma = std::max(
          scalarization.nadir_point[s] - scalarization.reference_point[s],
          1e-4 * std::max({1.0,
                           std::abs(scalarization.reference_point[s]),
                           std::abs(scalarization.nadir_point[s])}));
    } else {
      sigma = std::max(1.0, std::abs(f0[s] + input.offset[s]));
    }
    if (scalarization.scale_given) {
      sigma = std::min(sigma, scalarization.objective_scale[s]);
    }
    heuristic_weight = std::min(heuristic_weight, input.lambda[s] * sigma);
  }
  input.reference_is_lower_bound =
      scalarization.reference_point_type ==
          ReferencePointType::OBJECTIVE_OFFSET ||
      scalarization.reference_point_type == ReferencePointType::GIVEN;
  input.stop.absolute = options.kkt_tolerance > 0.0;
  input.stop.kkt_tolerance = options.kkt_tolerance;
  input.stop.stationarity_tolerance = options.stationarity_tolerance;
  input.stop.complementarity_tolerance = options.complementarity_tolerance;
  input.stop.feasibility_tolerance = options.feasibility_tolerance;
  input.stop.model_tolerance = options.model_tolerance;
  input.stop.stationarity_floor = options.stationarity_floor;
  input.stop.heuristic_weight = heuristic_weight;

  double s_scale = 1.0;
  if (scale_problem) {
    double largest = 0.0;
    for (int s = 0; s < S; ++s) {
      largest = std::max(
          largest, input.lambda[s] * grad0.col(s).lpNorm<Eigen::Infinity>());
    }
    if (std::isfinite(largest) && largest > 100.0) s_scale = 100.0 / largest;
    if (largest > 0.0 && largest < kSmallestWeightedGradient) {
      s_scale = kSmallestWeightedGradient / largest;
    }
  }
  summary->objective_scaling = s_scale;
  Solver::Options scaled_options;
  if (s_scale != 1.0) {
    input.lambda *= s_scale;
    scaled_options = options;
    if (scaled_options.warm_start.nu.size() > 0) {
      scaled_options.warm_start.nu *= s_scale;
    }
    input.options = &scaled_options;
  }
  // Only WC_NEWTON's Ceres phase takes the carried multipliers.
  if (strategy == StrategyType::WC_NEWTON &&
      !options.warm_start.preference.empty()) {
    Solver::Options::WarmStart carried = options.warm_start;
    if (CarryWarmStartOver(lambda, &carried)) {
      input.ceres_phase_omega = carried.omega;
    }
  }

  const Eigen::VectorXd weighted0 =
      input.lambda.cwiseProduct(f0 + input.offset);
  input.rho0 = std::isnan(options.initial_rho) ? weighted0.maxCoeff()
                                               : options.initial_rho * s_scale;
  summary->initial_rho = input.rho0 / s_scale;
  // Far below anything attainable: every feasible point has rho >= the
  // smallest weighted value that is possible, which is >= 0 when r is below
  // the front; 1e8 times the scale of rho is beyond any honest front.
  {
    double scale = std::max(1.0, std::abs(input.rho0));
    for (int s = 0; s < S; ++s) {
      scale = std::max(scale, std::abs(weighted0[s]));
    }
    input.rho_floor = std::min(input.rho0, 0.0) - 1e8 * scale;
  }

  internal::StrategyOutput output;
  switch (strategy) {
    case StrategyType::AUTOMATIC:  // resolved by Solve
      return fail("ecmo::Solve: no strategy was chosen.");
    case StrategyType::WC_PENALTY_PGD:
      internal::RunWcPenaltyPgd(input, &output, summary);
      break;
    case StrategyType::WC_PENALTY_LBFGS:
      internal::RunWcPenaltyLbfgs(input, &output, summary);
      break;
    case StrategyType::WC_AUGMENTED_LAGRANGIAN:
      internal::RunWcAugmentedLagrangian(input, &output, summary);
      break;
    case StrategyType::WC_NEWTON:
      internal::RunWcNewton(input, &output, summary);
      break;
    case StrategyType::WC_SQP:
      internal::RunWcSqp(input, &output, summary);
      break;
  }
  summary->evaluations = evaluator->counts() - counts_before;
  if (s_scale != 1.0) {
    // Back to the problem as posed.
    output.rho /= s_scale;
    output.delta /= s_scale;
    if (output.multipliers.nu.size() > 0) output.multipliers.nu /= s_scale;
    input.lambda /= s_scale;
    for (IterationSummary& it : summary->history) it.rho /= s_scale;
  }
  summary->iterations = output.iterations;
  summary->termination_type = output.termination_type;
  summary->message = std::move(output.message);
  summary->average_kkt_residual_sq = output.average_kkt_residual_sq;

  // The strategy's point and slacks move to the summary.
  const bool have_z = output.z.size() == k;
  if (have_z) {
    summary->final_rho = output.rho;
    summary->z = std::move(output.z);
    summary->delta = std::move(output.delta);
    // Score the final point with the shared KKT function (solver multipliers
    // and least squares). These evaluations are not counted as the
    // strategy's work: counts were taken above.
    KktMultipliers multipliers = std::move(output.multipliers);
    if (multipliers.omega.size() != S)
      multipliers.omega = Eigen::VectorXd::Zero(S);
    if (multipliers.nu.size() != q) multipliers.nu = Eigen::VectorXd::Zero(q);
    // The strategy's own linearization at the point serves when the
    // objectives were not rescaled (it was made with the scaled lambda).
    const bool reuse = output.system != nullptr && s_scale == 1.0;
    const CertificateRequest certificate = CertificateRequestOf(options);
    Eigen::VectorXd& f = workspace.final_f;
    Eigen::VectorXd& h = workspace.final_h;
    f.resize(S);
    h.resize(q);
    if (evaluator->Evaluate(
            summary->z.data(), f.data(), h.data(), nullptr, &error) &&
        (reuse ? ComputeKktReport(
                     *output.system, multipliers, &summary->kkt, &error,
                     &certificate)
               : ComputeKktReport(evaluator,
                                  input.lambda,
                                  input.offset,
                                  output.rho,
                                  summary->z,
                                  multipliers,
                                  &summary->kkt,
                                  &error,
                                  &certificate))) {
      summary->objectives = f;
      Eigen::VectorXd& violation = workspace.final_violation;
      evaluator->ConstraintViolation(h, &violation);
      summary->constraint_norm = violation.norm();
      summary->constraint_max_norm =
          q > 0 ? violation.cwiseAbs().maxCoeff() : 0.0;
      if (!std::isfinite(summary->kkt.with_solver_multipliers.SquaredNorm()) &&
          !std::isfinite(
              summary->kkt.with_least_squares_multipliers.SquaredNorm())) {
        // Objectives this close to the limit of double precision leave too
        // little room for any claim: a point is never called converged
        // when the KKT system of the problem as posed cannot be evaluated.
        summary->message +=
            " The raw ||K||^2 of the problem as posed overflows (objectives "
            "or gradients near the limit of double precision), so the point "
            "is not called converged whatever the "
            "certificate says; scale the objectives (e.g. divide by a "
            "constant) or change units.";
        if (summary->termination_type == ceres::CONVERGENCE) {
          summary->termination_type = ceres::NO_CONVERGENCE;
        }
      }
      // The verdict is the certificate at the returned point, whatever the
      // strategy's own estimate said: a strategy that stopped on an
      // estimate (or on blocks the model test then refutes) ends
      // NO_CONVERGENCE with the failing blocks named.
      if (summary->termination_type == ceres::CONVERGENCE &&
          !input.stop.absolute && summary->CertificateRatio(options) > 1.0) {
        summary->termination_type = ceres::NO_CONVERGENCE;
        summary->message +=
            " Not certified at the returned point: " +
            internal::DescribeFailingBlocks(
                summary->kkt.BestCertificate(options.stationarity_tolerance,
                                             options.complementarity_tolerance,
                                             options.feasibility_tolerance,
                                             options.model_tolerance),
                options) +
            ".";
      }
    } else if (summary->IsSolutionUsable()) {
      summary->termination_type = ceres::FAILURE;
      summary->message = "At the final point: " + error;
    }
  }
  if (summary->IsSolutionUsable()) *z = have_z ? summary->z : output.z;
  summary->total_time_in_seconds = timer.Seconds();
}

// The text up to the end of its first sentence.
std::string FirstSentence(const std::string& text) {
  const size_t end = text.find(". ");
  return end == std::string::npos ? text : text.substr(0, end + 1);
}

// What StrategyType::AUTOMATIC runs on this problem, and why (see
// ecmo/types.h).
StrategyType ChooseStrategy(const Evaluator& evaluator, std::string* why) {
  const int k = evaluator.NumParameters();
  const char* sqp = StrategyTypeToString(StrategyType::WC_SQP);
  const char* al = StrategyTypeToString(StrategyType::WC_AUGMENTED_LAGRANGIAN);
  const char* reason = nullptr;
  // Above the size wc-sqp takes, wc-newton wherever its second-order inner
  // solves have a model:
  // - sums of squared residuals (a CeresProblemAdapter): Gauss-Newton with
  //   Ceres' own phase. On real pose graphs the augmented Lagrangian's
  //   L-BFGS inner solves certify no point in 7-12 s each where wc-newton
  //   certifies every one in 0.05-1 s (benchmarks/README.md, issue 57's
  //   section);
  // - exact products of the Hessian of the Lagrangian with equality
  //   constraints (an MtblEvaluator: a bilevel problem in the full space,
  //   h = grad_y g). On mtbl_logistic (n_y = 640, a warm 15-point
  //   Das-Dennis sweep) both strategies certify every point, but 4 of the
  //   augmented Lagrangian's are stationary points where the source softmax
  //   saturates, with WC values 40-64% above wc-newton's at their own
  //   preference (benchmarks/README.md, "automatic on bilevel problems").
  const char* newton_model =
      evaluator.HasGaussNewtonMatrix()
          ? "objectives that are sums of squared residuals (Gauss-Newton "
            "structure)"
      : evaluator.HasExactLagrangianHessian() && evaluator.NumConstraints() > 0
          ? "equality constraints and exact Hessian products (e.g. a "
            "bilevel problem in the full space)"
          : nullptr;
  if (k > kAutomaticSqpMaxParameters && newton_model != nullptr) {
    *why = std::string(StrategyTypeToString(StrategyType::WC_NEWTON)) + ": " +
           std::to_string(k) + " parameters, " + newton_model;
    return StrategyType::WC_NEWTON;
  }
  if (k > kAutomaticSqpMaxParameters) {
    *why = std::string(al) + ": " + std::to_string(k) + " parameters (" + sqp +
           " up to " + std::to_string(kAutomaticSqpMaxParameters) + ")";
    return StrategyType::WC_AUGMENTED_LAGRANGIAN;
  }
  if (evaluator.NumInequalityConstraints() > 0) {
    reason = "inequality constraints";
  } else if (evaluator.HasBounds()) {
    reason = "bounds";
  } else if (evaluator.manifold() != nullptr) {
    reason = "a manifold";
  }
  if (reason != nullptr) {
    *why = std::string(al) + ": the problem has " + reason + " (" + sqp +
           " takes equality constraints in R^k only)";
    return StrategyType::WC_AUGMENTED_LAGRANGIAN;
  }
  *why = std::string(sqp) + ": " + std::to_string(k) +
         " parameters, equality constraints only";
  return StrategyType::WC_SQP;
}

// Solve without the second-order test: the strategy AUTOMATIC chooses (or
// the one asked for), and AUTOMATIC's fallback from WC_SQP.
void SolveFirstOrder(const Solver::Options& options,
                     Evaluator* evaluator,
                     const std::vector<double>& preference,
                     Eigen::VectorXd* z,
                     Solver::Summary* summary) {
  // (A null evaluator or z: SolveWith reports it.)
  const bool automatic = options.strategy == StrategyType::AUTOMATIC &&
                         evaluator != nullptr && z != nullptr;
  std::string why;
  const StrategyType chosen = automatic ? ChooseStrategy(*evaluator, &why)
                              : options.strategy == StrategyType::AUTOMATIC
                                  ? StrategyType::WC_AUGMENTED_LAGRANGIAN
                                  : options.strategy;
  const bool sqp_first = automatic && chosen == StrategyType::WC_SQP;
  const Eigen::VectorXd start = sqp_first ? *z : Eigen::VectorXd();
  // SQP converges superlinearly where it works (3-30 iterations on small
  // problems); one that creeps (flat, saturated regions) hands over early.
  SolveWith(options,
            chosen,
            sqp_first ? kAutomaticSqpMaxIterations : options.max_iterations,
            nullptr,
            evaluator,
            preference,
            z,
            summary);
  if (!automatic) return;
  summary->strategy_choice = why;
  if (!sqp_first) return;
  // SQP's step can stall where the augmented Lagrangian's penalties still
  // make progress (rank-deficient constraints, a merit function that
  // rejects every step): try that too, from the same start, within the
  // time left. Not after a user callback's decision or a failure before
  // the first iteration (invalid input fails the same way for both).
  const TerminationType type = summary->termination_type;
  const double time_left =
      options.max_solver_time_in_seconds - summary->total_time_in_seconds;
  if (!(type == ceres::NO_CONVERGENCE ||
        (type == ceres::FAILURE && summary->iterations > 0)) ||
      !(time_left > 0.0)) {
    return;
  }
  Solver::Summary first = std::move(*summary);
  Eigen::VectorXd z_first = *z;
  *z = start;
  Solver::Options second_options = options;  // with the time left
  second_options.max_solver_time_in_seconds = time_left;
  SolveWith(second_options,
            StrategyType::WC_AUGMENTED_LAGRANGIAN,
            second_options.max_iterations,
            &first.scalarization,
            evaluator,
            preference,
            z,
            summary);
  const std::string first_outcome =
      std::string(StrategyTypeToString(StrategyType::WC_SQP)) + " ended " +
      TerminationTypeName(first.termination_type);
  const bool second_better =
      summary->termination_type == ceres::CONVERGENCE ||
      (summary->IsSolutionUsable() &&
       summary->CertificateRatio(options) < first.CertificateRatio(options));
  const EvaluationCounts second_counts = summary->evaluations;
  const double second_time = summary->total_time_in_seconds;
  if (second_better) {
    summary->evaluations += first.evaluations;
    summary->total_time_in_seconds += first.total_time_in_seconds;
    summary->strategy_choice =
        why + "; " + first_outcome + " (" + FirstSentence(first.message) +
        "), so " + StrategyTypeToString(StrategyType::WC_AUGMENTED_LAGRANGIAN) +
        " solved it from the same start";
    return;
  }
  const TerminationType second_type = summary->termination_type;
  *summary = std::move(first);
  *z = z_first;
  summary->evaluations += second_counts;
  summary->total_time_in_seconds += second_time;
  summary->strategy_choice =
      why + "; " + first_outcome + ", and " +
      StrategyTypeToString(StrategyType::WC_AUGMENTED_LAGRANGIAN) +
      " from the same start did no better (ended " +
      TerminationTypeName(second_type) +
      "): " + StrategyTypeToString(StrategyType::WC_SQP) +
      "'s point is reported";
}

}  // namespace

bool ScalarizationWeights(const Solver::Summary& summary,
                          Eigen::VectorXd* lambda,
                          Eigen::VectorXd* offset) {
  const Scalarization& sc = summary.scalarization;
  const int S = static_cast<int>(summary.preference.size());
  if (S == 0 || sc.reference_point.size() != S ||
      sc.objective_scale.size() != S) {
    return false;
  }
  *lambda = Eigen::Map<const Eigen::VectorXd>(summary.preference.data(), S);
  *lambda /= lambda->sum();
  *lambda = lambda->cwiseQuotient(sc.objective_scale);
  *offset = -sc.reference_point;
  return true;
}

namespace internal {

bool CheckSavedPoint(const Solver::Options& options,
                     Evaluator* evaluator,
                     const Solver::Summary& summary,
                     std::string* error) {
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  const int k = evaluator->NumParameters();
  if (summary.z.size() != k || summary.objectives.size() != S ||
      !summary.z.allFinite() || !summary.objectives.allFinite()) {
    *error =
        "its z or objectives are missing, of the wrong size, or hold "
        "null, NaN or infinity";
    return false;
  }
  Eigen::VectorXd f(S), h(q);
  if (!evaluator->Evaluate(
          summary.z.data(), f.data(), h.data(), nullptr, error)) {
    *error = "evaluating the problem at its z failed: " + *error;
    return false;
  }
  for (int s = 0; s < S; ++s) {
    const double saved = summary.objectives[s];
    const double tolerance = 1e-8 * std::max(std::abs(saved), std::abs(f[s])) +
                             1e-12 * summary.objectives.cwiseAbs().maxCoeff() +
                             std::numeric_limits<double>::min();
    if (!(std::abs(f[s] - saved) <= tolerance)) {
      std::ostringstream os;
      os.precision(17);
      os << "objective " << s << " at its z is " << f[s]
         << " but the file says " << saved
         << " (the line was edited, or written for another problem)";
      *error = os.str();
      return false;
    }
  }
  if (summary.termination_type != ceres::CONVERGENCE) return true;
  Eigen::VectorXd lambda, offset;
  if (!ScalarizationWeights(summary, &lambda, &offset)) {
    *error = "it is CONVERGENCE but has no scalarization to check it with";
    return false;
  }
  const CertificateRequest request = CertificateRequestOf(options);
  KktReport report;
  if (!ComputeKktReport(evaluator,
                        lambda,
                        offset,
                        summary.final_rho,
                        summary.z,
                        summary.kkt.solver_multipliers,
                        &report,
                        error,
                        &request)) {
    *error = "its certificate cannot be recomputed: " + *error;
    return false;
  }
  if (options.kkt_tolerance > 0.0) {
    // The paper's absolute test decided, not the certificate.
    const double squared =
        std::min(report.with_solver_multipliers.SquaredNorm(),
                 report.with_least_squares_multipliers.SquaredNorm());
    if (!(squared <= options.kkt_tolerance * (1.0 + 1e-6))) {
      std::ostringstream os;
      os << "it is CONVERGENCE but ||K||^2 at its z is " << squared
         << " > kkt_tolerance = " << options.kkt_tolerance
         << " (the line was edited, or written for another problem)";
      *error = os.str();
      return false;
    }
    return true;
  }
  Solver::Summary recomputed;
  recomputed.termination_type = ceres::CONVERGENCE;
  recomputed.kkt = std::move(report);
  if (!(recomputed.CertificateRatio(options) <= 1.0)) {
    *error =
        "it is CONVERGENCE but fails the certificate at its z (" +
        internal::DescribeFailingBlocks(
            recomputed.kkt.BestCertificate(options.stationarity_tolerance,
                                           options.complementarity_tolerance,
                                           options.feasibility_tolerance,
                                           options.model_tolerance),
            options) +
        "; the line was edited, or written for another problem)";
    return false;
  }
  return true;
}

}  // namespace internal

namespace {

// The multipliers of the certificate that passed.
const KktMultipliers& CertifiedMultipliers(const Solver::Options& options,
                                           const KktReport& kkt) {
  return kkt.BestMultipliers(options.stationarity_tolerance,
                             options.complementarity_tolerance,
                             options.feasibility_tolerance,
                             options.model_tolerance);
}

// A start below a saddle: z + alpha d (d the negative-curvature direction)
// for the largest alpha in {1e-1, ..., 1e-4} (1 + ||z||_inf), shortened to
// stay inside the bounds, at which the Lagrangian sum_s a_s f_s + nu^T c
// falls by at least a tenth of what the curvature predicts and by more
// than its rounding level. False when none does (the negative eigenvalue
// is not confirmed).
bool SaddleEscapeStart(Evaluator* evaluator,
                       const Eigen::VectorXd& a,
                       const KktMultipliers& multipliers,
                       const Eigen::VectorXd& z,
                       const SecondOrderReport& report,
                       Eigen::VectorXd* start) {
  const int S = evaluator->NumObjectives();
  const int m = evaluator->NumConstraints();
  const Eigen::VectorXd nu = multipliers.nu.size() == m
                                 ? multipliers.nu
                                 : Eigen::VectorXd(Eigen::VectorXd::Zero(m));
  Eigen::VectorXd f(S), c(m);
  std::string error;
  // The value, and the size of its terms (its rounding level).
  auto lagrangian = [&](const Eigen::VectorXd& x, double* value,
                        double* size) {
    if (!evaluator->Evaluate(x.data(), f.data(), c.data(), nullptr, &error)) {
      return false;
    }
    *value = a.dot(f) + nu.dot(c);
    *size = a.cwiseAbs().dot(f.cwiseAbs()) + nu.cwiseAbs().dot(c.cwiseAbs());
    return std::isfinite(*value);
  };
  double base = 0.0, base_size = 0.0;
  if (!lagrangian(z, &base, &base_size)) return false;
  const Eigen::VectorXd& d = report.direction;
  double room = std::numeric_limits<double>::infinity();
  if (evaluator->HasBounds()) {
    for (int i = 0; i < d.size(); ++i) {
      if (d[i] > 0.0) {
        room = std::min(room, (evaluator->upper_bounds()[i] - z[i]) / d[i]);
      } else if (d[i] < 0.0) {
        room = std::min(room, (evaluator->lower_bounds()[i] - z[i]) / d[i]);
      }
    }
  }
  const double size = 1.0 + z.lpNorm<Eigen::Infinity>();
  for (double fraction : {1e-1, 1e-2, 1e-3, 1e-4}) {
    const double alpha = std::min(fraction * size, room);
    if (!(alpha > 0.0)) return false;
    Eigen::VectorXd x = z + alpha * d;
    evaluator->ProjectOntoBounds(x.data());
    double value = 0.0, size = 0.0;
    if (!lagrangian(x, &value, &size)) continue;
    const double predicted = 0.5 * alpha * alpha * report.min_eigenvalue;
    const double rounding = 1e3 * std::numeric_limits<double>::epsilon() *
                            std::max(base_size, size);
    if (base - value > std::max(-0.1 * predicted, rounding)) {
      *start = std::move(x);
      return true;
    }
  }
  return false;
}

// Whether a restart from a saddle that did not converge still ended at a
// better point of the WC problem: usable, at least as feasible (in the
// constraints' units, up to feasibility_tolerance) and with a WC value
// smaller by more than `same_rho`, rho's accuracy at the saddle.
bool RestartIsTheBetterPoint(const Solver::Options& options,
                             const Solver::Summary& saddle,
                             const Solver::Summary& restart,
                             double same_rho) {
  if (!restart.IsSolutionUsable() || restart.z.size() != saddle.z.size()) {
    return false;
  }
  const double feasible =
      std::max(saddle.constraint_max_norm, options.feasibility_tolerance);
  if (restart.num_constraints > 0 &&
      !(restart.constraint_max_norm <= feasible)) {
    return false;
  }
  return restart.WcValue() < saddle.WcValue() - same_rho;
}

// "saddle point: ..." for a message.
std::string DescribeSaddle(const SecondOrderReport& report) {
  std::ostringstream os;
  os.precision(3);
  os << "saddle point: the Hessian of the Lagrangian has curvature "
     << report.min_eigenvalue
     << " on the critical cone (scale " << report.curvature_scale
     << ", a span of " << report.reduced_dimension
     << " dimensions), so a feasible curve leaves the point with a smaller "
        "rho";
  return os.str();
}

// Solver::Options::second_order_check at a CONVERGENCE point: the test,
// and restarts along a negative-curvature direction (see solver.h).
void CheckSecondOrder(const Solver::Options& options,
                      Evaluator* evaluator,
                      const std::vector<double>& preference,
                      Eigen::VectorXd* z,
                      Solver::Summary* summary) {
  int escapes = 0;
  while (true) {
    SecondOrderReport& report = summary->second_order;
    report = SecondOrderReport();
    report.saddle_escapes = escapes;
    if (!options.second_order_check) {
      report.not_computed_reason =
          "off (Solver::Options::second_order_check)";
      return;
    }
    if (summary->termination_type != ceres::CONVERGENCE) {
      report.not_computed_reason = "the point is not CONVERGENCE";
      return;
    }
    Eigen::VectorXd lambda, offset;
    if (!ScalarizationWeights(*summary, &lambda, &offset)) {
      report.not_computed_reason = "the summary has no scalarization";
      return;
    }
    const KktMultipliers& multipliers =
        CertifiedMultipliers(options, summary->kkt);
    // The products the solve's own work allows (SecondOrderOptions::
    // max_work_fraction).
    SecondOrderOptions second_order = options.second_order;
    if (second_order.max_work_fraction > 0.0) {
      const double per_product =
          evaluator->HasExactLagrangianHessian() ? 1.0 : 2.0;
      const int budget = std::max(
          second_order.min_hessian_products,
          static_cast<int>(std::min(
              1e6,
              second_order.max_work_fraction *
                  static_cast<double>(
                      summary->evaluations.gradient_evaluations) /
                  per_product)));
      second_order.max_dense_dimension =
          std::min(second_order.max_dense_dimension, budget);
      second_order.max_lanczos_iterations =
          std::min(second_order.max_lanczos_iterations, budget);
    }
    std::string error;
    if (!AnalyzeSecondOrder(second_order,
                            evaluator,
                            lambda,
                            offset,
                            summary->final_rho,
                            summary->z,
                            multipliers,
                            &report,
                            &error)) {
      // A failed product is no verdict on the point.
      report.not_computed_reason = error;
      report.saddle_escapes = escapes;
      return;
    }
    report.saddle_escapes = escapes;
    if (!report.saddle) return;
    const Eigen::VectorXd omega =
        multipliers.omega.size() == lambda.size()
            ? multipliers.omega
            : Eigen::VectorXd(Eigen::VectorXd::Zero(lambda.size()));
    Eigen::VectorXd start;
    if (!SaddleEscapeStart(evaluator,
                           omega.cwiseProduct(lambda),
                           multipliers,
                           summary->z,
                           report,
                           &start)) {
      report.saddle = false;
      report.negative_curvature_unconfirmed = true;
      return;
    }
    const double time_left =
        options.max_solver_time_in_seconds - summary->total_time_in_seconds;
    if (escapes >= options.max_saddle_escapes || !(time_left > 0.0)) {
      summary->termination_type = ceres::NO_CONVERGENCE;
      summary->message +=
          " Not a minimizer: " + DescribeSaddle(report) +
          (escapes >= options.max_saddle_escapes
               ? "; no restarts left (Solver::Options::max_saddle_escapes)."
               : "; no time left for a restart.");
      return;
    }
    ++escapes;
    // The same options and scalarization (its cost stays with the first
    // solve), cold from the step.
    Solver::Options restart_options = options;
    restart_options.warm_start = Solver::Options::WarmStart();
    restart_options.max_solver_time_in_seconds = time_left;
    restart_options.objective_offset.clear();
    restart_options.reference_point.clear();
    restart_options.objective_scale.clear();
    restart_options.automatic_objective_offset = false;
    restart_options.scalarization =
        std::make_shared<const Scalarization>(summary->scalarization);
    Solver::Summary next;
    SolveFirstOrder(restart_options, evaluator, preference, &start, &next);
    next.evaluations += summary->evaluations;
    next.total_time_in_seconds += summary->total_time_in_seconds;
    next.scalarization = summary->scalarization;
    // rho's own accuracy at a certified point: the certificate's
    // complementarity, relative to the weighted values D.
    const double value_scale =
        summary->kkt.certificate_with_solver_multipliers.value_scale;
    const double same_rho =
        1e-6 * (std::isfinite(value_scale) && value_scale > 0.0
                    ? value_scale
                    : std::abs(summary->final_rho));
    if (next.termination_type == ceres::CONVERGENCE &&
        std::abs(next.final_rho - summary->final_rho) <= same_rho) {
      // Back at the same rho: the curvature was too faint to lead
      // anywhere (a degenerate point, or noise of the products).
      summary->evaluations = next.evaluations;
      summary->total_time_in_seconds = next.total_time_in_seconds;
      report.saddle = false;
      report.negative_curvature_unconfirmed = true;
      report.saddle_escapes = escapes;
      return;
    }
    if (next.termination_type == ceres::CONVERGENCE &&
        next.final_rho < summary->final_rho) {
      if (next.strategy_choice.empty()) {
        next.strategy_choice = summary->strategy_choice;
      }
      next.message += " (Restarted from a step along a negative-curvature "
                      "direction: the first CONVERGENCE point was a " +
                      DescribeSaddle(report) + ".)";
      *summary = std::move(next);
      *z = summary->z;
      continue;
    }
    std::ostringstream os;
    os.precision(10);
    if (RestartIsTheBetterPoint(options, *summary, next, same_rho)) {
      // Not certified, but a better point of the WC problem than the
      // saddle: keep it (returning the saddle would throw away the
      // progress, and a sweep's retry would start from neither).
      os << " (Restarted from a step along a negative-curvature direction: "
            "the first CONVERGENCE point, at WC value "
         << summary->WcValue() << ", was a " << DescribeSaddle(report)
         << "; this point, where the restart stopped, has the smaller WC "
            "value "
         << next.WcValue() << " and is at least as feasible.)";
      if (next.strategy_choice.empty()) {
        next.strategy_choice = summary->strategy_choice;
      }
      next.message += os.str();
      next.second_order = SecondOrderReport();
      next.second_order.not_computed_reason = "the point is not CONVERGENCE";
      next.second_order.saddle_escapes = escapes;
      *summary = std::move(next);
      *z = summary->z;
      return;
    }
    os << " Not a minimizer: " << DescribeSaddle(report)
       << "; a restart from a step along it ended "
       << TerminationTypeName(next.termination_type) << " at rho "
       << next.final_rho << " (the saddle's rho is " << summary->final_rho
       << "): " << FirstSentence(next.message);
    summary->evaluations = next.evaluations;
    summary->total_time_in_seconds = next.total_time_in_seconds;
    summary->termination_type = ceres::NO_CONVERGENCE;
    summary->message += os.str();
    return;
  }
}

// A solve that met points where the problem is not defined and did not
// converge most likely stopped at the edge of that region: say so, since
// the strategy's own reason (a stalled penalty, rank-deficient constraints)
// would send the user the wrong way.
void NoteFailedEvaluations(Solver::Summary* summary) {
  const int64_t failed = summary->evaluations.failed_evaluations;
  if (failed == 0 || summary->termination_type == ceres::CONVERGENCE) return;
  std::ostringstream os;
  os << " " << failed << " evaluation" << (failed == 1 ? "" : "s")
     << " failed (a cost function returned false, NaN or infinity); the "
        "solver kept to points where every value is finite, so the point "
        "returned may sit at the edge of the region where the problem is "
        "defined: check the cost functions' domain, or bound the parameters "
        "to it.";
  summary->message += os.str();
}

// Runs `body` so that Solve never throws (solver.h): an exception from
// user code that Evaluator::Evaluate did not see (a callback, a cost
// function inside Ceres' own solve in wc-newton's phase) ends the point
// FAILURE with its message.
template <typename Body>
void WithoutExceptions(Solver::Summary* summary, Body&& body) {
  std::string what;
  try {
    body();
    return;
  } catch (const std::bad_alloc&) {
    throw;  // see solver.h: memory exhaustion is the caller's to handle
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "not a std::exception";
  }
  if (summary == nullptr) return;
  summary->termination_type = ceres::FAILURE;
  summary->message =
      "User code (a cost function, evaluator or iteration callback) threw "
      "an exception: " +
      what + ". Make it return false (or a non-finite value) instead.";
}

}  // namespace

void Solve(const Solver::Options& options,
           Evaluator* evaluator,
           const std::vector<double>& preference,
           Eigen::VectorXd* z,
           Solver::Summary* summary) {
  WithoutExceptions(summary, [&] {
    SolveFirstOrder(options, evaluator, preference, z, summary);
    if (evaluator == nullptr || z == nullptr || summary == nullptr) return;
    CheckSecondOrder(options, evaluator, preference, z, summary);
    NoteFailedEvaluations(summary);
  });
}

void Solve(const Solver::Options& options,
           Problem* problem,
           const std::vector<double>& preference,
           Solver::Summary* summary) {
  WithoutExceptions(summary, [&] {
    internal::SolveOnProblem(options, problem, preference, summary);
  });
  // Also in a FAILURE summary of an invalid problem.
  if (summary != nullptr && summary->strategy == StrategyType::AUTOMATIC) {
    summary->strategy = options.strategy;
  }
}

void Solve(const Solver::Options& options,
           const Problem& problem,
           const std::vector<double>& preference,
           Solver::Summary* summary) {
  WithoutExceptions(summary, [&] {
    internal::SolveOnProblem(options, &problem, preference, summary);
  });
  // Also in a FAILURE summary of an invalid problem.
  if (summary != nullptr && summary->strategy == StrategyType::AUTOMATIC) {
    summary->strategy = options.strategy;
  }
}

}  // namespace ecmo
