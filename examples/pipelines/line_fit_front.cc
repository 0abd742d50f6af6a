// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Bring your own ceres::Problem, example 1: the Pareto front of a line fit
// to two data sets that disagree.
//
// Two sensors see points that should lie on one line; they disagree (their
// calibrations differ), and sensor B also produces outliers, so its residual
// blocks carry a ceres::CauchyLoss. The line is in Hessian normal form,
//
//   { p in R^2 : n . p = d },   |n| = 1,
//
// with n on a ceres::SphereManifold (the unit circle) and d free: the
// residual of a point is its signed distance n . p_i - d. This is an
// ordinary Ceres problem; ceres::Solve would return one compromise (the
// minimizer of cost_A + cost_B). CeresProblemAdapter instead treats the cost
// of each sensor's residual blocks as an objective and traces the Pareto
// front of (cost_A, cost_B) with the weighted-Chebyshev strategies, keeping
// n on the circle.
//
// The program also builds the same fit with |n|^2 - 1 = 0 as an equality
// residual block (a constraint group) instead of the manifold, traces that
// front too, and prints the largest difference between the two fronts.
//
// It checks its own results (CTest runs it as example_line_fit_front) and
// exits 1 when a check fails: every solve of both fronts ends in
// CONVERGENCE, the two fronts agree, the front is monotone (no point
// dominates another), and sensor A's end of the front has the cost of the
// closed-form best line through A's points (orthogonal regression: n is the
// eigenvector of the smallest eigenvalue of A's scatter matrix).
//
//   line_fit_front [--out=PREFIX] [--points=40]
//
// writes PREFIX.csv (ecmo::CsvHeader / CsvRow) and PREFIX.json (an array of
// ecmo::SummaryToJson objects); PREFIX defaults to "line_fit_front".

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/Eigenvalues"
#include "ceres/autodiff_cost_function.h"
#include "ceres/loss_function.h"
#include "ceres/problem.h"
#include "ceres/solver.h"
#include "ceres/sphere_manifold.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/preference_grid.h"
#include "ecmo/result_writer.h"
#include "ecmo/solver.h"
#include "nlohmann/json.hpp"

