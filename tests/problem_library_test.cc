// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ecmo_solve --problem_library: the example library
// (examples/problem_library) swept, plotted and cross-checked against Ipopt,
// with its points checked against the closed-form WC solution of
// library_segment; and every way a library is refused (exit 2).
//
// library_segment: f_s = |z - e_s|^2 on z1 + z2 + z3 = 1. The Pareto set is
// z = (1 - t, t, 0) with f = (2t^2, 2(1-t)^2). With the reference point
// r = -offset = (-1, -1) and no normalization, the WC point of preference
// lambda solves lambda_1 (2t^2 + 1) = lambda_2 (2(1-t)^2 + 1), i.e.
// 2 (lambda_1 - lambda_2) t^2 + 4 lambda_2 t + lambda_1 - 3 lambda_2 = 0,
// solved below by the quadratic formula (the library itself bisects); for
// lambda_1 >= 3/4 or <= 1/4 the WC point is an end of the segment.
//
// Bad inputs covered here (all exit 2 with a message naming the library):
// a missing file; a file that is not a shared library; a shared library
// without registration symbols; a library built for another problem-library
// ABI; one built for another ECMO version; a name that clashes with a
// built-in problem; a name already registered by an earlier library; an
// empty path in the comma-separated list; an unknown --problem after
// loading (the valid names include the library's).

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "command_runner.h"
#include "ecmo/version.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace ecmo {
namespace {

using testing::CommandResult;
using testing::RunCommand;

const std::string kSolve = ECMO_SOLVE_PATH;
const std::string kLibrary = ECMO_EXAMPLE_PROBLEM_LIBRARY;
const std::string kFixtureDir = ECMO_FIXTURE_LIBRARY_DIR;

std::string Fixture(const std::string& variant) {
  return kFixtureDir + "/libproblem_library_" + variant + ".so";
}

std::string Solve(const std::string& libraries, const std::string& flags) {
  return kSolve + " --problem_library=" + libraries + " " + flags;
}

std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(base != nullptr ? base : "/tmp") +
                    "/ecmo_problem_library_" + name + "_" +
                    std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && st.st_size > 0;
}

// The closed-form WC parameter t of library_segment (see the top).
// When the balance has no root in [0, 1], the weighted objective of one end
// dominates along the whole segment and the WC point is that end: t = 0 when
// lambda_1 * 1 >= lambda_2 * 3 (at t = 0), t = 1 when lambda_2 >= 3 lambda_1.
double SegmentParameter(double l1, double l2) {
  if (l1 >= 3.0 * l2) return 0.0;
  if (l2 >= 3.0 * l1) return 1.0;
  const double a = 2.0 * (l1 - l2), b = 4.0 * l2, c = l1 - 3.0 * l2;
  if (std::abs(a) < 1e-14) return -c / b;
  const double d = std::sqrt(b * b - 4.0 * a * c);
  for (double t : {(-b + d) / (2.0 * a), (-b - d) / (2.0 * a)}) {
    if (t >= -1e-12 && t <= 1.0 + 1e-12) return t;
  }
  ADD_FAILURE() << "no root in [0, 1] for lambda = (" << l1 << ", " << l2
                << ")";
  return -1.0;
}

// Checks one point (JSON) against the closed form.
void ExpectClosedForm(const nlohmann::json& point) {
  const std::vector<double> lambda = point.at("preference");
  const std::vector<double> z = point.at("z");
  const std::vector<double> f = point.at("objectives");
  ASSERT_EQ(lambda.size(), 2u);
  ASSERT_EQ(z.size(), 3u);
  const double t = SegmentParameter(lambda[0] / (lambda[0] + lambda[1]),
                                    lambda[1] / (lambda[0] + lambda[1]));
  SCOPED_TRACE("lambda_1 = " + std::to_string(lambda[0]));
  EXPECT_EQ(point.at("termination"), "CONVERGENCE");
  EXPECT_NEAR(z[0], 1.0 - t, 1e-6);
  EXPECT_NEAR(z[1], t, 1e-6);
  EXPECT_NEAR(z[2], 0.0, 1e-6);
  EXPECT_NEAR(f[0], 2.0 * t * t, 1e-6);
  EXPECT_NEAR(f[1], 2.0 * (1.0 - t) * (1.0 - t), 1e-6);
}

