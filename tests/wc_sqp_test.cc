// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// StrategyType::WC_SQP: its dual QP step against brute force, its points
// against brute-force and closed-form WC points and the Ipopt reference,
// its refusals and its failure paths.

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Dense"
#include "ceres/ceres.h"
#include "ecmo/evaluator.h"
#include "ecmo/ipopt_reference.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "ecmo/sweep.h"
#include "gtest/gtest.h"
#include "sphere_least_squares.h"
#include "strategy.h"
#include "test_problems.h"

namespace ecmo {
namespace {

using testing::MakeCircle;
using testing::SphereLeastSquares;

double DualValue(const Eigen::MatrixXd& Q,
                 const Eigen::VectorXd& p,
                 const Eigen::VectorXd& w) {
  return p.dot(w) - 0.5 * w.dot(Q * w);
}

TEST(WcSqpDual, MaximizeOnSimplexMatchesAGridSearch) {
  // Random positive semidefinite Q (rank-deficient ones included) and p;
  // the enumeration's answer must be at least as good as every point of a
  // fine grid on the simplex, and on it.
  std::mt19937 rng(3);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 200; ++trial) {
    const int S = 2 + trial % 2;
    const int rank = 1 + trial % S;
    Eigen::MatrixXd R(rank, S);
    for (int i = 0; i < rank; ++i) {
      for (int j = 0; j < S; ++j) R(i, j) = normal(rng);
    }
    const Eigen::MatrixXd Q = R.transpose() * R;
    Eigen::VectorXd p(S);
    for (int j = 0; j < S; ++j) p[j] = 2.0 * normal(rng);
    const Eigen::VectorXd w = internal::MaximizeOnSimplex(Q, p);
    ASSERT_EQ(w.size(), S);
    EXPECT_NEAR(w.sum(), 1.0, 1e-12);
    EXPECT_GE(w.minCoeff(), 0.0);
    const double value = DualValue(Q, p, w);
    const int n = 200;
    double best = -std::numeric_limits<double>::infinity();
    for (int i = 0; i <= n; ++i) {
      for (int j = 0; j <= (S == 3 ? n - i : 0); ++j) {
        Eigen::VectorXd v(S);
        if (S == 2) {
          v << i / double(n), 1.0 - i / double(n);
        } else {
          v << i / double(n), j / double(n), 1.0 - (i + j) / double(n);
        }
        best = std::max(best, DualValue(Q, p, v));
      }
    }
    EXPECT_GE(value, best - 1e-12 * (1.0 + std::abs(best)))
        << "trial " << trial;
  }
}

TEST(WcSqpDual, ManyObjectivesFallBackToProjectedGradient) {
  // S = 14 > the enumeration limit: the projected-gradient answer must be
  // the maximizer of a separable problem with a closed form:
  // Q = I, maximize p^T w - 1/2 ||w||^2 on the simplex = projection of p.
  const int S = 14;
  Eigen::VectorXd p(S);
  for (int s = 0; s < S; ++s) p[s] = 0.1 * s;
  const Eigen::VectorXd w =
      internal::MaximizeOnSimplex(Eigen::MatrixXd::Identity(S, S), p);
  // Projection of p onto the simplex: w_s = max(0, p_s - theta), sum 1.
  // The top entries 1.3, 1.2, ..., sum of (p_s - theta) over the support.
  double theta = 0.0;
  for (int m = 1; m <= S; ++m) {
    double sum = 0.0;
    for (int s = S - m; s < S; ++s) sum += p[s];
    const double t = (sum - 1.0) / m;
    if (p[S - m] - t > 0.0) theta = t;
  }
  for (int s = 0; s < S; ++s) {
    EXPECT_NEAR(w[s], std::max(0.0, p[s] - theta), 1e-9) << s;
  }
}

struct SqpVariant {
  const char* name;
  SqpHessianType hessian;
  bool exact_products;
};

class WcSqpVariants : public ::testing::TestWithParam<SqpVariant> {};

TEST_P(WcSqpVariants, ReachTheBruteForceWcPointCertified) {
  const SqpVariant& variant = GetParam();
  Solver::Options options;
  options.strategy = StrategyType::WC_SQP;
  options.sqp.hessian = variant.hessian;
  testing::ExpectCircleWcPoints(
      options,
      variant.exact_products,
      variant.name,
      [&](const Solver::Summary& summary) {
        EXPECT_TRUE(summary.IsCertified(options));
        if (variant.hessian == SqpHessianType::BFGS ||
            variant.hessian == SqpHessianType::LBFGS) {
          EXPECT_EQ(summary.evaluations.hessian_products, 0);
        } else {
          EXPECT_GT(summary.evaluations.hessian_products, 0);
        }
        // SLSQP-like counts: tens of iterations at most.
        EXPECT_LE(summary.inner_iterations, 30) << summary.FullReport();
      });
}

INSTANTIATE_TEST_SUITE_P(
    All,
    WcSqpVariants,
    ::testing::Values(
        SqpVariant{"bfgs", SqpHessianType::BFGS, false},
        SqpVariant{"lbfgs", SqpHessianType::LBFGS, false},
        SqpVariant{"exact_products", SqpHessianType::EXACT_PRODUCTS, true},
        SqpVariant{
            "difference_products", SqpHessianType::EXACT_PRODUCTS, false},
        SqpVariant{"automatic_with_exact", SqpHessianType::AUTOMATIC, true}),
    [](const ::testing::TestParamInfo<SqpVariant>& info) {
      return std::string(info.param.name);
    });

// wc-sqp keeps its vectors with the evaluator (wc_sqp_workspace.h): a
// solve on an evaluator that solved other points before (converged, cut
// short, refused) gives the bits of the same solve on a fresh one, for
// every curvature; a refused solve after a finished one reports its own
// start, not the last solve's point. On the unit sphere in R^4 (on the
// circle, with two objectives and one constraint, the QP step is the kink
// of the two linearized objectives on a line, whatever the curvature).
TEST(WcSqp, AUsedEvaluatorGivesTheBitsOfAFreshOne) {
  Eigen::MatrixXd a1 = Eigen::Vector4d(1.0, 2.0, 0.5, 1.5).asDiagonal();
  Eigen::MatrixXd a2(4, 4);
  a2 << 1.0, 0.3, 0.0, 0.2,  //
      0.3, 0.8, 0.1, 0.0,    //
      0.0, 0.1, 1.6, 0.4,    //
      0.2, 0.0, 0.4, 1.1;
  const Eigen::Vector4d b1(1.5, 0.2, -0.4, 0.6), b2(-0.3, 1.2, 0.5, -0.8);
  auto make = [&](bool exact) {
    return SphereLeastSquares({a1, a2}, {b1, b2}, exact);
  };
  // Eigen's == needs equal sizes: compare them first.
  auto same = [](const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
    return x.size() == y.size() && x == y;
  };
  const Eigen::VectorXd start = Eigen::Vector4d(0.3, -0.9, 0.2, 0.1);
  for (const SqpHessianType hessian : {SqpHessianType::BFGS,
                                       SqpHessianType::LBFGS,
                                       SqpHessianType::EXACT_PRODUCTS}) {
    const bool exact = hessian == SqpHessianType::EXACT_PRODUCTS;
    Solver::Options options;
    options.strategy = StrategyType::WC_SQP;
    options.sqp.hessian = hessian;
    // The scalarization is what a used evaluator keeps on purpose (its
    // first solve's, Solver::Options::reuse_scalarization); everything
    // else must not carry over.
    options.reuse_scalarization = false;
    Eigen::VectorXd z;  // the last solve's point (unchanged on failure)
    auto solve = [&](Evaluator* evaluator,
                     const Solver::Options& o,
                     double l1,
                     const Eigen::VectorXd& from) {
      Solver::Summary summary;
      z = from;
      Solve(o, evaluator, {l1, 1.0 - l1}, &z, &summary);
      return summary;
    };
    for (const double l1 : {0.2, 0.5, 0.8}) {
      const std::string label = std::string(SqpHessianTypeToString(hessian)) +
                                ", lambda_1 = " + std::to_string(l1);
      SphereLeastSquares fresh = make(exact);
      const Solver::Summary a = solve(&fresh, options, l1, start);
      ASSERT_TRUE(a.IsCertified(options)) << a.FullReport();
      ASSERT_GE(a.inner_iterations, 4) << label;
      SphereLeastSquares used = make(exact);
      solve(&used, options, 0.95, Eigen::Vector4d(-0.5, 0.5, 0.5, 0.5));
      Solver::Options short_options = options;
      short_options.max_iterations = 2;
      solve(&used, short_options, 1.0 - l1, Eigen::Vector4d(0, 1, 0, 0));
      // Refused at the start (the size limit): its own start comes back.
      Solver::Options refused = options;
      refused.sqp.hessian = SqpHessianType::BFGS;
      refused.sqp.max_parameters = 1;
      refused.objective_offset = {0.0, 0.0};  // no single-objective solves
      const Eigen::VectorXd other = Eigen::Vector4d(0.6, 0.8, 0.0, 0.0);
      const Solver::Summary r = solve(&used, refused, 0.4, other);
      EXPECT_EQ(r.termination_type, ceres::FAILURE) << label;
      EXPECT_NE(r.message.find("sqp.max_parameters"), std::string::npos)
          << r.message;
      EXPECT_TRUE(same(z, other)) << label;
      EXPECT_TRUE(r.z.size() == 0 || same(r.z, other))
          << label << ": " << r.z.transpose();
      const Solver::Summary b = solve(&used, options, l1, start);
      EXPECT_TRUE(same(b.z, a.z)) << label;
      EXPECT_EQ(b.final_rho, a.final_rho) << label;
      EXPECT_EQ(b.inner_iterations, a.inner_iterations) << label;
      EXPECT_TRUE(
          same(b.kkt.solver_multipliers.omega, a.kkt.solver_multipliers.omega))
          << label;
      EXPECT_TRUE(same(b.kkt.solver_multipliers.nu, a.kkt.solver_multipliers.nu))
          << label;
    }
  }
}

TEST(WcSqp, AgreesWithIpoptOnThreeObjectivesInR30) {
  // S = 3 on the unit sphere in R^30 from the same start: the same local
  // WC point as the interior-point reference (both certified).
  const int k = 30;
  const testing::RandomSphereData data = testing::MakeRandomSphereData(k);
  const std::vector<Eigen::MatrixXd>& a = data.a;
  const std::vector<Eigen::VectorXd>& b = data.b;
  const std::vector<double> preference = {0.2, 0.3, 0.5};
  Eigen::VectorXd start = Eigen::VectorXd::Zero(k);
  start[0] = 1.0;

  SphereLeastSquares evaluator(a, b, true);
  Solver::Options options;
  options.strategy = StrategyType::WC_SQP;
  Solver::Summary summary;
  Eigen::VectorXd z = start;
  Solve(options, &evaluator, preference, &z, &summary);
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
      << summary.FullReport();

  SphereLeastSquares reference_evaluator(a, b, true);
  IpoptReference::Options ipopt;
  ipopt.hessian = IpoptReference::HessianType::EXACT;
  ipopt.reference_point.assign(
      summary.scalarization.reference_point.data(),
      summary.scalarization.reference_point.data() + 3);
  ipopt.objective_scale.assign(
      summary.scalarization.objective_scale.data(),
      summary.scalarization.objective_scale.data() + 3);
  IpoptReference::Summary ipopt_summary;
  Eigen::VectorXd z_ipopt = start;
  Solve(ipopt, &reference_evaluator, preference, &z_ipopt, &ipopt_summary);
  ASSERT_EQ(ipopt_summary.termination_type, ceres::CONVERGENCE)
      << ipopt_summary.message;
  EXPECT_LE((z - z_ipopt).norm(), 1e-5)
      << "wc-sqp " << z.transpose() << "\nipopt " << z_ipopt.transpose();
  EXPECT_NEAR(z.norm(), 1.0, 1e-8);
  // BFGS, and limited-memory BFGS with 5 pairs in R^30, from the same
  // start reach the same point without Hessian products.
  for (SqpHessianType hessian : {SqpHessianType::BFGS, SqpHessianType::LBFGS}) {
    SCOPED_TRACE(SqpHessianTypeToString(hessian));
    SphereLeastSquares quasi_newton_evaluator(a, b, false);
    options.sqp.hessian = hessian;
    options.sqp.lbfgs_memory = 5;
    Eigen::VectorXd z_quasi_newton = start;
    Solver::Summary quasi_newton_summary;
    Solve(options,
          &quasi_newton_evaluator,
          preference,
          &z_quasi_newton,
          &quasi_newton_summary);
    ASSERT_EQ(quasi_newton_summary.termination_type, ceres::CONVERGENCE)
        << quasi_newton_summary.FullReport();
    EXPECT_LE((z_quasi_newton - z_ipopt).norm(), 1e-5);
    EXPECT_EQ(quasi_newton_summary.evaluations.hessian_products, 0);
  }
}

TEST(WcSqp, GebkenCircleMatchesTheDefaultStrategy) {
  // gebken_circle (test_problems.h) in the paper's form (r = 0): the same
  // point as the augmented Lagrangian's certified one to 1e-6, with an
  // SLSQP-like evaluation count (NLopt's SLSQP: 15 per point, see
  // benchmarks/README.md).
  for (double l1 : {0.2, 0.5, 0.8}) {
    std::vector<double> z_sqp(2), z_al(2);
    Problem p_sqp, p_al;
    testing::BuildGebken(z_sqp.data(), &p_sqp);
    testing::BuildGebken(z_al.data(), &p_al);
    Solver::Options options;
    options.objective_offset = {0.0, 0.0};
    Solver::Summary al_summary, sqp_summary;
    Solve(options, &p_al, {l1, 1.0 - l1}, &al_summary);
    options.strategy = StrategyType::WC_SQP;
    Solve(options, &p_sqp, {l1, 1.0 - l1}, &sqp_summary);
    ASSERT_EQ(al_summary.termination_type, ceres::CONVERGENCE);
    ASSERT_EQ(sqp_summary.termination_type, ceres::CONVERGENCE)
        << sqp_summary.FullReport();
    EXPECT_LE((sqp_summary.z - al_summary.z).norm(), 1e-6);
    EXPECT_LE(sqp_summary.evaluations.gradient_evaluations, 25)
        << sqp_summary.FullReport();
  }
}

// f = -x: unbounded below.
struct MinusX {
  explicit MinusX(double scale) : scale(scale) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = -scale * z[0] + 0.0 * z[1];
    return true;
  }
  double scale;
};

