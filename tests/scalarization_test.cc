// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The weighted-Chebyshev scalarization with a reference point r and scales
// w (ecmo/scalarization.h), checked against closed forms only:
//   * single-objective problems with NEGATIVE optima (HS collection) reach
//     f* with default options (no offset, no reference point);
//   * corner preferences (weights 1e-4) on sphere_octant / circle_quarter
//     reach the exact WC point F* = pareto_point(lambda ./ w, -r) to 1e-6
//     with the automatic utopia reference, whose ideal point is (-1, ...);
//   * iterates below r while infeasible do not end a solve; truly
//     unbounded problems still end in FAILURE ("likely unbounded below");
//   * normalization (w = nadir - utopia) and explicit scales;
//   * the KKT certificate measured at the point (hand-computed case) and the
//     kkt_tolerance switch;
//   * validation of the scalarization options (message names the field);
//   * the single-objective solves spread over several evaluators (as a
//     sweep's threads share them) give the one-evaluator result bit for
//     bit, whichever evaluator solves which objective, also on threads,
//     and the same first error for an unbounded problem.

#include "ecmo/scalarization.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/kkt.h"
#include "ecmo/problem.h"
#include "ecmo/problems/registry.h"
#include "ecmo/result_writer.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"
#include "same_scalarization.h"
#include "scalarization_internal.h"
#include "single_objective_problems.h"
#include "test_files.h"
#include "test_problems.h"

namespace ecmo {
namespace {

const StrategyType kQuasiNewton[] = {StrategyType::WC_AUGMENTED_LAGRANGIAN,
                                     StrategyType::WC_PENALTY_LBFGS};

Eigen::VectorXd ToEigen(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(),
                                           static_cast<int>(v.size()));
}

using testing::Contains;

// f_s = scale_s z_s on the unit circle h = z0^2 + z1^2 - 1 (circle_quarter
// when both scales are 1).
struct ScaledCoordinate {
  ScaledCoordinate(int index, double scale) : index(index), scale(scale) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = scale * z[index];
    return true;
  }
  int index;
  double scale;
};
using testing::UnitCircle;
void BuildScaledCircle(double* z,
                       double scale1,
                       double scale2,
                       Problem* problem) {
  problem->AddObjective(new ceres::AutoDiffCostFunction<ScaledCoordinate, 1, 2>(
                            new ScaledCoordinate(0, scale1)),
                        {z},
                        "f1");
  problem->AddObjective(new ceres::AutoDiffCostFunction<ScaledCoordinate, 1, 2>(
                            new ScaledCoordinate(1, scale2)),
                        {z},
                        "f2");
  problem->AddConstraint(
      new ceres::AutoDiffCostFunction<UnitCircle, 1, 2>(new UnitCircle),
      {z},
      "unit_circle");
}

// The exact WC point in z of  min rho s.t. lambda_s (c_s z_s - r_s) / w_s
// <= rho, ||z|| = 1: with lambda'_s = c_s lambda_s / w_s and offset
// o_s = -r_s / c_s it is the registry's SphereWcPoint(lambda', o) (valid
// for r_s / c_s below -1).
Eigen::VectorXd ExactCircleZ(const std::vector<double>& preference,
                             const Eigen::VectorXd& scales,
                             const Scalarization& scalarization) {
  const problems::ProblemInfo* info = problems::Find("circle_quarter");
  Eigen::VectorXd lambda(2), offset(2);
  for (int s = 0; s < 2; ++s) {
    lambda[s] = scales[s] * preference[s] / scalarization.objective_scale[s];
    offset[s] = -scalarization.reference_point[s] / scales[s];
  }
  return info->pareto_point(lambda, offset);
}

// ---------------------------------------------------------------------- 1 --

TEST(Scalarization, SingleObjectiveProblemsReachTheirNegativeOptimum) {
  for (StrategyType strategy : kQuasiNewton) {
    for (const testing::SingleObjectiveProblem& p :
         testing::SingleObjectiveProblems()) {
      SCOPED_TRACE(std::string(StrategyTypeToString(strategy)) + " " + p.name);
      std::vector<double> z = p.start;
      Problem problem;
      p.build(z.data(), &problem);
      Solver::Options options;  // no offset, no reference point
      options.strategy = strategy;
      Solver::Summary summary;
      Solve(options, problem, {1.0}, &summary);
      EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE)
          << summary.message;
      EXPECT_EQ(summary.scalarization.reference_point_type,
                ReferencePointType::SINGLE_OBJECTIVE);
      EXPECT_EQ(summary.scalarization.num_single_objective_solves, 0);
      ASSERT_EQ(summary.objectives.size(), 1);
      const double f_star = p.optimal_value;
      EXPECT_NEAR(
          summary.objectives[0], f_star, 1e-6 * std::max(1.0, std::abs(f_star)))
          << summary.FullReport();
      EXPECT_LE(summary.constraint_max_norm, options.feasibility_tolerance);
    }
  }
}

// ---------------------------------------------------------------------- 2 --

// Solves `name` from its start with default options (and `strategy`) and
// checks the objectives against F* = pareto_point(lambda ./ w, -r), r and w
// as reported. With must_converge false a NO_CONVERGENCE summary is
// accepted (the pure penalty strategy, see below), but a CONVERGENCE one
// must still be the exact point.
void ExpectExactWcPointOnRegistryProblem(const std::string& name,
                                         const std::vector<double>& preference,
                                         StrategyType strategy,
                                         bool must_converge = true) {
  SCOPED_TRACE(name + " " + StrategyTypeToString(strategy));
  const problems::ProblemInfo* info = problems::Find(name);
  ASSERT_NE(info, nullptr);
  const int S = info->num_objectives;
  std::unique_ptr<problems::ProblemInstance> instance = info->build();
  Solver::Options options;
  options.strategy = strategy;
  Solver::Summary summary;
  Solve(options, instance->problem, preference, &summary);
  if (must_converge) {
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  } else if (summary.termination_type != ceres::CONVERGENCE) {
    EXPECT_EQ(summary.termination_type, ceres::NO_CONVERGENCE)
        << summary.message;
    return;
  }
  const Scalarization& sc = summary.scalarization;
  EXPECT_EQ(sc.reference_point_type, ReferencePointType::UTOPIA);
  EXPECT_EQ(sc.num_single_objective_solves, S);
  ASSERT_EQ(sc.ideal_point.size(), S);
  ASSERT_EQ(sc.nadir_point.size(), S);
  ASSERT_EQ(sc.reference_point.size(), S);
  ASSERT_EQ(sc.objective_scale.size(), S);
  for (int s = 0; s < S; ++s) {
    // The ideal point of the octant / quarter circle is (-1, ..., -1) and
    // the nadir (0, ..., 0), so r = -1 - utopia_margin * 1 = -1.01. The
    // ideal values are objective values of certified minimizers (1e-6);
    // the nadir entries are the OTHER coordinates of those minimizers,
    // which the certificate only places within O(stationarity_tolerance)
    // of the KKT point (the wc-penalty-lbfgs solves give 1.6e-6): 1e-5.
    EXPECT_NEAR(sc.ideal_point[s], -1.0, 1e-6) << s;
    EXPECT_NEAR(sc.nadir_point[s], 0.0, 1e-5) << s;
    EXPECT_LT(sc.reference_point[s], sc.ideal_point[s]) << s;
    EXPECT_NEAR(sc.reference_point[s], -1.0 - options.utopia_margin, 1e-6) << s;
    // Normalized by default: w = nadir - utopia = 1 + margin.
    EXPECT_TRUE(sc.normalized);
    EXPECT_NEAR(sc.objective_scale[s], 1.0 + options.utopia_margin, 1e-5) << s;
  }
  const Eigen::VectorXd lambda =
      ToEigen(preference).cwiseQuotient(sc.objective_scale);
  const Eigen::VectorXd exact = info->pareto_point(lambda, -sc.reference_point);
  ASSERT_EQ(summary.objectives.size(), S);
  for (int s = 0; s < S; ++s) {
    EXPECT_NEAR(summary.objectives[s], exact[s], 1e-6)
        << "objective " << s << "\n"
        << summary.FullReport();
  }
  // What the certificate promises (solver.h): ||h||_inf <= 1e-8 and each
  // ACTIVE objective (exact z_s < 0; inactive ones sit at z_s = 0) within
  // about complementarity_tolerance times its scale (1.01 here): 3e-8.
  // Inactive objectives are only bounded through stationarity_tolerance
  // (up to about 1.4e-6 for (1e-4, 0.5, 0.5 - 1e-4)), hence the 1e-6 above.
  EXPECT_LE(summary.constraint_max_norm, options.feasibility_tolerance);
  for (int s = 0; s < S; ++s) {
    if (exact[s] < -1e-3) {
      EXPECT_NEAR(summary.objectives[s], exact[s], 3e-8) << "active " << s;
    }
  }
}

