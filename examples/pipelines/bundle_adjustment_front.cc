// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Bring your own ceres::Problem, example 4: the Pareto front of a bundle
// adjustment between the reprojection errors of two groups of cameras.
//
// With --bal=FILE: your own scene, the library's default path. The file
// (the BAL format of the public bundle-adjustment data sets: Snavely's
// 9-parameter cameras with radial distortion, read by bal_problem.h into
// an ordinary ceres::Problem) is handed to CeresProblemAdapter with two
// objective groups, "camera_group_a" (cameras with index < num_cameras /
// 2) and "camera_group_b" (the others), and ecmo::Sweep traces the front
// with default options (user_front.h: strategy automatic, the lexicographic
// payoff table, warm starts, cold checks, refinement where the normalized
// front has gaps). Point by point it prints the WC point next to ceres::Solve
// of the weighted sum (lambda_1 / w_1) f_a + (lambda_2 / w_2) f_b from the
// file's start (Levenberg-Marquardt, SPARSE_SCHUR), w the sweep's scales.
// --output, --csv and --plot write the sweep's JSON (weighted sums added),
// its CSV and a picture of both fronts. --huber=S puts a Huber loss on
// every observation. Exit 0 when every point is certified and no
// weighted-sum point dominates a WC point, 1 otherwise, 2 on bad input (an
// unreadable or malformed file: the message names the line).
//
//   bundle_adjustment_front --bal=scene.txt --plot=scene.png
//
// --write_bal=FILE writes the generated scene below (its start, with the
// same flags) as a BAL file and exits: a file to try --bal on, as far from
// its optimum as --start_noise makes it.
//
// Without --bal: the scene is generated (ecmo/problems/bundle_adjustment.h:
// cameras with angle-axis rotation, translation and focal length on a
// circle around a cloud of points, noisy observations, camera 0 and point
// 0 held constant to fix the gauge). Its ceres::Problem goes unchanged into
// CeresProblemAdapter with the same two groups, and the front is traced
// with ecmo::Solve point by point (pipeline_front.h, warm-started). Beside
// it runs the plain-Ceres weighted sum of the two groups
// (Levenberg-Marquardt, SPARSE_SCHUR, group weights via ceres::ScaledLoss,
// same start), point by point.
//
// It checks its own results (CTest runs it at a small size) and exits 1
// when a check fails: every WC point ends in CONVERGENCE with its KKT
// certificate, no point inside the front is dominated by a weighted-sum
// point (within a relative 1e-6; points at an end, where one group's
// Chebyshev term is inactive, are only weakly Pareto optimal: one group's
// cost does not depend on the other group's cameras; they are reported
// instead), and there are at least num_points - 1 distinct points.
//
// --start_noise=10 starts it as real bundle adjustment starts, at >= 1e4
// times the optimal cost; --huber=S puts a Huber loss on every observation.
//
//   bundle_adjustment_front [--num_cameras=6] [--num_scene_points=50]
//                           [--num_points=11] [--strategy=wc-newton]
//                           [--seed=1] [--warm_start=true]
//                           [--start_noise=1] [--huber=0]

#include <cstdio>
#include <memory>
#include <string>

#include "../tool_flags.h"
#include "bal_problem.h"
#include "ceres/solver.h"
#include "ecmo/problems/bundle_adjustment.h"
#include "ecmo/solver.h"
#include "gflags/gflags.h"
#include "pipeline_front.h"
#include "user_front.h"
#include "user_front_flags.h"

DEFINE_int32(num_cameras, 6, "Cameras (>= 4; the first half is group a).");
DEFINE_int32(num_scene_points, 50, "3D points of the scene (>= 2).");
DEFINE_int32(num_points, 11, "Points of the front (>= 2).");
DEFINE_string(strategy,
              "wc-newton",
              "ECMO strategy of the WC points (with --bal: automatic unless "
              "given).");
DEFINE_string(bal,
              "",
              "A BAL file: trace its front with ecmo::Sweep's defaults (see "
              "the top of the source).");
DEFINE_string(write_bal,
              "",
              "Write the generated scene's start as a BAL file and exit.");
DEFINE_int32(seed, 1, "Seed of the generated scene.");
DEFINE_bool(warm_start,
            true,
            "Start each point from the previous one (both fronts).");
DEFINE_double(start_noise,
              1.0,
              "Multiplies the start perturbation of every camera and point "
              "(rotation 0.01 rad, translation 0.05, focal 1%, points "
              "0.05): 10 gives a start whose cost is >= 1e4 times the "
              "optimum's, as real bundle adjustment starts are.");
DEFINE_double(huber,
              0.0,
              "> 0: a ceres::HuberLoss of this scale (pixels) on every "
              "observation; the objectives are then the robust costs.");
DEFINE_bool(progress, false, "Print every finished solve to stderr.");
DEFINE_bool(full_reports,
            false,
            "Print the full report of every WC point to stderr.");

