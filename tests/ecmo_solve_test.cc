// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// End-to-end tests of the ecmo_solve command-line tool: bad flags give a
// clear message and exit code 2 (gflags' own errors exit non-zero), and the
// JSON / CSV outputs hold the documented fields.

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include "command_runner.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace {

#ifdef ECMO_SOLVE_PATH
using ecmo::testing::CommandResult;
using ecmo::testing::RunSolve;

void ExpectUsageError(const std::string& args, const std::string& text) {
  const CommandResult run = RunSolve(args);
  EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.output;
  EXPECT_NE(run.output.find(text), std::string::npos)
      << args << "\n" << run.output;
}

TEST(EcmoSolve, BadInputsGiveClearErrors) {
  ExpectUsageError("--problem=nope",
                   "unknown problem 'nope'; valid names: gebken_circle");
  ExpectUsageError("--strategy=nope",
                   "valid strategies: automatic, wc-penalty-pgd");
  ExpectUsageError("--step_rule=sideways", "valid: fixed, backtracking");
  ExpectUsageError("--preference=0.5", "has 1 entries");
  ExpectUsageError("--preference=0.5,abc", "'abc' is not a number");
  ExpectUsageError("--preference=0.7,0.7", "sums to 1.4");
  ExpectUsageError("--max_iterations=0", "max_iterations = 0");
  ExpectUsageError("--sweep=0", "--sweep must be in [1, 1000000]");
  ExpectUsageError("--reference=cplex", "unknown reference 'cplex'; valid: "
                                        "none, ipopt");
  ExpectUsageError("--reference=ipopt --reference_tolerance=-1",
                   "IpoptReference::Options::tolerance = -1");
  ExpectUsageError("--objective_offset=1,x", "--objective_offset");
  ExpectUsageError("--csv=/nonexistent/dir/x.csv --max_iterations=10",
                   "cannot write --csv file");
  ExpectUsageError("--preferences=nope:3", "--preferences:");
  ExpectUsageError("--preference=0.5,0.5 --preferences=even:3", "not both");
  ExpectUsageError("--resume", "--resume needs --jsonl");
  ExpectUsageError("--plot=front.jpg", "must end in .png or .svg");
  ExpectUsageError("--num_threads=0", "num_threads = 0");
  // Battery K5: a name the file system refuses (ENAMETOOLONG) passed the
  // pre-check; the sweep was solved, then writing failed (exit 4).
  const std::string long_name(300, 'x');
  for (const std::string& flag :
       {"--output=" + long_name + ".json", "--plot=" + long_name + ".png"}) {
    const CommandResult run = RunSolve("--sweep=3 " + flag);
    EXPECT_EQ(run.exit_code, 2) << flag << "\n" << run.output;
    EXPECT_NE(run.output.find("too long for the file system"),
              std::string::npos)
        << run.output;
    EXPECT_EQ(run.output.find("3 points"), std::string::npos) << run.output;
  }
  // Battery K2: taken for 0 (the default) without a word, exit 0.
  ExpectUsageError("--history_stride=-1", "--history_stride must be >= 0");
  ExpectUsageError("--preference_floor=0", "--preference_floor must be in");
  ExpectUsageError("--jsonl=/nonexistent/dir/x.jsonl", "cannot write --jsonl");
  // Flag errors are bad input too: status 2 and the flag named, before
  // any work (gflags alone exits 1).
  ExpectUsageError("--no_such_flag=1", "unknown flag --no_such_flag");
  ExpectUsageError("--sweep=abc", "invalid value 'abc' for flag --sweep");
  ExpectUsageError("--history=maybe",
                   "invalid value 'maybe' for flag --history (bool)");
  ExpectUsageError("--problem=gebken_circle --sweep",
                   "flag --sweep needs a value");
  // What gflags accepts still works: --noFLAG, "--flag value".
  const CommandResult spaced = RunSolve("--nohistory --sweep 3");
  EXPECT_EQ(spaced.exit_code, 0) << spaced.output;
  EXPECT_NE(spaced.output.find("3 points"), std::string::npos)
      << spaced.output;
}

