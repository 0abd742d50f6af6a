// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The shared MPI pieces of mpi_relay.h.

#include "mpi_relay.h"

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <exception>

namespace ecmo {
namespace internal {

bool MpiRunning(int* rank, int* size) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  *rank = 0;
  *size = 1;
  if (!initialized || finalized) return false;
  PMPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return true;
}

int KillAtPoint() {
  const char* value = std::getenv("ECMO_MPI_TEST_KILL_AT_POINT");
  if (value == nullptr) return 0;
  const int m = std::atoi(value);
  return m > 0 ? m : 0;
}

void Sender::Send(int destination, int tag, std::string text) {
  pending_.emplace_back();
  Pending& p = pending_.back();
  p.text = std::move(text);
  MPI_Isend(p.text.data(),
            static_cast<int>(p.text.size()),
            MPI_CHAR,
            destination,
            tag,
            comm_,
            &p.request);
}

bool Sender::Progress() {
  bool any = false;
  for (auto it = pending_.begin(); it != pending_.end();) {
    int done = 0;
    MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
    if (done) {
      it = pending_.erase(it);
      any = true;
    } else {
      ++it;
    }
  }
  return any;
}

void Sender::WaitAll() {
  for (Pending& p : pending_) MPI_Wait(&p.request, MPI_STATUS_IGNORE);
  pending_.clear();
}

bool TryReceive(MPI_Comm comm,
                int source,
                int tag,
                int* from,
                int* tag_received,
                std::string* text) {
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(source, tag, comm, &flag, &status);
  if (!flag) return false;
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  text->assign(static_cast<size_t>(std::max(count, 0)), '\0');
  MPI_Recv(count > 0 ? &(*text)[0] : nullptr,
           count,
           MPI_CHAR,
           status.MPI_SOURCE,
           status.MPI_TAG,
           comm,
           MPI_STATUS_IGNORE);
  *from = status.MPI_SOURCE;
  *tag_received = status.MPI_TAG;
  return true;
}

void Outbox::Push(Message message) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    messages.push_back(std::move(message));
  }
  wake.notify_all();
}

TaskServer::~TaskServer() { JoinThreads(); }

void TaskServer::JoinThreads() {
  {
    std::lock_guard<std::mutex> lock(tasks_mutex_);
    closing_ = true;
  }
  tasks_cv_.notify_all();
  for (WorkerThread& t : threads_) t.Join();
}

void TaskServer::Run(int threads_at_start) {
  Sender sender(comm_);
  if (threads_at_start > 0) StartThreads(threads_at_start);
  const int kill_at = KillAtPoint();
  int received = 0;
  std::chrono::microseconds wait = kMinWait;
  bool stop = false;
  while (!stop) {
    bool busy = false;
    for (Outbox::Message& m : outbox_.Take(wait, [] { return false; })) {
      sender.Send(m.destination, m.tag, std::move(m.text));
      busy = true;
    }
    busy = sender.Progress() || busy;
    int from = 0, tag = 0;
    std::string text;
    while (!stop && TryReceive(comm_, 0, MPI_ANY_TAG, &from, &tag, &text)) {
      busy = true;
      if (tag == kTagStop) {
        stop = true;
      } else if (tag == kTagSetup && handlers_.setup) {
        std::string error;
        const int count = handlers_.setup(text, &error);
        if (count > 0) {
          StartThreads(count);
        } else {
          error_ = error.empty() ? "the setup failed" : error;
        }
      } else if (tag == kTagTask) {
        if (kill_at > 0 && ++received == kill_at) ::raise(SIGKILL);
        Queue(std::move(text));
      }
    }
    wait = busy ? kMinWait : std::min(kMaxWait, wait * 2);
  }
  JoinThreads();
  // Replies still in the outbox (none: rank 0 stops us only when every
  // task came back) would be lost; send them anyway.
  for (Outbox::Message& m : outbox_.Take(kMinWait, [] { return true; })) {
    sender.Send(m.destination, m.tag, std::move(m.text));
  }
  sender.WaitAll();
}

void TaskServer::StartThreads(int count) {
  // Serves with fewer when the system refuses some.
  const int first = static_cast<int>(threads_.size());
  StartWorkers(
      first, first + count, [this](int t) { SolveLoop(t); }, &threads_);
  if (threads_.empty()) error_ = "could not start a solving thread";
}

void TaskServer::Queue(std::string task) {
  if (threads_.empty()) {
    // Answer at once: rank 0 turns it into a failed task.
    outbox_.Push(
        {0,
         kTagResult,
         handlers_.error_reply(
             task,
             error_.empty() ? "no setup before the first task" : error_)});
    return;
  }
  {
    std::lock_guard<std::mutex> lock(tasks_mutex_);
    tasks_.push_back(std::move(task));
  }
  tasks_cv_.notify_one();
}

void TaskServer::SolveLoop(int thread) {
  while (true) {
    std::string task;
    {
      std::unique_lock<std::mutex> lock(tasks_mutex_);
      tasks_cv_.wait(lock, [&] { return closing_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    std::string reply;
    try {
      reply = handlers_.solve(thread, task);
    } catch (const std::exception& e) {
      // A task that does not read, or no memory: rank 0 makes it a
      // failed task.
      reply = handlers_.error_reply(
          task, std::string("solving failed on this rank: ") + e.what());
    }
    outbox_.Push({0, kTagResult, std::move(reply)});
  }
}

}  // namespace internal
}  // namespace ecmo
