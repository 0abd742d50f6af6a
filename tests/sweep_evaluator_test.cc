// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Sweeps over any ecmo::Evaluator (ecmo/sweep.h EvaluatorFactory,
// ecmo/ceres_problem_sweep.h) and the registry's evaluator-only entries:
// a matrix-free MTBL sweep on two threads equals the one-thread sweep bit
// for bit and lands on the analytic front; a CeresProblemAdapter factory
// reaches the analytic Gebken arc and equals a sweep on one adapter; the
// ecmo::Problem path is the same sweep as its evaluator form; bad input is
// refused with messages; ecmo_solve solves, resumes after SIGKILL and
// refuses --problem_size / --reference=ipopt where they do not apply.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "Eigen/Core"
#include "ceres/autodiff_cost_function.h"
#include "ceres/problem.h"
#include "command_runner.h"
#include "ecmo/ceres_problem_sweep.h"
#include "ecmo/mtbl.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problems/registry.h"
#include "ecmo/sweep.h"
#include "gtest/gtest.h"
#include "test_files.h"

extern char** environ;

namespace ecmo {
namespace {

std::vector<std::vector<double>> Even(int n) {
  std::vector<std::vector<double>> w;
  for (int i = 1; i <= n; ++i) {
    const double l1 = static_cast<double>(i) / (n + 1);
    w.push_back({l1, 1.0 - l1});
  }
  return w;
}

const problems::ProblemInfo& Entry(const std::string& name) {
  const problems::ProblemInfo* info = problems::Find(name);
  EXPECT_NE(info, nullptr) << name;
  return *info;
}

// The paper's form (r = -offset, no normalization), so the analytic WC
// points pareto_point(lambda, offset) apply to every point.
ParetoSweep::Options PaperOptions(const std::vector<double>& offset) {
  ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone (refinement: sweep_refine_test.cc)
  options.solver.strategy = StrategyType::WC_AUGMENTED_LAGRANGIAN;
  options.solver.objective_offset = offset;
  options.solver.kkt_tolerance = 1e-12;
  options.solver.max_iterations = 20000;
  options.solver.record_history = false;
  return options;
}

void ExpectBitIdentical(const ParetoSweep::Summary& a,
                        const ParetoSweep::Summary& b) {
  ASSERT_EQ(a.points.size(), b.points.size());
  for (size_t i = 0; i < a.points.size(); ++i) {
    const Solver::Summary& sa = a.points[i].summary;
    const Solver::Summary& sb = b.points[i].summary;
    ASSERT_EQ(sa.z.size(), sb.z.size()) << i;
    for (int j = 0; j < sa.z.size(); ++j) {
      EXPECT_EQ(sa.z[j], sb.z[j]) << "point " << i << " entry " << j;
    }
    EXPECT_EQ(sa.termination_type, sb.termination_type) << i;
    EXPECT_EQ(sa.evaluations.gradient_evaluations,
              sb.evaluations.gradient_evaluations)
        << i;
  }
}

// ------------------------------------------------ matrix-free MTBL sweeps --

// Slows every solve down at its first iteration (numbers untouched), so
// that a fast sweep still spreads over both workers.
class SlowStart : public IterationCallback {
 public:
  CallbackReturnType operator()(const IterationSummary& summary) override {
    if (summary.iteration == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return ceres::SOLVER_CONTINUE;
  }
};

TEST(SweepEvaluator, MatrixFreeMtblTwoThreadsEqualOneThreadAndTheFront) {
  const problems::ProblemInfo& info = Entry("mtbl_example_iii_matrix_free");
  ASSERT_FALSE(info.has_problem());
  ASSERT_TRUE(info.build_evaluator);
  ParetoSweep::Options options = PaperOptions({1.0, 1.0});
  options.warm_start = false;  // cold: the threads cannot change a point
  SlowStart slow;
  options.solver.callbacks.push_back(&slow);
  const std::vector<std::vector<double>> w = Even(8);
  ParetoSweep::Summary one, two;
  options.num_threads = 1;
  Sweep(options, problems::MakeEvaluatorFactory(info, 0), w, &one);
  options.num_threads = 2;
  Sweep(options, problems::MakeEvaluatorFactory(info, 0), w, &two);
  ASSERT_NE(one.termination_type, ceres::FAILURE) << one.message;
  ASSERT_NE(two.termination_type, ceres::FAILURE) << two.message;
  EXPECT_EQ(one.num_threads_used, 1);
  EXPECT_EQ(two.num_threads_used, 2) << two.threads_message;
  ExpectBitIdentical(one, two);
  std::set<int> threads;
  for (const SweepPoint& p : two.points) threads.insert(p.thread);
  EXPECT_EQ(threads.size(), 2u) << "both workers solved points";

  // The analytic WC points: x in [1, 2], y = (x, x, 0). y3 converges like
  // |h3|^(1/3) (grad h3 = 3 y3^2 vanishes at the solution: LICQ fails).
  EXPECT_EQ(one.num_usable, 8) << one.message;
  for (const SweepPoint& p : one.points) {
    const Solver::Summary& s = p.summary;
    ASSERT_EQ(s.z.size(), 4);
    const Eigen::VectorXd expected = info.pareto_point(
        Eigen::Map<const Eigen::Vector2d>(p.preference.data()),
        Eigen::Vector2d(1.0, 1.0));
    EXPECT_NEAR(s.z[0], expected[0], 1e-4) << "lambda1 = " << p.preference[0];
    EXPECT_NEAR(s.z[1], expected[1], 1e-4);
    EXPECT_NEAR(s.z[2], expected[2], 1e-4);
    EXPECT_NEAR(s.z[3], 0.0, 0.05);
  }
}

TEST(SweepEvaluator, MatrixFreeMtblMatchesItsProblemTwin) {
  // The same problem through MtblEvaluator (hand-written LowerLevel and
  // objectives) and through ecmo::Problem (autodiff): the same front.
  ParetoSweep::Options options = PaperOptions({1.0, 1.0});
  const std::vector<std::vector<double>> w = Even(5);
  ParetoSweep::Summary free_summary, twin_summary;
  Sweep(
      options,
      problems::MakeEvaluatorFactory(Entry("mtbl_example_iii_matrix_free"), 0),
      w,
      &free_summary);
  Sweep(options,
        MakeProblemFactory(Entry("mtbl_example_iii").build),
        w,
        &twin_summary);
  ASSERT_EQ(free_summary.num_usable, 5) << free_summary.message;
  ASSERT_EQ(twin_summary.num_usable, 5) << twin_summary.message;
  for (int i = 0; i < 5; ++i) {
    const Solver::Summary& a = free_summary.points[i].summary;
    const Solver::Summary& b = twin_summary.points[i].summary;
    EXPECT_LT((a.objectives - b.objectives).norm(), 1e-6) << i;
    EXPECT_NEAR(a.z[0], b.z[0], 1e-5) << i;
  }
}

TEST(SweepEvaluator, ProblemPathIsTheEvaluatorPath) {
  // Sweep(ProblemFactory) and the registry's evaluator factory over the
  // same entry: the same sweep (warm starts included, one thread).
  const problems::ProblemInfo& info = Entry("gebken_circle");
  ParetoSweep::Options options;
  options.refine_to = 0;  // the grid alone (refinement: sweep_refine_test.cc)
  options.solver.record_history = false;
  ParetoSweep::Summary problem_path, evaluator_path;
  Sweep(options, MakeProblemFactory(info.build), Even(7), &problem_path);
  Sweep(options,
        problems::MakeEvaluatorFactory(info, 0),
        Even(7),
        &evaluator_path);
  ASSERT_EQ(problem_path.num_usable, 7) << problem_path.message;
  ExpectBitIdentical(problem_path, evaluator_path);
  EXPECT_EQ(problem_path.hypervolume, evaluator_path.hypervolume);
}

// A user-written factory: the evaluator, its start point and its lower
// level, which the instance keeps alive.
class ScaledLowerLevel final : public LowerLevel {
 public:
  // g = 1/2 sum_i c_i (y_i - x)^2, c_i > 0: y*(x) = (x, ..., x).
  explicit ScaledLowerLevel(int n) : c_(n) {
    for (int i = 0; i < n; ++i) c_[i] = 1.0 + i;
  }
  int NumUpperParameters() const override { return 1; }
  int NumLowerParameters() const override {
    return static_cast<int>(c_.size());
  }
  bool GradY(const double* x, const double* y, double* h) const override {
    for (int i = 0; i < c_.size(); ++i) h[i] = c_[i] * (y[i] - x[0]);
    return true;
  }
  bool GradYJacobianTransposeProduct(const double*,
                                     const double*,
                                     const double* v,
                                     double* out_x,
                                     double* out_y) const override {
    out_x[0] = 0.0;
    for (int i = 0; i < c_.size(); ++i) {
      out_y[i] = c_[i] * v[i];
      out_x[0] -= c_[i] * v[i];
    }
    return true;
  }

