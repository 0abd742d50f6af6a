// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Adaptive refinement of Pareto sweeps (ParetoSweep::Options::refine_to):
// the choice of the next preference (front_refinement.h) against hand
// computations, refined sweeps against the registry's exact WC points, and
// resume of a refined sweep.

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "ecmo/indicators.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problems/registry.h"
#include "ecmo/sweep.h"
#include "front_refinement.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

TEST(FrontRefinement, AimsTheChebyshevRayThroughTheLargestHole) {
  // Normalized front points with r = 0, range = w = 1: the largest hole is
  // between (0, 1) and (0.9, 0.1); its midpoint (0.45, 0.55) lies on the
  // ray t (1/lambda_1, 1/lambda_2) for lambda proportional to
  // (1/0.45, 1/0.55), i.e. lambda_1 = 0.55.
  Eigen::MatrixXd f(3, 2);
  f << 0.0, 1.0, 0.9, 0.1, 1.0, 0.0;
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(2);
  const Eigen::VectorXd one = Eigen::VectorXd::Ones(2);
  internal::RefinementCandidate c;
  std::set<std::pair<int, int>> tried;
  ASSERT_TRUE(internal::NextRefinement(f, zero, one, one, tried, &c));
  EXPECT_EQ(c.a, 0);
  EXPECT_EQ(c.b, 1);
  ASSERT_EQ(c.preference.size(), 2u);
  EXPECT_NEAR(c.preference[0], 0.55, 1e-15);
  EXPECT_NEAR(c.preference[1], 0.45, 1e-15);
  EXPECT_NEAR(c.hole, std::hypot(0.45, 0.45), 1e-15);
  // Each point's nearest other point: (0.9, 0.1) for (0, 1); (0.9, 0.1)
  // and (1, 0) for each other.
  EXPECT_NEAR(c.mean_spacing,
              (std::hypot(0.9, 0.9) + 2.0 * std::hypot(0.1, 0.1)) / 3.0,
              1e-15);

  // Once tried, the pair is skipped. The chord (0, 1)-(1, 0) is next: its
  // midpoint (0.5, 0.5) is 0.566 from the nearest point (a neighbour pair
  // for so few points), then (0.9, 0.1)-(1, 0).
  tried.insert({0, 1});
  ASSERT_TRUE(internal::NextRefinement(f, zero, one, one, tried, &c));
  EXPECT_EQ(c.a, 0);
  EXPECT_EQ(c.b, 2);
  EXPECT_NEAR(c.preference[0], 0.5, 1e-15);
  EXPECT_NEAR(c.hole, std::hypot(0.4, 0.4), 1e-15);
  tried.insert({0, 2});
  ASSERT_TRUE(internal::NextRefinement(f, zero, one, one, tried, &c));
  EXPECT_EQ(c.a, 1);
  EXPECT_EQ(c.b, 2);
  // Midpoint (0.95, 0.05): lambda_1 = 0.05 / (0.95 + 0.05).
  EXPECT_NEAR(c.preference[0], 0.05, 1e-14);

  // With scales w the ray is r + t (w_1/lambda_1, w_2/lambda_2): the
  // preference scales by w. Objective 2 in units 10 times smaller.
  Eigen::MatrixXd g = f;
  g.col(1) *= 10.0;
  Eigen::VectorXd range(2), scale(2);
  range << 1.0, 10.0;
  scale << 1.0, 10.0;
  tried.clear();
  ASSERT_TRUE(internal::NextRefinement(g, zero, scale, range, tried, &c));
  EXPECT_EQ(c.a, 0);
  EXPECT_EQ(c.b, 1);
  EXPECT_NEAR(c.preference[0], 0.55, 1e-14);

  // Nothing left to try.
  tried = {{0, 1}, {1, 2}, {0, 2}};
  EXPECT_FALSE(internal::NextRefinement(f, zero, one, one, tried, &c));
}

// Distances between neighbouring points (sorted by f_1) in the sweep's
// normalized space (F - r) / (nadir - r).
std::vector<double> NeighbourDistances(const ParetoSweep::Summary& s) {
  const Scalarization& sc = s.scalarization;
  const Eigen::VectorXd range = sc.nadir_point - sc.reference_point;
  std::vector<Eigen::VectorXd> d;
  for (const SweepPoint& p : s.points) {
    d.push_back((p.summary.objectives - sc.reference_point)
                    .cwiseQuotient(range));
  }
  std::sort(d.begin(), d.end(),
            [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
              return a[0] < b[0];
            });
  std::vector<double> out;
  for (size_t i = 0; i + 1 < d.size(); ++i) out.push_back((d[i + 1] - d[i]).norm());
  return out;
}

