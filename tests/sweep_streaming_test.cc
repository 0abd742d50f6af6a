// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Streaming and resuming sweeps: every finished point is on disk before the
// next callback runs, --resume recomputes only the missing points (lines
// deleted, a last line cut short), a file from another sweep is refused,
// and an ecmo_solve killed with SIGKILL mid-sweep finishes with --resume
// with every point exactly once.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ecmo/problems/registry.h"
#include "ecmo/result_writer.h"
#include "ecmo/sweep.h"
#include "gtest/gtest.h"
#include "test_files.h"
#include "test_problems.h"

extern char** environ;

namespace ecmo {
namespace {

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

using testing::WriteText;

// Rewrites every line of a JSON-lines file through `edit`.
void EditLines(const std::string& path,
               const std::function<void(nlohmann::json*)>& edit) {
  std::string text;
  for (const std::string& line : ReadLines(path)) {
    nlohmann::json j = nlohmann::json::parse(line);
    edit(&j);
    text += j.dump() + "\n";
  }
  WriteText(path, text);
}

using testing::ReadText;

// Indices found in a JSON-lines file (every line must parse).
std::multiset<int> Indices(const std::string& path) {
  std::multiset<int> indices;
  for (const std::string& line : ReadLines(path)) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "unparsable line: " << line;
    if (j.is_discarded()) continue;
    indices.insert(j["index"].get<int>());
  }
  return indices;
}

using testing::EvenPreferences;

ProblemFactory GebkenFactory() {
  return MakeProblemFactory(problems::Find("gebken_circle")->build);
}

ParetoSweep::Options BaseOptions(const std::string& jsonl,
                                 const std::string& csv) {
  ParetoSweep::Options options;
  options.solver.max_iterations = 2000;  // wc-penalty-pgd: cheap, determinate
  options.solver.history_stride = 100;
  options.problem_name = "gebken_circle";
  options.jsonl_path = jsonl;
  options.csv_path = csv;
  return options;
}

// Checks from inside the sweep that each point is on disk when its callback
// runs (the callback runs after the write).
class OnDiskCheck : public SweepCallback {
 public:
  explicit OnDiskCheck(std::string path) : path_(std::move(path)) {}
  CallbackReturnType operator()(const SweepPoint& point) override {
    ++calls_;
    const std::multiset<int> indices = Indices(path_);
    EXPECT_EQ(indices.count(point.index), 1u) << point.index;
    EXPECT_EQ(static_cast<int>(indices.size()), calls_ + resumed_);
    return ceres::SOLVER_CONTINUE;
  }
  int calls_ = 0;
  int resumed_ = 0;

