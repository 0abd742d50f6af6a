// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/plot.h"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "ecmo/indicators.h"
#include "ecmo/internal/report.h"
#include "ecmo/result_writer.h"

extern char** environ;

namespace ecmo {
namespace {

enum class Format { PNG, SVG, UNKNOWN };

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(c));
  return s;
}

// Splits "dir/name.ext" into "dir/name" and ".ext" (ext may be empty).
void SplitExtension(const std::string& path,
                    std::string* stem,
                    std::string* extension) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
    *stem = path;
    extension->clear();
  } else {
    *stem = path.substr(0, dot);
    *extension = path.substr(dot);
  }
}

Format FormatOf(const std::string& path) {
  std::string stem, extension;
  SplitExtension(path, &stem, &extension);
  extension = Lower(extension);
  if (extension == ".png") return Format::PNG;
  if (extension == ".svg") return Format::SVG;
  return Format::UNKNOWN;
}

// A gnuplot single-quoted string: only '' needs escaping.
std::string Quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "''";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out + "'";
}

using internal::FormatRoundTrip;

std::string Terminal(const PlotOptions& options, Format format) {
  std::ostringstream os;
  const std::string size =
      std::to_string(options.width) + "," + std::to_string(options.height);
  if (format == Format::SVG) {
    os << "set terminal svg size " << size
       << " dynamic enhanced font 'Sans,12' background rgb 'white'\n";
  } else {
    os << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
       << "  set terminal pngcairo size " << size
       << " enhanced font 'Sans,11' background rgb 'white'\n"
       << "} else {\n"
       << "  set terminal png size " << size << " enhanced\n"
       << "}\n";
  }
  return os.str();
}

bool NonEmptyFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && st.st_size > 0;
}

// Writes the data and the script, then runs gnuplot on the script.
PlotResult Render(const PlotOptions& options,
                  const std::string& image_path,
                  const std::string& data,
                  const std::string& script_body) {
  PlotResult result;
  result.image_path = image_path;
  const Format format = FormatOf(image_path);
  if (image_path.empty() || format == Format::UNKNOWN) {
    result.message = "Cannot plot to '" + image_path +
                     "': the image file name must end in .png or .svg.";
    return result;
  }
  std::string stem, extension;
  SplitExtension(image_path, &stem, &extension);
  result.data_path = stem + ".dat";
  result.script_path = stem + ".gp";
  // Replaced atomically: a full disk never leaves a truncated data file
  // in place of a good one.
  std::string error;
  if (!WriteFileAtomically(result.data_path, data, &error)) {
    result.message = "Cannot write the plot data: " + error + ".";
    return result;
  }
  {
    std::ostringstream out;
    out << "# Written by ceres-ecmo; draw with: gnuplot " << result.script_path
        << "\n"
        << Terminal(options, format) << "set output " << Quote(image_path)
        << "\n"
        << "data = " << Quote(result.data_path) << "\n"
        << script_body << "unset output\n";
    if (!WriteFileAtomically(result.script_path, out.str(), &error)) {
      result.message = "Cannot write the plot script: " + error + ".";
      return result;
    }
  }
  std::remove(image_path.c_str());
  pid_t pid = 0;
  char* argv[] = {const_cast<char*>(options.gnuplot.c_str()),
                  const_cast<char*>(result.script_path.c_str()),
                  nullptr};
  const int spawn_error = ::posix_spawnp(
      &pid, options.gnuplot.c_str(), nullptr, nullptr, argv, environ);
  const std::string later = "; data written to " + result.data_path +
                            ", draw it with: gnuplot " + result.script_path;
  if (spawn_error != 0) {
    result.message =
        (spawn_error == ENOENT
             ? options.gnuplot + " not found on PATH (install gnuplot-nox)"
             : "cannot run " + options.gnuplot + ": " +
                   std::strerror(spawn_error)) +
        later;
    return result;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      result.message = "waiting for gnuplot failed" + later;
      return result;
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    result.message =
        (WIFEXITED(status) && WEXITSTATUS(status) == 127
             ? options.gnuplot + " not found on PATH (install gnuplot-nox)"
             : options.gnuplot + " failed (exit status " +
                   std::to_string(WIFEXITED(status) ? WEXITSTATUS(status)
                                                    : -1) +
                   ")") +
        later;
    return result;
  }
  if (!NonEmptyFile(image_path)) {
    result.message = "gnuplot wrote no image to " + image_path + later;
    return result;
  }
  result.image_written = true;
  return result;
}

