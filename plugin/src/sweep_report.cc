// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ParetoSweep::Summary reports.

#include <cstdio>
#include <sstream>

#include "ecmo/internal/report.h"
#include "ecmo/sweep.h"

namespace ecmo {

using internal::FormatNumber;
using internal::FormatVector;

bool ParetoSweep::Summary::AllPointsUsable() const {
  return num_points > 0 && num_not_solved == 0 && num_usable == num_points;
}

std::string ParetoSweep::Summary::BriefReport() const {
  std::ostringstream os;
  os.precision(6);
  os << "ecmo::Sweep Report: Points: " << num_points
     << ", Usable: " << num_usable
     << ", Hypervolume: " << (hypervolume_estimated ? "~" : "") << hypervolume
     << ", Worst ||K||^2: " << worst_kkt_residual_sq
     << ", Time: " << total_time_in_seconds
     << " s, Termination: " << TerminationTypeName(termination_type);
  return os.str();
}

std::string ParetoSweep::Summary::FullReport() const {
  internal::ReportWriter report("ecmo::Sweep Report");
  std::ostringstream& os = report.stream();
  char line[512];
  std::snprintf(line, sizeof(line), "%-40s %10s %10s\n", "", "Given", "Used");
  os << line;
  std::snprintf(line,
                sizeof(line),
                "%-40s %10d %10d\n",
                "Threads",
                num_threads_given,
                num_threads_used);
  os << line;
  if (!threads_message.empty()) os << "  (" << threads_message << ")\n";
  if (!objective_names.empty()) {
    std::string names;
    for (const std::string& name : objective_names) {
      names += (names.empty() ? "" : ", ") + name;
    }
    report.Row("Objectives", names);
  }
  report.Row("Warm start", warm_start ? "yes" : "no");
  {
    std::ostringstream v;
    v << preference_floor << " (" << changed_preferences.size()
      << " preference(s) raised)";
    report.Row("Preference floor", v.str());
  }
  os << "\n";
  report.Row("Points", std::to_string(num_points));
  report.Row("  solved", std::to_string(num_solved));
  report.Row("  resumed", std::to_string(num_resumed));
  report.Row("  not solved", std::to_string(num_not_solved));
  report.Row("  usable", std::to_string(num_usable));
  report.Row("  converged", std::to_string(num_converged));
  if (num_refined > 0)
    report.Row("  added by refinement", std::to_string(num_refined));
  if (!strategies_used.empty()) {
    report.Row("  solved by", strategies_used);
  }
  if (num_possibly_spurious_ends > 0) {
    report.Row("  possibly spurious ends",
               std::to_string(num_possibly_spurious_ends) +
                   " (an objective alone active above its minimum: a "
                   "stationary point of every WC problem; try "
                   "another --strategy or start)");
  }
  if (num_cold_checks > 0) {
    report.Row(
        "  compared with a cold solve",
        std::to_string(num_cold_checks) +
            " warm point(s) that may be "
            "KKT for other preferences too (SweepPoint::cold_check); the "
            "cold solve won at " +
            std::to_string(num_solved_cold));
  }
  if (num_cold_retries > 0) {
    report.Row("  retried cold",
               std::to_string(num_cold_retries) +
                   " warm point(s) that did not converge "
                   "(SweepPoint::cold_retry); the cold try was kept at " +
                   std::to_string(num_cold_retries_kept));
  }
  if (!resume_message.empty()) report.Row("Resume", resume_message);
  if (scalarization.reference_point.size() > 0) {
    report.Row("Reference point r",
               std::string(ReferencePointTypeToString(
                   scalarization.reference_point_type)) +
                   " " + FormatVector(scalarization.reference_point));
    report.Row(scalarization.normalized    ? "Objective scales (nadir - utopia)"
               : scalarization.scale_given ? "Objective scales (given)"
                                           : "Objective scales",
               FormatVector(scalarization.objective_scale));
    if (scalarization.num_single_objective_solves > 0) {
      report.Row("Single-objective solves (once)",
                 scalarization.DescribeSolves());
    }
    if (!scalarization.message.empty())
      report.Row("  note", scalarization.message);
  }
  report.Row("Gradient evaluations (solved)",
             std::to_string(gradient_evaluations));
  report.Row("Worst ||K||^2", FormatNumber(worst_kkt_residual_sq));
  report.Row("Worst ||K||^2 (least squares)",
             FormatNumber(worst_kkt_residual_sq_least_squares));
  report.Row("Hypervolume",
             hypervolume_estimated
                 ? FormatNumber(hypervolume) + " (Monte Carlo estimate, +- " +
                       FormatNumber(hypervolume_standard_error) + ")"
                 : FormatNumber(hypervolume));
  report.Row("  reference point", FormatVector(reference_point));
  report.Row("Ideal", FormatVector(ideal));
  report.Row("Nadir", FormatVector(nadir));
  {
    int certified = 0;
    for (int i : non_dominated) {
      if (i >= 0 && i < static_cast<int>(points.size()) &&
          points[i].summary.termination_type == ceres::CONVERGENCE) {
        ++certified;
      }
    }
    report.Row("Non-dominated points",
               std::to_string(non_dominated.size()) + " (" +
                   std::to_string(certified) + " certified)");
  }
  report.Row("Total time (s)", FormatNumber(total_time_in_seconds));

  const int rows_shown = 200;
  if (!points.empty()) {
    // One row per point with what a user needs to decide whether to keep
    // it: the verdict, who solved it, its cost and where its start came
    // from.
    os << "\n  index  preference                objectives"
          "                     ||K||^2  certified  iterations   time (s)"
          "  start      strategy\n";
    int shown = 0;
    for (const SweepPoint& p : points) {
      if (shown++ == rows_shown) {
        os << "  ... (" << points.size() - rows_shown << " more)\n";
        break;
      }
      if (p.status == SweepPoint::NOT_SOLVED) {
        std::snprintf(line,
                      sizeof(line),
                      "  %5d  %-25s (not solved)\n",
                      p.index,
                      FormatVector(p.preference, 6, 4).c_str());
        os << line;
        continue;
      }
      const ceres::TerminationType t = p.summary.termination_type;
      const char* certified = t == ceres::CONVERGENCE      ? "yes"
                              : t == ceres::NO_CONVERGENCE ? "no"
                              : t == ceres::FAILURE        ? "failed"
                                                           : "stopped";
      const std::string start =
          p.warm_start_from < 0 ? "cold"
                                : "warm " + std::to_string(p.warm_start_from);
      std::string strategy = StrategyTypeToString(p.summary.strategy);
      if (p.status == SweepPoint::RESUMED) strategy += " (resumed)";
      std::snprintf(line,
                    sizeof(line),
                    "  %5d  %-25s %-30s %10.3e  %-9s %11d %10.3g  %-9s  %s\n",
                    p.index,
                    FormatVector(p.preference, 6, 4).c_str(),
                    FormatVector(p.summary.objectives, 6, 4).c_str(),
                    p.summary.kkt.with_solver_multipliers.SquaredNorm(),
                    certified,
                    p.summary.iterations,
                    p.summary.total_time_in_seconds,
                    start.c_str(),
                    strategy.c_str());
      os << line;
    }
  }
  report.Termination(termination_type, message);
  return report.str();
}

}  // namespace ecmo
