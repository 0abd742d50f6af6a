// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The MTBL adapter: h = grad_y g derived by nested automatic differentiation
// against the hand-written h of the paper's synthetic examples (i) and (iii),
// (iii) solved to its known front, (i) reported as unbounded, the clear
// errors, and the matrix-free evaluator on a lower level with 10^4
// variables.

#include "ecmo/mtbl.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ecmo/problems/registry.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

// ------------------------------------------------------------ example (i) --
// min (y, y + 1)  s.t.  y in argmin_y g = x y + y^4 / 4;  h = x + y^3.
struct GExampleI {
  template <typename T>
  bool operator()(const T* x, const T* y, T* g) const {
    g[0] = x[0] * y[0] + K<T>(0.25) * pow(y[0], 4);
    return true;
  }
};
struct FExampleI {
  explicit FExampleI(double shift) : shift(shift) {}
  template <typename T>
  bool operator()(const T* y, T* f) const {
    f[0] = y[0] + shift;
    return true;
  }
  double shift;
};

// ---------------------------------------------------------- example (iii) --
// g = 1/2 (y1 - x)^2 + 1/2 (y2 - x)^2 + 1/4 y3^4.
struct GExampleIii {
  template <typename T>
  bool operator()(const T* x, const T* y, T* g) const {
    const T d1 = y[0] - x[0];
    const T d2 = y[1] - x[0];
    g[0] =
        K<T>(0.5) * d1 * d1 + K<T>(0.5) * d2 * d2 + K<T>(0.25) * pow(y[2], 4.0);
    return true;
  }
};
// The same g for the run-time sized adapter: loops over ny entries.
struct GExampleIiiDynamic {
  template <typename T>
  bool operator()(const T* x, const T* y, T* g) const {
    T sum = K<T>(0.0);
    for (int i = 0; i < 2; ++i) {
      const T d = y[i] - x[0];
      sum += K<T>(0.5) * d * d;
    }
    sum += K<T>(0.25) * y[2] * y[2] * y[2] * y[2];
    g[0] = sum;
    return true;
  }
};
struct FExampleIii {
  explicit FExampleIii(double target) : target(target) {}
  template <typename T>
  bool operator()(const T* x, const T* y, T* f) const {
    f[0] = (y[0] - target) * (y[0] - target) + (y[1] - x[0]) * (y[1] - x[0]) +
           y[2] * y[2];
    return true;
  }
  double target;
};

// h and its two Jacobian blocks from the problem's only constraint.
struct Linearization {
  std::vector<double> h, jx, jy;
};
Linearization Linearize(const ceres::CostFunction& cost,
                        const double* x,
                        int nx,
                        const double* y,
                        int ny) {
  Linearization l;
  l.h.assign(ny, 0.0);
  l.jx.assign(ny * nx, 0.0);
  l.jy.assign(ny * ny, 0.0);
  const double* parameters[2] = {x, y};
  double* jacobians[2] = {l.jx.data(), l.jy.data()};
  EXPECT_TRUE(cost.Evaluate(parameters, l.h.data(), jacobians));
  return l;
}

void BuildExampleIii(double* x, double* y, bool dynamic, MtblProblem* mtbl) {
  ASSERT_TRUE(mtbl->SetUpperLevelVariables(x, 1));
  ASSERT_TRUE(mtbl->SetLowerLevelVariables(y, 3));
  if (dynamic) {
    ASSERT_TRUE(mtbl->SetDynamicLowerLevelObjective(new GExampleIiiDynamic));
  } else {
    ASSERT_TRUE((mtbl->SetLowerLevelObjective<1, 3>(new GExampleIii)));
  }
  ASSERT_GE(mtbl->AddUpperObjective(
                new ceres::AutoDiffCostFunction<FExampleIii, 1, 1, 3>(
                    new FExampleIii(1.0)),
                {x, y},
                "f1"),
            0);
  ASSERT_GE(mtbl->AddUpperObjective(
                new ceres::AutoDiffCostFunction<FExampleIii, 1, 1, 3>(
                    new FExampleIii(2.0)),
                {x, y},
                "f2"),
            0);
}