bool RowFinite(const Eigen::MatrixXd& m, int r) { return m.row(r).allFinite(); }

// gnuplot commands for log-scaled objective axes (PlotOptions::log_scale):
// each axis from its smallest positive value, but at most
// kLogScaleDecades below its largest, so that an end of a front at an
// exact zero (1e-21 after rounding) does not squash the rest into a corner.
constexpr double kLogScaleDecades = 6.0;
std::string LogScaleCommands(const std::vector<const Eigen::MatrixXd*>& sets,
                             int S) {
  static const char* kAxes[] = {"x", "y", "z"};
  std::ostringstream os;
  for (int s = 0; s < std::min(S, 3); ++s) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
    for (const Eigen::MatrixXd* m : sets) {
      if (m->cols() <= s) continue;
      for (int r = 0; r < m->rows(); ++r) {
        const double v = (*m)(r, s);
        if (std::isfinite(v) && v > 0.0) {
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
      }
    }
    os << "set logscale " << kAxes[s] << "\n";
    if (hi > 0.0) {
      lo = std::max(lo, hi * std::pow(10.0, -kLogScaleDecades));
      os << "set " << kAxes[s] << "range [" << FormatRoundTrip(lo / 1.5) << ":"
         << FormatRoundTrip(hi * 1.5) << "]\n";
    }
  }
  return os.str();
}

std::string ObjectiveName(const PlotOptions& options, int s) {
  if (s < static_cast<int>(options.objective_names.size())) {
    return options.objective_names[s];
  }
  return "f_" + std::to_string(s + 1);
}

// The labels of the objective axes of a 2-D or 3-D picture (names printed
// as given), and their log scale (PlotOptions::log_scale) from the rows of
// `sets`.
std::string ObjectiveAxes(const PlotOptions& options,
                          int S,
                          const std::vector<const Eigen::MatrixXd*>& sets) {
  std::ostringstream os;
  os << "set xlabel " << Quote(ObjectiveName(options, 0)) << " noenhanced\n"
     << "set ylabel " << Quote(ObjectiveName(options, 1)) << " noenhanced\n";
  if (S == 3) {
    os << "set zlabel " << Quote(ObjectiveName(options, 2))
       << " noenhanced rotate parallel\n";
  }
  if (options.log_scale) os << LogScaleCommands(sets, S);
  return os.str();
}

// gnuplot 5.4 parallel axes over one data block whose rows are polylines
// and whose last column (+ linetype_base) picks each row's linetype: one
// range per axis ([lo_s, hi_s], widened when empty) and one plot clause per
// axis, titled with the objective's name as written.
void ParallelAxes(const PlotOptions& options,
                  const Eigen::VectorXd& lo,
                  const Eigen::VectorXd& hi,
                  int linetype_base,
                  std::ostringstream* script,
                  std::vector<std::string>* plots) {
  const int S = static_cast<int>(lo.size());
  for (int s = 0; s < S; ++s) {
    const double top = hi[s] > lo[s] ? hi[s] : lo[s] + 1.0;
    *script << "set paxis " << s + 1 << " range [" << FormatRoundTrip(lo[s])
            << ":" << FormatRoundTrip(top) << "]\nset paxis " << s + 1
            << " tics\n";
  }
  for (int s = 0; s < S; ++s) {
    std::string clause = "data using " + std::to_string(s + 1);
    if (s == 0) {
      clause += ":(" + std::to_string(linetype_base) + " + column(" +
                std::to_string(S + 1) + "))";
    }
    clause += " with parallelaxes";
    if (s == 0) clause += " lc variable";
    clause += " title " + Quote(ObjectiveName(options, s)) + " noenhanced";
    plots->push_back(clause);
  }
}

}  // namespace

