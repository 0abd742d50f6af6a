// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The adoptable package seen from the command line: the version (one place,
// the top-level CMake project(), reaching ecmo/version.h, --version and the
// JSON results), --help listing the tool's own flags, the hypervolume
// reference point flag, and the CSV rewritten in index order.

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/indicators.h"
#include "ecmo/version.h"
#include "command_runner.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace {

TEST(Package, VersionHeaderMatchesTheCMakeProjectVersion) {
  EXPECT_STREQ(ecmo::VersionString(), ECMO_PROJECT_VERSION);
  EXPECT_STREQ(ECMO_VERSION_STRING, ECMO_PROJECT_VERSION);
  std::ostringstream parts;
  parts << ECMO_VERSION_MAJOR << "." << ECMO_VERSION_MINOR << "."
        << ECMO_VERSION_PATCH;
  EXPECT_EQ(parts.str(), ECMO_PROJECT_VERSION);
}

#if defined(ECMO_SOLVE_PATH) && defined(ECMO_PLOT_PATH)
using RunResult = ecmo::testing::CommandResult;
using ecmo::testing::RunCommand;
using ecmo::testing::RunSolve;

// A directory of this test process (tests run in parallel under ctest -j).
std::string TestDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/package_test_" +
                          std::to_string(::getpid()) + "_" + name;
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) fields.push_back(field);
  return fields;
}

TEST(Package, VersionFlagPrintsTheCMakeVersion) {
  const RunResult solve = RunCommand(std::string(ECMO_SOLVE_PATH) + " --version");
  EXPECT_EQ(solve.exit_code, 0) << solve.output;
  EXPECT_EQ(solve.output,
            std::string("ecmo_solve version ") + ECMO_PROJECT_VERSION + "\n");
  const RunResult plot = RunCommand(std::string(ECMO_PLOT_PATH) + " --version");
  EXPECT_EQ(plot.exit_code, 0) << plot.output;
  EXPECT_EQ(plot.output,
            std::string("ecmo_plot version ") + ECMO_PROJECT_VERSION + "\n");
}

TEST(Package, JsonResultsRecordTheVersion) {
  const RunResult point = RunSolve(
      "--problem=gebken_circle --preference=0.5,0.5 --max_iterations=2000 "
      "--history=false --json",
      /*merge_stderr=*/false);
  ASSERT_EQ(point.exit_code, 0) << point.output;
  const nlohmann::json j = nlohmann::json::parse(point.output);
  EXPECT_EQ(j["version"], ECMO_PROJECT_VERSION);

  const RunResult sweep = RunSolve(
      "--problem=gebken_circle --sweep=2 --max_iterations=2000 "
      "--history=false --json",
      /*merge_stderr=*/false);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  const nlohmann::json s = nlohmann::json::parse(sweep.output);
  EXPECT_EQ(s["version"], ECMO_PROJECT_VERSION);
  ASSERT_EQ(s["points"].size(), 2u);
  EXPECT_EQ(s["points"][0]["version"], ECMO_PROJECT_VERSION);
}

// Plain --help: the usage message with examples, then the tool's own flags
// and no flag of glog or gflags (those are under --helpfull); exit 0.
void ExpectHelpListsOwnFlags(const std::string& tool,
                             const std::string& source,
                             const std::vector<std::string>& own_flags) {
  const RunResult help = RunCommand(tool + " --help", /*merge_stderr=*/false);
  EXPECT_EQ(help.exit_code, 0) << help.output;
  const std::string& out = help.output;
  const size_t examples = out.find("Examples:");
  const size_t flags_from = out.find("Flags from ");
  ASSERT_NE(examples, std::string::npos) << out;
  ASSERT_NE(flags_from, std::string::npos) << out;
  EXPECT_LT(examples, flags_from);
  // The first (and only) flag section is the tool's source file.
  const std::string section = out.substr(flags_from, out.find('\n', flags_from) -
                                                         flags_from);
  EXPECT_NE(section.find(source), std::string::npos) << section;
  EXPECT_EQ(out.find("Flags from ", flags_from + 1), std::string::npos) << out;
  for (const std::string& flag : own_flags) {
    EXPECT_NE(out.find("    -" + flag + " ("), std::string::npos)
        << flag << "\n" << out;
  }
  for (const char* foreign : {"-logtostderr", "-helpfull", "-flagfile"}) {
    EXPECT_EQ(out.find(std::string("    ") + foreign + " ("), std::string::npos)
        << foreign << "\n" << out;
  }
  // --helpfull still lists everything, glog's flags included.
  const RunResult full = RunCommand(tool + " --helpfull", /*merge_stderr=*/false);
  EXPECT_NE(full.output.find("-logtostderr"), std::string::npos);
  EXPECT_NE(full.output.find(source), std::string::npos);
}

TEST(Package, HelpListsTheToolsOwnFlagsWithExamples) {
  ExpectHelpListsOwnFlags(ECMO_SOLVE_PATH, "ecmo_solve.cc",
                          {"problem", "preference", "sweep", "csv", "output",
                           "hypervolume_reference", "reference_point",
                           "strategy", "jsonl", "resume"});
  ExpectHelpListsOwnFlags(ECMO_PLOT_PATH, "ecmo_plot.cc",
                          {"input", "output", "analytic", "width"});
  const RunResult help = RunCommand(std::string(ECMO_SOLVE_PATH) + " --help");
  EXPECT_NE(help.output.find("--hypervolume_reference=4,4"), std::string::npos)
      << help.output;
  EXPECT_NE(help.output.find("Exit status:"), std::string::npos);
}

