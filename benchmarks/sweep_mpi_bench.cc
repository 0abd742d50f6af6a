// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Distributed sweeps (ecmo/sweep_mpi.h): 2 MPI ranks against 1 on a sweep
// of a digits instance, run by ecmo_solve under mpirun, in one run of this
// program; plus the bytes sent per point for that instance and a small
// problem; then the same for an MTBL study, ecmo_mtbl under mpirun
// (ecmo/distributed_tasks.h). Prints the Markdown tables of
// benchmarks/README.md.
//
//   build/benchmarks/sweep_mpi_bench [--problem=digits_data_weighting]
//       [--preferences=random:8:1] [--num_threads=1]
//       [--solve_flags="--objective_offset=0,0,0,0,0 --max_iterations=6
//                       --warm_start=false"]
//       [--mtbl_flags="--task=digits_data_weighting
//                       --method=wc-reduced,itd-ls --seeds=2"]
//   build/benchmarks/sweep_mpi_bench --smoke   (CTest: gebken_circle, 5
//       points, and ecmo_mtbl's smoke study of mtbl_logistic; exits 1
//       unless every run succeeds with every point)
//
// Runs, in this order: 1 rank, 2 ranks, 1 rank again (the calibration row:
// how much two identical runs differ on this machine). Each run is
// `mpirun -np N --oversubscribe ecmo_solve --problem=... --preferences=...
// --num_threads=T --output=...`; "sweep s" is the sweep's own wall time
// (rank 0's ecmo::Sweep, from the JSON), "mpirun s" the whole command
// (launch, data loading on every rank, report). Speed-ups are ratios of
// sweep times within this one run; "s per point" is the mean of the
// points' own solve times (on whichever rank solved them). SOLVE_FLAGS
// (--solve_flags) by default fix the scalarization (the registry's offset 0, so
// that no single-objective solves run on rank 0 before the points are handed
// out), cap each point at 6 outer iterations (a fixed budget per point: at the
// defaults the digits points take about 13 s each and do not converge
// either) and start every point cold, so that "max |dz|" (2 ranks against
// the first 1-rank run) must be 0.
//
// The study part runs `mpirun -np N --oversubscribe ecmo_mtbl MTBL_FLAGS
// --num_threads=T --output_dir=...` in the same order; "study s" is
// study.json's total_time_in_seconds (the runs, without loading), and the
// points of the 2-rank study must equal the first 1-rank study's (losses
// to the bit, wc-reduced's to 1e-6: its reduced form carries a warm start
// between the points a worker solves).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "command_runner.h"
#include "ecmo/internal/report.h"
#include "gflags/gflags.h"
#include "nlohmann/json.hpp"

DEFINE_bool(smoke, false, "Tiny CTest run (gebken_circle, 5 points).");
DEFINE_string(problem, "digits_data_weighting", "Registry problem to sweep.");
DEFINE_string(preferences,
              "random:8:1",
              "ecmo_solve --preferences of the sweep.");
DEFINE_string(solve_flags,
              "--objective_offset=0,0,0,0,0 --max_iterations=6 "
              "--warm_start=false",
              "Further ecmo_solve flags of every run.");
DEFINE_int32(num_threads, 1, "Threads per rank (ecmo_solve --num_threads).");
DEFINE_string(mtbl_flags,
              "--task=digits_data_weighting --method=wc-reduced,itd-ls "
              "--seeds=2",
              "ecmo_mtbl flags of the study part (empty: skip it).");
DEFINE_string(small_problem,
              "gebken_circle",
              "Small problem for the bytes-per-point row.");