std::string ConvergencePlotPath(const std::string& image_path) {
  std::string stem, extension;
  SplitExtension(image_path, &stem, &extension);
  return stem + "_convergence" + extension;
}

std::vector<std::string> PlotSweepFiles(const std::string& image_path) {
  std::vector<std::string> files;
  for (const std::string& image :
       {image_path, ConvergencePlotPath(image_path)}) {
    std::string stem, extension;
    SplitExtension(image, &stem, &extension);
    files.push_back(image);
    files.push_back(stem + ".dat");
    files.push_back(stem + ".gp");
  }
  return files;
}

PlotResult PlotFront(const PlotOptions& options,
                     const Eigen::MatrixXd& points,
                     const std::vector<int>& non_dominated,
                     const Eigen::MatrixXd& analytic_front,
                     const std::string& image_path,
                     const std::vector<int>& not_certified) {
  const int S = static_cast<int>(points.cols());
  if (S < 2) {
    PlotResult result;
    result.image_path = image_path;
    result.message = "Cannot plot a front with " + std::to_string(S) +
                     " objective(s); it needs at least 2.";
    return result;
  }
  std::vector<char> is_front(points.rows(), 0);
  for (int i : non_dominated) {
    if (i >= 0 && i < points.rows()) is_front[i] = 1;
  }
  // 2: not certified, drawn apart whatever its rank.
  for (int i : not_certified) {
    if (i >= 0 && i < points.rows()) is_front[i] = 2;
  }
  // Blocks: computed non-dominated, computed dominated, analytic.
  std::vector<std::string> blocks;
  std::vector<std::string> block_names;
  auto write_rows = [&](const Eigen::MatrixXd& m,
                        const std::vector<int>& rows) {
    std::ostringstream os;
    for (int r : rows) {
      for (int s = 0; s < S; ++s)
        os << (s ? " " : "") << FormatRoundTrip(m(r, s));
      os << "\n";
    }
    return os.str();
  };
  std::vector<int> front_rows, dominated_rows, uncertified_rows,
      analytic_rows;
  for (int r = 0; r < points.rows(); ++r) {
    if (!RowFinite(points, r)) continue;
    (is_front[r] == 2   ? uncertified_rows
     : is_front[r] == 1 ? front_rows
                        : dominated_rows)
        .push_back(r);
  }
  // Sorted along f_1 so that the 2-D curves and lines read left to right.
  auto by_first = [](const Eigen::MatrixXd& m) {
    return [&m](int a, int b) { return m(a, 0) < m(b, 0); };
  };
  std::sort(front_rows.begin(), front_rows.end(), by_first(points));
  if (analytic_front.cols() == S) {
    for (int r = 0; r < analytic_front.rows(); ++r) {
      if (RowFinite(analytic_front, r)) analytic_rows.push_back(r);
    }
    if (S == 2) {
      std::sort(
          analytic_rows.begin(), analytic_rows.end(), by_first(analytic_front));
    }
  }
  std::ostringstream data;
  data << "# columns: f_1 .. f_" << S << "\n";
  int index = 0;
  int front_index = -1, dominated_index = -1, uncertified_index = -1,
      analytic_index = -1;
  auto add_block =
      [&](const std::string& name, const std::string& rows, int* block_index) {
        if (rows.empty()) return;
        if (index > 0) data << "\n\n";
        data << "# " << name << "\n" << rows;
        *block_index = index++;
      };
  add_block("analytic Pareto front",
            write_rows(analytic_front, analytic_rows),
            &analytic_index);
  add_block("computed points, non-dominated",
            write_rows(points, front_rows),
            &front_index);
  add_block("computed points, dominated",
            write_rows(points, dominated_rows),
            &dominated_index);
  add_block("computed points, not certified",
            write_rows(points, uncertified_rows),
            &uncertified_index);

  const std::string title =
      options.title.empty() ? "Pareto front" : options.title;
  std::ostringstream script;
  script << "set title " << Quote(title) << " noenhanced\n"
         << "set key outside bottom center horizontal box opaque\n"
         << "set grid lc rgb '#dddddd'\n";
  std::vector<std::string> plots;
  auto index_spec = [](int i) { return "data index " + std::to_string(i); };
  if (S == 2) {
    script << ObjectiveAxes(options, S, {&points, &analytic_front})
           << "set offsets graph 0.03, graph 0.03, graph 0.03, graph 0.03\n";
    if (analytic_index >= 0) {
      plots.push_back(index_spec(analytic_index) +
                      " using 1:2 with lines lw 2 lc rgb '#999999' "
                      "title 'analytic front'");
    }
    if (front_index >= 0) {
      plots.push_back(index_spec(front_index) +
                      " using 1:2 with points pt 7 ps 0.9 lc rgb '#1f77b4' "
                      "title 'computed (non-dominated)'");
    }
    if (dominated_index >= 0) {
      plots.push_back(index_spec(dominated_index) +
                      " using 1:2 with points pt 2 ps 1.2 lc rgb '#d62728' "
                      "title 'computed (dominated)'");
    }
    if (uncertified_index >= 0) {
      plots.push_back(index_spec(uncertified_index) +
                      " using 1:2 with points pt 8 ps 1.2 lc rgb '#ff7f0e' "
                      "title 'not certified'");
    }
    script << "plot ";
  } else if (S == 3) {
    script << "set key top left vertical box\n"
           << ObjectiveAxes(options, S, {&points, &analytic_front})
           << "set view 60, 40\n"
           << "set ticslevel 0\n";
    if (analytic_index >= 0) {
      plots.push_back(index_spec(analytic_index) +
                      " using 1:2:3 with points pt 7 ps 0.3 lc rgb '#bbbbbb' "
                      "title 'analytic front'");
    }
    if (front_index >= 0) {
      plots.push_back(index_spec(front_index) +
                      " using 1:2:3 with points pt 7 ps 1 lc rgb '#1f77b4' "
                      "title 'computed (non-dominated)'");
    }
    if (dominated_index >= 0) {
      plots.push_back(index_spec(dominated_index) +
                      " using 1:2:3 with points pt 2 ps 1.2 lc rgb '#d62728' "
                      "title 'computed (dominated)'");
    }
    if (uncertified_index >= 0) {
      plots.push_back(index_spec(uncertified_index) +
                      " using 1:2:3 with points pt 8 ps 1.2 lc rgb '#ff7f0e' "
                      "title 'not certified'");
    }
    script << "splot ";
  } else {
    // gnuplot 5.4 parallel axes: one plot clause per axis over a single
    // block whose rows are polylines; the last column picks the colour.
    data.str("");
    data << "# columns: f_1 .. f_" << S
         << " group (1 analytic front, 2 non-dominated, 3 dominated, 4 not "
            "certified)\n";
    auto add_rows =
        [&](const Eigen::MatrixXd& m, const std::vector<int>& rows, int group) {
          for (int r : rows) {
            for (int s = 0; s < S; ++s) data << FormatRoundTrip(m(r, s)) << " ";
            data << group << "\n";
          }
        };
    add_rows(analytic_front, analytic_rows, 1);
    add_rows(points, dominated_rows, 3);
    add_rows(points, front_rows, 2);
    add_rows(points, uncertified_rows, 4);
    if (analytic_rows.empty() && front_rows.empty() && dominated_rows.empty() &&
        uncertified_rows.empty()) {
      PlotResult result;
      result.image_path = image_path;
      result.message = "Nothing to plot: no point with finite objectives.";
      return result;
    }
    script << "unset key\n"
           << "set linetype 101 lc rgb '#c8c8c8' lw 1\n"
           << "set linetype 102 lc rgb '#1f77b4' lw 1.5\n"
           << "set linetype 103 lc rgb '#d62728' lw 1.5\n"
           << "set linetype 104 lc rgb '#ff7f0e' lw 1.5 dt 2\n"
           << "set xrange [0.8:" << S + 0.2 << "]\n"
           << "set ylabel 'objective value (each axis scaled on its own)'\n"
           << "set grid noytics\n"
           << "unset ytics\n"
           << "set border 3\n"
           << "set label 1 'grey: analytic front' at screen 0.1, 0.03 "
              "textcolor rgb '#999999'\n"
           << "set label 2 'blue: computed, non-dominated' at screen 0.38, "
              "0.03 textcolor rgb '#1f77b4'\n"
           << "set label 3 'red: computed, dominated' at screen 0.66, "
              "0.03 textcolor rgb '#d62728'\n"
           << (uncertified_rows.empty()
                   ? ""
                   : "set label 4 'orange, dashed: not certified' at screen "
                     "0.38, 0.005 textcolor rgb '#ff7f0e'\n")
           << "set bmargin 5\n";
    // One common range per axis, shared by all rows.
    Eigen::VectorXd lo =
        Eigen::VectorXd::Constant(S, std::numeric_limits<double>::infinity());
    Eigen::VectorXd hi = -lo;
    auto widen = [&](const Eigen::MatrixXd& m, const std::vector<int>& rows) {
      for (int r : rows) {
        lo = lo.cwiseMin(m.row(r).transpose());
        hi = hi.cwiseMax(m.row(r).transpose());
      }
    };
    widen(points, front_rows);
    widen(points, dominated_rows);
    widen(points, uncertified_rows);
    widen(analytic_front, analytic_rows);
    ParallelAxes(options, lo, hi, 100, &script, &plots);
    script << "plot ";
  }
  if (plots.empty()) {
    PlotResult result;
    result.image_path = image_path;
    result.message = "Nothing to plot: no point with finite objectives.";
    return result;
  }
  for (size_t i = 0; i < plots.size(); ++i) {
    script << (i ? ", \\\n     " : "") << plots[i];
  }
  script << "\n";
  return Render(options, image_path, data.str(), script.str());
}

