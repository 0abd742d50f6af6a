// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The Ipopt reference at pipeline scale (issue 19): its Hessian choices,
// any Evaluator (CeresProblemAdapter) in CrossCheck, Ceres' quaternion
// manifold posed as a norm equality, and the bad-input cases (unsupported
// manifold, an options file with an unknown option, a linear solver the
// installed Ipopt lacks).

#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/Geometry"
#include "attitude_costs.h"
#include "ceres/autodiff_cost_function.h"
#include "ceres/manifold.h"
#include "ceres/problem.h"
#include "ceres/solver.h"
#include "ceres/sphere_manifold.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/cross_check.h"
#include "ecmo/ipopt_reference.h"
#include "ecmo/problem.h"
#include "ecmo/problems/pose_graph.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"
#include "sphere_family.h"
#include "test_problems.h"

namespace ecmo {
namespace {

using problems::PoseGraph2d;
using HessianType = IpoptReference::HessianType;

std::unique_ptr<PoseGraph2d> MakeGraph(int num_poses, bool angle_manifold) {
  PoseGraph2d::Options options;
  options.num_poses = num_poses;
  options.angle_manifold = angle_manifold;
  std::string error;
  std::unique_ptr<PoseGraph2d> graph = PoseGraph2d::Create(options, &error);
  EXPECT_NE(graph, nullptr) << error;
  return graph;
}

// A scalarization for the pose graph: reference point 0 (both costs are
// >= 0) and, for both objectives, the loop-closure cost at the odometry
// start as the scale (the odometry cost is ~0 there).
Eigen::Vector2d GraphScale(const Eigen::VectorXd& f0) {
  return Eigen::Vector2d(f0[1], f0[1]);
}

IpoptReference::Options GraphReferenceOptions(const Eigen::VectorXd& f0) {
  IpoptReference::Options options;
  options.reference_point = {0.0, 0.0};
  options.objective_scale = {GraphScale(f0)[0], GraphScale(f0)[1]};
  return options;
}

// Writes the plain-Ceres solution of the weighted sum
// (lambda_1 / w_1) f_1 + (lambda_2 / w_2) f_2 into `graph`'s poses.
void StartAtWeightedSum(double l1,
                        const Eigen::Vector2d& w,
                        PoseGraph2d* graph) {
  PoseGraph2d::Options weighted_options = graph->options();
  weighted_options.odometry_weight = l1 / w[0];
  weighted_options.loop_closure_weight = (1.0 - l1) / w[1];
  auto weighted = PoseGraph2d::Create(weighted_options, nullptr);
  ASSERT_NE(weighted, nullptr);
  ceres::Solver::Options ceres_options;
  ceres_options.linear_solver_type = ceres::SPARSE_NORMAL_CHOLESKY;
  ceres::Solver::Summary ceres_summary;
  ceres::Solve(ceres_options, &weighted->problem, &ceres_summary);
  ASSERT_TRUE(ceres_summary.IsSolutionUsable()) << ceres_summary.message;
  ASSERT_TRUE(graph->CopyParametersFrom(*weighted));
}

Eigen::VectorXd Costs(CeresProblemAdapter* adapter, const Eigen::VectorXd& z) {
  Eigen::VectorXd f(adapter->NumObjectives()), h(adapter->NumConstraints());
  std::string error;
  EXPECT_TRUE(adapter->Evaluate(z.data(), f.data(), h.data(), nullptr, &error))
      << error;
  return f;
}

// Same WC point and multipliers from the three kinds of second-order
// information, on a problem small enough for L-BFGS (the reference of
// today) to converge tightly: a 12-pose graph in R^k, from the weighted-sum
// solution (from the odometry guess L-BFGS diverges even here: see
// benchmarks/README.md).
TEST(IpoptReferenceScale, HessianTypesReachTheSamePointAndMultipliers) {
  auto graph = MakeGraph(12, /*angle_manifold=*/false);
  CeresProblemAdapter adapter(&graph->problem, graph->ObjectiveGroups(), {});
  ASSERT_TRUE(adapter.IsValid(nullptr));
  const Eigen::VectorXd f0 = Costs(&adapter, adapter.GetParameters());
  StartAtWeightedSum(0.4, GraphScale(f0), graph.get());
  const Eigen::VectorXd z0 = adapter.GetParameters();

  std::vector<IpoptReference::Summary> summaries;
  for (HessianType type : {HessianType::LIMITED_MEMORY,
                           HessianType::GAUSS_NEWTON,
                           HessianType::EXACT,
                           HessianType::AUTOMATIC}) {
    IpoptReference::Options options = GraphReferenceOptions(f0);
    options.hessian = type;
    IpoptReference::Summary summary;
    Eigen::VectorXd z = z0;
    Solve(options, &adapter, {0.4, 0.6}, &z, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
        << summary.FullReport();
    EXPECT_TRUE(summary.certified) << summary.FullReport();
    summaries.push_back(summary);
  }
  EXPECT_EQ(summaries[0].hessian_used, HessianType::LIMITED_MEMORY);
  EXPECT_EQ(summaries[1].hessian_used, HessianType::GAUSS_NEWTON);
  EXPECT_EQ(summaries[2].hessian_used, HessianType::EXACT);
  // AUTOMATIC on an adapter in R^k: Gauss-Newton.
  EXPECT_EQ(summaries[3].hessian_used, HessianType::GAUSS_NEWTON);
  // 33 parameters: MUMPS keeps Ipopt's automatic ordering whatever the
  // Hessian (QAMD only for L-BFGS from k = 5,000; mumps_ordering_bench).
  for (const IpoptReference::Summary& s : summaries) {
    EXPECT_EQ(s.mumps_pivot_order_used, -1);
  }
  EXPECT_NE(summaries[0].FullReport().find("MUMPS ordering"),
            std::string::npos);
  EXPECT_GT(summaries[2].hessian_colors, 0);
  EXPECT_LT(summaries[2].hessian_colors, adapter.NumParameters());
  EXPECT_GT(summaries[1].hessian_nonzeros, 0);
  const IpoptReference::Summary& base = summaries[0];
  for (size_t i = 1; i < summaries.size(); ++i) {
    const IpoptReference::Summary& s = summaries[i];
    EXPECT_NEAR(s.final_rho, base.final_rho, 1e-8 * std::abs(base.final_rho))
        << i;
    EXPECT_LT((s.z - base.z).norm(), 1e-5 * (1.0 + base.z.norm())) << i;
    EXPECT_LT((s.omega - base.omega).norm(), 1e-5) << i;
  }
  // The exact Hessian converges in fewer iterations than L-BFGS.
  EXPECT_LT(summaries[2].iterations, summaries[0].iterations);
}

// On an ecmo::Problem (no Gauss-Newton structure) the exact Hessian is
// assembled densely from products; it reaches the hand-derived point of
// gebken_circle (ipopt_reference_test.cc) like L-BFGS, and AUTOMATIC keeps
// L-BFGS there. GAUSS_NEWTON is refused with a message.
TEST(IpoptReferenceScale, ExactHessianOnAProblemMatchesLimitedMemory) {
  double start[2] = {0.5, 0.5};
  Problem problem;
  testing::BuildGebken(start, &problem);
  ProblemEvaluator evaluator(&problem);
  const Eigen::VectorXd z0 = Eigen::Vector2d(0.5, 0.5);

  IpoptReference::Options options;
  IpoptReference::Summary automatic, exact, gauss_newton;
  Eigen::VectorXd z = z0;
  Solve(options, &evaluator, {0.5, 0.5}, &z, &automatic);
  EXPECT_EQ(automatic.hessian_used, HessianType::LIMITED_MEMORY);
  options.hessian = HessianType::EXACT;
  z = z0;
  Solve(options, &evaluator, {0.5, 0.5}, &z, &exact);
  ASSERT_EQ(exact.termination_type, ceres::CONVERGENCE) << exact.message;
  // z = (1, 0), rho = 1, omega = (1/2, 1/2), nu = -1/2 by hand.
  EXPECT_NEAR(exact.z[0], 1.0, 1e-7);
  EXPECT_NEAR(exact.z[1], 0.0, 1e-7);
  EXPECT_NEAR(exact.final_rho, 1.0, 1e-8);
  EXPECT_NEAR(exact.omega[0], 0.5, 1e-6);
  EXPECT_NEAR(exact.nu[0], -0.5, 1e-6);
  EXPECT_NEAR(exact.final_rho, automatic.final_rho, 1e-8);

  options.hessian = HessianType::GAUSS_NEWTON;
  z = z0;
  Solve(options, &evaluator, {0.5, 0.5}, &z, &gauss_newton);
  EXPECT_EQ(gauss_newton.termination_type, ceres::FAILURE);
  EXPECT_NE(gauss_newton.message.find("GAUSS_NEWTON needs an evaluator"),
            std::string::npos)
      << gauss_newton.message;
  EXPECT_EQ(z, z0);
}

// From k = 5,000 parameters a limited-memory solve orders MUMPS with QAMD
// (the KKT matrix is a diagonal plus three dense rows; Ipopt's automatic
// ordering takes minutes from k = 1e4, mumps_ordering_bench). At k = 6,000
// both orderings are quick: the QAMD point is the closed-form WC point and
// Ipopt's automatic ordering, asked for, reaches the same one.
TEST(IpoptReferenceScale, LimitedMemoryOrdersWithQamdFromFiveThousandParams) {
  // The sphere family of benchmarks/sphere_family.h: f_{1,2} = ||z - (2a
  // +- b)||^2 on the unit sphere, WC point cos t a + sin t b.
  const int k = 6000;
  auto instance = ecmo_bench::MakeSphereInstance(k);
  const double t = ecmo_bench::ParetoAngle(0.3);
  const Eigen::VectorXd expected =
      std::cos(t) * instance->a + std::sin(t) * instance->b;
  const std::vector<double> start = instance->z;

  IpoptReference::Options options;
  options.hessian = HessianType::LIMITED_MEMORY;
  IpoptReference::Summary qamd, automatic;
  SolveReference(options, instance->problem, {0.3, 0.7}, {0.0, 0.0}, &qamd);
  EXPECT_EQ(qamd.mumps_pivot_order_used, 6);
  ASSERT_EQ(qamd.termination_type, ceres::CONVERGENCE) << qamd.FullReport();
  EXPECT_TRUE(qamd.certified) << qamd.FullReport();
  ASSERT_EQ(qamd.z.size(), k);
  EXPECT_LT((qamd.z - expected).norm(), 1e-6);

  instance->z = start;
  options.mumps_pivot_order = 7;  // Ipopt's automatic ordering, as given
  SolveReference(
      options, instance->problem, {0.3, 0.7}, {0.0, 0.0}, &automatic);
  EXPECT_EQ(automatic.mumps_pivot_order_used, 7);
  ASSERT_EQ(automatic.termination_type, ceres::CONVERGENCE)
      << automatic.FullReport();
  EXPECT_NEAR(automatic.final_rho, qamd.final_rho, 1e-9);
}

// CrossCheck on a CeresProblemAdapter: a 70-pose graph (R^k), wc-newton
// against the reference at three preferences, from the plain-Ceres
// weighted-sum solution of each.
TEST(IpoptReferenceScale, CrossCheckOfAPoseGraphAdapterAgreesWithWcNewton) {
  auto graph = MakeGraph(70, /*angle_manifold=*/false);
  CeresProblemAdapter adapter(&graph->problem, graph->ObjectiveGroups(), {});
  ASSERT_TRUE(adapter.IsValid(nullptr));
  const Eigen::VectorXd f0 = Costs(&adapter, adapter.GetParameters());
  const Eigen::Vector2d w = GraphScale(f0);
  for (double l1 : {0.25, 0.5, 0.75}) {
    StartAtWeightedSum(l1, w, graph.get());
    CrossCheck::Options options;
    options.solver.strategy = StrategyType::WC_NEWTON;
    options.solver.reference_point = {0.0, 0.0};
    options.solver.objective_scale = {w[0], w[1]};
    options.solver.normalize_objectives = false;
    CrossCheck::Summary summary;
    Eigen::VectorXd z = adapter.GetParameters();
    Solve(options, &adapter, {l1, 1.0 - l1}, &z, &summary);
    SCOPED_TRACE("lambda_1 = " + std::to_string(l1));
    ASSERT_EQ(summary.solver.termination_type, ceres::CONVERGENCE)
        << summary.solver.message;
    ASSERT_EQ(summary.reference.termination_type, ceres::CONVERGENCE)
        << summary.reference.message;
    EXPECT_EQ(summary.reference.hessian_used, HessianType::GAUSS_NEWTON);
    EXPECT_TRUE(summary.reference.certified) << summary.reference.FullReport();
    const KktCertificate& c = summary.solver.kkt.BestCertificate(
        options.solver.stationarity_tolerance,
        options.solver.complementarity_tolerance,
        options.solver.feasibility_tolerance);
    EXPECT_TRUE(c.Certifies(options.solver.stationarity_tolerance,
                            options.solver.complementarity_tolerance,
                            options.solver.feasibility_tolerance));
    EXPECT_NEAR(summary.solver.final_rho,
                summary.reference.final_rho,
                1e-6 * std::abs(summary.reference.final_rho));
    EXPECT_TRUE(summary.agree) << summary.verdict;
    // z holds the solver's point.
    EXPECT_EQ(z, summary.solver.z);
  }
}

using ecmo_pipelines::HorizontalBoresight;
using ecmo_pipelines::Observation;

// A small attitude problem on Ceres' QuaternionManifold with an equality
// (examples/pipelines/rotation_front.cc): the reference poses ||q||^2 = 1
// itself and agrees with the strategy in the tangent space.
struct AttitudeProblem {
  double q[4] = {1.0, 0.0, 0.0, 0.0};
  ceres::Problem problem;
  std::vector<ceres::ResidualBlockId> a, b, level;
};

std::unique_ptr<AttitudeProblem> MakeAttitude(ceres::Manifold* manifold) {
  auto p = std::make_unique<AttitudeProblem>();
  const Eigen::Quaterniond qa =
      Eigen::AngleAxisd(0.6, Eigen::Vector3d::UnitZ()) *
      Eigen::AngleAxisd(-M_PI / 2 + 0.1, Eigen::Vector3d::UnitY());
  const Eigen::Quaterniond qb =
      qa * Eigen::AngleAxisd(0.26, Eigen::Vector3d(1, -2, 0.5).normalized());
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0.0, 1.0);
  for (int i = 0; i < 5; ++i) {
    const Eigen::Vector3d u =
        Eigen::Vector3d(noise(rng), noise(rng), noise(rng)).normalized();
    const Eigen::Quaterniond& truth = i < 3 ? qa : qb;
    (i < 3 ? p->a : p->b)
        .push_back(p->problem.AddResidualBlock(
            new ceres::AutoDiffCostFunction<Observation, 3, 4>(
                new Observation(u, truth * u)),
            nullptr,
            p->q));
  }
  // Start from A's attitude, tilted so that the equality is violated.
  const Eigen::Quaterniond start =
      qa * Eigen::AngleAxisd(0.05, Eigen::Vector3d::UnitX());
  p->q[0] = start.w();
  p->q[1] = start.x();
  p->q[2] = start.y();
  p->q[3] = start.z();
  p->problem.SetManifold(p->q, manifold);
  p->level.push_back(p->problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<HorizontalBoresight, 1, 4>(
          new HorizontalBoresight),
      nullptr,
      p->q));
  return p;
}

TEST(IpoptReferenceScale, QuaternionBlocksAreCrossCheckedWithANormEquality) {
  auto p = MakeAttitude(new ceres::QuaternionManifold());
  CeresProblemAdapter adapter(
      &p->problem, {{"a", p->a}, {"b", p->b}}, {{"level", p->level}});
  ASSERT_TRUE(adapter.IsValid(nullptr));
  for (double l1 : {0.3, 0.7}) {
    SCOPED_TRACE("lambda_1 = " + std::to_string(l1));
    CrossCheck::Options options;
    CrossCheck::Summary summary;
    Eigen::VectorXd z = adapter.GetParameters();
    Solve(options, &adapter, {l1, 1.0 - l1}, &z, &summary);
    ASSERT_EQ(summary.reference.termination_type, ceres::CONVERGENCE)
        << summary.reference.message;
    EXPECT_EQ(summary.reference.num_manifold_constraints, 1);
    ASSERT_EQ(summary.reference.manifold_multipliers.size(), 1);
    EXPECT_NEAR(summary.reference.z.norm(), 1.0, 1e-9);
    EXPECT_TRUE(summary.reference.certified) << summary.reference.FullReport();
    EXPECT_TRUE(summary.agree) << summary.FullReport();
    EXPECT_NEAR(summary.solver.final_rho,
                summary.reference.final_rho,
                1e-6 * std::abs(summary.reference.final_rho));
    // The equality's multiplier: at the solution the ambient gradient of
    // Ipopt's Lagrangian vanishes, so its component along q is carried by
    // the norm equality: 2 mu q = -(q^T g) q / |q|^2 with g the rest.
    const Eigen::VectorXd& q = summary.reference.z;
    Eigen::VectorXd f(2), h(1);
    Eigen::MatrixXd grad(4, 2);
    std::string error;
    ASSERT_TRUE(
        adapter.Evaluate(q.data(), f.data(), h.data(), grad.data(), &error));
    Eigen::VectorXd g = Eigen::VectorXd::Zero(4);
    const std::vector<double>& lambda = summary.reference.preference;
    const Eigen::VectorXd& w = summary.solver.scalarization.objective_scale;
    for (int s = 0; s < 2; ++s) {
      g += summary.reference.omega[s] * lambda[s] / w[s] * grad.col(s);
    }
    Eigen::VectorXd jt(4);
    adapter.JacobianTransposeMultiply(summary.reference.nu.data(), jt.data());
    g += jt;
    EXPECT_NEAR(2.0 * summary.reference.manifold_multipliers[0],
                -q.dot(g),
                1e-6 * (1.0 + g.norm()));
  }
}

TEST(IpoptReferenceScale, EigenQuaternionAndSphereManifoldsAreAccepted) {
  for (int kind = 0; kind < 2; ++kind) {
    ceres::Manifold* manifold = kind == 0
                                    ? static_cast<ceres::Manifold*>(
                                          new ceres::EigenQuaternionManifold())
                                    : new ceres::SphereManifold<4>();
    auto p = MakeAttitude(manifold);
    CeresProblemAdapter adapter(&p->problem, {{"a", p->a}, {"b", p->b}}, {});
    IpoptReference::Options options;
    IpoptReference::Summary summary;
    Eigen::VectorXd z = adapter.GetParameters();
    Solve(options, &adapter, {0.5, 0.5}, &z, &summary);
    EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE)
        << kind << ": " << summary.message;
    EXPECT_EQ(summary.num_manifold_constraints, 1);
    EXPECT_NEAR(z.norm(), 1.0, 1e-9);
  }
}

