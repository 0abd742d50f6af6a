// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Uses ecmo::sweep (find_package(ecmo COMPONENTS sweep), which brings
// ecmo::plugin and nlohmann-json but not Ipopt): its own problem, one solve,
// the JSON writer and the version header.
#include <iostream>

#include "circle_problem.h"
#include "ecmo/result_writer.h"
#include "ecmo/version.h"

int main() {
  ecmo::Solver::Summary summary;
  const bool solved = consumer::SolveCircle(&summary);
  const nlohmann::json j = ecmo::SummaryToJson(summary, "circle");
  std::cout << "ecmo " << ecmo::VersionString() << ": "
            << summary.BriefReport() << "\n";
  return solved && j["version"] == ECMO_VERSION_STRING ? 0 : 1;
}
