// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The Ipopt reference (ecmo/ipopt_reference.h) and the cross-check
// (ecmo/cross_check.h) with bounds and inequality constraints.
//
// Closed forms (no offset, r = 0; the WC problem is
// min rho s.t. lambda_s f_s(z) <= rho, h = 0, c <= 0, l <= z <= u, and the
// multiplier convention is Ipopt's / ecmo/kkt.h's:
// sum_s omega_s lambda_s grad f_s + J_h^T nu + J_c^T mu - z_L + z_U = 0):
//
// (A) Two parabolas in the plane with a box on x. z = (x, y),
//     f1 = (x - 2)^2 + y^2, f2 = (x + 2)^2 + y^2, -1 <= x <= 1.
//     Unconstrained the WC point is y = 0, sqrt(l1) (2 - x) = sqrt(l2)
//     (x + 2), i.e. x = 2 (a - b) / (a + b) with a = sqrt(l1), b = sqrt(l2).
//     * lambda = (0.95, 0.05): x would be 1.2536 > 1, so x = 1 (upper bound
//       active), y = 0; lambda f = (0.95, 0.45): only f1 active, rho = 0.95,
//       omega = (1, 0); stationarity in x: 0.95 * 2 (1 - 2) + z_U = 0, so
//       z_U,x = 1.9; every other bound multiplier is 0.
//     * lambda = (0.05, 0.95): the mirror image, x = -1, rho = 0.95,
//       omega = (0, 1), 0.95 * 2 (-1 + 2) - z_L = 0, so z_L,x = 1.9.
//     * lambda = (0.5, 0.5): x = 0 inside the box, rho = 2,
//       omega = (1/2, 1/2) (0.25 * (-4) + 0.25 * 4 = 0), z_L = z_U = 0.
//
// (B) Two parabolas centred outside the unit disc, cut by x^2 + y^2 <= R^2.
//     f1 = (x - 2)^2 + (y - 2)^2, f2 = (x + 2)^2 + (y - 2)^2,
//     lambda = (1/2, 1/2). f1 + f2 = 2 x^2 + 2 (y - 2)^2 + 8 is minimized
//     over the disc at x = 0, y = min(2, R), where f1 = f2, and
//     max(l1 f1, l2 f2) >= (f1 + f2) / 4 with equality there: the WC point.
//     * R = 1 (cuts the unconstrained point (0, 2)): z = (0, 1),
//       rho = (4 + 1) / 2 = 2.5, omega = (1/2, 1/2) by symmetry;
//       y: 0.25 (2 (1 - 2)) * 2 + mu * 2 = 0, so mu = 1/2.
//     * R = 3 (inactive): z = (0, 2), rho = 2, omega = (1/2, 1/2), mu = 0.
//
// (C) Mixed: z = (x, y, t), f1 = (x - 2)^2 + (y - 2)^2 + (t - 2)^2,
//     f2 = (x + 2)^2 + (y - 2)^2 + (t - 2)^2, the equality h = y - t = 0,
//     the inequality c = x^2 + y^2 - 1 <= 0, the bounds x >= 1/2 (active),
//     y >= -3 and t <= 5 (inactive), lambda = (1/2, 1/2). For x > 0,
//     f2 - f1 = 8 x > 0, so only f2 can be active and the WC point minimizes
//     the convex f2 over the convex feasible set: x as small as allowed
//     (x = 1/2), y = t as large as the disc allows, y = s = sqrt(3)/2.
//     rho = (2.5^2 + 2 (s - 2)^2) / 2, omega = (0, 1), and stationarity with
//     (1/2) grad f2 = (2.5, s - 2, s - 2):
//       t: (s - 2) - nu = 0             -> nu = s - 2,
//       y: (s - 2) + nu + 2 s mu = 0    -> mu = (2 - s) / s,
//       x: 2.5 + mu * 2x - z_L,x = 0    -> z_L,x = 2.5 + mu.
//     lambda_1 f1 = (1.5^2 + 2 (s - 2)^2) / 2 < rho: f1's row is inactive.

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/SparseCore"
#include "ceres/autodiff_cost_function.h"
#include "ecmo/cross_check.h"
#include "ecmo/evaluator.h"
#include "ecmo/ipopt_reference.h"
#include "ecmo/kkt.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