// The default strategy (wc-augmented-lagrangian) must certify every point.
// The pure penalty (wc-penalty-lbfgs) ends NO_CONVERGENCE on two corner
// preferences of the octant, (1e-4, 0.5, 0.5 - 1e-4) and (1 - 2e-4, 1e-4,
// 1e-4): its inner solves stall once u >= 1e6 with an inactive coordinate
// still 3.4e-6 off zero (the least-squares certificate's stationarity is
// 2.4e-6 > 1e-6). That is honest (not certified), so for it only a
// CONVERGENCE claim is checked against the exact point.
TEST(Scalarization, CornerPreferencesReachTheExactWcPointOnTheOctant) {
  const double e = 1e-4;
  const std::vector<std::vector<double>> preferences = {
      {e, e, 1.0 - 2.0 * e},
      {e, 0.5, 0.5 - e},
      {1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0},
      {1.0 - 2.0 * e, e, e},
      {e, 1.0 - 2.0 * e, e}};
  for (const std::vector<double>& preference : preferences) {
    SCOPED_TRACE(::testing::Message()
                 << "preference (" << preference[0] << ", " << preference[1]
                 << ", " << preference[2] << ")");
    ExpectExactWcPointOnRegistryProblem(
        "sphere_octant", preference, StrategyType::WC_AUGMENTED_LAGRANGIAN);
    ExpectExactWcPointOnRegistryProblem("sphere_octant",
                                        preference,
                                        StrategyType::WC_PENALTY_LBFGS,
                                        /*must_converge=*/false);
  }
}

// As on the octant, the pure penalty may end NO_CONVERGENCE at a corner
// preference (normalized, w = 1.01: at lambda_1 = 1 - 1e-4 its penalty
// reaches max_penalty with the least-squares stationarity at 8e-5); only
// its CONVERGENCE claims are checked there.
TEST(Scalarization, CornerPreferencesReachTheExactWcPointOnTheQuarterCircle) {
  for (double lambda1 : {1e-4, 0.1, 0.5, 0.9, 1.0 - 1e-4}) {
    for (StrategyType strategy : kQuasiNewton) {
      SCOPED_TRACE(::testing::Message() << "lambda1 = " << lambda1);
      ExpectExactWcPointOnRegistryProblem(
          "circle_quarter",
          {lambda1, 1.0 - lambda1},
          strategy,
          /*must_converge=*/strategy != StrategyType::WC_PENALTY_LBFGS ||
              (lambda1 > 1e-3 && lambda1 < 1.0 - 1e-3));
    }
  }
}

// ---------------------------------------------------------------------- 3 --

// f = z on the unit circle from (-5, -5): infeasible and far below r.
TEST(Scalarization, InfeasibleIteratesBelowTheReferencePointAreOrdinary) {
  struct Case {
    const char* label;
    std::vector<double> reference_point;
    std::vector<double> objective_offset;
  };
  const Case cases[] = {{"reference_point (-1.5, -1.5)", {-1.5, -1.5}, {}},
                        {"objective_offset (1.5, 1.5)", {}, {1.5, 1.5}},
                        {"automatic utopia", {}, {}}};
  for (const Case& c : cases) {
    for (const std::vector<double>& preference :
         std::vector<std::vector<double>>{{0.5, 0.5}, {0.2, 0.8}}) {
      for (StrategyType strategy : kQuasiNewton) {
        SCOPED_TRACE(::testing::Message()
                     << c.label << ", " << StrategyTypeToString(strategy)
                     << ", lambda1 = " << preference[0]);
        double z[2] = {-5.0, -5.0};
        Problem problem;
        BuildScaledCircle(z, 1.0, 1.0, &problem);
        Solver::Options options;
        options.strategy = strategy;
        options.reference_point = c.reference_point;
        options.objective_offset = c.objective_offset;
        Solver::Summary summary;
        Solve(options, problem, preference, &summary);
        ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
            << summary.message;
        EXPECT_LT(summary.initial_objectives.maxCoeff(),
                  summary.scalarization.reference_point.minCoeff());
        if (!c.reference_point.empty() || !c.objective_offset.empty()) {
          EXPECT_NEAR(summary.scalarization.reference_point[0], -1.5, 0.0);
          EXPECT_NEAR(summary.scalarization.reference_point[1], -1.5, 0.0);
        }
        const Eigen::VectorXd exact = ExactCircleZ(
            preference, Eigen::Vector2d(1.0, 1.0), summary.scalarization);
        EXPECT_NEAR(summary.objectives[0], exact[0], 1e-6);
        EXPECT_NEAR(summary.objectives[1], exact[1], 1e-6);
        EXPECT_NEAR(z[0], exact[0], 1e-6);
        EXPECT_NEAR(z[1], exact[1], 1e-6);
      }
    }
  }
  // The faithful strategy (Algorithm 1, T steps) is not stopped either.
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    double z[2] = {-5.0, -5.0};
    Problem problem;
    BuildScaledCircle(z, 1.0, 1.0, &problem);
    Solver::Options options;
    options.strategy = StrategyType::WC_PENALTY_PGD;
    options.max_iterations = 20000;
    options.reference_point = c.reference_point;
    options.objective_offset = c.objective_offset;
    Solver::Summary summary;
    Solve(options, problem, {0.5, 0.5}, &summary);
    EXPECT_NE(summary.termination_type, ceres::FAILURE) << summary.message;
    EXPECT_TRUE(summary.IsSolutionUsable()) << summary.message;
    EXPECT_EQ(summary.iterations, options.max_iterations) << summary.message;
  }
}