void BuildExampleI(double* x, double* y, MtblProblem* mtbl) {
  ASSERT_TRUE(mtbl->SetUpperLevelVariables(x, 1));
  ASSERT_TRUE(mtbl->SetLowerLevelVariables(y, 1));
  ASSERT_TRUE((mtbl->SetLowerLevelObjective<1, 1>(new GExampleI)));
  ASSERT_GE(
      mtbl->AddUpperObjective(
          new ceres::AutoDiffCostFunction<FExampleI, 1, 1>(new FExampleI(0.0)),
          {y},
          "f1"),
      0);
  ASSERT_GE(
      mtbl->AddUpperObjective(
          new ceres::AutoDiffCostFunction<FExampleI, 1, 1>(new FExampleI(1.0)),
          {y},
          "f2"),
      0);
}

TEST(Mtbl, ConstantHelperWorksOnEveryJetDepth) {
  EXPECT_EQ(K<double>(0.5), 0.5);
  using J1 = ceres::Jet<double, 3>;
  using J2 = ceres::Jet<J1, 2>;
  using J3 = ceres::Jet<J2, 2>;
  EXPECT_EQ(K<J1>(0.5).a, 0.5);
  EXPECT_EQ(K<J1>(0.5).v.norm(), 0.0);
  EXPECT_EQ(K<J2>(0.5).a.a, 0.5);
  EXPECT_EQ(K<J3>(-2.0).a.a.a, -2.0);
}

TEST(Mtbl, DerivedGradYMatchesHandWrittenExampleI) {
  double x[1] = {0.0}, y[1] = {0.0};
  MtblProblem mtbl;
  BuildExampleI(x, y, &mtbl);
  std::string error;
  ASSERT_TRUE(mtbl.IsValid(&error)) << error;
  ASSERT_EQ(mtbl.problem().NumConstraints(), 1);
  const ceres::CostFunction& h = *mtbl.problem().constraints()[0].cost_function;
  const double points[][2] = {
      {0.7, -1.3}, {-2.0, 0.4}, {0.0, 0.0}, {3.5, 2.25}, {-0.1, -7.0}};
  for (const auto& p : points) {
    const Linearization l = Linearize(h, &p[0], 1, &p[1], 1);
    const double xv = p[0], yv = p[1];
    const double scale = 1.0 + std::abs(yv * yv * yv);
    EXPECT_NEAR(l.h[0], xv + yv * yv * yv, 1e-12 * scale);
    EXPECT_NEAR(l.jx[0], 1.0, 1e-12);
    EXPECT_NEAR(l.jy[0], 3.0 * yv * yv, 1e-12 * scale);
  }
}

TEST(Mtbl, DerivedGradYMatchesHandWrittenExampleIii) {
  // Against the formulas and against the registry's hand-written h.
  const problems::ProblemInfo* info = problems::Find("mtbl_example_iii");
  ASSERT_NE(info, nullptr);
  std::unique_ptr<problems::ProblemInstance> reference = info->build();
  const ceres::CostFunction& hand =
      *reference->problem.constraints()[0].cost_function;
  for (bool dynamic : {false, true}) {
    double x[1] = {0.0}, y[3] = {0.0, 0.0, 1.0};
    MtblProblem mtbl;
    BuildExampleIii(x, y, dynamic, &mtbl);
    std::string error;
    ASSERT_TRUE(mtbl.IsValid(&error)) << error;
    const ceres::CostFunction& derived =
        *mtbl.problem().constraints()[0].cost_function;
    const double points[][4] = {{0.7, 1.5, -0.2, -1.3},
                                {-1.0, 0.0, 2.0, 0.5},
                                {1.5, 1.5, 1.5, 0.0},
                                {2.0, -3.0, 0.25, 2.0}};
    for (const auto& p : points) {
      const Linearization a = Linearize(derived, &p[0], 1, &p[1], 3);
      const Linearization b = Linearize(hand, &p[0], 1, &p[1], 3);
      const double y3 = p[3];
      const double expected_h[3] = {p[1] - p[0], p[2] - p[0], y3 * y3 * y3};
      const double expected_jx[3] = {-1.0, -1.0, 0.0};
      for (int i = 0; i < 3; ++i) {
        EXPECT_NEAR(a.h[i], expected_h[i], 1e-12) << "dynamic=" << dynamic;
        EXPECT_NEAR(a.h[i], b.h[i], 1e-12);
        EXPECT_NEAR(a.jx[i], expected_jx[i], 1e-12);
        EXPECT_NEAR(a.jx[i], b.jx[i], 1e-12);
        for (int j = 0; j < 3; ++j) {
          const double expected = i != j ? 0.0 : (i < 2 ? 1.0 : 3.0 * y3 * y3);
          EXPECT_NEAR(a.jy[i * 3 + j], expected, 1e-12);
          EXPECT_NEAR(a.jy[i * 3 + j], b.jy[i * 3 + j], 1e-12);
        }
      }
    }
  }
}