// The usable points' objectives of a sweep JSON, one row per point.
Eigen::MatrixXd UsableObjectives(const nlohmann::json& sweep) {
  std::vector<std::vector<double>> rows;
  for (const nlohmann::json& p : sweep["points"]) {
    const std::string t = p["termination"].get<std::string>();
    if (t == "FAILURE" || t == "USER_FAILURE") continue;
    rows.push_back(p["objectives"].get<std::vector<double>>());
  }
  Eigen::MatrixXd m(rows.size(), rows.empty() ? 0 : rows[0].size());
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t s = 0; s < rows[i].size(); ++s) m(i, s) = rows[i][s];
  }
  return m;
}

TEST(Package, HypervolumeReferenceSetsTheReportedHypervolume) {
  const std::string dir = TestDir("hv");
  const std::string base =
      "--problem=gebken_circle --sweep=5 --max_iterations=2000 "
      "--history=false --output=";
  const RunResult automatic = RunSolve(base + dir + "/auto.json");
  ASSERT_EQ(automatic.exit_code, 0) << automatic.output;
  const RunResult given = RunSolve(base + dir + "/given.json" +
                                   " --hypervolume_reference=4,4.5");
  ASSERT_EQ(given.exit_code, 0) << given.output;
  std::ifstream auto_file(dir + "/auto.json"), given_file(dir + "/given.json");
  const nlohmann::json a = nlohmann::json::parse(auto_file);
  const nlohmann::json g = nlohmann::json::parse(given_file);
  EXPECT_EQ(g["reference_point"], nlohmann::json({4.0, 4.5}));
  const Eigen::MatrixXd points = UsableObjectives(g);
  ASSERT_EQ(points.rows(), 5);
  const double expected =
      ecmo::Hypervolume(points, Eigen::Vector2d(4.0, 4.5));
  ASSERT_TRUE(std::isfinite(expected));
  EXPECT_NEAR(g["hypervolume"].get<double>(), expected, 1e-12 * expected);
  // It is not the default reference's value, and the report names it.
  EXPECT_GT(std::abs(g["hypervolume"].get<double>() -
                     a["hypervolume"].get<double>()),
            1e-3);
  EXPECT_NE(given.output.find("(reference (4.0000, 4.5000))"),
            std::string::npos)
      << given.output;

  // Wrong size and non-finite entries are refused before solving.
  for (const auto& [flag, text] :
       std::vector<std::pair<std::string, std::string>>{
           {"4", "has 1 entries but 'gebken_circle' has 2 objectives"},
           {"4,4,4", "has 3 entries"},
           {"4,inf", "entry 2 is inf; every entry must be a finite number"},
           {"nan,4", "entry 1 is"},
           {"4,x", "'x' is not a number"},
           {"4,", "field 2 is empty"}}) {
    const RunResult bad =
        RunSolve("--problem=gebken_circle --sweep=3 --hypervolume_reference=" +
                 flag);
    EXPECT_EQ(bad.exit_code, 2) << flag << "\n" << bad.output;
    EXPECT_NE(bad.output.find("--hypervolume_reference"), std::string::npos)
        << bad.output;
    EXPECT_NE(bad.output.find(text), std::string::npos)
        << flag << "\n" << bad.output;
    EXPECT_EQ(bad.output.find("CONVERGENCE"), std::string::npos);
  }
}

TEST(Package, CsvRowsAreInIndexOrderWithAnIndexColumn) {
  const std::string dir = TestDir("csv");
  const std::string csv = dir + "/front.csv";
  const std::string json = dir + "/front.json";
  // Two threads and refinement finish points out of index order.
  const RunResult run = RunSolve(
      "--problem=gebken_circle --preferences=even:7 --refine=12 "
      "--num_threads=2 --max_iterations=2000 --history=false --csv=" +
      csv + " --output=" + json);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::vector<std::string> lines = ReadLines(csv);
  ASSERT_EQ(lines.size(), 13u);
  EXPECT_EQ(lines[0].rfind("index,warm_start_from,problem,strategy,lambda_1,"
                           "lambda_2,f_1,f_2,rho",
                           0),
            0u)
      << lines[0];
  const std::vector<std::string> header = SplitCsv(lines[0]);
  const size_t certified_column =
      std::find(header.begin(), header.end(), "certified") - header.begin();
  ASSERT_LT(certified_column, header.size()) << lines[0];
  const size_t columns = SplitCsv(lines[0]).size();
  std::ifstream json_file(json);
  const nlohmann::json j = nlohmann::json::parse(json_file);
  ASSERT_EQ(j["points"].size(), 12u);
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> fields = SplitCsv(lines[i]);
    ASSERT_EQ(fields.size(), columns) << lines[i];
    EXPECT_EQ(fields[0], std::to_string(i - 1)) << lines[i];
    EXPECT_EQ(fields[2], "gebken_circle");
    // The row holds that index's warm start, preference, objectives and
    // verdict.
    const nlohmann::json& p = j["points"][i - 1];
    ASSERT_EQ(p["index"], static_cast<int>(i - 1));
    EXPECT_EQ(fields[1], std::to_string(p["warm_start_from"].get<int>()));
    EXPECT_EQ(fields[certified_column],
              p["termination"] == "CONVERGENCE" ? "1" : "0");
    EXPECT_EQ(p["certified"].get<bool>(), p["termination"] == "CONVERGENCE");
    EXPECT_NEAR(std::stod(fields[4]), p["preference"][0].get<double>(), 1e-12);
    EXPECT_NEAR(std::stod(fields[6]), p["objectives"][0].get<double>(),
                1e-9 * (1.0 + std::abs(p["objectives"][0].get<double>())));
  }
  // No temporary file is left next to it.
  const RunResult listing = RunCommand("ls " + dir);
  EXPECT_EQ(listing.output.find(".tmp."), std::string::npos) << listing.output;
}
#endif

}  // namespace
