// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The generated least-squares workloads (ecmo/problems/pose_graph.h,
// bundle_adjustment.h): sizes, determinism, the odometry-composed start,
// the weighted-sum form, and refusals of bad options.

#include <cmath>
#include <memory>
#include <string>

#include "ceres/problem.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/problems/bundle_adjustment.h"
#include "ecmo/problems/pose_graph.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

using problems::BundleAdjustment;
using problems::PoseGraph2d;

double TotalCost(ceres::Problem* problem) {
  double cost = 0.0;
  problem->Evaluate(
      ceres::Problem::EvaluateOptions(), &cost, nullptr, nullptr, nullptr);
  return cost;
}

TEST(PoseGraph2d, SizesStartAndAdapterAgree) {
  PoseGraph2d::Options options;
  options.num_poses = 334;
  std::string error;
  auto graph = PoseGraph2d::Create(options, &error);
  ASSERT_NE(graph, nullptr) << error;
  EXPECT_EQ(graph->num_parameters(), 999);
  EXPECT_EQ(static_cast<int>(graph->odometry.size()), 333);
  // About half the poses revisit a cell of the automatic world.
  EXPECT_GT(graph->loop_closures.size(), 100u);
  EXPECT_LT(graph->loop_closures.size(), 334u);
  // The start composes the odometry: every odometry residual vanishes.
  const Eigen::Vector2d costs = graph->Costs();
  EXPECT_LT(costs[0], 1e-16);
  EXPECT_GT(costs[1], 1.0);
  // Pose 0 is constant and every heading is on a manifold.
  EXPECT_TRUE(graph->problem.IsParameterBlockConstant(graph->position(0)));
  EXPECT_TRUE(graph->problem.IsParameterBlockConstant(graph->heading(0)));
  EXPECT_NE(graph->problem.GetManifold(graph->heading(5)), nullptr);

  CeresProblemAdapter adapter(&graph->problem, graph->ObjectiveGroups(), {});
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  EXPECT_EQ(adapter.NumParameters(), 999);
  Eigen::VectorXd z = adapter.GetParameters();
  Eigen::Vector2d f;
  ASSERT_TRUE(adapter.Evaluate(z.data(), f.data(), nullptr, nullptr, &error));
  EXPECT_NEAR(f[0], costs[0], 1e-12);
  EXPECT_NEAR(f[1], costs[1], 1e-9 * costs[1]);
}

TEST(PoseGraph2d, SameSeedSameGraphAndWeightsScaleTheGroups) {
  PoseGraph2d::Options options;
  options.num_poses = 120;
  options.seed = 5;
  auto a = PoseGraph2d::Create(options, nullptr);
  options.odometry_weight = 2.0;
  options.loop_closure_weight = 3.0;
  auto b = PoseGraph2d::Create(options, nullptr);
  options.seed = 6;
  auto c = PoseGraph2d::Create(options, nullptr);
  ASSERT_TRUE(a && b && c);
  ASSERT_EQ(a->edges().size(), b->edges().size());
  // Move both away from the start the same way.
  for (int i = 1; i < a->num_poses(); ++i) {
    a->position(i)[0] += 0.01 * i;
    b->position(i)[0] += 0.01 * i;
    a->heading(i)[0] += 1e-3;
    b->heading(i)[0] += 1e-3;
  }
  const Eigen::Vector2d fa = a->Costs();
  EXPECT_EQ(fa, b->Costs());
  EXPECT_GT(fa.minCoeff(), 0.0);
  // The weighted problem's Ceres cost is the weighted sum.
  EXPECT_NEAR(TotalCost(&b->problem),
              2.0 * fa[0] + 3.0 * fa[1],
              1e-12 * (fa[0] + fa[1]));
  EXPECT_NEAR(TotalCost(&a->problem), fa[0] + fa[1], 1e-12 * (fa[0] + fa[1]));
  // Another seed, another graph.
  EXPECT_NE(c->Costs()[1],
            PoseGraph2d::Create(PoseGraph2d::Options(), nullptr)->Costs()[1]);
  // Copying the poses back gives the same costs; ResetToStart the start.
  ASSERT_TRUE(c->CopyParametersFrom(*c));
  EXPECT_FALSE(c->CopyParametersFrom(
      *PoseGraph2d::Create(PoseGraph2d::Options(), nullptr)));
  a->ResetToStart();
  EXPECT_LT(a->Costs()[0], 1e-16);
}

TEST(PoseGraph2d, BadOptionsAreRefusedWithTheFieldNamed) {
  std::string error;
  PoseGraph2d::Options options;
  options.num_poses = 1;
  EXPECT_EQ(PoseGraph2d::Create(options, &error), nullptr);
  EXPECT_NE(error.find("num_poses = 1"), std::string::npos) << error;
  options = PoseGraph2d::Options();
  options.loop_closure_min_information = 10.0;
  options.loop_closure_max_information = 1.0;
  EXPECT_EQ(PoseGraph2d::Create(options, &error), nullptr);
  EXPECT_NE(error.find("loop-closure information range"), std::string::npos)
      << error;
  options = PoseGraph2d::Options();
  options.odometry_weight = 0.0;
  EXPECT_EQ(PoseGraph2d::Create(options, &error), nullptr);
  EXPECT_NE(error.find("odometry_weight = 0"), std::string::npos) << error;
}

TEST(BundleAdjustment, SizesGaugeAndWeightedSum) {
  BundleAdjustment::Options options;
  options.num_cameras = 6;
  options.num_points = 20;
  std::string error;
  auto ba = BundleAdjustment::Create(options, &error);
  ASSERT_NE(ba, nullptr) << error;
  EXPECT_EQ(ba->num_parameters(), 7 * 5 + 3 * 19);
  EXPECT_EQ(ba->group_a.size(), 60u);
  EXPECT_EQ(ba->group_b.size(), 60u);
  CeresProblemAdapter adapter(&ba->problem, ba->ObjectiveGroups(), {});
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  EXPECT_EQ(adapter.NumParameters(), ba->num_parameters());
  // At the start the pixel errors are those of the perturbation: well
  // above the noise (sigma = 1 pixel, cost ~ 60 per group).
  const Eigen::Vector2d f = ba->Costs();
  EXPECT_GT(f.minCoeff(), 200.0);
  options.group_a_weight = 0.5;
  options.group_b_weight = 4.0;
  auto weighted = BundleAdjustment::Create(options, &error);
  ASSERT_NE(weighted, nullptr) << error;
  EXPECT_EQ(weighted->Costs(), f);
  EXPECT_NEAR(
      TotalCost(&weighted->problem), 0.5 * f[0] + 4.0 * f[1], 1e-12 * f.sum());
  options.num_cameras = 3;
  EXPECT_EQ(BundleAdjustment::Create(options, &error), nullptr);
  EXPECT_NE(error.find("num_cameras = 3"), std::string::npos) << error;
}

}  // namespace
}  // namespace ecmo