TEST(Mtbl, LowerLevelProductsMatchTheDenseJacobian) {
  double x[1] = {0.3}, y[3] = {1.0, -0.5, 0.8};
  MtblProblem mtbl;
  BuildExampleIii(x, y, false, &mtbl);
  const LowerLevel& lower = *mtbl.lower_level();
  const double v[3] = {0.5, -1.0, 2.0};
  double out_x[1], out_y[3];
  ASSERT_TRUE(lower.GradYJacobianTransposeProduct(x, y, v, out_x, out_y));
  EXPECT_NEAR(out_x[0], -0.5 + 1.0, 1e-12);
  EXPECT_NEAR(out_y[0], 0.5, 1e-12);
  EXPECT_NEAR(out_y[1], -1.0, 1e-12);
  EXPECT_NEAR(out_y[2], 3.0 * 0.64 * 2.0, 1e-12);
  // The base class' forward product (exact in y, central difference in x).
  const double wx[1] = {0.7}, wy[3] = {1.0, 2.0, -1.0};
  double out[3];
  ASSERT_TRUE(lower.LowerLevel::GradYJacobianProduct(x, y, wx, wy, out));
  EXPECT_NEAR(out[0], -0.7 + 1.0, 1e-8);
  EXPECT_NEAR(out[1], -0.7 + 2.0, 1e-8);
  EXPECT_NEAR(out[2], -3.0 * 0.64, 1e-8);
  double g;
  ASSERT_TRUE(lower.Value(x, y, &g));
  EXPECT_NEAR(g, 0.5 * 0.49 + 0.5 * 0.64 + 0.25 * std::pow(0.8, 4), 1e-14);
}

TEST(Mtbl, ExampleIiiReachesItsFront) {
  const problems::ProblemInfo* info = problems::Find("mtbl_example_iii");
  ASSERT_NE(info, nullptr);
  for (double l1 : {0.25, 0.5, 0.75}) {
    double x[1] = {0.0}, y[3] = {0.0, 0.0, 1.0};
    MtblProblem mtbl;
    BuildExampleIii(x, y, false, &mtbl);
    Solver::Options options;
    options.strategy = StrategyType::WC_PENALTY_PGD;
    options.max_iterations = 100000;
    options.objective_offset = {1.0, 1.0};
    options.record_history = false;
    Solver::Summary summary;
    MtblReport report;
    SolveMtbl(options, &mtbl, {l1, 1.0 - l1}, &summary, &report);
    ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
    const Eigen::VectorXd expected = info->pareto_point(
        Eigen::Vector2d(l1, 1.0 - l1), Eigen::Vector2d(1.0, 1.0));
    // The faithful schedule leaves the penalty minimizer O(T^(-1/4)) from
    // the WC point in x and y1, y2; y3 converges like t^(-1/2) because
    // grad h3 = 3 y3^2 vanishes at the solution.
    EXPECT_NEAR(x[0], expected[0], 0.05) << "lambda1 = " << l1;
    EXPECT_NEAR(y[0], expected[1], 0.05);
    EXPECT_NEAR(y[1], expected[2], 0.05);
    EXPECT_NEAR(y[2], 0.0, 0.1);
    EXPECT_GE(x[0], 1.0 - 0.05);
    EXPECT_LE(x[0], 2.0 + 0.05);
    EXPECT_FALSE(report.unbounded_suspected) << report.message;
    EXPECT_TRUE(report.lower_level_convex) << report.message;
    EXPECT_LT(report.grad_y_g_norm, 0.05);
    EXPECT_GE(report.lower_level_gap, -1e-10);
    EXPECT_LT(report.lower_level_gap, 1e-3);
    EXPECT_EQ(report.termination_type, summary.termination_type);
    EXPECT_NEAR(report.x[0], x[0], 0.0);
    EXPECT_LT(report.kkt_residual_sq, 1e-2) << report.message;
  }
}

