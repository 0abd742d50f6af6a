// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// The flags of a tool's user-file path (pose_graph_front --g2o,
// bundle_adjustment_front --bal; user_front.h): where the results go, the
// refinement, the cold checks and the plot's axes. This header DEFINEs
// gflags: include it from the one file of a program that has main().

#ifndef ECMO_EXAMPLES_PIPELINES_USER_FRONT_FLAGS_H_
#define ECMO_EXAMPLES_PIPELINES_USER_FRONT_FLAGS_H_

#include <string>

#include "gflags/gflags.h"
#include "user_front.h"

DEFINE_string(output, "", "With a file: the sweep's JSON, weighted sums added.");
DEFINE_string(csv, "", "With a file: the sweep's CSV (one row per point).");
DEFINE_string(plot,
              "",
              "With a file: FILE.png or FILE.svg, both fronts (gnuplot).");
DEFINE_int32(refine_to,
             -1,
             "With a file: add points where the normalized front has its "
             "largest gaps until the sweep has this many "
             "(ParetoSweep::Options::refine_to; 0: none; -1: the library's "
             "default, kRefineWhereNeeded: points only while the largest "
             "gap exceeds 3 mean spacings, at most 2 num_points - 1).");
DEFINE_bool(cold_checks,
            true,
            "With a file: compare warm points that may be KKT for other "
            "preferences too with a cold solve "
            "(ParetoSweep::Options::cold_checks).");
DEFINE_bool(log_scale,
            true,
            "With --plot: objective axes on a log scale (real fronts often "
            "span decades).");

namespace ecmo_pipelines {

// The settings of the user-file path from the flags above and the tool's
// own (the solver's strategy is the caller's to set).
inline UserFrontSettings UserFrontSettingsFromFlags(const std::string& tool,
                                                    const std::string& file,
                                                    int num_points,
                                                    bool warm_start) {
  UserFrontSettings settings;
  settings.tool = tool;
  settings.problem_name = file;
  settings.num_points = num_points;
  settings.warm_start = warm_start;
  settings.cold_checks = FLAGS_cold_checks;
  settings.refine_to = FLAGS_refine_to;
  settings.output = FLAGS_output;
  settings.csv = FLAGS_csv;
  settings.plot = FLAGS_plot;
  settings.log_scale = FLAGS_log_scale;
  return settings;
}

}  // namespace ecmo_pipelines

#endif  // ECMO_EXAMPLES_PIPELINES_USER_FRONT_FLAGS_H_
