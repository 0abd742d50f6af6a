// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Solves one registry problem through the installed headers and libraries.
#include <iostream>

#include "ecmo/problems/registry.h"
#include "ecmo/solver.h"

int main() {
  const ecmo::problems::ProblemInfo* info =
      ecmo::problems::Find("gebken_circle");
  if (info == nullptr) return 1;
  auto instance = info->build();
  ecmo::Solver::Options options;
  options.max_iterations = 2000;
  ecmo::Solver::Summary summary;
  ecmo::Solve(options, instance->problem, {0.5, 0.5}, &summary);
  std::cout << summary.BriefReport() << "\n";
  return summary.IsSolutionUsable() ? 0 : 1;
}
