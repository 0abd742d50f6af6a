// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Pictures of sweeps: ecmo_plot and ecmo_solve --plot draw non-empty PNG and
// SVG files from saved results, PlotFront handles S = 3 (3-D scatter) and
// S = 4 (parallel coordinates), and a missing gnuplot still leaves the data
// and the script behind with a message. Tests that need gnuplot are
// skipped when it is not installed.

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>

#include "command_runner.h"
#include "ecmo/plot.h"
#include "ecmo/result_writer.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

bool HaveGnuplot() {
  return std::system("gnuplot --version > /dev/null 2>&1") == 0;
}

long FileSize(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long>(st.st_size) : -1;
}

std::string Head(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string text(n, '\0');
  in.read(&text[0], static_cast<std::streamsize>(n));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

bool IsPng(const std::string& path) {
  return Head(path, 8) == std::string("\x89PNG\r\n\x1a\n", 8);
}

using testing::CommandResult;
using testing::RunCommand;

// A front on the unit simplex of S objectives: rows of a small grid.
Eigen::MatrixXd SimplexFront(int S, int n) {
  Eigen::MatrixXd f(n, S);
  for (int i = 0; i < n; ++i) {
    double rest = 1.0;
    for (int s = 0; s < S - 1; ++s) {
      const double v = rest * (0.5 + 0.4 * std::sin(1.7 * i + s));
      f(i, s) = v;
      rest -= v;
    }
    f(i, S - 1) = rest;
  }
  return f;
}

TEST(SweepPlot, FrontsForThreeAndFourObjectives) {
  if (!HaveGnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string dir = ::testing::TempDir();
  for (int S : {3, 4}) {
    const Eigen::MatrixXd points = SimplexFront(S, 30);
    Eigen::MatrixXd dominated = points;
    dominated.row(0).array() += 0.2;  // dominated by row 0 of `points`
    Eigen::MatrixXd all(points.rows() + 1, S);
    all << points, dominated.row(0);
    const Eigen::MatrixXd analytic = SimplexFront(S, 400);
    PlotOptions options;
    options.title = "simplex front, S = " + std::to_string(S);
    const std::string image = dir + "/front" + std::to_string(S) + ".png";
    std::vector<int> non_dominated(points.rows());
    for (int i = 0; i < points.rows(); ++i) non_dominated[i] = i;
    const PlotResult r =
        PlotFront(options, all, non_dominated, analytic, image);
    EXPECT_TRUE(r.image_written) << r.message;
    EXPECT_TRUE(IsPng(image));
    EXPECT_GT(FileSize(image), 1000);
    EXPECT_GT(FileSize(r.data_path), 0);
    EXPECT_GT(FileSize(r.script_path), 0);
  }
}

// Points that did not pass the certificate go to a block of their own
// (drawn as open triangles), whatever their rank; the others keep theirs.
TEST(SweepPlot, UncertifiedPointsAreDrawnApart) {
  if (!HaveGnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string dir = ::testing::TempDir();
  for (int S : {2, 3, 4}) {
    const Eigen::MatrixXd points = SimplexFront(S, 12);
    std::vector<int> non_dominated(points.rows());
    for (int i = 0; i < points.rows(); ++i) non_dominated[i] = i;
    const std::string image = dir + "/uncertified" + std::to_string(S) + ".png";
    const PlotResult r = PlotFront(
        PlotOptions(), points, non_dominated, Eigen::MatrixXd(), image, {2, 5});
    EXPECT_TRUE(r.image_written) << r.message;
    std::ifstream data(r.data_path);
    std::string text((std::istreambuf_iterator<char>(data)),
                     std::istreambuf_iterator<char>());
    std::ifstream script_file(r.script_path);
    std::string script((std::istreambuf_iterator<char>(script_file)),
                       std::istreambuf_iterator<char>());
    if (S <= 3) {
      const size_t block = text.find("# computed points, not certified\n");
      ASSERT_NE(block, std::string::npos) << text;
      // Exactly the two rows follow.
      int rows = 0;
      std::istringstream rest(text.substr(block));
      for (std::string line; std::getline(rest, line);) {
        if (!line.empty() && line[0] != '#') ++rows;
      }
      EXPECT_EQ(rows, 2);
      EXPECT_NE(script.find("title 'not certified'"), std::string::npos);
    } else {
      // Parallel coordinates: group 4, a dashed line type.
      int group4 = 0;
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && line[0] != '#' && line.back() == '4') ++group4;
      }
      EXPECT_EQ(group4, 2);
      EXPECT_NE(script.find("not certified"), std::string::npos);
    }
  }
}

// Several labelled sets (the methods of a study) in one picture, for
// S = 2, 3 and 5: every finite row of every set reaches the data file (one
// line each), rows with NaN are left out, and gnuplot draws it.
TEST(SweepPlot, LabeledPointSetsForTwoThreeAndFiveObjectives) {
  if (!HaveGnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string dir = ::testing::TempDir();
  for (int S : {2, 3, 5}) {
    std::vector<LabeledPointSet> sets = {{"method a", SimplexFront(S, 7)},
                                         {"method b", SimplexFront(S, 4)}};
    sets[1].points(2, 0) = std::numeric_limits<double>::quiet_NaN();
    PlotOptions options;
    const std::string image = dir + "/sets" + std::to_string(S) + ".png";
    const PlotResult r = PlotPointSets(options, sets, image);
    EXPECT_TRUE(r.image_written) << r.message;
    EXPECT_TRUE(IsPng(image));
    std::ifstream data(r.data_path);
    int rows = 0;
    for (std::string line; std::getline(data, line);) {
      if (!line.empty() && line[0] != '#') ++rows;
    }
    EXPECT_EQ(rows, 7 + 3) << "S = " << S;
  }
  // Sets with different S are refused with a message.
  const PlotResult bad =
      PlotPointSets(PlotOptions(),
                    {{"a", SimplexFront(2, 3)}, {"b", SimplexFront(3, 3)}},
                    dir + "/bad.png");
  EXPECT_FALSE(bad.image_written);
  EXPECT_NE(bad.message.find("different numbers of objectives"),
            std::string::npos)
      << bad.message;
}

// Labelled curves: non-positive values are dropped on a logarithmic axis
// only, and a set of empty curves is refused.
TEST(SweepPlot, LabeledCurvesDropNonPositiveValuesOnLogAxes) {
  if (!HaveGnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string dir = ::testing::TempDir();
  const std::vector<LabeledCurve> curves = {
      {"a", {0.0, 1.0, 2.0}, {1.0, 0.5, 0.25}}, {"b", {0.5, 1.5}, {-1.0, 2.0}}};
  auto data_rows = [](const PlotResult& r) {
    std::ifstream data(r.data_path);
    int rows = 0;
    for (std::string line; std::getline(data, line);) {
      if (!line.empty() && line[0] != '#') ++rows;
    }
    return rows;
  };
  const PlotResult linear = PlotCurves(
      PlotOptions(), curves, "t", "y", false, false, dir + "/lin.png");
  EXPECT_TRUE(linear.image_written) << linear.message;
  EXPECT_EQ(data_rows(linear), 5);
  const PlotResult log_y = PlotCurves(
      PlotOptions(), curves, "t", "y", false, true, dir + "/logy.png");
  EXPECT_TRUE(log_y.image_written) << log_y.message;
  EXPECT_EQ(data_rows(log_y), 4);
  const PlotResult log_xy = PlotCurves(
      PlotOptions(), curves, "t", "y", true, true, dir + "/logxy.png");
  EXPECT_EQ(data_rows(log_xy), 3);
  const PlotResult none = PlotCurves(PlotOptions(),
                                     {{"empty", {}, {}}},
                                     "t",
                                     "y",
                                     false,
                                     false,
                                     dir + "/none.png");
  EXPECT_FALSE(none.image_written);
  EXPECT_NE(none.message.find("empty"), std::string::npos);
}

TEST(SweepPlot, MissingGnuplotStillWritesDataAndScript) {
  const std::string dir = ::testing::TempDir();
  PlotOptions options;
  options.gnuplot = "ecmo-no-such-gnuplot";
  const std::string image = dir + "/missing.png";
  std::remove(image.c_str());
  Eigen::MatrixXd points(2, 2);
  points << 1, 2, 2, 1;
  const PlotResult r =
      PlotFront(options, points, {0, 1}, Eigen::MatrixXd(), image);
  EXPECT_FALSE(r.image_written);
  EXPECT_NE(r.message.find("not found on PATH"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("gnuplot " + r.script_path), std::string::npos)
      << r.message;
  EXPECT_GT(FileSize(r.data_path), 0);
  EXPECT_GT(FileSize(r.script_path), 0);
  EXPECT_EQ(FileSize(image), -1);

  const PlotResult bad =
      PlotFront(PlotOptions(), points, {0, 1}, Eigen::MatrixXd(), "x.jpg");
  EXPECT_FALSE(bad.image_written);
  EXPECT_NE(bad.message.find(".png or .svg"), std::string::npos);
}

TEST(SweepPlot, ConvergenceCurvesComeFromTheHistory) {
  Solver::Summary a, b;
  a.strategy = StrategyType::WC_PENALTY_PGD;
  a.preference = {0.25, 0.75};
  for (int t : {0, 9, 99}) {
    IterationSummary it;
    it.iteration = t;
    it.kkt_residual_sq = 1.0 / (t + 1);
    a.history.push_back(it);
  }
  const std::vector<ConvergenceCurve> curves = ConvergenceCurves({a, b});
  ASSERT_EQ(curves.size(), 1u);  // b has no history
  EXPECT_EQ(curves[0].x, (std::vector<double>{1, 10, 100}));
  EXPECT_DOUBLE_EQ(curves[0].y[2], 0.01);
  EXPECT_DOUBLE_EQ(curves[0].color_value, 0.25);
  EXPECT_EQ(ConvergencePlotPath("out/front.png"), "out/front_convergence.png");
}

TEST(SweepPlot, NearDuplicatesAreNotDominated) {
  Eigen::MatrixXd f(4, 2);
  f << 1.0, 3.0, 1.0 + 1e-12, 3.0 + 1e-12, 2.0, 2.0, 2.5, 2.5;
  EXPECT_EQ(NonDominatedWithTolerance(f), (std::vector<int>{0, 1, 2}));
}

#if defined(ECMO_SOLVE_PATH) && defined(ECMO_PLOT_PATH)
TEST(SweepPlot, EcmoPlotDrawsASavedSweep) {
  if (!HaveGnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string dir = ::testing::TempDir();
  const std::string jsonl = dir + "/saved.jsonl";
  const std::string json = dir + "/saved.json";
  const CommandResult solve =
      RunCommand(std::string(ECMO_SOLVE_PATH) +
                 " --problem=gebken_circle --sweep=21 --max_iterations=3000"
                 " --num_threads=2 --jsonl=" +
                 jsonl + " --output=" + json + " --plot=" + dir + "/solve.svg");
  ASSERT_EQ(solve.exit_code, 0) << solve.output;
  EXPECT_GT(FileSize(dir + "/solve.svg"), 1000) << solve.output;
  EXPECT_GT(FileSize(dir + "/solve_convergence.svg"), 1000) << solve.output;
  EXPECT_NE(Head(dir + "/solve.svg", 200).find("<svg"), std::string::npos);

  // The sweep JSON carries the indicators beside the points.
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  for (const char* key : {"points",
                          "hypervolume",
                          "reference_point",
                          "ideal",
                          "nadir",
                          "non_dominated"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_TRUE(j["points"][0].contains("history"));

  for (const std::string& input : {jsonl, json}) {
    const std::string image = input + ".png";
    std::remove(image.c_str());
    const CommandResult plot =
        RunCommand(std::string(ECMO_PLOT_PATH) + " --input=" + input +
                   " --output=" + image);
    EXPECT_EQ(plot.exit_code, 0) << plot.output;
    EXPECT_TRUE(IsPng(image)) << plot.output;
    EXPECT_GT(FileSize(image), 1000);
    EXPECT_TRUE(IsPng(ConvergencePlotPath(image)));
    // The analytic front of the registry problem is overlaid.
    std::ifstream data(input + ".dat");
    std::stringstream text;
    text << data.rdbuf();
    EXPECT_NE(text.str().find("# analytic Pareto front"), std::string::npos);
  }

  const CommandResult missing =
      RunCommand(std::string(ECMO_PLOT_PATH) + " --input=" + dir +
                 "/nope.json --output=" + dir + "/nope.png");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("cannot open"), std::string::npos)
      << missing.output;
}
#endif

}  // namespace
}  // namespace ecmo