TEST(SweepRefine, FillsTheQuarterCircleEvenlyWithExactWcPoints) {
  const problems::ProblemInfo* info = problems::Find("circle_quarter");
  ASSERT_NE(info, nullptr);
  ParetoSweep::Options options;
  options.solver.record_history = false;
  options.refine_to = 21;
  ParetoSweep::Summary summary;
  std::string error;
  Sweep(options, MakeProblemFactory(info->build), DasDennis(2, 4), &summary);
  ASSERT_EQ(summary.num_points, 21) << summary.FullReport();
  EXPECT_EQ(summary.num_refined, 16);
  EXPECT_EQ(summary.num_converged, 21) << summary.FullReport();
  const Scalarization& sc = summary.scalarization;
  ASSERT_EQ(sc.reference_point_type, ReferencePointType::UTOPIA);
  ASSERT_TRUE(sc.normalized);
  for (const SweepPoint& p : summary.points) {
    SCOPED_TRACE("point " + std::to_string(p.index));
    EXPECT_EQ(p.refined, p.index >= 5);
    // The exact WC point of the problem the sweep solved: weights
    // lambda / w, offset -r.
    const Eigen::VectorXd lambda = Eigen::Map<const Eigen::VectorXd>(
        p.preference.data(), 2);
    const Eigen::VectorXd z = info->pareto_point(
        lambda.cwiseQuotient(sc.objective_scale), -sc.reference_point);
    EXPECT_LE((p.summary.z - z).lpNorm<Eigen::Infinity>(), 1e-6)
        << p.summary.z.transpose() << " vs " << z.transpose();
  }
  const std::vector<double> d = NeighbourDistances(summary);
  const double ratio = *std::max_element(d.begin(), d.end()) /
                       *std::min_element(d.begin(), d.end());
  EXPECT_LE(ratio, 3.0);
  EXPECT_GT(*std::min_element(d.begin(), d.end()), 1e-3);  // distinct
}

// The mean of the neighbour distances: the front's mean gap (the measure
// of the gap target, largest gap <= 3x the mean gap).
double MeanGap(const std::vector<double>& d) {
  double sum = 0.0;
  for (double x : d) sum += x;
  return sum / static_cast<double>(d.size());
}

TEST(SweepRefine, ByDefaultFillsOnlyTheHolesAFrontHas) {
  const problems::ProblemInfo* info = problems::Find("circle_quarter");
  ASSERT_NE(info, nullptr);
  ParetoSweep::Options options;  // refine_to = kRefineWhereNeeded
  options.solver.record_history = false;
  ASSERT_EQ(options.refine_to, ParetoSweep::Options::kRefineWhereNeeded);

  // Six preferences crowded at one end and the other corner: one hole
  // across most of the front.
  const std::vector<std::vector<double>> crowded = {
      {1.0, 0.0}, {0.0, 1.0}, {0.02, 0.98}, {0.04, 0.96}, {0.06, 0.94},
      {0.08, 0.92}};
  ParetoSweep::Summary summary;
  Sweep(options, MakeProblemFactory(info->build), crowded, &summary);
  ASSERT_EQ(summary.num_converged, summary.num_points)
      << summary.FullReport();
  EXPECT_GT(summary.num_refined, 0);
  EXPECT_LE(summary.num_points, 2 * 6 - 1);
  const Scalarization& sc = summary.scalarization;
  for (const SweepPoint& p : summary.points) {
    SCOPED_TRACE("point " + std::to_string(p.index));
    EXPECT_EQ(p.refined, p.index >= 6);
    const Eigen::VectorXd lambda =
        Eigen::Map<const Eigen::VectorXd>(p.preference.data(), 2);
    const Eigen::VectorXd z = info->pareto_point(
        lambda.cwiseQuotient(sc.objective_scale), -sc.reference_point);
    EXPECT_LE((p.summary.z - z).lpNorm<Eigen::Infinity>(), 1e-6);
  }
  // Stopped because the holes are closed (largest gap within 3 mean
  // gaps), or at the cap of 2 P - 1 points.
  const std::vector<double> d = NeighbourDistances(summary);
  const double largest = *std::max_element(d.begin(), d.end());
  if (summary.num_points < 11) {
    EXPECT_LE(largest, 3.0 * MeanGap(d) * (1.0 + 1e-9));
  }
  // The same sweep without refinement had a gap of more than 3 spacings.
  ParetoSweep::Options none = options;
  none.refine_to = 0;
  ParetoSweep::Summary grid;
  Sweep(none, MakeProblemFactory(info->build), crowded, &grid);
  ASSERT_EQ(grid.num_points, 6);
  const std::vector<double> g = NeighbourDistances(grid);
  EXPECT_GT(*std::max_element(g.begin(), g.end()), 3.0 * MeanGap(g));
  EXPECT_LT(largest, *std::max_element(g.begin(), g.end()));

  // An evenly spread front needs nothing: Das-Dennis preferences on the
  // quarter circle (normalized, utopia reference point) are within 3x.
  ParetoSweep::Summary even;
  Sweep(options, MakeProblemFactory(info->build), DasDennis(2, 10), &even);
  EXPECT_EQ(even.num_refined, 0) << even.FullReport();
  const std::vector<double> e = NeighbourDistances(even);
  EXPECT_LE(*std::max_element(e.begin(), e.end()), 3.0 * MeanGap(e));
  EXPECT_EQ(even.num_converged, even.num_points);
}