constexpr double kTol = 1e-6;

// (x - a)^2 + (y - b)^2 over a block of two or three (then + (t - c)^2).
template <int N>
struct Paraboloid {
  Paraboloid(double a, double b, double c) : a(a), b(b), c(c) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - a) * (z[0] - a) + (z[1] - b) * (z[1] - b);
    if (N == 3) f[0] += (z[2] - c) * (z[2] - c);
    return true;
  }
  double a, b, c;
};

template <int N>
ceres::CostFunction* MakeParaboloid(double a, double b, double c = 0.0) {
  return new ceres::AutoDiffCostFunction<Paraboloid<N>, 1, N>(
      new Paraboloid<N>(a, b, c));
}

// x^2 + y^2 - R^2 over the first two entries of a block of size N.
template <int N>
struct Disc {
  explicit Disc(double radius) : radius(radius) {}
  template <typename T>
  bool operator()(const T* z, T* c) const {
    c[0] = z[0] * z[0] + z[1] * z[1] - radius * radius;
    return true;
  }
  double radius;
};

// y - t on a block (x, y, t).
struct YMinusT {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = z[1] - z[2];
    return true;
  }
};

// A problem and its parameter block, at a stable address.
struct Fixture {
  double z[3] = {0.0, 0.0, 0.0};
  Problem problem;
};

std::unique_ptr<Fixture> MakeBoxProblem(double x0, double y0) {
  auto p = std::make_unique<Fixture>();
  p->z[0] = x0;
  p->z[1] = y0;
  p->problem.AddObjective(MakeParaboloid<2>(2.0, 0.0), {p->z});
  p->problem.AddObjective(MakeParaboloid<2>(-2.0, 0.0), {p->z});
  p->problem.SetParameterLowerBound(p->z, 0, -1.0);
  p->problem.SetParameterUpperBound(p->z, 0, 1.0);
  return p;
}

std::unique_ptr<Fixture> MakeDiscProblem(double radius) {
  auto p = std::make_unique<Fixture>();
  p->z[0] = 0.3;
  p->z[1] = -0.2;
  p->problem.AddObjective(MakeParaboloid<2>(2.0, 2.0), {p->z});
  p->problem.AddObjective(MakeParaboloid<2>(-2.0, 2.0), {p->z});
  p->problem.AddInequalityConstraint(
      new ceres::AutoDiffCostFunction<Disc<2>, 1, 2>(new Disc<2>(radius)),
      {p->z},
      "disc");
  return p;
}

std::unique_ptr<Fixture> MakeMixedProblem() {
  auto p = std::make_unique<Fixture>();
  p->z[0] = 0.8;
  p->z[1] = 0.1;
  p->z[2] = 0.4;
  p->problem.AddObjective(MakeParaboloid<3>(2.0, 2.0, 2.0), {p->z});
  p->problem.AddObjective(MakeParaboloid<3>(-2.0, 2.0, 2.0), {p->z});
  p->problem.AddConstraint(
      new ceres::AutoDiffCostFunction<YMinusT, 1, 3>(new YMinusT), {p->z});
  p->problem.AddInequalityConstraint(
      new ceres::AutoDiffCostFunction<Disc<3>, 1, 3>(new Disc<3>(1.0)),
      {p->z},
      "disc");
  p->problem.SetParameterLowerBound(p->z, 0, 0.5);
  p->problem.SetParameterLowerBound(p->z, 1, -3.0);
  p->problem.SetParameterUpperBound(p->z, 2, 5.0);
  return p;
}

