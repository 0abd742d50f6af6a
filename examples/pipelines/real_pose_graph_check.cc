// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Are the Pareto points that ecmo::Solve returns on a REAL pose graph
// really stationary? A check from outside the library's own certificate.
//
// The graph is read from a 2D or 3D g2o file (g2o_pose_graph.h: VERTEX_SE2
// / EDGE_SE2, or VERTEX_SE3:QUAT / EDGE_SE3:QUAT, told apart by the file's
// first record; data sets in data/posegraphs/), with two objectives: f_1 the
// odometry edges' cost, f_2 the loop closures' cost. For each preference lambda
// = (t, 1 - t), t = i / (num_points - 1) with the ends moved to 1e-3 and 1 -
// 1e-3, the program
//
//   1. solves the WC point with ecmo::Solve on a CeresProblemAdapter over
//      the graph, cold from the file's initial guess, with the default
//      ecmo::Solver::Options except --strategy;
//   2. if it ends in CONVERGENCE, takes the weights the point's own KKT
//      system claims it is stationary for, a_s = omega_s lambda_s / w_s
//      (omega the multipliers of the better of the two certificates, w the
//      objective scales of the scalarization; normalized to sum 1): a
//      KKT point of the WC problem is a stationary point of that weighted
//      sum. It copies the point into the same graph built with those group
//      weights (ceres::ScaledLoss) and runs plain Levenberg-Marquardt on it
//      at tolerances 1e-15. Nothing of the library is used in this step:
//      if the point is stationary, Ceres finds no descent worth the name.
//      The point FAILS when the weighted cost falls by more than 1e-8 of
//      the weighted values at the point, max(a . f, a . (f - r)) with r
//      the scalarization's reference point ("FALSE CERTIFICATE"; the
//      second term is the WC level rho in these units, and keeps the test
//      meaningful where the weighted cost is nearly its minimum 0, as at
//      the points whose only active term is a group that can be satisfied
//      exactly); the table also says whether the Levenberg-Marquardt end
//      point dominates the returned point. Column "comb": the best convex
//      combination of the two objectives' gradients, min_mu ||mu g_1 +
//      (1 - mu) g_2||_inf over max(||g_1||_inf, ||g_2||_inf), a measure
//      of Pareto criticality that does not depend on the scalarization;
//      points above 1e-6 are counted in the last line but do not fail
//      --check: the certificate's Gauss-Newton model test bounds the
//      decrease, not this ratio, and on ill-conditioned graphs a decrease
//      below 1e-12 of the values leaves it at about 1e-6 (mit.g2o per
//      point, t = 0.001: 1.09e-6; the other 21 mit points of the CTest
//      runs are at most 1.7e-14);
//   3. solves the plain-Ceres weighted sum with weights lambda, cold from
//      the file's guess (what a Ceres user would run), and says whether it
//      dominates the WC point (relative 1e-6).
//
// Optional further checks of every CONVERGENCE point:
//
//   --sweep      the WC points come from the library's Pareto sweep
//                (ecmo::Sweep on one CeresProblemAdapter, default
//                ParetoSweep::Options except --strategy and
//                --warm_start, on the same grid of preferences, cut to
//                --max_points) instead of one cold ecmo::Solve per
//                preference; the same outside check applies to each. Note
//                that the sweep computes its scalarization once and
//                normalizes the objectives, so its WC problems (and points)
//                differ from the per-preference solves'.
//   --ipopt      the Ipopt reference (ecmo/ipopt_reference.h) solves the
//                SAME WC problem (the point's reference point, scales and
//                preference), started at the returned point, on the graph
//                without the angle manifold (Ipopt works in R^k; the
//                residual wraps the angle difference, so the costs are the
//                same). The point FAILS when |rho_ipopt - rho| / |rho|
//                exceeds 1e-6 ("ipopt drho"); an Ipopt run that returns no
//                usable point is reported, not counted.
//   --front_points=N  a plain-Ceres weighted-sum front of N points, each
//                cold from the file's guess; a WC point FAILS when a front
//                point dominates it (relative 1e-6 plus 1e-9 of the
//                front's range in each objective, so that loop-closure
//                costs of 1e-17 and 1e-24 are the same value).
//
//   real_pose_graph_check --g2o=FILE [--num_points=11]
//       [--strategy=automatic] [--check=true] [--max_points=-1]
//       [--sweep] [--warm_start=true] [--ipopt] [--front_points=0]
//       [--csv=PATH]
//
// Exit status: 2 for bad flags or an unreadable / invalid file (message to
// stderr), 1 with --check when some CONVERGENCE point fails a check (the
// descent test, the Ipopt comparison, domination by the front), 0
// otherwise.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/solver.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/ceres_problem_sweep.h"
#include "ecmo/ipopt_reference.h"
#include "ecmo/solver.h"
#include "ecmo/sweep.h"
#include "ecmo/types.h"
#include "g2o_pose_graph.h"
#include "../tool_flags.h"
#include "gflags/gflags.h"

DEFINE_string(g2o,
              "",
              "g2o pose graph, 2D (VERTEX_SE2 / EDGE_SE2) or 3D "
              "(VERTEX_SE3:QUAT / EDGE_SE3:QUAT).");
DEFINE_int32(num_points, 11, "Preferences t = i / (num_points - 1), >= 2.");
DEFINE_string(strategy, "automatic", "ECMO strategy of the WC points.");
DEFINE_bool(check,
            true,
            "Exit 1 when a CONVERGENCE point fails the descent test.");
DEFINE_int32(max_points,
             -1,
             "Run only the first N preferences (-1: all of them).");
