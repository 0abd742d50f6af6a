// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Problem construction: every kind of Ceres cost function works, and every
// bad call is refused with a message that names the problem.
//
// Bad inputs covered here:
//   objective with 2 residuals; parameter block count mismatch; null cost
//   function; null parameter block; block reused with another size;
//   overlapping blocks; no objectives at all; constraint with 0 residuals.

#include <memory>
#include <string>

#include "ceres/autodiff_cost_function.h"
#include "ceres/dynamic_autodiff_cost_function.h"
#include "ceres/manifold.h"
#include "ceres/numeric_diff_cost_function.h"
#include "ceres/sized_cost_function.h"
#include "ecmo/evaluator.h"
#include "ecmo/problem.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

using testing::CircleF;
using testing::CircleH;

struct TwoResiduals {
  template <typename T>
  bool operator()(const T* z, T* r) const {
    r[0] = z[0];
    r[1] = z[1];
    return true;
  }
};

// f = z1^2 + 3 z2 written for DynamicAutoDiffCostFunction.
struct DynamicF {
  template <typename T>
  bool operator()(T const* const* p, T* f) const {
    f[0] = p[0][0] * p[0][0] + 3.0 * p[0][1];
    return true;
  }
};

// Analytic: f = 2 z1 z2, gradient (2 z2, 2 z1).
class AnalyticF final : public ceres::SizedCostFunction<1, 2> {
 public:
  bool Evaluate(double const* const* p, double* r, double** j) const override {
    r[0] = 2.0 * p[0][0] * p[0][1];
    if (j != nullptr && j[0] != nullptr) {
      j[0][0] = 2.0 * p[0][1];
      j[0][1] = 2.0 * p[0][0];
    }
    return true;
  }
};

TEST(Problem, AllCostFunctionKindsEvaluate) {
  double z[2] = {0.5, 0.3};
  Problem problem;
  EXPECT_EQ(problem.AddObjective(
                std::make_unique<ceres::AutoDiffCostFunction<CircleF, 1, 2>>(
                    new CircleF(1.0)),
                {z}),
            0);
  EXPECT_EQ(
      problem.AddObjective(
          std::make_unique<ceres::NumericDiffCostFunction<CircleF,
                                                          ceres::CENTRAL, 1,
                                                          2>>(new CircleF(-1.0)),
          {z}),
      1);
  auto dynamic =
      std::make_unique<ceres::DynamicAutoDiffCostFunction<DynamicF, 4>>(
          new DynamicF);
  dynamic->AddParameterBlock(2);
  dynamic->SetNumResiduals(1);
  EXPECT_EQ(problem.AddObjective(std::move(dynamic), {z}), 2);
  EXPECT_EQ(problem.AddObjective(new AnalyticF, {z}, "analytic"), 3);
  EXPECT_EQ(problem.AddConstraint(
                std::make_unique<ceres::AutoDiffCostFunction<CircleH, 1, 2>>(
                    new CircleH),
                {z}),
            0);
  std::string error;
  ASSERT_TRUE(problem.IsValid(&error)) << error;
  EXPECT_EQ(problem.NumParameters(), 2);
  EXPECT_EQ(problem.NumObjectives(), 4);
  EXPECT_EQ(problem.NumConstraints(), 1);
  EXPECT_EQ(problem.objectives()[3].name, "analytic");
  EXPECT_EQ(problem.objectives()[0].name, "f1");

  ProblemEvaluator evaluator(&problem);
  double f[4], h[1], g[8];
  ASSERT_TRUE(evaluator.Evaluate(z, f, h, g, &error)) << error;
  // Hand formulas at z = (0.5, 0.3).
  EXPECT_NEAR(f[0], 2.25 + 0.49, 1e-14);
  EXPECT_NEAR(f[1], 2.25 + 1.69, 1e-14);
  EXPECT_NEAR(f[2], 0.25 + 0.9, 1e-14);
  EXPECT_NEAR(f[3], 0.3, 1e-14);
  EXPECT_NEAR(h[0], 1.0 - 0.25 - 0.09, 1e-14);
  const double expected[8] = {-3.0, -1.4, -3.0, 2.6, 1.0, 3.0, 0.6, 1.0};
  for (int i = 0; i < 8; ++i) {
    EXPECT_NEAR(g[i], expected[i], 1e-8) << "gradient entry " << i;
  }
  EXPECT_EQ(evaluator.counts().value_evaluations, 1);
  EXPECT_EQ(evaluator.counts().gradient_evaluations, 1);
}

TEST(Problem, ObjectiveWithTwoResidualsIsRefused) {
  double z[2] = {0, 0};
  Problem problem;
  EXPECT_EQ(problem.AddObjective(
                new ceres::AutoDiffCostFunction<TwoResiduals, 2, 2>(
                    new TwoResiduals),
                {z}, "pair"),
            -1);
  std::string error;
  EXPECT_FALSE(problem.IsValid(&error));
  EXPECT_NE(error.find("'pair'"), std::string::npos) << error;
  EXPECT_NE(error.find("exactly 1 residual"), std::string::npos) << error;
  EXPECT_NE(error.find("has 2"), std::string::npos) << error;
}

TEST(Problem, WrongNumberOfBlocksIsRefused) {
  double z[2] = {0, 0}, w[2] = {0, 0};
  Problem problem;
  EXPECT_EQ(problem.AddObjective(new ceres::AutoDiffCostFunction<CircleF, 1, 2>(
                                     new CircleF(1)),
                                 {z, w}),
            -1);
  std::string error;
  EXPECT_FALSE(problem.IsValid(&error));
  EXPECT_NE(error.find("declares 1 parameter blocks but 2 were given"),
            std::string::npos)
      << error;
}