// The expected WC point and multipliers.
struct Expected {
  std::vector<double> z;
  double rho;
  std::vector<double> omega;
  std::vector<double> nu;           // equalities, then inequalities
  std::vector<double> bound_lower;  // empty: no bounds
  std::vector<double> bound_upper;
};

Expected BoxUpper() {
  return {{1.0, 0.0}, 0.95, {1.0, 0.0}, {}, {0, 0}, {1.9, 0}};
}
Expected BoxLower() {
  return {{-1.0, 0.0}, 0.95, {0.0, 1.0}, {}, {1.9, 0}, {0, 0}};
}
Expected BoxInside() {
  return {{0.0, 0.0}, 2.0, {0.5, 0.5}, {}, {0, 0}, {0, 0}};
}
Expected DiscCut() { return {{0.0, 1.0}, 2.5, {0.5, 0.5}, {0.5}, {}, {}}; }
Expected DiscInactive() { return {{0.0, 2.0}, 2.0, {0.5, 0.5}, {0.0}, {}, {}}; }
Expected Mixed() {
  const double s = std::sqrt(3.0) / 2.0;
  const double mu = (2.0 - s) / s;
  return {{0.5, s, s},
          (2.5 * 2.5 + 2.0 * (s - 2.0) * (s - 2.0)) / 2.0,
          {0.0, 1.0},
          {s - 2.0, mu},
          {2.5 + mu, 0.0, 0.0},
          {0.0, 0.0, 0.0}};
}

void ExpectVector(const Eigen::VectorXd& actual,
                  const std::vector<double>& expected,
                  const std::string& what,
                  double tolerance = kTol) {
  ASSERT_EQ(actual.size(), static_cast<int>(expected.size())) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tolerance) << what << "[" << i << "]";
  }
}

// Ipopt's point and its own multipliers against the closed form, and the
// KKT function's least-squares multipliers at Ipopt's point against
// Ipopt's (an independent check of ecmo/kkt.h).
void ExpectReference(const IpoptReference::Summary& summary,
                     const Expected& expected,
                     const std::string& what) {
  ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE)
      << what << ": " << summary.message;
  EXPECT_TRUE(summary.certified) << what << "\n" << summary.FullReport();
  ExpectVector(summary.z, expected.z, what + " z");
  EXPECT_NEAR(summary.final_rho, expected.rho, kTol) << what;
  ExpectVector(summary.omega, expected.omega, what + " omega");
  ExpectVector(summary.nu, expected.nu, what + " nu");
  ExpectVector(summary.bound_lower, expected.bound_lower, what + " z_L");
  ExpectVector(summary.bound_upper, expected.bound_upper, what + " z_U");
  // The multipliers reach the KKT report as Ipopt's own.
  const KktMultipliers& own = summary.kkt.solver_multipliers;
  ExpectVector(own.bound_lower, expected.bound_lower, what + " report z_L");
  ExpectVector(own.bound_upper, expected.bound_upper, what + " report z_U");
  EXPECT_LT(summary.kkt.with_solver_multipliers.SquaredNorm(), 1e-12) << what;
  // KktSystem's least-squares multipliers at Ipopt's point.
  const KktMultipliers& ls = summary.kkt.least_squares_multipliers;
  ExpectVector(ls.omega, expected.omega, what + " LS omega");
  ExpectVector(ls.nu, expected.nu, what + " LS nu");
  if (!expected.bound_lower.empty()) {
    ExpectVector(ls.bound_lower, expected.bound_lower, what + " LS z_L");
    ExpectVector(ls.bound_upper, expected.bound_upper, what + " LS z_U");
  }
}

IpoptReference::Options ReferenceOptions(
    IpoptReference::HessianType hessian =
        IpoptReference::HessianType::AUTOMATIC) {
  IpoptReference::Options options;
  options.hessian = hessian;
  return options;
}

IpoptReference::Summary SolveOnProblem(
    Fixture* p,
    const std::vector<double>& preference,
    const IpoptReference::Options& options = ReferenceOptions()) {
  IpoptReference::Summary summary;
  Solve(options, &p->problem, preference, &summary);
  return summary;
}

