// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ecmo_plot: draw a saved ecmo_solve result with gnuplot.
//
//   ecmo_plot --input=front.json --output=front.png
//   ecmo_plot --input=front.jsonl --output=front.svg
//   ecmo_plot --help        (this tool's flags; --helpfull: all)
//   ecmo_plot --version
//
// Reads the sweep JSON (--output of ecmo_solve), a single point's JSON, or
// the JSON-lines stream (--jsonl; a truncated last line is skipped), and
// writes
//   * the front in objective space (2-D scatter for S = 2, 3-D scatter for
//     S = 3, parallel coordinates for S > 3), over the analytic Pareto front
//     when the problem is a registry problem that knows it, and
//   * when the points carry a history, the convergence of ||K||^2 on
//     log-log axes next to it (FILE_convergence.png).
// Each picture comes with its data (.dat) and gnuplot script (.gp). Without
// gnuplot the data and scripts are still written and the exit status is 1.
//
// Exit status: 0 when every picture was drawn, 1 when one was not, 2 on bad
// command-line input or an unreadable file.

#include <cctype>
#include <iostream>
#include <string>
#include <vector>

#include "ecmo/plot.h"
#include "ecmo/problems/registry.h"
#include "ecmo/result_writer.h"
#include "gflags/gflags.h"
#include "glog/logging.h"
#include "tool_flags.h"

DEFINE_string(input, "", "Result file: JSON or JSON-lines from ecmo_solve.");
DEFINE_string(output,
              "",
              "Image of the front: FILE.png or FILE.svg (the convergence "
              "plot goes to FILE_convergence.png/svg).");
DEFINE_string(problem,
              "",
              "Registry problem whose analytic front to overlay (default: "
              "the problem named in the file).");
DEFINE_bool(analytic, true, "Overlay the analytic front when known.");
DEFINE_string(title, "", "Plot title (default: problem and strategy).");
DEFINE_int32(width, 900, "Image width in pixels, in [100, 20000].");
DEFINE_int32(height, 650, "Image height in pixels, in [100, 20000].");

namespace {

int Usage(const std::string& message) {
  std::cerr << "ecmo_plot: " << message << "\n";
  return 2;
}

std::string StringField(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>()
                                          : std::string();
}

}  // namespace