// f1 = f2 = z0 (or f = z0 alone) on {z1 = 0}: unbounded below.
struct FirstCoordinate {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = z[0];
    return true;
  }
};
struct SecondCoordinateIsZero {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = z[1];
    return true;
  }
};

// Runs row i on evaluator route(i), in order on this thread.
internal::ParallelFor Routed(std::function<int(int)> route) {
  return [route](int n, const std::function<void(int, int)>& body) {
    for (int i = 0; i < n; ++i) body(i, route(i));
  };
}

// Rows i on thread i % 2, two threads at once.
void OnTwoThreads(int n, const std::function<void(int, int)>& body) {
  std::thread other([&] {
    for (int i = 1; i < n; i += 2) body(i, 1);
  });
  for (int i = 0; i < n; i += 2) body(i, 0);
  other.join();
}

TEST(Scalarization, SolvesSpreadOverEvaluatorsGiveTheOneEvaluatorResult) {
  for (const char* name : {"circle_quarter", "sphere_octant"}) {
    SCOPED_TRACE(name);
    const problems::ProblemInfo* info = problems::Find(name);
    ASSERT_NE(info, nullptr);
    std::unique_ptr<problems::ProblemInstance> a = info->build();
    std::unique_ptr<problems::ProblemInstance> b = info->build();
    ProblemEvaluator ea(&a->problem), eb(&b->problem);
    Eigen::VectorXd z(ea.NumParameters());
    a->problem.GetParameters(z.data());
    Solver::Options options;
    options.normalize_objectives = true;
    Scalarization serial;
    std::string error;
    ASSERT_TRUE(ComputeScalarization(options, &ea, z, &serial, &error))
        << error;
    const int S = ea.NumObjectives();
    ASSERT_EQ(serial.num_single_objective_solves, S);
    const internal::ParallelFor ways[] = {
        Routed([](int i) { return (i + 1) % 2; }),  // row 0 on the second
        Routed([](int i) { return i % 2; }),
        OnTwoThreads};
    for (const internal::ParallelFor& parallel_for : ways) {
      Scalarization spread;
      ASSERT_TRUE(internal::ComputeScalarization(
          options, {&ea, &eb}, parallel_for, z, &spread, &error))
          << error;
      testing::ExpectSameScalarization(spread, serial);
    }
  }
  // An unbounded problem (f1 = f2 = z0 on {z1 = 0}): the error of the first
  // objective, however the solves are spread.
  double z1[2] = {1.0, 0.5}, z2[2] = {1.0, 0.5};
  Problem p1, p2;
  for (auto [problem, z] : {std::pair{&p1, z1}, std::pair{&p2, z2}}) {
    for (int s = 0; s < 2; ++s) {
      problem->AddObjective(
          new ceres::AutoDiffCostFunction<FirstCoordinate, 1, 2>(
              new FirstCoordinate),
          {z});
    }
    problem->AddConstraint(
        new ceres::AutoDiffCostFunction<SecondCoordinateIsZero, 1, 2>(
            new SecondCoordinateIsZero),
        {z});
  }
  ProblemEvaluator e1(&p1), e2(&p2);
  const Eigen::Vector2d start(1.0, 0.5);
  Solver::Options options;
  Scalarization serial, spread;
  std::string serial_error, spread_error;
  EXPECT_FALSE(
      ComputeScalarization(options, &e1, start, &serial, &serial_error));
  EXPECT_FALSE(internal::ComputeScalarization(
      options, {&e1, &e2}, OnTwoThreads, start, &spread, &spread_error));
  EXPECT_TRUE(Contains(serial_error, "min f_0")) << serial_error;
  EXPECT_EQ(spread_error, serial_error);
}

// The public form: the solves on pool threads, one evaluator each, give
// the one-evaluator result (these evaluators carry no state between
// solves); a wrong list says what is wrong.
TEST(Scalarization, PublicFormOnSeveralEvaluatorsGivesTheOneEvaluatorResult) {
  const problems::ProblemInfo* info = problems::Find("sphere_octant");
  ASSERT_NE(info, nullptr);
  std::vector<std::unique_ptr<problems::ProblemInstance>> instances;
  std::vector<std::unique_ptr<ProblemEvaluator>> owned;
  std::vector<Evaluator*> evaluators;
  for (int t = 0; t < 4; ++t) {
    instances.push_back(info->build());
    owned.push_back(std::make_unique<ProblemEvaluator>(&instances[t]->problem));
    evaluators.push_back(owned.back().get());
  }
  Eigen::VectorXd z(evaluators[0]->NumParameters());
  instances[0]->problem.GetParameters(z.data());
  Solver::Options options;
  options.normalize_objectives = true;
  Scalarization serial;
  std::string error;
  ASSERT_TRUE(ComputeScalarization(options, evaluators[0], z, &serial, &error))
      << error;
  ASSERT_EQ(serial.num_single_objective_solves, 3);
  // 2 and 3 evaluators, and 4 (more than the S = 3 solves).
  for (size_t n = 2; n <= evaluators.size(); ++n) {
    SCOPED_TRACE(n);
    const std::vector<Evaluator*> some(evaluators.begin(),
                                       evaluators.begin() + n);
    std::vector<EvaluationCounts> before;
    for (const Evaluator* e : some) before.push_back(e->counts());
    Scalarization spread;
    ASSERT_TRUE(ComputeScalarization(options, some, z, &spread, &error))
        << error;
    testing::ExpectSameScalarization(spread, serial);
    // Summed over the evaluators, whichever took which solve.
    long long work = 0;
    for (size_t t = 0; t < n; ++t) {
      work += some[t]->counts().gradient_evaluations -
              before[t].gradient_evaluations;
    }
    EXPECT_EQ(work, serial.evaluations.gradient_evaluations);
  }
  Scalarization out;
  EXPECT_FALSE(ComputeScalarization(
      options, std::vector<Evaluator*>{}, z, &out, &error));
  EXPECT_TRUE(Contains(error, "no evaluator")) << error;
  EXPECT_FALSE(
      ComputeScalarization(options, {evaluators[0], nullptr}, z, &out, &error));
  EXPECT_TRUE(Contains(error, "evaluators[1] is null")) << error;
  const problems::ProblemInfo* other = problems::Find("circle_quarter");
  ASSERT_NE(other, nullptr);
  std::unique_ptr<problems::ProblemInstance> small = other->build();
  ProblemEvaluator small_evaluator(&small->problem);
  EXPECT_FALSE(ComputeScalarization(
      options, {evaluators[0], &small_evaluator}, z, &out, &error));
  EXPECT_TRUE(Contains(error, "evaluators[1] has")) << error;
  EXPECT_FALSE(ComputeScalarization(options,
                                    {evaluators[0], evaluators[1]},
                                    Eigen::VectorXd::Zero(1),
                                    &out,
                                    &error));
  EXPECT_TRUE(Contains(error, "the start point has 1 entries")) << error;
}

