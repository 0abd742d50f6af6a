// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The generated least-squares workloads (ecmo/problems/pose_graph.h,
// bundle_adjustment.h): sizes, determinism, the odometry-composed and the
// linear starts, the weighted-sum form, and refusals of bad options.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "ceres/problem.h"
#include "ceres/solver.h"
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

// Largest heading and position errors of the graph's poses against the
// truth.
Eigen::Vector2d StartError(PoseGraph2d* graph) {
  Eigen::Vector2d error(0.0, 0.0);
  for (int i = 0; i < graph->num_poses(); ++i) {
    const Eigen::Vector3d& truth = graph->ground_truth()[i];
    error[0] = std::max(
        error[0],
        std::abs(problems::NormalizeAngle(graph->heading(i)[0] - truth[2])));
    error[1] = std::max(error[1],
                        std::hypot(graph->position(i)[0] - truth[0],
                                   graph->position(i)[1] - truth[1]));
  }
  return error;
}

// Levenberg-Marquardt on the graph's own (unweighted) problem: final cost
// and iterations.
std::pair<double, int> SolveGraph(PoseGraph2d* graph) {
  ceres::Solver::Options options;
  options.linear_solver_type = ceres::SPARSE_NORMAL_CHOLESKY;
  options.max_num_iterations = 200;
  ceres::Solver::Summary summary;
  ceres::Solve(options, &graph->problem, &summary);
  return {summary.final_cost, static_cast<int>(summary.iterations.size())};
}

TEST(PoseGraph2d, LinearStartRecoversExactMeasurementsExactly) {
  // Measurements with negligible noise: both linear least-squares steps
  // then have the truth as their exact solution (the headings unwrapped
  // along the chain agree with every loop closure).
  PoseGraph2d::Options options;
  options.num_poses = 1500;
  options.odometry_min_information = options.odometry_max_information = 1e14;
  options.loop_closure_min_information = 1e14;
  options.loop_closure_max_information = 1e14;
  options.initial_guess = PoseGraph2d::InitialGuess::LINEAR;
  auto graph = PoseGraph2d::Create(options, nullptr);
  ASSERT_NE(graph, nullptr);
  const Eigen::Vector2d error = StartError(graph.get());
  EXPECT_LT(error[0], 1e-6);
  EXPECT_LT(error[1], 1e-5);
}

TEST(PoseGraph2d, LinearStartLandsInTheBasinOfTheTruth) {
  PoseGraph2d::Options options;
  options.num_poses = 2500;
  auto odometry = PoseGraph2d::Create(options, nullptr);
  options.initial_guess = PoseGraph2d::InitialGuess::LINEAR;
  auto linear = PoseGraph2d::Create(options, nullptr);
  options.odometry_weight = 3.0;
  auto weighted = PoseGraph2d::Create(options, nullptr);
  ASSERT_TRUE(odometry && linear && weighted);
  // The same measurements; the start does not depend on the weights.
  ASSERT_EQ(odometry->edges().size(), linear->edges().size());
  EXPECT_EQ(linear->Costs(), weighted->Costs());

  // Odometry composed over 2,500 poses drifts by a large fraction of a
  // radian; the linear estimate stays close to the truth.
  const Eigen::Vector2d odometry_error = StartError(odometry.get());
  const Eigen::Vector2d linear_error = StartError(linear.get());
  EXPECT_GT(odometry_error[0], 0.3);
  EXPECT_LT(linear_error[0], 0.2);
  EXPECT_LT(linear_error[1], 0.5 * odometry_error[1]);
  EXPECT_LT(linear->Costs().sum(), 1e-3 * odometry->Costs().sum());

  // From the linear start Levenberg-Marquardt reaches the minimum it
  // reaches from the truth, in fewer iterations than from the odometry.
  const std::pair<double, int> from_linear = SolveGraph(linear.get());
  const std::pair<double, int> from_odometry = SolveGraph(odometry.get());
  for (int i = 1; i < linear->num_poses(); ++i) {
    const Eigen::Vector3d& truth = linear->ground_truth()[i];
    linear->position(i)[0] = truth[0];
    linear->position(i)[1] = truth[1];
    linear->heading(i)[0] = truth[2];
  }
  const std::pair<double, int> from_truth = SolveGraph(linear.get());
  EXPECT_NEAR(from_linear.first, from_truth.first, 1e-6 * from_truth.first);
  EXPECT_LT(from_linear.second, from_odometry.second);
  linear->ResetToStart();
  EXPECT_LT(StartError(linear.get())[0], 0.2);
}

