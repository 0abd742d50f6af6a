// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Real least-squares pipelines: the generated 2D pose graph
// (ecmo/problems/pose_graph.h) at about 1e3, 1e4 and 1e5 parameters. For
// each size, an 11-point front (odometry vs loop closures) traced
//   * by ecmo::Solve (default strategy wc-newton) on a CeresProblemAdapter,
//   * by plain ceres::Solve of the weighted sum (Levenberg-Marquardt,
//     SPARSE_NORMAL_CHOLESKY, group weights lambda_s / w_s via
//     ceres::ScaledLoss, Ceres' default tolerances, same start),
// both cold (every point from the graph's initial guess: the odometry
// start, or with --initial_guess=linear the linear estimate of
// ecmo/problems/pose_graph.h) and as a warm-started
// sweep (each point from the previous one; see
// examples/pipelines/pipeline_front.h for the rules). Reported per size and
// mode: mean wall time per point of each and their ratio, certified and
// distinct WC points, WC points dominated by a weighted-sum point, the
// hypervolume of both fronts at one reference point, and the peak resident
// memory (getrusage ru_maxrss) of each, each front run in its own forked
// process so the peaks are separate.
//
//   pipeline_bench [--poses=334,3334,33334] [--points=11]
//                  [--modes=cold,warm] [--max_point_seconds=600]
//                  [--strategy=wc-newton] [--wall=0]
//                  [--initial_guess=odometry|linear] [--repeats=N]
//
// --repeats=N runs each pair of fronts (plain Ceres, then WC) N times, each
// in its own process, and reports the median time of each and the median
// and range of the N paired ratios: a 334-pose front takes about 50 ms, and
// single runs of it varied by 20% on an otherwise idle machine. Default: 5
// below 10,000 poses, 1 from there on (a 33,334-pose front takes minutes).
//
// --wall=Q (0 < Q < 1) bounds every moving pose's x from above by the
// Q-quantile of the start's x coordinates (a wall the map may not cross;
// Problem::SetParameterUpperBound on the position blocks, start points
// clamped; headings without the angle manifold, since ecmo::Solve refuses
// bounds beside a manifold), for both fronts: the bounded path of
// CeresProblemAdapter, WC_NEWTON's projected steps and Ceres' own bounded
// solver.
//   pipeline_bench --smoke     (CTest: 60 poses, 3 points; exit 1 when a
//                               run fails outright)

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "ecmo/indicators.h"
#include "ecmo/problems/pose_graph.h"
#include "median.h"
#include "pipeline_front.h"

namespace {

using ecmo::problems::PoseGraph2d;
using ecmo_bench::Median;
using ecmo_pipelines::FrontPoint;
using ecmo_pipelines::FrontResult;
using ecmo_pipelines::FrontSettings;

struct Config {
  std::vector<int> poses = {334, 3334, 33334};
  int points = 11;
  std::vector<std::string> modes = {"cold", "warm"};
  double max_point_seconds = 600.0;
  std::string strategy = "wc-newton";
  double wall = 0.0;
  PoseGraph2d::InitialGuess initial_guess = PoseGraph2d::InitialGuess::ODOMETRY;
  bool smoke = false;
  int repeats = 0;  // 0: 5 below 10,000 poses, else 1
};

// The pose graph behind a wall (see --wall above): the workload interface
// of TraceFront (pipeline_front.h) over a PoseGraph2d whose position blocks
// have the upper bound x <= wall.
class WalledPoseGraph {
 public:
  struct Options : PoseGraph2d::Options {
    double wall_quantile = 0.5;
  };
  static std::unique_ptr<WalledPoseGraph> Create(const Options& options,
                                                 std::string* error) {
    // Bounds and manifolds do not mix in ecmo::Solve (even on different
    // blocks): the headings go without the angle manifold, which poses the
    // same least-squares problem in R^k (pose_graph.h).
    PoseGraph2d::Options plain = options;
    plain.angle_manifold = false;
    std::unique_ptr<PoseGraph2d> graph = PoseGraph2d::Create(plain, error);
    if (graph == nullptr) return nullptr;
    return std::unique_ptr<WalledPoseGraph>(
        new WalledPoseGraph(std::move(graph), options.wall_quantile));
  }
  std::vector<ecmo::CeresProblemAdapter::ResidualGroup> ObjectiveGroups()
      const {
    return graph_->ObjectiveGroups();
  }
  // The odometry start, clamped to the wall (Ceres refuses a start outside
  // its bounds).
  void ResetToStart() {
    graph_->ResetToStart();
    for (int i = 1; i < graph_->num_poses(); ++i) {
      graph_->position(i)[0] = std::min(graph_->position(i)[0], wall_);
    }
  }
  Eigen::Vector2d Costs() { return graph_->Costs(); }
  bool CopyParametersFrom(const WalledPoseGraph& other) {
    return graph_->CopyParametersFrom(*other.graph_);
  }

