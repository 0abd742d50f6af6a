// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Bring your own ceres::Problem, example 2: an attitude (rotation) fit to
// two conflicting sets of vector observations, under an equality, on the
// unit-quaternion manifold.
//
// A body carries two sensors that observe known directions: a star tracker
// (set A: body vectors u_i whose world directions v_i are known) and a sun
// sensor / magnetometer pair (set B). Sensor B is misaligned by about 15
// degrees, so the two sets want different rotations. The attitude is a unit
// quaternion q (Ceres' [w, x, y, z] order) on a ceres::QuaternionManifold,
// and every observation is an ordinary residual block
//
//   r_i(q) = R(q) u_i - v_i      (ceres::QuaternionRotatePoint).
//
// The mission also needs the body boresight (body z axis) to be horizontal:
// (R(q) e_z)_z = 0, one more residual block that we declare an equality.
// Plain ceres::Solve can only minimize cost_A + cost_B (the equality would
// be a soft penalty at best); CeresProblemAdapter traces the Pareto front of
// (cost_A, cost_B) with the boresight exactly horizontal and q on the
// manifold.
//
// It checks its own results (CTest runs it as example_rotation_front) and
// exits 1 when a check fails: every point ends in CONVERGENCE with |q| = 1
// and the boresight horizontal, the front is monotone (no point dominates
// another), and no attitude of a brute-force grid over all attitudes with a
// horizontal boresight beats a point in the weighted-Chebyshev value it
// minimized (nor beats the ideal point in either cost).
//
//   rotation_front [--out=PREFIX]
//
// writes PREFIX.csv and PREFIX.json (ecmo/result_writer.h); PREFIX defaults
// to "rotation_front".

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/Geometry"
#include "ceres/autodiff_cost_function.h"
#include "ceres/manifold.h"
#include "ceres/problem.h"
#include "ceres/solver.h"
#include "attitude_costs.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/preference_grid.h"
#include "ecmo/result_writer.h"
#include "ecmo/solver.h"
#include "nlohmann/json.hpp"

namespace {

using ecmo_pipelines::HorizontalBoresight;
using ecmo_pipelines::Observation;

Eigen::Quaterniond ToEigen(const double* q) {
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized();
}

// cost = 1/2 sum_i |R u_i - v_i|^2 = 1/2 sum_i (|u_i|^2 + |v_i|^2) -
// trace(R^T M) with M = sum_i v_i u_i^T: cheap enough for a brute-force
// grid over attitudes.
struct RotationCost {
  void Add(const Eigen::Vector3d& u, const Eigen::Vector3d& v) {
    constant += 0.5 * (u.squaredNorm() + v.squaredNorm());
    m += v * u.transpose();
  }
  double operator()(const Eigen::Matrix3d& rotation) const {
    return constant - (rotation.transpose() * m).trace();
  }
  double constant = 0.0;
  Eigen::Matrix3d m = Eigen::Matrix3d::Zero();
};

double Degrees(double radians) { return radians * 180.0 / M_PI; }

// Boresight elevation above the horizontal plane, in degrees.
double Elevation(const double* q) {
  const Eigen::Vector3d axis = ToEigen(q) * Eigen::Vector3d::UnitZ();
  return Degrees(std::asin(std::max(-1.0, std::min(1.0, axis.z()))));
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
  const std::string out = Flag(argc, argv, "out", "rotation_front");

  // True attitudes seen by the two sensors: boresight 6 degrees up (A) and,
  // through B's misalignment, about 15 degrees away from A.
  const Eigen::Quaterniond qa =
      Eigen::AngleAxisd(0.6, Eigen::Vector3d::UnitZ()) *
      Eigen::AngleAxisd(-M_PI / 2 + 6.0 * M_PI / 180, Eigen::Vector3d::UnitY());
  const Eigen::Quaterniond qb =
      qa * Eigen::AngleAxisd(15.0 * M_PI / 180,
                             Eigen::Vector3d(1.0, -2.0, 0.5).normalized());
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0.0, 0.002);
  auto random_unit = [&] {
    Eigen::Vector3d u(noise(rng), noise(rng), noise(rng));
    return u.normalized();
  };

