// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Warm starts: what the sweep's cold checks catch and cost, and what a
// user's own loop of ecmo::Solve calls costs against a sweep. Plain
// Markdown tables on stdout (benchmarks/README.md, "Warm starts").
//
//   warm_start_bench [--problems=mtbl_logistic_reduced,gebken_circle,...]
//                    [--problem_size=0] [--grid=20] [--smoke]
//
// Table 1, per problem: the same preferences (S = 2: 15 evenly spaced; S
// = 3: das-dennis:4) swept three ways, one thread, no refinement: cold
// (every point from the problem's start), warm without the cold checks
// (ParetoSweep::Options::cold_checks = false, the behaviour before them)
// and warm with them (the default). Columns: certified points, points
// compared with a cold solve and points where the cold solve won, points
// whose WC value (for the sweep's scalarization, the same in all three) is
// above the cold sweep's at the same preference by more than 1e-6
// relative, the worst such excess, time and gradient evaluations.
//
// Table 2, for the reduced MTBL problems (x = softmax logits): each
// certified point's WC value against the best over an independent grid of
// source weights (a Das-Dennis grid with --grid divisions, 231 points at
// 20, a weight of 0 as a logit of -30; y = y*(x) by the evaluator's
// lower-level solve): points above the grid's best, the worst excess.
//
// Table 3, per problem: time per point of a loop of Solve calls, one per
// preference, each started from the last point (as a user writes it), with
// the scalarization reused (Solver::Options::reuse_scalarization, the
// default) and without, against the default sweep's time per point (its
// scalarization included in both).
//
// Table 4, with --digits_seeds=N: the reduced form of the digits data-
// weighting instance (ecmo/problems/digits.h; x = 3 source logits, S = 5)
// for N seeds from --digits_first_seed, with the instance's proximal term
// (1e-3) and without (the optimum then lies at infinite logits: a softmax
// weight saturates), over das-dennis:--digits_divisions preferences: the
// sweeps of table 1
// and a default warm sweep on two threads, each certified point's WC value
// against the grid of table 2, and the two-thread sweep against the
// one-thread sweep point by point (LargestDifferences).
//
// --smoke (CTest): gebken_circle and mtbl_logistic_reduced at n_y = 10,
// grid 4, and no loop without reuse; table 4 on one small digits instance
// (100 training, 200 validation images) at the equal preference, with the
// proximal term and r = 0; exits 1 when a default warm sweep keeps a point
// above the cold sweep or the grid by more than 1e-4.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench_util.h"
#include "ecmo/mtbl.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problems/digits.h"
#include "ecmo/problems/registry.h"
#include "ecmo/solver.h"
#include "ecmo/sweep.h"
#include "gflags/gflags.h"

DEFINE_string(problems,
              "mtbl_logistic_reduced,gebken_circle,sphere_octant,"
              "concave_quarter,mtbl_example_iii",
              "Registry problems to sweep.");
DEFINE_int32(problem_size, 0, "Size of the problem families (0: default).");
DEFINE_int32(grid, 20, "Divisions of table 2's grid of source weights.");
DEFINE_int32(digits_seeds,
             0,
             "Table 4: this many seeds of the digits data-weighting "
             "instance, from --digits_first_seed (0: no table 4).");
DEFINE_int32(digits_first_seed, 1, "Table 4's first seed.");
DEFINE_int32(digits_divisions,
             2,
             "Table 4's preferences: das-dennis with this many divisions "
             "over the 5 objectives (2: 15 preferences).");
DEFINE_bool(smoke, false, "Small run for CTest (see the top of the file).");

