// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The Ipopt reference at pipeline scale (issue 19): the generated 2D pose
// graph (ecmo/problems/pose_graph.h, seed 1) without the angle manifold, as
// a CeresProblemAdapter with objectives odometry vs loop closures. For each
// preference lambda_1 and start:
//   * start "ceres": plain ceres::Solve of the weighted sum
//     sum_s (lambda_s / w_s) f_s from the odometry guess
//     (Levenberg-Marquardt, SPARSE_NORMAL_CHOLESKY), then both solvers from
//     its solution; start "odometry": both from the odometry guess;
//   * ecmo::Solve with the Ipopt reference (Options::hessian as given):
//     Ipopt status, iterations, wall time, the process's peak memory
//     (ru_maxrss) right after it, rho, and whether its KKT certificate
//     passes;
//   * ecmo::Solve with wc-newton from the same start (unless --wc=0): its
//     rho and certificate; |rho - rho_ref| / |rho_ref| where both certify.
// The scalarization (reference point and scales) comes from the two ends of
// the front as plain Ceres finds them (weights (1, 1e-6) and (1e-6, 1)), as
// in pipeline_bench; it is shared by both solvers and not timed. Each
// (start, lambda_1) runs in its own forked process, so peaks are separate.
//
//   ipopt_scale_bench [--poses=3500] [--preferences=0.25,0.5,0.75]
//                     [--starts=ceres,odometry]
//                     [--hessian=automatic|exact|gauss_newton|limited_memory]
//                     [--max_seconds=600] [--max_iterations=3000] [--wc=1]
//                     [--report]   (the reference's FullReport to stderr)
//                     [--options_file=PATH]   (IpoptReference::Options::
//                                              options_file)
//                     [--print_level=N]       (Ipopt's log, to stdout)
//   ipopt_scale_bench --smoke   (CTest: 60 poses, lambda_1 = 0.5 from the
//                                weighted sum; exit 1 unless the reference
//                                converges, certifies and agrees with
//                                wc-newton's rho to 1e-6)

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "ceres/ceres.h"
#include "child_process.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/ipopt_reference.h"
#include "ecmo/problems/pose_graph.h"
#include "ecmo/solver.h"

