// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Tests of ecmo::CeresProblemAdapter
// (adapters/include/ecmo/ceres_problem_adapter.h) and of the manifold support
// it relies on (ecmo/manifold.h, Problem::SetManifold, tangent-space KKT
// residuals).

#include "ecmo/ceres_problem_adapter.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/Geometry"
#include "ceres/autodiff_cost_function.h"
#include "ceres/loss_function.h"
#include "ceres/manifold.h"
#include "ceres/problem.h"
#include "ceres/rotation.h"
#include "ceres/sphere_manifold.h"
#include "ecmo/cross_check.h"
#include "ecmo/ipopt_reference.h"
#include "ecmo/manifold.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

using Adapter = CeresProblemAdapter;

// r = x - p (size N).
template <int N>
struct Offset {
  explicit Offset(const double* p) { std::copy(p, p + N, p_); }
  template <typename T>
  bool operator()(const T* x, T* r) const {
    for (int i = 0; i < N; ++i) r[i] = x[i] - p_[i];
    return true;
  }
  double p_[N];
};

// A residual that reads three blocks: x (2), y (3) and c (1).
struct Mixed {
  explicit Mixed(double t) : t(t) {}
  template <typename T>
  bool operator()(const T* x, const T* y, const T* c, T* r) const {
    r[0] = x[0] * y[0] + t * x[1] - c[0];
    r[1] = y[1] * y[2] - t * x[0] + c[0] * y[0];
    return true;
  }
  double t;
};

// h = |x|^2 - 4 (1 residual).
struct OnCircle {
  template <typename T>
  bool operator()(const T* x, T* h) const {
    h[0] = x[0] * x[0] + x[1] * x[1] - T(4.0);
    return true;
  }
};

// ||K||^2 <= tolerance bounds the distance to the KKT point by about
// sqrt(tolerance) times a condition number: 1e-16 for 1e-6 comparisons.
Solver::Options QuasiNewtonOptions(StrategyType strategy,
                                   double kkt_tolerance = 1e-16) {
  Solver::Options options;
  options.strategy = strategy;
  options.kkt_tolerance = kkt_tolerance;
  options.max_iterations = 20000;
  // The paper's form (r = 0), whose WC points the analytic answers give.
  options.objective_offset = {0.0, 0.0};
  options.record_history = false;
  return options;
}

// ---------------------------------------------------------------- values --

class AdapterValuesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const double ts[] = {0.5, -1.0, 2.0};
    for (double t : ts) {
      group_a_.push_back(problem_.AddResidualBlock(
          new ceres::AutoDiffCostFunction<Mixed, 2, 2, 3, 1>(new Mixed(t)),
          new ceres::CauchyLoss(0.7),
          x_,
          y_,
          c_));
    }
    const double p[] = {1.0, -2.0};
    group_b_.push_back(problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Offset<2>, 2, 2>(new Offset<2>(p)),
        nullptr,
        x_));
    group_b_.push_back(problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Mixed, 2, 2, 3, 1>(new Mixed(3.0)),
        nullptr,
        x_,
        y_,
        c_));
    // A constraint with a loss function: the loss must NOT be applied.
    constraint_.push_back(problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Mixed, 2, 2, 3, 1>(new Mixed(-0.3)),
        new ceres::HuberLoss(0.1),
        x_,
        y_,
        c_));
    constraint_.push_back(problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<OnCircle, 1, 2>(new OnCircle),
        nullptr,
        x_));
    problem_.SetParameterBlockConstant(c_);
  }

  // Ceres' own numbers for one group at the user's current values.
  void CeresEvaluate(const std::vector<ceres::ResidualBlockId>& blocks,
                     bool apply_loss,
                     double* cost,
                     std::vector<double>* residuals,
                     std::vector<double>* gradient,
                     ceres::CRSMatrix* jacobian) {
    ceres::Problem::EvaluateOptions options;
    options.residual_blocks = blocks;
    options.parameter_blocks = {x_, y_};
    options.apply_loss_function = apply_loss;
    ASSERT_TRUE(
        problem_.Evaluate(options, cost, residuals, gradient, jacobian));
  }

  void CheckAgainstCeres(Adapter::EvaluationPath path) {
    Adapter::Options options;
    options.evaluation_path = path;
    Adapter adapter(&problem_,
                    {{"a", group_a_}, {"b", group_b_}},
                    {{"h", constraint_}},
                    options);
    std::string error;
    ASSERT_TRUE(adapter.IsValid(&error)) << error;
    // c is constant: z = (x, y).
    ASSERT_EQ(adapter.NumParameters(), 5);
    ASSERT_EQ(adapter.NumObjectives(), 2);
    ASSERT_EQ(adapter.NumConstraints(), 3);
    EXPECT_EQ(adapter.ParameterBlockOffset(x_), 0);
    EXPECT_EQ(adapter.ParameterBlockOffset(y_), 2);
    EXPECT_EQ(adapter.ParameterBlockOffset(c_), -1);
    EXPECT_EQ(adapter.manifold(), nullptr);

    // Evaluate at a point different from the user's values.
    Eigen::VectorXd z = adapter.GetParameters();
    z += Eigen::VectorXd::LinSpaced(5, 0.1, 0.5);
    Eigen::VectorXd f(2), h(3);
    Eigen::MatrixXd grad(5, 2);
    ASSERT_TRUE(
        adapter.Evaluate(z.data(), f.data(), h.data(), grad.data(), &error))
        << error;

    adapter.SetParameters(z.data());  // Ceres evaluates the user's memory
    for (int s = 0; s < 2; ++s) {
      double cost;
      std::vector<double> gradient;
      CeresEvaluate(s == 0 ? group_a_ : group_b_,
                    true,
                    &cost,
                    nullptr,
                    &gradient,
                    nullptr);
      EXPECT_NEAR(f[s], cost, 1e-12 * (1.0 + std::abs(cost))) << "s " << s;
      for (int i = 0; i < 5; ++i) {
        EXPECT_NEAR(grad(i, s), gradient[i], 1e-11 * (1.0 + std::abs(cost)))
            << "s " << s << " i " << i;
      }
    }
    // The loss makes a difference for group a (so the test means something).
    double no_loss_cost;
    CeresEvaluate(group_a_, false, &no_loss_cost, nullptr, nullptr, nullptr);
    EXPECT_GT(std::abs(no_loss_cost - f[0]), 1e-3);

    std::vector<double> residuals;
    ceres::CRSMatrix jacobian;
    double cost;
    CeresEvaluate(constraint_, false, &cost, &residuals, nullptr, &jacobian);
    ASSERT_EQ(residuals.size(), 3u);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(h[i], residuals[i], 1e-13);
    Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(3, 5);
    for (int r = 0; r < jacobian.num_rows; ++r) {
      for (int i = jacobian.rows[r]; i < jacobian.rows[r + 1]; ++i) {
        dense(r, jacobian.cols[i]) = jacobian.values[i];
      }
    }
    const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(3, -1.0, 2.0);
    const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(5, 0.3, -0.7);
    Eigen::VectorXd jt_v(5), j_x(3);
    adapter.JacobianTransposeMultiply(v.data(), jt_v.data());
    adapter.JacobianMultiply(x.data(), j_x.data());
    EXPECT_LT((jt_v - dense.transpose() * v).norm(), 1e-12);
    EXPECT_LT((j_x - dense * x).norm(), 1e-12);
  }

  ceres::Problem problem_;
  double x_[2] = {0.4, -0.6};
  double y_[3] = {1.1, 0.2, -0.5};
  double c_[1] = {0.8};
  std::vector<ceres::ResidualBlockId> group_a_, group_b_, constraint_;
};

TEST_F(AdapterValuesTest, DirectPathEqualsProblemEvaluate) {
  CheckAgainstCeres(Adapter::EvaluationPath::kDirect);
}

TEST_F(AdapterValuesTest, ProblemEvaluatePathEqualsProblemEvaluate) {
  CheckAgainstCeres(Adapter::EvaluationPath::kProblemEvaluate);
}

