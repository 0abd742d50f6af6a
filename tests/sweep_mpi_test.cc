// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Distributed sweeps (ecmo/sweep_mpi.h), end to end through ecmo_solve
// under `mpirun --oversubscribe`: with cold starts the points of 2 and 3
// ranks equal a single-process run's to the bit (timings aside); warm
// starts agree to the solver's tolerance; every point records its rank and
// the sweep num_ranks; a rank killed mid-sweep (the test hook
// ECMO_MPI_TEST_KILL_AT_POINT) loses only its point in progress and
// --resume finishes the sweep; a single-process file (no "rank") resumes
// under MPI; more ranks than points is fine. Built only with MPI.

#include "ecmo/sweep_mpi.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "command_runner.h"
#include "ecmo/problems/registry.h"
#include "ecmo/sweep.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test_files.h"

namespace ecmo {
namespace {

using nlohmann::json;
using testing::CommandResult;
using testing::RunCommand;

std::string Path(const std::string& name) {
  return ::testing::TempDir() + "/sweep_mpi_" + std::to_string(::getpid()) +
         "_" + name;
}

using testing::ReadText;

// The JSON-lines file's points by index (every line must parse).
std::map<int, json> ReadJsonl(const std::string& path) {
  std::map<int, json> points;
  std::istringstream in(ReadText(path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const json j = json::parse(line, nullptr, false);
    EXPECT_TRUE(j.is_object()) << "unparsable line: " << line;
    if (!j.is_object()) continue;
    EXPECT_EQ(points.count(j["index"].get<int>()), 0u) << "duplicate " << line;
    points[j["index"].get<int>()] = j;
  }
  return points;
}

// A point without what may differ between runs: timings, the rank, and
// the history's evaluation counts (a worker's evaluator counts over all
// the points it solved, so they depend on which points came before).
json Comparable(const json& j, const std::string& parent = "") {
  if (j.is_object()) {
    json out = json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key().find("time") != std::string::npos || it.key() == "rank" ||
          (parent == "history" && it.key() == "gradient_evaluations")) {
        continue;
      }
      out[it.key()] = Comparable(it.value(), it.key());
    }
    return out;
  }
  if (j.is_array()) {
    json out = json::array();
    for (const json& x : j) out.push_back(Comparable(x, parent));
    return out;
  }
  return j;
}

// The top-level keys whose values differ, for a readable failure.
std::string DifferingKeys(const json& a, const json& b) {
  std::string keys;
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (!b.contains(it.key()) || b[it.key()] != it.value()) {
      keys += " " + it.key();
    }
  }
  for (auto it = b.begin(); it != b.end(); ++it) {
    if (!a.contains(it.key())) keys += " " + it.key();
  }
  return keys;
}

// mtbl_logistic at n_y = 20: about 80 ms a point, long enough against
// the messages' latency (about a millisecond) for every rank to get work.
// The strategy is pinned to the augmented Lagrangian: these tests check how
// points are shared out, the same for every strategy, and automatic's
// wc-newton on this problem took 3 times as long under ASan (22.6 against
// 7.9 s for 3 points), which made the MPI cases the slowest of that suite.
std::string Solve(const std::string& flags) {
  return std::string(ECMO_SOLVE_PATH) +
         " --problem=mtbl_logistic --problem_size=20"
         " --strategy=wc-augmented-lagrangian " +
         flags;
}

std::string Mpirun(int ranks,
                   const std::string& command,
                   const std::string& extra = "") {
  return testing::MpirunCommand(ECMO_MPIEXEC, ranks, command, extra);
}

// Every point of `b` equals the one of `a` with its index (timings and
// rank aside), and both have `n` points.
void ExpectSamePoints(const std::map<int, json>& a,
                      const std::map<int, json>& b,
                      int n) {
  ASSERT_EQ(static_cast<int>(a.size()), n);
  ASSERT_EQ(static_cast<int>(b.size()), n);
  for (const auto& [index, point] : a) {
    ASSERT_EQ(b.count(index), 1u) << "point " << index << " missing";
    const json pa = Comparable(point), pb = Comparable(b.at(index));
    EXPECT_TRUE(pa == pb) << "point " << index
                          << " differs in:" << DifferingKeys(pa, pb);
  }
}

