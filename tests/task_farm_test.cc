// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ecmo::RunTasks (ecmo/task_farm.h): every task solved once and its result
// delivered once, with the text its solve returned; worker indices in
// range and each worker's tasks one after another; results delivered one
// at a time; an exception becomes the task's error; invalid options give
// every task the options' error.

#include "ecmo/task_farm.h"

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace ecmo {
namespace {

// Tasks with unequal costs, so that the workers interleave.
std::string Square(int task) {
  std::this_thread::sleep_for(std::chrono::microseconds(200 * (task % 5)));
  return std::to_string(task * task);
}

TEST(TaskFarm, EveryTaskOnceWithItsResult) {
  for (int threads : {1, 2, 4}) {
    std::vector<int> tasks;
    for (int t = 0; t < 40; ++t) tasks.push_back(3 * t + 1);  // any numbers
    std::vector<std::atomic<int>> busy(threads);
    std::atomic<bool> overlapping_solves(false);
    std::atomic<int> delivering(0);
    bool overlapping_results = false;
    std::map<int, std::string> results;
    std::set<int> threads_seen;
    TaskFarm::Options options;
    options.num_threads = threads;
    RunTasks(
        options,
        tasks,
        [&](int thread, int task) {
          EXPECT_GE(thread, 0);
          EXPECT_LT(thread, threads);
          if (thread < 0 || thread >= threads) return std::string();
          // A worker index is never used by two solves at once.
          if (busy[thread].fetch_add(1) != 0) overlapping_solves = true;
          std::string text = Square(task);
          busy[thread].fetch_sub(1);
          return text;
        },
        [&](const TaskFarm::Result& r) {
          if (delivering.fetch_add(1) != 0) overlapping_results = true;
          EXPECT_TRUE(r.error.empty()) << r.error;
          EXPECT_EQ(r.rank, 0);
          EXPECT_EQ(results.count(r.task), 0u) << "task " << r.task << " twice";
          results[r.task] = r.text;
          threads_seen.insert(r.thread);
          delivering.fetch_sub(1);
        });
    ASSERT_EQ(results.size(), tasks.size()) << threads << " threads";
    for (int t : tasks) EXPECT_EQ(results[t], std::to_string(t * t));
    EXPECT_FALSE(overlapping_solves);
    EXPECT_FALSE(overlapping_results);
    EXPECT_LE(static_cast<int>(threads_seen.size()), threads);
  }
}

TEST(TaskFarm, AnExceptionBecomesTheTasksError) {
  std::map<int, TaskFarm::Result> results;
  TaskFarm::Options options;
  options.num_threads = 2;
  RunTasks(
      options,
      {0, 1, 2, 3},
      [](int, int task) -> std::string {
        if (task == 2) throw std::runtime_error("no data for task 2");
        return "ok";
      },
      [&](const TaskFarm::Result& r) { results[r.task] = r; });
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[2].text, "");
  EXPECT_NE(results[2].error.find("no data for task 2"), std::string::npos)
      << results[2].error;
  for (int t : {0, 1, 3}) {
    EXPECT_EQ(results[t].text, "ok");
    EXPECT_TRUE(results[t].error.empty());
  }
}

TEST(TaskFarm, InvalidOptionsGiveEveryTaskTheError) {
  TaskFarm::Options options;
  options.num_threads = 0;
  std::string error;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("num_threads"), std::string::npos) << error;
  int solved = 0, delivered = 0;
  RunTasks(
      options,
      {5, 6},
      [&](int, int) {
        ++solved;
        return std::string("x");
      },
      [&](const TaskFarm::Result& r) {
        ++delivered;
        EXPECT_NE(r.error.find("num_threads"), std::string::npos) << r.error;
      });
  EXPECT_EQ(solved, 0);
  EXPECT_EQ(delivered, 2);
}

TEST(TaskFarm, NoTasksReturnsAtOnce) {
  TaskFarm::Options options;
  options.num_threads = 3;
  int calls = 0;
  RunTasks(
      options,
      {},
      [&](int, int) {
        ++calls;
        return std::string();
      },
      [&](const TaskFarm::Result&) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace ecmo