TEST_F(AdapterValuesTest, DirectPathLeavesUserBlocksAlone) {
  Adapter adapter(&problem_, {{"a", group_a_}}, {});
  ASSERT_TRUE(adapter.IsValid(nullptr));
  const double x0 = x_[0];
  Eigen::VectorXd z = Eigen::VectorXd::Constant(5, 0.25);
  Eigen::VectorXd f(1);
  ASSERT_TRUE(adapter.Evaluate(z.data(), f.data(), nullptr, nullptr, nullptr));
  EXPECT_EQ(x_[0], x0);
}

TEST_F(AdapterValuesTest, BoundsAreCarriedOver) {
  problem_.SetParameterUpperBound(y_, 2, 5.0);
  problem_.SetParameterLowerBound(y_, 0, -2.0);
  Adapter adapter(&problem_, {{"a", group_a_}, {"b", group_b_}}, {});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  ASSERT_TRUE(adapter.HasBounds());
  const int oy = adapter.ParameterBlockOffset(y_);
  ASSERT_GE(oy, 0);
  const double inf = std::numeric_limits<double>::infinity();
  for (int i = 0; i < adapter.NumParameters(); ++i) {
    const double lower = i == oy ? -2.0 : -inf;
    const double upper = i == oy + 2 ? 5.0 : inf;
    EXPECT_EQ(adapter.lower_bounds()[i], lower) << i;
    EXPECT_EQ(adapter.upper_bounds()[i], upper) << i;
  }
}

TEST_F(AdapterValuesTest, BoundsOnAManifoldBlockAreRejectedNamingTheBlock) {
  problem_.SetParameterUpperBound(y_, 2, 5.0);
  problem_.SetManifold(y_, new ceres::SphereManifold<3>());
  Adapter::Options options;
  options.parameter_block_names[y_] = "camera_y";
  Adapter adapter(&problem_, {{"a", group_a_}, {"b", group_b_}}, {}, options);
  std::string error;
  EXPECT_FALSE(adapter.IsValid(&error));
  EXPECT_NE(error.find("'camera_y'"), std::string::npos) << error;
  EXPECT_NE(error.find("manifold"), std::string::npos) << error;
  EXPECT_NE(error.find("coordinate 2"), std::string::npos) << error;
  EXPECT_EQ(adapter.NumParameters(), 0);
  EXPECT_FALSE(adapter.HasBounds());

  // Unnamed blocks are described by their first use.
  Adapter unnamed(&problem_, {{"a", group_a_}}, {});
  EXPECT_FALSE(unnamed.IsValid(&error));
  EXPECT_NE(error.find("of residual block 0 of objective group 'a'"),
            std::string::npos)
      << error;

  Solver::Summary summary;
  Solve(QuasiNewtonOptions(StrategyType::WC_AUGMENTED_LAGRANGIAN),
        &adapter,
        {0.5, 0.5},
        &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("'camera_y'"), std::string::npos)
      << summary.message;
}

TEST_F(AdapterValuesTest, BoundsOnConstantBlocksAreFine) {
  problem_.SetParameterLowerBound(c_, 0, -1.0);
  Adapter adapter(&problem_, {{"a", group_a_}}, {});
  std::string error;
  EXPECT_TRUE(adapter.IsValid(&error)) << error;
}

TEST_F(AdapterValuesTest, InvalidGroupsAreRejected) {
  std::string error;
  {
    Adapter adapter(nullptr, {{"a", group_a_}}, {});
    EXPECT_FALSE(adapter.IsValid(&error));
    EXPECT_NE(error.find("null"), std::string::npos) << error;
  }
  {
    Adapter adapter(&problem_, {}, {{"h", constraint_}});
    EXPECT_FALSE(adapter.IsValid(&error));
    EXPECT_NE(error.find("no objective groups"), std::string::npos) << error;
  }
  {
    Adapter adapter(&problem_, {{"a", {}}}, {});
    EXPECT_FALSE(adapter.IsValid(&error));
    EXPECT_NE(error.find("'a' has no residual blocks"), std::string::npos)
        << error;
  }
  {
    Adapter adapter(&problem_, {{"a", {group_a_[0], group_a_[0]}}}, {});
    EXPECT_FALSE(adapter.IsValid(&error));
    EXPECT_NE(error.find("appears twice"), std::string::npos) << error;
  }
  {
    ceres::Problem other;
    double w[2] = {0.0, 0.0};
    const double p[] = {1.0, 1.0};
    ceres::ResidualBlockId foreign = other.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Offset<2>, 2, 2>(new Offset<2>(p)),
        nullptr,
        w);
    Adapter adapter(&problem_, {{"a", group_a_}}, {{"h", {foreign}}});
    EXPECT_FALSE(adapter.IsValid(&error));
    EXPECT_NE(error.find("constraint group 'h': residual block 0"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("not in the ceres::Problem"), std::string::npos);
  }
}

