// ecmo_solve: solve a registered ECMO problem for one preference or a sweep
// of preferences, print the report, and write JSON / CSV.
//
//   ecmo_solve --list_problems
//   ecmo_solve --problem=gebken_circle --preference=0.3,0.7
//   ecmo_solve --problem=gebken_circle --sweep=11 --output=front.json
//              --csv=front.csv
//
// Exit status: 0 when every point's solution is usable (Ceres'
// IsSolutionUsable) and, with --reference=ipopt, agrees with the reference;
// 1 otherwise; 2 on bad command-line input.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "ecmo/cross_check.h"
#include "ecmo/problem.h"
#include "ecmo/problems/registry.h"
#include "ecmo/result_writer.h"
#include "ecmo/solver.h"
#include "gflags/gflags.h"
#include "glog/logging.h"

DEFINE_bool(list_problems, false, "List the built-in problems and exit.");
DEFINE_string(problem, "gebken_circle", "Name of a built-in problem.");
DEFINE_string(preference, "",
              "One preference, comma separated (e.g. 0.3,0.7). Overrides "
              "--sweep.");
DEFINE_int32(sweep, 11,
             "Number of evenly spaced preferences for S = 2: lambda_1 = "
             "i/(N+1), i = 1..N (strictly inside the simplex).");
DEFINE_string(strategy, "wc-penalty-pgd", "Solver strategy.");
DEFINE_int32(max_iterations, 10000, "Iteration budget T.");
DEFINE_double(kkt_tolerance, 0.0,
              "Stop when ||K||^2 <= this (0: run all T iterations).");
DEFINE_double(eta0, 0.01, "wc-penalty-pgd: eta = eta0 T^(-1/4).");
DEFINE_double(c0, 1.0, "wc-penalty-pgd: u = v = c0 T^(1/4).");
DEFINE_string(step_rule, "backtracking",
              "wc-penalty-pgd step rule: fixed or backtracking.");
DEFINE_string(objective_offset, "",
              "Comma-separated offsets added to the objectives (default: the "
              "problem's own).");
DEFINE_bool(automatic_objective_offset, false,
            "Pick offsets 1 + max(0, -f_s(z0)).");
DEFINE_bool(json, false, "Print the JSON result on stdout instead of the "
                         "report.");
DEFINE_string(output, "", "Write the JSON result to this file.");
DEFINE_string(csv, "", "Write one CSV row per point to this file.");
DEFINE_bool(progress, false, "Print solver progress.");
DEFINE_string(reference, "none",
              "Cross-check every point against a reference solver: none or "
              "ipopt (interior point on the same WC problem).");
DEFINE_double(reference_tolerance, 1e-8,
              "Ipopt reference: convergence tolerance.");

namespace {

bool ParseList(const std::string& text, std::vector<double>* values,
               std::string* error) {
  values->clear();
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || end == item.c_str() || *end != '\0') {
      *error = "'" + item + "' is not a number";
      return false;
    }
    values->push_back(v);
  }
  return true;
}