namespace {

using Clock = std::chrono::steady_clock;
using ecmo::IpoptReference;
using ecmo::problems::PoseGraph2d;

struct Config {
  int poses = 3500;
  std::vector<double> preferences = {0.25, 0.5, 0.75};
  std::vector<std::string> starts = {"ceres", "odometry"};
  IpoptReference::HessianType hessian = IpoptReference::HessianType::AUTOMATIC;
  double max_seconds = 600.0;
  int max_iterations = 3000;
  bool wc = true;
  bool smoke = false;
  bool report = false;
  std::string options_file;
  int print_level = 0;
};

// What a child sends back.
struct Record {
  int ipopt_status = -1000;
  int ipopt_iterations = -1;
  int ipopt_termination = 2;  // ceres::FAILURE
  int ipopt_certified = 0;
  double ipopt_seconds = -1.0;
  double ipopt_rho = NAN;
  long ipopt_rss_kib = -1;
  double ceres_seconds = 0.0;
  int wc_termination = 2;
  int wc_certified = 0;
  double wc_seconds = -1.0;
  double wc_rho = NAN;
  char ipopt_status_name[48] = {0};
  char hessian[24] = {0};
  char message[400] = {0};
};

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

ceres::Solver::Options CeresOptions() {
  ceres::Solver::Options options;
  options.linear_solver_type = ceres::SPARSE_NORMAL_CHOLESKY;
  options.max_num_iterations = 1000;
  return options;
}

PoseGraph2d::Options GraphOptions(const Config& config,
                                  double w_odometry,
                                  double w_loop) {
  PoseGraph2d::Options options;
  options.num_poses = config.poses;
  options.angle_manifold = false;
  options.odometry_weight = w_odometry;
  options.loop_closure_weight = w_loop;
  return options;
}

// Reference point and scales from the two ends of the front (pipeline
// front's rule, utopia margin of Solver::Options).
bool Scalarize(const Config& config,
               Eigen::Vector2d* reference,
               Eigen::Vector2d* scale,
               std::string* error) {
  Eigen::Matrix2d payoff;
  for (int s = 0; s < 2; ++s) {
    auto graph = PoseGraph2d::Create(
        GraphOptions(config, s == 0 ? 1.0 : 1e-6, s == 0 ? 1e-6 : 1.0), error);
    if (graph == nullptr) return false;
    ceres::Solver::Summary summary;
    ceres::Solve(CeresOptions(), &graph->problem, &summary);
    if (!summary.IsSolutionUsable()) {
      *error = "weighted sum at an end failed: " + summary.message;
      return false;
    }
    payoff.row(s) = graph->Costs().transpose();
  }
  const Eigen::Vector2d ideal = payoff.diagonal();
  const Eigen::Vector2d nadir = payoff.colwise().maxCoeff().transpose();
  *scale = (nadir - ideal).cwiseMax(1e-12);
  *reference = ideal - ecmo::Solver::Options().utopia_margin * *scale;
  return true;
}

bool ScalarizeForked(const Config& config,
                     Eigen::Vector2d* reference,
                     Eigen::Vector2d* scale,
                     std::string* error) {
  std::string payload;
  const bool ok = ecmo_bench::RunInChildProcess(
      [&](std::string* out) {
        std::string child_error;
        if (!Scalarize(config, reference, scale, &child_error)) {
          std::fprintf(stderr, "ipopt_scale_bench: %s\n", child_error.c_str());
          return false;
        }
        const double values[4] = {
            (*reference)[0], (*reference)[1], (*scale)[0], (*scale)[1]};
        ecmo_bench::AppendPod(values, out);
        return true;
      },
      &payload,
      error);
  double values[4];
  size_t offset = 0;
  if (!ok || !ecmo_bench::ReadPod(payload, &offset, &values)) {
    *error = "the scalarization (weighted sums at the ends) failed";
    return false;
  }
  *reference = Eigen::Vector2d(values[0], values[1]);
  *scale = Eigen::Vector2d(values[2], values[3]);
  return true;
}

void Run(const Config& config,
         const std::string& start,
         double l1,
         const Eigen::Vector2d& reference,
         const Eigen::Vector2d& scale,
         Record* record) {
  std::string error;
  auto graph = PoseGraph2d::Create(GraphOptions(config, 1.0, 1.0), &error);
  if (graph == nullptr) {
    std::snprintf(
        record->message, sizeof(record->message), "%s", error.c_str());
    return;
  }
  const std::vector<double> preference = {l1, 1.0 - l1};
  if (start == "ceres") {
    auto weighted = PoseGraph2d::Create(
        GraphOptions(config, l1 / scale[0], (1.0 - l1) / scale[1]), &error);
    const Clock::time_point t0 = Clock::now();
    ceres::Solver::Summary summary;
    ceres::Solve(CeresOptions(), &weighted->problem, &summary);
    record->ceres_seconds = Seconds(t0);
    graph->CopyParametersFrom(*weighted);
  }
  ecmo::CeresProblemAdapter adapter(
      &graph->problem, graph->ObjectiveGroups(), {});
  const Eigen::VectorXd z0 = adapter.GetParameters();

  IpoptReference::Options reference_options;
  reference_options.hessian = config.hessian;
  reference_options.options_file = config.options_file;
  reference_options.print_level = config.print_level;
  reference_options.max_cpu_time_in_seconds = config.max_seconds;
  reference_options.max_iterations = config.max_iterations;
  reference_options.reference_point = {reference[0], reference[1]};
  reference_options.objective_scale = {scale[0], scale[1]};
  IpoptReference::Summary ref;
  Eigen::VectorXd z = z0;
  Clock::time_point t0 = Clock::now();
  ecmo::Solve(reference_options, &adapter, preference, &z, &ref);
  record->ipopt_seconds = Seconds(t0);
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  record->ipopt_rss_kib = usage.ru_maxrss;
  record->ipopt_status = ref.ipopt_status;
  record->ipopt_iterations = ref.iterations;
  record->ipopt_termination = static_cast<int>(ref.termination_type);
  record->ipopt_certified = ref.certified ? 1 : 0;
  record->ipopt_rho = ref.final_rho;
  std::snprintf(record->ipopt_status_name,
                sizeof(record->ipopt_status_name),
                "%s",
                ref.ipopt_status_name.c_str());
  const char* hessian_names[] = {
      "automatic", "exact", "gauss-newton", "l-bfgs"};
  std::snprintf(record->hessian,
                sizeof(record->hessian),
                "%s",
                hessian_names[static_cast<int>(ref.hessian_used)]);
  if (config.report) std::fprintf(stderr, "%s\n", ref.FullReport().c_str());
  if (ref.termination_type == ceres::FAILURE) {
    std::snprintf(
        record->message, sizeof(record->message), "%s", ref.message.c_str());
  }

  if (!config.wc) return;
  ecmo::Solver::Options solver;
  solver.strategy = ecmo::StrategyType::WC_NEWTON;
  solver.reference_point = {reference[0], reference[1]};
  solver.objective_scale = {scale[0], scale[1]};
  solver.normalize_objectives = false;
  solver.max_solver_time_in_seconds = config.max_seconds;
  ecmo::Solver::Summary wc;
  z = z0;
  t0 = Clock::now();
  ecmo::Solve(solver, &adapter, preference, &z, &wc);
  record->wc_seconds = Seconds(t0);
  record->wc_termination = static_cast<int>(wc.termination_type);
  record->wc_certified = wc.IsCertified(solver) ? 1 : 0;
  record->wc_rho = wc.final_rho;
}

// Runs one (start, lambda_1) in a child; false if the child died.
bool RunForked(const Config& config,
               const std::string& start,
               double l1,
               const Eigen::Vector2d& reference,
               const Eigen::Vector2d& scale,
               Record* record) {
  std::string payload, error;
  size_t offset = 0;
  return ecmo_bench::RunInChildProcess(
             [&](std::string* out) {
               Record r;
               Run(config, start, l1, reference, scale, &r);
               ecmo_bench::AppendPod(r, out);
               return true;
             },
             &payload,
             &error) &&
         ecmo_bench::ReadPod(payload, &offset, record);
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* name) -> const char* {
      const size_t n = std::strlen(name);
      return arg.compare(0, n, name) == 0 ? arg.c_str() + n : nullptr;
    };
    if (arg == "--smoke") {
      config.smoke = true;
      config.poses = 60;
      config.preferences = {0.5};
      config.starts = {"ceres"};
    } else if (const char* v = value("--poses=")) {
      config.poses = std::atoi(v);
    } else if (const char* v = value("--preferences=")) {
      config.preferences.clear();
      for (const std::string& p : ecmo_bench::SplitList(v)) {
        config.preferences.push_back(std::atof(p.c_str()));
      }
    } else if (const char* v = value("--starts=")) {
      config.starts = ecmo_bench::SplitList(v);
    } else if (const char* v = value("--hessian=")) {
      const std::string h = v;
      using H = IpoptReference::HessianType;
      config.hessian = h == "exact"            ? H::EXACT
                       : h == "gauss_newton"   ? H::GAUSS_NEWTON
                       : h == "limited_memory" ? H::LIMITED_MEMORY
                                               : H::AUTOMATIC;
    } else if (const char* v = value("--max_seconds=")) {
      config.max_seconds = std::atof(v);
    } else if (const char* v = value("--max_iterations=")) {
      config.max_iterations = std::atoi(v);
    } else if (const char* v = value("--options_file=")) {
      config.options_file = v;
    } else if (const char* v = value("--print_level=")) {
      config.print_level = std::atoi(v);
    } else if (arg == "--report") {
      config.report = true;
    } else if (const char* v = value("--wc=")) {
      config.wc = std::atoi(v) != 0;
    } else {
      std::fprintf(stderr,
                   "usage: ipopt_scale_bench [--smoke] [--poses=3500] "
                   "[--preferences=0.25,0.5,0.75] [--starts=ceres,odometry] "
                   "[--hessian=automatic|exact|gauss_newton|limited_memory] "
                   "[--max_seconds=600] [--max_iterations=3000] [--wc=1] "
                   "[--report] [--options_file=ipopt.opt] [--print_level=0]\n");
      return 2;
    }
  }
  // In a child too: CHOLMOD's OpenMP threads in this process would
  // deadlock every later fork.
  Eigen::Vector2d reference, scale;
  std::string error;
  if (!ScalarizeForked(config, &reference, &scale, &error)) {
    std::fprintf(stderr, "ipopt_scale_bench: %s\n", error.c_str());
    return 1;
  }
  std::printf(
      "# pose graph: %d poses, %d parameters, no angle manifold; "
      "r = (%.6g, %.6g), w = (%.6g, %.6g)\n",
      config.poses,
      3 * (config.poses - 1),
      reference[0],
      reference[1],
      scale[0],
      scale[1]);
  std::printf(
      "%-9s %5s %-13s %-27s %5s %8s %8s %6s %-4s %14s %8s %-4s "
      "%14s %9s\n",
      "start",
      "l1",
      "hessian",
      "ipopt status",
      "its",
      "ipopt s",
      "ceres s",
      "MiB",
      "cert",
      "rho_ipopt",
      "wc s",
      "cert",
      "rho_wc",
      "rel diff");
  bool ok = true;
  for (const std::string& start : config.starts) {
    for (double l1 : config.preferences) {
      Record r;
      if (!RunForked(config, start, l1, reference, scale, &r)) {
        std::printf("%-9s %5.2f child process failed\n", start.c_str(), l1);
        ok = false;
        continue;
      }
      const bool both = r.ipopt_certified && r.wc_certified;
      const double rel = both ? std::abs(r.ipopt_rho - r.wc_rho) /
                                    std::max(1e-300, std::abs(r.ipopt_rho))
                              : NAN;
      std::printf(
          "%-9s %5.2f %-13s %-27s %5d %8.2f %8.2f %6.1f %-4s %14.8g %8.2f "
          "%-4s %14.8g %9.2e\n",
          start.c_str(),
          l1,
          r.hessian,
          r.ipopt_status_name,
          r.ipopt_iterations,
          r.ipopt_seconds,
          r.ceres_seconds,
          r.ipopt_rss_kib / 1024.0,
          r.ipopt_certified ? "yes" : "no",
          r.ipopt_rho,
          r.wc_seconds,
          r.wc_certified ? "yes" : "no",
          r.wc_rho,
          rel);
      if (r.message[0] != 0) std::printf("    reference: %s\n", r.message);
      if (config.smoke && !(r.ipopt_termination == 0 && r.ipopt_certified &&
                            both && rel <= 1e-6)) {
        ok = false;
      }
    }
  }
  return ok ? 0 : 1;
}
