// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ecmo::DistributeTasks (ecmo/distributed_tasks.h): rank 0 drains one
// queue of task numbers with its own threads and by handing tasks to the
// other ranks; the other ranks serve with internal::TaskServer.
//
// Messages (text, on a duplicate of MPI_COMM_WORLD):
//   task    0 -> r: the task number in decimal
//   result  r -> 0: "TASK THREAD\n" then 'R' and the result text, or 'E'
//           and the error
//   stop    0 -> r: empty; r has no task left when it gets it.

#include "ecmo/distributed_tasks.h"

#include <mpi.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "mpi_relay.h"
#include "task_farm_worker.h"

namespace ecmo {
namespace {

using internal::kMaxWait;
using internal::kMinWait;
using internal::kTagResult;
using internal::kTagStop;
using internal::kTagTask;

std::string EncodeReply(const TaskFarm::Result& result) {
  std::string text =
      std::to_string(result.task) + " " + std::to_string(result.thread) + "\n";
  if (result.error.empty()) {
    text += 'R';
    text += result.text;
  } else {
    text += 'E';
    text += result.error;
  }
  return text;
}

// False when the text is not a reply of EncodeReply.
bool DecodeReply(const std::string& text, TaskFarm::Result* result) {
  const size_t newline = text.find('\n');
  if (newline == std::string::npos || newline + 1 >= text.size()) {
    return false;
  }
  int task = -1, thread = -1;
  if (std::sscanf(text.c_str(), "%d %d", &task, &thread) != 2) return false;
  result->task = task;
  result->thread = thread;
  const char kind = text[newline + 1];
  std::string body = text.substr(newline + 2);
  if (kind == 'R') {
    result->text = std::move(body);
  } else if (kind == 'E') {
    result->error = body.empty() ? "no reason given" : std::move(body);
  } else {
    return false;
  }
  return true;
}

// Rank 0: local worker threads and the relay (this thread) take tasks
// from one queue; every result passes through `mutex_` to on_result.
class TaskCoordinator {
 public:
  TaskCoordinator(const TaskFarm::Options& options,
                  const std::vector<int>& tasks,
                  const TaskFarm::SolveFunction& solve,
                  const TaskFarm::ResultFunction& on_result,
                  MPI_Comm comm,
                  int num_ranks)
      : options_(options),
        solve_(solve),
        on_result_(on_result),
        comm_(comm),
        num_ranks_(num_ranks),
        total_(static_cast<int>(tasks.size())),
        queue_(tasks) {
    stats_.num_ranks = num_ranks;
    stats_.points_per_rank.assign(num_ranks, 0);
  }

  void Run() {
    auto local = [this](int thread) {
      queue_.Run(thread, solve_, [this](const TaskFarm::Result& r) {
        Deliver(r, 0, 0);
      });
    };
    // Every local worker is a new thread: this one relays.
    std::vector<internal::WorkerThread> threads;
    if (total_ > 0) {
      internal::StartWorkers(0, options_.num_threads, local, &threads);
    }
    internal::Sender sender(comm_);
    // Up to num_threads tasks in flight per rank, dealt round-robin so
    // that a short list spreads over the ranks.
    for (int slot = 0; slot < options_.num_threads; ++slot) {
      for (int rank = 1; rank < num_ranks_; ++rank) HandOut(rank, &sender);
    }
    std::chrono::microseconds wait = kMinWait;
    while (!AllDelivered(wait)) {
      bool busy = sender.Progress();
      int from = 0, tag = 0;
      std::string text;
      while (internal::TryReceive(
          comm_, MPI_ANY_SOURCE, kTagResult, &from, &tag, &text)) {
        busy = true;
        TaskFarm::Result result;
        if (!DecodeReply(text, &result)) {
          std::fprintf(stderr,
                       "ecmo::DistributeTasks: dropped a malformed result "
                       "from rank %d\n",
                       from);
          continue;
        }
        result.rank = from;
        Deliver(result, from, static_cast<int64_t>(text.size()));
        HandOut(from, &sender);
      }
      wait = busy ? kMinWait : std::min(kMaxWait, wait * 2);
    }
    for (int rank = 1; rank < num_ranks_; ++rank) {
      sender.Send(rank, kTagStop, std::string());
    }
    sender.WaitAll();
    for (internal::WorkerThread& t : threads) t.Join();
  }

