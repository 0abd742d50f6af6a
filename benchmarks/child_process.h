// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Runs one piece of a benchmark in a forked child process and brings its
// result back through a pipe. The benchmarks need this for two reasons:
// peak memory (ru_maxrss) is per process, so each measured run gets a fresh
// one; and forking after a Ceres sparse solve in the parent deadlocks in
// libgomp, so every Ceres solve, scalarization included, runs in a child.
//
// The child's payload is raw bytes; AppendPod / ReadPod move trivially
// copyable records (same binary, so the layout matches on both sides).

#ifndef ECMO_BENCHMARKS_CHILD_PROCESS_H_
#define ECMO_BENCHMARKS_CHILD_PROCESS_H_

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>

namespace ecmo_bench {

// Appends the bytes of `value` to `payload`.
template <typename T>
void AppendPod(const T& value, std::string* payload) {
  static_assert(std::is_trivially_copyable<T>::value, "POD records only");
  payload->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

// Reads a T from payload at *offset and advances it; false if too short.
template <typename T>
bool ReadPod(const std::string& payload, size_t* offset, T* value) {
  static_assert(std::is_trivially_copyable<T>::value, "POD records only");
  if (payload.size() < *offset + sizeof(T)) return false;
  std::memcpy(value, payload.data() + *offset, sizeof(T));
  *offset += sizeof(T);
  return true;
}

// Forks; the child runs `child(&payload)` and sends the payload back. True
// when the child returned true, wrote everything and exited normally; then
// *payload holds what it wrote. Otherwise false with a message in *error
// (the child prints its own reason to stderr).
inline bool RunInChildProcess(const std::function<bool(std::string*)>& child,
                              std::string* payload,
                              std::string* error) {
  int fds[2];
  if (pipe(fds) != 0) {
    *error = "pipe failed";
    return false;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    *error = "fork failed";
    return false;
  }
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    const bool ok = child(&out);
    size_t sent = 0;
    while (ok && sent < out.size()) {
      const ssize_t n = write(fds[1], out.data() + sent, out.size() - sent);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    close(fds[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(ok && sent == out.size() ? 0 : 2);
  }
  close(fds[1]);
  payload->clear();
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof(buffer))) > 0) {
    payload->append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *error = "the child process failed (status " + std::to_string(status) + ")";
    return false;
  }
  return true;
}

}  // namespace ecmo_bench

#endif  // ECMO_BENCHMARKS_CHILD_PROCESS_H_
