// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Constant parameter blocks on ecmo::Problem (SetParameterBlockConstant /
// SetParameterBlockVariable / IsParameterBlockConstant).
//
// The reference for every solve is the same problem written without the
// constant block: its values are substituted as numbers into the cost
// functions. Solving both with the default strategy, WC_NEWTON and the Ipopt
// reference must give the same point; the evaluator's derivatives are
// checked against central differences.
//
// Bad inputs covered here: SetParameterBlockConstant / Variable on an
// unknown block (refused, recorded, reported by IsValid and by Solve);
// every block constant (nothing to optimize).

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/autodiff_cost_function.h"
#include "ceres/manifold.h"
#include "ceres/sphere_manifold.h"
#include "ecmo/evaluator.h"
#include "ecmo/ipopt_reference.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

// Blocks: z (2), the anchor a (2; constant in most tests), y (1).
// f1 = (z1 - a1)^2 + (z2 - a2)^2 + (y - 1)^2,
// f2 = (z1 - 2)^2 + (z2 + 1)^2 + y^2,
// h  = (1 - z1^2 - z2^2, y - a1 z1).
struct F1 {
  template <typename T>
  bool operator()(const T* z, const T* a, const T* y, T* f) const {
    f[0] = (z[0] - a[0]) * (z[0] - a[0]) + (z[1] - a[1]) * (z[1] - a[1]) +
           (y[0] - 1.0) * (y[0] - 1.0);
    return true;
  }
};
struct F2 {
  template <typename T>
  bool operator()(const T* z, const T* y, T* f) const {
    f[0] =
        (z[0] - 2.0) * (z[0] - 2.0) + (z[1] + 1.0) * (z[1] + 1.0) + y[0] * y[0];
    return true;
  }
};
struct H {
  template <typename T>
  bool operator()(const T* z, const T* y, const T* a, T* h) const {
    h[0] = 1.0 - z[0] * z[0] - z[1] * z[1];
    h[1] = y[0] - a[0] * z[0];
    return true;
  }
};
// The same terms with the anchor substituted as numbers.
struct F1Fixed {
  template <typename T>
  bool operator()(const T* z, const T* y, T* f) const {
    F1 f1;
    const T a[2] = {T(a1), T(a2)};
    return f1(z, a, y, f);
  }
  double a1, a2;
};
struct HFixed {
  template <typename T>
  bool operator()(const T* z, const T* y, T* h) const {
    H full;
    const T a[2] = {T(a1), T(a2)};
    return full(z, y, a, h);
  }
  double a1, a2;
};

// The anchor is a unit vector, so that a sphere manifold on it is
// meaningful once it is made variable.
constexpr double kA1 = 0.6;
constexpr double kA2 = 0.8;

struct WithAnchor {
  double z[2] = {0.5, 0.5};
  double a[2] = {kA1, kA2};
  double y[1] = {0.0};
  Problem problem;
  WithAnchor() {
    problem.AddObjective(
        new ceres::AutoDiffCostFunction<F1, 1, 2, 2, 1>(new F1), {z, a, y});
    problem.AddObjective(new ceres::AutoDiffCostFunction<F2, 1, 2, 1>(new F2),
                         {z, y});
    problem.AddConstraint(new ceres::AutoDiffCostFunction<H, 2, 2, 1, 2>(new H),
                          {z, y, a});
  }
};

struct Substituted {
  double z[2] = {0.5, 0.5};
  double y[1] = {0.0};
  Problem problem;
  Substituted(double a1, double a2) {
    problem.AddObjective(
        new ceres::AutoDiffCostFunction<F1Fixed, 1, 2, 1>(new F1Fixed{a1, a2}),
        {z, y});
    problem.AddObjective(new ceres::AutoDiffCostFunction<F2, 1, 2, 1>(new F2),
                         {z, y});
    problem.AddConstraint(
        new ceres::AutoDiffCostFunction<HFixed, 2, 2, 1>(new HFixed{a1, a2}),
        {z, y});
  }
};

const std::vector<double> kPreference = {0.3, 0.7};

