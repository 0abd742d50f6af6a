// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "sweep_io.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <utility>

#include "ecmo/internal/report.h"
#include "ecmo/result_writer.h"
#include "ecmo/sweep.h"
#include "ecmo/types.h"
#include "ecmo/version.h"

namespace ecmo {
namespace internal {
namespace {

// Preferences of a resumed line must match this sweep's within this.
constexpr double kResumeTolerance = 1e-12;

bool SameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::abs(a - b) <= kResumeTolerance;
}

// An integer in [lo, hi), or false.
bool IntegerIn(const nlohmann::json& value, int64_t lo, int64_t hi, int* out) {
  if (!value.is_number()) return false;
  const double x = value.get<double>();
  if (!(x >= static_cast<double>(lo) && x < static_cast<double>(hi)) ||
      x != std::floor(x)) {
    return false;
  }
  *out = static_cast<int>(x);
  return true;
}

// The checks of one parsed line; `where` is "PATH:LINE: ".
bool CheckLine(const nlohmann::json& j,
               const ResumeExpectation& expect,
               const std::string& where,
               ResumedLine* line,
               std::string* error) {
  const std::string advice =
      " The file is left untouched: give another JSON-lines file, or drop "
      "resume to overwrite it.";
  const int n_given = static_cast<int>(expect.preferences.size());
  const int n = n_given + std::max(0, expect.num_refinable);
  const auto fail = [&](const std::string& what) {
    *error = where + what + advice;
    return false;
  };
  if (!j.is_object()) {
    return fail("not a sweep point (a JSON " + std::string(j.type_name()) +
                ", not an object).");
  }
  const auto index_it = j.find("index");
  if (index_it == j.end()) return fail("not a sweep point (no \"index\").");
  if (!IntegerIn(*index_it, 0, n, &line->index)) {
    return fail("field \"index\" = " + JsonForMessage(*index_it) +
                " is not an integer in [0, " + std::to_string(n) +
                ") for this sweep of " + std::to_string(n_given) +
                " preferences" +
                (n > n_given ? " refined to " + std::to_string(n) + " points"
                             : std::string()) +
                "; the line belongs to another sweep.");
  }
  if (line->index >= n_given) {
    // Only the sweep's refinement writes indices past the preferences, and
    // it marks them (SweepPointToJson): a copied or edited line must not
    // pass for one because the refinement may reach that index.
    const auto refined_it = j.find("refined");
    if (refined_it == j.end() || *refined_it != true) {
      return fail("field \"index\" = " + JsonForMessage(*index_it) +
                  " is not an integer in [0, " + std::to_string(n_given) +
                  ") (the preferences), and the line is not a refined "
                  "point (no \"refined\": true); the line belongs to "
                  "another sweep.");
    }
  }
  const auto problem_it = j.find("problem");
  if (problem_it == j.end() || !problem_it->is_string()) {
    return fail("field \"problem\" is missing or not a string.");
  }
  if (problem_it->get<std::string>() != expect.problem_name) {
    return fail("field \"problem\": problem \"" +
                TextForMessage(problem_it->get<std::string>()) +
                "\" differs from this " + "sweep's \"" + expect.problem_name +
                "\"; the line belongs to another sweep.");
  }
  const auto settings_it = j.find("settings");
  if (settings_it == j.end() || !settings_it->is_object()) {
    return fail(
        "field \"settings\" is missing: the line does not say which "
        "options computed it (written by an older version?), so it cannot "
        "be trusted for this run.");
  }
  if (*settings_it != expect.settings) {
    return fail("field \"settings\": the point was computed with other "
                "options: " +
                DescribeSettingsDifference(*settings_it, expect.settings) +
                ". Rerun with the file's options, or start a new file.");
  }
  std::string summary_error;
  if (!SummaryFromJson(j, &line->summary, &summary_error)) {
    return fail("not a sweep point: " + summary_error + ".");
  }
  const Solver::Summary& s = line->summary;
  if (line->index >= n_given) {
    // A refined point: its preference was chosen by the sweep that wrote
    // it; it only has to be one.
    std::string preference_error;
    if (!ValidatePreference(s.preference, expect.num_objectives,
                            &preference_error)) {
      return fail("field \"preference\" of refined point " +
                  std::to_string(line->index) + ": " + preference_error);
    }
  }
  const std::vector<double>& wanted =
      line->index < n_given ? expect.preferences[line->index] : s.preference;
  bool same = s.preference.size() == wanted.size();
  for (size_t i = 0; same && i < wanted.size(); ++i) {
    same = SameDouble(s.preference[i], wanted[i]);
  }
  if (!same) {
    return fail("field \"preference\": point " + std::to_string(line->index) +
                " has preference " + FormatVector(s.preference, 0, 17) +
                " but this sweep's is " + FormatVector(wanted, 0, 17) +
                "; the line belongs to another sweep.");
  }
  const auto size_ok = [](Eigen::Index size, int expected) {
    return size == 0 || size == expected;
  };
  const auto size_fail = [&](const char* field, Eigen::Index size,
                             int expected, const char* what) {
    return fail("field \"" + std::string(field) + "\" has " +
                std::to_string(size) + " entries but the problem has " +
                std::to_string(expected) + " " + what + ".");
  };
  if (!size_ok(s.z.size(), expect.num_parameters)) {
    return size_fail("z", s.z.size(), expect.num_parameters, "parameters");
  }
  if (!size_ok(s.objectives.size(), expect.num_objectives)) {
    return size_fail(
        "objectives", s.objectives.size(), expect.num_objectives, "objectives");
  }
  if (!size_ok(s.kkt.solver_multipliers.omega.size(), expect.num_objectives)) {
    return size_fail("kkt.omega", s.kkt.solver_multipliers.omega.size(),
                     expect.num_objectives, "objectives");
  }
  if (!size_ok(s.kkt.solver_multipliers.nu.size(), expect.num_constraints)) {
    return size_fail("kkt.nu", s.kkt.solver_multipliers.nu.size(),
                     expect.num_constraints, "constraints");
  }
  if (!size_ok(s.kkt.least_squares_multipliers.omega.size(),
               expect.num_objectives)) {
    return size_fail("kkt.omega_least_squares",
                     s.kkt.least_squares_multipliers.omega.size(),
                     expect.num_objectives, "objectives");
  }
  if (!size_ok(s.kkt.least_squares_multipliers.nu.size(),
               expect.num_constraints)) {
    return size_fail("kkt.nu_least_squares",
                     s.kkt.least_squares_multipliers.nu.size(),
                     expect.num_constraints, "constraints");
  }
  if (s.IsSolutionUsable() && s.z.size() != expect.num_parameters) {
    return fail("field \"z\" is empty but the point is " +
                std::string(TerminationTypeName(s.termination_type)) +
                " (a usable point needs its z).");
  }
  for (const auto& [field, value] :
       {std::pair<const char*, int64_t>{"iterations", s.iterations},
        {"objective_evaluations", s.evaluations.value_evaluations},
        {"gradient_evaluations", s.evaluations.gradient_evaluations}}) {
    if (value < -1) {
      return fail("field \"" + std::string(field) + "\" = " +
                  std::to_string(value) + " is negative.");
    }
  }
  line->warm_start_from = -1;
  const auto warm_it = j.find("warm_start_from");
  if (warm_it != j.end() &&
      (!IntegerIn(*warm_it, -1, n, &line->warm_start_from) ||
       line->warm_start_from == line->index)) {
    return fail("field \"warm_start_from\" = " + JsonForMessage(*warm_it) +
                " is not -1 or another point's index in [0, " +
                std::to_string(n) + ").");
  }
  return true;
}

}  // namespace

std::string Errno(const std::string& path, const std::string& what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool ParseResumeText(const std::string& text,
                     const ResumeExpectation& expect,
                     ResumeContents* contents,
                     std::string* error) {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  if (contents == nullptr) {
    *error = "ParseResumeText: contents is null.";
    return false;
  }
  ResumeContents result;
  const int n = static_cast<int>(expect.preferences.size()) +
                std::max(0, expect.num_refinable);
  std::vector<char> seen(n, 0);
  size_t start = 0;
  int line_number = 0;
  while (start < text.size()) {
    ++line_number;
    const size_t newline = text.find('\n', start);
    const bool terminated = newline != std::string::npos;
    const size_t end = terminated ? newline : text.size();
    const size_t next = terminated ? newline + 1 : text.size();
    std::string line = text.substr(start, end - start);
    const std::string where =
        expect.path + ":" + std::to_string(line_number) + ": ";
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      if (terminated) result.valid_prefix_bytes = static_cast<int64_t>(next);
      start = next;
      continue;
    }
    nlohmann::json value;
    std::string parse_error;
    if (!ParseJsonBounded(line, JsonReadLimits(), &value, &parse_error)) {
      // The writer was killed in the middle of this line. Only after a
      // complete point: a file of one unterminated line that is not JSON
      // is someone else's file, not a sweep's.
      if (!terminated &&
          (!result.points.empty() || result.num_duplicates > 0)) {
        result.truncated_last_line = true;
        result.truncated_line_number = line_number;
        break;
      }
      *error = where + parse_error +
               ": this is not a JSON-lines file written by an ecmo sweep "
               "(only a last line cut short by a kill, after at least one "
               "complete point, is tolerated). The file is left untouched: "
               "give another JSON-lines file, or drop resume to overwrite "
               "it (if a kill cut the sweep's first line short, delete the "
               "file and rerun).";
      return false;
    }
    ResumedLine resumed;
    resumed.line_number = line_number;
    if (!CheckLine(value, expect, where, &resumed, error)) return false;
    if (seen[resumed.index]) {
      ++result.num_duplicates;
    } else {
      seen[resumed.index] = 1;
      resumed.json = std::move(value);
      resumed.text = std::move(line);
      result.points.push_back(std::move(resumed));
    }
    if (terminated) {
      result.valid_prefix_bytes = static_cast<int64_t>(next);
    } else {
      result.valid_prefix_bytes = static_cast<int64_t>(text.size());
      result.needs_newline = true;
    }
    start = next;
  }
  *contents = std::move(result);
  return true;
}

namespace {

// Replaces every NaN or infinite number in *j by null, as a dump does.
void NullNonFinite(nlohmann::json* j) {
  if (j->is_number_float()) {
    if (!std::isfinite(j->get<double>())) *j = nullptr;
  } else if (j->is_structured()) {
    for (nlohmann::json& child : *j) NullNonFinite(&child);
  }
}

}  // namespace

nlohmann::json SweepSettings(const Solver::Options& solver,
                             bool warm_start,
                             double preference_floor,
                             const nlohmann::json& extra) {
  const Solver::Options::QuasiNewtonOptions& qn = solver.quasi_newton;
  nlohmann::json settings = {
      {"strategy", StrategyTypeToString(solver.strategy)},
      {"max_iterations", solver.max_iterations},
      {"kkt_tolerance", solver.kkt_tolerance},
      {"objective_offset", solver.objective_offset},
      {"automatic_objective_offset", solver.automatic_objective_offset},
      {"reference_point", solver.reference_point},
      {"objective_scale", solver.objective_scale},
      {"normalize_objectives", solver.normalize_objectives},
      {"utopia_margin", solver.utopia_margin},
      {"stationarity_tolerance", solver.stationarity_tolerance},
      {"complementarity_tolerance", solver.complementarity_tolerance},
      {"feasibility_tolerance", solver.feasibility_tolerance},
      {"model_tolerance", solver.model_tolerance},
      {"stationarity_floor", solver.stationarity_floor},
      {"second_order_check", solver.second_order_check},
      {"max_saddle_escapes", solver.max_saddle_escapes},
      {"initial_rho", solver.initial_rho},
      {"pgd",
       {{"eta0", solver.pgd.eta0},
        {"c0", solver.pgd.c0},
        {"step_rule", StepRuleToString(solver.pgd.step_rule)},
        {"armijo", solver.pgd.armijo},
        {"max_backtracking_steps", solver.pgd.max_backtracking_steps}}},
      {"quasi_newton",
       {{"max_outer_iterations", qn.max_outer_iterations},
        {"initial_penalty", qn.initial_penalty},
        {"penalty_increase", qn.penalty_increase},
        {"max_penalty", qn.max_penalty},
        {"feasibility_decrease", qn.feasibility_decrease},
        {"inner_tolerance_factor", qn.inner_tolerance_factor},
        {"least_squares_certification_factor",
         qn.least_squares_certification_factor},
        {"inner_max_num_iterations", qn.inner.max_num_iterations},
        {"inner_max_lbfgs_rank", qn.inner.max_lbfgs_rank}}},
      // They change what a point records, not its solution, but the CLI
      // sets them: a resumed file keeps one kind of history throughout.
      // Each strategy's own options that change its points (another
      // Hessian or linear solver converges elsewhere on nonconvex
      // problems).
      {"newton",
       {{"hessian", NewtonHessianTypeToString(solver.newton.hessian)},
        {"linear_solver",
         NewtonLinearSolverTypeToString(solver.newton.linear_solver)},
        {"max_inner_iterations", solver.newton.max_inner_iterations}}},
      {"sqp",
       {{"hessian", SqpHessianTypeToString(solver.sqp.hessian)},
        {"max_parameters", solver.sqp.max_parameters},
        {"lbfgs_memory", solver.sqp.lbfgs_memory},
        {"second_order_correction", solver.sqp.second_order_correction}}},
      {"record_history", solver.record_history},
      {"history_stride", solver.history_stride},
      {"warm_start", warm_start},
      {"preference_floor", preference_floor},
  };
  // As read back from a file, so that a resume compares like with like: a
  // NaN or infinity is written as null. (A walk, not a dump and parse: the
  // round trip was a third of a small sweep's preparation.) The user's own
  // record may hold anything a dump changes (invalid UTF-8 too): it makes
  // the round trip.
  NullNonFinite(&settings);
  if (extra.is_object() && !extra.empty()) {
    settings["extra"] = nlohmann::json::parse(Dump(extra), nullptr, false);
  }
  return settings;
}

std::string DescribeSettingsDifference(const nlohmann::json& file,
                                       const nlohmann::json& run) {
  std::string text;
  const auto add = [&](const std::string& key,
                       const nlohmann::json* a,
                       const nlohmann::json* b) {
    text += (text.empty() ? "" : "; ") + TextForMessage(key) +
            " (file: " + (a ? JsonForMessage(*a) : std::string("missing")) +
            ", this run: " + (b ? JsonForMessage(*b) : std::string("missing")) +
            ")";
  };
  std::vector<std::string> keys;
  for (auto it = run.begin(); it != run.end(); ++it) keys.push_back(it.key());
  for (auto it = file.begin(); it != file.end(); ++it) {
    if (!run.contains(it.key())) keys.push_back(it.key());
  }
  for (const std::string& key : keys) {
    const auto a = file.find(key);
    const auto b = run.find(key);
    const nlohmann::json* pa = a != file.end() ? &*a : nullptr;
    const nlohmann::json* pb = b != run.end() ? &*b : nullptr;
    if (pa && pb && *pa == *pb) continue;
    if (pa && pb && pa->is_object() && pb->is_object()) {
      for (auto it = pb->begin(); it != pb->end(); ++it) {
        const auto c = pa->find(it.key());
        if (c == pa->end() || *c != it.value()) {
          add(key + "." + it.key(), c != pa->end() ? &*c : nullptr,
              &it.value());
        }
      }
      for (auto it = pa->begin(); it != pa->end(); ++it) {
        if (!pb->contains(it.key())) add(key + "." + it.key(), &it.value(),
                                         nullptr);
      }
      continue;
    }
    add(key, pa, pb);
  }
  return text.empty() ? "(no difference found)" : text;
}

void DropHistory(Solver::Summary* summary) {
  std::vector<IterationSummary>().swap(summary->history);
}

nlohmann::json ResumedExtra(const nlohmann::json& file,
                            const nlohmann::json& written,
                            bool keep_history) {
  nlohmann::json extra = nlohmann::json::object();
  if (!file.is_object()) return extra;
  for (auto it = file.begin(); it != file.end(); ++it) {
    const std::string& key = it.key();
    if (key == "settings" || (key == "history" && !keep_history)) continue;
    const auto same = written.find(key);
    if (key == "version" || same == written.end() || *same != it.value()) {
      extra[key] = it.value();
    }
  }
  return extra;
}

bool JsonFlag(const nlohmann::json& point, const char* key) {
  const auto it = point.find(key);
  return it != point.end() && it->is_boolean() && it->get<bool>();
}

std::string ColdCheck(const nlohmann::json& point) {
  const auto it = point.find("cold_check");
  return it != point.end() && it->is_string() ? it->get<std::string>()
                                              : std::string();
}

}  // namespace internal

