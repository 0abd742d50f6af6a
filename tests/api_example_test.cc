// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The usage examples at the top of the public headers compile and run as
// written. Each example is pasted once, into ECMO_EXAMPLE, which both runs
// it and keeps its text; the test then checks that the header's comment
// still contains that text (whitespace folded), so the two cannot drift.

#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ceres/problem.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/ceres_problem_sweep.h"
#include "ecmo/cross_check.h"
#include "ecmo/ipopt_reference.h"
#include "ecmo/linear_scalarization.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "ecmo/sweep.h"
#include "ecmo/task_farm.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

#define ECMO_EXAMPLE(text, ...) \
  const std::string text = #__VA_ARGS__; \
  __VA_ARGS__

std::string Fold(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// The comment lines of a header ("// ..."), without the slashes, folded.
std::string HeaderComments(const std::string& relative_path) {
  std::ifstream in(std::string(ECMO_SOURCE_DIR) + "/" + relative_path);
  EXPECT_TRUE(in.good()) << relative_path;
  std::string line, text;
  while (std::getline(in, line)) {
    const size_t start = line.find_first_not_of(' ');
    if (start != std::string::npos && line.compare(start, 2, "//") == 0) {
      text += line.substr(start + 2) + "\n";
    }
  }
  return Fold(text);
}

void ExpectInHeader(const std::string& header, const std::string& example) {
  EXPECT_NE(HeaderComments(header).find(Fold(example)), std::string::npos)
      << header << " no longer shows the example\n  " << Fold(example);
}

// The snippet at the top of ecmo/solver.h.
TEST(ApiExample, SolverHeader) {
  double z[2] = {0.2, 0.9};
  Problem problem;
  testing::BuildGebken(z, &problem);

  ECMO_EXAMPLE(example,
  ecmo::Solver::Options options;
  ecmo::Solver::Summary summary;
  ecmo::Solve(options, &problem, {0.5, 0.5}, &summary);
  std::cout << summary.FullReport() << "\n";
  )

  ExpectInHeader("plugin/include/ecmo/solver.h", example);
  EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  // The solution was written into the user's block.
  EXPECT_NEAR(z[0], 1.0, 1e-6);
  EXPECT_NEAR(z[1], 0.0, 1e-6);
}

// The snippet at the top of ecmo/task_farm.h.
TEST(ApiExample, TaskFarmHeader) {
  ECMO_EXAMPLE(example,
  std::vector<std::string> squares(4);
  ecmo::TaskFarm::Options options;
  options.num_threads = 2;
  ecmo::RunTasks(
      options,
      {0, 1, 2, 3},
      [](int, int task) { return std::to_string(task * task); },
      [&](const ecmo::TaskFarm::Result& r) { squares[r.task] = r.text; });
  )

  ExpectInHeader("plugin/include/ecmo/task_farm.h", example);
  EXPECT_EQ(squares, (std::vector<std::string>{"0", "1", "4", "9"}));
}

// f_s = |z - c_s|^2 (convex) under z1 + z2 = 1.
struct Distance {
  Distance(double cx, double cy) : cx(cx), cy(cy) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - cx) * (z[0] - cx) + (z[1] - cy) * (z[1] - cy);
    return true;
  }
  double cx, cy;
};
struct OnLine {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = z[0] + z[1] - 1.0;
    return true;
  }
};

TEST(ApiExample, LinearScalarizationHeader) {
  double z[2] = {0.0, 0.0};
  Problem problem;
  problem.AddObjective(new ceres::AutoDiffCostFunction<Distance, 1, 2>(
                           new Distance(1.0, 1.0)),
                       {z});
  problem.AddObjective(new ceres::AutoDiffCostFunction<Distance, 1, 2>(
                           new Distance(-1.0, 1.0)),
                       {z});
  problem.AddConstraint(
      new ceres::AutoDiffCostFunction<OnLine, 1, 2>(new OnLine), {z});

  ECMO_EXAMPLE(example,
  ecmo::LinearScalarization::Options options;
  options.max_iterations = 1000;
  ecmo::LinearScalarization::Summary summary;
  ecmo::Solve(options, &problem, {0.3, 0.7}, &summary);
  std::cout << summary.FullReport() << "\n";
  )

  ExpectInHeader("plugin/include/ecmo/linear_scalarization.h", example);
  ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
  // Minimizer of 0.3 |z - (1, 1)|^2 + 0.7 |z - (-1, 1)|^2 on z1 + z2 = 1:
  // the unconstrained minimizer (-0.4, 1) projected onto the line.
  EXPECT_NEAR(z[0], -0.2, 1e-6);
  EXPECT_NEAR(z[1], 1.2, 1e-6);
  EXPECT_NEAR(summary.constraint_max_norm, 0.0, 1e-12);
}