TEST(SweepMpi, WithoutALauncherIsTheSingleProcessSweep) {
  // No mpirun: the session stays inactive and DistributedSweep is Sweep.
  int argc = 1;
  char name[] = "sweep_mpi_test";
  char* args[] = {name, nullptr};
  char** argv = args;
  MpiSession mpi(&argc, &argv);
  EXPECT_TRUE(mpi.ok());
  EXPECT_FALSE(mpi.active());
  EXPECT_EQ(mpi.rank(), 0);
  EXPECT_EQ(mpi.size(), 1);

  const problems::ProblemInfo* info = problems::Find("gebken_circle");
  ASSERT_NE(info, nullptr);
  ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone (refinement: sweep_refine_test.cc)
  options.warm_start = false;
  const auto preferences = DasDennis(2, 4);
  ParetoSweep::Summary plain, distributed;
  Sweep(options, MakeProblemFactory(info->build), preferences, &plain);
  DistributedSweepStatistics statistics;
  DistributedSweep(options,
                   MakeProblemFactory(info->build),
                   preferences,
                   &distributed,
                   &statistics);
  ASSERT_EQ(distributed.num_points, plain.num_points);
  EXPECT_EQ(distributed.num_ranks, 1);
  EXPECT_EQ(statistics.num_ranks, 1);
  EXPECT_EQ(statistics.remote_points, 0);
  for (size_t i = 0; i < plain.points.size(); ++i) {
    EXPECT_EQ(distributed.points[i].rank, -1);
    EXPECT_EQ(distributed.points[i].summary.z, plain.points[i].summary.z);
  }
  const json j = SweepToJson(distributed, "gebken_circle");
  EXPECT_FALSE(j.contains("num_ranks"));
  EXPECT_FALSE(j["points"][0].contains("rank"));
}

TEST(SweepMpi, TwoRanksEqualOneProcessToTheBitWithColdStarts) {
  const std::string flags =
      "--preferences=das-dennis:3 --warm_start=false --json";
  const std::string a = Path("cold1.jsonl"), b = Path("cold2.jsonl");
  const std::string out_b = Path("cold2.json");
  ASSERT_EQ(RunCommand(Solve(flags + " --jsonl=" + a), false).exit_code, 0);
  const CommandResult run = RunCommand(
      Mpirun(2, Solve(flags + " --jsonl=" + b + " --output=" + out_b)));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::map<int, json> single = ReadJsonl(a), two = ReadJsonl(b);
  ExpectSamePoints(single, two, 10);
  // Every line names its rank; both ranks solved points.
  std::set<int> ranks;
  for (const auto& [index, point] : two) {
    ASSERT_TRUE(point.contains("rank")) << index;
    ranks.insert(point["rank"].get<int>());
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1}));
  EXPECT_FALSE(single.begin()->second.contains("rank"));
  // The sweep's JSON: num_ranks, and the same points with their ranks.
  const json document = json::parse(ReadText(out_b), nullptr, false);
  ASSERT_TRUE(document.is_object());
  EXPECT_EQ(document["num_ranks"], 2);
  ASSERT_EQ(document["points"].size(), 10u);
  for (const json& p : document["points"]) {
    EXPECT_EQ(p, two.at(p["index"].get<int>())) << p["index"];
  }
  // The report's line arrives whole (stdout and stderr are forwarded apart
  // under mpirun; a line written in pieces had the result table inside).
  const size_t at = run.output.find("ecmo_solve: distributed over 2 ranks; ");
  ASSERT_NE(at, std::string::npos) << run.output;
  const std::string line =
      run.output.substr(at, run.output.find('\n', at) - at);
  EXPECT_NE(line.find("; points per rank "), std::string::npos) << line;
  EXPECT_NE(line.find(" point(s) sent, "), std::string::npos) << line;
  EXPECT_NE(line.find(" KB per point ("), std::string::npos) << line;
}

// Points flagged as possible spurious ends (SweepPoint::
// possibly_spurious_end) are counted under mpirun as by a single process:
// concave_quarter's cold augmented-Lagrangian points at the extreme
// preferences land on an end of the front. (These points take
// microseconds, so rank 0 solves most of them; a point another rank sends
// back is read by the same function as a resumed line, which
// concave_front_test's resume test covers.)
// Every point of `b` has `a`'s values under `keys` to `tolerance`, and
// both have `n` points.
void ExpectPointsNear(const std::map<int, json>& a,
                      const std::map<int, json>& b,
                      size_t n,
                      std::initializer_list<const char*> keys,
                      double tolerance) {
  ASSERT_EQ(a.size(), n);
  ASSERT_EQ(b.size(), n);
  for (const auto& [index, point] : a) {
    ASSERT_EQ(b.count(index), 1u) << "point " << index << " missing";
    const json& other = b.at(index);
    for (const char* key : keys) {
      ASSERT_EQ(point[key].size(), other[key].size());
      for (size_t i = 0; i < point[key].size(); ++i) {
        EXPECT_NEAR(
            point[key][i].get<double>(), other[key][i].get<double>(), tolerance)
            << key << " of point " << index << ": " << other["message"];
      }
    }
  }
}