  DistributedSweepStatistics statistics() const { return stats_; }

 private:
  // Sends the next task, if any, to `rank`.
  void HandOut(int rank, internal::Sender* sender) {
    int task = 0;
    if (!queue_.Next(&task)) return;
    std::string text = std::to_string(task);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.remote_points;
      stats_.task_bytes += static_cast<int64_t>(text.size());
    }
    sender->Send(rank, kTagTask, std::move(text));
  }

  void Deliver(const TaskFarm::Result& result, int rank, int64_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      on_result_(result);
      ++delivered_;
      ++stats_.points_per_rank[rank];
      stats_.result_bytes += bytes;
    }
    done_cv_.notify_all();
  }

  // Waits up to `wait` for the last result; true once every task has one.
  bool AllDelivered(std::chrono::microseconds wait) {
    std::unique_lock<std::mutex> lock(mutex_);
    return done_cv_.wait_for(lock, wait, [&] { return delivered_ >= total_; });
  }

  const TaskFarm::Options& options_;
  const TaskFarm::SolveFunction& solve_;
  const TaskFarm::ResultFunction& on_result_;
  MPI_Comm comm_;
  const int num_ranks_;
  const int total_;
  internal::TaskQueue queue_;
  std::mutex mutex_;
  std::condition_variable done_cv_;
  int delivered_ = 0;                 // guarded by mutex_
  DistributedSweepStatistics stats_;  // guarded by mutex_
};

void Serve(const TaskFarm::Options& options,
           const TaskFarm::SolveFunction& solve,
           MPI_Comm comm) {
  internal::TaskServer::Handlers handlers;
  handlers.solve = [&solve](int thread, const std::string& text) {
    char* end = nullptr;
    const long task = std::strtol(text.c_str(), &end, 10);
    TaskFarm::Result result;
    if (end == text.c_str() || *end != '\0') {
      result.error = "the task message from rank 0 does not read";
    } else {
      result = internal::SolveTask(solve, thread, static_cast<int>(task));
    }
    return EncodeReply(result);
  };
  handlers.error_reply = [](const std::string& text, const std::string& why) {
    TaskFarm::Result result;
    result.task = std::atoi(text.c_str());
    result.error = why;
    return EncodeReply(result);
  };
  internal::TaskServer server(comm, std::move(handlers));
  server.Run(options.num_threads);
}

}  // namespace

void DistributeTasks(const TaskFarm::Options& options,
                     const std::vector<int>& tasks,
                     const TaskFarm::SolveFunction& solve,
                     const TaskFarm::ResultFunction& on_result,
                     DistributedSweepStatistics* statistics) {
  int rank = 0, size = 1;
  internal::MpiRunning(&rank, &size);
  if (statistics != nullptr) {
    *statistics = DistributedSweepStatistics();
    statistics->num_ranks = size;
    statistics->points_per_rank.assign(size, 0);
  }
  std::string error;
  if (size <= 1 || !options.IsValid(&error)) {
    // One process, or options that every rank finds invalid alike (nobody
    // communicates): RunTasks, which reports invalid options per task, on
    // rank 0 only.
    if (rank != 0) return;
    int solved = 0;
    RunTasks(options, tasks, solve, [&](const TaskFarm::Result& r) {
      ++solved;
      on_result(r);
    });
    if (statistics != nullptr) statistics->points_per_rank[0] = solved;
    return;
  }
  int provided = MPI_THREAD_SINGLE, main_thread = 0;
  MPI_Query_thread(&provided);
  MPI_Is_thread_main(&main_thread);
  if (provided < MPI_THREAD_FUNNELED || !main_thread) {
    // The same on every rank (up to the thread check): nobody communicates.
    if (rank != 0) return;
    for (int task : tasks) {
      TaskFarm::Result result;
      result.task = task;
      result.error =
          "ecmo::DistributeTasks must be called from the thread that "
          "initialized MPI, with at least MPI_THREAD_FUNNELED "
          "(ecmo::MpiSession does both)";
      on_result(result);
    }
    return;
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (rank == 0) {
    TaskCoordinator coordinator(options, tasks, solve, on_result, comm, size);
    coordinator.Run();
    if (statistics != nullptr) *statistics = coordinator.statistics();
  } else {
    Serve(options, solve, comm);
  }
  MPI_Comm_free(&comm);
}

}  // namespace ecmo
