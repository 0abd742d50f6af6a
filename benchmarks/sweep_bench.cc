// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Pareto sweeps (ecmo::Sweep): what warm starts save and what a second
// thread buys. Prints two Markdown tables (the ones in
// benchmarks/README.md).
//
//   build/benchmarks/sweep_bench [--points=101] [--repeats=3]
//                                [--tables=all|warm|threads|memory|scale]
//   build/benchmarks/sweep_bench --smoke   (CTest: 11 points, one repeat,
//       T = 2e3 in table 2, a short calibration loop; exits 1 unless every
//       point of every sweep is usable, the quasi-Newton sweeps converge
//       everywhere, and warm and cold sweeps find the same points)
//
// Every case sets its strategy, and every sweep the paper's scalarization,
// objective_offset = the registry's ProblemInfo::objective_offset (so the
// sweep's default normalization and utopia point do not apply).
//
// Table 1: a sweep of gebken_circle over `points` evenly spaced preferences
// (lambda_1 = 0, 1/(n-1), ..., 1; the corners are floored to 1e-4), warm
// versus cold starts, for the fastest strategy built (the quasi-Newton ones
// when present) and for the faithful strategy stopped at a KKT tolerance.
// Gradient evaluations are summed over the points; "max |z_warm - z_cold|"
// checks that both sweeps found the same points.
//
// Table 2: throughput of 1 versus 2 threads on sweeps whose points are not
// trivially cheap; best wall time of `repeats` runs.
//
// Table 3 (--tables=memory, or all): heap bytes a finished sweep keeps per
// point (glibc mallinfo2: bytes in use after the sweep, its Summary alive,
// minus before), on gebken_circle (k = 2, S = 2) with the library's default
// solver options (histories recorded, as ecmo_solve does) over
// --memory_points preferences, with and without
// ParetoSweep::Options::keep_history.
//
// Table 4 (--tables=scale, or all): the same sweeps' wall time on 1 and 2
// threads against the time their points' solves took: the share spent
// outside the solves (serial work, which must stay O(n log n) in the
// number of points).

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "calibration.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problems/registry.h"
#include "ecmo/sweep.h"
#include "gflags/gflags.h"

DEFINE_int32(points, 101, "Preferences per sweep.");
DEFINE_int32(repeats, 3, "Runs per timing (the best is reported).");
DEFINE_string(tables,
              "all",
              "Which tables: all, warm, threads, memory or scale.");
DEFINE_string(memory_points,
              "2000,10000,40000",
              "Tables 3 and 4: comma-separated sweep sizes.");
DEFINE_bool(smoke, false,
            "Smoke test for CTest: --points=11 --repeats=1, T = 2e3 in table "
            "2, a short calibration; exit 1 if a sweep has an unusable point, "
            "a quasi-Newton point does not converge, or warm and cold sweeps "
            "disagree.");

namespace {

int g_failures = 0;

void Check(bool ok, const std::string& label, const char* what) {
  if (ok || !FLAGS_smoke) return;
  std::fprintf(stderr, "sweep_bench: %s: %s\n", label.c_str(), what);
  ++g_failures;
}

struct Case {
  std::string label;
  std::string problem;
  ecmo::Solver::Options options;
};

ecmo::ParetoSweep::Summary RunSweep(const Case& c,
                                    const std::vector<std::vector<double>>& w,
                                    bool warm,
                                    int threads) {
  const ecmo::problems::ProblemInfo* info = ecmo::problems::Find(c.problem);
  ecmo::ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone, as in the recorded figures
  options.solver = c.options;
  options.solver.objective_offset = info->objective_offset;
  options.solver.record_history = false;
  options.warm_start = warm;
  options.num_threads = threads;
  options.problem_name = c.problem;
  ecmo::ParetoSweep::Summary summary;
  ecmo::Sweep(options, ecmo::MakeProblemFactory(info->build), w, &summary);
  return summary;
}

double MaxZDistance(const ecmo::ParetoSweep::Summary& a,
                    const ecmo::ParetoSweep::Summary& b) {
  double worst = 0.0;
  for (size_t i = 0; i < a.points.size(); ++i) {
    const Eigen::VectorXd& za = a.points[i].summary.z;
    const Eigen::VectorXd& zb = b.points[i].summary.z;
    if (za.size() != zb.size() || za.size() == 0) return -1.0;
    worst = std::max(worst, (za - zb).norm());
  }
  return worst;
}

// Heap bytes in use (glibc).
double HeapBytes() { return static_cast<double>(mallinfo2().uordblks); }

// --memory_points as numbers (200 in the smoke test).
std::vector<int> LargeSweepSizes() {
  std::vector<int> sizes;
  const std::string list =
      FLAGS_smoke ? std::string("200") : FLAGS_memory_points;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const int n = std::atoi(list.substr(start, comma - start).c_str());
    if (n >= 2) sizes.push_back(n);
    start = comma + 1;
  }
  return sizes;
}

