// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Runs a shell command for the command-line tests and collects its exit
// status and output (one helper for every test that starts ecmo_solve or
// ecmo_plot).
#ifndef ECMO_TESTS_COMMAND_RUNNER_H_
#define ECMO_TESTS_COMMAND_RUNNER_H_

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace ecmo {
namespace testing {

struct CommandResult {
  int exit_code = -1;  // -1: not started or killed by a signal
  std::string output;  // stdout, and stderr when merged
};

// Runs `command` through sh; `merge_stderr` adds its stderr to the output,
// otherwise stderr is discarded.
inline CommandResult RunCommand(const std::string& command,
                                bool merge_stderr = true) {
  CommandResult run;
  FILE* pipe = popen(
      (command + (merge_stderr ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    run.output.append(buffer, n);
  }
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

#ifdef ECMO_SOLVE_PATH
// The built ecmo_solve with `args`. `merge_stderr` = false for runs whose
// stdout is parsed as JSON: a slow run (e.g. under the sanitizers) prints
// sweep progress lines on stderr.
inline CommandResult RunSolve(const std::string& args,
                              bool merge_stderr = true) {
  return RunCommand(std::string(ECMO_SOLVE_PATH) + " " + args, merge_stderr);
}
#endif

// `command` under `mpiexec -np ranks --oversubscribe` (the MPI tests), with
// `extra` mpiexec flags. Idle ranks yield their core (mpi_yield_when_idle):
// the tests run on 2 cores. Under ASan (scripts/sanitize.sh) leak checking
// is off in the ranks: Open MPI keeps allocations past MPI_Finalize.
inline std::string MpirunCommand(const std::string& mpiexec,
                                 int ranks,
                                 const std::string& command,
                                 const std::string& extra = "") {
  return mpiexec + " -np " + std::to_string(ranks) +
         " --oversubscribe --mca mpi_yield_when_idle 1"
         " -x ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 " +
         extra + " " + command;
}

}  // namespace testing
}  // namespace ecmo

#endif  // ECMO_TESTS_COMMAND_RUNNER_H_
