// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "user_front.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "ecmo/ceres_problem_sweep.h"
#include "ecmo/indicators.h"
#include "ecmo/plot.h"
#include "ecmo/preference_grid.h"
#include "ecmo/result_writer.h"
#include "ecmo/sweep.h"
#include "nlohmann/json.hpp"
#include "pipeline_front.h"

namespace ecmo_pipelines {
namespace {

// The plain-Ceres weighted sum at one point's preference.
struct WeightedSum {
  Eigen::Vector2d f = Eigen::Vector2d::Constant(NAN);
  ceres::TerminationType termination = ceres::FAILURE;
  double seconds = 0.0;
};

// The largest gap between consecutive certified points of the normalized
// front (f - r) / w, sorted along f_1, over the mean gap; printed.
void PrintGaps(const ecmo::ParetoSweep::Summary& sweep) {
  const Eigen::Vector2d w = sweep.scalarization.objective_scale;
  std::vector<Eigen::Vector2d> normalized;
  for (const ecmo::SweepPoint& p : sweep.points) {
    if (p.summary.termination_type == ceres::CONVERGENCE &&
        p.summary.objectives.size() == 2) {
      normalized.push_back(
          (p.summary.objectives - sweep.scalarization.reference_point)
              .cwiseQuotient(w));
    }
  }
  std::sort(normalized.begin(), normalized.end(),
            [](const Eigen::Vector2d& a, const Eigen::Vector2d& b) {
              return a[0] < b[0];
            });
  double largest_gap = 0.0, sum_gaps = 0.0;
  for (size_t i = 1; i < normalized.size(); ++i) {
    const double gap = (normalized[i] - normalized[i - 1]).norm();
    largest_gap = std::max(largest_gap, gap);
    sum_gaps += gap;
  }
  if (normalized.size() > 1) {
    std::printf(
        "normalized front: largest gap %.4f, %.2fx the mean gap (%zu "
        "certified points)\n",
        largest_gap,
        largest_gap / (sum_gaps / (normalized.size() - 1)),
        normalized.size());
  }
}

// The sweep's JSON with the weighted sums added; false after printing why.
bool WriteJson(const UserFrontSettings& settings,
               const ecmo::ParetoSweep::Summary& sweep,
               const std::vector<WeightedSum>& sums) {
  const Eigen::Vector2d w = sweep.scalarization.objective_scale;
  nlohmann::json j = ecmo::SweepToJson(sweep, settings.problem_name);
  nlohmann::json plain = nlohmann::json::array();
  for (size_t i = 0; i < sums.size(); ++i) {
    const std::vector<double>& preference = sweep.points[i].preference;
    plain.push_back(
        {{"preference", preference},
         {"weights", {preference[0] / w[0], preference[1] / w[1]}},
         {"objectives", {sums[i].f[0], sums[i].f[1]}},
         {"termination", ecmo::TerminationTypeName(sums[i].termination)},
         {"wall_time_seconds", sums[i].seconds}});
  }
  j["weighted_sums"] = plain;
  std::string error;
  if (!ecmo::WriteFileAtomically(settings.output, j.dump(1) + "\n", &error)) {
    std::fprintf(stderr, "%s: --output: %s\n", settings.tool.c_str(),
                 error.c_str());
    return false;
  }
  return true;
}

}  // namespace

void TimedCeresSolve(const ceres::Solver::Options& options,
                     ceres::Problem* problem,
                     ceres::TerminationType* termination,
                     double* seconds) {
  ceres::Solver::Summary summary;
  const auto start = std::chrono::steady_clock::now();
  ceres::Solve(options, problem, &summary);
  if (seconds != nullptr) {
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             start)
                   .count();
  }
  if (termination != nullptr) *termination = summary.termination_type;
}

bool CheckOutputPaths(const UserFrontSettings& settings) {
  std::string error;
  for (const std::string& path :
       {settings.output, settings.csv, settings.plot}) {
    if (!path.empty() && !ecmo::CheckWritable(path, &error)) {
      std::fprintf(stderr, "%s: cannot write '%s': %s.\n",
                   settings.tool.c_str(), path.c_str(), error.c_str());
      return false;
    }
  }
  return true;
}