TEST(SweepMpi, SpuriousEndFlagsReachTheCoordinator) {
  const std::string command =
      std::string(ECMO_SOLVE_PATH) +
      " --problem=concave_quarter --sweep=51 "
      "--strategy=wc-augmented-lagrangian --warm_start=false --output=";
  const std::string a = Path("spurious1.json"), b = Path("spurious2.json");
  ASSERT_EQ(RunCommand(command + a, false).exit_code, 0);
  const CommandResult run = RunCommand(Mpirun(2, command + b));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const json single = json::parse(ReadText(a), nullptr, false);
  const json two = json::parse(ReadText(b), nullptr, false);
  ASSERT_TRUE(single.is_object() && two.is_object());
  EXPECT_GT(single["num_possibly_spurious_ends"].get<int>(), 0);
  EXPECT_EQ(two["num_possibly_spurious_ends"],
            single["num_possibly_spurious_ends"]);
  EXPECT_EQ(two["num_ranks"], 2);
}

TEST(SweepMpi, OneRankIsTheSingleProcessRun) {
  const std::string flags = "--preferences=das-dennis:1 --warm_start=false";
  const std::string a = Path("np1a.jsonl"), b = Path("np1b.jsonl");
  ASSERT_EQ(RunCommand(Solve(flags + " --jsonl=" + a), false).exit_code, 0);
  const CommandResult run =
      RunCommand(Mpirun(1, Solve(flags + " --jsonl=" + b)));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::map<int, json> single = ReadJsonl(a), one = ReadJsonl(b);
  ExpectSamePoints(single, one, 3);
  for (const auto& [index, point] : one) EXPECT_FALSE(point.contains("rank"));
}

TEST(SweepMpi, WarmStartsAgreeWithOneProcessToTolerance) {
  // gebken_circle: each WC subproblem has one solution. (mtbl_logistic
  // has several local ones: there warm starts land on different ones
  // whenever the order changes, with two threads in one process too.)
  const std::string flags = " --problem=gebken_circle --sweep=21";
  const std::string solve = std::string(ECMO_SOLVE_PATH) + flags;
  const std::string a = Path("warm1.jsonl"), b = Path("warm2.jsonl");
  ASSERT_EQ(RunCommand(solve + " --jsonl=" + a, false).exit_code, 0);
  const CommandResult run = RunCommand(Mpirun(2, solve + " --jsonl=" + b));
  ASSERT_EQ(run.exit_code, 0) << run.output;  // every point certified
  const std::map<int, json> single = ReadJsonl(a), two = ReadJsonl(b);
  ExpectPointsNear(single, two, 21, {"z", "objectives"}, 1e-5);
  for (const auto& [index, point] : two) {
    EXPECT_EQ(point["termination"], "CONVERGENCE") << index;
  }
}

TEST(SweepMpi, SaturatedSoftmaxGivesTheSameFrontOnTwoRanks) {
  // mtbl_logistic_reduced: most of das-dennis:4's preferences drive a
  // source weight into saturation, and which saturated point a warm start
  // lands on depends on the walk; the sweep's cold checks compare such
  // points with a cold solve (the source's objectives travel with the
  // task), so one process and two ranks agree to the certificate's
  // tolerance (measured: objectives within 8e-9, and within 8e-9 of a
  // cold sweep; with --cold_checks=false the two differed by 0.065 in an
  // objective, and one point was 33% worse in its WC value).
  const std::string solve = std::string(ECMO_SOLVE_PATH) +
                            " --problem=mtbl_logistic_reduced --problem_size=20"
                            " --preferences=das-dennis:4 --refine=0";
  const std::string a = Path("saturated1.jsonl"), b = Path("saturated2.jsonl");
  ASSERT_EQ(RunCommand(solve + " --jsonl=" + a, false).exit_code, 0);
  const CommandResult run = RunCommand(Mpirun(2, solve + " --jsonl=" + b));
  ASSERT_EQ(run.exit_code, 0) << run.output;  // every point certified
  ExpectPointsNear(ReadJsonl(a), ReadJsonl(b), 15, {"objectives"}, 1e-6);
}

TEST(SweepMpi, WarmStartsCrossRanksAndEveryPointIsCertified) {
  // mtbl_logistic's points take long enough for rank 1 to get several,
  // warm-started from points rank 0 or rank 1 finished: the neighbour's z,
  // multipliers and penalties travel in the task.
  const std::string b = Path("warm_cross.jsonl");
  const CommandResult run =
      RunCommand(Mpirun(2, Solve("--preferences=das-dennis:3 --jsonl=" + b)));
  ASSERT_EQ(run.exit_code, 0) << run.output;  // every point certified
  const std::map<int, json> points = ReadJsonl(b);
  // 10 Das-Dennis preferences, then the points rank 0 adds where the
  // front has holes (--refine=-1, the default).
  ASSERT_GE(points.size(), 10u);
  int warm_on_rank_1 = 0;
  for (const auto& [index, point] : points) {
    EXPECT_EQ(point["termination"], "CONVERGENCE") << index;
    if (point["rank"] == 1 && point["warm_start_from"].get<int>() >= 0) {
      ++warm_on_rank_1;
    }
  }
  EXPECT_GT(warm_on_rank_1, 0) << run.output;
}