int main(int argc, char** argv) {
  ecmo::tools::ParseToolFlags(
      "Plot a saved ecmo_solve result (sweep JSON, a point's JSON or JSON\n"
      "lines) with gnuplot. All options are --flags; this tool's flags are\n"
      "listed below (--helpfull adds those of glog and gflags, --version\n"
      "the version).\n"
      "\n"
      "Examples:\n"
      "  ecmo_plot --input=front.json --output=front.png\n"
      "  ecmo_plot --input=front.jsonl --output=front.svg --analytic=false\n"
      "\n"
      "Exit status: 0 every picture drawn, 1 one was not (e.g. no\n"
      "gnuplot), 2 bad input or an unreadable file.",
      "ecmo_plot.cc", &argc, &argv);
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  if (argc > 1) {
    return Usage("unexpected argument '" + ecmo::TextForMessage(argv[1]) +
                 "'; all options are --flags (see --help).");
  }
  std::string error;
  if (FLAGS_input.empty()) return Usage("--input is required.");
  if (FLAGS_output.empty()) return Usage("--output is required.");
  // gnuplot's Cairo terminals fail (exit 1, after reading the input) on
  // sizes such as 2^31 - 1; 20000 pixels is far above any screen or print.
  constexpr int kMaxPixels = 20000;
  if (FLAGS_width < 100 || FLAGS_height < 100 || FLAGS_width > kMaxPixels ||
      FLAGS_height > kMaxPixels) {
    return Usage("--width and --height must be in [100, " +
                 std::to_string(kMaxPixels) + "], got " +
                 std::to_string(FLAGS_width) + " x " +
                 std::to_string(FLAGS_height) + ".");
  }
  {
    // Checked before the input is read, as ecmo_solve --plot is: gnuplot
    // draws only these, and any other name failed (exit 1) after reading.
    std::string lower = FLAGS_output;
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    const auto ends_with = [&](const std::string& e) {
      return lower.size() > e.size() &&
             lower.compare(lower.size() - e.size(), e.size(), e) == 0;
    };
    if (!ends_with(".png") && !ends_with(".svg")) {
      return Usage("--output '" + ecmo::TextForMessage(FLAGS_output) +
                   "': the file name must end in .png or .svg.");
    }
  }
  // Before reading anything: a plot that would overwrite its own input
  // (front.dat as --input and front.png as --output) or cannot be written
  // is a usage error, not work done and then lost.
  for (const std::string& file : ecmo::PlotSweepFiles(FLAGS_output)) {
    if (ecmo::SameFile(file, FLAGS_input)) {
      return Usage("--output '" + ecmo::TextForMessage(FLAGS_output) +
                   "' would write '" + ecmo::TextForMessage(file) +
                   "', which is the --input file; give the plot another "
                   "name.");
    }
  }
  if (!ecmo::CheckWritable(FLAGS_output, &error)) {
    return Usage("cannot write --output '" +
                 ecmo::TextForMessage(FLAGS_output) + "': " +
                 ecmo::tools::CutValue(error, FLAGS_output) + ".");
  }

  std::vector<nlohmann::json> records;
  nlohmann::json document;
  int skipped = 0;
  // Line numbers of the lines of a JSON-lines file that do not parse, as
  // " (line 3, line 7)", or "" when there are none or the file is unreadable.
  auto bad_lines = [](const std::string& path) {
    ecmo::JsonLines lines;
    std::string ignored;
    std::string text;
    if (!ecmo::ReadJsonLines(path, &lines, &ignored)) return text;
    for (size_t i = 0; i < lines.bad_lines.size(); ++i) {
      text +=
          (i == 0 ? " (line " : ", line ") + std::to_string(lines.bad_lines[i]);
    }
    if (!text.empty()) text += lines.last_line_truncated ? "; truncated)" : ")";
    return text;
  };
  if (!ecmo::ReadResultFile(
          FLAGS_input, &records, &document, &skipped, &error)) {
    return Usage(ecmo::tools::CutValue(error, FLAGS_input) +
                 bad_lines(FLAGS_input));
  }
  if (skipped > 0) {
    std::cerr << "ecmo_plot: skipped " << skipped << " unreadable line(s) of "
              << ecmo::TextForMessage(FLAGS_input) << bad_lines(FLAGS_input)
              << "\n";
  }
  std::vector<ecmo::Solver::Summary> points;
  for (size_t i = 0; i < records.size(); ++i) {
    ecmo::Solver::Summary summary;
    if (!ecmo::SummaryFromJson(records[i], &summary, &error)) {
      std::cerr << "ecmo_plot: skipping point " << i << ": " << error << "\n";
      continue;
    }
    points.push_back(std::move(summary));
  }
  if (points.empty()) {
    return Usage(ecmo::TextForMessage(FLAGS_input) + ": no readable point.");
  }

  std::string problem = FLAGS_problem;
  if (problem.empty()) problem = StringField(document, "problem");
  if (problem.empty()) problem = StringField(records[0], "problem");
  std::string strategy = StringField(document, "strategy");
  if (strategy.empty()) strategy = StringField(records[0], "strategy");

  Eigen::MatrixXd analytic;
  if (FLAGS_analytic && !problem.empty()) {
    const ecmo::problems::ProblemInfo* info = ecmo::problems::Find(problem);
    if (info != nullptr && info->pareto_front) {
      analytic = info->pareto_front(200);
    } else if (!FLAGS_problem.empty() && info == nullptr) {
      return Usage("unknown problem '" + ecmo::TextForMessage(problem) +
                   "'; valid names: " + ecmo::problems::ProblemNames() + ".");
    }
  }

  ecmo::PlotOptions options;
  // The objective groups' names of a sweep document label the axes.
  const auto names = document.find("objective_names");
  if (document.is_object() && names != document.end() && names->is_array()) {
    for (const nlohmann::json& name : *names) {
      if (!name.is_string()) {
        options.objective_names.clear();
        break;
      }
      options.objective_names.push_back(name.get<std::string>());
    }
  }
  options.width = FLAGS_width;
  options.height = FLAGS_height;
  options.title = FLAGS_title;
  if (options.title.empty()) {
    options.title = problem.empty() ? "result" : problem;
    if (!strategy.empty()) options.title += " (" + strategy + ")";
  }
  bool all_drawn = true;
  for (const ecmo::PlotResult& r :
       ecmo::PlotSweep(options, points, analytic, FLAGS_output)) {
    if (r.image_written) {
      std::cout << "Plot written to " << r.image_path << "\n";
    } else {
      all_drawn = false;
      std::cerr << "ecmo_plot: " << ecmo::tools::CutValue(r.message, FLAGS_output)
                << "\n";
    }
  }
  return all_drawn ? 0 : 1;
}