// Table 4: what a large sweep of cheap points spends outside its points'
// solves (the walk, the nearest finished point of every point, warm-start
// set-up, bookkeeping and the summary), on 1 and 2 threads. The points'
// own time is the sum of their Summary::total_time_in_seconds; on 2
// threads it runs in parallel, the rest largely does not.
void ScaleTable() {
  struct Row {
    std::string problem;
    std::vector<std::vector<double>> preferences;
  };
  std::vector<Row> rows;
  for (int n : LargeSweepSizes()) {
    rows.push_back({"gebken_circle", ecmo::EvenlySpaced2(n)});
  }
  // S = 3: the walk through the simplex is a greedy nearest-neighbour path.
  rows.push_back(
      {"sphere_octant", ecmo::DasDennis(3, FLAGS_smoke ? 20 : 197)});
  std::printf(
      "\n| sweep, 1 and 2 threads | points | wall, 1 thread (s) | points' own "
      "solves (s) | share outside the solves | wall, 2 threads (s) | 2 "
      "threads / 1 | usable |\n"
      "|---|---|---|---|---|---|---|---|\n");
  for (const Row& row : rows) {
    const ecmo::problems::ProblemInfo* info = ecmo::problems::Find(row.problem);
    const int n = static_cast<int>(row.preferences.size());
    double wall[3] = {1e300, 1e300, 1e300};
    double own = 0.0;
    int usable = n;
    const int repeats = FLAGS_smoke ? 1 : std::min(FLAGS_repeats, 2);
    for (int r = 0; r < repeats; ++r) {
      for (int threads : {1, 2}) {
        ecmo::ParetoSweep::Options options;
        options.refine_to = 0;  // the grid alone, as in the recorded figures
        options.problem_name = row.problem;
        options.keep_history = false;
        options.num_threads = threads;
        ecmo::ParetoSweep::Summary summary;
        ecmo::Sweep(options,
                    ecmo::MakeProblemFactory(info->build),
                    row.preferences,
                    &summary);
        if (summary.total_time_in_seconds < wall[threads]) {
          wall[threads] = summary.total_time_in_seconds;
          if (threads == 1) {
            own = 0.0;
            for (const ecmo::SweepPoint& p : summary.points) {
              own += p.summary.total_time_in_seconds;
            }
          }
        }
        usable = std::min(usable, summary.num_usable);
      }
    }
    std::printf(
        "| %s (S = %d), default solver options | %d | %.3f | %.3f | %.0f%% | "
        "%.3f | %.2fx | %d |\n",
        row.problem.c_str(),
        info->num_objectives,
        n,
        wall[1],
        own,
        100.0 * std::max(0.0, 1.0 - own / wall[1]),
        wall[2],
        wall[1] / wall[2],
        usable);
    std::fflush(stdout);
    Check(usable == n, "scale table " + row.problem, "a point is not usable");
  }
}