// --------------------------------------------------------------- manifold --

TEST(DynamicProductManifoldTest, MatchesDenseJacobians) {
  ceres::QuaternionManifold quaternion;
  ceres::SphereManifold<3> sphere;
  DynamicProductManifold m(
      {{2, nullptr}, {4, &quaternion}, {1, nullptr}, {3, &sphere}});
  ASSERT_TRUE(m.IsValid(nullptr));
  ASSERT_EQ(m.AmbientSize(), 10);
  ASSERT_EQ(m.TangentSize(), 8);
  Eigen::VectorXd x(10);
  x << 0.3, -1.0, 0.5, 0.5, 0.5, 0.5, 2.0, 0.0, 0.6, 0.8;
  Eigen::Matrix<double, 10, 8, Eigen::RowMajor> J;
  ASSERT_TRUE(m.PlusJacobian(x.data(), J.data()));
  const Eigen::VectorXd t = Eigen::VectorXd::LinSpaced(8, -0.4, 0.9);
  Eigen::VectorXd a(10);
  ASSERT_TRUE(m.PlusJacobianMultiply(x.data(), t.data(), a.data()));
  EXPECT_LT((a - J * t).norm(), 1e-14);
  Eigen::Matrix<double, 2, 10, Eigen::RowMajor> A;
  A.setRandom();
  Eigen::Matrix<double, 2, 8, Eigen::RowMajor> AJ;
  ASSERT_TRUE(m.RightMultiplyByPlusJacobian(x.data(), 2, A.data(), AJ.data()));
  EXPECT_LT((AJ - A * J).norm(), 1e-14);
  // Plus(x, Minus(y, x)) = y for y on the manifold.
  Eigen::VectorXd y(10), d(8), back(10);
  ASSERT_TRUE(m.Plus(x.data(), t.data(), y.data()));
  ASSERT_TRUE(m.Minus(y.data(), x.data(), d.data()));
  ASSERT_TRUE(m.Plus(x.data(), d.data(), back.data()));
  EXPECT_LT((back - y).norm(), 1e-12);

  DynamicProductManifold bad({{3, &quaternion}});
  std::string error;
  EXPECT_FALSE(bad.IsValid(&error));
  EXPECT_NE(error.find("AmbientSize() = 4"), std::string::npos) << error;
}

// Two conflicting linear objectives over the unit sphere S^2:
// f_s(x) = 1/2 |x - p_s|^2 = 1 - p_s . x for unit p_s and |x| = 1. With
// p_1 = e_1, p_2 = e_2 the Pareto set is the arc x = (cos t, sin t, 0),
// t in [0, pi/2], and the WC point for lambda solves
// lambda_1 (1 - cos t) = lambda_2 (1 - sin t).
double SphereParetoAngle(double l1, double l2) {
  double lo = 0.0, hi = M_PI / 2;
  for (int i = 0; i < 200; ++i) {
    const double t = 0.5 * (lo + hi);
    (l1 * (1 - std::cos(t)) < l2 * (1 - std::sin(t)) ? lo : hi) = t;
  }
  return 0.5 * (lo + hi);
}

class SphereTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ResetStart();  // Ceres evaluates the manifold at x_ in SetManifold
    const double e1[] = {1.0, 0.0, 0.0};
    const double e2[] = {0.0, 1.0, 0.0};
    a_ = problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Offset<3>, 3, 3>(new Offset<3>(e1)),
        nullptr,
        x_);
    b_ = problem_.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Offset<3>, 3, 3>(new Offset<3>(e2)),
        nullptr,
        x_);
    problem_.SetManifold(x_, new ceres::SphereManifold<3>());
  }
  void ResetStart() {
    const double n = std::sqrt(0.2 * 0.2 + 0.3 * 0.3 + 0.9 * 0.9);
    x_[0] = 0.2 / n;
    x_[1] = -0.3 / n;
    x_[2] = 0.9 / n;
  }

  ceres::Problem problem_;
  double x_[3] = {0.0, 0.0, 1.0};
  ceres::ResidualBlockId a_, b_;
};

TEST_F(SphereTest, ConvergesToTheAnalyticParetoPointOnTheManifold) {
  Adapter adapter(&problem_, {{"to_e1", {a_}}, {"to_e2", {b_}}}, {});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  ASSERT_NE(adapter.manifold(), nullptr);
  EXPECT_EQ(adapter.NumTangentParameters(), 2);
  // The pure penalty cannot reach ||K||^2 ~ 1e-16 (see solver.h), so it
  // runs at the default tolerance 1e-12 and is held to sqrt(1e-12) * 10.
  for (StrategyType strategy : {StrategyType::WC_AUGMENTED_LAGRANGIAN,
                                StrategyType::WC_PENALTY_LBFGS}) {
    const bool penalty = strategy == StrategyType::WC_PENALTY_LBFGS;
    const double tolerance = penalty ? 1e-5 : 1e-6;
    for (double l1 : {0.5, 0.3, 0.85}) {
      ResetStart();
      Solver::Summary summary;
      Solver::Options options =
          QuasiNewtonOptions(strategy, penalty ? 0.0 : 1e-16);
      Solve(options, &adapter, {l1, 1.0 - l1}, &summary);
      ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
          << StrategyTypeToString(strategy) << " " << summary.FullReport();
      const double t = SphereParetoAngle(l1, 1.0 - l1);
      EXPECT_NEAR(x_[0], std::cos(t), tolerance) << l1;
      EXPECT_NEAR(x_[1], std::sin(t), tolerance) << l1;
      EXPECT_NEAR(x_[2], 0.0, tolerance) << l1;
      // On the manifold throughout (Plus keeps the norm).
      EXPECT_NEAR(x_[0] * x_[0] + x_[1] * x_[1] + x_[2] * x_[2], 1.0, 1e-12);
      // The KKT residual lives in the 2-dimensional tangent space.
      EXPECT_EQ(summary.kkt.with_least_squares_multipliers.stationarity.size(),
                2);
      EXPECT_LE(summary.kkt.with_least_squares_multipliers.SquaredNorm(),
                1e-10);
    }
  }
}

TEST_F(SphereTest, StrategiesThatCannotStayOnTheManifoldRefuse) {
  Adapter adapter(&problem_, {{"to_e1", {a_}}, {"to_e2", {b_}}}, {});
  ASSERT_TRUE(adapter.IsValid(nullptr));
  ResetStart();
  const double x0 = x_[0];
  Solver::Options options;
  options.strategy = StrategyType::WC_PENALTY_PGD;
  options.max_iterations = 100;
  Solver::Summary summary;
  Solve(options, &adapter, {0.5, 0.5}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("WC_PENALTY_PGD cannot optimize on a "
                                 "manifold"),
            std::string::npos)
      << summary.message;
  EXPECT_EQ(x_[0], x0);  // start restored
}

// The Ipopt reference works in R^k: for a SphereManifold block it poses
// ||x||^2 = ||x0||^2 itself (issue 19) and agrees with a strategy that
// stays on the manifold.
TEST_F(SphereTest, IpoptReferencePosesTheSphereAsANormEquality) {
  Adapter adapter(&problem_, {{"to_e1", {a_}}, {"to_e2", {b_}}}, {});
  ASSERT_TRUE(adapter.IsValid(nullptr));
  for (double l1 : {0.5, 0.3}) {
    ResetStart();
    CrossCheck::Options options;
    options.solver =
        QuasiNewtonOptions(StrategyType::WC_AUGMENTED_LAGRANGIAN, 1e-16);
    CrossCheck::Summary summary;
    Eigen::VectorXd z = adapter.GetParameters();
    Solve(options, &adapter, {l1, 1.0 - l1}, &z, &summary);
    ASSERT_EQ(summary.reference.termination_type, ceres::CONVERGENCE)
        << summary.reference.message;
    EXPECT_EQ(summary.reference.num_manifold_constraints, 1);
    EXPECT_NEAR(summary.reference.z.squaredNorm(), 1.0, 1e-10);
    EXPECT_TRUE(summary.agree) << summary.FullReport();
    const double t = SphereParetoAngle(l1, 1.0 - l1);
    EXPECT_NEAR(summary.reference.z[0], std::cos(t), 1e-6) << l1;
    EXPECT_NEAR(summary.reference.z[1], std::sin(t), 1e-6) << l1;
  }
}

