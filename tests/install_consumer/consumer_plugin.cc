// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Uses only ecmo::plugin (find_package(ecmo COMPONENTS plugin), which needs
// neither Ipopt nor nlohmann-json): its own problem, one solve and the
// version header.
#include <iostream>
#include <string>

#include "circle_problem.h"
#include "ecmo/version.h"

// The core headers must not pull in the JSON library: a program that only
// solves should not need it.
#ifdef NLOHMANN_JSON_VERSION_MAJOR
#error "ecmo::plugin's headers include nlohmann/json.hpp"
#endif

int main() {
  ecmo::Solver::Summary summary;
  const bool solved = consumer::SolveCircle(&summary);
  std::cout << "ecmo " << ecmo::VersionString() << ": "
            << summary.BriefReport() << "\n";
  return solved && ecmo::VersionString() == std::string(ECMO_VERSION_STRING)
             ? 0
             : 1;
}