 private:
  Eigen::VectorXd c_;
};

// f = (mean(y) - target)^2.
struct MeanTarget {
  MeanTarget(double target, int n) : target(target), n(n) {}
  template <typename T>
  bool operator()(T const* const* p, T* f) const {
    T sum(0.0);
    for (int i = 0; i < n; ++i) sum += p[0][i];
    const T d = sum / double(n) - target;
    f[0] = d * d;
    return true;
  }
  double target;
  int n;
};

std::unique_ptr<EvaluatorInstance> BuildScaledOfSize(int n,
                                                     std::string* error) {
  auto lower = std::make_shared<ScaledLowerLevel>(n);
  auto evaluator = std::make_unique<MtblEvaluator>(lower.get());
  for (double target : {-1.0, 1.0}) {
    auto* f = new ceres::DynamicAutoDiffCostFunction<MeanTarget>(
        new MeanTarget(target, n));
    f->AddParameterBlock(n);
    f->SetNumResiduals(1);
    evaluator->AddUpperObjective(f, {MtblBlock::Y});
  }
  if (!evaluator->IsValid(error)) return nullptr;
  auto instance = std::make_unique<EvaluatorInstance>();
  instance->start = Eigen::VectorXd::Zero(n + 1);
  instance->start[0] = 0.5;
  instance->storage = lower;
  instance->evaluator = std::move(evaluator);
  return instance;
}

std::unique_ptr<EvaluatorInstance> BuildScaled(std::string* error) {
  return BuildScaledOfSize(6, error);
}

TEST(SweepEvaluator, RegistrySizeReachesTheBuilder) {
  // A sized family as the registry describes one (not registered: the
  // registry has none yet): 0 gives the default, a size > 0 is passed on.
  problems::ProblemInfo info;
  info.name = "scaled_family";
  info.num_objectives = 2;
  // At the default size (BuildEvaluator checks them against what it
  // builds there).
  info.num_parameters = 5;
  info.num_constraints = 4;
  info.default_problem_size = 4;
  info.problem_size_description = "n_y (>= 1)";
  info.build_evaluator = [](int size, std::string* error) {
    if (size < 1) {
      *error = "n_y must be >= 1";
      return std::unique_ptr<EvaluatorInstance>();
    }
    return BuildScaledOfSize(size, error);
  };
  ASSERT_TRUE(info.has_problem_size());
  std::string error;
  std::unique_ptr<EvaluatorInstance> e =
      problems::BuildEvaluator(info, 0, &error);
  ASSERT_NE(e, nullptr) << error;
  EXPECT_EQ(e->evaluator->NumParameters(), 5);
  e = problems::BuildEvaluator(info, 9, &error);
  ASSERT_NE(e, nullptr) << error;
  EXPECT_EQ(e->evaluator->NumParameters(), 10);
  EXPECT_EQ(e->evaluator->NumConstraints(), 9);
  // Through a sweep's factory.
  ParetoSweep::Options options = PaperOptions({1.0, 1.0});
  ParetoSweep::Summary summary;
  Sweep(options, problems::MakeEvaluatorFactory(info, 3), Even(3), &summary);
  EXPECT_EQ(summary.num_parameters, 4);
  EXPECT_EQ(summary.num_converged, 3) << summary.message;
}

TEST(SweepEvaluator, UserFactoryWithWarmStartsReachesTheFront) {
  // On y = (x, ..., x): f1 = (x+1)^2, f2 = (x-1)^2; with offset 1 the WC
  // point solves l1 ((x+1)^2 + 1) = l2 ((x-1)^2 + 1) on [-1, 1].
  ParetoSweep::Options options = PaperOptions({1.0, 1.0});
  options.num_threads = 2;
  ParetoSweep::Summary summary;
  Sweep(options, EvaluatorFactory(BuildScaled), Even(9), &summary);
  ASSERT_EQ(summary.num_converged, 9) << summary.FullReport();
  for (const SweepPoint& p : summary.points) {
    const double l1 = p.preference[0], l2 = p.preference[1];
    double lo = -1.0, hi = 1.0;
    for (int i = 0; i < 200; ++i) {
      const double x = 0.5 * (lo + hi);
      const double g =
          l1 * ((x + 1) * (x + 1) + 1) - l2 * ((x - 1) * (x - 1) + 1);
      (g > 0.0 ? hi : lo) = x;
    }
    EXPECT_NEAR(p.summary.z[0], 0.5 * (lo + hi), 1e-6) << l1;
    EXPECT_LT((p.summary.z.tail(6).array() - p.summary.z[0]).abs().maxCoeff(),
              1e-6);
  }
}

// ---------------------------------------------- CeresProblemAdapter sweeps --

// Gebken's objectives as Ceres costs: 1/2 ||sqrt(2) (z - p)||^2 =
// (z1-p1)^2 + (z2-p2)^2, and the unit circle as a constraint group.
struct ScaledOffset {
  explicit ScaledOffset(double p2) : p2(p2) {}
  template <typename T>
  bool operator()(const T* z, T* r) const {
    r[0] = std::sqrt(2.0) * (z[0] - 2.0);
    r[1] = std::sqrt(2.0) * (z[1] - p2);
    return true;
  }
  double p2;
};
struct Circle {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = T(1.0) - z[0] * z[0] - z[1] * z[1];
    return true;
  }
};

std::unique_ptr<CeresProblemInstance> BuildGebkenFit() {
  auto fit = std::make_unique<CeresProblemInstance>();
  fit->blocks = {{0.5, 0.5}};
  fit->problem = std::make_unique<ceres::Problem>();
  double* z = fit->blocks[0].data();
  CeresProblemAdapter::ResidualGroup f1{"f1", {}}, f2{"f2", {}},
      circle{"circle", {}};
  f1.residual_blocks.push_back(fit->problem->AddResidualBlock(
      new ceres::AutoDiffCostFunction<ScaledOffset, 2, 2>(
          new ScaledOffset(1.0)),
      nullptr,
      z));
  f2.residual_blocks.push_back(fit->problem->AddResidualBlock(
      new ceres::AutoDiffCostFunction<ScaledOffset, 2, 2>(
          new ScaledOffset(-1.0)),
      nullptr,
      z));
  circle.residual_blocks.push_back(fit->problem->AddResidualBlock(
      new ceres::AutoDiffCostFunction<Circle, 1, 2>(new Circle), nullptr, z));
  fit->objectives = {f1, f2};
  fit->constraints = {circle};
  return fit;
}

TEST(SweepEvaluator, CeresProblemFactoryReachesTheGebkenArc) {
  const problems::ProblemInfo& gebken = Entry("gebken_circle");
  ParetoSweep::Options options = PaperOptions({0.0, 0.0});
  options.num_threads = 2;
  ParetoSweep::Summary summary;
  Sweep(options, MakeCeresProblemFactory(BuildGebkenFit), Even(9), &summary);
  ASSERT_EQ(summary.num_converged, 9) << summary.FullReport();
  EXPECT_EQ(summary.num_threads_used, 2) << summary.threads_message;
  for (const SweepPoint& p : summary.points) {
    const Eigen::VectorXd expected = gebken.pareto_point(
        Eigen::Map<const Eigen::Vector2d>(p.preference.data()),
        Eigen::Vector2d::Zero());
    EXPECT_LT((p.summary.z - expected).norm(), 1e-5)
        << "lambda1 = " << p.preference[0];
  }
}

TEST(SweepEvaluator, OneAdapterSweepsOnOneThreadAndLeavesTheBlocks) {
  std::unique_ptr<CeresProblemInstance> fit = BuildGebkenFit();
  CeresProblemAdapter adapter(
      fit->problem.get(), fit->objectives, fit->constraints);
  ASSERT_TRUE(adapter.IsValid(nullptr));
  ParetoSweep::Options options = PaperOptions({0.0, 0.0});
  options.warm_start = false;
  options.num_threads = 2;
  ParetoSweep::Summary single, factory;
  Sweep(options, &adapter, Even(5), &single);
  EXPECT_EQ(single.num_threads_used, 1);
  EXPECT_NE(single.threads_message.find("one Evaluator"), std::string::npos)
      << single.threads_message;
  EXPECT_EQ(fit->blocks[0], (std::vector<double>{0.5, 0.5}));
  // Cold starts: the same points as a factory sweep on two threads.
  Sweep(options, MakeCeresProblemFactory(BuildGebkenFit), Even(5), &factory);
  EXPECT_EQ(factory.num_threads_used, 2);
  ExpectBitIdentical(single, factory);
}

// ---------------------------------------------------------------- bad input --

TEST(SweepEvaluator, BadInputIsRefusedWithMessages) {
  ParetoSweep::Options options;
  ParetoSweep::Summary summary;

  const EvaluatorFactory failing = [](std::string* error) {
    *error = "no data file";
    return std::unique_ptr<EvaluatorInstance>();
  };
  Sweep(options, failing, Even(3), &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("no data file"), std::string::npos)
      << summary.message;
  EXPECT_EQ(summary.num_not_solved, 3);

  Sweep(options, EvaluatorFactory(), Even(3), &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("factory is empty"), std::string::npos);

  // A start point of the wrong size.
  const EvaluatorFactory short_start = [](std::string* error) {
    std::unique_ptr<EvaluatorInstance> instance = BuildScaled(error);
    instance->start.resize(3);
    return instance;
  };
  Sweep(options, short_start, Even(3), &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("start point has 3 entries"),
            std::string::npos)
      << summary.message;

  // A point_solver needs an ecmo::Problem; a matrix-free evaluator has none.
  options.point_solver = [](const Solver::Options&,
                            const Problem&,
                            const std::vector<double>&,
                            Solver::Summary*,
                            nlohmann::json*) {};
  Sweep(options, EvaluatorFactory(BuildScaled), Even(3), &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("point_solver needs an ecmo::Problem"),
            std::string::npos)
      << summary.message;
  options.point_solver = nullptr;

  Sweep(options,
        static_cast<Evaluator*>(nullptr),
        Eigen::VectorXd(),
        Even(2),
        &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("evaluator is null"), std::string::npos);

  // The registry: unknown names, sizes for fixed-size entries.
  EXPECT_EQ(problems::Find("no_such_problem"), nullptr);
  std::string error;
  EXPECT_EQ(problems::BuildEvaluator(
                Entry("mtbl_example_iii_matrix_free"), 64, &error),
            nullptr);
  EXPECT_NE(error.find("fixed size"), std::string::npos) << error;
  EXPECT_EQ(problems::BuildEvaluator(Entry("gebken_circle"), -1, &error),
            nullptr);
  EXPECT_NE(error.find("negative"), std::string::npos) << error;
}

TEST(SweepEvaluator, RegistryListsBothKindsAndBuildsEveryEntry) {
  // AllProblems() keeps only entries with an ecmo::Problem, so loops over
  // it may call build(); AllEntries() has every entry, and each one builds
  // as an evaluator of the declared sizes.
  for (const problems::ProblemInfo& info : problems::AllProblems()) {
    EXPECT_TRUE(info.has_problem()) << info.name;
  }
  ASSERT_FALSE(problems::EvaluatorProblems().empty());
  EXPECT_EQ(problems::AllEntries().size(),
            problems::AllProblems().size() +
                problems::ConstrainedProblems().size() +
                problems::EvaluatorProblems().size());
  EXPECT_NE(problems::ProblemNames().find("mtbl_example_iii_matrix_free"),
            std::string::npos);
  for (const problems::ProblemInfo* info : problems::AllEntries()) {
    std::string error;
    std::unique_ptr<EvaluatorInstance> e =
        problems::BuildEvaluator(*info, 0, &error);
    ASSERT_NE(e, nullptr) << info->name << ": " << error;
    EXPECT_EQ(e->evaluator->NumObjectives(), info->num_objectives);
    EXPECT_EQ(e->evaluator->NumParameters(), info->num_parameters);
    EXPECT_EQ(e->evaluator->NumConstraints(),
              info->num_constraints + info->num_inequality_constraints);
    EXPECT_EQ(e->start.size(), info->num_parameters);
    EXPECT_EQ(e->problem != nullptr, info->has_problem()) << info->name;
  }
  // The matrix-free entry evaluates what its twin evaluates.
  std::string error;
  auto free_e = problems::BuildEvaluator(
      Entry("mtbl_example_iii_matrix_free"), 0, &error);
  auto twin_e = problems::BuildEvaluator(Entry("mtbl_example_iii"), 0, &error);
  ASSERT_NE(free_e, nullptr);
  ASSERT_NE(twin_e, nullptr);
  EXPECT_EQ(free_e->start, twin_e->start);
  const Eigen::Vector4d z(1.3, 0.7, -0.4, 0.9);
  Eigen::Vector2d fa, fb;
  Eigen::Vector3d ha, hb, va(0.3, -1.1, 0.6);
  Eigen::Matrix<double, 4, 2> ga, gb;
  ASSERT_TRUE(free_e->evaluator->Evaluate(
      z.data(), fa.data(), ha.data(), ga.data(), &error));
  ASSERT_TRUE(twin_e->evaluator->Evaluate(
      z.data(), fb.data(), hb.data(), gb.data(), &error));
  EXPECT_LT((fa - fb).norm(), 1e-14);
  EXPECT_LT((ha - hb).norm(), 1e-14);
  EXPECT_LT((ga - gb).norm(), 1e-14);
  Eigen::Vector4d ja, jb;
  free_e->evaluator->JacobianTransposeMultiply(va.data(), ja.data());
  twin_e->evaluator->JacobianTransposeMultiply(va.data(), jb.data());
  EXPECT_LT((ja - jb).norm(), 1e-14);
}

// ------------------------------------------------------------- ecmo_solve --

#ifdef ECMO_SOLVE_PATH
using testing::ReadText;

int CountCompleteLines(const std::string& path) {
  int n = 0;
  for (char c : ReadText(path)) n += c == '\n';
  return n;
}

std::string TempDir(const char* stem) {
  std::string dir = ::testing::TempDir() + "/" + stem + "_XXXXXX";
  EXPECT_NE(::mkdtemp(&dir[0]), nullptr) << dir;
  return dir;
}

TEST(SweepEvaluatorCli, SolvesTheMatrixFreeProblemLikeAnyOther) {
  const std::string dir = TempDir("evaluator_cli");
  const std::string solve =
      std::string(ECMO_SOLVE_PATH) + " --problem=mtbl_example_iii_matrix_free";
  // One preference, JSON on stdout.
  testing::CommandResult one = testing::RunCommand(
      solve + " --preference=0.5,0.5 --reference_point=offset --json",
      /*merge_stderr=*/false);
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const nlohmann::json j = nlohmann::json::parse(one.output);
  const Eigen::VectorXd expected =
      Entry("mtbl_example_iii")
          .pareto_point(Eigen::Vector2d(0.5, 0.5), Eigen::Vector2d(1.0, 1.0));
  EXPECT_NEAR(j["z"][0].get<double>(), expected[0], 1e-4) << one.output;
  // A sweep on two threads with CSV and JSON-lines outputs.
  const std::string csv = dir + "/front.csv", jsonl = dir + "/front.jsonl";
  testing::CommandResult sweep = testing::RunCommand(
      solve + " --sweep=6 --num_threads=2 --csv=" + csv + " --jsonl=" + jsonl +
      " --plot=" + dir + "/front.png");
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  EXPECT_EQ(CountCompleteLines(jsonl), 6);
  EXPECT_EQ(CountCompleteLines(csv), 7);
  // The plot data (written with or without gnuplot): the analytic front
  // of the problem's twin and the six points.
  EXPECT_GE(CountCompleteLines(dir + "/front.dat"), 6) << sweep.output;
  // The listing marks it.
  testing::CommandResult list =
      testing::RunCommand(std::string(ECMO_SOLVE_PATH) + " --list_problems");
  ASSERT_EQ(list.exit_code, 0);
  EXPECT_NE(list.output.find("mtbl_example_iii_matrix_free  (S = 2, k = 4, "
                             "q = 3; evaluator only)"),
            std::string::npos)
      << list.output;
}

TEST(SweepEvaluatorCli, RefusesWhatDoesNotApply) {
  const std::string solve = ECMO_SOLVE_PATH;
  testing::CommandResult r = testing::RunCommand(
      solve +
      " --problem=mtbl_example_iii_matrix_free --reference=ipopt "
      "--preference=0.5,0.5");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--reference=ipopt needs an ecmo::Problem"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("'mtbl_example_iii_matrix_free'"), std::string::npos);

  r = testing::RunCommand(solve +
                          " --problem=gebken_circle --problem_size=100");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("'gebken_circle' has a fixed size"),
            std::string::npos)
      << r.output;
  r = testing::RunCommand(
      solve + " --problem=mtbl_example_iii_matrix_free --problem_size=8");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("drop --problem_size"), std::string::npos);

