// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// internal::WorkerThread (worker_thread.h) on POSIX threads, and the pool
// of them that WorkerTeam borrows from.

#include "worker_thread.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>
#include <utility>

namespace ecmo {
namespace internal {

struct WorkerThread::State {
  std::function<void()> body;
  pthread_t thread;
#ifdef __linux__
  // The CPUs the creator may use, restored in the new thread once it runs.
  cpu_set_t allowed;
  bool restore_allowed = false;
#endif
  int start_cpu = -1;  // written by the thread, read after its join
};

namespace {

void* Entry(void* argument) {
  auto* state = static_cast<WorkerThread::State*>(argument);
#ifdef __linux__
  state->start_cpu = sched_getcpu();
  if (state->restore_allowed) {
    pthread_setaffinity_np(
        pthread_self(), sizeof(state->allowed), &state->allowed);
  }
#endif
  state->body();
  return nullptr;
}

}  // namespace

WorkerThread::WorkerThread() = default;

WorkerThread::~WorkerThread() { Join(); }

WorkerThread::WorkerThread(WorkerThread&& other) noexcept
    : state_(std::move(other.state_)), start_cpu_(other.start_cpu_) {}

WorkerThread& WorkerThread::operator=(WorkerThread&& other) noexcept {
  if (this != &other) {
    Join();
    state_ = std::move(other.state_);
    start_cpu_ = other.start_cpu_;
  }
  return *this;
}

bool WorkerThread::Start(std::function<void()> body) {
  Join();
  auto state = std::make_unique<State>();
  state->body = std::move(body);
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) != 0) return false;
#ifdef __linux__
  // Start on the caller's other allowed CPUs, if it has any.
  if (sched_getaffinity(0, sizeof(state->allowed), &state->allowed) == 0) {
    cpu_set_t others = state->allowed;
    const int here = sched_getcpu();
    if (here >= 0 && here < CPU_SETSIZE) CPU_CLR(here, &others);
    state->restore_allowed =
        CPU_COUNT(&others) > 0 &&
        pthread_attr_setaffinity_np(&attributes, sizeof(others), &others) == 0;
  }
#endif
  int status = pthread_create(&state->thread, &attributes, &Entry, state.get());
#ifdef __linux__
  if (status != 0 && state->restore_allowed) {
    // A mask the system refuses: an ordinary thread then.
    pthread_attr_destroy(&attributes);
    pthread_attr_init(&attributes);
    state->restore_allowed = false;
    status = pthread_create(&state->thread, &attributes, &Entry, state.get());
  }
#endif
  pthread_attr_destroy(&attributes);
  if (status != 0) return false;
  state_ = std::move(state);
  return true;
}

void WorkerThread::Join() {
  if (state_ == nullptr) return;
  pthread_join(state_->thread, nullptr);
  start_cpu_ = state_->start_cpu;
  state_.reset();
}

int StartWorkers(int begin,
                 int end,
                 const std::function<void(int)>& body,
                 std::vector<WorkerThread>* threads) {
  threads->reserve(threads->size() + std::max(0, end - begin));
  for (int t = begin; t < end; ++t) {
    WorkerThread thread;
    // body by value: the caller may have passed a temporary.
    if (!thread.Start([body, t] { body(t); })) return t - begin;
    threads->push_back(std::move(thread));
  }
  return std::max(0, end - begin);
}

namespace {

// Tells the CPU that the caller is spinning (frees resources for a sibling
// hyperthread and saves power); a no-op where there is no such hint.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

std::unique_lock<std::mutex> LockBriefly(std::mutex* mutex) {
  constexpr std::chrono::microseconds kSpin(10);
  if (mutex->try_lock()) {
    return std::unique_lock<std::mutex>(*mutex, std::adopt_lock);
  }
  const auto until = std::chrono::steady_clock::now() + kSpin;
  do {
    // The clock is read once per 16 attempts: a pause lasts 10-40 ns,
    // about as long as a read of the clock.
    for (int i = 0; i < 16; ++i) {
      CpuRelax();
      if (mutex->try_lock()) {
        return std::unique_lock<std::mutex>(*mutex, std::adopt_lock);
      }
    }
  } while (std::chrono::steady_clock::now() < until);
  return std::unique_lock<std::mutex>(*mutex);
}

namespace {

// How long Join spins before it sleeps: the loop's last body usually ends
// within microseconds of the caller's share, and waking a sleeping thread
// costs tens of microseconds on a virtual machine.
constexpr std::chrono::microseconds kJoinSpin(200);

// Spins until done() or `spin` has passed: a pause hint, and now and then
// the rest of the time slice to another runnable thread (an
// oversubscribed machine loses little to the spin). For the waits that
// usually end within microseconds, where sleeping and being woken costs
// tens of microseconds on a virtual machine.
template <typename Done>
void SpinUntil(std::chrono::microseconds spin, Done done) {
  const auto until = std::chrono::steady_clock::now() + spin;
  int turn = 0;
  while (!done() && std::chrono::steady_clock::now() < until) {
    CpuRelax();
    if ((++turn & 63) == 0) std::this_thread::yield();
  }
}

// Moves the calling thread off `cpu` (to another CPU it may use; a no-op
// when it is elsewhere already or has no other). Why: a sleeping thread
// woken by a condition variable is often placed on its waker's CPU, where
// the two then share one core until the scheduler's next balancing pass,
// milliseconds later (WorkerThread avoids the same at thread start). The
// mask is restored at once: the thread is not pinned.
void LeaveCpu(int cpu) {
#ifdef __linux__
  if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getcpu() != cpu) return;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
  cpu_set_t others = allowed;
  CPU_CLR(cpu, &others);
  if (CPU_COUNT(&others) == 0) return;
  if (pthread_setaffinity_np(pthread_self(), sizeof(others), &others) == 0) {
    pthread_setaffinity_np(pthread_self(), sizeof(allowed), &allowed);
  }
#else
  (void)cpu;
#endif
}

// The CPU the caller runs on, or -1.
int CurrentCpu() {
#ifdef __linux__
  return sched_getcpu();
#else
  return -1;
#endif
}

}  // namespace

