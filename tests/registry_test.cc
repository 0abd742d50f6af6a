// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Every registry problem: builds a valid problem of the advertised size, and
// its analytic Pareto point is certified by the KKT system (least-squares
// multipliers) and lies on the analytic front. The problems with negative
// fronts (circle_quarter, sphere_octant) are also checked for arbitrary
// positive weights and offsets, and their exact hypervolumes against
// ecmo::Hypervolume of densely sampled fronts.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ecmo/evaluator.h"
#include "ecmo/indicators.h"
#include "ecmo/kkt.h"
#include "ecmo/problems/registry.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

TEST(Registry, NamesAreUniqueAndFindable) {
  EXPECT_NE(problems::Find("gebken_circle"), nullptr);
  EXPECT_NE(problems::Find("convex_line"), nullptr);
  EXPECT_NE(problems::Find("mtbl_example_iii"), nullptr);
  EXPECT_NE(problems::Find("circle_quarter"), nullptr);
  EXPECT_NE(problems::Find("sphere_octant"), nullptr);
  EXPECT_EQ(problems::Find("no_such_problem"), nullptr);
  EXPECT_NE(problems::ProblemNames().find("gebken_circle"), std::string::npos);
}

TEST(Registry, EveryProblemBuildsAndItsParetoPointsAreKktPoints) {
  for (const problems::ProblemInfo& info : problems::AllProblems()) {
    SCOPED_TRACE(info.name);
    auto instance = info.build();
    std::string error;
    ASSERT_TRUE(instance->problem.IsValid(&error)) << error;
    EXPECT_EQ(instance->problem.NumObjectives(), info.num_objectives);
    EXPECT_EQ(instance->problem.NumParameters(), info.num_parameters);
    EXPECT_EQ(instance->problem.NumConstraints(), info.num_constraints);
    EXPECT_FALSE(info.description.empty());
    ASSERT_TRUE(info.pareto_point);
    ProblemEvaluator evaluator(&instance->problem);
    const Eigen::VectorXd offset = Eigen::Map<const Eigen::VectorXd>(
        info.objective_offset.data(), info.num_objectives);
    // The analytic fronts are sampled at 20001 points: along a curve
    // (S = 2) that is a spacing of about 1e-4, over the octant of a sphere
    // (S = 3) about 1e-2.
    const Eigen::MatrixXd front = info.pareto_front(20001);
    const double sampling = info.num_objectives == 2 ? 1e-3 : 2e-2;
    for (double l1 : {0.1, 0.3, 0.5, 0.7, 0.9}) {
      const std::vector<double> preference =
          testing::RegistryPreference(l1, info.num_objectives);
      const Eigen::VectorXd lambda = Eigen::Map<const Eigen::VectorXd>(
          preference.data(), info.num_objectives);
      const Eigen::VectorXd z = info.pareto_point(lambda, offset);
      Eigen::VectorXd f(info.num_objectives), h(info.num_constraints);
      ASSERT_TRUE(evaluator.Evaluate(z.data(), f.data(), h.data(), nullptr,
                                     &error));
      EXPECT_LT(h.norm(), 1e-12);
      const double rho = lambda.cwiseProduct(f + offset).maxCoeff();
      KktSystem system;
      ASSERT_TRUE(system.Linearize(&evaluator, lambda, offset, rho, z, &error));
      const double k2 =
          system.Residual(system.LeastSquaresMultipliers()).SquaredNorm();
      EXPECT_LT(k2, 1e-20) << "lambda1 = " << l1;
      // On the analytic front: some sampled front point is within the
      // sampling resolution.
      const double distance =
          (front.rowwise() - f.transpose()).rowwise().norm().minCoeff();
      EXPECT_LT(distance, sampling);
    }
  }
}