TEST_F(SphereTest, ProblemEvaluatePathRefusesManifolds) {
  Adapter::Options options;
  options.evaluation_path = Adapter::EvaluationPath::kProblemEvaluate;
  Adapter adapter(&problem_, {{"to_e1", {a_}}, {"to_e2", {b_}}}, {}, options);
  std::string error;
  EXPECT_FALSE(adapter.IsValid(&error));
  EXPECT_NE(error.find("use EvaluationPath::kDirect"), std::string::npos)
      << error;
}

// The same sphere problem through ecmo::Problem::SetManifold.
struct HalfSquaredDistance {
  explicit HalfSquaredDistance(const double* p) { std::copy(p, p + 3, p_); }
  template <typename T>
  bool operator()(const T* x, T* f) const {
    f[0] = T(0.0);
    for (int i = 0; i < 3; ++i)
      f[0] += T(0.5) * (x[i] - p_[i]) * (x[i] - p_[i]);
    return true;
  }
  double p_[3];
};

TEST(ProblemManifoldTest, SetManifoldOnEcmoProblem) {
  double x[3] = {0.2, -0.3, 0.9};
  const double n = std::sqrt(0.94);
  for (double& v : x) v /= n;
  const double e1[] = {1.0, 0.0, 0.0};
  const double e2[] = {0.0, 1.0, 0.0};
  Problem problem;
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<HalfSquaredDistance, 1, 3>(
          new HalfSquaredDistance(e1)),
      {x});
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<HalfSquaredDistance, 1, 3>(
          new HalfSquaredDistance(e2)),
      {x});
  double unknown[3];
  EXPECT_FALSE(problem.SetManifold(unknown, new ceres::SphereManifold<3>()));
  std::string error;
  EXPECT_FALSE(problem.IsValid(&error));
  EXPECT_NE(error.find("not in the problem"), std::string::npos) << error;

  Problem good;
  good.AddObjective(new ceres::AutoDiffCostFunction<HalfSquaredDistance, 1, 3>(
                        new HalfSquaredDistance(e1)),
                    {x});
  good.AddObjective(new ceres::AutoDiffCostFunction<HalfSquaredDistance, 1, 3>(
                        new HalfSquaredDistance(e2)),
                    {x});
  EXPECT_FALSE(good.HasManifolds());
  ASSERT_TRUE(good.SetManifold(x, new ceres::SphereManifold<3>()));
  EXPECT_TRUE(good.HasManifolds());
  EXPECT_NE(good.GetManifold(x), nullptr);
  Solver::Summary summary;
  Solve(QuasiNewtonOptions(StrategyType::WC_AUGMENTED_LAGRANGIAN),
        good,
        {0.3, 0.7},
        &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
      << summary.FullReport();
  const double t = SphereParetoAngle(0.3, 0.7);
  EXPECT_NEAR(x[0], std::cos(t), 1e-6);
  EXPECT_NEAR(x[1], std::sin(t), 1e-6);
  EXPECT_NEAR(x[2], 0.0, 1e-6);

  Solver::Options pgd;
  pgd.strategy = StrategyType::WC_PENALTY_PGD;
  pgd.max_iterations = 10;
  Solve(pgd, good, {0.3, 0.7}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("manifold"), std::string::npos);
}

