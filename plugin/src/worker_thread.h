// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: the threads of the parallel loops (sweep workers,
// the task farm, the MPI serving threads) and the pool that keeps them
// between loops (WorkerTeam). Not installed.
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

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
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
  // After Join: the CPU the last started thread ran on first, before it
  // let itself run anywhere the caller could (-1 where not known). What
  // the thread sees later is up to the scheduler, which may move it back
  // to the caller's CPU at any time.
  int start_cpu() const { return start_cpu_; }

  struct State;  // opaque

 private:
  std::unique_ptr<State> state_;
  int start_cpu_ = -1;
};

// Starts WorkerThreads running body(t) for t = begin .. end - 1 and appends
// them to *threads; when the system refuses one, stops there (the caller
// runs with fewer). Returns how many it started. For threads that live as
// long as their job (the MPI serving threads); parallel loops use a
// WorkerTeam.
int StartWorkers(int begin,
                 int end,
                 const std::function<void(int)>& body,
                 std::vector<WorkerThread>* threads);

// Locks *mutex, spinning for up to about 10 us before it blocks. For the
// short bookkeeping sections that every thread of a parallel loop enters
// once or twice per task (a sweep takes its next point, records a finished
// one): they last about a microsecond, and a thread that finds the lock
// taken and sleeps on it is woken only tens of microseconds later on a
// virtual machine. With std::mutex::lock, two threads of a 101-point sweep
// at k = 10 (7 us per point) slept there often enough to cost 10-15% of
// the loop (benchmarks/README.md, "The sweep's lock").
std::unique_lock<std::mutex> LockBriefly(std::mutex* mutex);

// The number of CPUs the calling thread may run on (at least 1).
int UsableCpus();

// Ends the pool's idle threads beyond `keep` and frees their stacks. The
// pool keeps its threads for the next loop; after a loop that ran out of
// threads or memory (a sweep with num_threads = 1000 under a memory
// limit), their stacks' address space is what the caller's next
// allocations need.
void TrimIdleWorkerThreads(int keep);

// Items 0 .. n - 1 of a parallel loop, handed out one at a time to the
// threads that ask (each item to one thread).
struct ItemClaims {
  explicit ItemClaims(int n) : n(n) {}
  // Runs body(i, t) for every item that thread t claims, until none is
  // left.
  void RunAs(int t, const std::function<void(int i, int t)>& body) {
    for (int i = next.fetch_add(1); i < n; i = next.fetch_add(1)) body(i, t);
  }
  const int n;
  std::atomic<int> next{0};
};

// Runs body(i, t) for i = 0 .. n - 1 on the calling thread (t = 0) and on
// up to threads - 1 pool threads of a WorkerTeam (t = 1 ..), each claiming
// the next item, and returns when every call has returned. For a few
// independent items that each cost far more than a thread's wake-up.
// body must not throw.
void ForEachOnTeam(int n,
                   int threads,
                   const std::function<void(int i, int t)>& body);

// A gate where the helpers of a parallel loop wait while the caller
// finishes preparing the loop. Why: a pool thread asleep between loops
// takes 35-70 us to run after WorkerTeam::Start wakes it on a virtual
// machine (the idle vCPU must be scheduled again), a tenth of a 101-point
// sweep at k = 10 on two threads; woken before the preparation and held
// here, it is running when the work is ready. Wait spins for up to about
// 200 us, then sleeps.
//
// Usage: WorkerTeam::Start bodies that begin with `if (!gate.Wait(t))
// return;`, then the caller's preparation, then Open on every path,
// failures and exceptions included (helpers wait until it). Wake no more
// helpers this way than UsableCpus() - 1: more gain nothing, would spin
// on CPUs the caller needs, and their stacks would take address space
// before the preparation has its memory.
//
// Share hands the waiting helpers part of the preparation itself: work
// that is independent per item and costs far more than a wake-up, such as
// the single-objective solves of a sweep's scalarization, which otherwise
// ran one after another on the caller while the helpers waited.
class Gate {
 public:
  // Lets helpers t < threads through (threads <= 1: none; they return).
  // A later Open changes the answer only for helpers not yet through.
  void Open(int threads);
  // Blocks until Open; true when helper `t` is to run. Runs the items of a
  // Share posted meanwhile.
  bool Wait(int t);
  // Runs body(i, t) for i = 0 .. n - 1 and returns when every call has
  // returned: the calling thread (t = 0) and the helpers t < threads
  // waiting in Wait claim the items one at a time, so a helper that has
  // not arrived yet leaves its share to the others. Sleeping helpers are
  // woken. Call before Open, from the thread that will call it, one Share
  // at a time; body must not throw.
  void Share(int n, int threads, const std::function<void(int i, int t)>& body);

 private:
  struct Shared {
    ItemClaims items;
    const std::function<void(int, int)>* body = nullptr;
    int threads = 0;
  };
  bool IsOpen() const { return threads_.load(std::memory_order_acquire) >= 0; }
  // Runs items of the posted Share, if any and if helper t is one of its
  // threads.
  void Help(int t);

  std::mutex mutex_;
  std::condition_variable cv_;
  std::atomic<int> threads_{-1};  // -1: not open yet
  // The Share in progress (nullptr: none), and how many helpers are
  // inside Help; both sequentially consistent, so that Share, having
  // withdrawn the work, sees every helper that may still be running it.
  std::atomic<Shared*> shared_{nullptr};
  std::atomic<int> helping_{0};
  // How many Shares were posted: a helper goes to one once, then waits
  // again (spinning, then asleep) instead of polling a Share it cannot
  // help with any more while the caller finishes its last item.
  std::atomic<int> num_shares_{0};
  int sleeping_ = 0;                 // helpers asleep in Wait (under mutex_)
  std::condition_variable done_cv_;  // the last helper left Help
};

// The helper threads of one parallel loop (a sweep's workers, the task
// farm), borrowed from a process-wide pool of WorkerThreads that outlive
// the loop.
//
// Why a pool: a sweep of 101 points at k = 10 takes about 0.7 ms on one
// thread, and a second thread started for it (26 us to create, then a cold
// stack, cold per-thread malloc caches and a cold core) made two threads
// only 1.5x faster; the same two half-sweeps on a thread kept from one
// sweep to the next ran 1.9x faster (benchmarks/README.md, "A pool of
// worker threads"). Pool threads sleep on a condition variable between
// loops.
//
// Usage: Start, run the caller's own share, Join. One team per loop and
// per calling thread; teams may nest (a body may run its own team) and run
// concurrently: the pool grows to the largest number of helpers in use at
// once. Its threads are never joined: idle ones sleep until the process
// exits. After fork() the child gets a fresh pool.
class WorkerTeam {
 public:
  WorkerTeam();
  // Join()s.
  ~WorkerTeam();
  WorkerTeam(const WorkerTeam&) = delete;
  WorkerTeam& operator=(const WorkerTeam&) = delete;

  // Runs body(t) for t = begin .. end - 1, each on its own pool thread
  // (created when none is idle), and returns at once with how many it
  // started (the caller runs with fewer when the system refuses threads).
  // body must not throw. One Start per Join.
  int Start(int begin, int end, std::function<void(int)> body);
  // Waits for every body started (spinning briefly first: the loop's last
  // point usually ends within microseconds of the caller's).
  void Join();

  struct Slot;  // a pool thread (opaque)
  struct Done;  // the team's completion count (opaque)

 private:
  std::vector<Slot*> running_;  // started; Join returns them to the pool
  std::shared_ptr<Done> done_;
  int started_ = 0;
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_WORKER_THREAD_H_