DEFINE_string(csv, "", "Also write the table to this CSV file.");
DEFINE_bool(sweep,
            false,
            "Take the WC points from ecmo::Sweep (default ParetoSweep::"
            "Options) instead of one cold ecmo::Solve per preference.");
DEFINE_bool(warm_start,
            ecmo::ParetoSweep::Options().warm_start,
            "With --sweep: ParetoSweep::Options::warm_start.");
DEFINE_bool(ipopt,
            false,
            "Re-solve every CONVERGENCE point's WC problem with the Ipopt "
            "reference from the point and compare rho.");
DEFINE_int32(front_points,
             0,
             "Plain-Ceres weighted-sum front of this many points (0: off, "
             "else >= 2); a WC point dominated by it fails.");
DEFINE_bool(full_reports,
            false,
            "Print the full report of every WC point to stderr.");

namespace {

using Clock = std::chrono::steady_clock;
using ecmo_pipelines::G2oPoseGraph2d;

// The ends of the grid, moved into the open simplex.
constexpr double kEndPreference = 1e-3;
// A CONVERGENCE point fails when plain Levenberg-Marquardt lowers the
// weighted sum of its own KKT weights by more than this, relative.
constexpr double kDescentTolerance = 1e-8;
// The best convex combination of the two objectives' gradients is
// reported against this fraction of the larger gradient (counted, not a
// verdict: see "comb" at the top of this file).
constexpr double kCombinationTolerance = 1e-6;
// "Dominates": both objectives <= and one < by more than this, relative.
constexpr double kLmDominanceTolerance = 1e-9;
constexpr double kWeightedSumDominanceTolerance = 1e-6;
// --ipopt: a point fails when Ipopt's rho differs by more than this,
// relative.
constexpr double kIpoptRhoTolerance = 1e-6;
// --front_points: the absolute part of the domination slack, as a fraction
// of the front's range in each objective.
constexpr double kFrontRangeSlack = 1e-9;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// q dominates p: q_s <= p_s + tol |p_s| for both s, and q_s < p_s - tol |p_s|
// for one.
// `absolute` adds a slack per objective (zero by default).
bool Dominates(const Eigen::Vector2d& q,
               const Eigen::Vector2d& p,
               double tolerance,
               const Eigen::Vector2d& absolute = Eigen::Vector2d::Zero()) {
  if (!q.allFinite() || !p.allFinite()) return false;
  bool strictly = false;
  for (int s = 0; s < 2; ++s) {
    const double tol = tolerance * std::abs(p[s]) + absolute[s];
    if (q[s] > p[s] + tol) return false;
    if (q[s] < p[s] - tol) strictly = true;
  }
  return strictly;
}

// gflags ends the program with status 1 on an unknown flag or a value it
// cannot parse, and 1 means "false certificate" here. So every --name or
// --name=value is tried first with gflags' own non-exiting calls; false
// with a message on the first bad one.
bool PrevalidateFlags(int argc, char** argv, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;  // positional
    arg = arg.substr(arg[1] == '-' ? 2 : 1);
    const size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    gflags::CommandLineFlagInfo info;
    if (!gflags::GetCommandLineFlagInfo(name.c_str(), &info)) {
      // --noNAME for a boolean NAME.
      gflags::CommandLineFlagInfo negated;
      if (equals == std::string::npos && name.rfind("no", 0) == 0 &&
          gflags::GetCommandLineFlagInfo(name.substr(2).c_str(), &negated) &&
          negated.type == "bool") {
        continue;
      }
      *error = "unknown flag --" + name;
      return false;
    }
    std::string value;
    if (equals != std::string::npos) {
      value = arg.substr(equals + 1);
    } else if (info.type == "bool") {
      continue;  // --NAME alone sets a boolean
    } else if (i + 1 < argc) {
      value = argv[++i];  // --NAME VALUE
    } else {
      *error = "flag --" + name + " needs a value";
      return false;
    }
    // Sets the flag (the later parse sets it to the same value) and
    // returns an empty string when the value does not parse.
    if (gflags::SetCommandLineOption(name.c_str(), value.c_str()).empty()) {
      *error =
          "bad value '" + value + "' for --" + name + " (" + info.type + ")";
      return false;
    }
  }
  return true;
}

struct PointResult {
  double t = 0.0;
  std::vector<double> preference;  // as used
  // --sweep: the grid point whose z started this one (-1: the file's
  // guess).
  int warm_start_from = -1;
  ecmo::TerminationType termination = ceres::FAILURE;
  std::string strategy;
  bool certified = false;
  Eigen::Vector2d f = Eigen::Vector2d::Constant(NAN);
  double rho = NAN;
  double seconds = 0.0;
  std::string message;
  // The outside check (CONVERGENCE points only).
  bool checked = false;
  std::string omega_source;  // "solver" or "least-squares"
  Eigen::Vector2d a = Eigen::Vector2d::Constant(NAN);
  double gradient_inf = NAN;  // of the a-weighted sum at the point
  // min over mu in [0, 1] of ||mu g_odom + (1 - mu) g_loops||_inf over
  // max(||g_odom||_inf, ||g_loops||_inf): the best convex combination of
  // the two objective gradients, relative to the largest (must be <= 1e-6).
  double combination = NAN;
  double cost_before = NAN;
  double cost_after = NAN;
  double relative_decrease = NAN;
  // The decrease in units of the weighted values at the point,
  // max(a . f, a . (f - r)): what the verdict compares with 1e-8.
  double range_decrease = NAN;
  bool false_certificate = false;
  Eigen::Vector2d lm_f = Eigen::Vector2d::Constant(NAN);
  bool lm_dominates = false;
  int lm_iterations = 0;
  std::string lm_message;
  // The plain-Ceres weighted sum with weights lambda.
  ceres::TerminationType ws_termination = ceres::FAILURE;
  Eigen::Vector2d ws_f = Eigen::Vector2d::Constant(NAN);
  double ws_seconds = 0.0;
  bool ws_dominates = false;
  double lm_seconds = 0.0;
  // --ipopt (CONVERGENCE points only).
  bool ipopt_run = false;
  bool ipopt_usable = false;
  double ipopt_rho = NAN;
  double ipopt_drho = NAN;
  int ipopt_iterations = -1;
  double ipopt_seconds = 0.0;
  std::string ipopt_message;
  bool ipopt_fails = false;
  // --front_points: the index of a front point that dominates this one
  // (-1: none).
  int front_dominator = -1;
};