// Weights (any positive scale: callers pass lambda_s / w_s for normalized
// objectives) and offsets (reference points -offset below the ideal -1)
// for the problems with negative fronts.
std::vector<Eigen::VectorXd> NegativeFrontWeights(int num_objectives) {
  std::vector<Eigen::VectorXd> weights;
  auto add = [&](std::vector<double> w) {
    w.resize(num_objectives, 0.25);
    weights.push_back(Eigen::Map<const Eigen::VectorXd>(w.data(), w.size()));
  };
  add({0.5, 0.5, 0.5});
  add({0.2, 0.8, 0.4});
  add({1e-4, 1.0 - 1e-4, 1e-4});  // corners: some terms inactive
  add({1.0 - 1e-4, 1e-4, 1e-4});
  add({1e-4, 1e-4, 1.0});
  add({3.0, 0.5, 7.0});           // not normalized
  add({1.0 / 0.3, 1.0 / 2.0, 1.0 / 0.05});  // lambda_s / w_s
  return weights;
}

std::vector<Eigen::VectorXd> NegativeFrontOffsets(int num_objectives) {
  std::vector<Eigen::VectorXd> offsets;
  for (std::vector<double> o : std::vector<std::vector<double>>{
           {2.0, 2.0, 2.0}, {1.5, 4.0, 1.1}, {1.0 + 1e-6, 10.0, 3.0},
           {100.0, 1.25, 1.0 + 1e-3}}) {
    o.resize(num_objectives);
    offsets.push_back(Eigen::Map<const Eigen::VectorXd>(o.data(), o.size()));
  }
  return offsets;
}

TEST(Registry, NegativeFrontProblemsHaveTheDeclaredShape) {
  for (const char* name : {"circle_quarter", "sphere_octant"}) {
    SCOPED_TRACE(name);
    const problems::ProblemInfo* info = problems::Find(name);
    ASSERT_NE(info, nullptr);
    const int n = std::string(name) == "circle_quarter" ? 2 : 3;
    EXPECT_EQ(info->num_objectives, n);
    EXPECT_EQ(info->num_parameters, n);
    EXPECT_EQ(info->num_constraints, 1);
    EXPECT_EQ(info->objective_offset, std::vector<double>(n, 2.0));
    EXPECT_NE(info->description.find("offset"), std::string::npos);
    ASSERT_TRUE(info->pareto_point);
    ASSERT_TRUE(info->pareto_front);
    ASSERT_TRUE(info->exact_hypervolume);
    auto instance = info->build();
    std::string error;
    ASSERT_TRUE(instance->problem.IsValid(&error)) << error;
    EXPECT_EQ(instance->problem.NumObjectives(), n);
    EXPECT_EQ(instance->problem.NumParameters(), n);
    EXPECT_EQ(instance->problem.NumConstraints(), 1);
    // The start point is feasible but not on the front, and the default
    // offset makes every objective positive there.
    ProblemEvaluator evaluator(&instance->problem);
    Eigen::VectorXd f(n), h(1);
    ASSERT_TRUE(evaluator.Evaluate(instance->start.data(), f.data(), h.data(),
                                   nullptr, &error));
    EXPECT_LT(std::abs(h[0]), 1e-15);
    EXPECT_GT(f.maxCoeff(), 0.0);
    EXPECT_GT((f.array() + 2.0).minCoeff(), 0.0);
    // Rows of the front: n points of the negative orthant of the sphere.
    const Eigen::MatrixXd front = info->pareto_front(101);
    ASSERT_EQ(front.rows(), 101);
    ASSERT_EQ(front.cols(), n);
    EXPECT_LE(front.maxCoeff(), 0.0);
    for (int i = 0; i < front.rows(); ++i) {
      EXPECT_NEAR(front.row(i).norm(), 1.0, 1e-15);
    }
    EXPECT_EQ(info->pareto_front(0).rows(), 0);
    EXPECT_EQ(info->pareto_front(1).rows(), 1);
  }
}