// Battery K3: gflags reads a flag file whole, so /dev/zero ended in
// std::bad_alloc (status 134). A flag file must be a regular file of at
// most 1 MiB, checked before gflags reads it.
TEST(EcmoSolve, FlagfilesThatAreNotSmallRegularFilesAreRefused) {
  const std::string dir = ::testing::TempDir();
  const std::string big = dir + "/ecmo_solve_test_big.flags";
  {
    std::ofstream out(big);
    const std::string line(1023, '#');
    for (int i = 0; i < 1100; ++i) out << line << "\n";  // 1.1 MiB
  }
  ExpectUsageError("--flagfile=/dev/zero",
                   "--flagfile '/dev/zero' is not a regular file");
  ExpectUsageError("-flagfile=/dev/zero", "--flagfile '/dev/zero'");
  ExpectUsageError("--flagfile /dev/zero", "--flagfile '/dev/zero'");
  ExpectUsageError("--flagfile=" + dir, "is a directory");
  ExpectUsageError("--flagfile=" + big, "the limit of 1 MiB");
  ExpectUsageError("--flagfile=" + dir + "/ecmo_solve_test_none.flags",
                   "cannot be read");
  // A small flag file still works.
  const std::string good = dir + "/ecmo_solve_test_good.flags";
  std::ofstream(good) << "--sweep=3\n";
  const CommandResult run = RunSolve("--flagfile=" + good);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("3 points"), std::string::npos) << run.output;
  std::remove(big.c_str());
  std::remove(good.c_str());
}

// Battery K4: --preferences=file:PATH was read without bound: an endless
// pipe never finished, /dev/zero ran out of memory.
TEST(EcmoSolve, PreferenceFilesAreReadWithABound) {
  const ecmo::testing::CommandResult pipe = ecmo::testing::RunCommand(
      "yes 0.5,0.5 | " + std::string(ECMO_SOLVE_PATH) +
          " --preferences=file:/dev/stdin",
      /*merge_stderr=*/true);
  EXPECT_EQ(pipe.exit_code, 2) << pipe.output;
  EXPECT_NE(pipe.output.find("the limit of 64 MiB"), std::string::npos)
      << pipe.output;
  ExpectUsageError("--preferences=file:/dev/zero", "the limit of 64 MiB");
  ExpectUsageError("--preferences=File:" + ::testing::TempDir(),
                   "is a directory");
  // A file is still read, with the lines named in messages.
  const std::string path = ::testing::TempDir() + "/ecmo_solve_test.prefs";
  std::ofstream(path) << "0.5,0.5\n0.5,x\n";
  ExpectUsageError("--preferences=file:" + path,
                   "ecmo_solve_test.prefs:2: column 2 ('x') is not a number");
  std::ofstream(path) << "# two\n0.25 0.75\n0.75 0.25\n";
  const CommandResult run = RunSolve("--preferences=file:" + path);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("2 points"), std::string::npos) << run.output;
  std::remove(path.c_str());
}

// Battery K1: a value of about 100 kB was quoted whole (stderr of
// 100-300 kB). Refusals quote it cut to about 80 characters.
TEST(EcmoSolve, LongValuesAreCutInMessages) {
  const std::string x(100000, 'x');
  for (const std::string& args :
       {"--" + x, "--sweep=" + x, "--preferences=" + x,
        "--preferences=file:" + x, "--csv=" + x + ".csv",
        "--sweep=3 --output=" + x + ".json", "--plot=" + x + ".png",
        "--problem_library=" + x, "--problem=gebken_circle " + x}) {
    const CommandResult run = RunSolve(args);
    SCOPED_TRACE(args.substr(0, 40));
    EXPECT_EQ(run.exit_code, 2) << run.output.substr(0, 300);
    EXPECT_LT(run.output.size(), 4000u) << run.output.substr(0, 300);
    EXPECT_NE(run.output.find(" characters)"), std::string::npos)
        << run.output.substr(0, 300);
  }
}

