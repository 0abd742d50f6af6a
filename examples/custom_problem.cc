// A complete user-defined ECMO problem, solved from C++: two objectives that
// pull a point in the plane towards (1, 0) and (0, 1), under the constraint
// that it stays on the circle of radius 2. The README shows this file.

#include <iostream>
#include <memory>

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

  ecmo::Solver::Options options;
  options.max_iterations = 20000;
  ecmo::Solver::Summary summary;
  ecmo::Solve(options, problem, {0.5, 0.5}, &summary);
  std::cout << summary.FullReport() << "\n";
  std::cout << "z = (" << z[0] << ", " << z[1] << ")\n";  // sqrt(2) each
  return summary.IsSolutionUsable() ? 0 : 1;
}