namespace {

// Signed distance of (x, y) to the line n . p = d.
struct PointToLine {
  PointToLine(double x, double y) : x(x), y(y) {}
  template <typename T>
  bool operator()(const T* n, const T* d, T* r) const {
    r[0] = n[0] * x + n[1] * y - d[0];
    return true;
  }
  double x, y;
};

// |n|^2 - 1 (the manifold written as an equality residual).
struct UnitNorm {
  template <typename T>
  bool operator()(const T* n, T* r) const {
    r[0] = n[0] * n[0] + n[1] * n[1] - T(1.0);
    return true;
  }
};

struct Data {
  std::vector<double> ax, ay, bx, by;
};

// Sensor A: y = 0.5 x + 1 with noise. Sensor B: a rotated and shifted view
// of the same line, y = 0.2 x + 1.6, with noise and 10% outliers.
Data MakeData(int n) {
  std::mt19937 rng(42);
  std::normal_distribution<double> noise(0.0, 0.05);
  std::uniform_real_distribution<double> along(-3.0, 3.0);
  std::uniform_real_distribution<double> outlier(-2.0, 2.0);
  Data data;
  for (int i = 0; i < n; ++i) {
    const double xa = along(rng);
    data.ax.push_back(xa);
    data.ay.push_back(0.5 * xa + 1.0 + noise(rng));
    const double xb = along(rng);
    data.bx.push_back(xb);
    data.by.push_back(0.2 * xb + 1.6 + noise(rng) +
                      (i % 10 == 0 ? outlier(rng) : 0.0));
  }
  return data;
}

// The user's problem: one residual block per point, recorded per sensor.
// With `unit_norm_residual` the unit norm is an equality residual block
// (returned in `norm`), otherwise a SphereManifold on n.
void BuildProblem(const Data& data,
                  bool unit_norm_residual,
                  double* n,
                  double* d,
                  ceres::Problem* problem,
                  std::vector<ceres::ResidualBlockId>* fit_a,
                  std::vector<ceres::ResidualBlockId>* fit_b,
                  std::vector<ceres::ResidualBlockId>* norm) {
  for (size_t i = 0; i < data.ax.size(); ++i) {
    fit_a->push_back(problem->AddResidualBlock(
        new ceres::AutoDiffCostFunction<PointToLine, 1, 2, 1>(
            new PointToLine(data.ax[i], data.ay[i])),
        nullptr,
        n,
        d));
    fit_b->push_back(problem->AddResidualBlock(
        new ceres::AutoDiffCostFunction<PointToLine, 1, 2, 1>(
            new PointToLine(data.bx[i], data.by[i])),
        new ceres::CauchyLoss(0.1),
        n,
        d));
  }
  if (unit_norm_residual) {
    norm->push_back(problem->AddResidualBlock(
        new ceres::AutoDiffCostFunction<UnitNorm, 1, 2>(new UnitNorm),
        nullptr,
        n));
  } else {
    // Ceres 2.1: SphereManifold<2> does not compile (its 2 x 1 PlusJacobian
    // is declared row-major); the dynamic-size version works.
    problem->SetManifold(n, new ceres::SphereManifold<ceres::DYNAMIC>(2));
  }
}

// The smallest cost_A over all lines, in closed form: with residuals
// n . p_i - d and |n| = 1, the best d is n . mean and the best n the
// eigenvector of the smallest eigenvalue of the scatter matrix
// sum_i (p_i - mean)(p_i - mean)^T, so min cost_A = 1/2 that eigenvalue.
double OrthogonalRegressionCost(const std::vector<double>& x,
                                const std::vector<double>& y) {
  Eigen::Vector2d mean = Eigen::Vector2d::Zero();
  for (size_t i = 0; i < x.size(); ++i) mean += Eigen::Vector2d(x[i], y[i]);
  mean /= x.size();
  Eigen::Matrix2d scatter = Eigen::Matrix2d::Zero();
  for (size_t i = 0; i < x.size(); ++i) {
    const Eigen::Vector2d p = Eigen::Vector2d(x[i], y[i]) - mean;
    scatter += p * p.transpose();
  }
  return 0.5 * Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>(scatter)
                   .eigenvalues()[0];
}

std::string Flag(int argc, char** argv, const char* name, const char* value) {
  const std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
      return argv[i] + prefix.size();
    }
  }
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string out = Flag(argc, argv, "out", "line_fit_front");
  const int num_points = std::atoi(Flag(argc, argv, "points", "40").c_str());
  if (num_points < 2) {
    std::fprintf(stderr, "--points must be >= 2\n");
    return 1;
  }
  const Data data = MakeData(num_points);

  // Start: the horizontal line y = 1.3 (n = (0, 1), d = 1.3).
  double n[2] = {0.0, 1.0};
  double d[1] = {1.3};
  ceres::Problem problem;
  std::vector<ceres::ResidualBlockId> fit_a, fit_b, unused;
  BuildProblem(data, false, n, d, &problem, &fit_a, &fit_b, &unused);

  // What plain Ceres gives: the minimizer of cost_A + cost_B.
  {
    double n0[2] = {n[0], n[1]}, d0 = d[0];
    ceres::Solver::Options options;
    ceres::Solver::Summary summary;
    ceres::Solve(options, &problem, &summary);
    ceres::Problem::EvaluateOptions eval;
    double cost_a, cost_b;
    eval.residual_blocks = fit_a;
    problem.Evaluate(eval, &cost_a, nullptr, nullptr, nullptr);
    eval.residual_blocks = fit_b;
    problem.Evaluate(eval, &cost_b, nullptr, nullptr, nullptr);
    std::printf(
        "ceres::Solve (cost_A + cost_B): n = (%.6f, %.6f), d = %.6f, "
        "cost_A = %.6f, cost_B = %.6f\n\n",
        n[0],
        n[1],
        d[0],
        cost_a,
        cost_b);
    n[0] = n0[0];
    n[1] = n0[1];
    d[0] = d0;
  }

  // The two sensors' costs as objectives; n stays on its SphereManifold.
  ecmo::CeresProblemAdapter::Options adapter_options;
  adapter_options.parameter_block_names = {{n, "normal"}, {d, "offset"}};
  ecmo::CeresProblemAdapter adapter(&problem,
                                    {{"cost_A", fit_a}, {"cost_B", fit_b}},
                                    /*constraints=*/{},
                                    adapter_options);
  std::string error;
  if (!adapter.IsValid(&error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }

  // The same fit with |n|^2 = 1 as an equality residual block.
  double n2[2] = {0.0, 1.0};
  double d2[1] = {1.3};
  ceres::Problem problem2;
  std::vector<ceres::ResidualBlockId> fit_a2, fit_b2, norm2;
  BuildProblem(data, true, n2, d2, &problem2, &fit_a2, &fit_b2, &norm2);
  ecmo::CeresProblemAdapter adapter2(&problem2,
                                     {{"cost_A", fit_a2}, {"cost_B", fit_b2}},
                                     {{"unit_norm", norm2}});
  if (!adapter2.IsValid(&error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }

  ecmo::Solver::Options options;
  options.strategy = ecmo::StrategyType::WC_AUGMENTED_LAGRANGIAN;
  options.max_iterations = 20000;
  options.record_history = false;
  // Weighted Chebyshev measures lambda_s (f_s - r_s) / w_s from a reference
  // point r below the front. By default every Solve finds r, the utopia
  // point, with one single-objective solve per objective. For a front,
  // compute it once: the same r for every preference and for both
  // formulations (so their points are comparable), and the scales
  // w = nadir - utopia, so that the 11 preferences spread over the front
  // although cost_A spans a range 25 times larger than cost_B.
  options.normalize_objectives = true;
  ecmo::Scalarization scalarization;
  if (!ecmo::ComputeScalarization(
          options, &adapter, adapter.GetParameters(), &scalarization, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const Eigen::VectorXd& r = scalarization.reference_point;
  const Eigen::VectorXd& w = scalarization.objective_scale;
  options.reference_point = {r[0], r[1]};
  options.objective_scale = {w[0], w[1]};
  std::printf(
      "reference point (utopia) r = (%.6f, %.6f), scales w = (%.6f, "
      "%.6f)\n\n",
      r[0],
      r[1],
      w[0],
      w[1]);

  std::ofstream csv(out + ".csv");
  csv << ecmo::CsvHeader(2, adapter.NumParameters()) << "\n";
  nlohmann::json json = nlohmann::json::array();

  // The answer at sensor A's end of the front, in closed form.
  const double best_cost_a = OrthogonalRegressionCost(data.ax, data.ay);
  std::printf("%9s %12s %12s %11s %11s %11s %12s %-12s %s\n",
              "lambda_A",
              "cost_A",
              "cost_B",
              "n_x",
              "n_y",
              "d",
              "||K||^2 LS",
              "termination",
              "check");
  double max_gap = 0.0;
  int failures = 0;
  double previous_a = INFINITY, previous_b = -INFINITY;
  // Walk from "B only" to "A only" (EvenlySpaced2 lists the two ends first,
  // so sort by lambda_A), warm-starting each solve from the last.
  std::vector<std::vector<double>> grid = ecmo::EvenlySpaced2(11);
  std::sort(grid.begin(), grid.end());
  for (const auto& weights : grid) {
    const std::vector<double> lambda = ecmo::ToOpenSimplex(weights);
    ecmo::Solver::Summary summary, summary2;
    ecmo::Solve(options, &adapter, lambda, &summary);
    ecmo::Solve(options, &adapter2, lambda, &summary2);
    const bool converged = summary.termination_type == ceres::CONVERGENCE &&
                           summary2.termination_type == ceres::CONVERGENCE;
    std::printf("%9.4f %12.6f %12.6f %11.6f %11.6f %11.6f %12.3e %-12s ",
                lambda[0],
                summary.objectives.size() ? summary.objectives[0] : NAN,
                summary.objectives.size() ? summary.objectives[1] : NAN,
                n[0],
                n[1],
                d[0],
                summary.kkt.with_least_squares_multipliers.SquaredNorm(),
                ecmo::TerminationTypeName(summary.termination_type));
    if (!converged) {
      ++failures;
      std::printf(
          "FAIL: not converged\n  manifold: %s\n  |n|^2 - 1 = 0: "
          "%s (%s)\n",
          summary.message.c_str(),
          summary2.message.c_str(),
          ecmo::TerminationTypeName(summary2.termination_type));
      continue;
    }
    const double cost_a = summary.objectives[0], cost_b = summary.objectives[1];
    // The two formulations find the same point.
    const double gap = std::max(std::abs(cost_a - summary2.objectives[0]),
                                std::abs(cost_b - summary2.objectives[1]));
    max_gap = std::max(max_gap, gap);
    std::string why;
    if (gap > 1e-5) why += " fronts differ by " + std::to_string(gap) + ";";
    // Moving towards A never makes cost_A worse or cost_B better.
    if (cost_a > previous_a + 1e-7 || cost_b < previous_b - 1e-7) {
      why += " not monotone (dominated by or dominating the last point);";
    }
    // No line fits A better than the orthogonal regression, and the end of
    // the front (lambda_A ~ 1) attains it.
    if (cost_a < best_cost_a * (1 - 1e-7) ||
        (weights[0] == 1.0 && cost_a > best_cost_a * (1 + 1e-6))) {
      why += " cost_A " + std::to_string(cost_a) + " vs closed form " +
             std::to_string(best_cost_a) + ";";
    }
    previous_a = cost_a;
    previous_b = cost_b;
    if (!why.empty()) ++failures;
    std::printf("%s%s\n", why.empty() ? "PASS" : "FAIL:", why.c_str());
    csv << ecmo::CsvRow(summary, "line_fit") << "\n";
    json.push_back(ecmo::SummaryToJson(summary, "line_fit"));
  }
  std::ofstream(out + ".json") << json.dump(2) << "\n";
  std::printf(
      "\nLargest |objective| difference between the SphereManifold front and "
      "the |n|^2 - 1 = 0 front: %.2e\nClosed-form best cost_A (orthogonal "
      "regression): %.6f\nWrote %s.csv and %s.json\n%s: %d of %zu points "
      "failed a check\n",
      max_gap,
      best_cost_a,
      out.c_str(),
      out.c_str(),
      failures == 0 ? "PASS" : "FAIL",
      failures,
      grid.size());
  return failures == 0 ? 0 : 1;
}