TEST(Scalarization, UnboundedProblemsStillFailForEveryStrategy) {
  struct Case {
    const char* label;
    int num_objectives;
    std::vector<double> reference_point;
    std::vector<double> objective_offset;
  };
  const Case cases[] = {{"S = 2, automatic utopia", 2, {}, {}},
                        {"S = 2, reference_point", 2, {-2.0, -2.0}, {}},
                        {"S = 2, objective_offset", 2, {}, {2.0, 2.0}},
                        {"S = 1, default (r = 0)", 1, {}, {}},
                        {"S = 1, reference_point", 1, {-2.0}, {}}};
  for (const Case& c : cases) {
    for (const std::string& name : StrategyTypeNames()) {
      SCOPED_TRACE(std::string(c.label) + ", " + name);
      double z[2] = {1.0, 0.5};
      Problem problem;
      for (int s = 0; s < c.num_objectives; ++s) {
        problem.AddObjective(
            new ceres::AutoDiffCostFunction<FirstCoordinate, 1, 2>(
                new FirstCoordinate),
            {z});
      }
      problem.AddConstraint(
          new ceres::AutoDiffCostFunction<SecondCoordinateIsZero, 1, 2>(
              new SecondCoordinateIsZero),
          {z});
      Solver::Options options;
      ASSERT_TRUE(StringToStrategyType(name, &options.strategy));
      options.max_iterations = 100000;
      options.reference_point = c.reference_point;
      options.objective_offset = c.objective_offset;
      Solver::Summary summary;
      const std::vector<double> preference =
          c.num_objectives == 1 ? std::vector<double>{1.0}
                                : std::vector<double>{0.5, 0.5};
      Solve(options, problem, preference, &summary);
      const bool lower_bound_given =
          !c.reference_point.empty() || !c.objective_offset.empty();
      if (options.strategy == StrategyType::WC_PENALTY_PGD &&
          !lower_bound_given) {
        // Known limitation (reported, not fixed): without an asserted lower
        // bound the only evidence is rho below -1e8 times its scale, which
        // Algorithm 1 with eta = eta0 T^(-1/4) cannot reach in T steps
        // (rho moves by about eta per step). It ends NO_CONVERGENCE after
        // T steps; with the automatic reference the single-objective solve
        // ends the same way and is used with a note. Never CONVERGENCE.
        EXPECT_EQ(summary.termination_type, ceres::NO_CONVERGENCE)
            << summary.message;
        EXPECT_EQ(summary.iterations, options.max_iterations);
        if (c.num_objectives == 2) {
          EXPECT_TRUE(
              Contains(summary.scalarization.message, "ended NO_CONVERGENCE"))
              << summary.scalarization.message;
        }
        continue;
      }
      EXPECT_EQ(summary.termination_type, ceres::FAILURE) << summary.message;
      EXPECT_TRUE(Contains(summary.message, "likely unbounded below"))
          << summary.message;
      EXPECT_FALSE(summary.IsSolutionUsable());
      if (c.num_objectives == 2 && !lower_bound_given) {
        // The single-objective solve behind the utopia point reports it.
        EXPECT_TRUE(Contains(summary.message,
                             "Computing the automatic reference point"))
            << summary.message;
      }
    }
  }
}

// ---------------------------------------------------------------------- 4 --