TEST(WcSqp, UnboundedObjectivesEndInAFailureThatSaysSo) {
  std::vector<double> z = {0.0, 0.0};
  Problem problem;
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<MinusX, 1, 2>(new MinusX(1.0)),
      {z.data()});
  problem.AddObjective(
      new ceres::AutoDiffCostFunction<MinusX, 1, 2>(new MinusX(2.0)),
      {z.data()});
  Solver::Options options;
  options.strategy = StrategyType::WC_SQP;
  options.objective_offset = {0.0, 0.0};
  Solver::Summary summary;
  Solve(options, &problem, {0.5, 0.5}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE) << summary.FullReport();
  EXPECT_NE(summary.message.find("unbounded"), std::string::npos)
      << summary.message;
  EXPECT_LE(summary.iterations, 100);
}

TEST(WcSqp, BacktracksOutOfARegionWhereACostFunctionFails) {
  // f_1 is NaN for z_1 > 1.2; the WC point on the unit circle lies inside
  // the valid region, and the first steps from (0, 1) overshoot into the
  // invalid one. The line search must treat NaN as a rejected step and
  // reach the same point as the default strategy.
  auto build = [](double* z, Problem* problem) {
    problem->AddObjective(new testing::NanAbove(1.2), {z});
    problem->AddObjective(
        new ceres::AutoDiffCostFunction<testing::CircleF, 1, 2>(
            new testing::CircleF(-1.0)),
        {z});
    problem->AddConstraint(
        new ceres::AutoDiffCostFunction<testing::CircleH, 1, 2>(
            new testing::CircleH),
        {z});
  };
  std::vector<double> z_sqp = {0.0, 1.0}, z_al = {0.0, 1.0};
  Problem p_sqp, p_al;
  build(z_sqp.data(), &p_sqp);
  build(z_al.data(), &p_al);
  Solver::Options options;
  options.objective_offset = {0.0, 0.0};
  Solver::Summary al_summary, sqp_summary;
  Solve(options, &p_al, {0.3, 0.7}, &al_summary);
  options.strategy = StrategyType::WC_SQP;
  Solve(options, &p_sqp, {0.3, 0.7}, &sqp_summary);
  ASSERT_EQ(al_summary.termination_type, ceres::CONVERGENCE)
      << al_summary.message;
  ASSERT_EQ(sqp_summary.termination_type, ceres::CONVERGENCE)
      << sqp_summary.FullReport();
  EXPECT_LE((sqp_summary.z - al_summary.z).norm(), 1e-6);
}