// ---- Bad input (tests/README.md) ----

TEST(IpoptReferenceScale, UnsupportedManifoldNamesTheBlockAndTheWaysOut) {
  auto graph = MakeGraph(10, /*angle_manifold=*/true);
  CeresProblemAdapter::Options adapter_options;
  adapter_options.parameter_block_names[graph->heading(1)] = "heading_1";
  CeresProblemAdapter adapter(
      &graph->problem, graph->ObjectiveGroups(), {}, adapter_options);
  ASSERT_TRUE(adapter.IsValid(nullptr));
  IpoptReference::Summary summary;
  Eigen::VectorXd z = adapter.GetParameters();
  const Eigen::VectorXd z0 = z;
  Solve(IpoptReference::Options(), &adapter, {0.5, 0.5}, &z, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("cannot pose the manifold of parameter "
                                 "block 'heading_1'"),
            std::string::npos)
      << summary.message;
  EXPECT_NE(summary.message.find("without a manifold"), std::string::npos)
      << summary.message;
  EXPECT_NE(summary.message.find("constraint group"), std::string::npos)
      << summary.message;
  EXPECT_EQ(z, z0);

  // CrossCheck reports the disagreement with the reference's reason.
  CrossCheck::Summary check;
  Solve(CrossCheck::Options(), &adapter, {0.5, 0.5}, &z, &check);
  EXPECT_FALSE(check.agree);
  EXPECT_NE(check.verdict.find("heading_1"), std::string::npos)
      << check.verdict;
}

