// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ecmo_solve's scalarization flags end to end: --reference_point,
// --normalize, --refine, and their refusals (exit 2).

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "command_runner.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace {

#ifdef ECMO_SOLVE_PATH
struct JsonRun {
  int exit_code;
  std::string output;  // stdout only
  nlohmann::json json;
};

// Runs ecmo_solve with --json; stderr goes to /dev/null.
JsonRun RunJson(const std::string& args) {
  const ecmo::testing::CommandResult r = ecmo::testing::RunCommand(
      std::string(ECMO_SOLVE_PATH) + " --json " + args,
      /*merge_stderr=*/false);
  JsonRun run{r.exit_code, r.output, nullptr};
  run.json = nlohmann::json::parse(run.output, nullptr, false);
  return run;
}

int ExitCode(const std::string& args) {
  const std::string command =
      std::string(ECMO_SOLVE_PATH) + " " + args + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(EcmoSolveScalarization, NegativeFrontWithTheAutomaticUtopiaPoint) {
  const JsonRun run = RunJson("--problem=circle_quarter --sweep=5");
  ASSERT_EQ(run.exit_code, 0) << run.output.substr(0, 2000);
  const nlohmann::json& sc = run.json["scalarization"];
  EXPECT_EQ(sc["reference_point_type"], "UTOPIA");
  EXPECT_EQ(sc["normalized"], true);
  EXPECT_EQ(sc["single_objective_solves"], 2);
  EXPECT_GT(sc["gradient_evaluations"].get<int>(), 0);
  // Ideal (-1, -1) lowered by 1% of the range 1.
  for (int s = 0; s < 2; ++s) {
    EXPECT_NEAR(sc["ideal"][s].get<double>(), -1.0, 1e-6);
    EXPECT_NEAR(sc["reference_point"][s].get<double>(), -1.01, 1e-6);
  }
  // Every point on the quarter circle, objectives negative.
  ASSERT_EQ(run.json["points"].size(), 5u);
  for (const nlohmann::json& p : run.json["points"]) {
    const double f1 = p["objectives"][0], f2 = p["objectives"][1];
    EXPECT_NEAR(f1 * f1 + f2 * f2, 1.0, 1e-8);
    EXPECT_LE(f1, 1e-6);
    EXPECT_LE(f2, 1e-6);
    EXPECT_EQ(p["termination"], "CONVERGENCE");
    // Every point reports the shared scalarization, not its cost.
    EXPECT_EQ(p["scalarization"]["single_objective_solves"], 0);
    EXPECT_TRUE(p["kkt"].contains("certificate"));
  }
}

TEST(EcmoSolveScalarization, PaperFormAndGivenReferencePoint) {
  const JsonRun paper =
      RunJson("--problem=circle_quarter --sweep=3 --reference_point=offset");
  ASSERT_EQ(paper.exit_code, 0) << paper.output.substr(0, 2000);
  EXPECT_EQ(paper.json["scalarization"]["reference_point_type"],
            "OBJECTIVE_OFFSET");
  EXPECT_EQ(paper.json["scalarization"]["normalized"], false);
  EXPECT_DOUBLE_EQ(paper.json["scalarization"]["reference_point"][0], -2.0);

  const JsonRun given =
      RunJson("--problem=circle_quarter --sweep=3 --reference_point=-3,-1.5");
  ASSERT_EQ(given.exit_code, 0) << given.output.substr(0, 2000);
  EXPECT_EQ(given.json["scalarization"]["reference_point_type"], "GIVEN");
  EXPECT_DOUBLE_EQ(given.json["scalarization"]["reference_point"][1], -1.5);
  // A given reference point pins the scalarization: no normalization and
  // no single-objective solve (the scales would need the payoff table of
  // another reference point); asking for both is refused.
  EXPECT_EQ(given.json["scalarization"]["single_objective_solves"], 0);
  EXPECT_EQ(given.json["scalarization"]["normalized"], false);
  EXPECT_EQ(ExitCode("--problem=circle_quarter --sweep=3 "
                     "--reference_point=-3,-1.5 --normalize=true"),
            2);

  // One preference: normalized like a sweep (the same point for the same
  // preference), w = nadir - utopia with the nadir (0, 0) and the utopia
  // (-1.01, -1.01); off when asked.
  const JsonRun one = RunJson("--problem=circle_quarter --preference=0.5,0.5");
  ASSERT_EQ(one.exit_code, 0);
  EXPECT_EQ(one.json["scalarization"]["normalized"], true);
  EXPECT_NEAR(one.json["scalarization"]["objective_scale"][0].get<double>(),
              1.01,
              1e-6);
  const JsonRun plain = RunJson(
      "--problem=circle_quarter --preference=0.5,0.5 --normalize=false");
  ASSERT_EQ(plain.exit_code, 0);
  EXPECT_EQ(plain.json["scalarization"]["normalized"], false);
}

TEST(EcmoSolveScalarization, RefineAddsPointsUpToTheTarget) {
  const JsonRun run = RunJson("--problem=gebken_circle --sweep=3 --refine=9");
  ASSERT_EQ(run.exit_code, 0) << run.output.substr(0, 2000);
  EXPECT_EQ(run.json["num_points"], 9);
  EXPECT_EQ(run.json["num_refined"], 6);
  int refined = 0;
  for (const nlohmann::json& p : run.json["points"]) {
    if (p.value("refined", false)) ++refined;
  }
  EXPECT_EQ(refined, 6);
}

TEST(EcmoSolveScalarization, BadFlagsAreRefused) {
  EXPECT_EQ(ExitCode("--problem=circle_quarter --reference_point=1,2,3"), 2);
  EXPECT_EQ(ExitCode("--problem=circle_quarter --reference_point=abc"), 2);
  EXPECT_EQ(ExitCode("--reference_point=-3,-3 --objective_offset=1,1"), 2);
  EXPECT_EQ(ExitCode("--normalize=maybe"), 2);
  EXPECT_EQ(ExitCode("--refine=-2"), 2);
  EXPECT_EQ(ExitCode("--refine=5 --preference=0.5,0.5"), 2);
  EXPECT_EQ(ExitCode("--utopia_margin=0"), 2);
  EXPECT_EQ(ExitCode("--stationarity_tolerance=2"), 2);
}
#endif

}  // namespace