// Table 3: heap bytes a finished sweep keeps per point.
void MemoryTable() {
  const std::vector<int> sizes = LargeSweepSizes();
  const ecmo::problems::ProblemInfo* info =
      ecmo::problems::Find("gebken_circle");
  std::printf(
      "\n| gebken_circle sweep, 1 thread | points | keep_history | heap kept "
      "per point (bytes) | history entries per point | time per point (ms) "
      "| usable |\n|---|---|---|---|---|---|---|\n");
  for (int pgd : {0, 1}) {
    for (int n : sizes) {
      // The faithful strategy (long histories, thinned to 150 entries as
      // ecmo_solve does) on the smallest size only: its points cost ms.
      if (pgd && n != sizes.front()) continue;
      std::string error;
      const std::vector<std::vector<double>> w = ecmo::EvenlySpaced2(n, &error);
      for (bool keep : {true, false}) {
        // Each row in its own child process: the heap of earlier rows (freed
        // but fragmented, thread-local workspaces) must not blur this one.
        std::fflush(stdout);
        const pid_t child = fork();
        if (child == 0) {
          ecmo::ParetoSweep::Options options;
          options.refine_to = 0;  // the grid alone, as in the recorded figures
          options.problem_name = "gebken_circle";
          options.keep_history = keep;
          if (pgd) {
            options.solver.strategy = ecmo::StrategyType::WC_PENALTY_PGD;
            options.solver.max_iterations = 2000;
            options.max_history_entries = 150;
          }
          const double before = HeapBytes();
          ecmo::ParetoSweep::Summary summary;
          ecmo::Sweep(
              options, ecmo::MakeProblemFactory(info->build), w, &summary);
          const double per_point = (HeapBytes() - before) / n;
          double entries = 0.0;
          for (const ecmo::SweepPoint& p : summary.points) {
            entries += static_cast<double>(p.summary.history.size()) / n;
          }
          std::printf("| %s | %d | %s | %.0f | %.1f | %.3f | %d |\n",
                      pgd ? "wc-penalty-pgd, T = 2000, max_history_entries = "
                            "150"
                          : "default solver options",
                      n,
                      keep ? "true" : "false",
                      per_point,
                      entries,
                      1e3 * summary.total_time_in_seconds / n,
                      summary.num_usable);
          std::fflush(stdout);
          const bool ok = summary.num_usable == n &&
                          (keep || (entries == 0.0 && per_point < 4096.0));
          std::_Exit(ok ? 0 : 1);
        }
        int status = 0;
        waitpid(child, &status, 0);
        Check(child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "memory table",
              "a point is not usable, or keep_history = false kept a history "
              "or more than 4 KB per point");
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (FLAGS_smoke) {
    FLAGS_points = 11;
    FLAGS_repeats = 1;
  }
  if (FLAGS_tables == "memory") {
    MemoryTable();
    return g_failures == 0 ? 0 : 1;
  }
  if (FLAGS_tables == "scale") {
    ScaleTable();
    return g_failures == 0 ? 0 : 1;
  }
  const int heavy_iterations = FLAGS_smoke ? 2000 : 20000;
  std::string error;
  const std::vector<std::vector<double>> w =
      ecmo::EvenlySpaced2(FLAGS_points, &error);
  if (w.empty()) {
    std::fprintf(stderr, "sweep_bench: %s\n", error.c_str());
    return 2;
  }

  // The fastest strategy available: the augmented Lagrangian when built.
  std::vector<Case> cases;
  for (const char* name : {"wc-augmented-lagrangian", "wc-penalty-lbfgs"}) {
    Case c;
    if (ecmo::StringToStrategyType(name, &c.options.strategy)) {
      c.label = std::string(name) + ", ||K||^2 <= 1e-12";
      c.problem = "gebken_circle";
      c.options.kkt_tolerance = 1e-12;
      cases.push_back(c);
    }
  }
  {
    Case c;
    c.label = "wc-penalty-pgd, T = 1e5, ||K||^2 <= 1e-2";
    c.problem = "gebken_circle";
    c.options.strategy = ecmo::StrategyType::WC_PENALTY_PGD;
    c.options.max_iterations = 100000;
    c.options.kkt_tolerance = 1e-2;
    cases.push_back(c);
  }

  if (FLAGS_tables == "threads") cases.clear();
  if (!cases.empty()) {
    std::printf(
        "| strategy | points | gradient evals, cold | gradient evals, warm | "
        "warm / cold | wall time cold (s) | wall time warm (s) | worst ||K||^2 "
        "warm | usable (cold, warm) | max abs(z_warm - z_cold) |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n");
  }
  for (const Case& c : cases) {
    const ecmo::ParetoSweep::Summary cold = RunSweep(c, w, false, 1);
    const ecmo::ParetoSweep::Summary warm = RunSweep(c, w, true, 1);
    std::printf(
        "| %s | %d | %lld | %lld | %.3f | %.3f | %.3f | %.2e | %d, %d "
        "| %.2e |\n",
        c.label.c_str(),
        FLAGS_points,
        static_cast<long long>(cold.gradient_evaluations),
        static_cast<long long>(warm.gradient_evaluations),
        static_cast<double>(warm.gradient_evaluations) /
            std::max<int64_t>(1, cold.gradient_evaluations),
        cold.total_time_in_seconds,
        warm.total_time_in_seconds,
        warm.worst_kkt_residual_sq,
        cold.num_usable,
        warm.num_usable,
        MaxZDistance(warm, cold));
    std::fflush(stdout);
    const bool quasi_newton =
        c.options.strategy != ecmo::StrategyType::WC_PENALTY_PGD;
    const double z_distance = MaxZDistance(warm, cold);
    Check(cold.num_usable == FLAGS_points && warm.num_usable == FLAGS_points,
          c.label, "a point is not usable");
    Check(!quasi_newton || (cold.num_converged == FLAGS_points &&
                            warm.num_converged == FLAGS_points),
          c.label, "a point did not converge");
    Check(z_distance >= 0.0 && z_distance <= (quasi_newton ? 1e-4 : 1e-1),
          c.label, "warm and cold sweeps found different points");
    Check(std::isfinite(warm.worst_kkt_residual_sq) &&
              warm.worst_kkt_residual_sq >= 0.0 &&
              warm.gradient_evaluations > 0 && cold.gradient_evaluations > 0,
          c.label, "no finite KKT score or no gradient evaluations");
  }

  // Throughput: points that cost milliseconds each.
  std::vector<Case> heavy;
  {
    Case c;
    const std::string t = FLAGS_smoke ? "2e3" : "2e4";
    c.label = "mtbl_example_iii, wc-penalty-pgd, T = " + t;
    c.problem = "mtbl_example_iii";
    c.options.strategy = ecmo::StrategyType::WC_PENALTY_PGD;
    c.options.max_iterations = heavy_iterations;
    heavy.push_back(c);
    c.label = "gebken_circle, wc-penalty-pgd, T = " + t;
    c.problem = "gebken_circle";
    heavy.push_back(c);
  }
  {
    Case c;
    if (ecmo::StringToStrategyType("wc-augmented-lagrangian",
                                   &c.options.strategy)) {
      c.label = "gebken_circle, wc-augmented-lagrangian (cheap points)";
      c.problem = "gebken_circle";
      c.options.kkt_tolerance = 1e-12;
      heavy.push_back(c);
    }
  }
  if (FLAGS_tables == "warm") return g_failures == 0 ? 0 : 1;
  std::printf(
      "\n| sweep (%d points, warm starts) | time per point, 1 thread (ms) | "
      "wall time, 1 thread (s) | wall time, 2 threads (s) | speed-up |\n"
      "|---|---|---|---|---|\n",
      FLAGS_points);
  for (const Case& c : heavy) {
    double best[3] = {1e300, 1e300, 1e300};
    for (int r = 0; r < FLAGS_repeats; ++r) {
      for (int threads : {1, 2}) {
        const ecmo::ParetoSweep::Summary s = RunSweep(c, w, true, threads);
        best[threads] = std::min(best[threads], s.total_time_in_seconds);
        Check(s.num_usable == FLAGS_points, c.label, "a point is not usable");
      }
    }
    std::printf("| %s | %.2f | %.3f | %.3f | %.2fx |\n",
                c.label.c_str(),
                1e3 * best[1] / FLAGS_points,
                best[1],
                best[2],
                best[1] / best[2]);
    std::fflush(stdout);
  }
  // Calibration: the same split of pure arithmetic (no ecmo code, no
  // memory traffic) over 1 and 2 std::threads shows how much parallelism
  // the machine offers right now; on a loaded machine both rows drop.
  const long work = FLAGS_smoke ? 20000000L : 200000000L;
  double best[3] = {0.0,
                    ecmo_bench::BusyLoopWallTime(1, FLAGS_repeats, work),
                    ecmo_bench::BusyLoopWallTime(2, FLAGS_repeats, work)};
  std::printf(
      "| calibration: busy loop, no ecmo code | - | %.3f | %.3f | "
      "%.2fx |\n",
      best[1],
      best[2],
      best[1] / best[2]);
  MemoryTable();
  ScaleTable();
  return g_failures == 0 ? 0 : 1;
}