int UsableCpus() {
#ifdef __linux__
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
    return std::max(1, CPU_COUNT(&allowed));
  }
#endif
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

void Gate::Open(int threads) {
  {
    // Under the mutex, so that a Wait about to sleep cannot miss it.
    std::lock_guard<std::mutex> lock(mutex_);
    threads_.store(std::max(threads, 0), std::memory_order_release);
  }
  cv_.notify_all();
}

bool Gate::Wait(int t) {
  int seen = 0;  // Shares gone to
  const auto ready = [this, &seen] {
    return IsOpen() || num_shares_.load(std::memory_order_seq_cst) != seen;
  };
  for (;;) {
    SpinUntil(std::chrono::microseconds(200), ready);
    const int posted = num_shares_.load(std::memory_order_seq_cst);
    if (posted != seen) {
      seen = posted;
      Help(t);
      continue;  // and spin again: the gate opens soon after
    }
    if (IsOpen()) break;
    std::unique_lock<std::mutex> lock(mutex_);
    ++sleeping_;
    cv_.wait(lock, ready);
    --sleeping_;
  }
  return t < threads_.load(std::memory_order_acquire);
}

void Gate::Help(int t) {
  helping_.fetch_add(1, std::memory_order_seq_cst);
  Shared* shared = shared_.load(std::memory_order_seq_cst);
  if (shared != nullptr && t < shared->threads) {
    shared->items.RunAs(t, *shared->body);
  }
  if (helping_.fetch_sub(1, std::memory_order_seq_cst) == 1) {
    // Under the mutex, so that a Share about to sleep cannot miss it.
    std::lock_guard<std::mutex> lock(mutex_);
    done_cv_.notify_all();
  }
}

void Gate::Share(int n,
                 int threads,
                 const std::function<void(int i, int t)>& body) {
  Shared shared{ItemClaims(n), &body, threads};
  shared_.store(&shared, std::memory_order_seq_cst);
  {
    // Under the mutex, so that a Wait about to sleep cannot miss it.
    std::lock_guard<std::mutex> lock(mutex_);
    num_shares_.fetch_add(1, std::memory_order_seq_cst);
    if (sleeping_ > 0) cv_.notify_all();
  }
  shared.items.RunAs(0, body);
  // Withdrawn: a helper arriving from now on finds nothing; one that
  // found it is counted in helping_ (seq_cst store, then load).
  shared_.store(nullptr, std::memory_order_seq_cst);
  const auto done = [this] {
    return helping_.load(std::memory_order_seq_cst) == 0;
  };
  SpinUntil(std::chrono::microseconds(50), done);
  if (!done()) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, done);
  }
}

struct WorkerTeam::Done {
  std::mutex mutex;
  std::condition_variable cv;
  std::atomic<int> count{0};
  // Under the mutex, so that a Join that sleeps cannot miss it; the
  // shared_ptr that the thread holds keeps this alive while it is here.
  void Finish() {
    std::lock_guard<std::mutex> lock(mutex);
    count.fetch_add(1, std::memory_order_acq_rel);
    cv.notify_all();
  }
};

// A pool thread and the work handed to it (under the mutex).
struct WorkerTeam::Slot {
  std::mutex mutex;
  std::condition_variable cv;
  std::function<void()> work;  // empty while idle
  bool quit = false;           // set while idle: the thread ends
  std::shared_ptr<Done> done;
  int caller_cpu = -1;  // the CPU of the thread that handed the work over
  WorkerThread thread;
};