TEST(IpoptBounds, ActiveUpperBoundHasTheClosedFormMultiplier) {
  auto p = MakeBoxProblem(0.2, 0.3);
  const IpoptReference::Summary summary = SolveOnProblem(p.get(), {0.95, 0.05});
  ExpectReference(summary, BoxUpper(), "upper");
  EXPECT_LE(summary.z[0], 1.0);  // inside the bound exactly
  EXPECT_EQ(summary.num_bounded_parameters, 1);
  EXPECT_EQ(summary.num_inequality_constraints, 0);
  // The solution is written back into the block.
  EXPECT_NEAR(p->z[0], 1.0, kTol);
}

TEST(IpoptBounds, ActiveLowerBoundHasTheClosedFormMultiplier) {
  auto p = MakeBoxProblem(0.2, 0.3);
  const IpoptReference::Summary summary = SolveOnProblem(p.get(), {0.05, 0.95});
  ExpectReference(summary, BoxLower(), "lower");
  EXPECT_GE(summary.z[0], -1.0);
}

TEST(IpoptBounds, InactiveBoundsHaveZeroMultipliers) {
  auto p = MakeBoxProblem(0.2, 0.3);
  ExpectReference(SolveOnProblem(p.get(), {0.5, 0.5}), BoxInside(), "inside");
}

TEST(IpoptBounds, StartOutsideTheBoundsIsProjectedFirst) {
  auto p = MakeBoxProblem(7.0, 0.3);
  IpoptReference::Summary summary = SolveOnProblem(p.get(), {0.95, 0.05});
  ExpectReference(summary, BoxUpper(), "outside");
  // rho0 is taken at the projected start (1, 0.3): max(0.95 * 1.09,
  // 0.05 * 9.09).
  EXPECT_NEAR(summary.initial_rho, 0.95 * 1.09, 1e-12);
}

// A fixed component (l = u): Ipopt removes it from its problem
// ("fixed_variable_treatment make_parameter"). x = 1/2 fixed, y free,
// lambda = (1/2, 1/2): y = 0, lambda f = (1.125, 3.125), so rho = 3.125,
// omega = (0, 1), and 0.5 * 2 (0.5 + 2) - z_L + z_U = 0: z_L = 2.5, z_U = 0
// (the least-squares split of the fixed component's force).
TEST(IpoptBounds, FixedComponentKeepsItsValueAndGetsItsMultiplier) {
  auto p = MakeBoxProblem(0.2, 0.3);
  p->problem.SetParameterLowerBound(p->z, 0, 0.5);
  p->problem.SetParameterUpperBound(p->z, 0, 0.5);
  const IpoptReference::Summary summary = SolveOnProblem(p.get(), {0.5, 0.5});
  ExpectReference(summary,
                  {{0.5, 0.0}, 3.125, {0.0, 1.0}, {}, {2.5, 0.0}, {0.0, 0.0}},
                  "fixed");
  EXPECT_EQ(summary.z[0], 0.5);
}

TEST(IpoptInequalities, ActiveInequalityHasTheClosedFormMultiplier) {
  auto p = MakeDiscProblem(1.0);
  const IpoptReference::Summary summary = SolveOnProblem(p.get(), {0.5, 0.5});
  ExpectReference(summary, DiscCut(), "disc");
  EXPECT_LE(summary.z.squaredNorm(), 1.0 + 1e-9);
  EXPECT_EQ(summary.num_constraints, 1);
  EXPECT_EQ(summary.num_inequality_constraints, 1);
  EXPECT_TRUE(summary.bound_lower.size() == 0);
  EXPECT_LT(summary.constraint_max_norm, 1e-9);
}

TEST(IpoptInequalities, InactiveInequalityHasAZeroMultiplier) {
  auto p = MakeDiscProblem(3.0);
  ExpectReference(SolveOnProblem(p.get(), {0.5, 0.5}), DiscInactive(), "big");
}