// Rotation fit: f_s(R) = 1/2 sum_i |R e_i - R_s e_i|^2 = 2 (1 - cos theta_s),
// theta_s = angle(R, R_s). The Pareto set is the geodesic from R_A to R_B,
// and the WC point for lambda is the rotation at angle t from R_A with
// lambda_A (1 - cos t) = lambda_B (1 - cos(D - t)), D = angle(R_A, R_B).
struct RotatedAxes {
  explicit RotatedAxes(const Eigen::Quaterniond& target) {
    const Eigen::Matrix3d R = target.toRotationMatrix();
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) v_[3 * i + j] = R(j, i);  // R e_i
    }
  }
  template <typename T>
  bool operator()(const T* q, T* r) const {
    for (int i = 0; i < 3; ++i) {
      T e[3] = {T(i == 0), T(i == 1), T(i == 2)};
      T out[3];
      ceres::QuaternionRotatePoint(q, e, out);  // normalizes q
      for (int j = 0; j < 3; ++j) r[3 * i + j] = out[j] - v_[3 * i + j];
    }
    return true;
  }
  double v_[9];
};

TEST(QuaternionTest, ConvergesToTheGeodesicParetoPoint) {
  const Eigen::Quaterniond qa(
      Eigen::AngleAxisd(0.7, Eigen::Vector3d(0.0, 0.0, 1.0)));
  const Eigen::Quaterniond qb(
      Eigen::AngleAxisd(-0.9, Eigen::Vector3d(1.0, 1.0, 0.0).normalized()));
  ceres::Problem problem;
  double q[4] = {1.0, 0.0, 0.0, 0.0};  // Ceres order: w, x, y, z
  auto* a = problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<RotatedAxes, 9, 4>(new RotatedAxes(qa)),
      nullptr,
      q);
  auto* b = problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<RotatedAxes, 9, 4>(new RotatedAxes(qb)),
      nullptr,
      q);
  problem.SetManifold(q, new ceres::QuaternionManifold());
  Adapter adapter(&problem, {{"A", {a}}, {"B", {b}}}, {});
  std::string error;
  ASSERT_TRUE(adapter.IsValid(&error)) << error;
  EXPECT_EQ(adapter.NumTangentParameters(), 3);

  const double D = qa.angularDistance(qb);
  for (double la : {0.5, 0.25, 0.7}) {
    const Eigen::Quaterniond start(
        Eigen::AngleAxisd(2.0, Eigen::Vector3d(0.2, -1.0, 0.4).normalized()));
    q[0] = start.w();
    q[1] = start.x();
    q[2] = start.y();
    q[3] = start.z();
    Solver::Summary summary;
    Solve(QuasiNewtonOptions(StrategyType::WC_AUGMENTED_LAGRANGIAN),
          &adapter,
          {la, 1.0 - la},
          &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
        << summary.FullReport();
    double lo = 0.0, hi = D;
    for (int i = 0; i < 200; ++i) {
      const double t = 0.5 * (lo + hi);
      (la * (1 - std::cos(t)) < (1 - la) * (1 - std::cos(D - t)) ? lo : hi) = t;
    }
    const Eigen::Quaterniond expected = qa.slerp(0.5 * (lo + hi) / D, qb);
    const Eigen::Quaterniond got(q[0], q[1], q[2], q[3]);
    EXPECT_NEAR(got.norm(), 1.0, 1e-12);
    EXPECT_LT(got.angularDistance(expected), 1e-6) << la;
    EXPECT_LE(summary.kkt.with_least_squares_multipliers.SquaredNorm(), 1e-10);
  }
}

// ------------------------------------------------------- front equivalence --

// The same problem twice: through the adapter (residual blocks with a
// CauchyLoss on one data set) and written directly with ecmo::Problem
// (objectives computing Ceres' cost 1/2 sum rho(|r|^2) themselves).
const double kSetA[4][2] = {{2.0, 0.5}, {2.4, 0.1}, {1.8, 0.9}, {2.2, 0.4}};
const double kSetB[4][2] = {{-0.3, 2.1}, {0.2, 1.9}, {-0.1, 2.5}, {0.4, 2.2}};
constexpr double kCauchyScale = 0.8;