TEST(SweepRefine, WorksForThreeObjectives) {
  const problems::ProblemInfo* info = problems::Find("sphere_octant");
  ASSERT_NE(info, nullptr);
  ParetoSweep::Options options;
  options.solver.record_history = false;
  options.refine_to = 20;
  ParetoSweep::Summary summary;
  std::string error;
  Sweep(options, MakeProblemFactory(info->build), DasDennis(3, 3, &error),
        &summary);
  ASSERT_EQ(summary.num_points, 20) << summary.FullReport();
  EXPECT_EQ(summary.num_converged, 20) << summary.FullReport();
  // Every point distinct and on the octant.
  for (size_t i = 0; i < summary.points.size(); ++i) {
    const Eigen::VectorXd& f = summary.points[i].summary.objectives;
    EXPECT_NEAR(f.norm(), 1.0, 1e-8);
    // Objectives whose Chebyshev term is inactive sit on the boundary
    // z_s = 0 only to the certificate's stationarity accuracy.
    EXPECT_LE(f.maxCoeff(), 1e-6);
    for (size_t j = 0; j < i; ++j) {
      EXPECT_GT((f - summary.points[j].summary.objectives).norm(), 1e-3);
    }
  }
  // Refinement beats the uniform grid of the same size on hypervolume.
  ParetoSweep::Summary uniform;
  options.refine_to = 0;
  Sweep(options, MakeProblemFactory(info->build), DasDennis(3, 5, &error),
        &uniform);  // 21 points
  const Eigen::VectorXd R = Eigen::VectorXd::Ones(3);
  auto hv = [&](const ParetoSweep::Summary& s) {
    Eigen::MatrixXd f(s.points.size(), 3);
    for (size_t i = 0; i < s.points.size(); ++i) {
      f.row(i) = s.points[i].summary.objectives.transpose();
    }
    return Hypervolume(f, R);
  };
  EXPECT_GT(hv(summary), 0.9 * info->exact_hypervolume(R));
}

TEST(SweepRefine, ResumesARefinedSweepAndRefinesFurther) {
  const problems::ProblemInfo* info = problems::Find("gebken_circle");
  ASSERT_NE(info, nullptr);
  const std::string path = ::testing::TempDir() + "/ecmo_refine_" +
                           std::to_string(::getpid()) + ".jsonl";
  std::remove(path.c_str());
  ParetoSweep::Options options;
  options.solver.record_history = false;
  options.jsonl_path = path;
  options.problem_name = info->name;
  options.refine_to = 12;
  ParetoSweep::Summary first, second, once;
  Sweep(options, MakeProblemFactory(info->build), DasDennis(2, 4), &first);
  ASSERT_EQ(first.num_points, 12) << first.FullReport();
  options.resume = true;
  options.refine_to = 18;
  Sweep(options, MakeProblemFactory(info->build), DasDennis(2, 4), &second);
  ASSERT_EQ(second.termination_type, ceres::CONVERGENCE) << second.message;
  EXPECT_EQ(second.num_resumed, 12);
  EXPECT_EQ(second.num_solved, 6);
  EXPECT_EQ(second.num_points, 18);
  EXPECT_EQ(second.num_refined, 13);
  {
    std::ifstream in(path);
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    EXPECT_EQ(lines, 18);
  }
  // The same as refining to 18 in one go.
  options.resume = false;
  options.jsonl_path.clear();
  Sweep(options, MakeProblemFactory(info->build), DasDennis(2, 4), &once);
  ASSERT_EQ(once.num_points, 18);
  for (int i = 0; i < 18; ++i) {
    SCOPED_TRACE("point " + std::to_string(i));
    ASSERT_EQ(once.points[i].preference.size(), 2u);
    EXPECT_NEAR(once.points[i].preference[0],
                second.points[i].preference[0], 1e-9);
    EXPECT_LE((once.points[i].summary.objectives -
               second.points[i].summary.objectives)
                  .norm(),
              1e-7);
  }
  // Resuming with a smaller target than the file holds refuses the file.
  options.jsonl_path = path;
  options.resume = true;
  options.refine_to = 10;
  ParetoSweep::Summary refused;
  Sweep(options, MakeProblemFactory(info->build), DasDennis(2, 4), &refused);
  EXPECT_EQ(refused.termination_type, ceres::FAILURE);
  EXPECT_NE(refused.message.find("index"), std::string::npos)
      << refused.message;
  std::remove(path.c_str());
}

TEST(SweepRefine, NegativeTargetIsInvalid) {
  ParetoSweep::Options options;
  // -1 is kRefineWhereNeeded (the default); below it nothing is valid.
  options.refine_to = -2;
  std::string error;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("refine_to"), std::string::npos) << error;
  options.refine_to = ParetoSweep::Options::kRefineWhereNeeded;
  options.refine_gap_ratio = 0.5;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("refine_gap_ratio"), std::string::npos) << error;
  options.refine_gap_ratio = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(options.IsValid(&error));
}

}  // namespace
}  // namespace ecmo
