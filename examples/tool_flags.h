// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Command-line handling shared by ecmo_solve and ecmo_plot (gflags).
//
// ParseToolFlags parses the flags like gflags::ParseCommandLineFlags, except
// that plain --help lists only the tool's own flags (those defined in
// `source_file`, e.g. "ecmo_solve.cc") after the usage message, instead of
// every flag of every linked library (glog's and gflags' come first in
// gflags' listing, sorted by file path) and exits 0. --helpfull still lists
// everything; --helpshort, --helpon=MODULE, --helpmatch=S and --version
// (program name and ecmo::VersionString()) keep gflags' behaviour.

#ifndef ECMO_EXAMPLES_TOOL_FLAGS_H_
#define ECMO_EXAMPLES_TOOL_FLAGS_H_

#include <cstdio>
#include <cstdlib>
#include <string>

#include "ecmo/version.h"
#include "gflags/gflags.h"

namespace ecmo {
namespace tools {

inline void ParseToolFlags(const char* usage,
                           const char* source_file,
                           int* argc,
                           char*** argv) {
  gflags::SetUsageMessage(usage);
  gflags::SetVersionString(ecmo::VersionString());
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

}  // namespace tools
}  // namespace ecmo

#endif  // ECMO_EXAMPLES_TOOL_FLAGS_H_