 private:
  std::string path_;
};

TEST(SweepStreaming, WritesOneFlushedLinePerPoint) {
  const std::string dir = ::testing::TempDir();
  const std::string jsonl = dir + "/stream.jsonl";
  const std::string csv = dir + "/stream.csv";
  ParetoSweep::Options options = BaseOptions(jsonl, csv);
  options.num_threads = 2;
  OnDiskCheck check(jsonl);
  options.callbacks.push_back(&check);
  ParetoSweep::Summary summary;
  Sweep(options, GebkenFactory(), EvenPreferences(15), &summary);
  ASSERT_NE(summary.termination_type, ceres::FAILURE) << summary.message;
  EXPECT_EQ(check.calls_, 15);
  const std::multiset<int> indices = Indices(jsonl);
  ASSERT_EQ(indices.size(), 15u);
  for (int i = 0; i < 15; ++i) EXPECT_EQ(indices.count(i), 1u) << i;
  // Each line is SummaryToJson plus the sweep's fields.
  const nlohmann::json first = nlohmann::json::parse(ReadLines(jsonl)[0]);
  for (const char* key : {"index",
                          "preference",
                          "preference_given",
                          "warm_start_from",
                          "problem",
                          "termination",
                          "z",
                          "objectives",
                          "kkt",
                          "history"}) {
    EXPECT_TRUE(first.contains(key)) << key;
  }
  const std::vector<std::string> rows = ReadLines(csv);
  ASSERT_EQ(rows.size(), 16u);
  EXPECT_EQ(rows[0], SweepCsvHeader(2, 2));
}

TEST(SweepStreaming, ResumeRecomputesOnlyTheMissingPoints) {
  const std::string dir = ::testing::TempDir();
  const std::string jsonl = dir + "/resume.jsonl";
  const std::string csv = dir + "/resume.csv";
  const auto preferences = EvenPreferences(15);
  ParetoSweep::Options options = BaseOptions(jsonl, csv);
  ParetoSweep::Summary full;
  Sweep(options, GebkenFactory(), preferences, &full);
  ASSERT_EQ(full.num_solved, 15);

  // Delete two lines and cut the last one short, as a kill mid-write would.
  std::vector<std::string> lines = ReadLines(jsonl);
  ASSERT_EQ(lines.size(), 15u);
  std::set<int> missing;
  std::string text;
  for (size_t l = 0; l < lines.size(); ++l) {
    const int index = nlohmann::json::parse(lines[l])["index"].get<int>();
    if (l == 3 || l == 7) {
      missing.insert(index);
    } else if (l + 1 == lines.size()) {
      missing.insert(index);
      text += lines[l].substr(0, lines[l].size() / 2);  // no newline
    } else {
      text += lines[l] + "\n";
    }
  }
  WriteText(jsonl, text);

  options.resume = true;
  OnDiskCheck check(jsonl);
  check.resumed_ = 12;
  options.callbacks.push_back(&check);
  ParetoSweep::Summary resumed;
  Sweep(options, GebkenFactory(), preferences, &resumed);
  ASSERT_NE(resumed.termination_type, ceres::FAILURE) << resumed.message;
  EXPECT_EQ(resumed.num_resumed, 12);
  EXPECT_EQ(resumed.num_solved, 3);
  EXPECT_EQ(check.calls_, 3);
  EXPECT_TRUE(resumed.resume_dropped_truncated_line);
  EXPECT_NE(resumed.resume_message.find("truncated last line"),
            std::string::npos)
      << resumed.resume_message;
  for (const SweepPoint& p : resumed.points) {
    EXPECT_EQ(p.status,
              missing.count(p.index) ? SweepPoint::SOLVED : SweepPoint::RESUMED)
        << p.index;
    // Same answers as the uninterrupted sweep (the faithful strategy is
    // deterministic given its start; warm starts may come from another
    // neighbour, so compare loosely).
    EXPECT_LT((p.summary.z - full.points[p.index].summary.z).norm(), 0.05);
  }
  const std::multiset<int> indices = Indices(jsonl);
  ASSERT_EQ(indices.size(), 15u);
  for (int i = 0; i < 15; ++i) EXPECT_EQ(indices.count(i), 1u) << i;
  EXPECT_EQ(ReadLines(csv).size(), 16u);
  EXPECT_NEAR(resumed.hypervolume, full.hypervolume, 1e-3 * full.hypervolume);

  // Resuming a complete file solves nothing.
  ParetoSweep::Summary again;
  options.callbacks.clear();
  Sweep(options, GebkenFactory(), preferences, &again);
  EXPECT_EQ(again.num_solved, 0);
  EXPECT_EQ(again.num_resumed, 15);
  EXPECT_FALSE(again.resume_dropped_truncated_line);
  EXPECT_EQ(Indices(jsonl).size(), 15u);
}

TEST(SweepStreaming, ResumeRefusesAFileFromAnotherSweep) {
  const std::string dir = ::testing::TempDir();
  const std::string jsonl = dir + "/other.jsonl";
  ParetoSweep::Options options = BaseOptions(jsonl, "");
  ParetoSweep::Summary summary;
  Sweep(options, GebkenFactory(), EvenPreferences(5), &summary);
  const std::string before = ReadText(jsonl);

  options.resume = true;
  Sweep(options,
        GebkenFactory(),
        EvenPreferences(6),
        &summary);  // other preferences
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("another sweep"), std::string::npos)
      << summary.message;
  EXPECT_EQ(summary.num_solved, 0);
  EXPECT_EQ(ReadText(jsonl), before);

  options.problem_name = "convex_line";
  Sweep(options, GebkenFactory(), EvenPreferences(5), &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("problem \"gebken_circle\""),
            std::string::npos)
      << summary.message;
  EXPECT_EQ(ReadText(jsonl), before);
}

TEST(SweepStreaming, ResumeWithoutAFileStartsFresh) {
  const std::string dir = ::testing::TempDir();
  const std::string jsonl = dir + "/fresh.jsonl";
  std::remove(jsonl.c_str());
  ParetoSweep::Options options = BaseOptions(jsonl, "");
  options.resume = true;
  ParetoSweep::Summary summary;
  Sweep(options, GebkenFactory(), EvenPreferences(4), &summary);
  EXPECT_EQ(summary.num_solved, 4);
  EXPECT_NE(summary.resume_message.find("does not exist"), std::string::npos);
  EXPECT_EQ(Indices(jsonl).size(), 4u);
}

// Histories reach the file and the callbacks but stay in memory only with
// keep_history; the in-memory points then hold what the file holds.
class HistoryLengths : public SweepCallback {
 public:
  CallbackReturnType operator()(const SweepPoint& point) override {
    lengths[point.index] = point.summary.history.size();
    return ceres::SOLVER_CONTINUE;
  }
  std::map<int, size_t> lengths;
};

