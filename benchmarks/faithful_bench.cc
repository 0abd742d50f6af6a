// The paper-faithful strategy (wc-penalty-pgd) on every registry problem at
// T = 1e3, 1e4, 1e5: average and last ||K||^2, gradient evaluations, wall
// time. Prints a Markdown table (the one in benchmarks/README.md).
//
//   build/benchmarks/faithful_bench [--preferences=3] [--max_t=100000]

#include <cstdio>
#include <vector>

#include "ecmo/problems/registry.h"
#include "ecmo/solver.h"
#include "gflags/gflags.h"

DEFINE_int32(preferences, 3,
             "Preferences per problem: lambda_1 = i/(n+1), i = 1..n.");
DEFINE_int32(max_t, 100000, "Largest T (T runs over 1e3, 1e4, ... up to it).");

int main(int argc, char** argv) {
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  std::printf(
      "| problem | lambda | T | step rule | avg ||K_t||^2 | last ||K||^2 | "
      "last ||K||^2 (LS) | gradient evals | wall time (s) |\n"
      "|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& info : ecmo::problems::AllProblems()) {
    if (info.num_objectives != 2) continue;  // the preferences are for S = 2
    for (int i = 1; i <= FLAGS_preferences; ++i) {
      const double l1 = static_cast<double>(i) / (FLAGS_preferences + 1);
      for (int T = 1000; T <= FLAGS_max_t; T *= 10) {
        auto instance = info.build();
        ecmo::Solver::Options options;
        options.max_iterations = T;
        options.record_history = false;
        options.objective_offset = info.objective_offset;
        ecmo::Solver::Summary summary;
        ecmo::Solve(options, instance->problem, {l1, 1.0 - l1}, &summary);
        std::printf("| %s | (%.2f, %.2f) | %d | %s | %.3e | %.3e | %.3e | %lld "
                    "| %.3f |\n",
                    info.name.c_str(), l1, 1.0 - l1, T,
                    ecmo::StepRuleToString(summary.step_rule),
                    summary.average_kkt_residual_sq,
                    summary.kkt.with_solver_multipliers.SquaredNorm(),
                    summary.kkt.with_least_squares_multipliers.SquaredNorm(),
                    static_cast<long long>(
                        summary.evaluations.gradient_evaluations),
                    summary.total_time_in_seconds);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