TEST(EcmoSolve, SinglePointJsonHasTheDocumentedFields) {
  const CommandResult run = RunSolve(
      "--problem=gebken_circle --preference=0.5,0.5 "
      "--strategy=wc-penalty-pgd --max_iterations=500 --json",
      /*merge_stderr=*/false);
  // kkt_tolerance = 0: the faithful strategy runs all T steps and ends
  // NO_CONVERGENCE, usable but not certified: exit 3.
  ASSERT_EQ(run.exit_code, 3) << run.output;
  const nlohmann::json j = nlohmann::json::parse(run.output);
  for (const char* key :
       {"problem", "strategy", "preference", "termination", "iterations",
        "objective_evaluations", "gradient_evaluations", "wall_time_seconds",
        "rho", "z", "objectives", "constraint_norm", "kkt"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  for (const char* key :
       {"residual_sq", "residual_sq_least_squares", "average_residual_sq"}) {
    EXPECT_TRUE(j["kkt"].contains(key)) << key;
  }
  EXPECT_EQ(j["iterations"], 500);
  EXPECT_EQ(j["strategy"], "wc-penalty-pgd");
  EXPECT_EQ(j["z"].size(), 2u);
}

TEST(EcmoSolve, SweepWritesJsonAndCsv) {
  const std::string dir = ::testing::TempDir();
  const std::string json_path = dir + "/sweep.json";
  const std::string csv_path = dir + "/sweep.csv";
  const CommandResult run = RunSolve(
      "--problem=convex_line --sweep=3 "
      "--strategy=wc-penalty-pgd --max_iterations=300 --output=" +
      json_path + " --csv=" + csv_path);
  // Usable points that are not certified (NO_CONVERGENCE) are exit 3, not
  // the 0 of a certified front.
  ASSERT_EQ(run.exit_code, 3) << run.output;
  EXPECT_NE(run.output.find("NO_CONVERGENCE"), std::string::npos);
  std::ifstream json_file(json_path);
  const nlohmann::json j = nlohmann::json::parse(json_file);
  ASSERT_EQ(j["points"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["points"][0]["preference"][0].get<double>(), 0.25);
  std::ifstream csv(csv_path);
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("index,warm_start_from,problem,strategy,lambda_1,"
                         "lambda_2,f_1,f_2,rho",
                         0),
            0u)
      << header;
  int rows = 0;
  while (std::getline(csv, line)) {
    if (!line.empty()) ++rows;
  }
  EXPECT_EQ(rows, 3);
}
// The reduced MTBL form from the command line: a certified sweep over x
// (3 logits) with the Newton strategy, corners of the simplex included.
TEST(EcmoSolve, ReducedMtblFormSweepsFromTheCommandLine) {
  const std::string json_path = ::testing::TempDir() + "/reduced.json";
  const CommandResult run = RunSolve(
      "--problem=mtbl_logistic_reduced --problem_size=40 "
      "--preferences=das-dennis:2 "
      "--strategy=wc-newton --output=" +
      json_path);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::ifstream json_file(json_path);
  const nlohmann::json j = nlohmann::json::parse(json_file);
  ASSERT_EQ(j["points"].size(), 6u);  // das-dennis:2 for S = 3
  for (const nlohmann::json& point : j["points"]) {
    EXPECT_EQ(point["termination"].get<std::string>(), "CONVERGENCE");
    EXPECT_EQ(point["z"].size(), 3u);
  }
}

// wc-sqp from the command line: a warm-started sweep (the neighbours'
// multipliers are passed on) on the registry's non-convex three-objective
// problem, every point certified and on the unit sphere like the default
// strategy's.
TEST(EcmoSolve, SqpStrategySweepsFromTheCommandLine) {
  const std::string dir = ::testing::TempDir();
  const std::string sqp_path = dir + "/sqp.json";
  const std::string al_path = dir + "/al.json";
  for (const std::string& args :
       {"--strategy=wc-sqp --sqp_hessian=bfgs --output=" + sqp_path,
        "--output=" + al_path}) {
    const CommandResult run =
        RunSolve("--problem=sphere_octant --preferences=das-dennis:3 " + args);
    ASSERT_EQ(run.exit_code, 0) << run.output;
  }
  std::ifstream sqp_file(sqp_path), al_file(al_path);
  const nlohmann::json sqp = nlohmann::json::parse(sqp_file);
  const nlohmann::json al = nlohmann::json::parse(al_file);
  ASSERT_EQ(sqp["points"].size(), 10u);  // das-dennis:3 for S = 3
  ASSERT_EQ(al["points"].size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    const nlohmann::json& point = sqp["points"][i];
    EXPECT_EQ(point["termination"].get<std::string>(), "CONVERGENCE") << i;
    double norm_sq = 0.0;
    for (size_t j = 0; j < point["z"].size(); ++j) {
      const double zj = point["z"][j].get<double>();
      norm_sq += zj * zj;
      EXPECT_NEAR(zj, al["points"][i]["z"][j].get<double>(), 1e-5) << i;
    }
    EXPECT_NEAR(norm_sq, 1.0, 1e-8) << i;
  }
}

TEST(EcmoSolve, PreferenceSpecSweepStreamsAndReportsIndicators) {
  const std::string dir = ::testing::TempDir();
  const std::string json_path = dir + "/spec.json";
  const std::string jsonl_path = dir + "/spec.jsonl";
  std::remove(jsonl_path.c_str());
  const std::string args = "--problem=gebken_circle --preferences=das-dennis:4"
                           " --max_iterations=2000 --num_threads=2 --jsonl=" +
                           jsonl_path + " --output=" + json_path;
  const CommandResult run = RunSolve(args);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("hypervolume"), std::string::npos) << run.output;
  std::ifstream json_file(json_path);
  const nlohmann::json j = nlohmann::json::parse(json_file);
  ASSERT_EQ(j["points"].size(), 5u);
  for (const char* key : {"hypervolume", "reference_point", "ideal", "nadir",
                          "non_dominated", "num_threads_used",
                          "changed_preferences"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["num_threads_used"], 2);
  // The corners (1, 0) and (0, 1) come first and are floored to
  // m / (1 + m), m = 1e-2 the utopia margin (two objectives, automatic
  // reference point: ParetoSweep::Options::preference_floor).
  EXPECT_EQ(j["changed_preferences"], nlohmann::json({0, 1}));
  EXPECT_DOUBLE_EQ(j["points"][0]["preference"][1].get<double>(),
                   1e-2 / (1.0 + 1e-2));
  EXPECT_DOUBLE_EQ(j["preference_floor"].get<double>(), 1e-2 / (1.0 + 1e-2));
  EXPECT_DOUBLE_EQ(j["points"][0]["preference_given"][1].get<double>(), 0.0);
  EXPECT_GT(j["hypervolume"].get<double>(), 0.0);
  EXPECT_TRUE(j["points"][0].contains("history"));
  std::ifstream jsonl(jsonl_path);
  std::string line;
  int lines = 0;
  while (std::getline(jsonl, line)) lines += line.empty() ? 0 : 1;
  EXPECT_EQ(lines, 5);

  // --resume finds everything done and solves nothing.
  const CommandResult again = RunSolve(args + " --resume");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("resumed 5 of 5 points"), std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("(0 solved, 5 resumed)"), std::string::npos)
      << again.output;
}

TEST(EcmoSolve, ReferenceCrossCheckWritesReferenceAndAgreement) {
  const CommandResult run = RunSolve(
      "--problem=gebken_circle --preference=0.5,0.5 "
      "--strategy=wc-penalty-pgd --max_iterations=100000 --reference=ipopt "
      "--json",
      /*merge_stderr=*/false);
  // Agrees with the reference, but the faithful strategy's point is not
  // certified (NO_CONVERGENCE after all T steps): exit 3.
  ASSERT_EQ(run.exit_code, 3) << run.output;
  const nlohmann::json j = nlohmann::json::parse(run.output);
  ASSERT_TRUE(j.contains("reference"));
  ASSERT_TRUE(j.contains("agreement"));
  for (const char* key : {"termination", "iterations", "rho", "z",
                          "objectives", "constraint_norm", "kkt"}) {
    EXPECT_TRUE(j["reference"].contains(key)) << key;
  }
  for (const char* key :
       {"z_distance", "objective_distance", "multiplier_distance"}) {
    EXPECT_TRUE(j["agreement"].contains(key)) << key;
  }
  EXPECT_TRUE(j["agreement"]["agree"].get<bool>());
  // The reference is Ipopt at tolerance 1e-8: its own point is tight.
  EXPECT_LT(j["reference"]["kkt"]["residual_sq_least_squares"].get<double>(),
            1e-12);
  EXPECT_LT(j["agreement"]["z_distance"].get<double>(), 0.05);
  EXPECT_EQ(j["cross_check"]["agree"], 1);

  // A strategy stopped early disagrees, and the exit status says so.
  const CommandResult early = RunSolve(
      "--problem=gebken_circle --preference=0.3,0.7 "
      "--strategy=wc-penalty-pgd --max_iterations=20 --reference=ipopt");
  EXPECT_EQ(early.exit_code, 1) << early.output;
  EXPECT_NE(early.output.find("DISAGREE"), std::string::npos) << early.output;
  EXPECT_NE(early.output.find("0 of 1 points agree"), std::string::npos);
}
#endif

}  // namespace