TEST(IpoptReferenceScale, OptionsFileWithAnUnknownOptionIsAFailure) {
  const std::string path =
      ::testing::TempDir() + "ecmo_ipopt_reference_scale_test.opt";
  {
    std::ofstream file(path);
    file << "no_such_ipopt_option 3\n";
  }
  auto graph = MakeGraph(8, false);
  CeresProblemAdapter adapter(&graph->problem, graph->ObjectiveGroups(), {});
  IpoptReference::Options options;
  options.options_file = path;
  IpoptReference::Summary summary;
  Eigen::VectorXd z = adapter.GetParameters();
  Solve(options, &adapter, {0.5, 0.5}, &z, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find(path), std::string::npos) << summary.message;
  EXPECT_NE(summary.message.find("no_such_ipopt_option"), std::string::npos)
      << summary.message;

  // A valid file is read and overrides the options set in code.
  {
    std::ofstream file(path);
    file << "max_iter 1\n";
  }
  Solve(options, &adapter, {0.5, 0.5}, &z, &summary);
  EXPECT_EQ(summary.iterations, 1) << summary.message;
  EXPECT_NE(summary.message.find("Maximum_Iterations_Exceeded"),
            std::string::npos)
      << summary.message;
  std::remove(path.c_str());

  // A file that does not exist.
  options.options_file = path + ".missing";
  Solve(options, &adapter, {0.5, 0.5}, &z, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("cannot be read"), std::string::npos)
      << summary.message;
}