TEST(IpoptMixed, EqualityInequalityAndBoundsInEveryHessianMode) {
  using Type = IpoptReference::HessianType;
  for (Type hessian : {Type::AUTOMATIC, Type::EXACT, Type::LIMITED_MEMORY}) {
    auto p = MakeMixedProblem();
    const IpoptReference::Summary summary =
        SolveOnProblem(p.get(), {0.5, 0.5}, ReferenceOptions(hessian));
    ExpectReference(summary,
                    Mixed(),
                    "mixed, hessian " +
                        std::to_string(static_cast<int>(summary.hessian_used)));
    EXPECT_EQ(summary.num_constraints, 2);
    EXPECT_EQ(summary.num_inequality_constraints, 1);
    EXPECT_EQ(summary.num_bounded_parameters, 3);
    EXPECT_GE(summary.z[0], 0.5);
  }
}

// Forwards to a ProblemEvaluator, declares its bounds, and has the
// Gauss-Newton matrix of the paraboloid objectives: each f_s is
// 1/2 ||sqrt(2) (z - centre_s)||^2, so Jr_s^T Jr_s = 2 I, and
// G = 2 (sum_s a_s) I + c J_g^T J_g (dense lower triangle, k small).
class GaussNewtonParaboloids : public Evaluator {
 public:
  explicit GaussNewtonParaboloids(const Problem* problem)
      : inner_(problem), k_(inner_.NumParameters()) {
    Eigen::VectorXd lower(k_), upper(k_);
    problem->GetBounds(lower.data(), upper.data());
    SetBounds(lower, upper);
  }
  int NumParameters() const override { return k_; }
  int NumObjectives() const override { return inner_.NumObjectives(); }
  int NumConstraints() const override { return inner_.NumConstraints(); }
  int NumInequalityConstraints() const override {
    return inner_.NumInequalityConstraints();
  }
  bool HasGaussNewtonMatrix() const override { return true; }
  int gauss_newton_calls() const { return gauss_newton_calls_; }

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string* error) override {
    return inner_.Evaluate(z, f, h, grad_f, error);
  }
  void DoJacobianTransposeMultiply(const double* v,
                                   double* out) const override {
    inner_ptr_->JacobianTransposeMultiply(v, out);
  }
  void DoJacobianMultiply(const double* x, double* out) const override {
    inner_ptr_->JacobianMultiply(x, out);
  }
  bool DoGaussNewtonMatrix(const double* a,
                           const double* c,
                           Eigen::SparseMatrix<double>* lower,
                           std::string* /*error*/) override {
    ++gauss_newton_calls_;
    double sum = 0.0;
    for (int s = 0; s < NumObjectives(); ++s) sum += a[s];
    const int m = NumConstraints();
    Eigen::MatrixXd jacobian(m, k_);
    Eigen::VectorXd unit = Eigen::VectorXd::Zero(k_), column(m);
    for (int j = 0; j < k_; ++j) {
      unit[j] = 1.0;
      inner_ptr_->JacobianMultiply(unit.data(), column.data());
      unit[j] = 0.0;
      jacobian.col(j) = column;
    }
    const Eigen::MatrixXd dense =
        2.0 * sum * Eigen::MatrixXd::Identity(k_, k_) +
        jacobian.transpose() *
            Eigen::Map<const Eigen::VectorXd>(c, m).asDiagonal() * jacobian;
    lower->resize(k_, k_);
    std::vector<Eigen::Triplet<double>> entries;
    for (int col = 0; col < k_; ++col) {
      for (int row = col; row < k_; ++row) {
        entries.emplace_back(row, col, dense(row, col));
      }
    }
    lower->setFromTriplets(entries.begin(), entries.end());
    lower->makeCompressed();
    return true;
  }

 private:
  ProblemEvaluator inner_;
  ProblemEvaluator* const inner_ptr_ = &inner_;
  const int k_;
  int gauss_newton_calls_ = 0;
};