TEST(Registry, NegativeFrontParetoPointsAreKktPointsForAnyWeightsAndOffsets) {
  int inactive = 0;  // the corner weights must exercise inactive terms
  for (const char* name : {"circle_quarter", "sphere_octant"}) {
    const problems::ProblemInfo* info = problems::Find(name);
    ASSERT_NE(info, nullptr);
    const int n = info->num_objectives;
    auto instance = info->build();
    ProblemEvaluator evaluator(&instance->problem);
    for (const Eigen::VectorXd& lambda : NegativeFrontWeights(n)) {
      for (const Eigen::VectorXd& offset : NegativeFrontOffsets(n)) {
        SCOPED_TRACE(std::string(name) + " lambda = (" +
                     std::to_string(lambda[0]) + ", " +
                     std::to_string(lambda[1]) + ", ...), offset = (" +
                     std::to_string(offset[0]) + ", " +
                     std::to_string(offset[1]) + ", ...)");
        const Eigen::VectorXd z = info->pareto_point(lambda, offset);
        ASSERT_EQ(z.size(), n);
        std::string error;
        Eigen::VectorXd f(n), h(1);
        ASSERT_TRUE(
            evaluator.Evaluate(z.data(), f.data(), h.data(), nullptr, &error))
            << error;
        EXPECT_LE(std::abs(h[0]), 1e-15);
        EXPECT_LE(f.maxCoeff(), 0.0);
        const double rho = lambda.cwiseProduct(f + offset).maxCoeff();
        EXPECT_GT(rho, 0.0);
        KktMultipliers none;
        none.omega = Eigen::VectorXd::Zero(n);
        none.nu = Eigen::VectorXd::Zero(1);
        KktReport report;
        ASSERT_TRUE(ComputeKktReport(&evaluator, lambda, offset, rho, z, none,
                                     &report, &error))
            << error;
        EXPECT_LE(report.with_least_squares_multipliers.SquaredNorm(), 1e-20);
        EXPECT_GE(report.least_squares_multipliers.omega.minCoeff(), 0.0);
        // Inactive terms (lambda_s offset_s < rho: below rho even at
        // z_s = 0) sit on the octant's boundary z_s = 0.
        for (int s = 0; s < n; ++s) {
          if (lambda[s] * offset[s] < rho * (1.0 - 1e-12)) {
            ++inactive;
            EXPECT_EQ(z[s], 0.0) << "s = " << s;
          }
        }
      }
    }
  }
  EXPECT_GT(inactive, 0);
}

// The KKT system only certifies stationarity; for S = 2 a scan of the whole
// circle confirms that the analytic point is the global WC minimizer.
TEST(Registry, CircleQuarterParetoPointIsTheGlobalWcMinimizer) {
  const problems::ProblemInfo* info = problems::Find("circle_quarter");
  ASSERT_NE(info, nullptr);
  const double kTwoPi = 2.0 * 3.14159265358979323846;
  const int kSamples = 200000;
  for (const Eigen::VectorXd& lambda : NegativeFrontWeights(2)) {
    for (const Eigen::VectorXd& offset : NegativeFrontOffsets(2)) {
      const Eigen::VectorXd z = info->pareto_point(lambda, offset);
      const double rho = lambda.cwiseProduct(z + offset).maxCoeff();
      double scanned = std::numeric_limits<double>::infinity();
      for (int i = 0; i < kSamples; ++i) {
        const double t = kTwoPi * i / kSamples;
        const Eigen::Vector2d y(std::cos(t), std::sin(t));
        scanned = std::min(scanned, lambda.cwiseProduct(y + offset).maxCoeff());
      }
      // rho <= every sampled value; a sample within pi / kSamples of the
      // minimizer is within lambda_max * pi / kSamples of rho.
      EXPECT_LE(rho, scanned * (1.0 + 1e-15));
      EXPECT_LE(scanned - rho, lambda.maxCoeff() * kTwoPi / kSamples);
    }
  }
}

// The hypervolume of the whole front against ecmo::Hypervolume of a dense
// sample. Bound on the sampling error: if every front point p has a sample
// q with q <= p + delta (componentwise), the sample dominates every y of the
// box [-1, R] with y - delta in the true dominated region D. D is an up-set
// of the box, so along each line in direction (1, ..., 1) the missed part
// is a segment of at most delta per coordinate, and integrating over the
// box's projection gives
//   0 <= HV(front) - HV(sample) <= delta * sum_s prod_{t != s} (R_t + 1).
double SamplingBound(double delta, const Eigen::VectorXd& r) {
  double faces = 0.0;
  for (int s = 0; s < r.size(); ++s) {
    double face = 1.0;
    for (int t = 0; t < r.size(); ++t) {
      if (t != s) face *= r[t] + 1.0;
    }
    faces += face;
  }
  return delta * faces;
}