TEST(WcSqp, RefusesWhatItCannotTakeWithAMessage) {
  SphereLeastSquares evaluator = MakeCircle(false);
  Solver::Options options;
  options.strategy = StrategyType::WC_SQP;
  options.sqp.max_parameters = 1;
  options.sqp.hessian = SqpHessianType::BFGS;
  Eigen::VectorXd z(2);
  z << 1.0, 0.0;
  Solver::Summary summary;
  Solve(options, &evaluator, {0.5, 0.5}, &z, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("sqp.max_parameters"), std::string::npos)
      << summary.message;
  EXPECT_NE(summary.message.find("wc-newton"), std::string::npos);
  EXPECT_NE(summary.message.find("lbfgs"), std::string::npos);
  EXPECT_FALSE(summary.IsCertified(options));
  // AUTOMATIC above max_parameters: limited-memory BFGS, no refusal.
  options.sqp.hessian = SqpHessianType::AUTOMATIC;
  z << 1.0, 0.0;
  Solve(options, &evaluator, {0.5, 0.5}, &z, &summary);
  EXPECT_TRUE(summary.IsCertified(options)) << summary.FullReport();
  EXPECT_NE(summary.inner_message.find("limited-memory"), std::string::npos)
      << summary.inner_message;
  options.sqp.lbfgs_memory = 0;
  Solve(options, &evaluator, {0.5, 0.5}, &z, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("sqp.lbfgs_memory"), std::string::npos)
      << summary.message;
  options.sqp.lbfgs_memory = 20;

  options.sqp.max_parameters = 2000;
  options.sqp.armijo = 0.7;
  Solve(options, &evaluator, {0.5, 0.5}, &z, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("sqp.armijo"), std::string::npos)
      << summary.message;
}

TEST(WcSqp, RefusesBoundsAndManifolds) {
  {
    std::vector<double> z(2);
    Problem problem;
    testing::BuildGebken(z.data(), &problem);
    problem.SetParameterLowerBound(z.data(), 0, -0.5);
    Solver::Options options;
    options.strategy = StrategyType::WC_SQP;
    Solver::Summary summary;
    Solve(options, &problem, {0.5, 0.5}, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("bounds"), std::string::npos)
        << summary.message;
    EXPECT_NE(summary.message.find("wc-augmented-lagrangian"),
              std::string::npos);
  }
  {
    std::vector<double> z(2);
    Problem problem;
    testing::BuildGebken(z.data(), &problem);
    problem.SetManifold(z.data(), new ceres::SubsetManifold(2, {1}));
    z = {1.0, 0.0};
    Solver::Options options;
    options.strategy = StrategyType::WC_SQP;
    Solver::Summary summary;
    Solve(options, &problem, {0.5, 0.5}, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(summary.message.find("manifold"), std::string::npos)
        << summary.message;
  }
}

}  // namespace
}  // namespace ecmo