TEST(Mtbl, ExampleIIsReportedUnbounded) {
  // Feasible start on x = -y^3; the objectives fall without bound along it.
  // (The MtblSolver form; ExampleIiiReachesItsFront uses legacy SolveMtbl.)
  double x[1] = {1.0}, y[1] = {-1.0};
  MtblProblem mtbl;
  BuildExampleI(x, y, &mtbl);
  MtblSolver::Options options;
  options.solver.strategy = StrategyType::WC_PENALTY_PGD;
  options.solver.max_iterations = 20000;
  options.solver.automatic_objective_offset = true;
  MtblSolver::Summary summary;
  Solve(options, &mtbl, {0.5, 0.5}, &summary);
  const MtblReport& report = summary.report;
  EXPECT_NE(summary.solver.termination_type, ceres::CONVERGENCE)
      << summary.solver.message;
  EXPECT_TRUE(report.unbounded_suspected) << report.message;
  EXPECT_EQ(report.termination_type, ceres::FAILURE);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_FALSE(summary.IsSolutionUsable());
  EXPECT_NE(report.message.find("unbounded"), std::string::npos);
  EXPECT_EQ(summary.message, report.message);
  EXPECT_NE(summary.FullReport().find("Unbounded suspected"),
            std::string::npos);
  // The lower level itself is fine: convex, and solved at the final x.
  EXPECT_TRUE(report.lower_level_convex) << report.message;

  // Invalid report options are refused before solving.
  MtblSolver::Options bad = options;
  bad.report.probe_steps = -1;
  std::string error;
  EXPECT_FALSE(bad.IsValid(&error));
  EXPECT_NE(error.find("MtblSolver::Options::report.probe_steps"),
            std::string::npos)
      << error;
}

// The fast strategies are looked up by name, so this file does not depend
// on which ones exist; the tests are skipped when the strategy is missing.
bool FastStrategy(StrategyType* type) {
  return StringToStrategyType("wc-augmented-lagrangian", type);
}

TEST(Mtbl, ExampleIiiReachesItsFrontTightlyWithAFastStrategy) {
  StrategyType strategy;
  if (!FastStrategy(&strategy)) GTEST_SKIP() << "no fast strategy built";
  const problems::ProblemInfo* info = problems::Find("mtbl_example_iii");
  ASSERT_NE(info, nullptr);
  for (double l1 : {0.2, 0.5, 0.8}) {
    double x[1] = {0.0}, y[3] = {0.0, 0.0, 1.0};
    MtblProblem mtbl;
    BuildExampleIii(x, y, l1 > 0.5, &mtbl);  // both adapters
    Solver::Options options;
    options.strategy = strategy;
    options.kkt_tolerance = 1e-10;
    options.objective_offset = {1.0, 1.0};
    Solver::Summary summary;
    MtblReport report;
    SolveMtbl(options, &mtbl, {l1, 1.0 - l1}, &summary, &report);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_EQ(report.termination_type, ceres::CONVERGENCE) << report.message;
    const Eigen::VectorXd expected = info->pareto_point(
        Eigen::Vector2d(l1, 1.0 - l1), Eigen::Vector2d(1.0, 1.0));
    EXPECT_NEAR(x[0], expected[0], 1e-4) << "lambda1 = " << l1;
    EXPECT_NEAR(y[0], expected[1], 1e-4);
    EXPECT_NEAR(y[1], expected[2], 1e-4);
    EXPECT_NEAR(y[2], 0.0, 0.05);  // h3 = y3^3: |y3| ~ |h3|^(1/3)
    EXPECT_FALSE(report.unbounded_suspected) << report.message;
    EXPECT_TRUE(report.warnings.empty()) << report.message;
  }
}