namespace {

// --bal: the user's scene through the library's defaults (user_front.h).
int FrontOfBalFile() {
  ecmo_pipelines::UserFrontSettings settings =
      ecmo_pipelines::UserFrontSettingsFromFlags("bundle_adjustment_front",
                                                 FLAGS_bal,
                                                 FLAGS_num_points,
                                                 FLAGS_warm_start);
  // The library's default strategy unless the flag was given.
  if (!gflags::GetCommandLineFlagInfoOrDie("strategy").is_default &&
      !ecmo::StringToStrategyType(FLAGS_strategy, &settings.solver.strategy)) {
    std::fprintf(stderr,
                 "bundle_adjustment_front: unknown --strategy=%s.\n",
                 FLAGS_strategy.c_str());
    return 2;
  }
  if (!ecmo_pipelines::CheckOutputPaths(settings)) return 2;
  ecmo_pipelines::BalProblem::Options options;
  options.huber_scale = FLAGS_huber;
  std::string error;
  std::unique_ptr<ecmo_pipelines::BalProblem> bal =
      ecmo_pipelines::BalProblem::Create(FLAGS_bal, options, &error);
  if (bal == nullptr) {
    std::fprintf(stderr, "bundle_adjustment_front: %s\n", error.c_str());
    return 2;
  }
  const Eigen::Vector2d start_costs = bal->Costs();
  std::printf(
      "%s: %d cameras, %d points, %d observations, %d parameters; start: "
      "camera_group_a %.6e, camera_group_b %.6e%s\n",
      FLAGS_bal.c_str(),
      bal->num_cameras(),
      bal->num_points(),
      bal->num_observations(),
      bal->num_parameters(),
      start_costs[0],
      start_costs[1],
      FLAGS_huber > 0.0 ? " (Huber costs)" : "");
  const ecmo_pipelines::BalProblem& file = *bal;
  return ecmo_pipelines::TraceUserFront(
      settings,
      &bal->problem,
      bal->ObjectiveGroups(),
      [&file](double w_a,
              double w_b,
              ceres::TerminationType* termination,
              double* seconds) {
        return ecmo_pipelines::PlainWeightedSum(
            file, w_a, w_b, termination, seconds);
      });
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Pareto front (reprojection error of two camera groups) of a bundle "
      "adjustment, next to plain-Ceres weighted sums: your own BAL file "
      "(--bal) or a generated scene.");
  ecmo::tools::CheckFlagsOrExit(argc, argv);
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (!FLAGS_bal.empty()) return FrontOfBalFile();

  ecmo::problems::BundleAdjustment::Options scene;
  scene.num_cameras = FLAGS_num_cameras;
  scene.num_points = FLAGS_num_scene_points;
  scene.seed = static_cast<uint32_t>(FLAGS_seed);
  scene.start_rotation_noise *= FLAGS_start_noise;
  scene.start_translation_noise *= FLAGS_start_noise;
  scene.start_focal_noise *= FLAGS_start_noise;
  scene.start_point_noise *= FLAGS_start_noise;
  scene.huber_scale = FLAGS_huber;
  std::string error;
  if (!FLAGS_write_bal.empty()) {
    std::unique_ptr<ecmo::problems::BundleAdjustment> start =
        ecmo::problems::BundleAdjustment::Create(scene, &error);
    if (start == nullptr || !ecmo_pipelines::WriteBalFile(
                                FLAGS_write_bal,
                                ecmo_pipelines::BalDataFromScene(start.get()),
                                &error)) {
      std::fprintf(stderr, "bundle_adjustment_front: %s\n", error.c_str());
      return 2;
    }
    std::printf("wrote %s: %d cameras, %d points, start cost %.6e\n",
                FLAGS_write_bal.c_str(),
                start->num_cameras(),
                start->num_points(),
                start->Costs().sum());
    return 0;
  }
  {
    // The start's cost against the best a plain solve of the plain sum
    // reaches: how far from its front the problem starts.
    std::unique_ptr<ecmo::problems::BundleAdjustment> probe =
        ecmo::problems::BundleAdjustment::Create(scene, &error);
    if (probe == nullptr) {
      std::fprintf(stderr, "bundle_adjustment_front: %s\n", error.c_str());
      return 2;
    }
    const double start_cost = probe->Costs().sum();
    ceres::Solver::Options plain;
    plain.linear_solver_type = ceres::SPARSE_SCHUR;
    plain.max_num_iterations = 1000;
    ceres::Solver::Summary summary;
    ceres::Solve(plain, &probe->problem, &summary);
    std::printf(
        "start cost %.6e, plain ceres::Solve of the sum %.6e: the start is "
        "%.3g times the optimum%s\n",
        start_cost,
        probe->Costs().sum(),
        start_cost / probe->Costs().sum(),
        FLAGS_huber > 0.0 ? " (Huber costs)" : "");
  }

  ecmo_pipelines::FrontSettings settings;
  settings.num_points = FLAGS_num_points;
  settings.warm_start = FLAGS_warm_start;
  settings.progress = FLAGS_progress;
  settings.full_reports = FLAGS_full_reports;
  if (!ecmo::StringToStrategyType(FLAGS_strategy, &settings.solver.strategy)) {
    std::fprintf(stderr, "Unknown --strategy=%s.\n", FLAGS_strategy.c_str());
    return 1;
  }
  settings.ceres.linear_solver_type = ceres::SPARSE_SCHUR;
  settings.ceres.max_num_iterations = 1000;

  ecmo_pipelines::FrontResult result;
  if (!ecmo_pipelines::TraceFront<ecmo::problems::BundleAdjustment>(
          settings,
          scene,
          [](ecmo::problems::BundleAdjustment::Options* options,
             double w1,
             double w2) {
            options->group_a_weight = w1;
            options->group_b_weight = w2;
          },
          &result,
          &error)) {
    std::fprintf(stderr, "bundle_adjustment_front: %s\n", error.c_str());
    return 1;
  }
  std::printf(
      "bundle adjustment: %d cameras, %d points, %d parameters, strategy %s, "
      "%s\n",
      FLAGS_num_cameras,
      FLAGS_num_scene_points,
      result.num_parameters,
      FLAGS_strategy.c_str(),
      FLAGS_warm_start ? "warm-started sweep" : "cold points");
  ecmo_pipelines::PrintFront(result, "group_a", "group_b");

  return ecmo_pipelines::CheckFront(result, FLAGS_num_points) ? 0 : 1;
}
