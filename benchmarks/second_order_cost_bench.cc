// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// What the second-order test (ecmo/second_order.h) adds to a certified
// point, per problem and strategy.
//
// For each problem (the registry's entries without a manifold, and a
// generated bundle-adjustment problem through CeresProblemAdapter) the
// scalarization is computed once (as a sweep does), then every preference
// (t, 1 - t, ...) is solved cold by ecmo::Solve with
// Solver::Options::second_order_check off and on, alternating, three
// times each (paired, same run). The table reports
//
//   test cost = sum of (median time on - median time off)
//               / sum of median times off
//
// over the points that the solve certified, the largest per-point ratio,
// the Hessian products the test used (the largest; capped by
// SecondOrderOptions::max_work_fraction), the smallest eigenvalue found
// over its scale, and the points where Solve met a saddle (restarted or
// reported it).
//
//   second_order_cost_bench [--problems=name,...] [--strategy=automatic]
//                           [--num_points=9] [--smoke]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/problems/bundle_adjustment.h"
#include "ecmo/problems/registry.h"
#include "ecmo/second_order.h"
#include "ecmo/solver.h"
#include "ecmo/sweep.h"
#include "ecmo/types.h"
#include "bench_util.h"
#include "median.h"

namespace {

using ecmo_bench::Clock;
using ecmo_bench::SecondsSince;
using ecmo_bench::SplitList;

struct Row {
  std::string problem;
  int k = 0;
  int points = 0;
  int certified = 0;
  int computed = 0;
  int saddles = 0;
  int products = 0;  // largest per test
  double smallest_ratio = 1e300;  // min eigenvalue / curvature scale
  double solve_seconds = 0.0;
  double test_seconds = 0.0;
  double worst_point = 0.0;
  std::string skipped;
};


// Solves every preference on `evaluator` from `start` and times the test
// at each certified point.
bool Measure(const std::string& name,
             ecmo::Evaluator* evaluator,
             const Eigen::VectorXd& start,
             ecmo::StrategyType strategy,
             int num_points,
             Row* row) {
  row->problem = name;
  row->k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  if (evaluator->manifold() != nullptr) {
    row->skipped = "manifold (the test does not run)";
    return true;
  }
  ecmo::Solver::Options options;
  options.strategy = strategy;
  options.second_order_check = false;
  if (S > 1) options.normalize_objectives = true;
  auto scalarization = std::make_shared<ecmo::Scalarization>();
  std::string error;
  if (!ecmo::ComputeScalarization(
          options, evaluator, start, scalarization.get(), &error)) {
    row->skipped = "scalarization: " + error;
    return true;
  }
  options.normalize_objectives = false;
  options.scalarization = scalarization;
  for (int i = 0; i < num_points; ++i) {
    std::vector<double> preference(S, 1.0 / S);
    if (S > 1) {
      const double t = (i + 1.0) / (num_points + 1.0);
      preference.assign(S, (1.0 - t) / (S - 1));
      preference[i % S] = t;
    } else if (i > 0) {
      break;
    }
    // Paired: the same solve with the test off and on, alternating, three
    // times each; the medians are compared.
    std::vector<double> off_times, on_times;
    ecmo::Solver::Summary off, on;
    for (int r = 0; r < 3; ++r) {
      for (const bool check : {false, true}) {
        options.second_order_check = check;
        Eigen::VectorXd z = start;
        ecmo::Solver::Summary& summary = check ? on : off;
        const Clock::time_point solve_start = Clock::now();
        ecmo::Solve(options, evaluator, preference, &z, &summary);
        (check ? on_times : off_times).push_back(SecondsSince(solve_start));
      }
    }
    ++row->points;
    if (off.termination_type != ceres::CONVERGENCE) continue;
    ++row->certified;
    const double off_seconds = ecmo_bench::Median(off_times);
    const double on_seconds = ecmo_bench::Median(on_times);
    row->solve_seconds += off_seconds;
    row->test_seconds += on_seconds - off_seconds;
    row->worst_point =
        std::max(row->worst_point, (on_seconds - off_seconds) / off_seconds);
    const ecmo::SecondOrderReport& report = on.second_order;
    if (report.saddle_escapes > 0 || report.saddle) ++row->saddles;
    if (!report.computed) continue;
    ++row->computed;
    row->products = std::max(row->products, report.hessian_products);
    if (report.curvature_scale > 0.0 && std::isfinite(report.min_eigenvalue)) {
      row->smallest_ratio = std::min(
          row->smallest_ratio, report.min_eigenvalue / report.curvature_scale);
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string problems_flag;
  std::string strategy_name = "automatic";
  int num_points = 9;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* prefix, std::string* out) {
      const size_t n = std::strlen(prefix);
      if (arg.compare(0, n, prefix) != 0) return false;
      *out = arg.substr(n);
      return true;
    };
    std::string text;
    if (value("--problems=", &problems_flag)) continue;
    if (value("--strategy=", &strategy_name)) continue;
    if (value("--num_points=", &text)) {
      num_points = std::atoi(text.c_str());
      continue;
    }
    if (arg == "--smoke") {
      smoke = true;
      continue;
    }
    std::fprintf(stderr,
                 "Unknown argument '%s'. Usage: second_order_cost_bench "
                 "[--problems=name,...] [--strategy=NAME] [--num_points=N] "
                 "[--smoke]\n",
                 arg.c_str());
    return 2;
  }
  ecmo::StrategyType strategy;
  if (!ecmo::StringToStrategyType(strategy_name, &strategy)) {
    std::fprintf(stderr, "Unknown --strategy '%s'.\n", strategy_name.c_str());
    return 2;
  }
  if (num_points < 1) {
    std::fprintf(stderr, "--num_points must be >= 1.\n");
    return 2;
  }
  std::vector<std::string> names = SplitList(problems_flag);
  if (smoke) {
    if (names.empty()) names = {"gebken_circle", "bnh", "bundle_adjustment"};
    num_points = std::min(num_points, 3);
  }
  if (names.empty()) {
    for (const ecmo::problems::ProblemInfo* info :
         ecmo::problems::AllEntries()) {
      // The meta-learning instance takes minutes per point.
      if (info->name == "digits_meta_learning") continue;
      names.push_back(info->name);
    }
    names.push_back("bundle_adjustment");
  }
  std::vector<Row> rows;
  for (const std::string& name : names) {
    Row row;
    std::string error;
    if (name == "bundle_adjustment") {
      std::unique_ptr<ecmo::problems::BundleAdjustment> ba =
          ecmo::problems::BundleAdjustment::Create(
              ecmo::problems::BundleAdjustment::Options(), &error);
      if (ba == nullptr) {
        std::fprintf(stderr, "bundle_adjustment: %s\n", error.c_str());
        return 1;
      }
      ecmo::CeresProblemAdapter adapter(&ba->problem, ba->ObjectiveGroups(), {});
      if (!adapter.IsValid(&error)) {
        std::fprintf(stderr, "bundle_adjustment: %s\n", error.c_str());
        return 1;
      }
      Eigen::VectorXd start(adapter.NumParameters());
      adapter.GetParameters(start.data());
      if (!Measure(name, &adapter, start, strategy, num_points, &row)) return 1;
    } else {
      const ecmo::problems::ProblemInfo* info = ecmo::problems::Find(name);
      if (info == nullptr) {
        std::fprintf(stderr,
                     "Unknown problem '%s' (ecmo_solve --list_problems "
                     "lists them; bundle_adjustment is the generated "
                     "pipeline problem).\n",
                     name.c_str());
        return 2;
      }
      std::unique_ptr<ecmo::EvaluatorInstance> instance =
          ecmo::problems::BuildEvaluator(*info, 0, &error);
      if (instance == nullptr) {
        row.problem = name;
        row.skipped = error;
      } else if (!Measure(name,
                          instance->evaluator.get(),
                          instance->start,
                          strategy,
                          num_points,
                          &row)) {
        return 1;
      }
    }
    rows.push_back(row);
  }
  std::printf(
      "second-order test cost, strategy %s, %d preferences per problem\n\n",
      strategy_name.c_str(),
      num_points);
  std::printf("%-30s %6s %9s %8s %7s %8s %13s %11s %11s\n",
              "problem",
              "k",
              "certified",
              "computed",
              "saddles",
              "products",
              "min eig/scale",
              "test/solve",
              "worst point");
  double all_solve = 0.0, all_test = 0.0;
  for (const Row& r : rows) {
    if (!r.skipped.empty()) {
      std::printf("%-30s skipped: %s\n", r.problem.c_str(), r.skipped.c_str());
      continue;
    }
    all_solve += r.solve_seconds;
    all_test += r.test_seconds;
    std::printf("%-30s %6d %5d/%-3d %8d %7d %8d %13.2e %10.2f%% %10.2f%%\n",
                r.problem.c_str(),
                r.k,
                r.certified,
                r.points,
                r.computed,
                r.saddles,
                r.products,
                r.computed > 0 ? r.smallest_ratio : 0.0,
                r.solve_seconds > 0.0 ? 100.0 * r.test_seconds / r.solve_seconds
                                      : 0.0,
                100.0 * r.worst_point);
  }
  std::printf("\nall problems: test %.4f s / solves %.4f s = %.2f%%\n",
              all_test,
              all_solve,
              all_solve > 0.0 ? 100.0 * all_test / all_solve : 0.0);
  return 0;
}