TEST(IpoptMixed, GaussNewtonModeTakesBoundsAndInequalities) {
  auto p = MakeMixedProblem();
  GaussNewtonParaboloids evaluator(&p->problem);
  ASSERT_TRUE(evaluator.HasBounds());
  for (auto hessian : {IpoptReference::HessianType::AUTOMATIC,
                       IpoptReference::HessianType::GAUSS_NEWTON}) {
    Eigen::VectorXd z = Eigen::Vector3d(0.8, 0.1, 0.4);
    IpoptReference::Summary summary;
    Solve(ReferenceOptions(hessian), &evaluator, {0.5, 0.5}, &z, &summary);
    EXPECT_EQ(summary.hessian_used, IpoptReference::HessianType::GAUSS_NEWTON);
    // The constraints' curvature is dropped, yet the solution is the same.
    ExpectReference(summary, Mixed(), "gauss-newton");
  }
  EXPECT_GT(evaluator.gauss_newton_calls(), 0);
}

TEST(IpoptBounds, ReportsNameTheBoundsAndInequalities) {
  auto p = MakeMixedProblem();
  const IpoptReference::Summary summary = SolveOnProblem(p.get(), {0.5, 0.5});
  const std::string report = summary.FullReport();
  EXPECT_NE(report.find("of which inequalities (p)"), std::string::npos)
      << report;
  EXPECT_NE(report.find("Bounded parameters"), std::string::npos) << report;
  EXPECT_NE(report.find("z_L / z_U (Ipopt), max"), std::string::npos) << report;
}

TEST(IpoptBounds, WarmStartTakesInequalityMultipliers) {
  auto p = MakeMixedProblem();
  const Expected expected = Mixed();
  IpoptReference::Options options = ReferenceOptions();
  options.initial_omega = expected.omega;
  options.initial_nu = {expected.nu[0]};  // one entry short: refused
  IpoptReference::Summary summary;
  Solve(options, &p->problem, {0.5, 0.5}, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("initial_nu has 1 entries but the problem "
                                 "has 2 constraint residuals"),
            std::string::npos)
      << summary.message;
  options.initial_nu = expected.nu;
  options.initial_z = expected.z;
  Solve(options, &p->problem, {0.5, 0.5}, &summary);
  ExpectReference(summary, expected, "warm");
}

// The cross-check on a bounded problem against the faithful projected
// gradient: a tiny problem, since that strategy converges slowly.
TEST(CrossCheckBounds, ProjectedGradientAgreesWithTheReferenceOnABox) {
  auto p = MakeBoxProblem(0.2, 0.3);
  CrossCheck::Options options;
  options.solver.strategy = StrategyType::WC_PENALTY_PGD;
  options.solver.objective_offset = {0.0, 0.0};
  options.solver.max_iterations = 200000;
  CrossCheck::Summary summary;
  Solve(options, &p->problem, {0.95, 0.05}, &summary);
  ASSERT_TRUE(summary.solver.IsSolutionUsable()) << summary.solver.message;
  ExpectReference(summary.reference, BoxUpper(), "reference");
  EXPECT_LT((summary.solver.z - summary.reference.z).norm(), 1e-4)
      << summary.FullReport();
  EXPECT_TRUE(summary.agree) << summary.FullReport();
  EXPECT_GE(summary.bound_multiplier_distance, 0.0);
  EXPECT_LE(summary.bound_multiplier_distance, summary.multiplier_bound);
  EXPECT_EQ(summary.inequality_multiplier_distance, -1.0);
  EXPECT_NE(summary.verdict.find("(bounds)"), std::string::npos)
      << summary.verdict;
  // Both points carry the closed-form bound multiplier (least squares).
  ASSERT_EQ(summary.solver.kkt.least_squares_multipliers.bound_upper.size(), 2);
  EXPECT_NEAR(
      summary.solver.kkt.least_squares_multipliers.bound_upper[0], 1.9, 1e-2);
  const nlohmann::json j = CrossCheckToJson(summary);
  EXPECT_TRUE(j["reference"]["kkt"].contains("bound_upper"));
  EXPECT_TRUE(j["agreement"].contains("bound_multiplier_distance"));
  EXPECT_FALSE(j["agreement"].contains("inequality_multiplier_distance"));
}

