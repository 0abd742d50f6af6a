// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// The front of a user's own two-objective ceres::Problem through the
// library's default path, shared by pose_graph_front --g2o and
// bundle_adjustment_front --bal:
//
//   * ecmo::CeresProblemAdapter over the problem and its two objective
//     groups, ecmo::Sweep with default options (strategy automatic, the
//     lexicographic payoff table's utopia point and scales, warm starts,
//     cold checks, refinement where the normalized front has its largest
//     gaps), on EvenlySpaced2(num_points);
//   * then, point by point, what a Ceres user would run instead: ceres::Solve
//     of the weighted sum (lambda_1 / w_1) f_1 + (lambda_2 / w_2) f_2 from
//     the file's start, w the sweep's objective scales (the caller's
//     PlainSum);
//
// and prints the sweep's report, one line per point (the WC point, its
// verdict and time, the weighted sum beside it, whether it dominates the
// WC point), the largest gap of the normalized front over the mean gap,
// and the hypervolume of both fronts at one reference point. --output,
// --csv and --plot of the tools write the sweep's JSON (with the weighted
// sums added), its CSV and a picture of both fronts.

#ifndef ECMO_EXAMPLES_PIPELINES_USER_FRONT_H_
#define ECMO_EXAMPLES_PIPELINES_USER_FRONT_H_

#include <functional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/problem.h"
#include "ceres/solver.h"
#include "ceres/types.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/solver.h"

namespace ecmo_pipelines {

struct UserFrontSettings {
  // The program's name, first in every message ("pose_graph_front").
  std::string tool;
  // The user's file, the sweep's problem name in the report and JSON.
  std::string problem_name;
  // Preferences of the even grid (>= 2).
  int num_points = 11;
  bool warm_start = true;
  bool cold_checks = true;
  // ParetoSweep::Options::refine_to; < 0: kRefineWhereNeeded, the
  // library's default.
  int refine_to = -1;
  // The sweep's JSON with the weighted sums added, its CSV, and a picture
  // of both fronts (FILE.png or FILE.svg); empty: not written.
  std::string output;
  std::string csv;
  std::string plot;
  // With plot: objective axes on a log scale.
  bool log_scale = true;
  // Options of every WC point.
  ecmo::Solver::Options solver;
};

// The plain-Ceres weighted sum w_1 f_1 + w_2 f_2 from the user's start:
// returns the unweighted objectives (NaN if it could not run), Ceres'
// termination and the seconds of ceres::Solve alone.
using PlainSum = std::function<Eigen::Vector2d(
    double w_1, double w_2, ceres::TerminationType*, double*)>;

// ceres::Solve(options, problem) with Ceres' termination in *termination
// and the seconds of the solve alone in *seconds (each may be null): the
// plain weighted sums of the tools.
void TimedCeresSolve(const ceres::Solver::Options& options,
                     ceres::Problem* problem,
                     ceres::TerminationType* termination,
                     double* seconds);

// False, after printing why to stderr, when one of the settings' output
// paths cannot be written: tools check before any work starts.
bool CheckOutputPaths(const UserFrontSettings& settings);

// Traces and compares the front (see the top of this file). `problem` and
// `groups` (two objective groups) are not owned and must outlive the call;
// the sweep moves the problem's parameters. Returns the tool's exit code:
// 0 when every point is certified and no weighted-sum point dominates a WC
// point (1e-6 relative), 1 otherwise or when an output cannot be written,
// 2 when the adapter refuses the problem.
int TraceUserFront(const UserFrontSettings& settings,
                   ceres::Problem* problem,
                   const std::vector<ecmo::CeresProblemAdapter::ResidualGroup>&
                       groups,
                   const PlainSum& plain_sum);

}  // namespace ecmo_pipelines

#endif  // ECMO_EXAMPLES_PIPELINES_USER_FRONT_H_