TEST(ProblemLibrary, ListProblemsShowsTheLibrarysProblems) {
  const CommandResult run = RunCommand(Solve(kLibrary, "--list_problems"));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("gebken_circle  (S = 2"), std::string::npos);
  EXPECT_NE(run.output.find("library_segment  (S = 2, k = 3, q = 1; from " +
                            kLibrary + ")"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("library_triangle  (S = 3, k = 3, q = 1; from"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("library_segment_evaluator  (S = 2, k = 3, q = 1; "
                            "evaluator only; from"),
            std::string::npos)
      << run.output;
}

// A sweep in the paper's form (r = -offset, no normalization): every point
// is the closed-form WC point.
TEST(ProblemLibrary, SweepMatchesTheClosedForm) {
  const CommandResult run = RunCommand(
      Solve(kLibrary,
            "--problem=library_segment --sweep=7 --reference_point=offset "
            "--normalize=false --json"),
      /*merge_stderr=*/false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json result = nlohmann::json::parse(run.output);
  EXPECT_EQ(result.at("problem"), "library_segment");
  // 7 preferences and the points refinement adds where the front has
  // holes: every one is the closed form at its preference.
  ASSERT_GE(result.at("points").size(), 7u);
  for (const nlohmann::json& point : result.at("points")) {
    ExpectClosedForm(point);
  }
}

// With the default (automatic, normalized) scalarization, --plot and the
// Ipopt cross-check: every point agrees with Ipopt and lies on the analytic
// front, and the plot data carry that front.
TEST(ProblemLibrary, PlotAndIpoptReference) {
  const std::string dir = TempDir("plot");
  const std::string json = dir + "/front.json";
  const CommandResult run =
      RunCommand(Solve(kLibrary,
                       "--problem=library_segment --sweep=5 --reference=ipopt "
                       "--plot=" +
                           dir + "/front.png --output=" + json));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("Cross-check against Ipopt: 5 of 5 points agree"),
            std::string::npos)
      << run.output;
  std::ifstream in(json);
  const nlohmann::json result = nlohmann::json::parse(in);
  ASSERT_EQ(result.at("points").size(), 5u);
  for (const nlohmann::json& point : result.at("points")) {
    const std::vector<double> z = point.at("z");
    const std::vector<double> f = point.at("objectives");
    // On the Pareto set: z = (1 - t, t, 0), f = (2t^2, 2(1-t)^2).
    const double t = z[1];
    EXPECT_GE(t, -1e-6);
    EXPECT_LE(t, 1.0 + 1e-6);
    EXPECT_NEAR(z[0], 1.0 - t, 1e-6);
    EXPECT_NEAR(z[2], 0.0, 1e-6);
    EXPECT_NEAR(f[0], 2.0 * t * t, 1e-6);
    EXPECT_NEAR(f[1], 2.0 * (1.0 - t) * (1.0 - t), 1e-6);
    EXPECT_EQ(point.at("agreement").at("agree"), true);
  }
  std::ifstream data(dir + "/front.dat");
  std::stringstream text;
  text << data.rdbuf();
  EXPECT_NE(text.str().find("# analytic Pareto front"), std::string::npos);
  if (std::system("gnuplot --version > /dev/null 2>&1") == 0) {
    EXPECT_TRUE(Exists(dir + "/front.png"));
  }
}

TEST(ProblemLibrary, EvaluatorOnlyEntry) {
  const CommandResult run = RunCommand(
      Solve(kLibrary,
            "--problem=library_segment_evaluator --preference=0.3,0.7 "
            "--reference_point=offset --json"),
      /*merge_stderr=*/false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  ExpectClosedForm(nlohmann::json::parse(run.output));

  const CommandResult refused = RunCommand(
      Solve(kLibrary, "--problem=library_segment_evaluator --reference=ipopt"));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("registered only as an evaluator"),
            std::string::npos)
      << refused.output;
}

// Two libraries, comma-separated: both sets of problems are available.
TEST(ProblemLibrary, SeveralLibraries) {
  const CommandResult run =
      RunCommand(Solve(kLibrary + "," + Fixture("valid"),
                       "--problem=fixture_problem --preference=0.5,0.5 "
                       "--reference_point=offset --json"),
                 /*merge_stderr=*/false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // z1 = z2 = t with f = (t^2, (t-1)^2) and offsets 1: the balance
  // t^2 + 1 = (t-1)^2 + 1 gives t = 1/2.
  const nlohmann::json point = nlohmann::json::parse(run.output);
  EXPECT_NEAR(point.at("z")[0].get<double>(), 0.5, 1e-6);
  EXPECT_NEAR(point.at("z")[1].get<double>(), 0.5, 1e-6);
}

struct Refusal {
  std::string name;
  std::string libraries;
  std::string flags;
  std::vector<std::string> message_parts;
};

TEST(ProblemLibrary, RefusalsExitTwoWithAClearMessage) {
  const std::string dir = TempDir("refusals");
  const std::string text_file = dir + "/not_a_library.so";
  std::ofstream(text_file) << "this is not an ELF file\n";
  const std::string missing = dir + "/no_such_library.so";
  const std::string version = ECMO_VERSION_STRING;
  const std::vector<Refusal> refusals = {
      {"missing file",
       missing,
       "--list_problems",
       {"problem library '" + missing + "': no such file"}},
      {"not a shared library",
       text_file,
       "--list_problems",
       {"'" + text_file + "'", "cannot be loaded as a shared library"}},
      {"no registration symbol",
       Fixture("unregistered"),
       "--list_problems",
       {"not an ECMO problem library",
        "exports no symbol 'ecmo_problem_library_abi'",
        "ECMO_REGISTER_PROBLEM"}},
      {"another ABI",
       Fixture("wrong_abi"),
       "--list_problems",
       {"built against ECMO " + version + " (problem-library ABI 999)",
        "this program uses ECMO " + version + " (problem-library ABI 1)",
        "rebuild the library"}},
      {"another version",
       Fixture("wrong_version"),
       "--list_problems",
       {"built against ECMO 0.99.", "this program uses ECMO " + version}},
      {"built-in name",
       Fixture("builtin_clash"),
       "--list_problems",
       {"problem 'gebken_circle' is already a built-in problem", "rename it"}},
      {"name of an earlier library",
       kLibrary + "," + Fixture("library_clash"),
       "--list_problems",
       {"problem 'library_segment' is already registered by '" + kLibrary +
        "'"}},
      {"the same library twice",
       Fixture("valid") + "," + Fixture("valid"),
       "--list_problems",
       {"given twice (already loaded as"}},
      {"empty path",
       kLibrary + ",",
       "--list_problems",
       {"--problem_library: an empty path"}},
      {"unknown problem",
       kLibrary,
       "--problem=no_such_problem",
       {"unknown problem 'no_such_problem'",
        "library_segment",
        "library_segment_evaluator",
        "gebken_circle"}},
  };
  for (const Refusal& refusal : refusals) {
    SCOPED_TRACE(refusal.name);
    const CommandResult run =
        RunCommand(Solve(refusal.libraries, refusal.flags));
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("ecmo_solve: "), std::string::npos) << run.output;
    for (const std::string& part : refusal.message_parts) {
      EXPECT_NE(run.output.find(part), std::string::npos)
          << "missing '" << part << "' in: " << run.output;
    }
  }
}

// Issue 60, rows 7, 12 and 19: a library that throws, calls exit() or
// declares sizes its problem does not have ends the run with a non-zero
// status and a message naming the library's fault; never an abort
// (status 134) or a silent 0.
TEST(ProblemLibrary, MisbehavingLibrariesFailCleanly) {
  struct Case {
    std::string variant;
    std::string flags;
    int exit_code;
    std::vector<std::string> message_parts;
  };
  const std::vector<Case> cases = {
      // At the start point of the payoff table: refused before solving.
      {"throw_in_cost",
       "--sweep=3",
       2,
       {"At the start point: the evaluator (a cost function) threw an "
        "exception: fixture cost function throws"}},

      {"throw_in_build",
       "--sweep=3",
       2,
       {"building 'fixture_problem' failed: its build threw an exception",
        "fixture build throws"}},
      {"exit_in_cost", "--sweep=3", 1, {"ended by exit() in library code"}},
      {"exit_in_build", "--sweep=3", 1, {"ended by exit() in library code"}},
      {"exit_in_factory",
       "--list_problems",
       1,
       {"ended by exit() in library code"}},
      {"wrong_objectives",
       "--preference=0.2,0.3,0.5",
       2,
       {"ProblemInfo::num_objectives is 3 but the problem it builds has 2"}},
      {"wrong_parameters",
       "--sweep=3",
       2,
       {"ProblemInfo::num_parameters is 5 but the problem it builds has 2"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.variant);
    const CommandResult run = RunCommand(
        Solve(Fixture(c.variant), "--problem=fixture_problem " + c.flags));
    EXPECT_EQ(run.exit_code, c.exit_code) << run.output;
    for (const std::string& part : c.message_parts) {
      EXPECT_NE(run.output.find(part), std::string::npos)
          << "missing '" << part << "' in: " << run.output;
    }
  }
  // A cost function that throws away from the start is a failed
  // evaluation: every point is solved (at the edge of the region where it
  // does not throw, or not certified), none aborts the sweep.
  const CommandResult away = RunCommand(Solve(
      Fixture("throw_away_from_start"), "--problem=fixture_problem --sweep=3"));
  EXPECT_TRUE(away.exit_code == 0 || away.exit_code == 1 || away.exit_code == 3)
      << away.exit_code << "\n"
      << away.output;
  EXPECT_NE(away.output.find("3 points (3 solved"), std::string::npos)
      << away.output;
  // An analytic front that throws is taken as unknown: the sweep and its
  // report go on.
  // (--plot asks for it; the plot's data file is written with or without
  // gnuplot.)
  const std::string dir = TempDir("throw_in_front");
  const CommandResult front = RunCommand(Solve(
      Fixture("throw_in_front"),
      "--problem=fixture_problem --sweep=3 --plot=" + dir + "/front.png"));
  EXPECT_NE(front.exit_code, 134) << front.output;
  EXPECT_NE(front.output.find("3 certified"), std::string::npos)
      << front.output;
  EXPECT_TRUE(Exists(dir + "/front.dat")) << front.output;
}

}  // namespace
}  // namespace ecmo
