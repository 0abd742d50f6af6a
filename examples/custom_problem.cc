// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// A complete user-defined ECMO problem, solved from C++: two objectives that
// pull a point in the plane towards (1, 0) and (0, 1), under the constraint
// that it stays on the circle of radius 2. The README shows this file.
//
// The program also checks its answers (CTest runs it as
// example_custom_problem): every solve must end in CONVERGENCE, the point
// must lie on the circle, and no point of a fine scan of the circle may
// beat it, neither in the weighted-Chebyshev value the solver minimized nor
// in both objectives at once (Pareto optimality). With equal preferences
// the answer is known in closed form, z = (sqrt 2, sqrt 2). Exit status 1
// when any check fails.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "ceres/autodiff_cost_function.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"

// f_s(z) = ||z - c_s||^2: one residual, the objective's value.
struct DistanceTo {
  DistanceTo(double cx, double cy) : cx(cx), cy(cy) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - cx) * (z[0] - cx) + (z[1] - cy) * (z[1] - cy);
    return true;
  }
  double cx, cy;
};

// h(z) = ||z||^2 - 4: every residual must vanish.
struct OnCircle {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = z[0] * z[0] + z[1] * z[1] - 4.0;
    return true;
  }
};

// The check: z on the circle, and not beaten by any of 10^5 points of the
// circle. The solver minimized max_s lambda_s (f_s - r_s) / w_s with the
// reference point r and scales w it reports in summary.scalarization.
bool CheckAgainstCircleScan(const std::vector<double>& lambda,
                            const ecmo::Solver::Summary& summary,
                            const double* z) {
  auto f = [](double x, double y, double cx, double cy) {
    return (x - cx) * (x - cx) + (y - cy) * (y - cy);
  };
  const Eigen::VectorXd& r = summary.scalarization.reference_point;
  const Eigen::VectorXd& w = summary.scalarization.objective_scale;
  auto chebyshev = [&](double f0, double f1) {
    return std::max(lambda[0] * (f0 - r[0]) / w[0],
                    lambda[1] * (f1 - r[1]) / w[1]);
  };
  const double f0 = f(z[0], z[1], 1.0, 0.0), f1 = f(z[0], z[1], 0.0, 1.0);
  const double value = chebyshev(f0, f1);
  double best_scan = INFINITY;
  int dominating = 0;  // circle points better in both objectives
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double t = 2.0 * M_PI * i / n;
    const double x = 2.0 * std::cos(t), y = 2.0 * std::sin(t);
    const double g0 = f(x, y, 1.0, 0.0), g1 = f(x, y, 0.0, 1.0);
    best_scan = std::min(best_scan, chebyshev(g0, g1));
    if (g0 < f0 - 1e-7 && g1 < f1 - 1e-7) ++dominating;
  }
  const double h = z[0] * z[0] + z[1] * z[1] - 4.0;
  bool ok = summary.termination_type == ceres::CONVERGENCE &&
            std::abs(h) <= 1e-6 && value <= best_scan + 1e-7 &&
            dominating == 0;
  std::printf(
      "%s lambda = (%.2f, %.2f): %s, z = (%.6f, %.6f), |h| = %.1e, "
      "WC value %.9f vs best of circle scan %.9f, %d scan points dominate "
      "it",
      ok ? "PASS" : "FAIL", lambda[0], lambda[1],
      ecmo::TerminationTypeName(summary.termination_type), z[0], z[1],
      std::abs(h), value, best_scan, dominating);
  // Equal preferences (and, by symmetry, equal r and w): z = (sqrt 2, sqrt 2).
  if (lambda[0] == lambda[1]) {
    const double error =
        std::hypot(z[0] - std::sqrt(2.0), z[1] - std::sqrt(2.0));
    std::printf(", %.1e from (sqrt 2, sqrt 2)", error);
    if (error > 1e-6) {
      std::printf(" FAIL");
      ok = false;
    }
  }
  std::printf("\n");
  return ok;
}

int main() {
  double z[2] = {1.0, 1.0};  // user-owned parameter block, start point
  ecmo::Problem problem;
  problem.AddObjective(
      std::make_unique<ceres::AutoDiffCostFunction<DistanceTo, 1, 2>>(
          new DistanceTo(1.0, 0.0)),
      {z}, "to_x");
  problem.AddObjective(
      std::make_unique<ceres::AutoDiffCostFunction<DistanceTo, 1, 2>>(
          new DistanceTo(0.0, 1.0)),
      {z}, "to_y");
  problem.AddConstraint(
      std::make_unique<ceres::AutoDiffCostFunction<OnCircle, 1, 2>>(
          new OnCircle),
      {z}, "circle");

  // Defaults: the reference point r is the utopia point (found by one
  // single-objective solve per objective), so no sign or offset is needed.
  ecmo::Solver::Options options;
  options.max_iterations = 20000;
  ecmo::Solver::Summary summary;
  ecmo::Solve(options, &problem, {0.5, 0.5}, &summary);
  std::cout << summary.FullReport() << "\n";
  std::cout << "z = (" << z[0] << ", " << z[1] << ")\n\n";  // sqrt(2) each

  int failures = CheckAgainstCircleScan({0.5, 0.5}, summary, z) ? 0 : 1;
  // Two more preferences, each from the same start point.
  for (const std::vector<double>& lambda :
       {std::vector<double>{0.8, 0.2}, std::vector<double>{0.2, 0.8}}) {
    z[0] = z[1] = 1.0;
    ecmo::Solve(options, &problem, lambda, &summary);
    if (!CheckAgainstCircleScan(lambda, summary, z)) ++failures;
  }
  return failures == 0 ? 0 : 1;
}