  double q[4] = {1.0, 0.0, 0.0, 0.0};
  ceres::Problem problem;
  std::vector<ceres::ResidualBlockId> star_tracker, sun_magnetometer, level;
  RotationCost cost_a, cost_b;  // the same costs, for the check
  for (int i = 0; i < 6; ++i) {
    const Eigen::Vector3d u = random_unit();
    const Eigen::Vector3d v =
        qa * u + Eigen::Vector3d(noise(rng), noise(rng), noise(rng));
    cost_a.Add(u, v);
    star_tracker.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Observation, 3, 4>(
            new Observation(u, v)),
        nullptr,
        q));
  }
  for (int i = 0; i < 2; ++i) {
    const Eigen::Vector3d u = random_unit();
    const Eigen::Vector3d v = qb * u;
    cost_b.Add(u, v);
    sun_magnetometer.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Observation, 3, 4>(
            new Observation(u, v)),
        nullptr,
        q));
  }
  problem.SetManifold(q, new ceres::QuaternionManifold());

  // Plain Ceres: the compromise minimizing cost_A + cost_B, boresight free.
  {
    ceres::Solver::Options options;
    ceres::Solver::Summary summary;
    ceres::Solve(options, &problem, &summary);
    std::printf(
        "ceres::Solve (cost_A + cost_B, no equality): %.2f deg from A, %.2f "
        "deg from B, boresight elevation %.3f deg\n\n",
        Degrees(ToEigen(q).angularDistance(qa)),
        Degrees(ToEigen(q).angularDistance(qb)),
        Elevation(q));
  }
  // Start the front from that compromise, and add the equality.
  level.push_back(problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<HorizontalBoresight, 1, 4>(
          new HorizontalBoresight),
      nullptr,
      q));

  ecmo::CeresProblemAdapter adapter(
      &problem,
      {{"star_tracker", star_tracker}, {"sun_magnetometer", sun_magnetometer}},
      {{"horizontal_boresight", level}});
  std::string error;
  if (!adapter.IsValid(&error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }

  ecmo::Solver::Options options;
  options.strategy = ecmo::StrategyType::WC_AUGMENTED_LAGRANGIAN;
  options.max_iterations = 20000;
  options.record_history = false;
  // Weighted Chebyshev measures max_s lambda_s (f_s - r_s) / w_s from a
  // reference point r. Measured from r = 0, a whole range of lambda near
  // either end would select the same end point, because cost_A and cost_B
  // are far from 0 there. The default r is the utopia point: each sensor's
  // best fit under the equality (one single-objective solve per objective),
  // minus a margin, so below every attainable cost (infeasible iterates
  // that dip below it do no harm), and a preference picks the point on the ray
  // r + t (w_A / lambda_A, w_B / lambda_B). Computing it once for the whole
  // front (rather than in every Solve) gives all points the same r, and
  // normalize_objectives sets w = nadir - utopia, so that 9 evenly spaced
  // preferences spread evenly over the front.
  options.normalize_objectives = true;
  ecmo::Scalarization scalarization;
  if (!ecmo::ComputeScalarization(
          options, &adapter, adapter.GetParameters(), &scalarization, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const Eigen::VectorXd& r = scalarization.reference_point;
  const Eigen::VectorXd& w = scalarization.objective_scale;
  const Eigen::VectorXd& ideal = scalarization.ideal_point;
  options.reference_point = {r[0], r[1]};
  options.objective_scale = {w[0], w[1]};
  std::printf(
      "ideal point: cost_A* = %.6e, cost_B* = %.6e\n", ideal[0], ideal[1]);
  std::printf(
      "reference point (utopia) r = (%.6e, %.6e), scales w = (%.6e, "
      "%.6e)\n\n",
      r[0],
      r[1],
      w[0],
      w[1]);

  // For the check: every attitude with a horizontal boresight is
  // R = Rz(psi) Ry(90 deg) Rz(phi) (Rz(phi) keeps e_z, Ry(90 deg) takes it
  // to e_x, Rz(psi) turns it in the horizontal plane). A 0.25-degree grid
  // over (psi, phi): the costs of 2 million feasible attitudes.
  const int grid_size = 1440;
  std::vector<double> grid_a, grid_b;
  grid_a.reserve(grid_size * grid_size);
  grid_b.reserve(grid_size * grid_size);
  const Eigen::Matrix3d tilt =
      Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitY()).toRotationMatrix();
  for (int i = 0; i < grid_size; ++i) {
    const Eigen::Matrix3d yaw =
        Eigen::AngleAxisd(2 * M_PI * i / grid_size, Eigen::Vector3d::UnitZ())
            .toRotationMatrix() *
        tilt;
    for (int j = 0; j < grid_size; ++j) {
      const Eigen::Matrix3d rotation =
          yaw *
          Eigen::AngleAxisd(2 * M_PI * j / grid_size, Eigen::Vector3d::UnitZ())
              .toRotationMatrix();
      grid_a.push_back(cost_a(rotation));
      grid_b.push_back(cost_b(rotation));
    }
  }
  int failures = 0;
  const double grid_min_a = *std::min_element(grid_a.begin(), grid_a.end());
  const double grid_min_b = *std::min_element(grid_b.begin(), grid_b.end());
  const bool ideal_ok = ideal[0] <= grid_min_a + 1e-9 &&
                        ideal[1] <= grid_min_b + 1e-9 &&
                        scalarization.message.empty();
  std::printf("%s ideal point vs grid minima (%.6e, %.6e)%s%s\n\n",
              ideal_ok ? "PASS" : "FAIL:",
              grid_min_a,
              grid_min_b,
              scalarization.message.empty() ? "" : ": ",
              scalarization.message.c_str());
  if (!ideal_ok) ++failures;

  std::ofstream csv(out + ".csv");
  csv << ecmo::CsvHeader(2, adapter.NumParameters()) << "\n";
  nlohmann::json json = nlohmann::json::array();
  std::printf("%9s %12s %12s %10s %10s %12s %12s %-12s %s\n",
              "lambda_A",
              "cost_A",
              "cost_B",
              "deg to A",
              "deg to B",
              "elevation",
              "||K||^2 LS",
              "termination",
              "check (WC value - grid best)");
  // Walk the front from B's end to A's (EvenlySpaced2 lists the two ends
  // first, so sort by lambda_A), warm-starting every solve from the last
  // point.
  std::vector<std::vector<double>> preferences = ecmo::EvenlySpaced2(9);
  std::sort(preferences.begin(), preferences.end());
  double previous_a = INFINITY, previous_b = -INFINITY;
  for (const auto& weights : preferences) {
    const std::vector<double> lambda = ecmo::ToOpenSimplex(weights);
    ecmo::Solver::Summary summary;
    ecmo::Solve(options, &adapter, lambda, &summary);
    if (summary.termination_type != ceres::CONVERGENCE) {
      ++failures;
      std::printf("%9.4f FAIL: %s: %s\n",
                  lambda[0],
                  ecmo::TerminationTypeName(summary.termination_type),
                  summary.message.c_str());
      continue;
    }
    const double f_a = summary.objectives[0], f_b = summary.objectives[1];
    auto chebyshev = [&](double a, double b) {
      return std::max(lambda[0] * (a - r[0]) / w[0],
                      lambda[1] * (b - r[1]) / w[1]);
    };
    const double value = chebyshev(f_a, f_b);
    double grid_best = INFINITY;
    for (size_t i = 0; i < grid_a.size(); ++i) {
      grid_best = std::min(grid_best, chebyshev(grid_a[i], grid_b[i]));
    }
    const double norm_q =
        std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    std::string why;
    if (std::abs(norm_q - 1.0) > 1e-12) why += " |q| != 1;";
    if (std::abs(Elevation(q)) > 1e-5) why += " boresight not horizontal;";
    if (value > grid_best + 1e-9) why += " a grid attitude is better;";
    if (f_a > previous_a + 1e-9 || f_b < previous_b - 1e-9) {
      why += " not monotone (dominated by or dominating the last point);";
    }
    previous_a = f_a;
    previous_b = f_b;
    if (!why.empty()) ++failures;
    std::printf(
        "%9.4f %12.6e %12.6e %10.3f %10.3f %12.2e %12.3e %-12s "
        "%s (%.1e)%s\n",
        lambda[0],
        f_a,
        f_b,
        Degrees(ToEigen(q).angularDistance(qa)),
        Degrees(ToEigen(q).angularDistance(qb)),
        Elevation(q),
        summary.kkt.with_least_squares_multipliers.SquaredNorm(),
        ecmo::TerminationTypeName(summary.termination_type),
        why.empty() ? "PASS" : "FAIL",
        value - grid_best,
        why.c_str());
    csv << ecmo::CsvRow(summary, "rotation_fit") << "\n";
    json.push_back(ecmo::SummaryToJson(summary, "rotation_fit"));
  }
  std::ofstream(out + ".json") << json.dump(2) << "\n";
  std::printf(
      "\n|q| = %.15f (on the manifold)\nWrote %s.csv and %s.json\n%s: %d of "
      "%zu points failed a check\n",
      std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]),
      out.c_str(),
      out.c_str(),
      failures == 0 ? "PASS" : "FAIL",
      failures,
      preferences.size());
  return failures == 0 ? 0 : 1;
}