namespace {

using Slot = WorkerTeam::Slot;

class Pool {
 public:
  // The process's pool, created on first use and never destroyed (its
  // threads sleep until the process exits; destroying it at exit would race
  // with loops still running in other static destructors). A child of
  // fork() has none of the parent's threads: it gets a pool of its own.
  static Pool* Shared() {
    static std::mutex* mutex = new std::mutex;
    static Pool* pool = nullptr;
    static pid_t owner = 0;
    std::lock_guard<std::mutex> lock(*mutex);
    if (pool == nullptr || owner != getpid()) {
      pool = new Pool;
      owner = getpid();
    }
    return pool;
  }

  // An idle thread, or a new one; nullptr when the system refuses a
  // thread (or the memory for one).
  Slot* Acquire() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        Slot* slot = idle_.back();
        idle_.pop_back();
        return slot;
      }
    }
    try {
      auto slot = std::make_unique<Slot>();
      Slot* raw = slot.get();
      if (!raw->thread.Start([raw] { Loop(raw); })) return nullptr;
      return slot.release();  // lives as long as its thread: never freed
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
  }

  void Release(Slot* slot) {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back(slot);
  }

  // Ends all idle threads but `keep` and frees their stacks.
  void Trim(int keep) {
    std::vector<Slot*> ending;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (static_cast<int>(idle_.size()) > std::max(0, keep)) {
        ending.push_back(idle_.back());
        idle_.pop_back();
      }
    }
    for (Slot* slot : ending) {
      {
        std::lock_guard<std::mutex> lock(slot->mutex);
        slot->quit = true;
      }
      slot->cv.notify_one();
      slot->thread.Join();
      delete slot;
    }
  }

 private:
  static void Loop(Slot* slot) {
    for (;;) {
      std::function<void()> work;
      std::shared_ptr<WorkerTeam::Done> done;
      int caller_cpu;
      {
        std::unique_lock<std::mutex> lock(slot->mutex);
        slot->cv.wait(lock, [slot] {
          return static_cast<bool>(slot->work) || slot->quit;
        });
        if (slot->quit) return;
        work.swap(slot->work);
        done.swap(slot->done);
        caller_cpu = slot->caller_cpu;
      }
      LeaveCpu(caller_cpu);
      work();
      done->Finish();  // the team's Join returns this thread to the pool
    }
  }

  std::mutex mutex_;
  std::vector<Slot*> idle_;
};

}  // namespace

WorkerTeam::WorkerTeam() : done_(std::make_shared<Done>()) {}

WorkerTeam::~WorkerTeam() { Join(); }

int WorkerTeam::Start(int begin, int end, std::function<void(int)> body) {
  Join();
  const int n = std::max(0, end - begin);
  auto shared_body =
      std::make_shared<std::function<void(int)>>(std::move(body));
  done_->count.store(0, std::memory_order_relaxed);
  // Each thread is given its body as soon as it is had: a running body
  // takes the memory it needs before the next new thread's stack takes
  // address space (under a memory limit, creating every thread first left
  // none for their work).
  const int cpu = CurrentCpu();
  for (int i = 0; i < n; ++i) {
    Slot* slot = Pool::Shared()->Acquire();
    if (slot == nullptr) break;
    {
      std::lock_guard<std::mutex> lock(slot->mutex);
      slot->work = [shared_body, t = begin + i] { (*shared_body)(t); };
      slot->done = done_;
      slot->caller_cpu = cpu;
    }
    slot->cv.notify_one();
    running_.push_back(slot);
  }
  started_ = static_cast<int>(running_.size());
  return started_;
}

void WorkerTeam::Join() {
  if (started_ == 0) return;
  SpinUntil(kJoinSpin, [this] {
    return done_->count.load(std::memory_order_acquire) >= started_;
  });
  {
    // Always through the mutex: a Finish still inside it has then left.
    std::unique_lock<std::mutex> lock(done_->mutex);
    done_->cv.wait(lock, [this] {
      return done_->count.load(std::memory_order_acquire) >= started_;
    });
  }
  // Back to the pool only now: a thread that finished its body early must
  // not be handed a second body of the same Start (bodies of one loop may
  // wait for each other).
  for (Slot* slot : running_) Pool::Shared()->Release(slot);
  running_.clear();
  started_ = 0;
}

void TrimIdleWorkerThreads(int keep) { Pool::Shared()->Trim(keep); }

void ForEachOnTeam(int n,
                   int threads,
                   const std::function<void(int i, int t)>& body) {
  ItemClaims items(n);
  const auto claim = [&](int t) { items.RunAs(t, body); };
  WorkerTeam team;
  team.Start(1, std::min(threads, n), claim);
  claim(0);
  team.Join();
}

}  // namespace internal
}  // namespace ecmo
