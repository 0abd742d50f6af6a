// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The distributed task farm (ecmo/distributed_tasks.h): without a launcher
// it is ecmo::RunTasks; end to end, ecmo_mtbl under `mpirun
// --oversubscribe` gives the study of a single process (every point equal
// to the bit, timings and ranks aside, but wc-reduced's to the solver's
// tolerance), records num_ranks and every
// point's rank, and a rank killed mid-study (ECMO_MPI_TEST_KILL_AT_POINT)
// loses only its run in progress: --resume finishes the study with the
// same points; with --scalarization=utopia each seed's utopia point is
// computed once for the job and shared. Built only with MPI.

#include "ecmo/distributed_tasks.h"

#include <unistd.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "command_runner.h"
#include "gtest/gtest.h"
#include "mtbl_study_points.h"
#include "nlohmann/json.hpp"

namespace ecmo {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::RunCommand;

std::string Dir(const std::string& name) {
  return ::testing::TempDir() + "/distributed_tasks_" +
         std::to_string(::getpid()) + "_" + name;
}

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in, nullptr, false);
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every kind of method on the synthetic instance: 10 runs of 5-250 ms,
// with r = 0 (the points agree to the bit) unless `flags` give another
// --scalarization (the last one given counts).
std::string Mtbl(const std::string& flags) {
  return std::string(ECMO_MTBL_PATH) +
         " --task=mtbl_logistic --smoke "
         "--method=wc-penalty,wc-reduced,itd-ls,moml --scalarization=paper " +
         flags;
}

std::string Mpirun(int ranks,
                   const std::string& command,
                   const std::string& extra = "") {
  return testing::MpirunCommand(ECMO_MPIEXEC, ranks, command, extra);
}

TEST(DistributedTasks, WithoutALauncherIsRunTasks) {
  std::map<int, std::string> results;
  TaskFarm::Options options;
  options.num_threads = 2;
  DistributedSweepStatistics statistics;
  DistributeTasks(
      options,
      {4, 7, 9},
      [](int, int task) { return std::to_string(10 * task); },
      [&](const TaskFarm::Result& r) {
        EXPECT_EQ(r.rank, 0);
        results[r.task] = r.text;
      },
      &statistics);
  EXPECT_EQ(results,
            (std::map<int, std::string>{{4, "40"}, {7, "70"}, {9, "90"}}));
  EXPECT_EQ(statistics.num_ranks, 1);
  EXPECT_EQ(statistics.points_per_rank, std::vector<int>{3});
  EXPECT_EQ(statistics.remote_points, 0);
}

// --baseline_budget=matched over the ranks: the WC runs go first, rank 0
// turns their times into each seed's budget and every rank gives it to
// the baselines it solves, so every baseline point carries the mean time
// per point of the seed's wc-penalty points (the study's first WC method).
TEST(DistributedTasks, MatchedBudgetsReachEveryRank) {
  const std::string dir = Dir("matched");
  const CommandResult run = RunCommand(
      Mpirun(2, Mtbl("--baseline_budget=matched --output_dir=" + dir)));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const json study = ReadJson(dir + "/study.json");
  ASSERT_TRUE(study.is_object()) << run.output;
  EXPECT_EQ(study["baseline_budget"], "matched");
  int wc_points = 0;
  const double budget = testing::MeanSeconds(study, "wc-penalty", &wc_points);
  ASSERT_EQ(wc_points, 3);
  int baseline_points = 0;
  for (const json& p : study["points"]) {
    if (p["method"] != "itd-ls" && p["method"] != "moml") continue;
    ++baseline_points;
    ASSERT_TRUE(p["budget_seconds"].is_number()) << p.dump();
    EXPECT_NEAR(p["budget_seconds"].get<double>(), budget, 1e-9 * budget);
  }
  EXPECT_EQ(baseline_points, 4);
}

TEST(DistributedTasks, TwoAndThreeRanksGiveTheSingleProcessStudy) {
  const std::string single = Dir("single");
  const CommandResult one = RunCommand(Mtbl("--output_dir=" + single));
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const json expected = testing::StudyPoints(single + "/study.json");
  ASSERT_EQ(expected.size(), 10u);
  for (int ranks : {2, 3}) {
    const std::string dir = Dir("np" + std::to_string(ranks));
    const CommandResult run =
        RunCommand(Mpirun(ranks, Mtbl("--output_dir=" + dir)));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(
        run.output.find("distributed over " + std::to_string(ranks) + " ranks"),
        std::string::npos)
        << run.output;
    const json study = ReadJson(dir + "/study.json");
    ASSERT_TRUE(study.is_object()) << run.output;
    EXPECT_EQ(study["num_ranks"], ranks);
    testing::ExpectSameStudyPoints(expected,
                                   testing::StudyPoints(dir + "/study.json"));
    // Every point names the rank that solved it, and rank 0 was not alone.
    std::set<int> solved_by;
    for (const json& p : study["points"]) {
      ASSERT_TRUE(p.contains("rank"));
      solved_by.insert(p["rank"].get<int>());
    }
    EXPECT_GE(solved_by.size(), 2u) << run.output;
    EXPECT_LE(*solved_by.rbegin(), ranks - 1);
    // The streamed file: the header and one line per run.
    EXPECT_EQ(ReadLines(dir + "/points.jsonl").size(), 11u);
  }
}

