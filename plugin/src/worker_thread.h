// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: the threads of the parallel loops (sweep workers,
// the task farm, the MPI serving threads). Not installed.
//
// Why not plain std::thread: Linux starts a new thread on its creator's
// CPU, and while the creator keeps working the scheduler moves it to an
// idle CPU only at its next balancing pass. On the 2-core reference
// machine that took about 4 ms (benchmarks/README.md, "Two threads
// against one": 2 ms of work on each of two threads took 4.1 ms), longer
// than a whole 101-point sweep at k <= 100, so the second thread got few
// points or none. A WorkerThread starts on one of the other CPUs the
// caller may use (pthread_attr_setaffinity_np) and then lets itself run
// anywhere the caller could, so nothing stays pinned: the 2 + 2 ms took
// 2.0-2.1 ms. Where that is not available (another OS, one allowed CPU, a
// refused mask) it is an ordinary thread.

#ifndef ECMO_WORKER_THREAD_H_
#define ECMO_WORKER_THREAD_H_

#include <functional>
#include <memory>
#include <vector>

namespace ecmo {
namespace internal {

class WorkerThread {
 public:
  WorkerThread();
  // Joins a started thread.
  ~WorkerThread();
  WorkerThread(WorkerThread&&) noexcept;
  WorkerThread& operator=(WorkerThread&&) noexcept;
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;

  // Runs body() on a new thread. False (nothing started) when the system
  // refuses a thread. body must not throw (as for std::thread, an
  // exception out of it ends the program).
  bool Start(std::function<void()> body);
  bool joinable() const { return state_ != nullptr; }
  void Join();

  struct State;  // opaque

 private:
  std::unique_ptr<State> state_;
};

// Starts WorkerThreads running body(t) for t = begin .. end - 1 and appends
// them to *threads; when the system refuses one, stops there (the caller
// runs with fewer). Returns how many it started. The one loop the sweep
// workers, the task farm and the MPI serving threads share.
int StartWorkers(int begin,
                 int end,
                 const std::function<void(int)>& body,
                 std::vector<WorkerThread>* threads);

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_WORKER_THREAD_H_