TEST(SweepStreaming, HistoriesAreWrittenButKeptOnlyOnRequest) {
  const std::string dir = ::testing::TempDir();
  const auto preferences = EvenPreferences(5);
  for (bool keep : {false, true}) {
    const std::string jsonl =
        dir + "/history_" + (keep ? "kept" : "dropped") + ".jsonl";
    ParetoSweep::Options options = BaseOptions(jsonl, "");
    options.keep_history = keep;
    HistoryLengths seen;
    options.callbacks.push_back(&seen);
    ParetoSweep::Summary summary;
    Sweep(options, GebkenFactory(), preferences, &summary);
    ASSERT_EQ(summary.num_solved, 5) << summary.message;
    const std::vector<std::string> lines = ReadLines(jsonl);
    ASSERT_EQ(lines.size(), 5u);
    for (const std::string& text : lines) {
      const nlohmann::json line = nlohmann::json::parse(text);
      const int index = line["index"].get<int>();
      const size_t written = line["history"]["iteration"].size();
      // One entry per outer iteration (4-5 here).
      EXPECT_GE(written, 2u) << index;
      EXPECT_EQ(seen.lengths[index], written) << index;
      const SweepPoint& point = summary.points[index];
      EXPECT_EQ(point.summary.history.size(), keep ? written : 0u) << index;
      // The settings are in the line, kept once in the summary.
      EXPECT_EQ(line["settings"], summary.settings);
      EXPECT_FALSE(point.extra.contains("settings"));
      // SweepToJson gives back exactly the line when the history is kept.
      nlohmann::json document = SweepToJson(summary, "gebken_circle");
      nlohmann::json from_memory = document["points"][index];
      if (!keep) {
        EXPECT_FALSE(from_memory.contains("history"));
        nlohmann::json without = line;
        without.erase("history");
        EXPECT_EQ(from_memory, without) << index;
      } else {
        EXPECT_EQ(from_memory, line) << index;
      }
    }
  }
}

// A resumed point keeps only the fields of its line that its summary does
// not give back, yet its JSON is the line.
TEST(SweepStreaming, ResumedPointsAreCompactAndGiveTheirLineBack) {
  const std::string dir = ::testing::TempDir();
  const std::string jsonl = dir + "/resume_compact.jsonl";
  const auto preferences = EvenPreferences(6);
  ParetoSweep::Options options = BaseOptions(jsonl, "");
  ParetoSweep::Summary first;
  Sweep(options, GebkenFactory(), preferences, &first);
  ASSERT_EQ(first.num_solved, 6) << first.message;
  // A field of another version (or a point_solver) must survive.
  std::map<int, nlohmann::json> by_index;
  EditLines(jsonl, [&](nlohmann::json* j) {
    (*j)["from_elsewhere"] = {{"a", 1}};
    by_index[(*j)["index"].get<int>()] = *j;
  });
  for (bool keep : {false, true}) {
    options.resume = true;
    options.keep_history = keep;
    ParetoSweep::Summary resumed;
    Sweep(options, GebkenFactory(), preferences, &resumed);
    ASSERT_EQ(resumed.num_resumed, 6) << resumed.message;
    ASSERT_EQ(resumed.num_solved, 0);
    const nlohmann::json document = SweepToJson(resumed, "gebken_circle");
    for (const SweepPoint& p : resumed.points) {
      const nlohmann::json& line = by_index[p.index];
      EXPECT_TRUE(p.extra.contains("from_elsewhere")) << p.index;
      EXPECT_TRUE(p.extra.contains("version")) << p.index;
      EXPECT_FALSE(p.extra.contains("settings")) << p.index;
      EXPECT_FALSE(p.extra.contains("z")) << p.index;
      EXPECT_FALSE(p.extra.contains("history")) << p.index;
      EXPECT_EQ(p.summary.history.empty(), !keep) << p.index;
      nlohmann::json expected = line;
      if (!keep) expected.erase("history");
      EXPECT_EQ(document["points"][p.index], expected) << p.index;
      // The squared norms of K as the first run computed them, to the bit
      // (the file keeps them exactly; a square root and its square would
      // not give them back).
      const KktReport& a = p.summary.kkt;
      const KktReport& b = first.points[p.index].summary.kkt;
      for (const auto& [ra, rb] :
           {std::make_pair(&a.with_solver_multipliers,
                           &b.with_solver_multipliers),
            std::make_pair(&a.with_least_squares_multipliers,
                           &b.with_least_squares_multipliers)}) {
        EXPECT_EQ(ra->SquaredNorm(), rb->SquaredNorm()) << p.index;
        EXPECT_EQ(ra->SimplexSq(), rb->SimplexSq()) << p.index;
        EXPECT_EQ(ra->StationaritySq(), rb->StationaritySq()) << p.index;
        EXPECT_EQ(ra->FeasibilitySq(), rb->FeasibilitySq()) << p.index;
        EXPECT_EQ(ra->ComplementaritySq(), rb->ComplementaritySq()) << p.index;
      }
    }
    EXPECT_EQ(resumed.worst_kkt_residual_sq, first.worst_kkt_residual_sq);
  }
}