TEST(ProblemConstantBlocks, ConstancyStateAndSizes) {
  WithAnchor p;
  EXPECT_EQ(p.problem.NumParameters(), 5);
  EXPECT_FALSE(p.problem.IsParameterBlockConstant(p.a));
  EXPECT_TRUE(p.problem.SetParameterBlockConstant(p.a));
  EXPECT_TRUE(p.problem.SetParameterBlockConstant(p.a));  // no-op
  EXPECT_TRUE(p.problem.IsParameterBlockConstant(p.a));
  EXPECT_FALSE(p.problem.IsParameterBlockConstant(p.z));
  EXPECT_EQ(p.problem.NumParameters(), 3);
  EXPECT_EQ(p.problem.NumParameterBlocks(), 3);
  // z = (z1, z2, y): the blocks after the constant one move up.
  EXPECT_EQ(p.problem.parameter_blocks()[0].offset, 0);
  EXPECT_EQ(p.problem.parameter_blocks()[1].offset, -1);
  EXPECT_EQ(p.problem.parameter_blocks()[2].offset, 2);

  // GetParameters / SetParameters skip the constant block.
  double packed[3] = {0, 0, 0};
  p.problem.GetParameters(packed);
  EXPECT_EQ(packed[0], 0.5);
  EXPECT_EQ(packed[1], 0.5);
  EXPECT_EQ(packed[2], 0.0);
  const double written[3] = {-1.0, -2.0, -3.0};
  p.problem.SetParameters(written);
  EXPECT_EQ(p.z[0], -1.0);
  EXPECT_EQ(p.z[1], -2.0);
  EXPECT_EQ(p.y[0], -3.0);
  EXPECT_EQ(p.a[0], kA1);
  EXPECT_EQ(p.a[1], kA2);

  EXPECT_TRUE(p.problem.SetParameterBlockVariable(p.a));
  EXPECT_FALSE(p.problem.IsParameterBlockConstant(p.a));
  EXPECT_EQ(p.problem.NumParameters(), 5);
  EXPECT_EQ(p.problem.parameter_blocks()[2].offset, 4);
  std::string error;
  EXPECT_TRUE(p.problem.IsValid(&error)) << error;
}

// The evaluator sees only the variable blocks: values equal the substituted
// problem's, and gradients / J_h products equal central differences in the
// 3 variable coordinates.
TEST(ProblemConstantBlocks, EvaluatorLeavesConstantBlocksOutOfZ) {
  WithAnchor p;
  ASSERT_TRUE(p.problem.SetParameterBlockConstant(p.a));
  ProblemEvaluator evaluator(&p.problem);
  ASSERT_EQ(evaluator.NumParameters(), 3);
  ASSERT_EQ(evaluator.NumConstraints(), 2);
  for (const ProblemEvaluator::JacobianBlock& b : evaluator.jacobian_blocks()) {
    EXPECT_NE(b.cols, 2 + 1);  // sanity: blocks are z (2) or y (1)
    EXPECT_TRUE(b.parameter_offset == 0 || b.parameter_offset == 2);
  }
  EXPECT_EQ(evaluator.jacobian_blocks().size(), 2u);  // (h, z), (h, y)

  Substituted reference(kA1, kA2);
  ProblemEvaluator reference_evaluator(&reference.problem);
  const Eigen::Vector3d z0(0.3, -0.4, 0.7);
  Eigen::Vector2d f, f_ref, h, h_ref;
  Eigen::Matrix<double, 3, 2> grad, grad_ref;
  std::string error;
  ASSERT_TRUE(
      evaluator.Evaluate(z0.data(), f.data(), h.data(), grad.data(), &error))
      << error;
  ASSERT_TRUE(reference_evaluator.Evaluate(
      z0.data(), f_ref.data(), h_ref.data(), grad_ref.data(), &error));
  EXPECT_NEAR((f - f_ref).norm(), 0.0, 1e-15);
  EXPECT_NEAR((h - h_ref).norm(), 0.0, 1e-15);
  // Closed form at z0: f1 = (0.3-0.6)^2 + (-0.4-0.8)^2 + (0.7-1)^2.
  EXPECT_NEAR(f[0], 0.09 + 1.44 + 0.09, 1e-14);
  EXPECT_NEAR(h[1], 0.7 - kA1 * 0.3, 1e-15);

  const double step = 1e-6;
  const Eigen::Vector2d v(0.7, -1.3);
  Eigen::Vector3d jt_v;
  evaluator.JacobianTransposeMultiply(v.data(), jt_v.data());
  for (int i = 0; i < 3; ++i) {
    Eigen::Vector3d plus = z0, minus = z0;
    plus[i] += step;
    minus[i] -= step;
    Eigen::Vector2d fp, fm, hp, hm;
    ASSERT_TRUE(
        evaluator.Evaluate(plus.data(), fp.data(), hp.data(), nullptr, &error));
    ASSERT_TRUE(evaluator.Evaluate(
        minus.data(), fm.data(), hm.data(), nullptr, &error));
    for (int s = 0; s < 2; ++s) {
      EXPECT_NEAR(grad(i, s), (fp[s] - fm[s]) / (2 * step), 1e-7);
    }
    EXPECT_NEAR(jt_v[i], v.dot(hp - hm) / (2 * step), 1e-7);
  }
  // The user's constant block was read, never written.
  EXPECT_EQ(p.a[0], kA1);
  EXPECT_EQ(p.a[1], kA2);
}