// --scalarization=utopia: each seed's utopia point is computed once for
// the whole job, by one rank, and shared with the others (MpiSession::
// Broadcast): every rank's WC points use the single-process study's
// reference point and scales to the bit, and study.json names the rank
// that computed them.
TEST(DistributedTasks, UtopiaPointIsComputedOnceAndShared) {
  const std::string single = Dir("utopia_single");
  const CommandResult one =
      RunCommand(Mtbl("--scalarization=utopia --output_dir=" + single));
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const json expected_study = ReadJson(single + "/study.json");
  ASSERT_TRUE(expected_study.is_object()) << one.output;
  const json& expected = expected_study["scalarization_per_seed"];
  ASSERT_EQ(expected.size(), 1u) << one.output;  // --smoke: one seed
  EXPECT_FALSE(expected[0].contains("rank"));
  for (int ranks : {2, 3}) {
    const std::string dir = Dir("utopia_np" + std::to_string(ranks));
    const CommandResult run = RunCommand(
        Mpirun(ranks, Mtbl("--scalarization=utopia --output_dir=" + dir)));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const json study = ReadJson(dir + "/study.json");
    ASSERT_TRUE(study.is_object()) << run.output;
    testing::ExpectSameStudyPoints(testing::StudyPoints(single + "/study.json"),
                                   testing::StudyPoints(dir + "/study.json"));
    const json& shared = study["scalarization_per_seed"];
    ASSERT_EQ(shared.size(), 1u) << run.output;
    EXPECT_EQ(shared[0]["seed"], expected[0]["seed"]);
    EXPECT_EQ(shared[0]["reference_point"], expected[0]["reference_point"]);
    EXPECT_EQ(shared[0]["objective_scale"], expected[0]["objective_scale"]);
    ASSERT_TRUE(shared[0].contains("rank")) << shared[0].dump();
    EXPECT_GE(shared[0]["rank"].get<int>(), 0);
    EXPECT_LT(shared[0]["rank"].get<int>(), ranks);
    // Every WC point of every rank carries that one scalarization (the
    // baselines' points have none).
    for (const json& p : study["points"]) {
      if (p.value("reference_point", json::array()).empty()) continue;
      EXPECT_EQ(p["reference_point"], expected[0]["reference_point"])
          << p.dump();
    }
  }
}

TEST(DistributedTasks, KilledRankLosesOnlyItsRunAndResumeFinishes) {
  const std::string clean = Dir("clean"), crash = Dir("crash");
  ASSERT_EQ(RunCommand(Mtbl("--output_dir=" + clean)).exit_code, 0);
  // Rank 1 dies on receiving its 2nd run: Open MPI ends the job (the
  // timeout only guards the test against a job that would hang instead).
  const CommandResult killed = RunCommand(
      "ECMO_MPI_TEST_KILL_AT_POINT=2 timeout 120 " +
      Mpirun(
          2, Mtbl("--output_dir=" + crash), "-x ECMO_MPI_TEST_KILL_AT_POINT"));
  EXPECT_NE(killed.exit_code, 0) << killed.output;
  EXPECT_NE(killed.exit_code, 124) << "the job hung: " << killed.output;
  // What came back before the kill was written: the header and fewer than
  // the 10 runs, one of them rank 1's first.
  const std::vector<std::string> partial = ReadLines(crash + "/points.jsonl");
  ASSERT_GE(partial.size(), 2u) << killed.output;
  EXPECT_LT(partial.size(), 11u);
  int from_rank_1 = 0;
  for (size_t i = 1; i < partial.size(); ++i) {
    const json line = json::parse(partial[i], nullptr, false);
    ASSERT_TRUE(line.is_object() && line.contains("point")) << partial[i];
    from_rank_1 += line["point"].value("rank", -1) == 1 ? 1 : 0;
  }
  EXPECT_EQ(from_rank_1, 1);

  const CommandResult resumed =
      RunCommand(Mpirun(2, Mtbl("--resume --output_dir=" + crash)));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(
      resumed.output.find("resumed " + std::to_string(partial.size() - 1) +
                          " of 10 runs"),
      std::string::npos)
      << resumed.output;
  testing::ExpectSameStudyPoints(testing::StudyPoints(clean + "/study.json"),
                                 testing::StudyPoints(crash + "/study.json"));
}

}  // namespace
}  // namespace ecmo
