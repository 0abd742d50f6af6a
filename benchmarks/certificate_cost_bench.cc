// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// What the certificate's model test costs per certified point, per
// strategy, on real pose graphs (g2o files; data/posegraphs/).
//
// For each preference (t, 1 - t), t = i / (n - 1) with the ends moved to
// 1e-3 and 1 - 1e-3, one cold ecmo::Solve with default options and the
// given strategy on a CeresProblemAdapter over the graph. The adapter's
// evaluation counts give the number of certificate models the solve
// formed (EvaluationCounts::certificate_models, the final report's
// included); one model is then timed at the returned point (median of
// five; KktSystem::ModelDecrease with the point's least-squares
// multipliers). The table reports
//
//   model cost = models x (time of one model) / (time of the solve),
//
// the fraction of a point's time that the model test adds, measured in
// the same run as the solve it is compared with.
//
//   certificate_cost_bench [--g2o=FILE,...] [--strategies=wc-newton,...]
//                          [--num_points=11] [--smoke]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/kkt.h"
#include "ecmo/solver.h"
#include "ecmo/types.h"
#include "g2o_pose_graph.h"
#include "bench_util.h"
#include "median.h"

namespace {

using ecmo_bench::Clock;
using ecmo_bench::SecondsSince;
using ecmo_bench::SplitList;

struct Totals {
  double solve_seconds = 0.0;
  double model_seconds = 0.0;
  int points = 0;
  int certified = 0;
  long long models = 0;
};

// One row per point; false when a solve fails outright (FAILURE), which
// the smoke mode reports as an error.
bool RunGraph(const std::string& path,
              ecmo::StrategyType strategy,
              int num_points,
              Totals* totals) {
  std::string error;
  auto graph = ecmo_pipelines::G2oPoseGraph2d::Create(
      path, ecmo_pipelines::G2oPoseGraph2d::Options(), &error);
  if (graph == nullptr) {
    std::fprintf(stderr, "certificate_cost_bench: %s\n", error.c_str());
    return false;
  }
  bool ok = true;
  for (int i = 0; i < num_points; ++i) {
    double t = num_points == 1 ? 0.5 : static_cast<double>(i) / (num_points - 1);
    t = std::min(std::max(t, 1e-3), 1.0 - 1e-3);
    const std::vector<double> preference = {t, 1.0 - t};
    graph->ResetToStart();
    ecmo::CeresProblemAdapter adapter(
        &graph->problem, graph->ObjectiveGroups(), {});
    if (!adapter.IsValid(&error)) {
      std::fprintf(stderr, "certificate_cost_bench: %s\n", error.c_str());
      return false;
    }
    ecmo::Solver::Options options;
    options.strategy = strategy;
    Eigen::VectorXd z(adapter.NumParameters());
    adapter.GetParameters(z.data());
    const ecmo::EvaluationCounts before = adapter.counts();
    ecmo::Solver::Summary summary;
    const Clock::time_point start = Clock::now();
    ecmo::Solve(options, &adapter, preference, &z, &summary);
    const double solve_seconds = SecondsSince(start);
    const long long models =
        adapter.counts().certificate_models - before.certificate_models;
    if (summary.termination_type == ceres::FAILURE) ok = false;

    // One model at the returned point, timed.
    double model_seconds = 0.0;
    double decrease = NAN;
    if (summary.IsSolutionUsable()) {
      const ecmo::Scalarization& sc = summary.scalarization;
      Eigen::VectorXd lambda(2);
      for (int s = 0; s < 2; ++s) lambda[s] = preference[s] / sc.objective_scale[s];
      ecmo::KktSystem system;
      if (system.Linearize(&adapter, lambda, -sc.reference_point,
                           summary.final_rho, summary.z, &error) &&
          system.HasModel()) {
        const ecmo::KktMultipliers m = system.LeastSquaresMultipliers();
        std::vector<double> times;
        for (int r = 0; r < 5; ++r) {
          const Clock::time_point t0 = Clock::now();
          system.ModelDecrease(m, &decrease, &error);
          times.push_back(SecondsSince(t0));
        }
        model_seconds = ecmo_bench::Median(times);
      }
    }
    const bool certified = summary.IsCertified(options);
    const double fraction =
        solve_seconds > 0.0 ? models * model_seconds / solve_seconds : 0.0;
    std::printf("%-10s %-24s %6.4f %-15s %5s %8.4f %6lld %10.2e %8.2f%%\n",
                path.substr(path.find_last_of('/') + 1).c_str(),
                ecmo::StrategyTypeToString(summary.strategy),
                t,
                ecmo::TerminationTypeName(summary.termination_type),
                certified ? "yes" : "no",
                solve_seconds,
                models,
                model_seconds,
                100.0 * fraction);
    totals->solve_seconds += solve_seconds;
    totals->model_seconds += models * model_seconds;
    totals->points += 1;
    totals->certified += certified ? 1 : 0;
    totals->models += models;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string graphs = std::string(ECMO_SOURCE_DIR) +
                       "/data/posegraphs/ring.g2o," + ECMO_SOURCE_DIR +
                       "/data/posegraphs/mit.g2o";
  std::string strategies = "wc-newton,automatic";
  int num_points = 11;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* name, std::string* out) {
      const std::string prefix = std::string("--") + name + "=";
      if (arg.rfind(prefix, 0) != 0) return false;
      *out = arg.substr(prefix.size());
      return true;
    };
    std::string text;
    if (arg == "--smoke") {
      smoke = true;
    } else if (value("g2o", &text)) {
      graphs = text;
    } else if (value("strategies", &text)) {
      strategies = text;
    } else if (value("num_points", &text)) {
      num_points = std::atoi(text.c_str());
      if (num_points < 1) {
        std::fprintf(stderr, "--num_points must be >= 1, got '%s'.\n",
                     text.c_str());
        return 2;
      }
    } else {
      std::fprintf(stderr,
                   "Unknown argument '%s'. Usage: certificate_cost_bench "
                   "[--g2o=FILE,...] [--strategies=NAME,...] "
                   "[--num_points=11] [--smoke]\n",
                   arg.c_str());
      return 2;
    }
  }
  if (smoke) {
    graphs = std::string(ECMO_SOURCE_DIR) + "/data/posegraphs/ring.g2o";
    strategies = "wc-newton";
    num_points = 3;
  }
  std::printf("%-10s %-24s %6s %-15s %5s %8s %6s %10s %9s\n", "graph",
              "strategy", "t", "termination", "cert", "solve_s", "models",
              "model_s", "model%");
  bool ok = true;
  for (const std::string& name : SplitList(strategies)) {
    ecmo::StrategyType strategy;
    if (!ecmo::StringToStrategyType(name, &strategy)) {
      std::fprintf(stderr, "Unknown strategy '%s'.\n", name.c_str());
      return 2;
    }
    Totals totals;
    for (const std::string& path : SplitList(graphs)) {
      ok = RunGraph(path, strategy, num_points, &totals) && ok;
    }
    std::printf(
        "total %-22s points %d, certified %d, models %lld, model time %.3f s "
        "of %.3f s solving (%.2f%%)\n",
        name.c_str(), totals.points, totals.certified, totals.models,
        totals.model_seconds, totals.solve_seconds,
        totals.solve_seconds > 0.0
            ? 100.0 * totals.model_seconds / totals.solve_seconds
            : 0.0);
  }
  return ok ? 0 : 1;
}