// The gradient's max norm (in the tangent space, as Ceres reports it) of
// the graph's weighted cost at its current poses, over the poses that move
// (the anchor, pose 0, is listed out so that its entries cannot count).
template <typename Graph>
bool Gradient(Graph* graph, Eigen::VectorXd* out) {
  double cost = 0.0;
  std::vector<double> gradient;
  ceres::Problem::EvaluateOptions evaluate;
  evaluate.parameter_blocks = graph->MovingParameterBlocks();
  if (!graph->problem.Evaluate(evaluate, &cost, nullptr, &gradient, nullptr)) {
    return false;
  }
  *out = Eigen::Map<const Eigen::VectorXd>(gradient.data(), gradient.size());
  return true;
}

template <typename Graph>
double GradientMaxNorm(Graph* graph) {
  Eigen::VectorXd gradient;
  if (!Gradient(graph, &gradient)) return NAN;
  return gradient.size() > 0 ? gradient.lpNorm<Eigen::Infinity>() : 0.0;
}

// PointResult::combination at `poses`: the two objectives' gradients from
// graphs weighted (1, 0) and (0, 1); the best mu in the 2-norm and the
// point's own KKT weight a_odom are both tried, the smaller ratio counts.
template <typename Graph>
double BestCombination(const Graph& graph,
                       const std::vector<typename Graph::Pose>& poses,
                       double a_odometry) {
  Eigen::VectorXd g[2];
  for (int s = 0; s < 2; ++s) {
    typename Graph::Options one;
    one.odometry_weight = s == 0 ? 1.0 : 0.0;
    one.loop_closure_weight = s == 0 ? 0.0 : 1.0;
    std::string error;
    std::unique_ptr<Graph> single = Graph::Create(graph.data(), one, &error);
    if (single == nullptr || !single->SetPoses(poses) ||
        !Gradient(single.get(), &g[s])) {
      return NAN;
    }
  }
  const double largest =
      std::max(g[0].lpNorm<Eigen::Infinity>(), g[1].lpNorm<Eigen::Infinity>());
  if (!(largest > 0.0)) return 0.0;
  const Eigen::VectorXd d = g[0] - g[1];
  const double mu_best =
      d.squaredNorm() > 0.0
          ? std::min(1.0, std::max(0.0, -g[1].dot(d) / d.squaredNorm()))
          : 0.0;
  double best = std::numeric_limits<double>::infinity();
  for (double mu : {mu_best, a_odometry}) {
    best = std::min(
        best,
        (mu * g[0] + (1.0 - mu) * g[1]).lpNorm<Eigen::Infinity>() / largest);
  }
  return best;
}

// The outside check of a CONVERGENCE point (see the top of this file);
// `poses` the returned point.
template <typename Graph>
void CheckPoint(const Graph& graph,
                const ecmo::Solver::Options& options,
                const ecmo::Solver::Summary& summary,
                const std::vector<double>& preference,
                const std::vector<typename Graph::Pose>& poses,
                PointResult* point) {
  // The multipliers of the better certificate, as IsCertified judges.
  const ecmo::KktReport& kkt = summary.kkt;
  const ecmo::KktMultipliers& best =
      kkt.BestMultipliers(options.stationarity_tolerance,
                          options.complementarity_tolerance,
                          options.feasibility_tolerance,
                          options.model_tolerance);
  const bool by_solver = &best == &kkt.solver_multipliers;
  const Eigen::VectorXd& omega = best.omega;
  point->omega_source = by_solver ? "solver" : "least-squares";
  const Eigen::VectorXd& w = summary.scalarization.objective_scale;
  if (omega.size() != 2 || w.size() != 2) {
    point->lm_message = "no multipliers or scales in the summary";
    return;
  }
  const double lambda_sum = preference[0] + preference[1];
  Eigen::Vector2d a;
  for (int s = 0; s < 2; ++s) {
    // A least-squares omega is >= 0; a solver's may be a hair below.
    a[s] = std::max(0.0, omega[s]) * (preference[s] / lambda_sum) / w[s];
  }
  if (!(a.sum() > 0.0) || !a.allFinite()) {
    point->lm_message = "KKT weights are zero or not finite";
    return;
  }
  a /= a.sum();
  point->a = a;

  typename Graph::Options weighted;
  weighted.odometry_weight = a[0];
  weighted.loop_closure_weight = a[1];
  std::string error;
  std::unique_ptr<Graph> check = Graph::Create(graph.data(), weighted, &error);
  if (check == nullptr || !check->SetPoses(poses)) {
    point->lm_message = "cannot build the weighted graph: " + error;
    return;
  }
  // The weighted cost is recomputed from the unweighted costs rather than
  // taken from ceres::Solver::Summary, so that "before" is the returned
  // point itself, whatever Ceres' preprocessing does.
  point->cost_before = a.dot(check->Costs());
  point->gradient_inf = GradientMaxNorm(check.get());

  ceres::Solver::Options lm;
  lm.minimizer_type = ceres::TRUST_REGION;
  lm.trust_region_strategy_type = ceres::LEVENBERG_MARQUARDT;
  lm.linear_solver_type = ceres::SPARSE_NORMAL_CHOLESKY;
  lm.max_num_iterations = 50;
  lm.function_tolerance = 1e-15;
  lm.gradient_tolerance = 1e-15;
  lm.parameter_tolerance = 1e-15;
  lm.logging_type = ceres::SILENT;
  ceres::Solver::Summary lm_summary;
  ceres::Solve(lm, &check->problem, &lm_summary);
  point->lm_iterations = static_cast<int>(lm_summary.iterations.size());
  point->lm_message = lm_summary.message;
  point->lm_f = check->Costs();
  point->cost_after = a.dot(point->lm_f);
  point->relative_decrease =
      point->cost_before > 0.0
          ? (point->cost_before - point->cost_after) / point->cost_before
          : 0.0;
  const ecmo::Scalarization& sc = summary.scalarization;
  double values = point->cost_before;
  if (sc.reference_point.size() == 2) {
    values = std::max(values, a.dot(point->f - sc.reference_point));
  }
  point->range_decrease =
      values > 0.0 ? (point->cost_before - point->cost_after) / values : 0.0;
  point->combination = BestCombination(graph, poses, a[0]);
  point->false_certificate = !(point->range_decrease <= kDescentTolerance);
  point->lm_dominates = Dominates(point->lm_f, point->f, kLmDominanceTolerance);
  point->checked = true;
}