namespace {

using ecmo_bench::Clock;
using ecmo_bench::SecondsSince;

constexpr double kExcess = 1e-6;

bool g_failed = false;

struct Run {
  std::string name;
  ecmo::ParetoSweep::Summary summary;
  double seconds = 0.0;
};

std::vector<std::vector<double>> Preferences(int num_objectives) {
  if (num_objectives == 2) {
    std::vector<std::vector<double>> w;
    for (int i = 1; i <= 15; ++i) w.push_back({i / 16.0, 1.0 - i / 16.0});
    return w;
  }
  return ecmo::DasDennis(num_objectives, 4);
}

Run SweepOnce(const std::string& problem,
              const ecmo::EvaluatorFactory& factory,
              const std::vector<std::vector<double>>& preferences,
              const std::string& name,
              bool warm,
              bool cold_checks,
              int num_threads = 1,
              const std::vector<double>& reference_point = {}) {
  ecmo::ParetoSweep::Options options;
  // Empty: the sweep's utopia point and normalization (S single-objective
  // solves first); given: that point and unit scales, no solves.
  options.solver.reference_point = reference_point;
  options.normalize_objectives = reference_point.empty();
  options.solver.record_history = false;
  options.problem_name = problem;
  options.refine_to = 0;
  options.warm_start = warm;
  options.cold_checks = cold_checks;
  options.num_threads = num_threads;
  Run run;
  run.name = name;
  const Clock::time_point start = Clock::now();
  ecmo::Sweep(options, factory, preferences, &run.summary);
  run.seconds = SecondsSince(start);
  if (run.summary.num_usable != run.summary.num_points) {
    std::fprintf(stderr,
                 "%s %s: %s\n",
                 problem.c_str(),
                 name.c_str(),
                 run.summary.message.c_str());
    g_failed = true;
  }
  return run;
}

Run SweepOnce(const ecmo::problems::ProblemInfo& info,
              int size,
              const std::string& name,
              bool warm,
              bool cold_checks) {
  return SweepOnce(info.name,
                   ecmo::problems::MakeEvaluatorFactory(info, size),
                   Preferences(info.num_objectives),
                   name,
                   warm,
                   cold_checks);
}

// Table 4's instance: the reduced form of digits_data_weighting (seed,
// proximal weight), as the registry's digits_data_weighting_reduced wraps
// its default instance.
ecmo::EvaluatorFactory DigitsFactory(uint64_t seed,
                                     double proximal,
                                     bool small) {
  return [=](std::string* error) -> std::unique_ptr<ecmo::EvaluatorInstance> {
    ecmo::problems::DigitsDataWeightingOptions options;
    options.seed = seed;
    options.proximal = proximal;
    if (small) {
      options.train_images = 100;
      options.validation_images = 200;
    }
    std::shared_ptr<ecmo::problems::DigitsInstance> built(
        ecmo::problems::BuildDigitsDataWeighting(options, error).release());
    if (built == nullptr) return nullptr;
    return ecmo::problems::ReducedEvaluatorInstance(std::move(built));
  };
}

// (points above `best` by more than kExcess relative, worst relative
// excess) over the certified points; best[i] is point i's benchmark value.
std::pair<int, double> Excess(const Run& run, const std::vector<double>& best) {
  int above = 0;
  double worst = 0.0;
  const ecmo::ParetoSweep::Summary& s = run.summary;
  for (size_t i = 0; i < s.points.size(); ++i) {
    const ecmo::SweepPoint& p = s.points[i];
    if (p.summary.termination_type != ceres::CONVERGENCE) continue;
    const double v =
        s.scalarization.WcValue(p.preference, p.summary.objectives);
    const double excess = (v - best[i]) / std::abs(best[i]);
    if (excess > kExcess) ++above;
    worst = std::max(worst, excess);
  }
  return {above, worst};
}

// Table 2's grid: the best WC value per point of `run` over softmax weights.
std::vector<double> GridBest(const std::string& problem,
                             const ecmo::EvaluatorFactory& factory,
                             const ecmo::ParetoSweep::Summary& run) {
  std::string error;
  std::unique_ptr<ecmo::EvaluatorInstance> instance = factory(&error);
  std::vector<double> best(run.points.size(),
                           std::numeric_limits<double>::infinity());
  if (instance == nullptr) {
    std::fprintf(stderr, "%s: %s\n", problem.c_str(), error.c_str());
    g_failed = true;
    return best;
  }
  ecmo::Evaluator* evaluator = instance->evaluator.get();
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  Eigen::VectorXd f(S), h(evaluator->NumConstraints());
  for (const std::vector<double>& p : ecmo::DasDennis(k, FLAGS_grid)) {
    Eigen::VectorXd x(k);
    for (int j = 0; j < k; ++j) x[j] = p[j] > 0.0 ? std::log(p[j]) : -30.0;
    if (!evaluator->Evaluate(x.data(), f.data(), h.data(), nullptr, &error)) {
      continue;
    }
    for (size_t i = 0; i < run.points.size(); ++i) {
      best[i] = std::min(
          best[i], run.scalarization.WcValue(run.points[i].preference, f));
    }
  }
  return best;
}

// Table 3: seconds per point of a loop of Solve calls on one evaluator.
double LoopPerPoint(const ecmo::problems::ProblemInfo& info,
                    int size,
                    const std::vector<ecmo::SweepPoint>& points,
                    bool reuse,
                    int* certified) {
  std::string error;
  std::unique_ptr<ecmo::EvaluatorInstance> instance =
      ecmo::problems::BuildEvaluator(info, size, &error);
  if (instance == nullptr) return std::nan("");
  ecmo::Solver::Options options;
  options.record_history = false;
  options.normalize_objectives = true;  // as the sweep
  options.reuse_scalarization = reuse;
  Eigen::VectorXd z = instance->start;
  *certified = 0;
  const Clock::time_point start = Clock::now();
  for (const ecmo::SweepPoint& p : points) {
    ecmo::Solver::Summary summary;
    ecmo::Solve(options, instance->evaluator.get(), p.preference, &z, &summary);
    if (summary.termination_type == ceres::CONVERGENCE) ++*certified;
    if (!summary.IsSolutionUsable()) z = instance->start;
  }
  return SecondsSince(start) / points.size();
}

// Two sweeps of the same preferences compared point by point: the largest
// relative objective difference over the points both certified, and the
// largest relative difference of the WC values (a's scalarization) over
// all points. A WC problem whose minimizer is not unique (weakly Pareto
// points) can differ in the first and not in the second.
std::pair<double, double> LargestDifferences(
    const ecmo::ParetoSweep::Summary& a, const ecmo::ParetoSweep::Summary& b) {
  const double inf = std::numeric_limits<double>::infinity();
  if (a.points.size() != b.points.size()) return {inf, inf};
  double objectives = 0.0, wc = 0.0;
  for (size_t i = 0; i < a.points.size(); ++i) {
    const ecmo::SweepPoint& pa = a.points[i];
    const ecmo::SweepPoint& pb = b.points[i];
    const Eigen::VectorXd& fa = pa.summary.objectives;
    const Eigen::VectorXd& fb = pb.summary.objectives;
    if (fa.size() != fb.size()) return {inf, inf};
    const double va = a.scalarization.WcValue(pa.preference, fa);
    const double vb = a.scalarization.WcValue(pb.preference, fb);
    wc = std::max(wc, std::abs(va - vb) / std::max(std::abs(va), 1e-12));
    if (pa.summary.termination_type != ceres::CONVERGENCE ||
        pb.summary.termination_type != ceres::CONVERGENCE) {
      continue;
    }
    for (int s = 0; s < fa.size(); ++s) {
      objectives =
          std::max(objectives,
                   std::abs(fa[s] - fb[s]) / std::max(std::abs(fa[s]), 1e-12));
    }
  }
  return {objectives, wc};
}

// Table 4's rows (see the top of the file).
std::string DigitsTable(int num_seeds, int divisions, bool smoke) {
  const int S = ecmo::problems::kDigitsNumTasks;
  // The smoke run: the equal preference alone, with the proximal term.
  const std::vector<std::vector<double>> preferences =
      smoke ? std::vector<std::vector<double>>{std::vector<double>(S, 1.0 / S)}
            : ecmo::DasDennis(S, divisions);
  const std::vector<double> proximal_weights =
      smoke ? std::vector<double>{1e-3} : std::vector<double>{1e-3, 0.0};
  std::string table;
  for (int seed = FLAGS_digits_first_seed;
       seed < FLAGS_digits_first_seed + num_seeds;
       ++seed) {
    for (double proximal : proximal_weights) {
      const ecmo::EvaluatorFactory factory =
          DigitsFactory(seed, proximal, smoke);
      const std::string name = "digits_data_weighting_reduced";
      // The smoke run takes r = 0, which needs no single-objective solves.
      const std::vector<double> r =
          smoke ? std::vector<double>(S, 0.0) : std::vector<double>();
      const Run runs[] = {
          SweepOnce(name, factory, preferences, "cold", false, true, 1, r),
          SweepOnce(name,
                    factory,
                    preferences,
                    "warm, no cold checks",
                    true,
                    false,
                    1,
                    r),
          SweepOnce(
              name, factory, preferences, "warm (default)", true, true, 1, r),
          SweepOnce(name,
                    factory,
                    preferences,
                    "warm (default), 2 threads",
                    true,
                    true,
                    2,
                    r)};
      for (const Run& run : runs) {
        const auto [above, worst] =
            Excess(run, GridBest(name, factory, run.summary));
        const bool threads = &run == &runs[3];
        char difference[64] = "";
        if (threads) {
          const auto [objectives, wc] =
              LargestDifferences(runs[2].summary, run.summary);
          std::snprintf(
              difference, sizeof(difference), "%.1e / %.1e", objectives, wc);
        }
        char row[320];
        std::snprintf(row,
                      sizeof(row),
                      "| %d | %g | %s | %d of %d | %d | %.2e | %.2f | %s |\n",
                      seed,
                      proximal,
                      run.name.c_str(),
                      run.summary.num_converged,
                      run.summary.num_points,
                      above,
                      worst,
                      run.seconds,
                      difference);
        table += row;
        const bool default_sweep = &run == &runs[2] || threads;
        if (default_sweep && worst > 1e-4) {
          std::fprintf(stderr,
                       "digits seed %d, proximal %g, %s: a point is %.2e "
                       "above the grid\n",
                       seed,
                       proximal,
                       run.name.c_str(),
                       worst);
          if (FLAGS_smoke) g_failed = true;
        }
      }
    }
  }
  return table;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Warm starts in sweeps: cold checks, and Solve loops against sweeps.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  std::vector<std::string> names = ecmo_bench::SplitList(FLAGS_problems);
  int size = FLAGS_problem_size;
  if (FLAGS_smoke) {
    names = {"gebken_circle", "mtbl_logistic_reduced"};
    size = 10;
    FLAGS_grid = 4;
    FLAGS_digits_seeds = 1;
    FLAGS_digits_divisions = 1;
  }
  std::printf(
      "Table 1: cold checks (one thread, no refinement; WC values against "
      "the cold sweep's at the same preference)\n\n"
      "| problem | sweep | points | certified | cold checks | cold won | "
      "above cold | worst excess | time (s) | gradient evaluations |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::string grid_table, loop_table;
  for (const std::string& name : names) {
    const ecmo::problems::ProblemInfo* info = ecmo::problems::Find(name);
    if (info == nullptr) {
      std::fprintf(stderr, "unknown problem %s\n", name.c_str());
      return 2;
    }
    const int problem_size = info->default_problem_size > 0 ? size : 0;
    const Run runs[] = {
        SweepOnce(*info, problem_size, "cold", false, true),
        SweepOnce(*info, problem_size, "warm, no cold checks", true, false),
        SweepOnce(*info, problem_size, "warm (default)", true, true)};
    std::vector<double> cold_values;
    for (const ecmo::SweepPoint& p : runs[0].summary.points) {
      cold_values.push_back(runs[0].summary.scalarization.WcValue(
          p.preference, p.summary.objectives));
    }
    for (const Run& run : runs) {
      const ecmo::ParetoSweep::Summary& s = run.summary;
      const auto [above, worst] = Excess(run, cold_values);
      std::printf("| %s | %s | %d | %d | %d | %d | %d | %.2e | %.2f | %lld |\n",
                  name.c_str(),
                  run.name.c_str(),
                  s.num_points,
                  s.num_converged,
                  s.num_cold_checks,
                  s.num_solved_cold,
                  above,
                  worst,
                  run.seconds,
                  static_cast<long long>(s.gradient_evaluations));
      if (&run == &runs[2] && worst > 1e-4) {
        std::fprintf(stderr,
                     "%s: a default warm point is %.2e above cold\n",
                     name.c_str(),
                     worst);
        if (FLAGS_smoke) g_failed = true;
      }
    }
    if (name.find("reduced") != std::string::npos) {
      for (const Run& run : runs) {
        const auto [above, worst] = Excess(
            run,
            GridBest(info->name,
                     ecmo::problems::MakeEvaluatorFactory(*info, problem_size),
                     run.summary));
        char row[256];
        std::snprintf(row,
                      sizeof(row),
                      "| %s | %s | %d | %d | %.2e |\n",
                      name.c_str(),
                      run.name.c_str(),
                      run.summary.num_converged,
                      above,
                      worst);
        grid_table += row;
        if (&run == &runs[2] && worst > 1e-4 && FLAGS_smoke) g_failed = true;
      }
    }
    const double sweep = runs[2].seconds / runs[2].summary.num_points;
    int certified_reuse = 0, certified_fresh = 0;
    const double reuse = LoopPerPoint(
        *info, problem_size, runs[2].summary.points, true, &certified_reuse);
    const double fresh = FLAGS_smoke ? std::nan("")
                                     : LoopPerPoint(*info,
                                                    problem_size,
                                                    runs[2].summary.points,
                                                    false,
                                                    &certified_fresh);
    char row[256];
    std::snprintf(row,
                  sizeof(row),
                  "| %s | %.4f | %.4f (%d certified) | %.2f | %.4f (%d "
                  "certified) | %.2f |\n",
                  name.c_str(),
                  sweep,
                  reuse,
                  certified_reuse,
                  reuse / sweep,
                  fresh,
                  certified_fresh,
                  fresh / sweep);
    loop_table += row;
  }
  if (!grid_table.empty()) {
    std::printf(
        "\nTable 2: certified points against an independent grid of source "
        "weights (das-dennis:%d)\n\n"
        "| problem | sweep | certified | above the grid's best | worst "
        "excess |\n|---|---|---:|---:|---:|\n%s",
        FLAGS_grid,
        grid_table.c_str());
  }
  std::printf(
      "\nTable 3: a loop of Solve calls (each from the last point) against "
      "the default sweep, seconds per point\n\n"
      "| problem | sweep | loop, scalarization reused | ratio | loop, "
      "computed per call | ratio |\n|---|---:|---:|---:|---:|---:|\n%s",
      loop_table.c_str());
  if (FLAGS_digits_seeds > 0) {
    std::printf(
        "\nTable 4: digits_data_weighting, reduced form, das-dennis:%d "
        "(certified points against the grid of source weights, "
        "das-dennis:%d; the 2-thread sweep against the 1-thread default, "
        "point by point)\n\n"
        "| seed | proximal | sweep | certified | above the grid's best | "
        "worst excess | time (s) | largest difference from 1 thread: "
        "objectives (both certified) / WC value |\n"
        "|---:|---:|---|---:|---:|---:|---:|---:|\n%s",
        FLAGS_digits_divisions,
        FLAGS_grid,
        DigitsTable(FLAGS_digits_seeds, FLAGS_digits_divisions, FLAGS_smoke)
            .c_str());
  }
  return g_failed ? 1 : 0;
}