TEST(PoseGraph2d, InitialGuessNames) {
  PoseGraph2d::InitialGuess guess = PoseGraph2d::InitialGuess::ODOMETRY;
  ASSERT_TRUE(problems::StringToInitialGuess("linear", &guess));
  EXPECT_EQ(guess, PoseGraph2d::InitialGuess::LINEAR);
  EXPECT_STREQ(problems::InitialGuessToString(guess), "linear");
  ASSERT_TRUE(problems::StringToInitialGuess("odometry", &guess));
  EXPECT_STREQ(problems::InitialGuessToString(guess), "odometry");
  EXPECT_FALSE(problems::StringToInitialGuess("lago", &guess));
  EXPECT_EQ(guess, PoseGraph2d::InitialGuess::ODOMETRY);
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

// The Huber variant: Costs() is 1/2 sum rho(|r|^2) with Huber's rho
// (rho(s) = s for s <= d^2, 2 d sqrt(s) - d^2 above), computed here from
// the plain problem's residuals; the group weights scale it and Costs()
// divides them out; the adapter's objectives are the same costs.
TEST(BundleAdjustment, HuberLossOnEveryObservation) {
  BundleAdjustment::Options options;
  options.num_cameras = 6;
  options.num_points = 20;
  options.start_point_noise = 0.2;  // some residuals beyond the scale
  std::string error;
  auto plain = BundleAdjustment::Create(options, &error);
  ASSERT_NE(plain, nullptr) << error;
  const double d = 3.0;
  Eigen::Vector2d expected(0.0, 0.0);
  int beyond = 0;
  for (int g = 0; g < 2; ++g) {
    ceres::Problem::EvaluateOptions evaluate;
    evaluate.residual_blocks = g == 0 ? plain->group_a : plain->group_b;
    std::vector<double> r;
    plain->problem.Evaluate(evaluate, nullptr, &r, nullptr, nullptr);
    ASSERT_EQ(r.size() % 2, 0u);
    for (size_t i = 0; i < r.size(); i += 2) {
      const double sq = r[i] * r[i] + r[i + 1] * r[i + 1];
      expected[g] += 0.5 * (sq <= d * d ? sq : 2.0 * d * std::sqrt(sq) - d * d);
      beyond += sq > d * d ? 1 : 0;
    }
  }
  EXPECT_GT(beyond, 10);
  options.huber_scale = d;
  options.group_a_weight = 0.5;
  options.group_b_weight = 4.0;
  auto robust = BundleAdjustment::Create(options, &error);
  ASSERT_NE(robust, nullptr) << error;
  const Eigen::Vector2d f = robust->Costs();
  EXPECT_NEAR(f[0], expected[0], 1e-9 * expected[0]);
  EXPECT_NEAR(f[1], expected[1], 1e-9 * expected[1]);
  EXPECT_NEAR(TotalCost(&robust->problem),
              0.5 * expected[0] + 4.0 * expected[1],
              1e-9 * expected.sum());
  options.group_a_weight = options.group_b_weight = 1.0;
  auto unweighted = BundleAdjustment::Create(options, &error);
  ASSERT_NE(unweighted, nullptr) << error;
  CeresProblemAdapter adapter(&unweighted->problem,
                              unweighted->ObjectiveGroups(), {});
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  Eigen::Vector2d objectives;
  std::vector<double> h(adapter.NumConstraints());
  const Eigen::VectorXd z = adapter.GetParameters();
  ASSERT_TRUE(adapter.Evaluate(z.data(), objectives.data(), h.data(),
                               nullptr, &error))
      << error;
  EXPECT_NEAR(objectives[0], expected[0], 1e-9 * expected[0]);
  EXPECT_NEAR(objectives[1], expected[1], 1e-9 * expected[1]);
  options.huber_scale = -1.0;
  EXPECT_EQ(BundleAdjustment::Create(options, &error), nullptr);
  EXPECT_NE(error.find("huber_scale = -1"), std::string::npos) << error;
}

}  // namespace
}  // namespace ecmo