std::string Format(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

// The Ipopt reference on the WC problem of a CONVERGENCE point: the same
// reference point, scales and preference, started at the returned z, on
// `flat` (the graph without the angle manifold, whose z has the layout of
// the WC adapter's: the same non-constant blocks in the same order).
template <typename Graph>
void RunIpopt(Graph* flat,
              const ecmo::Solver::Summary& summary,
              PointResult* point) {
  point->ipopt_run = true;
  const ecmo::Scalarization& sc = summary.scalarization;
  ecmo::IpoptReference::Options options;
  options.reference_point.assign(
      sc.reference_point.data(),
      sc.reference_point.data() + sc.reference_point.size());
  options.objective_scale.assign(
      sc.objective_scale.data(),
      sc.objective_scale.data() + sc.objective_scale.size());
  // A fresh adapter per point, for the reason the WC solves get one.
  ecmo::CeresProblemAdapter adapter(
      &flat->problem, flat->ObjectiveGroups(), {});
  std::string error;
  if (!adapter.IsValid(&error) || summary.z.size() != adapter.NumParameters()) {
    point->ipopt_message = "cannot pose the Ipopt problem: " + error;
    return;
  }
  Eigen::VectorXd z = summary.z;
  ecmo::IpoptReference::Summary ipopt;
  const Clock::time_point start = Clock::now();
  ecmo::Solve(options, &adapter, point->preference, &z, &ipopt);
  point->ipopt_seconds = SecondsSince(start);
  point->ipopt_iterations = ipopt.iterations;
  point->ipopt_message = ipopt.message;
  point->ipopt_usable = ipopt.IsSolutionUsable();
  if (!point->ipopt_usable) return;
  point->ipopt_rho = ipopt.final_rho;
  point->ipopt_drho = std::abs(ipopt.final_rho - point->rho) /
                      std::max(std::abs(point->rho), 1e-300);
  point->ipopt_fails = !(point->ipopt_drho <= kIpoptRhoTolerance);
}

// The grid's preference t_i (ends moved into the open simplex).
double GridPreference(int i, int num_points) {
  return std::clamp(static_cast<double>(i) / (num_points - 1),
                    kEndPreference,
                    1.0 - kEndPreference);
}

// The WC columns of *point from a solve's summary, the returned poses
// written into *graph through `adapter` (an adapter over graph->problem),
// and the outside check. The graph's constant anchor pose keeps the file's
// value.
template <typename Graph>
void FinishWcPoint(const ecmo::Solver::Options& options,
                   const ecmo::Solver::Summary& summary,
                   Graph* graph,
                   ecmo::CeresProblemAdapter* adapter,
                   PointResult* point) {
  point->termination = summary.termination_type;
  point->strategy = ecmo::StrategyTypeToString(summary.strategy);
  point->certified = summary.IsCertified(options);
  if (summary.objectives.size() == 2) point->f = summary.objectives;
  point->rho = summary.final_rho;
  point->message = summary.message;
  point->seconds = summary.total_time_in_seconds;
  if (point->termination != ceres::CONVERGENCE) return;
  graph->ResetToStart();
  if (summary.z.size() != adapter->NumParameters()) {
    point->lm_message = "the summary has no z of the adapter's size";
    return;
  }
  adapter->SetParameters(summary.z.data());
  const std::vector<typename Graph::Pose> returned = graph->Poses();
  const Clock::time_point start = Clock::now();
  CheckPoint(*graph, options, summary, point->preference, returned, point);
  point->lm_seconds = SecondsSince(start);
}

// One line on stderr per WC point once it is solved and checked.
void ReportProgress(int i, int num_points, const PointResult& point) {
  std::string ipopt;
  if (point.ipopt_run)
    ipopt = "; ipopt " + Format("%.2f s", point.ipopt_seconds);
  std::fprintf(stderr,
               "  point %d/%d t=%.4f: %s, %.2f s; check %.2f s%s\n",
               i + 1,
               num_points,
               point.t,
               ecmo::TerminationTypeName(point.termination),
               point.seconds,
               point.lm_seconds,
               ipopt.c_str());
  if (point.termination != ceres::CONVERGENCE) {
    std::fprintf(stderr, "    %s\n", point.message.c_str());
  }
}

// "total s (mean s per point)" of one part.
std::string Timing(double total, int count) {
  char buffer[96];
  std::snprintf(buffer,
                sizeof(buffer),
                "%.2f s (%.3f s/point over %d)",
                total,
                count > 0 ? total / count : 0.0,
                count);
  return buffer;
}

}  // namespace

