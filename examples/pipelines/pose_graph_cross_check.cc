// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Check a Pareto point of an ordinary ceres::Problem against an
// interior-point solution (issue 19).
//
// The generated 2D pose graph (ecmo/problems/pose_graph.h) without its angle
// manifold (the residual wraps the angle, so the headings can live in R),
// as a CeresProblemAdapter with two objectives, odometry vs loop closures.
// For lambda_1 = 0.25, 0.5, 0.75:
//   1. plain ceres::Solve minimizes the weighted sum (lambda_s / w_s) f_s
//      (the usual pipeline, Levenberg-Marquardt);
//   2. from that solution, ecmo::Solve (CrossCheck::Options) runs wc-newton
//      and the Ipopt reference (ecmo/ipopt_reference.h; Gauss-Newton Hessian
//      chosen automatically for the adapter) on the same WC subproblem, and
//      compares the two points.
// Exits 1 unless, at every preference, both runs converge, both KKT
// certificates pass, CrossCheck agrees and the two rho agree to 1e-6
// relative. CTest runs it as example_pose_graph_cross_check.
//
//   pose_graph_cross_check [--num_poses=100] [--report]
//
// Scalarization: reference point 0 (both costs are sums of squares) and
// the same scale for both objectives, the loop-closure cost at the odometry
// guess (the odometry cost is ~0 there).

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "ceres/solver.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/cross_check.h"
#include "ecmo/problems/pose_graph.h"
#include "ecmo/solver.h"

namespace {

using ecmo::problems::PoseGraph2d;

std::unique_ptr<PoseGraph2d> MakeGraph(int num_poses,
                                       double w_odometry,
                                       double w_loop) {
  PoseGraph2d::Options options;
  options.num_poses = num_poses;
  options.angle_manifold = false;
  options.odometry_weight = w_odometry;
  options.loop_closure_weight = w_loop;
  std::string error;
  std::unique_ptr<PoseGraph2d> graph = PoseGraph2d::Create(options, &error);
  if (graph == nullptr) std::fprintf(stderr, "%s\n", error.c_str());
  return graph;
}

}  // namespace

int main(int argc, char** argv) {
  int num_poses = 100;
  bool report = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--num_poses=", 12) == 0) {
      num_poses = std::atoi(argv[i] + 12);
    } else if (std::strcmp(argv[i], "--report") == 0) {
      report = true;
    } else {
      std::fprintf(stderr,
                   "usage: pose_graph_cross_check [--num_poses=100] "
                   "[--report]\n");
      return 2;
    }
  }
  std::unique_ptr<PoseGraph2d> graph = MakeGraph(num_poses, 1.0, 1.0);
  if (graph == nullptr) return 1;
  ecmo::CeresProblemAdapter adapter(
      &graph->problem, graph->ObjectiveGroups(), {});
  std::string error;
  if (!adapter.IsValid(&error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const double scale = std::max(1.0, graph->Costs()[1]);
  std::printf("pose graph: %d poses, %d parameters; w = (%g, %g), r = 0\n\n",
              num_poses,
              adapter.NumParameters(),
              scale,
              scale);
  std::printf("%6s %12s %16s %16s %10s %6s %6s %8s %8s\n",
              "l1",
              "ceres f",
              "rho wc-newton",
              "rho Ipopt",
              "rel diff",
              "wc",
              "Ipopt",
              "Ipopt it",
              "agree");

  bool ok = true;
  for (double l1 : {0.25, 0.5, 0.75}) {
    // 1. The plain-Ceres weighted sum (group weights by ScaledLoss).
    std::unique_ptr<PoseGraph2d> weighted =
        MakeGraph(num_poses, l1 / scale, (1.0 - l1) / scale);
    ceres::Solver::Options ceres_options;
    ceres_options.linear_solver_type = ceres::SPARSE_NORMAL_CHOLESKY;
    ceres::Solver::Summary ceres_summary;
    ceres::Solve(ceres_options, &weighted->problem, &ceres_summary);
    graph->CopyParametersFrom(*weighted);

    // 2. wc-newton and the Ipopt reference from there.
    ecmo::CrossCheck::Options options;
    options.solver.strategy = ecmo::StrategyType::WC_NEWTON;
    options.solver.reference_point = {0.0, 0.0};
    options.solver.objective_scale = {scale, scale};
    options.solver.normalize_objectives = false;
    ecmo::CrossCheck::Summary summary;
    Eigen::VectorXd z = adapter.GetParameters();
    ecmo::Solve(options, &adapter, {l1, 1.0 - l1}, &z, &summary);
    if (report) std::printf("%s\n", summary.FullReport().c_str());

    const bool wc_certified = summary.solver.IsCertified(options.solver);
    const bool ipopt_certified =
        summary.reference.termination_type == ceres::CONVERGENCE &&
        summary.reference.certified;
    const double rel =
        std::abs(summary.solver.final_rho - summary.reference.final_rho) /
        std::abs(summary.reference.final_rho);
    std::printf("%6.2f %12.6g %16.10g %16.10g %10.2e %6s %6s %8d %8s\n",
                l1,
                ceres_summary.final_cost,
                summary.solver.final_rho,
                summary.reference.final_rho,
                rel,
                wc_certified ? "cert" : "NO",
                ipopt_certified ? "cert" : "NO",
                summary.reference.iterations,
                summary.agree ? "yes" : "NO");
    if (!(wc_certified && ipopt_certified && summary.agree && rel <= 1e-6)) {
      std::printf("  %s\n", summary.verdict.c_str());
      ok = false;
    }
  }
  std::printf("\n%s\n",
              ok ? "All points cross-checked."
                 : "FAILED: a point did not cross-check.");
  return ok ? 0 : 1;
}