TEST(Scalarization, NormalizationMakesUnitsIrrelevant) {
  const double inv_sqrt2 = 1.0 / std::sqrt(2.0);
  // Unscaled circle, default options (w = 1, r = utopia): equal weights
  // select (-1/sqrt 2, -1/sqrt 2) by symmetry.
  {
    double z[2] = {0.6, -0.8};
    Problem problem;
    BuildScaledCircle(z, 1.0, 1.0, &problem);
    Solver::Summary summary;
    Solve(Solver::Options(), problem, {0.5, 0.5}, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_NEAR(z[0], -inv_sqrt2, 1e-6);
    EXPECT_NEAR(z[1], -inv_sqrt2, 1e-6);
  }
  // f2 = 1000 z2. Ideal (-1, -1000), nadir (0, 0), utopia = ideal - 0.01
  // (nadir - ideal) = (-1.01, -1010), so w = nadir - utopia = (1.01, 1010)
  // and the normalized objectives (f_s - r_s) / w_s = (z_s + 1.01) / 1.01
  // are those of the unscaled circle: the same point.
  const double margin = Solver::Options().utopia_margin;
  for (StrategyType strategy : kQuasiNewton) {
    SCOPED_TRACE(StrategyTypeToString(strategy));
    double z[2] = {0.6, -0.8};
    Problem problem;
    BuildScaledCircle(z, 1.0, 1000.0, &problem);
    Solver::Options options;
    options.strategy = strategy;
    options.normalize_objectives = true;
    Solver::Summary summary;
    Solve(options, problem, {0.5, 0.5}, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    const Scalarization& sc = summary.scalarization;
    EXPECT_TRUE(sc.normalized);
    EXPECT_EQ(sc.reference_point_type, ReferencePointType::UTOPIA);
    const Eigen::Vector2d ideal(-1.0, -1000.0), nadir(0.0, 0.0);
    const Eigen::Vector2d utopia = ideal - margin * (nadir - ideal);
    for (int s = 0; s < 2; ++s) {
      const double unit = s == 0 ? 1.0 : 1000.0;
      EXPECT_NEAR(sc.ideal_point[s], ideal[s], 1e-6 * unit);
      // Nadir entries are coordinates of the single-objective minimizers:
      // O(stationarity_tolerance) accurate, see above; r only moves by
      // utopia_margin times that.
      EXPECT_NEAR(sc.nadir_point[s], nadir[s], 1e-5 * unit);
      EXPECT_NEAR(sc.reference_point[s], utopia[s], 1e-6 * unit);
      EXPECT_NEAR(sc.objective_scale[s], nadir[s] - utopia[s], 1e-5 * unit);
      EXPECT_NEAR(sc.objective_scale[s],
                  sc.nadir_point[s] - sc.reference_point[s],
                  1e-12 * unit);
    }
    EXPECT_NEAR(z[0], -inv_sqrt2, 1e-6);
    EXPECT_NEAR(z[1], -inv_sqrt2, 1e-6);
    EXPECT_NEAR(summary.objectives[0], -inv_sqrt2, 1e-6);
    EXPECT_NEAR(summary.objectives[1], -1000.0 * inv_sqrt2, 1e-3);
    // The work is reported.
    EXPECT_EQ(sc.num_single_objective_solves, 2);
    EXPECT_GT(sc.evaluations.value_evaluations, 0);
    EXPECT_GT(sc.evaluations.gradient_evaluations, 0);
    EXPECT_GT(summary.evaluations.value_evaluations, 0);
    EXPECT_GT(summary.evaluations.gradient_evaluations, 0);
    EXPECT_GE(sc.time_in_seconds, 0.0);

    // Without normalization the same weights pick another point: the
    // exact WC point with lambda' = (0.5, 500), far from the diagonal.
    z[0] = 0.6;
    z[1] = -0.8;
    options.normalize_objectives = false;
    Solve(options, problem, {0.5, 0.5}, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_FALSE(summary.scalarization.normalized);
    const Eigen::VectorXd unnormalized = ExactCircleZ(
        {0.5, 0.5}, Eigen::Vector2d(1.0, 1000.0), summary.scalarization);
    EXPECT_NEAR(z[0], unnormalized[0], 1e-6);
    EXPECT_NEAR(z[1], unnormalized[1], 1e-6);
    EXPECT_GT(std::abs(unnormalized[0] + inv_sqrt2), 0.1);

    // An explicit objective_scale overrides the normalization (the utopia
    // reference point is still computed).
    z[0] = 0.6;
    z[1] = -0.8;
    options.normalize_objectives = true;
    options.objective_scale = {1.0, 2000.0};
    Solve(options, problem, {0.5, 0.5}, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_FALSE(summary.scalarization.normalized);
    EXPECT_EQ(summary.scalarization.objective_scale[0], 1.0);
    EXPECT_EQ(summary.scalarization.objective_scale[1], 2000.0);
    EXPECT_EQ(summary.scalarization.num_single_objective_solves, 2);
    const Eigen::VectorXd given = ExactCircleZ(
        {0.5, 0.5}, Eigen::Vector2d(1.0, 1000.0), summary.scalarization);
    EXPECT_NEAR(z[0], given[0], 1e-6);
    EXPECT_NEAR(z[1], given[1], 1e-6);
    EXPECT_GT(std::abs(given[0] + inv_sqrt2), 0.01);
  }
}

// ---------------------------------------------------------------------- 5 --

TEST(Scalarization, ReturnedPointsCarryTheCertificate) {
  const problems::ProblemInfo* info = problems::Find("sphere_octant");
  ASSERT_NE(info, nullptr);
  for (StrategyType strategy : kQuasiNewton) {
    SCOPED_TRACE(StrategyTypeToString(strategy));
    std::unique_ptr<problems::ProblemInstance> instance = info->build();
    Solver::Options options;
    options.strategy = strategy;
    Solver::Summary summary;
    Solve(options, instance->problem, {0.2, 0.3, 0.5}, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_TRUE(Contains(summary.message, "certificate")) << summary.message;
    ASSERT_TRUE(summary.kkt.has_certificates);
    const KktCertificate& best =
        summary.kkt.BestCertificate(options.stationarity_tolerance,
                                    options.complementarity_tolerance,
                                    options.feasibility_tolerance);
    EXPECT_TRUE(best.Certifies(options.stationarity_tolerance,
                               options.complementarity_tolerance,
                               options.feasibility_tolerance))
        << summary.FullReport();
    EXPECT_LE(best.feasibility, options.feasibility_tolerance);
    EXPECT_LE(summary.constraint_max_norm, options.feasibility_tolerance);

    // kkt_tolerance > 0: the paper's raw test decides instead.
    instance->ResetToStart();
    options.kkt_tolerance = 1e-12;
    Solve(options, instance->problem, {0.2, 0.3, 0.5}, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_TRUE(Contains(summary.message, "kkt_tolerance")) << summary.message;
    EXPECT_LE(
        std::min(summary.kkt.with_solver_multipliers.SquaredNorm(),
                 summary.kkt.with_least_squares_multipliers.SquaredNorm()),
        options.kkt_tolerance)
        << summary.FullReport();
  }
}

// The certificate measures at the returned point: a start 300-400 times
// the front's size (in the objective values) does not loosen it. With and
// without given scales, from the far start and from a near one, every
// strategy lands within 1e-7 of the exact WC point, and the certificate's
// value scale D is max(|rho|, lambda_s |f_s|) at the returned point.
TEST(Scalarization, TheCertificateDoesNotDependOnTheStart) {
  for (StrategyType strategy :
       {StrategyType::WC_AUGMENTED_LAGRANGIAN, StrategyType::WC_SQP}) {
    SCOPED_TRACE(StrategyTypeToString(strategy));
    for (const bool given : {false, true}) {
      SCOPED_TRACE(given ? "scales given" : "no scales");
      for (const bool far : {true, false}) {
        SCOPED_TRACE(far ? "far start" : "near start");
        double z[2] = {300.0, 400.0};  // f(z0) - r = (302, 402)
        if (!far) {
          z[0] = 0.6;
          z[1] = -0.8;
        }
        Problem problem;
        BuildScaledCircle(z, 1.0, 1.0, &problem);
        Solver::Options options;
        options.strategy = strategy;
        options.reference_point = {-2.0, -2.0};
        if (given) options.objective_scale = {1.0, 1.0};
        Solver::Summary summary;
        Solve(options, problem, {0.3, 0.7}, &summary);
        ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
            << summary.message;
        EXPECT_EQ(summary.scalarization.scale_given, given);
        ASSERT_TRUE(summary.kkt.has_certificates);
        const Eigen::VectorXd exact = ExactCircleZ(
            {0.3, 0.7}, Eigen::Vector2d(1.0, 1.0), summary.scalarization);
        EXPECT_NEAR(z[0], exact[0], 1e-7);
        EXPECT_NEAR(z[1], exact[1], 1e-7);
        const KktCertificate& best = summary.kkt.BestCertificate(
            options.stationarity_tolerance,
            options.complementarity_tolerance,
            options.feasibility_tolerance);
        const Eigen::Vector2d lambda =
            Eigen::Vector2d(0.3, 0.7).cwiseQuotient(
                summary.scalarization.objective_scale);
        const Eigen::Vector2d shifted =
            summary.objectives - summary.scalarization.reference_point;
        EXPECT_NEAR(best.value_scale,
                    std::max(std::abs(summary.final_rho),
                             lambda.cwiseProduct(shifted).cwiseAbs().maxCoeff()),
                    1e-12);
      }
    }
  }

  // The flag survives the result files (resume reads it back).
  Scalarization written;
  written.reference_point = Eigen::Vector2d(-2.0, -2.0);
  written.objective_scale = Eigen::Vector2d(1.0, 3.0);
  written.scale_given = true;
  Scalarization read;
  std::string error;
  ASSERT_TRUE(
      ScalarizationFromJson(ScalarizationToJson(written), &read, &error))
      << error;
  EXPECT_TRUE(read.scale_given);
  nlohmann::json bad = ScalarizationToJson(written);
  bad["scale_given"] = "yes";
  EXPECT_FALSE(ScalarizationFromJson(bad, &read, &error));
  EXPECT_TRUE(Contains(error, "scalarization.scale_given")) << error;
}

// Scales 1e3 .. 1e6 times the objectives' size leave weighted gradients
// of 5e-4 .. 5e-7 at the start; the strategies' penalties start from O(1)
// constants and stalled at max_penalty. Solve scales such objectives up to
// a largest weighted gradient of 0.1 (Summary::objective_scaling), and the
// point is the exact WC point whatever the scale.
TEST(Scalarization, ScalesFarAboveTheObjectivesStillReachTheExactPoint) {
  for (StrategyType strategy : {StrategyType::WC_AUGMENTED_LAGRANGIAN,
                                StrategyType::WC_SQP,
                                StrategyType::WC_PENALTY_LBFGS}) {
    SCOPED_TRACE(StrategyTypeToString(strategy));
    for (const double w : {1e3, 1e6}) {
      SCOPED_TRACE(::testing::Message() << "w = " << w);
      double z[2] = {0.6, -0.8};
      Problem problem;
      BuildScaledCircle(z, 1.0, 1.0, &problem);
      Solver::Options options;
      options.strategy = strategy;
      options.reference_point = {-2.0, -2.0};
      options.objective_scale = {w, w};
      Solver::Summary summary;
      Solve(options, problem, {0.5, 0.5}, &summary);
      ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
          << summary.message;
      // largest |lambda_s / w_s grad f_s| = 0.5 / w.
      EXPECT_NEAR(summary.objective_scaling, 0.2 * w, 1e-9 * w);
      const double inv_sqrt2 = 1.0 / std::sqrt(2.0);
      EXPECT_NEAR(z[0], -inv_sqrt2, 1e-7);
      EXPECT_NEAR(z[1], -inv_sqrt2, 1e-7);
    }
  }
}

TEST(Scalarization, CertificateOfAHandBuiltResidual) {
  // S = 2, k = 2, q = 2.
  const double rho = 0.5;
  const Eigen::Vector2d lambda(0.25, 0.75), f(2.0, 1.0), omega(0.6, 0.5);
  KktResidual residual;
  residual.simplex = omega.sum() - 1.0;
  residual.stationarity = Eigen::Vector2d(0.3, -0.4);
  residual.stationarity_scale = 0.8;  // the largest term, by hand
  residual.feasibility = Eigen::Vector2d(1e-3, -2e-3);
  residual.complementarity = Eigen::Vector2d(0.0, -0.25);
  const KktCertificate c =
      ComputeKktCertificate(rho, lambda, f, omega, residual);
  // simplex: |0.6 + 0.5 - 1| = 0.1.
  EXPECT_NEAR(c.simplex, 0.1, 1e-15);
  // stationarity: ||(0.3, -0.4)||_inf / 0.8.
  EXPECT_NEAR(c.stationarity, 0.5, 1e-15);
  EXPECT_EQ(c.stationarity_scale, 0.8);
  // D = max(|0.5|, 0.25 * 2, 0.75 * 1) = 0.75; slacks (0.5 - 0.5) / D = 0
  // and (0.5 - 0.75) / D = -1/3; max |min(omega_s, slack_s)| = 1/3.
  EXPECT_NEAR(c.value_scale, 0.75, 1e-15);
  EXPECT_NEAR(c.complementarity, 1.0 / 3.0, 1e-15);
  // feasibility: ||h||_inf = 2e-3.
  EXPECT_NEAR(c.feasibility, 2e-3, 1e-18);
  EXPECT_TRUE(std::isnan(c.model_decrease));
  // Ratio: max(max(0.1, 0.5) / 0.6, (1/3) / 0.5, 2e-3 / 0.01) = 5/6.
  EXPECT_NEAR(c.Ratio(0.6, 0.5, 0.01), 5.0 / 6.0, 1e-15);
  EXPECT_TRUE(c.Certifies(0.6, 0.5, 0.01));
  EXPECT_FALSE(c.Certifies(0.6, 0.3, 0.01));  // complementarity 1.11
  EXPECT_FALSE(c.Certifies(0.4, 0.5, 0.01));  // stationarity 1.25
  EXPECT_FALSE(c.Certifies(0.6, 0.5, 1e-3));  // feasibility 2

  // A floor above the largest term: the residual is measured against it.
  const KktCertificate floored =
      ComputeKktCertificate(rho, lambda, f, omega, residual, 2.0);
  EXPECT_NEAR(floored.stationarity, 0.2, 1e-15);
  EXPECT_EQ(floored.stationarity_scale, 2.0);

  // A computed model decrease replaces the relative stationarity block:
  // within its tolerance the point passes at a stationarity tolerance the
  // relative block misses, beyond it nothing passes.
  KktCertificate with_model = c;
  with_model.model_decrease = 1e-11;
  EXPECT_NEAR(with_model.Ratio(0.4, 0.5, 0.01, 1e-10), 2.0 / 3.0, 1e-15);
  with_model.model_decrease = 1e-9;
  EXPECT_NEAR(with_model.Ratio(0.4, 0.5, 0.01, 1e-10), 10.0, 1e-9);
  EXPECT_FALSE(with_model.Certifies(0.6, 0.5, 0.01));

  // Without the scale (a residual nobody measured) nothing is certified;
  // a zero residual at a zero scale is (0 / 0 = 0 here).
  KktResidual unscaled = residual;
  unscaled.stationarity_scale = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(ComputeKktCertificate(rho, lambda, f, omega, unscaled)
                   .Certifies(0.9, 0.9, 0.9));
  KktResidual zero_residual = residual;
  zero_residual.stationarity.setZero();
  zero_residual.stationarity_scale = 0.0;
  EXPECT_EQ(ComputeKktCertificate(rho, lambda, f, omega, zero_residual)
                .stationarity,
            0.0);

  // Multipliers far from the simplex.
  const Eigen::Vector2d zero(0.0, 0.0);
  KktResidual at_zero = residual;
  at_zero.simplex = -1.0;
  const KktCertificate c0 =
      ComputeKktCertificate(rho, lambda, f, zero, at_zero);
  EXPECT_NEAR(c0.simplex, 1.0, 1e-15);
  EXPECT_NEAR(c0.stationarity, 0.5, 1e-15);
  EXPECT_NEAR(c0.complementarity, 1.0 / 3.0, 1e-15);  // min(0, -1/3)

  // Wrong sizes: nothing is certified.
  const KktCertificate bad = ComputeKktCertificate(
      rho, lambda, f, Eigen::VectorXd::Ones(3), residual);
  EXPECT_FALSE(bad.Certifies(0.5, 0.5, 0.5));

  // BestCertificate: the one with the smaller ratio for these tolerances.
  KktReport report;
  report.certificate_with_solver_multipliers = c;
  report.certificate_with_least_squares_multipliers = c0;
  EXPECT_EQ(&report.BestCertificate(0.6, 0.5, 0.01),
            &report.certificate_with_solver_multipliers);
  report.certificate_with_solver_multipliers.feasibility = 1.0;  // ratio 100
  EXPECT_EQ(&report.BestCertificate(0.6, 0.5, 0.01),
            &report.certificate_with_least_squares_multipliers);
}

// ---------------------------------------------------------------------- 6 --

// IsValid (when it can tell without the problem) and Solve on the quarter
// circle both refuse `options`, naming `field`.
void ExpectRefused(const Solver::Options& options,
                   const std::string& field,
                   bool is_valid_can_tell = true) {
  std::string error;
  if (is_valid_can_tell) {
    EXPECT_FALSE(options.IsValid(&error));
    EXPECT_TRUE(Contains(error, field)) << error;
  } else {
    EXPECT_TRUE(options.IsValid(&error)) << error;
  }
  std::unique_ptr<problems::ProblemInstance> instance =
      problems::Find("circle_quarter")->build();
  Solver::Summary summary;
  Solve(options, instance->problem, {0.5, 0.5}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_TRUE(Contains(summary.message, field)) << summary.message;
  EXPECT_FALSE(summary.IsSolutionUsable());
}

TEST(Scalarization, InvalidScalarizationOptionsNameTheField) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  {
    SCOPED_TRACE("reference_point of the wrong size");
    Solver::Options options;
    options.reference_point = {-2.0, -2.0, -2.0};
    ExpectRefused(options,
                  "reference_point has 3 entries but the problem has 2",
                  /*is_valid_can_tell=*/false);
    options.reference_point = {-2.0};
    ExpectRefused(options, "reference_point has 1 entries", false);
  }
  for (double bad : {nan, inf, -inf}) {
    SCOPED_TRACE(::testing::Message() << "reference_point entry " << bad);
    Solver::Options options;
    options.reference_point = {-2.0, bad};
    ExpectRefused(options, "reference_point[1]");
  }
  for (double bad : {0.0, -1.0, nan, inf}) {
    SCOPED_TRACE(::testing::Message() << "objective_scale entry " << bad);
    Solver::Options options;
    options.objective_scale = {1.0, bad};
    ExpectRefused(options, "objective_scale[1]");
  }
  {
    SCOPED_TRACE("objective_scale of the wrong size");
    Solver::Options options;
    options.objective_scale = {1.0, 1.0, 1.0};
    ExpectRefused(options, "objective_scale has 3 entries", false);
  }
  {
    SCOPED_TRACE("reference_point and objective_offset");
    Solver::Options options;
    options.reference_point = {-2.0, -2.0};
    options.objective_offset = {2.0, 2.0};
    ExpectRefused(options, "reference_point and objective_offset");
    options.objective_offset.clear();
    options.automatic_objective_offset = true;
    ExpectRefused(options, "reference_point and objective_offset");
  }
  for (double bad : {0.0, -0.5, 1.5, nan, inf}) {
    SCOPED_TRACE(::testing::Message() << "utopia_margin " << bad);
    Solver::Options options;
    options.utopia_margin = bad;
    ExpectRefused(options, "utopia_margin");
  }
  {
    Solver::Options options;
    options.utopia_margin = 1.0;  // the closed end
    std::string error;
    EXPECT_TRUE(options.IsValid(&error)) << error;
  }
  for (double bad : {0.0, -1e-8, 1.0, 2.0, nan, inf}) {
    SCOPED_TRACE(::testing::Message() << "tolerance " << bad);
    Solver::Options options;
    options.stationarity_tolerance = bad;
    ExpectRefused(options, "stationarity_tolerance");
    options = Solver::Options();
    options.complementarity_tolerance = bad;
    ExpectRefused(options, "complementarity_tolerance");
    options = Solver::Options();
    options.feasibility_tolerance = bad;
    ExpectRefused(options, "feasibility_tolerance");
  }
}

// The utopia point's single-objective solves keep every constraint of the
// problem: inequalities as inequalities and bounds as bounds (they were
// once dropped, which turned bnh's inequalities into equalities and let
// bounded_segment's f2 reach 0 outside its box). Ideal and payoff-table
// nadir against the closed forms:
//   bnh: min f1 = 0 at (0, 0), min f2 = 4 at (5, 3) (x2 <= 3), so ideal
//     (0, 4) and nadir (f1(5, 3), f2(0, 0)) = (136, 50);
//   bounded_segment: min f1 = 0 at (0, 0), min f2 = 1 at (1, 2) (x1 <= 1):
//     ideal (0, 1), nadir (f1(1, 2), f2(0, 0)) = (5, 8);
//   disk_biobjective: min f1 = 0 at (0, 1/2); min f2 over the unit disk at
//     the projection of (2, 1/2): f2 = (sqrt(4.25) - 1)^2; nadir f1 there
//     = |(2, 1/2)/sqrt(4.25) - (0, 1/2)|^2, f2(0, 1/2) = 4.
TEST(Scalarization, UtopiaSolvesKeepInequalitiesAndBounds) {
  struct Case {
    const char* name;
    Eigen::Vector2d ideal, nadir;
  };
  const Eigen::Vector2d e(2.0, 0.5);
  const Eigen::Vector2d projected = e / e.norm();
  const std::vector<Case> cases = {
      {"bnh", {0.0, 4.0}, {136.0, 50.0}},
      {"bounded_segment", {0.0, 1.0}, {5.0, 8.0}},
      {"disk_biobjective",
       {0.0, std::pow(e.norm() - 1.0, 2)},
       {(projected - Eigen::Vector2d(0.0, 0.5)).squaredNorm(), 4.0}}};
  for (const Case& c : cases) {
    for (StrategyType strategy : {StrategyType::AUTOMATIC,
                                  StrategyType::WC_AUGMENTED_LAGRANGIAN,
                                  StrategyType::WC_NEWTON}) {
      SCOPED_TRACE(std::string(c.name) + " with " +
                   StrategyTypeToString(strategy));
      const problems::ProblemInfo* info = problems::Find(c.name);
      ASSERT_NE(info, nullptr);
      auto instance = info->build();
      ProblemEvaluator evaluator(&instance->problem);
      Solver::Options options;
      options.strategy = strategy;
      options.normalize_objectives = true;
      Scalarization scalarization;
      std::string error;
      ASSERT_TRUE(ComputeScalarization(
          options, &evaluator, instance->start, &scalarization, &error))
          << error;
      ASSERT_EQ(scalarization.ideal_point.size(), 2);
      EXPECT_LE((scalarization.ideal_point - c.ideal).norm(), 1e-6)
          << scalarization.ideal_point.transpose();
      // The lexicographic ends (ecmo/scalarization.h) trade up to 1e-6 of
      // each objective's range for the others: at a minimizer on a bound
      // the others move by O(1e-6) of their values (bnh: 136 - 2.7e-4).
      EXPECT_LE((scalarization.nadir_point - c.nadir).norm(),
                1e-5 * c.nadir.cwiseAbs().maxCoeff())
          << scalarization.nadir_point.transpose();
    }
  }
}

// ---- Lexicographic ends: single-objective minimizers that are not unique --

// f_1 = x^2 is minimized by every (0, y); f_2 = (x - 1)^2 + (y - 2)^2. The
// Pareto set is the segment (t, 2), t in [0, 1], with front
// (t^2, (1 - t)^2): ideal (0, 0), nadir (1, 1) (f_2 at the lexicographic
// minimizer (0, 2) of f_1, f_1 at the minimizer (1, 2) of f_2). A plain
// single-objective solve of f_1 from (0.5, y0) keeps y = y0, whose f_2 =
// 0.25 + (y0 - 2)^2 is arbitrary.
struct FlatInY {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = z[0] * z[0];
    return true;
  }
};
struct Bowl {
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - 1.0) * (z[0] - 1.0) + (z[1] - 2.0) * (z[1] - 2.0);
    return true;
  }
};

TEST(Scalarization, LexicographicEndsSurviveANonUniqueMinimizer) {
  for (double y0 : {10.0, -50.0, 300.0}) {
    SCOPED_TRACE("y0 = " + std::to_string(y0));
    double z[2] = {0.5, y0};
    Problem problem;
    problem.AddObjective(
        new ceres::AutoDiffCostFunction<FlatInY, 1, 2>(new FlatInY), {z});
    problem.AddObjective(
        new ceres::AutoDiffCostFunction<Bowl, 1, 2>(new Bowl), {z});
    ProblemEvaluator evaluator(&problem);
    Solver::Options options;
    options.normalize_objectives = true;
    Scalarization sc;
    std::string error;
    ASSERT_TRUE(ComputeScalarization(
        options, &evaluator, Eigen::Vector2d(0.5, y0), &sc, &error))
        << error;
    EXPECT_EQ(sc.num_single_objective_solves, 2);
    EXPECT_GE(sc.num_lexicographic_solves, 1);
    EXPECT_LE(sc.ideal_point.cwiseAbs().maxCoeff(), 1e-8)
        << sc.ideal_point.transpose();
    // Within the stage's 1e-6 of the first table's range (up to 1e6 here).
    EXPECT_NEAR(sc.nadir_point[0], 1.0, 1e-5) << sc.nadir_point.transpose();
    EXPECT_NEAR(sc.nadir_point[1], 1.0, 2e-6 * (0.25 + (y0 - 2) * (y0 - 2)))
        << sc.nadir_point.transpose();
    EXPECT_NE(sc.message.find("not unique"), std::string::npos)
        << sc.message;
    // The front is then spread by the preferences: the WC points of the
    // 9 interior preferences of 11 lie on the front, pairwise distinct,
    // with gaps within 3x of the mean (the normalized scales are 1 here).
    options.normalize_objectives = false;
    options.scalarization = std::make_shared<const Scalarization>(sc);
    std::vector<Eigen::Vector2d> front;
    for (int i = 0; i <= 10; ++i) {
      const double l = std::min(std::max(i / 10.0, 1e-3), 1.0 - 1e-3);
      Eigen::VectorXd x = Eigen::Vector2d(0.5, y0);
      Solver::Summary summary;
      Solve(options, &evaluator, {l, 1.0 - l}, &x, &summary);
      ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
          << "lambda_1 = " << l << ": " << summary.message;
      // On the Pareto set; at the corner preferences every point with the
      // dominant objective at its minimum and the other below its bound is
      // a WC solution (weakly Pareto optimal), so y is free there.
      if (i > 0 && i < 10) {
        EXPECT_NEAR(x[1], 2.0, 1e-4) << "lambda_1 " << l;
      }
      front.push_back(summary.objectives);
    }
    // (Interior preferences: the corners' points are only weakly Pareto.)
    double total = 0.0, largest = 0.0;
    for (size_t i = 2; i + 1 < front.size(); ++i) {
      const double gap = (front[i] - front[i - 1]).norm();
      total += gap;
      largest = std::max(largest, gap);
      EXPECT_GT(gap, 1e-3);
    }
    EXPECT_LE(largest, 3.0 * total / (front.size() - 3));
  }
}

// A loop of Solve calls, one per preference, each warm-started at the last
// point (as a user writes it): the first call runs the single-objective
// solves, the later ones reuse its scalarization bit for bit, so every
// point is the exact WC point of one scalarization (closed form).
TEST(Scalarization, SolveLoopReusesTheFirstCallsScalarization) {
  const Eigen::Vector2d scales(3.0, 0.5);
  double z[2] = {0.0, 1.0};
  Problem problem;
  BuildScaledCircle(z, scales[0], scales[1], &problem);
  ProblemEvaluator evaluator(&problem);
  Solver::Options options;
  options.normalize_objectives = true;
  Scalarization expected;
  std::string error;
  ASSERT_TRUE(ComputeScalarization(
      options, &evaluator, Eigen::Vector2d(0.0, 1.0), &expected, &error))
      << error;
  Eigen::VectorXd x = Eigen::Vector2d(0.0, 1.0);
  for (int i = 1; i <= 5; ++i) {
    const std::vector<double> preference = {i / 6.0, 1.0 - i / 6.0};
    SCOPED_TRACE("lambda_1 = " + std::to_string(preference[0]));
    const EvaluationCounts before = evaluator.counts();
    Solver::Summary summary;
    Solve(options, &evaluator, preference, &x, &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    const Scalarization& sc = summary.scalarization;
    EXPECT_EQ(sc.reused, i > 1);
    EXPECT_EQ(sc.DescribeSolves().find("reused") != std::string::npos, i > 1);
    EXPECT_EQ(sc.num_single_objective_solves, 2);
    // The first call's start is the start ComputeScalarization had.
    EXPECT_EQ(sc.reference_point, expected.reference_point);
    EXPECT_EQ(sc.objective_scale, expected.objective_scale);
    const Eigen::VectorXd exact = ExactCircleZ(preference, scales, sc);
    EXPECT_LE((x - exact).norm(), 1e-6) << x.transpose();
    // The single-objective solves ran in the first call only: every later
    // one did less work than they alone cost.
    const int64_t gradients =
        (evaluator.counts() - before).gradient_evaluations;
    if (i == 1) {
      EXPECT_GE(gradients,
                summary.evaluations.gradient_evaluations +
                    expected.evaluations.gradient_evaluations);
    } else {
      EXPECT_LT(gradients, expected.evaluations.gradient_evaluations);
    }
  }

  // Off: every call computes its own, from its own start.
  options.reuse_scalarization = false;
  Solver::Summary summary;
  Solve(options, &evaluator, {0.5, 0.5}, &x, &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_FALSE(summary.scalarization.reused);
}

// The cache belongs to the problem (each Solve on a Problem builds its own
// evaluator) and is forgotten when the problem or the options that define
// the scalarization change.
TEST(Scalarization, ReusedScalarizationIsForgottenWhenTheProblemChanges) {
  double z[2] = {0.0, 1.0};
  Problem problem;
  BuildScaledCircle(z, 1.0, 1.0, &problem);
  Solver::Options options;
  const auto solve = [&](const Solver::Options& o) {
    Solver::Summary summary;
    Solve(o, &problem, {0.5, 0.5}, &summary);
    EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    return summary.scalarization;
  };
  EXPECT_FALSE(solve(options).reused);
  const Scalarization first = solve(options);
  EXPECT_TRUE(first.reused);
  // Other options that define it: computed again (and then reused).
  Solver::Options margin = options;
  margin.utopia_margin = 0.1;
  const Scalarization other = solve(margin);
  EXPECT_FALSE(other.reused);
  // r = ideal - margin (nadir - ideal) (ecmo/scalarization.h).
  for (const auto& [sc, margin] :
       {std::make_pair(&first, 0.01), std::make_pair(&other, 0.1)}) {
    EXPECT_NEAR(
        sc->reference_point[0],
        sc->ideal_point[0] - margin * (sc->nadir_point[0] - sc->ideal_point[0]),
        1e-9);
  }
  EXPECT_TRUE(solve(margin).reused);
  // A given reference point needs no single-objective solves: nothing to
  // reuse, nothing stored.
  Solver::Options given = margin;
  given.reference_point = {-1.0, -1.0};
  EXPECT_FALSE(solve(given).reused);
  EXPECT_TRUE(solve(margin).reused);
  // A change of structure (a bound, here one that is never active).
  ASSERT_TRUE(problem.SetParameterUpperBound(z, 0, 10.0));
  EXPECT_FALSE(solve(margin).reused);
  EXPECT_TRUE(solve(margin).reused);
  // A change the problem cannot see (the user's own data): forgotten on
  // request, on the problem and on an evaluator of it.
  problem.ForgetScalarization();
  EXPECT_FALSE(solve(margin).reused);
  ProblemEvaluator evaluator(&problem);
  Eigen::VectorXd x = Eigen::Vector2d(0.0, 1.0);
  Solver::Summary summary;
  Solve(margin, &evaluator, {0.5, 0.5}, &x, &summary);
  EXPECT_TRUE(summary.scalarization.reused);
  evaluator.ForgetScalarization();
  EXPECT_FALSE(solve(margin).reused);
  // The JSON carries the flag.
  const nlohmann::json j = ScalarizationToJson(first);
  EXPECT_EQ(j.at("reused"), true);
}

}  // namespace
}  // namespace ecmo