TEST(ApiExample, IpoptReferenceHeader) {
  double z[2] = {0.2, 0.9};
  Problem problem;
  testing::BuildGebken(z, &problem);

  ECMO_EXAMPLE(example,
  ecmo::IpoptReference::Options options;
  ecmo::IpoptReference::Summary summary;
  ecmo::Solve(options, &problem, {0.5, 0.5}, &summary);
  std::cout << summary.FullReport() << "\n";
  )

  ExpectInHeader("adapters/include/ecmo/ipopt_reference.h", example);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_NEAR(z[0], 1.0, 1e-6);
  EXPECT_NEAR(summary.final_rho, 1.0, 1e-6);
  EXPECT_LE(summary.constraint_max_norm, 1e-8);
  EXPECT_GE(summary.constraint_max_norm, 0.0);
}

TEST(ApiExample, CrossCheckHeader) {
  double z[2] = {0.2, 0.9};
  Problem problem;
  testing::BuildGebken(z, &problem);

  ECMO_EXAMPLE(example,
  ecmo::CrossCheck::Options options;
  options.solver.max_iterations = 100000;
  ecmo::CrossCheck::Summary summary;
  ecmo::Solve(options, &problem, {0.5, 0.5}, &summary);
  std::cout << summary.FullReport() << "\n";
  if (!summary.agree) std::cerr << summary.verdict << "\n";
  )

  ExpectInHeader("adapters/include/ecmo/cross_check.h", example);
  EXPECT_TRUE(summary.agree) << summary.verdict;
  EXPECT_TRUE(summary.IsSolutionUsable());
  EXPECT_EQ(summary.BriefReport(), summary.verdict);
}

// A residual p - target (2-D).
struct PullTo {
  explicit PullTo(const Eigen::Vector2d& target) : target(target) {}
  template <typename T>
  bool operator()(const T* p, T* r) const {
    r[0] = p[0] - target[0];
    r[1] = p[1] - target[1];
    return true;
  }
  Eigen::Vector2d target;
};

// The code of docs/start_here.md, on a point pulled towards two sets of
// targets: f_a = 1/2 sum |p - a_i|^2, f_b likewise, whose Pareto set is the
// segment between the two means (closed form), from p's start far away.
TEST(ApiExample, StartHerePage) {
  ceres::Problem problem;
  double p[2] = {40.0, -30.0};
  std::vector<ceres::ResidualBlockId> sensor_a, sensor_b;
  const std::vector<Eigen::Vector2d> a = {{0, 0}, {1, 0}, {0, 2}};
  const std::vector<Eigen::Vector2d> b = {{5, 5}, {7, 4}};
  for (const Eigen::Vector2d& t : a) {
    sensor_a.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<PullTo, 2, 2>(new PullTo(t)),
        nullptr,
        p));
  }
  for (const Eigen::Vector2d& t : b) {
    sensor_b.push_back(problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<PullTo, 2, 2>(new PullTo(t)),
        nullptr,
        p));
  }

  ECMO_EXAMPLE(adapter_text,
  ecmo::CeresProblemAdapter adapter(&problem,
                                    {{"sensor_a", sensor_a}, {"sensor_b", sensor_b}},
                                    {});
  std::string error;
  if (!adapter.IsValid(&error)) std::cerr << error << "\n";
  )
  ECMO_EXAMPLE(sweep_text,
  ecmo::ParetoSweep::Options options;
  options.csv_path = "front.csv";
  ecmo::ParetoSweep::Summary front;
  ecmo::Sweep(options, &adapter, ecmo::EvenlySpaced2(11), &front);
  std::cout << front.FullReport() << "\n";
  )

  std::ifstream page(std::string(ECMO_SOURCE_DIR) + "/docs/start_here.md");
  std::stringstream text;
  text << page.rdbuf();
  EXPECT_NE(Fold(text.str()).find(Fold(adapter_text)), std::string::npos)
      << "docs/start_here.md no longer shows\n  " << Fold(adapter_text);
  EXPECT_NE(Fold(text.str()).find(Fold(sweep_text)), std::string::npos)
      << "docs/start_here.md no longer shows\n  " << Fold(sweep_text);

  ASSERT_EQ(front.points.size(), 11u);
  EXPECT_EQ(front.objective_names,
            (std::vector<std::string>{"sensor_a", "sensor_b"}));
  const Eigen::Vector2d mean_a(1.0 / 3.0, 2.0 / 3.0), mean_b(6.0, 4.5);
  const Eigen::Vector2d d = (mean_b - mean_a).normalized();
  for (const SweepPoint& point : front.points) {
    const Solver::Summary& s = point.summary;
    EXPECT_EQ(s.termination_type, ceres::CONVERGENCE) << s.message;
    ASSERT_EQ(s.z.size(), 2);
    // On the segment between the means.
    const Eigen::Vector2d q = s.z - mean_a;
    const double along = q.dot(d);
    EXPECT_LT((q - along * d).norm(), 1e-6) << s.z.transpose();
    EXPECT_GT(along, -1e-6);
    EXPECT_LT(along, (mean_b - mean_a).norm() + 1e-6);
  }
  // The sweep left the user's block alone.
  EXPECT_EQ(p[0], 40.0);
  EXPECT_EQ(p[1], -30.0);
}

}  // namespace
}  // namespace ecmo