TEST(Problem, NullCostFunctionAndNullBlockAreRefused) {
  double z[2] = {0, 0};
  Problem a;
  EXPECT_EQ(a.AddObjective(std::unique_ptr<ceres::CostFunction>(), {z}), -1);
  std::string error;
  EXPECT_FALSE(a.IsValid(&error));
  EXPECT_NE(error.find("null"), std::string::npos) << error;

  Problem b;
  EXPECT_EQ(b.AddObjective(new ceres::AutoDiffCostFunction<CircleF, 1, 2>(
                               new CircleF(1)),
                           {nullptr}),
            -1);
  EXPECT_FALSE(b.IsValid(&error));
  EXPECT_NE(error.find("pointer is null"), std::string::npos) << error;
}

TEST(Problem, BlockSizeMismatchAndOverlapAreRefused) {
  double z[3] = {0, 0, 0};
  Problem problem;
  ASSERT_TRUE(problem.AddParameterBlock(z, 3));
  EXPECT_EQ(problem.AddObjective(new ceres::AutoDiffCostFunction<CircleF, 1, 2>(
                                     new CircleF(1)),
                                 {z}),
            -1);
  std::string error;
  EXPECT_FALSE(problem.IsValid(&error));
  EXPECT_NE(error.find("registered with size 3"), std::string::npos) << error;

  Problem overlap;
  ASSERT_TRUE(overlap.AddParameterBlock(z, 2));
  EXPECT_FALSE(overlap.AddParameterBlock(z + 1, 2));
  EXPECT_FALSE(overlap.IsValid(&error));
  EXPECT_NE(error.find("overlaps"), std::string::npos) << error;
}

TEST(Problem, NoObjectivesIsInvalid) {
  double z[2] = {0, 0};
  Problem problem;
  problem.AddConstraint(
      new ceres::AutoDiffCostFunction<CircleH, 1, 2>(new CircleH), {z});
  std::string error;
  EXPECT_FALSE(problem.IsValid(&error));
  EXPECT_NE(error.find("no objectives"), std::string::npos) << error;
}

TEST(Problem, ParametersPackAndUnpackInRegistrationOrder) {
  double x[1] = {1.0}, y[2] = {2.0, 3.0};
  Problem problem;
  problem.AddParameterBlock(y, 2);
  problem.AddParameterBlock(x, 1);
  double z[3];
  problem.GetParameters(z);
  EXPECT_EQ(z[0], 2.0);
  EXPECT_EQ(z[1], 3.0);
  EXPECT_EQ(z[2], 1.0);
  const double w[3] = {7.0, 8.0, 9.0};
  problem.SetParameters(w);
  EXPECT_EQ(y[0], 7.0);
  EXPECT_EQ(y[1], 8.0);
  EXPECT_EQ(x[0], 9.0);
}

}  // namespace
}  // namespace ecmo

namespace ecmo {
namespace {

struct Square {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = z[0] * z[0] + z[1] * z[1];
    return true;
  }
};

// Counts live instances, so a test can see deletions.
class CountedCost final : public ceres::SizedCostFunction<1, 2> {
 public:
  explicit CountedCost(int* live) : live_(live) { ++*live_; }
  ~CountedCost() override { --*live_; }
  bool Evaluate(double const* const* p, double* r, double** j) const override {
    r[0] = p[0][0] * p[0][0] + p[0][1];
    if (j != nullptr && j[0] != nullptr) {
      j[0][0] = 2.0 * p[0][0];
      j[0][1] = 1.0;
    }
    return true;
  }

 private:
  int* live_;
};

TEST(ProblemOwnership, SharedCostFunctionIsDeletedExactlyOnce) {
  // The crash of the issue: the same pointer as two objectives (and a
  // constraint) used to be deleted once per term. Run under ASan this also
  // proves there is no double delete.
  int live = 0;
  double z[2] = {1.0, 2.0};
  {
    Problem problem;
    CountedCost* shared = new CountedCost(&live);
    EXPECT_EQ(problem.AddObjective(shared, {z}), 0);
    EXPECT_EQ(problem.AddObjective(shared, {z}), 1);
    EXPECT_EQ(problem.AddConstraint(shared, {z}), 0);
    // A failing call with the same pointer must not delete it either.
    double w[3] = {0.0, 0.0, 0.0};
    EXPECT_EQ(problem.AddObjective(shared, {z, w}), -1);
    EXPECT_EQ(live, 1);
    EXPECT_EQ(problem.objectives()[0].cost_function,
              problem.objectives()[1].cost_function);
  }
  EXPECT_EQ(live, 0);
}

TEST(ProblemOwnership, DoNotTakeOwnershipLeavesCostFunctionsToTheCaller) {
  int live = 0;
  double z[2] = {1.0, 2.0};
  CountedCost a(&live);
  {
    Problem::Options options;
    options.cost_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
    options.manifold_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
    Problem problem(options);
    EXPECT_EQ(problem.AddObjective(&a, {z}), 0);
    EXPECT_EQ(problem.AddObjective(&a, {z}), 1);
    ceres::SubsetManifold manifold(2, {1});
    EXPECT_TRUE(problem.SetManifold(z, &manifold));
    // A unique_ptr always hands ownership over.
    EXPECT_EQ(problem.AddObjective(
                  std::make_unique<ceres::AutoDiffCostFunction<Square, 1, 2>>(
                      new Square),
                  {z}),
              2);
    EXPECT_TRUE(problem.IsValid(nullptr));
  }
  // The stack objects are still alive (and destroyed by their own scope).
  EXPECT_EQ(live, 1);
}

}  // namespace
}  // namespace ecmo
