// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Command-line handling shared by ecmo_solve, ecmo_plot and ecmo_mtbl
// (gflags).
//
// ParseToolFlags parses the flags like gflags::ParseCommandLineFlags, except
// that plain --help lists only the tool's own flags (those defined in
// `source_file`, e.g. "ecmo_solve.cc") after the usage message, instead of
// every flag of every linked library (glog's and gflags' come first in
// gflags' listing, sorted by file path) and exits 0. --helpfull still lists
// everything; --helpshort, --helpon=MODULE, --helpmatch=S and --version
// (program name and ecmo::VersionString()) keep gflags' behaviour. An
// unknown flag, a missing value or one of the wrong type exits 2 with a
// message naming the flag (CheckFlagsOrExit), before any work; so does a
// --flagfile that is not a regular file of at most 1 MiB
// (CheckFlagfilesOrExit), before gflags reads it.

#ifndef ECMO_EXAMPLES_TOOL_FLAGS_H_
#define ECMO_EXAMPLES_TOOL_FLAGS_H_

#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ecmo/result_writer.h"
#include "ecmo/version.h"
#include "gflags/gflags.h"

namespace ecmo {
namespace tools {

// `message` (from library code that quotes a path or spec whole) with
// every occurrence of the user's `value` cut by ecmo::TextForMessage: a
// 100 kB flag value is named, not echoed, and the refusal stays short.
inline std::string CutValue(std::string message, const std::string& value) {
  const std::string cut = ecmo::TextForMessage(value);
  if (cut.size() >= value.size()) return message;
  for (size_t at = message.find(value); at != std::string::npos;
       at = message.find(value, at + cut.size())) {
    message.replace(at, value.size(), cut);
  }
  return message;
}

// The largest --flagfile the tools read. gflags reads a flag file whole,
// without a bound: /dev/zero or an endless pipe ends in std::bad_alloc
// (status 134). A real flag file is a few hundred bytes.
inline constexpr int64_t kMaxFlagfileBytes = int64_t{1} << 20;  // 1 MiB

// Every --flagfile of argv[1..] (up to "--"; "--flagfile=F", "-flagfile=F"
// or "--flagfile F") must be a regular file of at most kMaxFlagfileBytes;
// otherwise prints what is wrong to stderr and exits 2, before gflags
// reads it. (A flag file naming another flag file is read by gflags alone;
// that file is not checked.)
inline void CheckFlagfilesOrExit(int argc, char** argv) {
  const char* tool = argc > 0 ? argv[0] : "tool";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;
    arg.erase(0, arg[1] == '-' ? 2 : 1);
    std::string path;
    if (arg.rfind("flagfile=", 0) == 0) {
      path = arg.substr(9);
    } else if (arg == "flagfile" && i + 1 < argc) {
      path = argv[++i];
    } else {
      continue;
    }
    // gflags takes a comma-separated list of files.
    size_t start = 0;
    while (start <= path.size()) {
      size_t comma = path.find(',', start);
      if (comma == std::string::npos) comma = path.size();
      const std::string file = path.substr(start, comma - start);
      start = comma + 1;
      if (file.empty()) continue;
      struct stat st;
      std::string problem;
      if (::stat(file.c_str(), &st) != 0) {
        problem = "cannot be read";
      } else if (S_ISDIR(st.st_mode)) {
        problem = "is a directory, not a flag file";
      } else if (!S_ISREG(st.st_mode)) {
        problem = "is not a regular file (a device or a pipe is not read)";
      } else if (st.st_size > kMaxFlagfileBytes) {
        problem = "is larger than the limit of 1 MiB for a flag file";
      }
      if (!problem.empty()) {
        std::fprintf(stderr, "%s: --flagfile '%s' %s.\n", tool,
                     ecmo::TextForMessage(file).c_str(), problem.c_str());
        std::exit(2);
      }
    }
  }
}

// Every flag of argv[1..] (up to "--") must exist and take its value;
// otherwise prints what is wrong to stderr and exits 2, the tools' status
// for bad input (gflags itself exits 1, the status of a disagreement).
// Names and values are quoted cut to about 80 characters
// (ecmo::TextForMessage): a 100 kB value must not make a 100 kB message.
inline void CheckFlagsOrExit(int argc, char** argv) {
  const char* tool = argc > 0 ? argv[0] : "tool";
  auto fail = [&](const std::string& message) {
    std::fprintf(stderr, "%s: %s (--help lists the flags).\n", tool,
                 message.c_str());
    std::exit(2);
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;  // positional
    arg.erase(0, arg[1] == '-' ? 2 : 1);
    const size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    const bool has_value = equals != std::string::npos;
    // gflags' own help and version flags keep their behaviour.
    if (name.rfind("help", 0) == 0 || name == "version" ||
        name == "fromenv" || name == "tryfromenv" || name == "flagfile" ||
        name == "undefok") {
      if (!has_value && name != "help" && name != "helpfull" &&
          name != "helpshort" && name != "helppackage" && name != "helpxml" &&
          name != "version" && i + 1 < argc) {
        ++i;  // --helpon MODULE and the like
      }
      continue;
    }
    gflags::CommandLineFlagInfo info;
    if (!gflags::GetCommandLineFlagInfo(name.c_str(), &info)) {
      gflags::CommandLineFlagInfo negated;
      if (!has_value && name.rfind("no", 0) == 0 &&
          gflags::GetCommandLineFlagInfo(name.substr(2).c_str(), &negated) &&
          negated.type == "bool") {
        continue;
      }
      fail("unknown flag --" + ecmo::TextForMessage(name));
    }
    std::string value;
    if (has_value) {
      value = arg.substr(equals + 1);
    } else if (info.type == "bool") {
      continue;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      fail("flag --" + ecmo::TextForMessage(name) + " needs a value (" +
           info.type + ")");
    }
    if (gflags::SetCommandLineOption(name.c_str(), value.c_str()).empty()) {
      fail("invalid value '" + ecmo::TextForMessage(value) + "' for flag --" +
           ecmo::TextForMessage(name) + " (" + info.type + ")");
    }
  }
}

inline void ParseToolFlags(const char* usage,
                           const char* source_file,
                           int* argc,
                           char*** argv) {
  gflags::SetUsageMessage(usage);
  gflags::SetVersionString(ecmo::VersionString());
  CheckFlagfilesOrExit(*argc, *argv);
  CheckFlagsOrExit(*argc, *argv);
  gflags::ParseCommandLineNonHelpFlags(argc, argv, /*remove_flags=*/true);
  std::string help;
  if (gflags::GetCommandLineOption("help", &help) && help == "true") {
    gflags::ShowUsageWithFlagsRestrict((*argv)[0], source_file);
    std::fflush(stdout);
    std::printf(
        "\nThe flags of glog and gflags (--logtostderr, --v, ...): "
        "--helpfull.\n");
    std::exit(0);
  }
  gflags::HandleCommandLineHelpFlags();
}

// Makes an exit() by library code fail the tool. A problem library that
// calls exit(0) in its factory, a static constructor, build() or a cost
// function would otherwise end the process with the status it chose and
// no results. Construct it once the flags are parsed (--help exits 0 on
// purpose) and return Finish(status) from main: an exit() before Finish
// prints a message and ends the process with `status_if_ended`.
class ExitGuard {
 public:
  ExitGuard(const char* tool, int status_if_ended) {
    tool_ = tool;
    status_ = status_if_ended;
    armed_ = true;
    std::atexit(&ExitGuard::OnExit);
  }
  ExitGuard(const ExitGuard&) = delete;
  ExitGuard& operator=(const ExitGuard&) = delete;
  int Finish(int status) {
    armed_ = false;
    return status;
  }

 private:
  static void OnExit() {
    if (!armed_) return;
    std::fprintf(stderr,
                 "%s: the process was ended by exit() in library code (a "
                 "problem library or a cost function) before it finished; "
                 "the results are incomplete.\n",
                 tool_);
    std::fflush(stderr);
    std::_Exit(status_);
  }
  static inline const char* tool_ = "tool";
  static inline int status_ = 1;
  static inline std::atomic<bool> armed_{false};
};

}  // namespace tools
}  // namespace ecmo

#endif  // ECMO_EXAMPLES_TOOL_FLAGS_H_