namespace {

struct Run {
  int ranks = 0;
  bool ok = false;
  double command_seconds = -1.0;
  double sweep_seconds = -1.0;
  int points = 0;
  std::string distribution;  // ecmo_solve's "distributed over ..." line
  std::string output;
  std::map<int, std::vector<double>> z;  // by point index
  double point_seconds = 0.0;  // summed over the points (each one's Solve)
};

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Run RunSweep(int ranks,
             const std::string& problem,
             const std::string& grid,
             const std::string& flags) {
  Run run;
  run.ranks = ranks;
  const std::string output =
      "sweep_mpi_bench_" + std::to_string(ranks) + ".json";
  const std::string command =
      std::string(ECMO_MPIEXEC) + " -np " + std::to_string(ranks) +
      " --oversubscribe " + ECMO_SOLVE_PATH + " --problem=" + problem +
      " --preferences=" + grid +
      " --num_threads=" + std::to_string(FLAGS_num_threads) +
      " --output=" + output + " --progress_every_n_seconds=1e9 " + flags;
  ecmo::internal::WallTimer timer;
  const ecmo::testing::CommandResult result =
      ecmo::testing::RunCommand(command);
  run.command_seconds = timer.Seconds();
  run.output = result.output;
  const nlohmann::json j =
      nlohmann::json::parse(ReadText(output), nullptr, false);
  std::remove(output.c_str());
  // 0: every point certified; 3: usable, some not certified.
  run.ok = (result.exit_code == 0 || result.exit_code == 3) && j.is_object();
  if (!j.is_object()) return run;
  run.sweep_seconds = j.value("wall_time_seconds", -1.0);
  run.points = j.value("num_solved", 0);
  if (j.contains("points") && j["points"].is_array()) {
    for (const nlohmann::json& p : j["points"]) {
      run.z[p.value("index", -1)] = p.value("z", std::vector<double>());
      const auto t = p.find("wall_time_seconds");
      if (t != p.end() && t->is_number()) run.point_seconds += t->get<double>();
    }
  }
  const size_t at = result.output.find("distributed over ");
  if (at != std::string::npos) {
    const size_t end = result.output.find('\n', at);
    run.distribution = result.output.substr(at + 17, end - at - 17);
  }
  return run;
}

// One ecmo_mtbl study under mpirun: its time, points and losses.
struct Study {
  int ranks = 0;
  bool ok = false;
  double command_seconds = -1.0;
  double study_seconds = -1.0;
  int points = 0;
  std::vector<int> points_per_rank;
  std::string distribution;
  std::string output;
  std::vector<std::string> methods;
  std::vector<std::vector<double>> losses;  // in the study's order
};

Study RunStudy(int ranks, const std::string& flags) {
  Study study;
  study.ranks = ranks;
  const std::string dir = "sweep_mpi_bench_study_" + std::to_string(ranks);
  const std::string command =
      std::string(ECMO_MPIEXEC) + " -np " + std::to_string(ranks) +
      " --oversubscribe " + ECMO_MTBL_PATH + " " + flags +
      " --num_threads=" + std::to_string(FLAGS_num_threads) +
      " --output_dir=" + dir;
  ecmo::internal::WallTimer timer;
  const ecmo::testing::CommandResult result =
      ecmo::testing::RunCommand(command);
  study.command_seconds = timer.Seconds();
  study.output = result.output;
  const nlohmann::json j =
      nlohmann::json::parse(ReadText(dir + "/study.json"), nullptr, false);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  study.ok = result.exit_code == 0 && j.is_object();
  if (!j.is_object()) return study;
  study.study_seconds = j.value("total_time_in_seconds", -1.0);
  study.points_per_rank.assign(std::max(1, ranks), 0);
  if (j.contains("points") && j["points"].is_array()) {
    for (const nlohmann::json& p : j["points"]) {
      ++study.points;
      study.methods.push_back(p.value("method", std::string()));
      study.losses.push_back(p.value("losses", std::vector<double>()));
      const int rank = p.value("rank", 0);
      if (rank >= 0 && rank < ranks) ++study.points_per_rank[rank];
    }
  }
  const size_t at = result.output.find("distributed over ");
  if (at != std::string::npos) {
    const size_t end = result.output.find('\n', at);
    study.distribution = result.output.substr(at + 17, end - at - 17);
  }
  return study;
}

// The largest relative difference of the losses of two studies' points
// (INFINITY when they do not pair up); wc-reduced's points apart.
void CompareStudies(const Study& a,
                    const Study& b,
                    double* exact_methods,
                    double* reduced) {
  *exact_methods = 0.0;
  *reduced = 0.0;
  if (a.losses.size() != b.losses.size() || a.losses.empty()) {
    *exact_methods = *reduced = INFINITY;
    return;
  }
  for (size_t i = 0; i < a.losses.size(); ++i) {
    double& worst = a.methods[i] == "wc-reduced" ? *reduced : *exact_methods;
    if (a.losses[i].size() != b.losses[i].size()) {
      worst = INFINITY;
      continue;
    }
    for (size_t s = 0; s < a.losses[i].size(); ++s) {
      worst = std::max(worst,
                       std::abs(a.losses[i][s] - b.losses[i][s]) /
                           std::max(1e-300, std::abs(a.losses[i][s])));
    }
  }
}

void PrintStudyRow(const char* label, const Study& s) {
  std::string per_rank;
  for (size_t r = 0; r < s.points_per_rank.size(); ++r) {
    per_rank += (r ? ", " : "") + std::to_string(s.points_per_rank[r]);
  }
  std::printf("| %s | %d | %.2f | %.2f | %d | %s |\n",
              label,
              s.ranks,
              s.study_seconds,
              s.command_seconds,
              s.points,
              per_rank.c_str());
}

void PrintRow(const char* label, const Run& r) {
  std::printf("| %s | %d | %.2f | %.2f | %d | %.2f | %s |\n",
              label,
              r.ranks,
              r.sweep_seconds,
              r.command_seconds,
              r.points,
              r.points > 0 ? r.point_seconds / r.points : 0.0,
              r.distribution.empty() ? "(one rank)" : r.distribution.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  const std::string problem = FLAGS_smoke ? "gebken_circle" : FLAGS_problem;
  const std::string grid = FLAGS_smoke ? "das-dennis:4" : FLAGS_preferences;

  const std::string flags =
      FLAGS_smoke ? std::string("--warm_start=false") : FLAGS_solve_flags;
  const Run one = RunSweep(1, problem, grid, flags);
  const Run two = RunSweep(2, problem, grid, flags);
  const Run again = RunSweep(1, problem, grid, flags);
  std::printf("Sweep of %s, --preferences=%s %s, %d thread(s) per rank\n\n",
              problem.c_str(),
              grid.c_str(),
              flags.c_str(),
              FLAGS_num_threads);
  std::printf(
      "| run | ranks | sweep s | mpirun s | points | s per point | "
      "distribution |\n"
      "|---|---|---|---|---|---|---|\n");
  PrintRow("1 rank", one);
  PrintRow("2 ranks", two);
  PrintRow("1 rank again (calibration)", again);
  if (two.sweep_seconds > 0.0) {
    std::printf(
        "\nspeed-up of 2 ranks (sweep time): %.2fx against the first 1-rank "
        "run, %.2fx against the second; the two 1-rank runs differ by "
        "%.2fx\n",
        one.sweep_seconds / two.sweep_seconds,
        again.sweep_seconds / two.sweep_seconds,
        again.sweep_seconds / one.sweep_seconds);
  }

  // Cold starts: the 2-rank points must be the 1-rank points.
  double max_dz = one.z.empty() ? NAN : 0.0;
  for (const auto& [index, z] : one.z) {
    const auto it = two.z.find(index);
    if (it == two.z.end() || it->second.size() != z.size()) {
      max_dz = INFINITY;
      continue;
    }
    for (size_t i = 0; i < z.size(); ++i) {
      max_dz = std::max(max_dz, std::abs(z[i] - it->second[i]));
    }
  }
  std::printf("max |dz| between the 2-rank and the first 1-rank run: %g\n",
              max_dz);

  // Bytes per point of a small problem (its points are cheap, so this
  // measures only the messages).
  const Run small = RunSweep(2, FLAGS_small_problem, "das-dennis:10", "");
  std::printf("\nbytes per point, %s (2 ranks, das-dennis:10): %s\n",
              FLAGS_small_problem.c_str(),
              small.distribution.c_str());

  // The MTBL study: ecmo_mtbl's runs over the ranks.
  const std::string mtbl_flags =
      FLAGS_smoke ? std::string(
                        "--task=mtbl_logistic --smoke "
                        "--method=wc-penalty,wc-reduced,itd-ls,moml")
                  : FLAGS_mtbl_flags;
  bool ok = true;
  if (!mtbl_flags.empty()) {
    const Study s1 = RunStudy(1, mtbl_flags);
    const Study s2 = RunStudy(2, mtbl_flags);
    const Study s3 = RunStudy(1, mtbl_flags);
    std::printf("\nStudy: ecmo_mtbl %s, %d thread(s) per rank\n\n",
                mtbl_flags.c_str(),
                FLAGS_num_threads);
    std::printf(
        "| run | ranks | study s | mpirun s | points | points per rank |\n"
        "|---|---|---|---|---|---|\n");
    PrintStudyRow("1 rank", s1);
    PrintStudyRow("2 ranks", s2);
    PrintStudyRow("1 rank again (calibration)", s3);
    double exact = NAN, reduced = NAN;
    CompareStudies(s1, s2, &exact, &reduced);
    if (s2.study_seconds > 0.0) {
      std::printf(
          "\nspeed-up of 2 ranks (study time): %.2fx against the first "
          "1-rank run, %.2fx against the second; the two 1-rank runs "
          "differ by %.2fx\n",
          s1.study_seconds / s2.study_seconds,
          s3.study_seconds / s2.study_seconds,
          s3.study_seconds / s1.study_seconds);
    }
    std::printf(
        "largest relative loss difference, 2 ranks against the first 1-rank "
        "run: %g (wc-reduced: %g)\n%s\n",
        exact,
        reduced,
        s2.distribution.c_str());
    for (const Study* s : {&s1, &s2, &s3}) {
      if (!s->ok || s->points <= 0 || s->points != s1.points) {
        std::fprintf(stderr,
                     "sweep_mpi_bench: the %d-rank study failed or lost "
                     "points:\n%s\n",
                     s->ranks,
                     s->output.c_str());
        ok = false;
      }
    }
    if (!(exact == 0.0) || !(reduced <= 1e-6)) {
      std::fprintf(stderr,
                   "sweep_mpi_bench: the 2-rank study's points differ from "
                   "the 1-rank ones (%g, wc-reduced %g)\n",
                   exact,
                   reduced);
      ok = false;
    }
  }

  for (const Run* r : {&one, &two, &again, &small}) {
    if (!r->ok || r->points <= 0 || (r != &small && r->points != one.points)) {
      std::fprintf(stderr,
                   "sweep_mpi_bench: the %d-rank run failed or lost "
                   "points:\n%s\n",
                   r->ranks,
                   r->output.c_str());
      ok = false;
    }
  }
  if (flags.find("--warm_start=false") != std::string::npos &&
      !(max_dz == 0.0)) {
    std::fprintf(stderr,
                 "sweep_mpi_bench: with cold starts the 2-rank points differ "
                 "from the 1-rank ones (max |dz| = %g)\n",
                 max_dz);
    ok = false;
  }
  if (two.distribution.empty() || small.distribution.empty()) {
    std::fprintf(stderr,
                 "sweep_mpi_bench: a 2-rank run did not report its "
                 "distribution:\n%s\n",
                 two.output.c_str());
    ok = false;
  }
  return ok ? 0 : 1;
}