PlotResult PlotConvergence(const PlotOptions& options,
                           const std::vector<ConvergenceCurve>& curves,
                           const std::string& x_label,
                           const std::string& color_label,
                           const std::string& image_path) {
  std::ostringstream data;
  data << "# one block per curve; columns: x ||K||^2 colour\n";
  int blocks = 0;
  double y_min = std::numeric_limits<double>::infinity();
  for (const ConvergenceCurve& curve : curves) {
    std::ostringstream rows;
    int n = 0;
    for (size_t i = 0; i < curve.x.size() && i < curve.y.size(); ++i) {
      if (!(curve.x[i] > 0.0) || !(curve.y[i] > 0.0) ||
          !std::isfinite(curve.x[i]) || !std::isfinite(curve.y[i])) {
        continue;
      }
      rows << FormatRoundTrip(curve.x[i]) << " " << FormatRoundTrip(curve.y[i])
           << " " << FormatRoundTrip(curve.color_value) << "\n";
      y_min = std::min(y_min, curve.y[i]);
      ++n;
    }
    if (n == 0) continue;
    if (blocks > 0) data << "\n\n";
    data << rows.str();
    ++blocks;
  }
  if (blocks == 0) {
    PlotResult result;
    result.image_path = image_path;
    result.message =
        "Nothing to plot: no iteration history with positive ||K||^2 "
        "(record it with Solver::Options::record_history).";
    return result;
  }
  std::ostringstream script;
  script << "set title "
         << Quote(options.title.empty() ? "Convergence" : options.title)
         << " noenhanced\n"
         << "set logscale xy\n"
         << "set format x '10^{%L}'\n"
         << "set format y '10^{%L}'\n"
         << "set xlabel " << Quote(x_label) << " noenhanced\n"
         << "set ylabel '||K||^2 (strategy multipliers)'\n"
         << "set grid lc rgb '#dddddd'\n"
         << "set palette defined (0 '#3b4cc0', 0.5 '#8db0fe', 0.75 "
            "'#f4987a', 1 '#b40426')\n"
         << "set cbrange [0:1]\n"
         << "set cblabel " << Quote(color_label) << " noenhanced\n";
  if (blocks == 1) {
    script << "unset colorbox\n"
           << "plot data index 0 using 1:2 with linespoints pt 7 ps 0.4 lw 1.5 "
              "lc rgb '#1f77b4' notitle\n";
  } else {
    script << "plot for [i=0:" << blocks - 1
           << "] data index i using 1:2:3 with lines lw 1 lc palette notitle\n";
  }
  return Render(options, image_path, data.str(), script.str());
}

