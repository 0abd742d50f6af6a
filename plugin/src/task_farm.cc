// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ecmo::RunTasks (ecmo/task_farm.h): a queue of task numbers drained by
// worker threads; results pass through one mutex to the caller's function.

#include "ecmo/task_farm.h"

#include <algorithm>
#include <exception>
#include <mutex>

#include "ecmo/internal/report.h"
#include "task_farm_worker.h"

namespace ecmo {

bool TaskFarm::Options::IsValid(std::string* error) const {
  static constexpr char kOptions[] = "TaskFarm::Options";
  ECMO_OPTION_CHECK(kOptions, num_threads, num_threads > 0, "> 0");
  return true;
}

namespace internal {

TaskFarm::Result SolveTask(const TaskFarm::SolveFunction& solve,
                           int thread,
                           int task) {
  TaskFarm::Result result;
  result.task = task;
  result.thread = thread;
  try {
    result.text = solve(thread, task);
  } catch (const std::exception& e) {
    result.text.clear();
    result.error = std::string("the task threw: ") + e.what();
  } catch (...) {
    result.text.clear();
    result.error = "the task threw an exception that is not std::exception";
  }
  return result;
}

void TaskQueue::Run(int thread,
                    const TaskFarm::SolveFunction& solve,
                    const std::function<void(const TaskFarm::Result&)>& done) {
  int task = 0;
  while (Next(&task)) done(SolveTask(solve, thread, task));
}

bool TaskQueue::Next(int* task) {
  const std::unique_lock<std::mutex> lock = LockBriefly(&mutex_);
  if (next_ >= tasks_.size()) return false;
  *task = tasks_[next_++];
  return true;
}

}  // namespace internal

void RunTasks(const TaskFarm::Options& options,
              const std::vector<int>& tasks,
              const TaskFarm::SolveFunction& solve,
              const TaskFarm::ResultFunction& on_result) {
  std::string error;
  if (!options.IsValid(&error)) {
    for (int task : tasks) {
      TaskFarm::Result result;
      result.task = task;
      result.error = error;
      on_result(result);
    }
    return;
  }
  internal::TaskQueue queue(tasks);
  std::mutex result_mutex;
  auto deliver = [&](const TaskFarm::Result& result) {
    std::lock_guard<std::mutex> lock(result_mutex);
    on_result(result);
  };
  auto body = [&](int thread) { queue.Run(thread, solve, deliver); };
  const int num_threads =
      std::max(1, std::min<int>(options.num_threads, tasks.size()));
  // The calling thread is worker 0.
  internal::WorkerTeam team;
  team.Start(1, num_threads, body);
  body(0);
  team.Join();
}

}  // namespace ecmo