// Solve with the anchor constant == solve the substituted problem, for the
// default strategy, WC_NEWTON and the Ipopt reference.
TEST(ProblemConstantBlocks, SolversMatchTheSubstitutedProblem) {
  for (int method = 0; method < 3; ++method) {
    SCOPED_TRACE(method == 0   ? "default strategy"
                 : method == 1 ? "WC_NEWTON"
                               : "Ipopt reference");
    WithAnchor p;
    ASSERT_TRUE(p.problem.SetParameterBlockConstant(p.a));
    Substituted reference(kA1, kA2);
    // A fixed reference point: both problems are solved with the same
    // scalarization, independent of any utopia solve.
    const std::vector<double> r = {0.0, 0.0};
    if (method < 2) {
      Solver::Options options;
      options.reference_point = r;
      if (method == 1) options.strategy = StrategyType::WC_NEWTON;
      Solver::Summary summary, reference_summary;
      Solve(options, &p.problem, kPreference, &summary);
      Solve(options, &reference.problem, kPreference, &reference_summary);
      ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
          << summary.message;
      ASSERT_EQ(reference_summary.termination_type, ceres::CONVERGENCE)
          << reference_summary.message;
      EXPECT_EQ(summary.z.size(), 3);
    } else {
      IpoptReference::Options options;
      options.reference_point = r;
      IpoptReference::Summary summary, reference_summary;
      Solve(options, &p.problem, kPreference, &summary);
      Solve(options, &reference.problem, kPreference, &reference_summary);
      ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
      ASSERT_TRUE(reference_summary.IsSolutionUsable())
          << reference_summary.message;
      EXPECT_EQ(summary.z.size(), 3);
    }
    EXPECT_NEAR(p.z[0], reference.z[0], 1e-6);
    EXPECT_NEAR(p.z[1], reference.z[1], 1e-6);
    EXPECT_NEAR(p.y[0], reference.y[0], 1e-6);
    // Feasible, and not the start point: the solve moved the variables.
    EXPECT_NEAR(p.z[0] * p.z[0] + p.z[1] * p.z[1], 1.0, 1e-7);
    EXPECT_NEAR(p.y[0], kA1 * p.z[0], 1e-7);
    EXPECT_GT(std::abs(p.z[0] - 0.5), 1e-3);
    EXPECT_EQ(p.a[0], kA1);
    EXPECT_EQ(p.a[1], kA2);
  }
}