TEST(IpoptReferenceScale, LinearSolverIpoptLacksIsAFailureSayingSo) {
  auto graph = MakeGraph(8, false);
  CeresProblemAdapter adapter(&graph->problem, graph->ObjectiveGroups(), {});
  IpoptReference::Options options;
  options.linear_solver = "ma57";
  IpoptReference::Summary summary;
  Eigen::VectorXd z = adapter.GetParameters();
  const Eigen::VectorXd z0 = z;
  Solve(options, &adapter, {0.5, 0.5}, &z, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("ma57"), std::string::npos) << summary.message;
  EXPECT_NE(summary.message.find("mumps"), std::string::npos)
      << summary.message;
  EXPECT_EQ(z, z0);
}

TEST(IpoptReferenceScale, MumpsOptionsAreValidatedAndPassed) {
  IpoptReference::Options options;
  options.mumps_pivot_order = 9;
  std::string error;
  EXPECT_FALSE(options.IsValid(&error));
  EXPECT_NE(error.find("mumps_pivot_order"), std::string::npos) << error;
  options.mumps_pivot_order = 0;  // AMD
  options.mumps_mem_percent = 2000;
  EXPECT_TRUE(options.IsValid(&error)) << error;
  auto graph = MakeGraph(20, false);
  CeresProblemAdapter adapter(&graph->problem, graph->ObjectiveGroups(), {});
  IpoptReference::Summary summary;
  Eigen::VectorXd z = adapter.GetParameters();
  Solve(options, &adapter, {0.5, 0.5}, &z, &summary);
  EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_EQ(summary.mumps_pivot_order_used, 0);  // as given, whatever Hessian
}

}  // namespace
}  // namespace ecmo