int TraceUserFront(const UserFrontSettings& settings,
                   ceres::Problem* problem,
                   const std::vector<ecmo::CeresProblemAdapter::ResidualGroup>&
                       groups,
                   const PlainSum& plain_sum) {
  const char* tool = settings.tool.c_str();
  // The library's default path: an adapter over the user's problem, its
  // objective groups, ecmo::Sweep with default options.
  ecmo::CeresProblemAdapter adapter(problem, groups, {});
  std::string error;
  if (groups.size() != 2 || !adapter.IsValid(&error)) {
    std::fprintf(stderr, "%s: %s\n", tool,
                 groups.size() != 2 ? "two objective groups are needed"
                                    : error.c_str());
    return 2;
  }
  ecmo::ParetoSweep::Options options;
  options.solver = settings.solver;
  options.warm_start = settings.warm_start;
  options.cold_checks = settings.cold_checks;
  options.problem_name = settings.problem_name;
  options.csv_path = settings.csv;
  options.refine_to = settings.refine_to < 0
                          ? ecmo::ParetoSweep::Options::kRefineWhereNeeded
                          : settings.refine_to;
  const std::vector<std::vector<double>> preferences =
      ecmo::EvenlySpaced2(settings.num_points, &error);
  if (preferences.empty()) {
    std::fprintf(stderr, "%s: --num_points: %s\n", tool, error.c_str());
    return 2;
  }
  ecmo::ParetoSweep::Summary sweep;
  ecmo::Sweep(options, &adapter, preferences, &sweep);
  std::printf("%s\n", sweep.FullReport().c_str());
  if (sweep.termination_type == ceres::FAILURE ||
      sweep.scalarization.objective_scale.size() != 2) {
    std::fprintf(stderr, "%s: %s\n", tool, sweep.message.c_str());
    return 1;
  }

  // Point by point: the weighted sum at the same preference, in the same
  // normalized units (weights lambda_s / w_s), from the file's start.
  const Eigen::Vector2d w = sweep.scalarization.objective_scale;
  const char* name_1 = groups[0].name.c_str();
  const char* name_2 = groups[1].name.c_str();
  std::vector<WeightedSum> sums;
  Eigen::MatrixXd wc(0, 2), ws(0, 2);
  int num_certified = 0, num_dominated = 0;
  double wc_seconds = 0.0, ws_seconds = 0.0;
  std::printf(
      "%-9s %14s %14s %-4s %9s | %14s %14s %9s  plain Ceres weighted sum\n",
      "lambda_1", name_1, name_2, "cert", "time[s]", name_1, name_2,
      "time[s]");
  for (const ecmo::SweepPoint& p : sweep.points) {
    const ecmo::Solver::Summary& s = p.summary;
    WeightedSum sum;
    sum.f = plain_sum(p.preference[0] / w[0], p.preference[1] / w[1],
                      &sum.termination, &sum.seconds);
    sums.push_back(sum);
    ws_seconds += sum.seconds;
    wc_seconds += s.total_time_in_seconds;
    const bool certified = s.termination_type == ceres::CONVERGENCE;
    num_certified += certified ? 1 : 0;
    Eigen::Vector2d f = Eigen::Vector2d::Constant(NAN);
    if (s.objectives.size() == 2) f = s.objectives;
    const bool dominated =
        f.allFinite() && sum.f.allFinite() && Dominates(sum.f, f, 1e-6);
    num_dominated += dominated ? 1 : 0;
    if (f.allFinite()) {
      wc.conservativeResize(wc.rows() + 1, 2);
      wc.row(wc.rows() - 1) = f.transpose();
    }
    if (sum.f.allFinite()) {
      ws.conservativeResize(ws.rows() + 1, 2);
      ws.row(ws.rows() - 1) = sum.f.transpose();
    }
    std::printf("%-9.4f %14.6e %14.6e %-4s %9.3f | %14.6e %14.6e %9.3f  %s%s\n",
                p.preference[0], f[0], f[1], certified ? "yes" : "no",
                s.total_time_in_seconds, sum.f[0], sum.f[1], sum.seconds,
                ecmo::TerminationTypeName(sum.termination),
                dominated ? "  DOMINATES the WC point" : "");
  }
  // Why a point is not certified: its own message names the failing block.
  for (const ecmo::SweepPoint& p : sweep.points) {
    if (p.summary.termination_type != ceres::CONVERGENCE) {
      std::printf("point %d (lambda_1 = %.4f) not certified: %s\n", p.index,
                  p.preference[0], p.summary.message.c_str());
    }
  }
  PrintGaps(sweep);
  Eigen::MatrixXd both(wc.rows() + ws.rows(), 2);
  both << wc, ws;
  const Eigen::VectorXd reference = ecmo::DefaultReferencePoint(both, 0.1);
  std::printf(
      "certified %d/%zu; WC points dominated by a weighted sum: %d; "
      "hypervolume at (%.6e, %.6e): WC %.6e, weighted sums %.6e; time: WC "
      "points %.3f s (+ scalarization %.3f s), weighted sums %.3f s\n",
      num_certified, sweep.points.size(), num_dominated, reference[0],
      reference[1], ecmo::Hypervolume(wc, reference),
      ecmo::Hypervolume(ws, reference), wc_seconds,
      sweep.scalarization.time_in_seconds, ws_seconds);

  const bool written = settings.output.empty() || WriteJson(settings, sweep, sums);
  if (!settings.plot.empty()) {
    ecmo::PlotOptions plot;
    plot.title = settings.problem_name;
    plot.objective_names = sweep.objective_names;
    plot.log_scale = settings.log_scale;
    const ecmo::PlotResult r = ecmo::PlotPointSets(
        plot,
        {{"WC points (ecmo::Sweep)", wc}, {"plain Ceres weighted sums", ws}},
        settings.plot);
    if (r.image_written) {
      std::printf("Plot written to %s\n", r.image_path.c_str());
    } else {
      std::fprintf(stderr, "%s: --plot: %s\n", tool, r.message.c_str());
    }
  }
  if (!written) return 1;
  return num_certified == static_cast<int>(sweep.points.size()) &&
                 num_dominated == 0
             ? 0
             : 1;
}

}  // namespace ecmo_pipelines