// Everything after the flags, for a 2D or a 3D graph. `csv` (may be null)
// is closed here.
template <typename Graph>
int Run(const ecmo::Solver::Options& options, FILE* csv) {
  const auto fail = [csv](const std::string& message) {
    std::fprintf(stderr, "real_pose_graph_check: %s\n", message.c_str());
    if (csv != nullptr) std::fclose(csv);
    return 2;
  };

  std::string error;
  std::unique_ptr<Graph> graph =
      Graph::Create(FLAGS_g2o, typename Graph::Options(), &error);
  if (graph == nullptr) return fail(error);
  if (graph->odometry.empty() || graph->loop_closures.empty()) {
    return fail(FLAGS_g2o + ": " + std::to_string(graph->odometry.size()) +
                " odometry edges and " +
                std::to_string(graph->loop_closures.size()) +
                " loop closures; both objectives need at least one edge");
  }
  // --ipopt: the same graph with headings in R.
  // (A 3D graph ignores angle_manifold: the reference handles its
  // quaternion manifold.)
  std::unique_ptr<Graph> flat;
  if (FLAGS_ipopt) {
    typename Graph::Options in_r;
    in_r.angle_manifold = false;
    flat = Graph::Create(graph->data(), in_r, &error);
    if (flat == nullptr) return fail(error);
  }
  const Eigen::Vector2d start_costs = graph->Costs();
  std::printf(
      "%s: %d poses, %zu odometry edges, %zu loop closures, %d parameters; "
      "start: odometry %.6e, loop closures %.6e; strategy %s; %s\n",
      FLAGS_g2o.c_str(),
      graph->num_poses(),
      graph->odometry.size(),
      graph->loop_closures.size(),
      graph->num_parameters(),
      start_costs[0],
      start_costs[1],
      FLAGS_strategy.c_str(),
      FLAGS_sweep ? (FLAGS_warm_start ? "ecmo::Sweep, warm starts"
                                      : "ecmo::Sweep, cold starts")
                  : "one cold ecmo::Solve per preference");
  std::fflush(stdout);

  int num_points = FLAGS_num_points;
  if (FLAGS_max_points > 0) num_points = std::min(num_points, FLAGS_max_points);
  std::vector<PointResult> points(num_points);
  std::vector<std::vector<double>> preferences(num_points);
  for (int i = 0; i < num_points; ++i) {
    points[i].t = GridPreference(i, FLAGS_num_points);
    preferences[i] = {points[i].t, 1.0 - points[i].t};
    points[i].preference = preferences[i];
  }

  // 1 and 2. The WC points and the outside check.
  double wc_wall_seconds = 0.0;
  std::string sweep_report;
  if (FLAGS_sweep) {
    graph->ResetToStart();
    ecmo::CeresProblemAdapter adapter(
        &graph->problem, graph->ObjectiveGroups(), {});
    if (!adapter.IsValid(&error)) return fail(error);
    ecmo::ParetoSweep::Options sweep_options;
    sweep_options.solver = options;
    sweep_options.warm_start = FLAGS_warm_start;
    ecmo::ParetoSweep::Summary sweep;
    const Clock::time_point start = Clock::now();
    ecmo::Sweep(sweep_options, &adapter, preferences, &sweep);
    wc_wall_seconds = SecondsSince(start);
    sweep_report = sweep.BriefReport();
    if (static_cast<int>(sweep.points.size()) < num_points) {
      return fail("the sweep failed: " + sweep.message);
    }
    // The points the sweep's refinement added (ParetoSweep::Options::
    // refine_to, by default where the front has holes) are checked like
    // the grid's; t is the odometry weight of the preference it was aimed
    // with, and the plain weighted sum of step 3 runs at that t.
    for (int i = num_points; i < static_cast<int>(sweep.points.size()); ++i) {
      PointResult refined;
      refined.preference = sweep.points[i].preference_given;
      refined.t = refined.preference.size() == 2 ? refined.preference[0] : NAN;
      points.push_back(refined);
      preferences.push_back(refined.preference);
    }
    num_points = static_cast<int>(sweep.points.size());
    for (int i = 0; i < num_points; ++i) {
      const ecmo::SweepPoint& swept = sweep.points[i];
      PointResult& point = points[i];
      if (swept.preference.size() == 2) point.preference = swept.preference;
      point.warm_start_from = swept.warm_start_from;
      if (FLAGS_full_reports) {
        std::fprintf(stderr, "%s\n", swept.summary.FullReport().c_str());
      }
      FinishWcPoint(options, swept.summary, graph.get(), &adapter, &point);
      if (FLAGS_ipopt && point.termination == ceres::CONVERGENCE) {
        RunIpopt(flat.get(), swept.summary, &point);
      }
      ReportProgress(i, num_points, point);
    }
  } else {
    for (int i = 0; i < num_points; ++i) {
      PointResult& point = points[i];
      // Cold from the file's guess, on a fresh adapter so that nothing
      // (the adapter's cached least-squares view) carries over from the
      // previous point.
      graph->ResetToStart();
      ecmo::CeresProblemAdapter adapter(
          &graph->problem, graph->ObjectiveGroups(), {});
      if (!adapter.IsValid(&error)) return fail(error);
      ecmo::Solver::Summary summary;
      const Clock::time_point start = Clock::now();
      ecmo::Solve(options, &adapter, point.preference, &summary);
      wc_wall_seconds += SecondsSince(start);
      if (FLAGS_full_reports) {
        std::fprintf(stderr, "%s\n", summary.FullReport().c_str());
      }
      FinishWcPoint(options, summary, graph.get(), &adapter, &point);
      if (FLAGS_ipopt && point.termination == ceres::CONVERGENCE) {
        RunIpopt(flat.get(), summary, &point);
      }
      ReportProgress(i, num_points, point);
    }
  }

  // 3. The plain-Ceres weighted sum with weights lambda, cold.
  for (int i = 0; i < num_points; ++i) {
    PointResult& point = points[i];
    const Clock::time_point start = Clock::now();
    point.ws_f =
        ecmo_pipelines::PlainWeightedSum(*graph, point.t, 1.0 - point.t, &point.ws_termination);
    point.ws_seconds = SecondsSince(start);
    point.ws_dominates =
        Dominates(point.ws_f, point.f, kWeightedSumDominanceTolerance);
  }

  // 4. The weighted-sum front.
  std::vector<Eigen::Vector2d> front;
  double front_seconds = 0.0;
  int num_front_failed = 0;
  if (FLAGS_front_points > 0) {
    for (int j = 0; j < FLAGS_front_points; ++j) {
      const double t = GridPreference(j, FLAGS_front_points);
      ceres::TerminationType termination = ceres::FAILURE;
      const Clock::time_point start = Clock::now();
      const Eigen::Vector2d f =
          ecmo_pipelines::PlainWeightedSum(*graph, t, 1.0 - t, &termination);
      front_seconds += SecondsSince(start);
      if (termination != ceres::CONVERGENCE) ++num_front_failed;
      front.push_back(f);
    }
    Eigen::Vector2d low = Eigen::Vector2d::Constant(INFINITY);
    Eigen::Vector2d high = Eigen::Vector2d::Constant(-INFINITY);
    for (const Eigen::Vector2d& f : front) {
      if (!f.allFinite()) continue;
      low = low.cwiseMin(f);
      high = high.cwiseMax(f);
    }
    const Eigen::Vector2d slack = kFrontRangeSlack * (high - low);
    for (PointResult& p : points) {
      if (p.termination != ceres::CONVERGENCE) continue;
      for (int j = 0; j < static_cast<int>(front.size()); ++j) {
        if (Dominates(front[j], p.f, kWeightedSumDominanceTolerance, slack)) {
          p.front_dominator = j;
          break;
        }
      }
    }
    std::printf(
        "front: %d plain-Ceres weighted sums (%d not CONVERGENCE), odometry "
        "[%.6e, %.6e], loop closures [%.6e, %.6e]; domination slack "
        "1e-6 relative + (%.3e, %.3e)\n",
        FLAGS_front_points,
        num_front_failed,
        low[0],
        high[0],
        low[1],
        high[1],
        slack[0],
        slack[1]);
  }

  // The table.
  std::printf(
      "%-6s %-14s %-4s %13s %13s %8s %9s %9s %9s %10s %10s %-17s %3s | %13s "
      "%13s %8s %4s",
      "t",
      "termination",
      "cert",
      "F1 odometry",
      "F2 loops",
      "wc[s]",
      "a_odom",
      "|g|inf",
      "comb",
      "LM rel dec",
      "dec/value",
      "descent verdict",
      "LMd",
      "ws F1",
      "ws F2",
      "ws[s]",
      "dom");
  if (FLAGS_sweep) std::printf(" %5s", "warm");
  if (FLAGS_ipopt)
    std::printf(" | %10s %8s %5s", "ipopt drho", "ipopt[s]", "it");
  if (FLAGS_front_points > 0) std::printf(" | %9s", "front dom");
  std::printf("\n");
  int num_convergence = 0, num_false = 0, num_certified = 0;
  int num_combination = 0;
  int num_ipopt_fail = 0, num_ipopt_unusable = 0, num_front_dominated = 0;
  for (const PointResult& p : points) {
    if (p.certified) ++num_certified;
    if (p.termination == ceres::CONVERGENCE) ++num_convergence;
    if (p.checked && p.false_certificate) ++num_false;
    if (p.checked && !(p.combination <= kCombinationTolerance)) {
      ++num_combination;
    }
    if (p.ipopt_run && !p.ipopt_usable) ++num_ipopt_unusable;
    if (p.ipopt_fails) ++num_ipopt_fail;
    if (p.front_dominator >= 0) ++num_front_dominated;
    std::string verdict = "n/a";
    if (p.termination == ceres::CONVERGENCE) {
      verdict = !p.checked            ? "NOT CHECKED"
                : p.false_certificate ? "FALSE CERTIFICATE"
                                      : "ok";
    }
    std::printf(
        "%-6.4f %-14s %-4s %13.6e %13.6e %8.2f %9s %9s %9s %10s %10s %-17s "
        "%3s "
        "| %13.6e %13.6e %8.2f %4s",
        p.t,
        ecmo::TerminationTypeName(p.termination),
        p.certified ? "yes" : "no",
        p.f[0],
        p.f[1],
        p.seconds,
        p.checked ? Format("%.3e", p.a[0]).c_str() : "-",
        p.checked ? Format("%.2e", p.gradient_inf).c_str() : "-",
        p.checked ? Format("%.2e", p.combination).c_str() : "-",
        p.checked ? Format("%.3e", p.relative_decrease).c_str() : "-",
        p.checked ? Format("%.3e", p.range_decrease).c_str() : "-",
        verdict.c_str(),
        p.checked ? (p.lm_dominates ? "yes" : "no") : "-",
        p.ws_f[0],
        p.ws_f[1],
        p.ws_seconds,
        p.ws_dominates ? "yes" : "no");
    if (FLAGS_sweep) std::printf(" %5d", p.warm_start_from);
    if (FLAGS_ipopt) {
      std::string drho = "-";
      if (p.ipopt_run) {
        drho = !p.ipopt_usable
                   ? "IPOPT FAIL"
                   : Format("%.2e", p.ipopt_drho) + (p.ipopt_fails ? "!" : "");
      }
      std::printf(" | %10s %8.2f %5d",
                  drho.c_str(),
                  p.ipopt_seconds,
                  p.ipopt_iterations);
    }
    if (FLAGS_front_points > 0) {
      std::printf(" | %9s",
                  p.front_dominator >= 0
                      ? ("BY " + std::to_string(p.front_dominator)).c_str()
                      : (p.termination == ceres::CONVERGENCE ? "no" : "-"));
    }
    std::printf("\n");
  }
  // Ipopt's failures are printed, not counted: a reference that returns no
  // point says nothing about the WC point.
  for (const PointResult& p : points) {
    if (p.ipopt_run && (!p.ipopt_usable || p.ipopt_fails)) {
      std::printf("  t=%.4f: Ipopt %s (rho %.17g, WC rho %.17g): %s\n",
                  p.t,
                  p.ipopt_usable ? "disagrees" : "returned no usable point",
                  p.ipopt_rho,
                  p.rho,
                  p.ipopt_message.c_str());
    }
    if (p.front_dominator >= 0) {
      const Eigen::Vector2d& q = front[p.front_dominator];
      std::printf(
          "  t=%.4f: dominated by front point %d (t=%.4f): "
          "(%.9e, %.9e) vs (%.9e, %.9e)\n",
          p.t,
          p.front_dominator,
          GridPreference(p.front_dominator, FLAGS_front_points),
          q[0],
          q[1],
          p.f[0],
          p.f[1]);
    }
  }
  double wc_seconds = 0.0, ws_seconds = 0.0, lm_seconds = 0.0,
         ipopt_seconds = 0.0;
  int num_ipopt_run = 0;
  for (const PointResult& p : points) {
    wc_seconds += p.seconds;
    ws_seconds += p.ws_seconds;
    lm_seconds += p.lm_seconds;
    ipopt_seconds += p.ipopt_seconds;
    if (p.ipopt_run) ++num_ipopt_run;
  }
  const int num_failures = num_false + num_ipopt_fail + num_front_dominated;
  std::printf(
      "%d CONVERGENCE, %d false certificates (%d certified of %d points)",
      num_convergence,
      num_false,
      num_certified,
      num_points);
  if (FLAGS_ipopt) {
    std::printf("; ipopt: %d disagree by > %.0e, %d not usable",
                num_ipopt_fail,
                kIpoptRhoTolerance,
                num_ipopt_unusable);
  }
  if (FLAGS_front_points > 0) {
    std::printf("; %d dominated by the %d-point weighted-sum front",
                num_front_dominated,
                FLAGS_front_points);
  }
  std::printf("; %d failures; %d with a gradient combination above %.0e "
              "(reported, not a failure)\n",
              num_failures,
              num_combination,
              kCombinationTolerance);
  std::printf("time: WC %s (wall %.2f s)\n",
              Timing(wc_seconds, num_points).c_str(),
              wc_wall_seconds);
  if (!sweep_report.empty()) std::printf("  sweep: %s\n", sweep_report.c_str());
  std::printf("time: outside LM check %s\n",
              Timing(lm_seconds, num_convergence).c_str());
  std::printf("time: weighted sums (lambda) %s\n",
              Timing(ws_seconds, num_points).c_str());
  if (FLAGS_ipopt) {
    std::printf("time: ipopt %s\n",
                Timing(ipopt_seconds, num_ipopt_run).c_str());
  }
  if (FLAGS_front_points > 0) {
    std::printf("time: front %s\n",
                Timing(front_seconds, FLAGS_front_points).c_str());
  }
  std::printf(
      "columns: a_odom = the point's KKT weight of odometry (loop closures "
      "1 - a_odom); |g|inf = max-norm of that weighted sum's gradient at "
      "the point; comb = best convex combination of the two objectives' "
      "gradients over the larger (FALSE CERTIFICATE above 1e-6); LM rel dec = its relative decrease under 50 LM "
      "iterations; dec/value = that decrease divided by max(a . f, "
      "a . (f - r)), r the reference point (FALSE CERTIFICATE above %.0e); "
      "LMd = the LM end point dominates the returned point; dom = the "
      "weighted sum with weights lambda dominates it%s%s%s\n",
      kDescentTolerance,
      FLAGS_sweep ? "; warm = the grid point that warm-started it (-1: the "
                    "file's guess)"
                  : "",
      FLAGS_ipopt ? "; ipopt drho = |rho_ipopt - rho| / |rho| (! above "
                    "1e-6: the point fails); it = Ipopt iterations"
                  : "",
      FLAGS_front_points > 0 ? "; front dom = index of a front point that "
                               "dominates it (the point fails)"
                             : "");

  if (csv != nullptr) {
    std::fprintf(csv,
                 "t,termination,strategy,certified,f1,f2,rho,wc_seconds,"
                 "omega_source,a_odometry,a_loop_closures,gradient_inf,"
                 "gradient_combination,"
                 "cost_before,cost_after,relative_decrease,range_decrease,"
                 "verdict,lm_iterations,lm_f1,lm_f2,lm_dominates,lm_seconds,"
                 "ws_termination,ws_f1,ws_f2,ws_seconds,ws_dominates,"
                 "warm_start_from,ipopt_usable,ipopt_rho,ipopt_drho,"
                 "ipopt_seconds,front_dominator\n");
    for (const PointResult& p : points) {
      const char* verdict = p.termination != ceres::CONVERGENCE ? "n/a"
                            : !p.checked                        ? "not checked"
                            : p.false_certificate ? "false certificate"
                                                  : "ok";
      std::fprintf(csv,
                   "%.17g,%s,%s,%d,%.17g,%.17g,%.17g,%.6f,%s,%.17g,%.17g,"
                   "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s,%d,%.17g,%.17g,%d,"
                   "%.6f,"
                   "%s,%.17g,%.17g,%.6f,%d,%d,%d,%.17g,%.17g,%.6f,%d\n",
                   p.t,
                   ecmo::TerminationTypeName(p.termination),
                   p.strategy.c_str(),
                   p.certified ? 1 : 0,
                   p.f[0],
                   p.f[1],
                   p.rho,
                   p.seconds,
                   p.omega_source.c_str(),
                   p.a[0],
                   p.a[1],
                   p.gradient_inf,
                   p.combination,
                   p.cost_before,
                   p.cost_after,
                   p.relative_decrease,
                   p.range_decrease,
                   verdict,
                   p.lm_iterations,
                   p.lm_f[0],
                   p.lm_f[1],
                   p.lm_dominates ? 1 : 0,
                   p.lm_seconds,
                   ecmo::TerminationTypeName(p.ws_termination),
                   p.ws_f[0],
                   p.ws_f[1],
                   p.ws_seconds,
                   p.ws_dominates ? 1 : 0,
                   p.warm_start_from,
                   p.ipopt_usable ? 1 : 0,
                   p.ipopt_rho,
                   p.ipopt_drho,
                   p.ipopt_seconds,
                   p.front_dominator);
    }
    std::fclose(csv);
  }
  return FLAGS_check && num_failures > 0 ? 1 : 0;
}