TEST(Mtbl, ExampleISpuriousCertificateIsOverruledByTheReport) {
  // With a large offset the objectives stay positive, and far out on
  // x = -y^3 the objectives' slope along the feasible set vanishes, so a
  // least-squares KKT certificate can pass a loose tolerance although no
  // Pareto point exists. The report must still say FAILURE.
  StrategyType strategy;
  if (!FastStrategy(&strategy)) GTEST_SKIP() << "no fast strategy built";
  double x[1] = {1.0}, y[1] = {-1.0};
  MtblProblem mtbl;
  BuildExampleI(x, y, &mtbl);
  Solver::Options options;
  options.strategy = strategy;
  options.objective_offset = {1e3, 1e3};
  options.kkt_tolerance = 1e-6;
  Solver::Summary summary;
  MtblReport report;
  SolveMtbl(options, &mtbl, {0.5, 0.5}, &summary, &report);
  EXPECT_TRUE(report.unbounded_suspected) << report.message;
  EXPECT_EQ(report.termination_type, ceres::FAILURE) << report.message;
  EXPECT_LT(report.upper_objectives[0], -5.0);
}

// g = -1/2 y^2 + x y: concave in y.
struct ConcaveG {
  template <typename T>
  bool operator()(const T* x, const T* y, T* g) const {
    g[0] = K<T>(-0.5) * y[0] * y[0] + x[0] * y[0];
    return true;
  }
};

TEST(Mtbl, NonConvexLowerLevelIsWarned) {
  double x[1] = {0.5}, y[1] = {0.0};
  MtblProblem mtbl;
  ASSERT_TRUE(mtbl.SetUpperLevelVariables(x, 1));
  ASSERT_TRUE(mtbl.SetLowerLevelVariables(y, 1));
  ASSERT_TRUE((mtbl.SetLowerLevelObjective<1, 1>(new ConcaveG)));
  mtbl.AddUpperObjective(
      new ceres::AutoDiffCostFunction<FExampleI, 1, 1>(new FExampleI(3.0)),
      {y});
  double min_relative = 0.0;
  std::string message;
  EXPECT_FALSE(CheckLowerLevelConvexity(
      *mtbl.lower_level(), x, y, MtblReportOptions(), &min_relative, &message));
  EXPECT_LT(min_relative, -0.99);
  EXPECT_NE(message.find("not convex"), std::string::npos) << message;

  Solver::Options options;
  options.max_iterations = 200;
  Solver::Summary summary;
  MtblReport report;
  MtblReportOptions report_options;
  report_options.probe_steps = 0;
  SolveMtbl(options, &mtbl, {1.0}, &summary, &report, report_options);
  EXPECT_FALSE(report.lower_level_convex);
  EXPECT_NE(report.message.find("not convex"), std::string::npos)
      << report.message;
}