TEST(Registry, CircleQuarterExactHypervolumeMatchesADenseSample) {
  const problems::ProblemInfo* info = problems::Find("circle_quarter");
  ASSERT_NE(info, nullptr);
  const int n = 20000;
  const Eigen::MatrixXd front = info->pareto_front(n);
  // Equal angles pi / (2 (n - 1)) apart: every front point is within half
  // that arc (an upper bound on every coordinate's difference) of a sample.
  const double delta = 0.25 * 3.14159265358979323846 / (n - 1);
  for (const Eigen::Vector2d& r : {Eigen::Vector2d(0.0, 0.0),
                                  Eigen::Vector2d(0.5, 2.0),
                                  Eigen::Vector2d(1.0, 1.0)}) {
    SCOPED_TRACE("R = (" + std::to_string(r[0]) + ", " +
                 std::to_string(r[1]) + ")");
    const double exact = info->exact_hypervolume(r);
    EXPECT_NEAR(exact,
                (r[0] + 1.0) * (r[1] + 1.0) - (1.0 - 3.14159265358979323846 / 4),
                1e-15);
    std::string error;
    const double sampled = Hypervolume(front, r, &error);
    ASSERT_TRUE(std::isfinite(sampled)) << error;
    EXPECT_LT(sampled, exact);
    EXPECT_LE(exact - sampled, SamplingBound(delta, r));
    EXPECT_LE(exact - sampled, 1e-3 * exact);
  }
}

TEST(Registry, SphereOctantExactHypervolumeMatchesADenseGrid) {
  const problems::ProblemInfo* info = problems::Find("sphere_octant");
  ASSERT_NE(info, nullptr);
  // Grid in the polar angle theta (from -e3) and the azimuth phi, m
  // intervals of h = pi / (2m) each: from any front point, moving to the
  // nearest grid node costs at most h/2 in theta and sin(theta) h/2 <= h/2
  // along the parallel, so delta = h bounds every coordinate's difference.
  const int m = 2000;
  const double kHalfPi = 0.5 * 3.14159265358979323846;
  const double h = kHalfPi / m;
  Eigen::MatrixXd grid((m + 1) * (m + 1), 3);
  for (int i = 0; i <= m; ++i) {
    for (int j = 0; j <= m; ++j) {
      const double theta = h * i, phi = h * j;
      grid.row(i * (m + 1) + j) << -std::sin(theta) * std::cos(phi),
          -std::sin(theta) * std::sin(phi), -std::cos(theta);
    }
  }
  const double pi = 2.0 * kHalfPi;
  for (const Eigen::Vector3d& r : {Eigen::Vector3d(0.0, 0.0, 0.0),
                                  Eigen::Vector3d(0.5, 1.0, 2.0),
                                  Eigen::Vector3d(1.0, 1.0, 1.0)}) {
    SCOPED_TRACE("R = (" + std::to_string(r[0]) + ", " +
                 std::to_string(r[1]) + ", " + std::to_string(r[2]) + ")");
    const double exact = info->exact_hypervolume(r);
    EXPECT_NEAR(exact,
                (r.array() + 1.0).prod() - (1.0 - pi / 6) -
                    (1.0 - pi / 4) * r.sum(),
                1e-14);
    std::string error;
    const double sampled = Hypervolume(grid, r, &error);
    ASSERT_TRUE(std::isfinite(sampled)) << error;
    EXPECT_LT(sampled, exact);
    EXPECT_LE(exact - sampled, SamplingBound(h, r));
    EXPECT_LE(exact - sampled, 1e-3 * exact);
  }
  // Slices of R = (a, 0, 0): y_1 in [-1, 0] cuts the ball's octant (pi/6),
  // y_1 in [0, a] a quarter disk each (pi/4).
  EXPECT_NEAR(info->exact_hypervolume(Eigen::Vector3d(0.7, 0.0, 0.0)),
              pi / 6 + 0.7 * pi / 4, 1e-15);
  // Outside its domain: NaN.
  EXPECT_TRUE(std::isnan(info->exact_hypervolume(Eigen::Vector3d(-0.1, 0, 0))));
  EXPECT_TRUE(std::isnan(info->exact_hypervolume(Eigen::Vector2d(0, 0))));
}

}  // namespace
}  // namespace ecmo