  // The wall of a graph with these poses (default seed) and quantile.
  static double Wall(int num_poses, double quantile) {
    PoseGraph2d::Options options;
    options.num_poses = num_poses;
    options.angle_manifold = false;
    std::unique_ptr<PoseGraph2d> graph = PoseGraph2d::Create(options, nullptr);
    return graph == nullptr ? 0.0 : WallOf(*graph, quantile);
  }

 private:
  static double WallOf(PoseGraph2d& graph, double quantile) {
    std::vector<double> x;
    for (int i = 1; i < graph.num_poses(); ++i) {
      x.push_back(graph.position(i)[0]);
    }
    const size_t at = std::min(
        x.size() - 1, static_cast<size_t>(quantile * (x.size() - 1) + 0.5));
    std::nth_element(x.begin(), x.begin() + at, x.end());
    return x[at];
  }

  WalledPoseGraph(std::unique_ptr<PoseGraph2d> graph, double quantile)
      : graph_(std::move(graph)), problem(graph_->problem) {
    wall_ = WallOf(*graph_, quantile);
    for (int i = 1; i < graph_->num_poses(); ++i) {
      problem.SetParameterUpperBound(graph_->position(i), 0, wall_);
    }
    ResetToStart();
  }

  std::unique_ptr<PoseGraph2d> graph_;
  double wall_ = 0.0;

 public:
  ceres::Problem& problem;
};

// TraceFront on the plain or the walled pose graph.
bool TracePoseGraphFront(const Config& config,
                         const FrontSettings& settings,
                         int num_poses,
                         FrontResult* result,
                         std::string* message) {
  auto set_weights = [](PoseGraph2d::Options* options, double w1, double w2) {
    options->odometry_weight = w1;
    options->loop_closure_weight = w2;
  };
  if (config.wall > 0.0) {
    WalledPoseGraph::Options graph;
    graph.num_poses = num_poses;
    graph.wall_quantile = config.wall;
    return ecmo_pipelines::TraceFront<WalledPoseGraph>(
        settings,
        graph,
        [&](WalledPoseGraph::Options* options, double w1, double w2) {
          set_weights(options, w1, w2);
        },
        result,
        message);
  }
  PoseGraph2d::Options graph;
  graph.num_poses = num_poses;
  graph.initial_guess = config.initial_guess;
  return ecmo_pipelines::TraceFront<PoseGraph2d>(
      settings, graph, set_weights, result, message);
}

// What a child process sends back per point: f1, f2, seconds, certified,
// inner iterations, Gauss-Newton matrices, Hessian products; then the
// peak memory in KiB.
struct PointRecord {
  double f[2];
  double seconds;
  int certified;
  int at_end;
  int iterations;
  long long gauss_newton_matrices;
  long long hessian_products;
  int at_wall;  // entries of z on the wall (--wall only)
};

std::vector<int> ParseInts(const std::string& s) {
  std::vector<int> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::atoi(item.c_str()));
  return out;
}