TEST(Mtbl, ClearErrors) {
  std::string error;
  {
    // y block missing.
    double x[1] = {0.0};
    MtblProblem mtbl;
    ASSERT_TRUE(mtbl.SetUpperLevelVariables(x, 1));
    EXPECT_FALSE((mtbl.SetLowerLevelObjective<1, 1>(new GExampleI)));
    EXPECT_FALSE(mtbl.IsValid(&error));
    EXPECT_NE(error.find("lower-level variables y are missing"),
              std::string::npos)
        << error;
    Solver::Options options;
    Solver::Summary summary;
    MtblReport report;
    SolveMtbl(options, &mtbl, {1.0}, &summary, &report);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
    EXPECT_NE(report.message.find("missing"), std::string::npos)
        << report.message;
  }
  {
    // Nothing at all.
    MtblProblem mtbl;
    EXPECT_FALSE(mtbl.IsValid(&error));
    EXPECT_NE(error.find("upper-level variables x are missing"),
              std::string::npos);
  }
  {
    // x and y overlapping.
    double storage[4] = {0.0, 0.0, 0.0, 0.0};
    MtblProblem mtbl;
    ASSERT_TRUE(mtbl.SetUpperLevelVariables(storage, 2));
    EXPECT_FALSE(mtbl.SetLowerLevelVariables(storage + 1, 3));
    EXPECT_FALSE(mtbl.IsValid(&error));
    EXPECT_NE(error.find("overlaps"), std::string::npos) << error;
  }
  {
    // Sizes that do not match the functor.
    double x[1] = {0.0}, y[3] = {0.0, 0.0, 0.0};
    MtblProblem mtbl;
    ASSERT_TRUE(mtbl.SetUpperLevelVariables(x, 1));
    ASSERT_TRUE(mtbl.SetLowerLevelVariables(y, 3));
    EXPECT_FALSE((mtbl.SetLowerLevelObjective<1, 1>(new GExampleI)));
    EXPECT_FALSE(mtbl.IsValid(&error));
    EXPECT_NE(error.find("NY = 1"), std::string::npos) << error;
    EXPECT_NE(error.find("SetLowerLevelObjective<1, 3>"), std::string::npos)
        << error;
  }
  {
    // An upper objective whose block size does not match y.
    double x[1] = {0.0}, y[3] = {0.0, 0.0, 0.0};
    MtblProblem mtbl;
    ASSERT_TRUE(mtbl.SetUpperLevelVariables(x, 1));
    ASSERT_TRUE(mtbl.SetLowerLevelVariables(y, 3));
    EXPECT_EQ(
        mtbl.AddUpperObjective(new ceres::AutoDiffCostFunction<FExampleI, 1, 1>(
                                   new FExampleI(0.0)),
                               {y}),
        -1);
    EXPECT_FALSE(mtbl.IsValid(&error));
    EXPECT_FALSE(error.empty());
    // A block pointing inside y.
    MtblProblem other;
    ASSERT_TRUE(other.SetUpperLevelVariables(x, 1));
    ASSERT_TRUE(other.SetLowerLevelVariables(y, 3));
    EXPECT_EQ(other.AddUpperObjective(
                  new ceres::AutoDiffCostFunction<FExampleI, 1, 1>(
                      new FExampleI(0.0)),
                  {y + 1}),
              -1);
    EXPECT_FALSE(other.IsValid(&error));
    EXPECT_NE(error.find("overlaps x or y"), std::string::npos) << error;
  }
  {
    MtblEvaluator evaluator(nullptr);
    EXPECT_FALSE(evaluator.IsValid(&error));
    EXPECT_NE(error.find("null"), std::string::npos);
    Eigen::VectorXd z(0);
    Solver::Options options;
    Solver::Summary summary;
    Solve(options, &evaluator, {1.0}, &z, &summary);
    EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  }
}

// ------------------------------------------------- matrix-free, y in R^n --
// g(x, y) = sum_i 1/2 r_i^2 + b_i/4 r_i^4,  r_i = y_i - a_i x  (x scalar),
// so y*(x) = a x; ||a|| = 1. Upper objectives f_1 = 1/2 ||y - a||^2,
// f_2 = 1/2 ||y + a||^2: on the lower-level solution set f_1 = (x-1)^2/2,
// f_2 = (x+1)^2/2, Pareto set x in [-1, 1].
class SeparableLowerLevel final : public LowerLevel {
 public:
  SeparableLowerLevel(const Eigen::VectorXd& a, const Eigen::VectorXd& b)
      : a_(a), b_(b) {}
  int NumUpperParameters() const override { return 1; }
  int NumLowerParameters() const override {
    return static_cast<int>(a_.size());
  }
  bool Value(const double* x, const double* y, double* g) const override {
    double sum = 0.0;
    for (int i = 0; i < a_.size(); ++i) {
      const double r = y[i] - a_[i] * x[0];
      sum += 0.5 * r * r + 0.25 * b_[i] * r * r * r * r;
    }
    *g = sum;
    return true;
  }
  bool GradY(const double* x, const double* y, double* h) const override {
    for (int i = 0; i < a_.size(); ++i) {
      const double r = y[i] - a_[i] * x[0];
      h[i] = r + b_[i] * r * r * r;
    }
    return true;
  }
  bool GradYJacobianTransposeProduct(const double* x,
                                     const double* y,
                                     const double* v,
                                     double* out_x,
                                     double* out_y) const override {
    out_x[0] = 0.0;
    for (int i = 0; i < a_.size(); ++i) {
      const double r = y[i] - a_[i] * x[0];
      const double d = 1.0 + 3.0 * b_[i] * r * r;  // dh_i/dy_i
      out_y[i] = d * v[i];
      out_x[0] -= a_[i] * d * v[i];  // dh_i/dx = -a_i d
    }
    return true;
  }