// Constant -> variable -> constant between solves, with a sphere manifold on
// the anchor: while constant the manifold is ignored (the Ipopt reference,
// which refuses manifolds, accepts the problem); while variable the anchor
// moves on the unit circle; constant again, the solve matches the problem
// with the anchor's new values substituted.
TEST(ProblemConstantBlocks, ToggleBetweenSolvesWithAManifold) {
  WithAnchor p;
  ASSERT_TRUE(
      p.problem.SetManifold(p.a, new ceres::SphereManifold<ceres::DYNAMIC>(2)));
  ASSERT_TRUE(p.problem.SetParameterBlockConstant(p.a));
  EXPECT_FALSE(p.problem.HasManifolds());
  ProblemEvaluator constant_evaluator(&p.problem);
  EXPECT_EQ(constant_evaluator.manifold(), nullptr);

  IpoptReference::Options ipopt;
  ipopt.reference_point = {0.0, 0.0};
  IpoptReference::Summary ipopt_summary;
  Solve(ipopt, &p.problem, kPreference, &ipopt_summary);
  ASSERT_TRUE(ipopt_summary.IsSolutionUsable()) << ipopt_summary.message;

  // Variable: k = 5 in the ambient space, 4 in the tangent space.
  ASSERT_TRUE(p.problem.SetParameterBlockVariable(p.a));
  EXPECT_TRUE(p.problem.HasManifolds());
  {
    ProblemEvaluator evaluator(&p.problem);
    ASSERT_NE(evaluator.manifold(), nullptr);
    EXPECT_EQ(evaluator.NumParameters(), 5);
    EXPECT_EQ(evaluator.NumTangentParameters(), 4);
  }
  Solver::Options options;
  options.reference_point = {0.0, 0.0};
  Solver::Summary summary;
  Solve(options, &p.problem, kPreference, &summary);
  ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
  EXPECT_EQ(summary.z.size(), 5);
  EXPECT_GT(std::abs(p.a[0] - kA1), 1e-3);              // the anchor moved
  EXPECT_NEAR(std::hypot(p.a[0], p.a[1]), 1.0, 1e-12);  // on its manifold

  // Constant again, at the anchor's new values.
  ASSERT_TRUE(p.problem.SetParameterBlockConstant(p.a));
  const double a1 = p.a[0], a2 = p.a[1];
  p.z[0] = p.z[1] = 0.5;
  p.y[0] = 0.0;
  Substituted reference(a1, a2);
  Solver::Summary constant_summary, reference_summary;
  Solve(options, &p.problem, kPreference, &constant_summary);
  Solve(options, &reference.problem, kPreference, &reference_summary);
  ASSERT_EQ(constant_summary.termination_type, ceres::CONVERGENCE)
      << constant_summary.message;
  ASSERT_EQ(reference_summary.termination_type, ceres::CONVERGENCE);
  EXPECT_NEAR(p.z[0], reference.z[0], 1e-6);
  EXPECT_NEAR(p.z[1], reference.z[1], 1e-6);
  EXPECT_NEAR(p.y[0], reference.y[0], 1e-6);
  EXPECT_EQ(p.a[0], a1);
  EXPECT_EQ(p.a[1], a2);
}

TEST(ProblemConstantBlocks, UnknownBlockIsRefusedAndReported) {
  {
    WithAnchor p;
    double stranger[2] = {0.0, 0.0};
    EXPECT_FALSE(p.problem.IsParameterBlockConstant(stranger));
    EXPECT_FALSE(p.problem.SetParameterBlockConstant(stranger));
    std::string error;
    EXPECT_FALSE(p.problem.IsValid(&error));
    EXPECT_NE(error.find("SetParameterBlockConstant"), std::string::npos)
        << error;
    EXPECT_NE(error.find("parameter block not found"), std::string::npos)
        << error;
    EXPECT_NE(error.find("before it can be set constant"), std::string::npos)
        << error;
    EXPECT_EQ(p.problem.NumParameters(), 5);  // nothing changed
    Solver::Summary summary;
    Solve(Solver::Options(), &p.problem, kPreference, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("parameter block not found"),
              std::string::npos)
        << summary.message;
  }
  {
    WithAnchor p;
    double stranger[1] = {0.0};
    EXPECT_FALSE(p.problem.SetParameterBlockVariable(stranger));
    std::string error;
    EXPECT_FALSE(p.problem.IsValid(&error));
    EXPECT_NE(error.find("SetParameterBlockVariable"), std::string::npos)
        << error;
    EXPECT_NE(error.find("before it can be set varying"), std::string::npos)
        << error;
  }
}

TEST(ProblemConstantBlocks, EveryBlockConstantIsRefused) {
  WithAnchor p;
  for (double* block : {p.z, p.a, p.y}) {
    ASSERT_TRUE(p.problem.SetParameterBlockConstant(block));
  }
  EXPECT_EQ(p.problem.NumParameters(), 0);
  std::string error;
  EXPECT_FALSE(p.problem.IsValid(&error));
  EXPECT_NE(error.find("every parameter block is constant"), std::string::npos)
      << error;
  Solver::Summary summary;
  Solve(Solver::Options(), &p.problem, kPreference, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_EQ(p.z[0], 0.5);  // nothing written
  // One block variable again: valid.
  ASSERT_TRUE(p.problem.SetParameterBlockVariable(p.y));
  EXPECT_TRUE(p.problem.IsValid(&error)) << error;
  EXPECT_EQ(p.problem.NumParameters(), 1);
}

}  // namespace
}  // namespace ecmo