template <bool kCauchy>
struct DataCost {
  explicit DataCost(const double (*points)[2]) : points(points) {}
  template <typename T>
  bool operator()(const T* x, T* f) const {
    f[0] = T(0.0);
    for (int i = 0; i < 4; ++i) {
      const T dx = x[0] - points[i][0];
      const T dy = x[1] - points[i][1];
      const T s = dx * dx + dy * dy;
      if (kCauchy) {
        // Ceres' CauchyLoss(a): rho(s) = a^2 log(1 + s / a^2).
        const double b = kCauchyScale * kCauchyScale;
        f[0] += T(0.5 * b) * log(T(1.0) + s / T(b));
      } else {
        f[0] += T(0.5) * s;
      }
    }
    return true;
  }
  const double (*points)[2];
};

void TraceFrontsAndCompare(Adapter::EvaluationPath path) {
  const auto preferences = EvenlySpaced2(7);
  Solver::Options options =
      QuasiNewtonOptions(StrategyType::WC_AUGMENTED_LAGRANGIAN);

  double x_adapter[2] = {1.0, 1.0};
  ceres::Problem ceres_problem;
  std::vector<ceres::ResidualBlockId> a, b, h;
  for (int i = 0; i < 4; ++i) {
    a.push_back(ceres_problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Offset<2>, 2, 2>(
            new Offset<2>(kSetA[i])),
        new ceres::CauchyLoss(kCauchyScale),
        x_adapter));
    b.push_back(ceres_problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Offset<2>, 2, 2>(
            new Offset<2>(kSetB[i])),
        nullptr,
        x_adapter));
  }
  h.push_back(ceres_problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<OnCircle, 1, 2>(new OnCircle),
      nullptr,
      x_adapter));
  Adapter::Options adapter_options;
  adapter_options.evaluation_path = path;
  Adapter adapter(
      &ceres_problem, {{"a", a}, {"b", b}}, {{"circle", h}}, adapter_options);
  ASSERT_TRUE(adapter.IsValid(nullptr));

  double x_direct[2] = {1.0, 1.0};
  Problem direct;
  direct.AddObjective(new ceres::AutoDiffCostFunction<DataCost<true>, 1, 2>(
                          new DataCost<true>(kSetA)),
                      {x_direct});
  direct.AddObjective(new ceres::AutoDiffCostFunction<DataCost<false>, 1, 2>(
                          new DataCost<false>(kSetB)),
                      {x_direct});
  direct.AddConstraint(
      new ceres::AutoDiffCostFunction<OnCircle, 1, 2>(new OnCircle),
      {x_direct});

  for (const auto& weights : preferences) {
    const std::vector<double> lambda = ToOpenSimplex(weights);
    x_adapter[0] = x_direct[0] = 1.0;
    x_adapter[1] = x_direct[1] = 1.0;
    Solver::Summary via_adapter, via_problem;
    Solve(options, &adapter, lambda, &via_adapter);
    Solve(options, direct, lambda, &via_problem);
    ASSERT_EQ(via_adapter.termination_type, ceres::CONVERGENCE)
        << via_adapter.FullReport();
    ASSERT_EQ(via_problem.termination_type, ceres::CONVERGENCE)
        << via_problem.FullReport();
    for (int s = 0; s < 2; ++s) {
      EXPECT_NEAR(via_adapter.objectives[s], via_problem.objectives[s], 1e-6)
          << "lambda_1 = " << lambda[0];
    }
    EXPECT_NEAR(x_adapter[0], x_direct[0], 1e-6);
    EXPECT_NEAR(x_adapter[1], x_direct[1], 1e-6);
    EXPECT_NEAR(
        x_adapter[0] * x_adapter[0] + x_adapter[1] * x_adapter[1], 4.0, 1e-6);
  }
}

TEST(FrontTest, AdapterFrontEqualsDirectProblemFront) {
  TraceFrontsAndCompare(Adapter::EvaluationPath::kDirect);
}

TEST(FrontTest, ProblemEvaluatePathFrontEqualsDirectProblemFront) {
  TraceFrontsAndCompare(Adapter::EvaluationPath::kProblemEvaluate);
}

}  // namespace
}  // namespace ecmo