int main(int argc, char** argv) {
  gflags::SetUsageMessage(
      "Checks from outside the library whether the Pareto points "
      "(odometry vs loop closures) that ecmo::Solve returns on a real 2D or 3D "
      "g2o pose graph are stationary.\n"
      "  real_pose_graph_check --g2o=FILE [--num_points=11] "
      "[--strategy=automatic] [--check=true] [--max_points=-1] "
      "[--sweep] [--warm_start=true] [--ipopt] [--front_points=0] "
      "[--csv=PATH]");
  {
    std::string error;
    if (!PrevalidateFlags(argc, argv, &error)) {
      std::fprintf(stderr, "real_pose_graph_check: %s\n", error.c_str());
      return 2;
    }
  }
  ecmo::tools::CheckFlagsOrExit(argc, argv);
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (argc > 1) {
    std::fprintf(
        stderr, "real_pose_graph_check: unexpected argument '%s'\n", argv[1]);
    return 2;
  }
  if (FLAGS_g2o.empty()) {
    std::fprintf(stderr, "real_pose_graph_check: --g2o=FILE is required\n");
    return 2;
  }
  if (FLAGS_num_points < 2) {
    std::fprintf(stderr,
                 "real_pose_graph_check: --num_points=%d must be >= 2\n",
                 FLAGS_num_points);
    return 2;
  }
  if (FLAGS_max_points == 0 || FLAGS_max_points < -1) {
    std::fprintf(stderr,
                 "real_pose_graph_check: --max_points=%d must be -1 (all) or "
                 ">= 1\n",
                 FLAGS_max_points);
    return 2;
  }
  if (FLAGS_front_points == 1 || FLAGS_front_points < 0) {
    std::fprintf(stderr,
                 "real_pose_graph_check: --front_points=%d must be 0 (off) "
                 "or >= 2\n",
                 FLAGS_front_points);
    return 2;
  }
  ecmo::Solver::Options options;
  if (!ecmo::StringToStrategyType(FLAGS_strategy, &options.strategy)) {
    std::string names;
    for (const std::string& name : ecmo::StrategyTypeNames()) {
      names += (names.empty() ? "" : ", ") + name;
    }
    std::fprintf(stderr,
                 "real_pose_graph_check: unknown --strategy=%s (one of %s)\n",
                 FLAGS_strategy.c_str(),
                 names.c_str());
    return 2;
  }
  FILE* csv = nullptr;
  if (!FLAGS_csv.empty()) {
    csv = std::fopen(FLAGS_csv.c_str(), "w");
    if (csv == nullptr) {
      std::fprintf(stderr,
                   "real_pose_graph_check: cannot write --csv=%s\n",
                   FLAGS_csv.c_str());
      return 2;
    }
  }
  // The file's first record says whether it is a 2D or a 3D graph.
  if (ecmo_pipelines::IsG2oFile3d(FLAGS_g2o)) {
    return Run<ecmo_pipelines::G2oPoseGraph3d>(options, csv);
  }
  return Run<G2oPoseGraph2d>(options, csv);
}
