// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: the pieces of ecmo::RunTasks that the distributed
// farm (plugin/mpi, ecmo::DistributeTasks) shares: a queue of task numbers
// drained by several threads and one task solved with its exception
// caught (their threads start with StartWorkers, worker_thread.h). Not
// installed.

#ifndef ECMO_TASK_FARM_WORKER_H_
#define ECMO_TASK_FARM_WORKER_H_

#include <cstddef>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "ecmo/task_farm.h"
#include "worker_thread.h"

namespace ecmo {
namespace internal {

// Calls solve(thread, task); an exception becomes Result::error.
TaskFarm::Result SolveTask(const TaskFarm::SolveFunction& solve,
                           int thread,
                           int task);

// Task numbers handed out in order, each once, to whichever thread asks.
class TaskQueue {
 public:
  explicit TaskQueue(std::vector<int> tasks) : tasks_(std::move(tasks)) {}
  // The next task; false when none is left.
  bool Next(int* task);
  // Solves tasks on `thread` until none is left, passing each result to
  // `done` (on this thread).
  void Run(int thread,
           const TaskFarm::SolveFunction& solve,
           const std::function<void(const TaskFarm::Result&)>& done);

 private:
  std::mutex mutex_;
  std::vector<int> tasks_;
  size_t next_ = 0;
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_TASK_FARM_WORKER_H_