namespace {

std::vector<double> ToStd(const Eigen::VectorXd& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}

}  // namespace

nlohmann::json SweepPointToJson(const SweepPoint& point,
                                const std::string& problem_name) {
  nlohmann::json j = SummaryToJson(point.summary, problem_name);
  j["index"] = point.index;
  j["preference"] = point.preference;
  j["preference_given"] = point.preference_given;
  j["warm_start_from"] = point.warm_start_from;
  if (point.rank >= 0) j["rank"] = point.rank;
  if (point.refined) j["refined"] = true;
  if (point.possibly_spurious_end) j["possibly_spurious_end"] = true;
  if (!point.cold_check.empty()) j["cold_check"] = point.cold_check;
  if (point.cold_retry) j["cold_retry"] = true;
  if (point.extra.is_object()) j.update(point.extra);
  return j;
}

std::string SweepCsvHeader(int num_objectives, int num_parameters) {
  return "index,warm_start_from," + CsvHeader(num_objectives, num_parameters);
}

std::string SweepCsvRow(const SweepPoint& point,
                        const std::string& problem_name) {
  return std::to_string(point.index) + "," +
         std::to_string(point.warm_start_from) + "," +
         CsvRow(point.summary, problem_name);
}

nlohmann::json SweepToJson(const ParetoSweep::Summary& summary,
                           const std::string& problem_name) {
  nlohmann::json points = nlohmann::json::array();
  StrategyType strategy = StrategyType::WC_PENALTY_PGD;
  bool have_strategy = false;
  for (const SweepPoint& p : summary.points) {
    if (p.status == SweepPoint::NOT_SOLVED) continue;
    if (!have_strategy) {
      strategy = p.summary.strategy;
      have_strategy = true;
    }
    points.push_back(SweepPointToJson(p, problem_name));
    if (!summary.settings.empty()) points.back()["settings"] = summary.settings;
  }
  nlohmann::json j = {
      {"version", VersionString()},
      {"problem", problem_name},
      {"objective_names", summary.objective_names},
      {"points", points},
      {"hypervolume", summary.hypervolume},
      {"hypervolume_estimated", summary.hypervolume_estimated},
      {"reference_point", ToStd(summary.reference_point)},
      {"ideal", ToStd(summary.ideal)},
      {"nadir", ToStd(summary.nadir)},
      {"non_dominated", summary.non_dominated},
      {"num_points", summary.num_points},
      {"num_solved", summary.num_solved},
      {"num_resumed", summary.num_resumed},
      {"num_refined", summary.num_refined},
      {"num_possibly_spurious_ends", summary.num_possibly_spurious_ends},
      {"strategies_used", summary.strategies_used},
      {"scalarization", ScalarizationToJson(summary.scalarization)},
      {"num_usable", summary.num_usable},
      {"gradient_evaluations", summary.gradient_evaluations},
      {"num_threads_given", summary.num_threads_given},
      {"num_threads_used", summary.num_threads_used},
      {"warm_start", summary.warm_start},
      {"preference_floor", summary.preference_floor},
      {"changed_preferences", summary.changed_preferences},
      {"worst_kkt_residual_sq", summary.worst_kkt_residual_sq},
      {"worst_kkt_residual_sq_least_squares",
       summary.worst_kkt_residual_sq_least_squares},
      {"termination", TerminationTypeName(summary.termination_type)},
      {"message", summary.message},
      {"wall_time_seconds", summary.total_time_in_seconds},
  };
  if (have_strategy) j["strategy"] = StrategyTypeToString(strategy);
  if (summary.num_ranks > 1) j["num_ranks"] = summary.num_ranks;
  return j;
}

}  // namespace ecmo