TEST(CrossCheckInequalities, AugmentedLagrangianAgreesAndTheVerdictNamesMu) {
  auto p = MakeDiscProblem(1.0);
  CrossCheck::Options options;
  options.solver.strategy = StrategyType::WC_AUGMENTED_LAGRANGIAN;
  options.solver.objective_offset = {0.0, 0.0};
  CrossCheck::Summary summary;
  Solve(options, &p->problem, {0.5, 0.5}, &summary);
  ASSERT_TRUE(summary.solver.IsSolutionUsable()) << summary.solver.message;
  EXPECT_TRUE(summary.agree) << summary.FullReport();
  EXPECT_GE(summary.inequality_multiplier_distance, 0.0);
  EXPECT_LT(summary.inequality_multiplier_distance, 1e-4);
  EXPECT_EQ(summary.bound_multiplier_distance, -1.0);
  EXPECT_NE(summary.verdict.find("(inequalities)"), std::string::npos)
      << summary.verdict;
  // The active disc is the only active constraint: sigma_min of its row
  // (0, 2) at (0, 1).
  EXPECT_NEAR(summary.constraint_jacobian_sigma_min, 2.0, 1e-6);
}

// A cross-check whose solver found another point says so and names the
// inequality multipliers' distance with the rest (the verdict is not
// vacuous): the solver is stopped after a handful of iterations.
TEST(CrossCheckInequalities, UnconvergedSolverDisagrees) {
  auto p = MakeDiscProblem(1.0);
  CrossCheck::Options options;
  options.solver.strategy = StrategyType::WC_AUGMENTED_LAGRANGIAN;
  options.solver.objective_offset = {0.0, 0.0};
  options.solver.max_iterations = 1;
  CrossCheck::Summary summary;
  Solve(options, &p->problem, {0.5, 0.5}, &summary);
  EXPECT_FALSE(summary.agree) << summary.FullReport();
  EXPECT_NE(summary.verdict.find("DISAGREE"), std::string::npos);
}

// Regression (plugin/src/kkt.cc): the active-set loop behind the
// least-squares multipliers counted every infinite bound as active (its
// relative threshold inf <= inf), so on a problem with one-sided bounds it
// held unbounded components and missed the zero-residual multipliers. At the
// closed-form point of (C), with no Ipopt involved, they must be exact.
TEST(KktWithBounds, LeastSquaresMultipliersWithOneSidedBoundsAreExact) {
  auto p = MakeMixedProblem();
  ProblemEvaluator evaluator(&p->problem);
  const Expected expected = Mixed();
  KktSystem system;
  std::string error;
  const Eigen::VectorXd z =
      Eigen::Map<const Eigen::VectorXd>(expected.z.data(), 3);
  ASSERT_TRUE(system.Linearize(&evaluator,
                               Eigen::Vector2d(0.5, 0.5),
                               Eigen::Vector2d::Zero(),
                               expected.rho,
                               z,
                               &error))
      << error;
  const KktMultipliers m = system.LeastSquaresMultipliers();
  ExpectVector(m.omega, expected.omega, "omega", 1e-9);
  ExpectVector(m.nu, expected.nu, "nu", 1e-9);
  ExpectVector(m.bound_lower, expected.bound_lower, "z_L", 1e-9);
  ExpectVector(m.bound_upper, expected.bound_upper, "z_U", 1e-9);
  EXPECT_LT(system.Residual(m).SquaredNorm(), 1e-20);
}

}  // namespace
}  // namespace ecmo