  r = testing::RunCommand(solve + " --problem=mtbl_example_iii_matrixfree");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown problem 'mtbl_example_iii_matrixfree'"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("mtbl_example_iii_matrix_free"), std::string::npos)
      << "the valid names list the evaluator-only entries too";
}

TEST(SweepEvaluatorCli, KilledMatrixFreeSweepResumesWithEveryPointOnce) {
  const std::string dir = TempDir("killed_evaluator");
  const std::string jsonl = dir + "/killed.jsonl";
  const std::string output = dir + "/killed.json";
  const int n = 16;
  // The faithful strategy runs all T iterations: slow enough to interrupt.
  const std::vector<std::string> common = {
      "--problem=mtbl_example_iii_matrix_free",
      "--sweep=16",
      "--strategy=wc-penalty-pgd",
      "--max_iterations=100000",
      "--num_threads=2",
      "--jsonl=" + jsonl,
      "--output=" + output};
  std::vector<std::string> args = {ECMO_SOLVE_PATH};
  args.insert(args.end(), common.begin(), common.end());
  args.push_back("--json");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ),
            0);
  posix_spawn_file_actions_destroy(&actions);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (CountCompleteLines(jsonl) < 3 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "ecmo_solve finished before the kill";
  const int written = CountCompleteLines(jsonl);
  ASSERT_GE(written, 3);
  ASSERT_LT(written, n) << "the sweep was too fast to interrupt";
  {
    // A line cut short, as a kill in the middle of a write leaves.
    std::ofstream out(jsonl, std::ios::app);
    out << "{\"index\": 15, \"problem\": \"mtbl_exa";
  }

  std::string command = ECMO_SOLVE_PATH;
  for (const std::string& a : common) command += " " + a;
  const testing::CommandResult resumed =
      testing::RunCommand(command + " --resume");
  // 0 or 3: every point usable (the faithful strategy may not certify).
  EXPECT_TRUE(resumed.exit_code == 0 || resumed.exit_code == 3)
      << resumed.output;
  EXPECT_NE(
      resumed.output.find("resumed " + std::to_string(written) + " of 16"),
      std::string::npos)
      << resumed.output;
  EXPECT_NE(resumed.output.find("truncated last line"), std::string::npos);

  std::multiset<int> indices;
  std::istringstream lines(ReadText(jsonl));
  std::string line;
  while (std::getline(lines, line)) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << line;
    EXPECT_EQ(j["problem"], "mtbl_example_iii_matrix_free");
    indices.insert(j["index"].get<int>());
  }
  ASSERT_EQ(indices.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) EXPECT_EQ(indices.count(i), 1u) << i;
  std::ifstream in(output);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["points"].size(), static_cast<size_t>(n));
  EXPECT_EQ(j["num_resumed"].get<int>(), written);
  EXPECT_EQ(j["num_solved"].get<int>(), n - written);
}
#endif

}  // namespace
}  // namespace ecmo