namespace {

// A qualitative palette for labelled sets and curves (repeats after 8).
const char* SetColor(int i) {
  static const char* kColors[] = {"#1f77b4",
                                  "#d62728",
                                  "#2ca02c",
                                  "#ff7f0e",
                                  "#9467bd",
                                  "#8c564b",
                                  "#e377c2",
                                  "#17becf"};
  return kColors[i % 8];
}

PlotResult Failed(const std::string& image_path, const std::string& message) {
  PlotResult result;
  result.image_path = image_path;
  result.message = message;
  return result;
}

}  // namespace

PlotResult PlotPointSets(const PlotOptions& options,
                         const std::vector<LabeledPointSet>& sets,
                         const std::string& image_path) {
  int S = -1;
  for (const LabeledPointSet& set : sets) {
    if (set.points.rows() == 0) continue;
    if (S < 0) S = static_cast<int>(set.points.cols());
    if (set.points.cols() != S) {
      return Failed(image_path,
                    "Cannot plot point sets with different numbers of "
                    "objectives (" +
                        std::to_string(S) + " and " +
                        std::to_string(set.points.cols()) + ").");
    }
  }
  if (S < 2) {
    return Failed(image_path,
                  S < 0 ? "Nothing to plot: every point set is empty."
                        : "Cannot plot points with fewer than 2 objectives.");
  }
  // One data block per non-empty set (rows with a finite value only); for
  // S > 3 one block whose last column is the set's index.
  std::ostringstream data;
  std::vector<int> block_of_set(sets.size(), -1);
  int blocks = 0;
  for (size_t i = 0; i < sets.size(); ++i) {
    std::ostringstream rows;
    int n = 0;
    for (int r = 0; r < sets[i].points.rows(); ++r) {
      if (!RowFinite(sets[i].points, r)) continue;
      for (int s = 0; s < S; ++s)
        rows << FormatRoundTrip(sets[i].points(r, s)) << " ";
      rows << i << "\n";
      ++n;
    }
    if (n == 0) continue;
    if (S <= 3 && blocks > 0) data << "\n\n";
    data << "# " << sets[i].label << "\n" << rows.str();
    block_of_set[i] = blocks++;
  }
  if (blocks == 0) {
    return Failed(image_path,
                  "Nothing to plot: no point with finite objectives.");
  }
  std::ostringstream script;
  script << "set title "
         << Quote(options.title.empty() ? "Point sets" : options.title)
         << " noenhanced\n"
         << "set grid lc rgb '#dddddd'\n";
  std::vector<std::string> plots;
  if (S <= 3) {
    std::vector<const Eigen::MatrixXd*> all;
    for (const LabeledPointSet& set : sets) all.push_back(&set.points);
    script << "set key outside bottom center horizontal box opaque noenhanced\n"
           << ObjectiveAxes(options, S, all);
    if (S == 3) script << "set view 60, 40\nset ticslevel 0\n";
    const std::string columns = S == 2 ? "1:2" : "1:2:3";
    for (size_t i = 0; i < sets.size(); ++i) {
      if (block_of_set[i] < 0) continue;
      plots.push_back("data index " + std::to_string(block_of_set[i]) +
                      " using " + columns + " with points pt " +
                      std::to_string(5 + 2 * (i % 4)) + " ps 1 lc rgb '" +
                      SetColor(static_cast<int>(i)) + "' title " +
                      Quote(sets[i].label));
    }
    script << (S == 2 ? "plot " : "splot ");
  } else {
    script << "unset key\nset xrange [0.8:" << S + 0.2 << "]\n"
           << "set grid noytics\nunset ytics\nset border 3\nset bmargin "
           << 3 + (blocks + 3) / 4 << "\n";
    int label = 0;
    for (size_t i = 0; i < sets.size(); ++i) {
      if (block_of_set[i] < 0) continue;
      script << "set linetype " << 101 + i << " lc rgb '"
             << SetColor(static_cast<int>(i)) << "' lw 1.5\n"
             << "set label " << label + 1 << " " << Quote(sets[i].label)
             << " noenhanced at screen " << 0.05 + 0.23 * (label % 4) << ", "
             << 0.05 - 0.035 * (label / 4) << " textcolor rgb '"
             << SetColor(static_cast<int>(i)) << "'\n";
      ++label;
    }
    Eigen::VectorXd lo =
        Eigen::VectorXd::Constant(S, std::numeric_limits<double>::infinity());
    Eigen::VectorXd hi = -lo;
    for (const LabeledPointSet& set : sets) {
      for (int r = 0; r < set.points.rows(); ++r) {
        if (!RowFinite(set.points, r)) continue;
        lo = lo.cwiseMin(set.points.row(r).transpose());
        hi = hi.cwiseMax(set.points.row(r).transpose());
      }
    }
    ParallelAxes(options, lo, hi, 101, &script, &plots);
    script << "plot ";
  }
  for (size_t i = 0; i < plots.size(); ++i) {
    script << (i ? ", \\\n     " : "") << plots[i];
  }
  script << "\n";
  return Render(options, image_path, data.str(), script.str());
}