 private:
  Eigen::VectorXd a_, b_;
};

// f = 1/2 ||y - sign * a||^2 over y (run-time size).
class HalfSquaredDistance final : public ceres::CostFunction {
 public:
  HalfSquaredDistance(const Eigen::VectorXd& a, double sign)
      : target_(sign * a) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(static_cast<int>(a.size()));
  }
  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    const double* y = parameters[0];
    double sum = 0.0;
    for (int i = 0; i < target_.size(); ++i) {
      const double d = y[i] - target_[i];
      sum += d * d;
      if (jacobians != nullptr && jacobians[0] != nullptr) {
        jacobians[0][i] = d;
      }
    }
    residuals[0] = 0.5 * sum;
    return true;
  }

 private:
  Eigen::VectorXd target_;
};

// The WC point of f = ((x-1)^2/2 + o, (x+1)^2/2 + o) on x in [-1, 1].
double SeparableWcPoint(double l1, double offset) {
  double lo = -1.0, hi = 1.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double g = l1 * (0.5 * (mid - 1) * (mid - 1) + offset) -
                     (1 - l1) * (0.5 * (mid + 1) * (mid + 1) + offset);
    (g > 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

TEST(Mtbl, MatrixFreeEvaluatorOnTenThousandLowerVariables) {
  const int n = 10000;
  Eigen::VectorXd a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 1.0 + 0.5 * std::sin(0.37 * i);
    b[i] = 0.5 + 0.5 * std::cos(1.3 * i);
  }
  a /= a.norm();
  SeparableLowerLevel lower(a, b);
  MtblEvaluator evaluator(&lower);
  ASSERT_EQ(evaluator.AddUpperObjective(
                new HalfSquaredDistance(a, 1.0), {MtblBlock::Y}, "f1"),
            0);
  ASSERT_EQ(evaluator.AddUpperObjective(
                new HalfSquaredDistance(a, -1.0), {MtblBlock::Y}, "f2"),
            1);
  std::string error;
  ASSERT_TRUE(evaluator.IsValid(&error)) << error;
  ASSERT_EQ(evaluator.NumParameters(), n + 1);
  ASSERT_EQ(evaluator.NumConstraints(), n);

  const double l1 = 0.3, offset = 0.5;
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n + 1);
  z[0] = 0.8;  // x0; y0 = 0 (infeasible start)
  Solver::Options options;
  options.strategy = StrategyType::WC_PENALTY_PGD;
  options.max_iterations = 20000;
  options.pgd.eta0 = 0.05;
  options.objective_offset = {offset, offset};
  options.record_history = false;
  Solver::Summary summary;
  Solve(options, &evaluator, {l1, 1.0 - l1}, &z, &summary);
  ASSERT_TRUE(summary.IsSolutionUsable()) << summary.message;
  const double x_star = SeparableWcPoint(l1, offset);
  EXPECT_NEAR(z[0], x_star, 0.03) << summary.FullReport();
  EXPECT_LT((z.tail(n) - a * z[0]).norm(), 0.03);
  // The faithful schedule's penalty bias: ||K||^2 ~ 1/v^2 in the
  // complementarity block (3.5e-3 at T = 2e4); h is solved to rounding.
  EXPECT_LT(summary.kkt.with_least_squares_multipliers.SquaredNorm(), 1e-2);
  EXPECT_LT(summary.constraint_norm, 1e-6);

  MtblReport report;
  MtblReportOptions report_options;
  ASSERT_TRUE(ComputeMtblReport(&evaluator, summary, report_options, &report))
      << report.message;
  EXPECT_FALSE(report.unbounded_suspected) << report.message;
  EXPECT_TRUE(report.lower_level_convex);
  EXPECT_LT(report.grad_y_g_norm, 0.03);
  EXPECT_GE(report.lower_level_gap, -1e-10);
  EXPECT_LT(report.lower_level_gap, 1e-3);
  ASSERT_EQ(report.lower_level_solution.size(), n);
  EXPECT_LT((report.lower_level_solution - a * z[0]).norm(), 1e-6);
}

}  // namespace
}  // namespace ecmo