TEST(SweepMpi, KilledRankLosesOnlyItsPointAndResumeFinishes) {
  const std::string flags = "--preferences=das-dennis:4 --warm_start=false";
  const std::string clean = Path("clean.jsonl"), crash = Path("crash.jsonl");
  ASSERT_EQ(RunCommand(Solve(flags + " --jsonl=" + clean), false).exit_code, 0);
  // Rank 1 dies on receiving its 2nd point: Open MPI ends the job (the
  // timeout only guards the test against a job that would hang instead).
  const CommandResult killed =
      RunCommand("ECMO_MPI_TEST_KILL_AT_POINT=2 timeout 120 " +
                 Mpirun(2,
                        Solve(flags + " --jsonl=" + crash),
                        "-x ECMO_MPI_TEST_KILL_AT_POINT"));
  EXPECT_NE(killed.exit_code, 0) << killed.output;
  EXPECT_NE(killed.exit_code, 124) << "the job hung: " << killed.output;
  const std::map<int, json> partial = ReadJsonl(crash);
  // The point rank 1 was killed on never came back: the sweep is short.
  EXPECT_LT(partial.size(), 15u);
  // Rank 1's first point came back before it died, and was written.
  int from_rank_1 = 0;
  for (const auto& [index, point] : partial) {
    from_rank_1 += point.value("rank", -1) == 1 ? 1 : 0;
  }
  EXPECT_EQ(from_rank_1, 1);

  const CommandResult resumed =
      RunCommand(Mpirun(2, Solve(flags + " --jsonl=" + crash + " --resume")));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resumed " + std::to_string(partial.size()) +
                                " of 15 points"),
            std::string::npos)
      << resumed.output;
  ExpectSamePoints(ReadJsonl(clean), ReadJsonl(crash), 15);
}

TEST(SweepMpi, SingleProcessFileWithoutRanksResumesUnderMpi) {
  const std::string flags = "--preferences=das-dennis:3 --warm_start=false";
  const std::string clean = Path("old.jsonl"), cut = Path("old_cut.jsonl");
  ASSERT_EQ(RunCommand(Solve(flags + " --jsonl=" + clean), false).exit_code, 0);
  // The first 5 lines of a single-process file: no "rank" in them.
  std::istringstream in(ReadText(clean));
  std::ofstream out(cut, std::ios::trunc);
  std::string line;
  for (int i = 0; i < 5 && std::getline(in, line); ++i) out << line << "\n";
  out.close();
  const CommandResult run =
      RunCommand(Mpirun(2, Solve(flags + " --jsonl=" + cut + " --resume")));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::map<int, json> points = ReadJsonl(cut);
  ExpectSamePoints(ReadJsonl(clean), points, 10);
  int with_rank = 0;
  for (const auto& [index, point] : points) with_rank += point.contains("rank");
  EXPECT_EQ(with_rank, 5);
}

TEST(SweepMpi, ThreeRanksWithFewerPointsThanRanksAndAnUnevenSplit) {
  // 2 points (random:2) for 3 ranks, and 10 (das-dennis:3) split 4/3/3.
  for (int n : {2, 10}) {
    const std::string flags =
        std::string(n == 2 ? "--preferences=random:2:7"
                           : "--preferences=das-dennis:3") +
        " --warm_start=false";
    const std::string a = Path("np3_" + std::to_string(n) + "a.jsonl");
    const std::string b = Path("np3_" + std::to_string(n) + "b.jsonl");
    const std::string out_b = Path("np3_" + std::to_string(n) + "b.json");
    ASSERT_EQ(RunCommand(Solve(flags + " --jsonl=" + a), false).exit_code, 0);
    const CommandResult run = RunCommand(
        Mpirun(3, Solve(flags + " --jsonl=" + b + " --output=" + out_b)));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    ExpectSamePoints(ReadJsonl(a), ReadJsonl(b), n);
    const json document = json::parse(ReadText(out_b), nullptr, false);
    ASSERT_TRUE(document.is_object());
    EXPECT_EQ(document["num_ranks"], 3);
    std::set<int> ranks;
    for (const json& p : document["points"]) ranks.insert(p["rank"].get<int>());
    // n = 2: two slots (ranks 0 and 1; rank 2 is only told to stop);
    // n = 10: all three ranks.
    EXPECT_TRUE(n == 2 ? ranks.size() <= 2u && !ranks.count(2)
                       : ranks.size() == 3u)
        << run.output;
  }
}

}  // namespace
}  // namespace ecmo