TEST(SweepStreaming, AResumedPointNeverScoredKeepsItsNanResidual) {
  // A line whose KKT blocks are null (NaN when written: the point was
  // never scored) must not read back as ||K||^2 = 0.
  const std::string dir = ::testing::TempDir();
  const std::string jsonl = dir + "/resume_nan.jsonl";
  const auto preferences = EvenPreferences(3);
  ParetoSweep::Options options = BaseOptions(jsonl, "");
  ParetoSweep::Summary first;
  Sweep(options, GebkenFactory(), preferences, &first);
  ASSERT_EQ(first.num_solved, 3) << first.message;
  EditLines(jsonl, [](nlohmann::json* j) {
    if ((*j)["index"].get<int>() != 1) return;
    (*j)["termination"] = "FAILURE";
    for (auto& [key, block] : (*j)["kkt"].items()) {
      if (block.is_object() && block.contains("stationarity_sq")) {
        block["stationarity_sq"] = nullptr;
      }
    }
  });
  options.resume = true;
  ParetoSweep::Summary resumed;
  Sweep(options, GebkenFactory(), preferences, &resumed);
  ASSERT_EQ(resumed.num_resumed + resumed.num_solved, 3) << resumed.message;
  const SweepPoint& p = resumed.points[1];
  ASSERT_EQ(p.status, SweepPoint::RESUMED);
  EXPECT_TRUE(std::isnan(p.summary.kkt.with_solver_multipliers.SquaredNorm()));
  EXPECT_EQ(resumed.points[0].status, SweepPoint::RESUMED);
  EXPECT_FALSE(
      std::isnan(resumed.points[0].summary.kkt.with_solver_multipliers
                     .SquaredNorm()));
}

#ifdef ECMO_SOLVE_PATH
int CountCompleteLines(const std::string& path) {
  const std::string text = ReadText(path);
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

TEST(SweepStreaming, KilledEcmoSolveResumesWithEveryPointExactlyOnce) {
  // A directory of this process's own: TempDir() is /tmp, shared with test
  // runs of other checkouts on the machine, whose sweeps on the same file
  // name truncated this one's lines mid-test.
  std::string dir = ::testing::TempDir() + "/killed_XXXXXX";
  ASSERT_NE(::mkdtemp(&dir[0]), nullptr) << dir;
  const std::string jsonl = dir + "/killed.jsonl";
  const std::string output = dir + "/killed.json";
  std::remove(jsonl.c_str());
  const int n = 16;
  std::vector<std::string> args = {ECMO_SOLVE_PATH,
                                   "--problem=gebken_circle",
                                   "--sweep=16",
                                   "--strategy=wc-penalty-pgd",
                                   "--max_iterations=100000",
                                   "--num_threads=2",
                                   "--jsonl=" + jsonl,
                                   "--output=" + output,
                                   "--json"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ),
            0);
  posix_spawn_file_actions_destroy(&actions);
  // Kill it once a few points are on disk.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (CountCompleteLines(jsonl) < 3 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "ecmo_solve finished before the kill";
  const int written = CountCompleteLines(jsonl);
  ASSERT_GE(written, 3);
  ASSERT_LT(written, n) << "the sweep was too fast to interrupt";
  // Also leave a partial line, as a kill in the middle of a write would.
  {
    std::ofstream out(jsonl, std::ios::app);
    out << "{\"index\": 15, \"problem\": \"gebken_ci";
  }

  const std::string command = std::string(ECMO_SOLVE_PATH) +
                              " --problem=gebken_circle --sweep=16"
                              " --strategy=wc-penalty-pgd"
                              " --max_iterations=100000 --num_threads=2"
                              " --jsonl=" +
                              jsonl + " --output=" + output + " --resume 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  char buffer[4096];
  size_t got;
  while ((got = fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    text.append(buffer, got);
  }
  const int exit_status = pclose(pipe);
  EXPECT_TRUE(WIFEXITED(exit_status)) << text;
  EXPECT_NE(text.find("resumed " + std::to_string(written) + " of 16"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("truncated last line"), std::string::npos) << text;

  const std::multiset<int> indices = Indices(jsonl);
  ASSERT_EQ(indices.size(), static_cast<size_t>(n)) << text;
  for (int i = 0; i < n; ++i) EXPECT_EQ(indices.count(i), 1u) << i;
  std::ifstream in(output);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["points"].size(), static_cast<size_t>(n));
  EXPECT_EQ(j["num_resumed"].get<int>(), written);
  EXPECT_EQ(j["num_solved"].get<int>(), n - written);
  EXPECT_TRUE(j.contains("hypervolume"));
}
#endif

}  // namespace
}  // namespace ecmo