int Usage(const std::string& message) {
  std::cerr << "ecmo_solve: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Solve a built-in ECMO problem with a weighted-Chebyshev strategy.\n"
      "  ecmo_solve --problem=gebken_circle --sweep=11 --csv=front.csv");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  if (argc > 1) return Usage(std::string("unexpected argument '") + argv[1] +
                             "'; all options are --flags (see --help).");

  namespace ep = ecmo::problems;
  if (FLAGS_list_problems) {
    for (const ep::ProblemInfo& info : ep::AllProblems()) {
      std::cout << info.name << "  (S = " << info.num_objectives
                << ", k = " << info.num_parameters
                << ", q = " << info.num_constraints << ")\n    "
                << info.description << "\n";
    }
    return 0;
  }
  const ep::ProblemInfo* info = ep::Find(FLAGS_problem);
  if (info == nullptr) {
    return Usage("unknown problem '" + FLAGS_problem +
                 "'; valid names: " + ep::ProblemNames() + ".");
  }

  ecmo::Solver::Options options;
  if (!ecmo::StringToStrategyType(FLAGS_strategy, &options.strategy)) {
    std::string names;
    for (const std::string& n : ecmo::StrategyTypeNames()) {
      names += (names.empty() ? "" : ", ") + n;
    }
    return Usage("unknown strategy '" + FLAGS_strategy +
                 "'; valid strategies: " + names + ".");
  }
  if (!ecmo::StringToStepRule(FLAGS_step_rule, &options.pgd.step_rule)) {
    return Usage("unknown step rule '" + FLAGS_step_rule +
                 "'; valid: fixed, backtracking.");
  }
  options.max_iterations = FLAGS_max_iterations;
  options.kkt_tolerance = FLAGS_kkt_tolerance;
  options.pgd.eta0 = FLAGS_eta0;
  options.pgd.c0 = FLAGS_c0;
  options.minimizer_progress_to_stdout = FLAGS_progress && !FLAGS_json;
  options.record_history = false;
  options.automatic_objective_offset = FLAGS_automatic_objective_offset;
  options.objective_offset = info->objective_offset;
  std::string error;
  if (!FLAGS_objective_offset.empty() &&
      !ParseList(FLAGS_objective_offset, &options.objective_offset, &error)) {
    return Usage("--objective_offset: " + error + ".");
  }
  if (!options.IsValid(&error)) return Usage(error);
  if (FLAGS_reference != "none" && FLAGS_reference != "ipopt") {
    return Usage("unknown reference '" + FLAGS_reference +
                 "'; valid: none, ipopt.");
  }
  const bool cross_check = FLAGS_reference == "ipopt";
  ecmo::CrossCheckOptions check_options;
  check_options.solver = options;
  check_options.reference.tolerance = FLAGS_reference_tolerance;
  if (cross_check && !check_options.reference.IsValid(&error)) {
    return Usage(error);
  }

  const int S = info->num_objectives;
  std::vector<std::vector<double>> preferences;
  if (!FLAGS_preference.empty()) {
    std::vector<double> p;
    if (!ParseList(FLAGS_preference, &p, &error)) {
      return Usage("--preference: " + error + ".");
    }
    if (!ecmo::ValidatePreference(p, S, &error)) {
      return Usage("--preference: " + error);
    }
    preferences.push_back(p);
  } else {
    if (S != 2) {
      return Usage("--sweep needs a problem with 2 objectives; '" +
                   info->name + "' has " + std::to_string(S) +
                   ". Give --preference instead.");
    }
    if (FLAGS_sweep < 1) return Usage("--sweep must be >= 1.");
    for (int i = 1; i <= FLAGS_sweep; ++i) {
      const double l1 = static_cast<double>(i) / (FLAGS_sweep + 1);
      preferences.push_back({l1, 1.0 - l1});
    }
  }

  std::ofstream csv;
  if (!FLAGS_csv.empty()) {
    csv.open(FLAGS_csv);
    if (!csv) return Usage("cannot write --csv file '" + FLAGS_csv + "'.");
    csv << ecmo::CsvHeader(S, info->num_parameters) << "\n";
  }

  nlohmann::json points = nlohmann::json::array();
  bool all_usable = true;
  // Worst case over the sweep when cross-checking.
  int num_agree = 0;
  double worst_z = 0.0, worst_f = 0.0, worst_multiplier = 0.0;
  if (!FLAGS_json && preferences.size() > 1) {
    std::printf("%-24s %-26s %12s %12s %12s %8s %s%s\n", "lambda", "F(z)",
                "||h||", "||K||^2", "||K||^2 LS", "iters", "termination",
                cross_check ? "  |z-z_ref|  agree" : "");
  }
  for (const std::vector<double>& lambda : preferences) {
    auto instance = info->build();
    ecmo::Solver::Summary summary;
    ecmo::CrossCheckResult check;
    if (cross_check) {
      check = ecmo::CrossCheck(check_options, instance->problem, lambda);
      summary = check.solver;
      num_agree += check.agree ? 1 : 0;
      worst_z = std::max(worst_z, check.z_distance);
      worst_f = std::max(worst_f, check.objective_distance);
      worst_multiplier = std::max(worst_multiplier, check.multiplier_distance);
    } else {
      ecmo::Solve(options, instance->problem, lambda, &summary);
    }
    all_usable = all_usable && summary.IsSolutionUsable();
    nlohmann::json point = ecmo::SummaryToJson(summary, info->name);
    if (cross_check) point.update(ecmo::CrossCheckToJson(check));
    points.push_back(point);
    if (csv) csv << ecmo::CsvRow(summary, info->name) << "\n" << std::flush;
    if (FLAGS_json) continue;
    if (preferences.size() == 1) {
      std::cout << summary.FullReport();
      if (cross_check) std::cout << "\n" << check.Report() << "\n";
    } else {
      char lam[64], f[64];
      std::snprintf(lam, sizeof(lam), "(%.4f, %.4f)", lambda[0], lambda[1]);
      if (summary.objectives.size() == 2) {
        std::snprintf(f, sizeof(f), "(%.6f, %.6f)", summary.objectives[0],
                      summary.objectives[1]);
      } else {
        std::snprintf(f, sizeof(f), "-");
      }
      std::printf("%-24s %-26s %12.4e %12.4e %12.4e %8d %s", lam, f,
                  summary.constraint_norm,
                  summary.kkt.with_solver_multipliers.SquaredNorm(),
                  summary.kkt.with_least_squares_multipliers.SquaredNorm(),
                  summary.iterations,
                  ecmo::TerminationTypeName(summary.termination_type));
      if (cross_check) {
        std::printf("  %10.3e  %s", check.z_distance,
                    check.agree ? "yes" : "NO");
      }
      std::printf("\n");
      if (cross_check && !check.agree) {
        std::printf("    %s\n", check.verdict.c_str());
      }
      if (!summary.IsSolutionUsable()) {
        std::printf("    %s\n", summary.message.c_str());
      }
    }
  }

  nlohmann::json result;
  if (preferences.size() == 1) {
    result = points[0];
  } else {
    result = {{"problem", info->name},
              {"strategy", ecmo::StrategyTypeToString(options.strategy)},
              {"points", points}};
  }
  if (cross_check) {
    const int n = static_cast<int>(preferences.size());
    result["cross_check"] = {{"reference", "ipopt"},
                             {"points", n},
                             {"agree", num_agree},
                             {"worst_z_distance", worst_z},
                             {"worst_objective_distance", worst_f},
                             {"worst_multiplier_distance", worst_multiplier}};
    if (!FLAGS_json) {
      std::printf(
          "\nCross-check against Ipopt: %d of %d points agree; worst "
          "|z - z_ref| = %.3e, worst |F - F_ref| = %.3e, worst multiplier "
          "distance = %.3e\n",
          num_agree, n, worst_z, worst_f, worst_multiplier);
    }
  }
  if (FLAGS_json) std::cout << result.dump(2) << "\n";
  if (!FLAGS_output.empty()) {
    std::ofstream out(FLAGS_output);
    if (!out) return Usage("cannot write --output file '" + FLAGS_output + "'.");
    out << result.dump(2) << "\n";
  }
  if (!FLAGS_json) {
    if (!FLAGS_output.empty()) std::cout << "JSON written to " << FLAGS_output << "\n";
    if (!FLAGS_csv.empty()) std::cout << "CSV written to " << FLAGS_csv << "\n";
  }
  const bool all_agree =
      !cross_check || num_agree == static_cast<int>(preferences.size());
  return all_usable && all_agree ? 0 : 1;
}
