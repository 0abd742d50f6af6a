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
#include "ceres/rotation.h"
#include "ceres/solver.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/preference_grid.h"
#include "ecmo/result_writer.h"
#include "ecmo/solver.h"
#include "nlohmann/json.hpp"

namespace {

// R(q) u - v.
struct Observation {
  Observation(const Eigen::Vector3d& u, const Eigen::Vector3d& v)
      : u{u.x(), u.y(), u.z()}, v{v.x(), v.y(), v.z()} {}
  template <typename T>
  bool operator()(const T* q, T* r) const {
    const T body[3] = {T(u[0]), T(u[1]), T(u[2])};
    T world[3];
    ceres::QuaternionRotatePoint(q, body, world);
    for (int i = 0; i < 3; ++i) r[i] = world[i] - v[i];
    return true;
  }
  double u[3], v[3];
};

// The world z component of the body z axis: 0 when the boresight is
// horizontal.
struct HorizontalBoresight {
  template <typename T>
  bool operator()(const T* q, T* r) const {
    const T ez[3] = {T(0.0), T(0.0), T(1.0)};
    T world[3];
    ceres::QuaternionRotatePoint(q, ez, world);
    r[0] = world[2];
    return true;
  }
};

Eigen::Quaterniond ToEigen(const double* q) {
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized();
}

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
  for (int i = 0; i < 6; ++i) {
    const Eigen::Vector3d u = random_unit();
    const Eigen::Vector3d v =
        qa * u + Eigen::Vector3d(noise(rng), noise(rng), noise(rng));
    star_tracker.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Observation, 3, 4>(
            new Observation(u, v)),
        nullptr,
        q));
  }
  for (int i = 0; i < 2; ++i) {
    const Eigen::Vector3d u = random_unit();
    const Eigen::Vector3d v = qb * u;
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
  options.kkt_tolerance = 1e-14;
  options.record_history = false;

  // The ends of the front first: each sensor's best fit under the equality
  // (almost all weight on one objective). Their values are the ideal point
  // f*. Weighted Chebyshev measures max_s lambda_s (f_s + offset_s); with
  // offset 0 a whole range of lambda near either end selects the same end
  // point, because f_A and f_B are far from 0 there. Measuring from just
  // below the ideal point (offset_s = -f*_s + 1e-3 (f_s(other end) - f*_s),
  // which keeps every f_s + offset_s > 0) spreads the lambda grid over the
  // whole front; the Pareto set is the same.
  const double q_start[4] = {q[0], q[1], q[2], q[3]};
  auto restart = [&] { std::copy(q_start, q_start + 4, q); };
  ecmo::Solver::Summary end_a, end_b;
  ecmo::Solve(options, &adapter, {1.0 - 1e-4, 1e-4}, &end_a);
  restart();
  ecmo::Solve(options, &adapter, {1e-4, 1.0 - 1e-4}, &end_b);
  restart();
  if (!end_a.IsSolutionUsable() || !end_b.IsSolutionUsable()) {
    std::fprintf(stderr,
                 "end points failed: %s / %s\n",
                 end_a.message.c_str(),
                 end_b.message.c_str());
    return 1;
  }
  const double ideal_a = end_a.objectives[0], ideal_b = end_b.objectives[1];
  options.objective_offset = {
      -ideal_a + 1e-3 * (end_b.objectives[0] - ideal_a),
      -ideal_b + 1e-3 * (end_a.objectives[1] - ideal_b)};
  std::printf(
      "ideal point: cost_A* = %.6e, cost_B* = %.6e\n\n", ideal_a, ideal_b);
  // Walk the front from B's end, warm-starting every solve from the last
  // point: feasible starts keep f_s + offset_s > 0.
  std::copy(end_b.z.data(), end_b.z.data() + 4, q);

  std::ofstream csv(out + ".csv");
  csv << ecmo::CsvHeader(2, adapter.NumParameters()) << "\n";
  nlohmann::json json = nlohmann::json::array();
  std::printf("%9s %12s %12s %10s %10s %12s %12s %s\n",
              "lambda_A",
              "cost_A",
              "cost_B",
              "deg to A",
              "deg to B",
              "elevation",
              "||K||^2 LS",
              "termination");
  int failures = 0;
  for (const auto& weights : ecmo::EvenlySpaced2(9)) {
    const std::vector<double> lambda = ecmo::ToOpenSimplex(weights);
    ecmo::Solver::Summary summary;
    ecmo::Solve(options, &adapter, lambda, &summary);
    if (!summary.IsSolutionUsable()) {
      ++failures;
      std::printf("%9.4f failed: %s\n", lambda[0], summary.message.c_str());
      continue;
    }
    std::printf("%9.4f %12.6e %12.6e %10.3f %10.3f %12.2e %12.3e %s\n",
                lambda[0],
                summary.objectives[0],
                summary.objectives[1],
                Degrees(ToEigen(q).angularDistance(qa)),
                Degrees(ToEigen(q).angularDistance(qb)),
                Elevation(q),
                summary.kkt.with_least_squares_multipliers.SquaredNorm(),
                ecmo::TerminationTypeName(summary.termination_type));
    csv << ecmo::CsvRow(summary, "rotation_fit") << "\n";
    json.push_back(ecmo::SummaryToJson(summary, "rotation_fit"));
  }
  std::ofstream(out + ".json") << json.dump(2) << "\n";
  std::printf("\n|q| = %.15f (on the manifold)\nWrote %s.csv and %s.json\n",
              std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]),
              out.c_str(),
              out.c_str());
  return failures == 0 ? 0 : 1;
}
