// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Solver::Summary reports.

#include <cstdio>
#include <sstream>

#include "ecmo/internal/report.h"
#include "ecmo/solver.h"

namespace ecmo {

using internal::FormatNumber;
using internal::FormatVector;

// ---------------------------------------------------------------- reports --

std::string Solver::Summary::BriefReport() const {
  std::ostringstream os;
  os.precision(6);
  os << "ecmo::Solve Report: Strategy: " << StrategyTypeToString(strategy)
     << ", Iterations: " << iterations
     << ", ||K||^2: " << kkt.with_solver_multipliers.SquaredNorm()
     << " (least squares: " << kkt.with_least_squares_multipliers.SquaredNorm()
     << "), Termination: " << TerminationTypeName(termination_type);
  return os.str();
}

std::string Solver::Summary::FullReport() const {
  internal::ReportWriter report("ceres-ecmo Solver Report");
  std::ostringstream& os = report.stream();
  char line[256];
  report.Row("Parameters (k)", num_parameters);
  report.Row("Objectives (S)", std::to_string(num_objectives));
  report.Row("Constraint residuals (q)", std::to_string(num_constraints));
  if (num_inequality_constraints > 0) {
    report.Row("  of which inequalities (p)",
               std::to_string(num_inequality_constraints));
  }
  if (num_bounded_parameters > 0) {
    report.Row("Bounded parameters", std::to_string(num_bounded_parameters));
  }
  {
    Eigen::VectorXd p(preference.size());
    for (size_t i = 0; i < preference.size(); ++i) p[i] = preference[i];
    report.Row("Preference lambda", FormatVector(p));
    Eigen::VectorXd o(objective_offset_used.size());
    for (size_t i = 0; i < objective_offset_used.size(); ++i) {
      o[i] = objective_offset_used[i];
    }
    report.Row("Objective offset", FormatVector(o));
  }
  if (scalarization.reference_point.size() > 0) {
    report.Section("Scalarization");
    report.Row("  Reference point r",
               std::string(ReferencePointTypeToString(
                   scalarization.reference_point_type)) +
                   " " + FormatVector(scalarization.reference_point));
    report.Row(scalarization.normalized
                   ? "  Objective scales w (nadir - utopia)"
               : scalarization.scale_given ? "  Objective scales w (given)"
                                           : "  Objective scales w",
               FormatVector(scalarization.objective_scale));
    if (scalarization.ideal_point.size() > 0) {
      report.Row("  Ideal point", FormatVector(scalarization.ideal_point));
      report.Row("  Nadir estimate (payoff table)",
                 FormatVector(scalarization.nadir_point));
      if (scalarization.num_single_objective_solves > 0) {
        report.Row("  Single-objective solves",
                   scalarization.DescribeSolves());
      } else {
        report.Row("  Single-objective solves",
                   "shared (computed by the caller)");
      }
    }
    if (!scalarization.message.empty())
      report.Row("  Note", scalarization.message);
  }
  report.Section("Strategy");
  report.Row("  Type", StrategyTypeToString(strategy));
  if (!strategy_choice.empty()) {
    report.Row("  Chosen automatically", strategy_choice);
  }
  if (strategy == StrategyType::WC_PENALTY_PGD && eta > 0.0) {
    report.Row("  Step rule", StepRuleToString(step_rule));
    report.Row("  eta = eta0 T^(-1/4)", FormatNumber(eta));
    report.Row("  u = v = c0 T^(1/4)", FormatNumber(penalty_u));
    report.Row("  Shortened steps", std::to_string(num_shortened_steps));
  }
  const bool outer_loop = strategy == StrategyType::WC_PENALTY_LBFGS ||
                          strategy == StrategyType::WC_AUGMENTED_LAGRANGIAN ||
                          strategy == StrategyType::WC_NEWTON;
  if (outer_loop && inner_iterations >= 0) {
    report.Row("  Outer iterations", std::to_string(iterations));
    report.Row(strategy == StrategyType::WC_NEWTON
                   ? "  Inner (Newton) iterations"
                   : "  Inner (L-BFGS) iterations",
               std::to_string(inner_iterations));
    report.Row("  Final penalty u (for h)", FormatNumber(penalty_u));
    report.Row("  Final penalty v (for lambda f <= rho)",
               FormatNumber(penalty_v));
    report.Row("  Penalty increases", std::to_string(num_penalty_increases));
    if (strategy == StrategyType::WC_NEWTON) {
      report.Row("  Steps shortened by halving",
                 std::to_string(num_shortened_steps));
    }
    if (!certified_by.empty()) report.Row("  Certified by", certified_by);
    report.Row("  Last inner solve", inner_message);
    if (!history.empty()) {
      report.Section("  Outer iterations (history)");
      std::snprintf(line,
                    sizeof(line),
                    "  %5s %13s %12s %11s %11s %10s %6s %8s %s\n",
                    "outer",
                    "Q",
                    "rho",
                    "|h|",
                    "|K|^2",
                    "u",
                    "inner",
                    "grad_ev",
                    "inner termination");
      os << line;
      for (const IterationSummary& it : history) {
        std::snprintf(line,
                      sizeof(line),
                      "  %5d % 13.6e % 12.5e %11.3e %11.3e %10.3e %6d %8lld "
                      "%s\n",
                      it.iteration,
                      it.penalty,
                      it.rho,
                      it.constraint_norm,
                      it.kkt_residual_sq,
                      it.penalty_u,
                      it.inner_iterations,
                      static_cast<long long>(it.gradient_evaluations),
                      TerminationTypeName(it.inner_termination_type));
        os << line;
      }
    }
  }
  if (strategy == StrategyType::WC_SQP && inner_iterations >= 0) {
    report.Row("  SQP iterations", std::to_string(inner_iterations));
    report.Row("  Curvature", inner_message);
    if (!certified_by.empty()) report.Row("  Certified by", certified_by);
    if (!history.empty()) {
      report.Section("  Iterations (history)");
      std::snprintf(line,
                    sizeof(line),
                    "  %5s %13s %12s %11s %11s %9s %11s %8s\n",
                    "iter",
                    "merit",
                    "rho",
                    "|h|",
                    "|K|^2",
                    "step",
                    "|dz|",
                    "grad_ev");
      os << line;
      // Long runs: the first 10 and the last 30 iterations.
      const size_t n = history.size();
      for (size_t i = 0; i < n; ++i) {
        if (n > 40 && i == 10) {
          os << "  ... (" << n - 40 << " iterations)\n";
          i = n - 30;
        }
        const IterationSummary& it = history[i];
        std::snprintf(line,
                      sizeof(line),
                      "  %5d % 13.6e % 12.5e %11.3e %11.3e %9.2e %11.3e "
                      "%8lld\n",
                      it.iteration,
                      it.penalty,
                      it.rho,
                      it.constraint_norm,
                      it.kkt_residual_sq,
                      it.step_size,
                      it.step_norm,
                      static_cast<long long>(it.gradient_evaluations));
        os << line;
      }
    }
  }
  report.Section("Point");
  report.Row("  Initial rho", FormatNumber(initial_rho));
  report.Row("  Final rho", FormatNumber(final_rho));
  report.Row("  Initial objectives", FormatVector(initial_objectives));
  report.Row("  Final objectives", FormatVector(objectives));
  report.Row("  z", FormatVector(z));
  report.Row("  ||h(z)||_2", FormatNumber(constraint_norm));
  report.Row("  ||h(z)||_inf", FormatNumber(constraint_max_norm));
  internal::WriteKktBlocks(kkt, "solver", &report);
  if (kkt.has_certificates) {
    const KktCertificate& ca = kkt.certificate_with_solver_multipliers;
    const KktCertificate& cb = kkt.certificate_with_least_squares_multipliers;
    os << "\nCertificate (measured at the point; least squares on its own "
          "scaling)\n";
    report.Row2("|sum omega - 1|", ca.simplex, cb.simplex);
    report.Row2("stationarity / largest term",
                ca.stationarity,
                cb.stationarity);
    report.Row2("largest term (or floor)",
                ca.stationarity_scale,
                cb.stationarity_scale);
    report.Row2("model decrease / D", ca.model_decrease, cb.model_decrease);
    report.Row2("max |min(omega, slack / D)|",
                ca.complementarity,
                cb.complementarity);
    report.Row2("D = max(|rho|, lambda |f|)", ca.value_scale, cb.value_scale);
    report.Row2("||h||_inf", ca.feasibility, cb.feasibility);
  }
  report.Row("  omega (solver)", FormatVector(kkt.solver_multipliers.omega));
  report.Row("  omega (least squares)",
             FormatVector(kkt.least_squares_multipliers.omega));
  report.Row("  nu (solver)", FormatVector(kkt.solver_multipliers.nu));
  report.Row("  nu (least squares)",
             FormatVector(kkt.least_squares_multipliers.nu));
  if (average_kkt_residual_sq >= 0.0) {
    report.Row("  Average ||K_t||^2 over iterations",
               FormatNumber(average_kkt_residual_sq));
  }
  report.Section("Second order (curvature on the critical cone)");
  if (!second_order.computed) {
    report.Row("  Not computed", second_order.not_computed_reason);
  } else {
    report.Row("  Smallest eigenvalue",
               FormatNumber(second_order.min_eigenvalue) +
                   (second_order.lanczos ? " (Lanczos)" : " (dense)"));
    report.Row("  Curvature scale", FormatNumber(second_order.curvature_scale));
    report.Row("  Span analyzed (cone's span)",
               std::to_string(second_order.reduced_dimension) + " (" +
                   std::to_string(second_order.cone_span_dimension) + ")");
    report.Row("  Weakly active (held)",
               std::to_string(second_order.num_weakly_active) + " (" +
                   std::to_string(second_order.num_weakly_active_held) + ")");
    report.Row("  Hessian products",
               std::to_string(second_order.hessian_products));
    report.Row("  Saddle",
               second_order.saddle ? "yes"
               : second_order.negative_curvature_unconfirmed
                   ? "no (the negative curvature is not confirmed by a "
                     "step: within the noise of the Hessian products)"
                   : "no");
  }
  if (second_order.saddle_escapes > 0) {
    report.Row("  Restarts from saddles",
               std::to_string(second_order.saddle_escapes));
  }
  report.Section("Work");
  report.Row(outer_loop ? "  Iterations (outer)" : "  Iterations",
             std::to_string(iterations));
  if (outer_loop && inner_iterations >= 0) {
    report.Row("  Inner iterations", std::to_string(inner_iterations));
  }
  report.Evaluations(evaluations);
  report.TotalTime(total_time_in_seconds);
  report.Termination(termination_type, message);
  return report.str();
}

}  // namespace ecmo
