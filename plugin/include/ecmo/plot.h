// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Library: ecmo::sweep (find_package(ecmo COMPONENTS sweep)), which adds
// nlohmann-json to ecmo::plugin's dependencies.
//
// Pictures of sweeps through gnuplot: the front in objective space and the
// convergence of ||K||^2. Each plot writes a data file and a gnuplot script
// next to the image (front.png -> front.dat, front.gp), then runs
// `gnuplot front.gp`. Without gnuplot the data and the script are still
// written and PlotResult::message says how to draw them later, so a missing
// gnuplot never loses results. The format follows the extension: .png
// (terminal pngcairo, or png when cairo is missing) or .svg.
//
//   ecmo::PlotOptions options;
//   options.title = "gebken_circle";
//   for (const ecmo::PlotResult& r :
//        ecmo::PlotSweep(options, summaries, analytic_front, "front.png")) {
//     if (!r.image_written) std::cerr << r.message << "\n";
//   }
//
// Nothing throws or aborts; failures are reported in PlotResult. The
// functions run a child process: call them from one thread at a time.

#ifndef ECMO_PLOT_H_
#define ECMO_PLOT_H_

#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/indicators.h"  // NonDominatedWithTolerance
#include "ecmo/solver.h"

namespace ecmo {

struct PlotOptions {
  // Title on top of every plot (gnuplot's enhanced text is off for it, so
  // underscores print as they are). Empty: "Pareto front" / "Convergence".
  std::string title;
  // Axis names of the objectives (printed as given: no gnuplot markup);
  // empty: f_1, ..., f_S.
  std::vector<std::string> objective_names;
  // Objective axes on a log scale (PlotFront and PlotPointSets with S = 2
  // or 3), for fronts that span decades, as those of real pose graphs do.
  // Each axis spans at most 6 decades below its largest value: points
  // below that (an end of the front at an exact zero) or <= 0 are left out
  // of the picture, not of the data file.
  bool log_scale = false;
  // Image size in pixels (PNG) or points (SVG).
  int width = 900;
  int height = 650;
  // The gnuplot executable, looked up on PATH.
  std::string gnuplot = "gnuplot";
};

struct PlotResult {
  // True when gnuplot ran and the image exists and is not empty.
  bool image_written = false;
  std::string image_path;
  // Always written (unless the directory is not writable).
  std::string data_path;
  std::string script_path;
  // Empty on success; otherwise what went wrong and what to do, e.g.
  // "gnuplot not found on PATH (install gnuplot-nox); data written to
  // front.dat, draw it with: gnuplot front.gp".
  std::string message;
};

// The front in objective space: `points` (n x S, one row per point) as a
// scatter, the non-dominated rows (indices into `points`) filled and the
// dominated ones as crosses, the rows listed in not_certified (points that
// did not pass the certificate) as open orange triangles (dashed in
// parallel coordinates) whatever their rank, over the analytic front
// (m x S rows, may be empty) drawn as a line (S = 2) or dots. S = 2: 2-D
// scatter; S = 3: 3-D scatter; S > 3: parallel coordinates (one polyline per
// point). Rows with non-finite entries are skipped.
PlotResult PlotFront(const PlotOptions& options,
                     const Eigen::MatrixXd& points,
                     const std::vector<int>& non_dominated,
                     const Eigen::MatrixXd& analytic_front,
                     const std::string& image_path,
                     const std::vector<int>& not_certified = {});

// One convergence curve: y against x (both > 0 on the log-log axes; other
// entries are skipped), coloured by color_value in [0, 1] on the palette.
struct ConvergenceCurve {
  std::vector<double> x;
  std::vector<double> y;
  double color_value = 0.0;
};

// ||K||^2 (y) against x on log-log axes, one line per curve, coloured on a
// palette labelled color_label (e.g. "lambda_1").
PlotResult PlotConvergence(const PlotOptions& options,
                           const std::vector<ConvergenceCurve>& curves,
                           const std::string& x_label,
                           const std::string& color_label,
                           const std::string& image_path);

// The convergence curves of solver summaries, from Summary::history
// (record it with Solver::Options::record_history; history_stride bounds
// its length): y = kkt_residual_sq (the strategy's multipliers), x =
// gradient evaluations (iteration + 1 for WC_PENALTY_PGD, which evaluates
// one gradient per iteration; the recorded count for the quasi-Newton
// strategies, whose history has one entry per outer iteration). Colour:
// lambda_1 for S = 2, the point's position otherwise. Summaries without
// history give no curve.
std::vector<ConvergenceCurve> ConvergenceCurves(
    const std::vector<Solver::Summary>& summaries);

// Both pictures of a sweep: PlotFront of the usable summaries (objectives)
// at image_path (non-dominated as by NonDominatedWithTolerance, the points
// whose termination is not CONVERGENCE drawn as not certified; the title
// counts them), and, when any
// summary has a history, PlotConvergence at <image
// stem>_convergence.<extension>. Returns one PlotResult per picture attempted
// (the front first). An empty or unsupported image path gives a single failed
// result.
std::vector<PlotResult> PlotSweep(const PlotOptions& options,
                                  const std::vector<Solver::Summary>& points,
                                  const Eigen::MatrixXd& analytic_front,
                                  const std::string& image_path);

// "<stem>_convergence.<ext>" for "<stem>.<ext>".
std::string ConvergencePlotPath(const std::string& image_path);

// Every file PlotSweep may write for `image_path`: the front's image, data
// and script, and the convergence plot's (for checking, before any work,
// that no output is also an input or another output).
std::vector<std::string> PlotSweepFiles(const std::string& image_path);

// Several labelled point sets in one picture (e.g. the fronts of several
// methods): `sets[i]` (n_i x S, one row per point) drawn in colour i and
// named labels[i] in the key. S = 2: 2-D scatter; S = 3: 3-D scatter;
// S > 3: parallel coordinates (one polyline per point). Rows with
// non-finite entries are skipped; all sets must have the same S >= 2.
struct LabeledPointSet {
  std::string label;
  Eigen::MatrixXd points;
};
PlotResult PlotPointSets(const PlotOptions& options,
                         const std::vector<LabeledPointSet>& sets,
                         const std::string& image_path);

// Labelled curves y(x) as lines, one colour each (e.g. a loss against wall
// time per method). Points with non-finite coordinates, or non-positive
// ones on a logarithmic axis, are skipped.
struct LabeledCurve {
  std::string label;
  std::vector<double> x;
  std::vector<double> y;
};
PlotResult PlotCurves(const PlotOptions& options,
                      const std::vector<LabeledCurve>& curves,
                      const std::string& x_label,
                      const std::string& y_label,
                      bool log_x,
                      bool log_y,
                      const std::string& image_path);

}  // namespace ecmo

#endif  // ECMO_PLOT_H_
