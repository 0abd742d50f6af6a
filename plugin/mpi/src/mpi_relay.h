// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: what the distributed sweep (sweep_mpi.cc) and the
// distributed task farm (distributed_tasks.cc) share: text messages on a
// communicator (non-blocking sends, probing receives), the outbox through
// which solving threads hand messages to the one thread that calls MPI,
// and the serving loop of every rank other than 0 (TaskServer). Not
// installed.
//
// Only one thread per process calls MPI (MPI_THREAD_FUNNELED). It waits on
// a condition variable between polls, so that a finished task is sent at
// once and an idle rank does not take a core from the solvers (Open MPI's
// blocking calls would spin).
//
// MPI_Comm_rank and MPI_Finalize are called by their PMPI_ names: the
// sequential MUMPS that Debian's Ipopt links (libdmumps_seq) exports stubs
// of MPI_Init, MPI_Comm_rank, MPI_Finalize and MPI_Wtime, which come before
// libmpi in a program that links the Ipopt reference (ecmo_solve), so
// MPI_Comm_rank would answer 0 on every rank. Every MPI library defines the
// PMPI_ entry points (the profiling interface); the stubs do not.

#ifndef ECMO_MPI_RELAY_H_
#define ECMO_MPI_RELAY_H_

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "worker_thread.h"

namespace ecmo {
namespace internal {

// Message tags of both protocols.
constexpr int kTagSetup = 1;
constexpr int kTagTask = 2;
constexpr int kTagResult = 3;
constexpr int kTagStop = 4;

// Polling interval of the relay thread: from kMinWait after any activity
// up to kMaxWait when idle (the latency added per task).
constexpr std::chrono::microseconds kMinWait(20);
constexpr std::chrono::microseconds kMaxWait(1000);

// MPI's state: initialized and not finalized, with the rank and size of
// MPI_COMM_WORLD (0 and 1 otherwise).
bool MpiRunning(int* rank, int* size);

// The test hook of ecmo/sweep_mpi.h and ecmo/distributed_tasks.h: m >= 1
// from ECMO_MPI_TEST_KILL_AT_POINT (a rank other than 0 kills itself when
// it receives its m-th task), else 0.
int KillAtPoint();

// Sends without blocking the relay thread; each message's text is kept
// until MPI is done with it (list nodes do not move).
class Sender {
 public:
  explicit Sender(MPI_Comm comm) : comm_(comm) {}
  ~Sender() { WaitAll(); }
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  void Send(int destination, int tag, std::string text);
  // True when some send completed.
  bool Progress();
  void WaitAll();

 private:
  struct Pending {
    std::string text;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  MPI_Comm comm_;
  std::list<Pending> pending_;
};

// A message waiting to be received from `source` (MPI_ANY_SOURCE) with
// `tag` (MPI_ANY_TAG), if any.
bool TryReceive(MPI_Comm comm,
                int source,
                int tag,
                int* from,
                int* tag_received,
                std::string* text);

// Outgoing messages from the solving threads to the relay thread, which
// sleeps on `wake` between polls.
struct Outbox {
  struct Message {
    int destination = 0;
    int tag = 0;
    std::string text;
  };
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<Message> messages;

  void Push(Message message);
  // Waits up to `wait` for a message (or `ready`), then takes them all.
  template <typename Ready>
  std::deque<Message> Take(std::chrono::microseconds wait, Ready ready) {
    std::unique_lock<std::mutex> lock(mutex);
    wake.wait_for(lock, wait, [&] { return !messages.empty() || ready(); });
    std::deque<Message> taken;
    taken.swap(messages);
    return taken;
  }
};

// The loop of a rank other than 0: receives tasks from rank 0, solves them
// on its own threads and sends each reply back, until rank 0 says stop.
class TaskServer {
 public:
  struct Handlers {
    // Called on the relay thread with the text of a setup message (null:
    // none is expected). Returns the number of solving threads to start
    // (0 with *error set: the rank cannot serve; every task is then
    // answered with error_reply).
    std::function<int(const std::string& text, std::string* error)> setup;
    // Solves a task on solving thread `thread`; returns the reply.
    std::function<std::string(int thread, const std::string& task)> solve;
    // The reply to a task that cannot be solved: `error` says why.
    std::function<std::string(const std::string& task,
                              const std::string& error)>
        error_reply;
  };

  TaskServer(MPI_Comm comm, Handlers handlers)
      : comm_(comm), handlers_(std::move(handlers)) {}
  ~TaskServer();
  TaskServer(const TaskServer&) = delete;
  TaskServer& operator=(const TaskServer&) = delete;

  // Serves until rank 0 says stop. `threads_at_start` solving threads are
  // started at once; with 0 they start after the setup message.
  void Run(int threads_at_start);

  int threads_started() const { return static_cast<int>(threads_.size()); }
  // Why this rank could not serve (empty when it could).
  const std::string& error() const { return error_; }

 private:
  void StartThreads(int count);
  // Lets the solving threads finish the queued tasks and joins them.
  void JoinThreads();
  void Queue(std::string task);
  void SolveLoop(int thread);

  MPI_Comm comm_;
  Handlers handlers_;
  std::string error_;
  std::vector<WorkerThread> threads_;
  Outbox outbox_;
  std::mutex tasks_mutex_;
  std::condition_variable tasks_cv_;
  std::deque<std::string> tasks_;
  bool closing_ = false;
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_MPI_RELAY_H_