std::vector<std::string> ParseStrings(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(item);
  return out;
}

// Runs one front (WC or weighted sums) in a forked child; fills records
// and the child's peak memory. False if the child failed.
bool RunChild(const Config& config,
              int num_poses,
              bool warm,
              bool wc,
              std::vector<PointRecord>* records,
              long* max_rss_kib,
              double* scalarization_seconds,
              std::string* error) {
  std::string payload;
  const bool ok = ecmo_bench::RunInChildProcess(
      [&](std::string* out) {
        FrontSettings settings;
        settings.num_points = config.points;
        settings.warm_start = warm;
        settings.wc_points = wc;
        settings.weighted_sums = !wc;
        ecmo::StringToStrategyType(config.strategy, &settings.solver.strategy);
        settings.solver.max_solver_time_in_seconds = config.max_point_seconds;
        settings.ceres.linear_solver_type = ceres::SPARSE_NORMAL_CHOLESKY;
        settings.ceres.max_num_iterations = 1000;
        FrontResult result;
        std::string message;
        const bool traced =
            TracePoseGraphFront(config, settings, num_poses, &result, &message);
        if (!traced) {
          std::fprintf(stderr, "pipeline_bench: %s\n", message.c_str());
          return false;
        }
        for (const FrontPoint& p : result.points) {
          PointRecord r;
          r.f[0] = wc ? p.wc[0] : p.ws[0];
          r.f[1] = wc ? p.wc[1] : p.ws[1];
          r.seconds = wc ? p.wc_seconds : p.ws_seconds;
          r.certified =
              wc ? p.certified : p.ws_termination == ceres::CONVERGENCE;
          r.at_end = p.at_end;
          r.iterations = wc ? p.inner_iterations : p.ws_iterations;
          r.gauss_newton_matrices = p.evaluations.gauss_newton_matrices;
          r.hessian_products = p.evaluations.hessian_products;
          r.at_wall = 0;
          if (config.wall > 0.0 && wc) {
            const double wall = WalledPoseGraph::Wall(num_poses, config.wall);
            for (int e = 0; e < p.z.size(); ++e) {
              r.at_wall += p.z[e] >= wall - 1e-9 * (1.0 + std::abs(wall));
            }
          }
          ecmo_bench::AppendPod(r, out);
        }
        struct rusage usage;
        getrusage(RUSAGE_SELF, &usage);
        ecmo_bench::AppendPod(static_cast<long>(usage.ru_maxrss), out);
        ecmo_bench::AppendPod(result.scalarization_seconds, out);
        return true;
      },
      &payload,
      error);
  if (!ok) return false;
  records->assign(config.points, PointRecord());
  size_t offset = 0;
  for (PointRecord& r : *records) {
    if (!ecmo_bench::ReadPod(payload, &offset, &r)) {
      *error = "the child process sent too few points";
      return false;
    }
  }
  if (!ecmo_bench::ReadPod(payload, &offset, max_rss_kib) ||
      !ecmo_bench::ReadPod(payload, &offset, scalarization_seconds)) {
    *error = "the child process sent an incomplete result";
    return false;
  }
  return true;
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
      config.poses = {60};
      config.points = 3;
      config.max_point_seconds = 30.0;
      config.repeats = 1;
    } else if (const char* v = value("--poses=")) {
      config.poses = ParseInts(v);
    } else if (const char* v = value("--points=")) {
      config.points = std::atoi(v);
    } else if (const char* v = value("--modes=")) {
      config.modes = ParseStrings(v);
    } else if (const char* v = value("--max_point_seconds=")) {
      config.max_point_seconds = std::atof(v);
    } else if (const char* v = value("--strategy=")) {
      config.strategy = v;
    } else if (const char* v = value("--initial_guess=")) {
      if (!ecmo::problems::StringToInitialGuess(v, &config.initial_guess)) {
        std::fprintf(stderr,
                     "pipeline_bench: --initial_guess=%s is not odometry or "
                     "linear.\n",
                     v);
        return 1;
      }
    } else if (const char* v = value("--repeats=")) {
      config.repeats = std::atoi(v);
      if (config.repeats < 1) {
        std::fprintf(stderr, "pipeline_bench: --repeats=%s must be >= 1.\n", v);
        return 1;
      }
    } else if (const char* v = value("--wall=")) {
      config.wall = std::atof(v);
      if (!(config.wall >= 0.0 && config.wall < 1.0)) {
        std::fprintf(stderr,
                     "pipeline_bench: --wall=%s must be in [0, 1) (0: no "
                     "wall).\n",
                     v);
        return 1;
      }
    } else {
      std::fprintf(stderr,
                   "usage: pipeline_bench [--smoke] [--poses=334,3334,33334] "
                   "[--points=11] [--modes=cold,warm] "
                   "[--max_point_seconds=600] [--strategy=wc-newton] "
                   "[--wall=0] [--initial_guess=odometry|linear] "
                   "[--repeats=N]\n");
      return 1;
    }
  }

  std::printf(
      "pose graph fronts: %d points, strategy %s vs plain ceres::Solve "
      "(LM, SPARSE_NORMAL_CHOLESKY), per-point budget %.0f s, %s start%s\n",
      config.points,
      config.strategy.c_str(),
      config.max_point_seconds,
      ecmo::problems::InitialGuessToString(config.initial_guess),
      config.wall > 0.0 ? ", x of every pose bounded by the wall" : "");
  if (config.wall > 0.0) {
    std::printf("wall: x <= the %.2f-quantile of the start's x coordinates\n",
                config.wall);
  }
  std::printf(
      "%7s %7s %5s | %10s %10s %7s %-16s | %5s %5s %5s %5s | %12s %12s | "
      "%8s %8s | %6s %6s\n",
      "poses",
      "params",
      "mode",
      "wc s/pt",
      "ceres s/pt",
      "ratio",
      "(range, n)",
      "cert",
      "dist",
      "dom",
      "(end)",
      "HV wc",
      "HV ceres",
      "wc MiB",
      "ceresMiB",
      "inner",
      "GN/HP");
  bool all_ok = true;
  for (int poses : config.poses) {
    for (const std::string& mode : config.modes) {
      const bool warm = mode == "warm";
      // Paired runs, plain Ceres first; the points (deterministic) from
      // the first pair, times and ratios from all.
      const int repeats =
          config.repeats > 0 ? config.repeats : (poses < 10000 ? 5 : 1);
      std::vector<PointRecord> wc, ws;
      long wc_rss = 0, ws_rss = 0;
      std::vector<double> wc_totals, ws_totals, ratios;
      std::string error;
      bool failed = false;
      for (int r = 0; r < repeats && !failed; ++r) {
        std::vector<PointRecord> wc_r, ws_r;
        long wc_rss_r = 0, ws_rss_r = 0;
        double sc_wc = 0.0, sc_ws = 0.0;
        if (!RunChild(
                config, poses, warm, false, &ws_r, &ws_rss_r, &sc_ws, &error) ||
            !RunChild(
                config, poses, warm, true, &wc_r, &wc_rss_r, &sc_wc, &error)) {
          failed = true;
          break;
        }
        double wc_total = 0.0, ws_total = 0.0;
        for (int i = 0; i < config.points; ++i) {
          wc_total += wc_r[i].seconds;
          ws_total += ws_r[i].seconds;
        }
        wc_totals.push_back(wc_total);
        ws_totals.push_back(ws_total);
        ratios.push_back(wc_total / std::max(ws_total, 1e-12));
        wc_rss = std::max(wc_rss, wc_rss_r);
        ws_rss = std::max(ws_rss, ws_rss_r);
        if (r == 0) {
          wc = std::move(wc_r);
          ws = std::move(ws_r);
        }
      }
      if (failed) {
        std::printf("%7d %s: %s\n", poses, mode.c_str(), error.c_str());
        all_ok = false;
        continue;
      }
      const double wc_time = Median(wc_totals);
      const double ws_time = Median(ws_totals);
      char range[64];
      std::snprintf(range,
                    sizeof(range),
                    "(%.2f-%.2f, %d)",
                    *std::min_element(ratios.begin(), ratios.end()),
                    *std::max_element(ratios.begin(), ratios.end()),
                    repeats);
      int certified = 0, dominated = 0, dominated_at_end = 0;
      long long inner = 0, gn = 0, hp = 0;
      std::vector<Eigen::Vector2d> distinct;
      Eigen::MatrixXd wc_front(config.points, 2), ws_front(config.points, 2);
      for (int i = 0; i < config.points; ++i) {
        certified += wc[i].certified;
        inner += wc[i].iterations;
        gn += wc[i].gauss_newton_matrices;
        hp += wc[i].hessian_products;
        const Eigen::Vector2d p(wc[i].f[0], wc[i].f[1]);
        wc_front.row(i) = p.transpose();
        ws_front.row(i) = Eigen::RowVector2d(ws[i].f[0], ws[i].f[1]);
        bool is_new = true;
        for (const Eigen::Vector2d& q : distinct) {
          if ((q - p).cwiseAbs().maxCoeff() <=
              1e-6 * std::max(1.0, p.cwiseAbs().maxCoeff())) {
            is_new = false;
          }
        }
        if (is_new) distinct.push_back(p);
      }
      for (int i = 0; i < config.points; ++i) {
        bool dom = false;
        for (int j = 0; j < config.points; ++j) {
          dom = dom || ecmo_pipelines::Dominates(ws_front.row(j).transpose(),
                                                 wc_front.row(i).transpose(),
                                                 1e-6);
        }
        dominated += dom;
        dominated_at_end += dom && wc[i].at_end;
      }
      Eigen::MatrixXd both(2 * config.points, 2);
      both << wc_front, ws_front;
      const Eigen::VectorXd reference = ecmo::DefaultReferencePoint(both);
      const double hv_wc = ecmo::Hypervolume(wc_front, reference);
      const double hv_ws = ecmo::Hypervolume(ws_front, reference);
      const int params = 3 * (poses - 1);
      std::printf(
          "%7d %7d %5s | %10.4f %10.4f %7.2f %-16s | %2d/%-2d %5d %5d %5d | "
          "%12.6e %12.6e | %8.1f %8.1f | %6lld %lld/%lld\n",
          poses,
          params,
          mode.c_str(),
          wc_time / config.points,
          ws_time / config.points,
          Median(ratios),
          range,
          certified,
          config.points,
          static_cast<int>(distinct.size()),
          dominated,
          dominated_at_end,
          hv_wc,
          hv_ws,
          wc_rss / 1024.0,
          ws_rss / 1024.0,
          inner,
          gn,
          hp);
      if (config.wall > 0.0) {
        std::printf("        WC points' x coordinates on the wall:");
        for (int i = 0; i < config.points; ++i) {
          std::printf(" %d", wc[i].at_wall);
        }
        std::printf("\n");
      }
      std::fflush(stdout);
      if (config.smoke && certified == 0) all_ok = false;
    }
  }
  std::printf(
      "(s/pt: mean wall seconds per point of the median front; ratio: "
      "median of the paired ratios WC total / ceres total, with their range "
      "and the number of pairs; "
      "dom: WC points dominated by a weighted-sum point within 1e-6 "
      "relative, (end): of those at an end of the front; inner: Newton "
      "iterations; GN/HP: Gauss-Newton matrices / Hessian products. The "
      "scalarization, two plain-Ceres weighted sums for the ends, is shared "
      "and not counted.)\n");
  return all_ok ? 0 : 1;
}
