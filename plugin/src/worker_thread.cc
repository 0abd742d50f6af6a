// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// internal::WorkerThread (worker_thread.h) on POSIX threads.

#include "worker_thread.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
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
};

namespace {

void* Entry(void* argument) {
  auto* state = static_cast<WorkerThread::State*>(argument);
#ifdef __linux__
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
    : state_(std::move(other.state_)) {}

WorkerThread& WorkerThread::operator=(WorkerThread&& other) noexcept {
  if (this != &other) {
    Join();
    state_ = std::move(other.state_);
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

}  // namespace internal
}  // namespace ecmo
