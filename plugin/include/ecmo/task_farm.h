// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Library: ecmo::sweep (find_package(ecmo COMPONENTS sweep)).
//
// A task farm: independent tasks, named by integers the caller chooses,
// solved on worker threads, each result handed back as text. It serves
// programs whose points are not one ecmo::Sweep (a study over seeds and
// methods, as ecmo_mtbl runs) and that still want every core and, through
// ecmo::DistributeTasks (ecmo/distributed_tasks.h, MPI builds), every rank
// of an MPI job: the result is text so that it can travel between ranks
// and be written to a JSON-lines file unchanged.
//
//   std::vector<std::string> squares(4);
//   ecmo::TaskFarm::Options options;
//   options.num_threads = 2;
//   ecmo::RunTasks(
//       options,
//       {0, 1, 2, 3},
//       [](int, int task) { return std::to_string(task * task); },
//       [&](const ecmo::TaskFarm::Result& r) { squares[r.task] = r.text; });
//
// Scheduling: tasks are handed out in the order given, one at a time, to
// whichever worker is free (dynamic load balancing: tasks differ in cost).
// A worker solves its tasks one after another, so state kept per `thread`
// index (an evaluator, a cache) needs no lock.
//
// Thread safety: `solve` is called concurrently from up to num_threads
// threads (with different `thread` indices); `on_result` is called one
// call at a time (never concurrently), in completion order. Neither may
// throw: an exception out of `solve` is caught and reported as the task's
// Result::error; one out of `on_result` ends the program (std::terminate).

#ifndef ECMO_TASK_FARM_H_
#define ECMO_TASK_FARM_H_

#include <functional>
#include <string>
#include <vector>

namespace ecmo {

struct TaskFarm {
  struct Options {
    // Worker threads (per rank in ecmo::DistributeTasks). >= 1; fewer are
    // used when there are fewer tasks.
    int num_threads = 1;

    bool IsValid(std::string* error) const;
  };

  // A finished task.
  struct Result {
    int task = -1;
    // The MPI rank that solved it (0 without MPI) and its worker thread.
    int rank = 0;
    int thread = 0;
    // What `solve` returned; empty when error is set.
    std::string text;
    // Why the task has no result (an exception out of `solve`, a rank that
    // could not be reached); empty on success.
    std::string error;
  };

  // Solves `task` on worker `thread` (0 .. num_threads - 1).
  using SolveFunction = std::function<std::string(int thread, int task)>;
  using ResultFunction = std::function<void(const Result& result)>;
};

// Runs every task of `tasks` on this process's threads; returns when all
// results were delivered. Invalid options: every task gets a Result with
// the options' error.
void RunTasks(const TaskFarm::Options& options,
              const std::vector<int>& tasks,
              const TaskFarm::SolveFunction& solve,
              const TaskFarm::ResultFunction& on_result);

}  // namespace ecmo

#endif  // ECMO_TASK_FARM_H_