PlotResult PlotCurves(const PlotOptions& options,
                      const std::vector<LabeledCurve>& curves,
                      const std::string& x_label,
                      const std::string& y_label,
                      bool log_x,
                      bool log_y,
                      const std::string& image_path) {
  std::ostringstream data;
  std::vector<std::string> plots;
  int blocks = 0;
  for (size_t c = 0; c < curves.size(); ++c) {
    const LabeledCurve& curve = curves[c];
    std::ostringstream rows;
    int n = 0;
    for (size_t i = 0; i < curve.x.size() && i < curve.y.size(); ++i) {
      const double x = curve.x[i], y = curve.y[i];
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      if ((log_x && !(x > 0.0)) || (log_y && !(y > 0.0))) continue;
      rows << FormatRoundTrip(x) << " " << FormatRoundTrip(y) << "\n";
      ++n;
    }
    if (n == 0) continue;
    if (blocks > 0) data << "\n\n";
    data << "# " << curve.label << "\n" << rows.str();
    plots.push_back("data index " + std::to_string(blocks) +
                    " using 1:2 with lines lw 1.5 lc rgb '" +
                    SetColor(static_cast<int>(c)) + "' title " +
                    Quote(curve.label));
    ++blocks;
  }
  if (blocks == 0) {
    return Failed(image_path, "Nothing to plot: every curve is empty.");
  }
  std::ostringstream script;
  script << "set title "
         << Quote(options.title.empty() ? "Curves" : options.title)
         << " noenhanced\n"
         << "set key outside bottom center horizontal box opaque noenhanced\n"
         << "set grid lc rgb '#dddddd'\n"
         << "set xlabel " << Quote(x_label) << " noenhanced\n"
         << "set ylabel " << Quote(y_label) << " noenhanced\n";
  if (log_x) script << "set logscale x\n";
  if (log_y) script << "set logscale y\n";
  script << "plot ";
  for (size_t i = 0; i < plots.size(); ++i) {
    script << (i ? ", \\\n     " : "") << plots[i];
  }
  script << "\n";
  return Render(options, image_path, data.str(), script.str());
}

std::vector<ConvergenceCurve> ConvergenceCurves(
    const std::vector<Solver::Summary>& summaries) {
  std::vector<ConvergenceCurve> curves;
  const int n = static_cast<int>(summaries.size());
  for (int i = 0; i < n; ++i) {
    const Solver::Summary& s = summaries[i];
    if (s.history.empty()) continue;
    ConvergenceCurve curve;
    if (s.preference.size() == 2) {
      curve.color_value = s.preference[0];
    } else {
      curve.color_value = n > 1 ? static_cast<double>(i) / (n - 1) : 0.0;
    }
    const bool pgd = s.strategy == StrategyType::WC_PENALTY_PGD;
    for (const IterationSummary& it : s.history) {
      curve.x.push_back(pgd ? it.iteration + 1.0
                            : static_cast<double>(it.gradient_evaluations));
      curve.y.push_back(it.kkt_residual_sq);
    }
    curves.push_back(std::move(curve));
  }
  return curves;
}

std::vector<PlotResult> PlotSweep(const PlotOptions& options,
                                  const std::vector<Solver::Summary>& points,
                                  const Eigen::MatrixXd& analytic_front,
                                  const std::string& image_path) {
  std::vector<PlotResult> results;
  int S = 0;
  for (const Solver::Summary& s : points) {
    if (s.IsSolutionUsable() && s.objectives.size() > 0) {
      S = static_cast<int>(s.objectives.size());
      break;
    }
  }
  std::vector<int> rows;
  for (size_t i = 0; i < points.size(); ++i) {
    const Solver::Summary& s = points[i];
    if (s.IsSolutionUsable() && s.objectives.size() == S &&
        s.objectives.allFinite()) {
      rows.push_back(static_cast<int>(i));
    }
  }
  Eigen::MatrixXd front(rows.size(), S);
  // Rows of `front` whose point did not pass the certificate.
  std::vector<int> not_certified;
  for (size_t r = 0; r < rows.size(); ++r) {
    front.row(r) = points[rows[r]].objectives.transpose();
    if (points[rows[r]].termination_type != ceres::CONVERGENCE) {
      not_certified.push_back(static_cast<int>(r));
    }
  }
  PlotOptions front_options = options;
  {
    std::ostringstream title;
    title << (options.title.empty() ? "Pareto front" : options.title) << ": "
          << rows.size() << " point" << (rows.size() == 1 ? "" : "s");
    if (!not_certified.empty()) {
      title << " (" << not_certified.size() << " not certified)";
    }
    if (!rows.empty() && S >= 1) {
      const HypervolumeValue hv =
          BoundedHypervolume(front, DefaultReferencePoint(front));
      if (std::isfinite(hv.value)) {
        title << ", hypervolume " << (hv.estimated ? "~" : "") << hv.value;
      }
    }
    front_options.title = title.str();
  }
  if (rows.empty()) {
    PlotResult result;
    result.image_path = image_path;
    result.message = "Nothing to plot: no usable point.";
    results.push_back(result);
  } else {
    results.push_back(PlotFront(front_options,
                                front,
                                NonDominatedWithTolerance(front),
                                analytic_front,
                                image_path,
                                not_certified));
  }
  const std::vector<ConvergenceCurve> curves = ConvergenceCurves(points);
  if (!curves.empty() && FormatOf(image_path) != Format::UNKNOWN) {
    PlotOptions convergence_options = options;
    convergence_options.title =
        (options.title.empty() ? std::string("Convergence")
                               : options.title + ": convergence");
    bool pgd = false, qn = false;
    for (const Solver::Summary& s : points) {
      if (s.history.empty()) continue;
      (s.strategy == StrategyType::WC_PENALTY_PGD ? pgd : qn) = true;
    }
    std::string x_label = "gradient evaluations";
    if (pgd && !qn) x_label = "iteration t + 1 (one gradient evaluation each)";
    results.push_back(
        PlotConvergence(convergence_options,
                        curves,
                        x_label,
                        S == 2 ? "lambda_1" : "point (in sweep order)",
                        ConvergencePlotPath(image_path)));
  }
  return results;
}

}  // namespace ecmo
