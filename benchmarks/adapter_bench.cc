// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: overhead of ecmo::CeresProblemAdapter per evaluation.
//
// A pose-graph-like ceres::Problem: n points p_j in R^3 (parameter blocks of
// size 3), and 2m "between" residual blocks r = p_j - p_k - d (3 residuals,
// AutoDiffCostFunction<Between, 3, 3, 3>) in two conflicting groups A and B
// (the measurements of B are those of A plus a bias), so the objectives are
// f_A = Ceres' cost of group A and f_B = that of group B; a CauchyLoss on
// group B. Constraints: p_0 is anchored (p_0 - a = 0, 3 residuals) and
// `closures` loop closures p_j - p_k - d = 0 hold exactly.
//
// The same problem is written directly with ecmo::Problem: each objective is
// one hand-written ceres::CostFunction that loops over the same (non-owned)
// AutoDiff cost functions and loss functions and sums Ceres' cost
// 1/2 rho(|r|^2) with its gradient -- what a user would write without the
// adapter -- and the constraints are fresh instances of the same functors.
//
// Timed per evaluation (minimum over repetitions of the mean of a batch):
//   value     Evaluator::Evaluate without gradients (F and h);
//   gradient  Evaluate with gradients (F, grad F, h and J_h);
//   J^T v     one product J_h^T v at the last linearization;
// for ecmo::ProblemEvaluator on the direct problem, the adapter's default
// path (kDirect: each residual block's own CostFunction and LossFunction,
// pointers into z) and its kProblemEvaluate path (ceres::Problem::Evaluate
// with EvaluateOptions::residual_blocks / parameter_blocks). Also Ceres'
// own Problem::Evaluate of all residual blocks (cost and gradient) as a
// yardstick. For the adapter's kDirect path also
//   Gauss-Newton  one CeresProblemAdapter::GaussNewtonMatrix (the sparse
//                 lower triangle of a_A J_A^T J_A + a_B J_B^T J_B +
//                 c J_h^T J_h that StrategyType::WC_NEWTON factorizes),
// reported against one gradient evaluation, after checking it against
// J^T J from Problem::Evaluate's (loss-corrected) Jacobians.
//
//   adapter_bench [--points=2000] [--blocks=10000] [--closures=20]
//                 [--repetitions=5]
//
// (--blocks is m, the residual blocks PER objective group.)
//
//   adapter_bench --smoke   (CTest: 50 points, 200 blocks, 3 closures, one
//       repetition of >= 5 ms batches; exits 1 unless the three routes agree
//       on F and grad F to 1e-10, the Gauss-Newton matrix agrees with
//       Ceres' Jacobians to 1e-10, and every time is finite and positive)
//
// No solves: nothing here depends on a strategy or a scalarization.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/SparseCore"
#include "ceres/autodiff_cost_function.h"
#include "ceres/cost_function.h"
#include "ceres/crs_matrix.h"
#include "ceres/loss_function.h"
#include "ceres/problem.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/evaluator.h"
#include "ecmo/problem.h"

namespace {

struct Between {
  explicit Between(const double* d) : d{d[0], d[1], d[2]} {}
  template <typename T>
  bool operator()(const T* a, const T* b, T* r) const {
    for (int i = 0; i < 3; ++i) r[i] = a[i] - b[i] - d[i];
    return true;
  }
  double d[3];
};

struct Anchor {
  explicit Anchor(const double* a) : a{a[0], a[1], a[2]} {}
  template <typename T>
  bool operator()(const T* p, T* r) const {
    for (int i = 0; i < 3; ++i) r[i] = p[i] - a[i];
    return true;
  }
  double a[3];
};

// One term of a hand-written objective: a (non-owned) cost function on two
// point blocks, with an optional (non-owned) loss.
struct Term {
  const ceres::CostFunction* cost_function;
  const ceres::LossFunction* loss_function;
  int j, k;
};

// f = sum of Ceres' costs 1/2 rho(|r|^2) of the terms, over all n point
// blocks, with its gradient: the direct ecmo::Problem objective.
class SumOfCosts final : public ceres::CostFunction {
 public:
  SumOfCosts(std::vector<Term> terms, int num_points)
      : terms_(std::move(terms)) {
    set_num_residuals(1);
    for (int i = 0; i < num_points; ++i) {
      mutable_parameter_block_sizes()->push_back(3);
    }
  }
  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    const int n = static_cast<int>(parameter_block_sizes().size());
    if (jacobians != nullptr) {
      for (int i = 0; i < n; ++i) {
        if (jacobians[i] != nullptr)
          std::fill(jacobians[i], jacobians[i] + 3, 0.0);
      }
    }
    double cost = 0.0;
    double r[3], ja[9], jb[9];
    double* jac[2] = {ja, jb};
    for (const Term& t : terms_) {
      const double* p[2] = {parameters[t.j], parameters[t.k]};
      if (!t.cost_function->Evaluate(
              p, r, jacobians != nullptr ? jac : nullptr)) {
        return false;
      }
      const double s = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
      double scale = 1.0;
      if (t.loss_function != nullptr) {
        double rho[3];
        t.loss_function->Evaluate(s, rho);
        cost += 0.5 * rho[0];
        scale = rho[1];
      } else {
        cost += 0.5 * s;
      }
      if (jacobians == nullptr) continue;
      const int blocks[2] = {t.j, t.k};
      for (int b = 0; b < 2; ++b) {
        double* g = jacobians[blocks[b]];
        if (g == nullptr) continue;
        for (int row = 0; row < 3; ++row) {
          for (int c = 0; c < 3; ++c)
            g[c] += scale * r[row] * jac[b][3 * row + c];
        }
      }
    }
    residuals[0] = cost;
    return true;
  }

 private:
  std::vector<Term> terms_;
};

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Minimum wall time of one timed batch: 0.2 s, 5 ms under --smoke.
double g_min_batch_seconds = 0.2;

// Seconds per call: minimum over `repetitions` of the mean over a batch
// sized to take >= g_min_batch_seconds.
double Time(const std::function<void()>& call, int repetitions) {
  call();  // warm up
  int batch = 1;
  for (;;) {
    const double start = Now();
    for (int i = 0; i < batch; ++i) call();
    if (Now() - start >= g_min_batch_seconds || batch >= (1 << 20)) break;
    batch *= 2;
  }
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repetitions; ++r) {
    const double start = Now();
    for (int i = 0; i < batch; ++i) call();
    best = std::min(best, (Now() - start) / batch);
  }
  return best;
}

int IntFlag(int argc, char** argv, const char* name, int fallback) {
  const std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
      return std::atoi(argv[i] + prefix.size());
    }
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) smoke = true;
  }
  const int n = smoke ? 50 : IntFlag(argc, argv, "points", 2000);
  const int m = smoke ? 200 : IntFlag(argc, argv, "blocks", 10000);
  const int closures = smoke ? 3 : IntFlag(argc, argv, "closures", 20);
  const int repetitions = smoke ? 1 : IntFlag(argc, argv, "repetitions", 5);
  if (smoke) g_min_batch_seconds = 0.005;
  if (n < 2 || m < 1 || closures < 0 || repetitions < 1) {
    std::fprintf(stderr, "adapter_bench: bad arguments\n");
    return 1;
  }

  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.1);
  std::uniform_int_distribution<int> pick(0, n - 1);
  std::vector<double> points(3 * static_cast<size_t>(n));
  for (double& v : points) v = 10.0 * noise(rng);
  auto block = [&](int j) {
    return points.data() + 3 * static_cast<size_t>(j);
  };

  // The user's ceres::Problem.
  ceres::Problem ceres_problem;
  std::vector<ceres::ResidualBlockId> group_a, group_b, anchored;
  std::vector<Term> terms_a, terms_b;
  for (int i = 0; i < 2 * m; ++i) {
    const bool in_a = i < m;
    int j = pick(rng), k = pick(rng);
    if (j == k) k = (k + 1) % n;
    const double d[3] = {
        1.0 + noise(rng) + (in_a ? 0.0 : 0.5), noise(rng), noise(rng)};
    auto* cost =
        new ceres::AutoDiffCostFunction<Between, 3, 3, 3>(new Between(d));
    ceres::LossFunction* loss = in_a ? nullptr : new ceres::CauchyLoss(0.5);
    auto id = ceres_problem.AddResidualBlock(cost, loss, block(j), block(k));
    (in_a ? group_a : group_b).push_back(id);
    (in_a ? terms_a : terms_b).push_back({cost, loss, j, k});
  }
  const double anchor[3] = {0.0, 0.0, 0.0};
  anchored.push_back(ceres_problem.AddResidualBlock(
      new ceres::AutoDiffCostFunction<Anchor, 3, 3>(new Anchor(anchor)),
      nullptr,
      block(0)));
  struct Closure {
    int j, k;
    double d[3];
  };
  std::vector<Closure> closure_data;
  for (int c = 0; c < closures; ++c) {
    Closure cl{pick(rng), pick(rng), {2.0, 0.0, 0.0}};
    if (cl.j == cl.k) cl.k = (cl.k + 1) % n;
    closure_data.push_back(cl);
    anchored.push_back(ceres_problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<Between, 3, 3, 3>(new Between(cl.d)),
        nullptr,
        block(cl.j),
        block(cl.k)));
  }

  // The same problem written directly with ecmo::Problem.
  ecmo::Problem direct;
  std::vector<double*> all_blocks;
  for (int j = 0; j < n; ++j) all_blocks.push_back(block(j));
  direct.AddObjective(new SumOfCosts(terms_a, n), all_blocks, "A");
  direct.AddObjective(new SumOfCosts(terms_b, n), all_blocks, "B");
  direct.AddConstraint(
      new ceres::AutoDiffCostFunction<Anchor, 3, 3>(new Anchor(anchor)),
      {block(0)});
  for (const Closure& cl : closure_data) {
    direct.AddConstraint(
        new ceres::AutoDiffCostFunction<Between, 3, 3, 3>(new Between(cl.d)),
        {block(cl.j), block(cl.k)});
  }
  std::string error;
  if (!direct.IsValid(&error)) {
    std::fprintf(stderr, "direct problem: %s\n", error.c_str());
    return 1;
  }
  ecmo::ProblemEvaluator direct_evaluator(&direct);

  ecmo::CeresProblemAdapter adapter(
      &ceres_problem, {{"A", group_a}, {"B", group_b}}, {{"h", anchored}});
  ecmo::CeresProblemAdapter::Options through_options;
  through_options.evaluation_path =
      ecmo::CeresProblemAdapter::EvaluationPath::kProblemEvaluate;
  ecmo::CeresProblemAdapter through(&ceres_problem,
                                    {{"A", group_a}, {"B", group_b}},
                                    {{"h", anchored}},
                                    through_options);
  if (!adapter.IsValid(&error) || !through.IsValid(&error)) {
    std::fprintf(stderr, "adapter: %s\n", error.c_str());
    return 1;
  }

  // The adapter's z may order blocks differently: map the direct z into it.
  const int k = direct.NumParameters();
  const int q = direct.NumConstraints();
  Eigen::VectorXd z_direct(k);
  direct.GetParameters(z_direct.data());
  Eigen::VectorXd z_adapter = adapter.GetParameters();
  Eigen::VectorXd z_through = through.GetParameters();
  if (adapter.NumConstraints() != q) {
    std::fprintf(stderr,
                 "size mismatch: adapter k=%d q=%d, direct k=%d q=%d\n",
                 adapter.NumParameters(),
                 adapter.NumConstraints(),
                 k,
                 q);
    return 1;
  }

  // Check that all three agree before timing.
  Eigen::VectorXd f1(2), f2(2), f3(2), h1(q), h2(q), h3(q);
  Eigen::MatrixXd g1(k, 2), g2(k, 2), g3(k, 2);
  if (!direct_evaluator.Evaluate(
          z_direct.data(), f1.data(), h1.data(), g1.data(), &error) ||
      !adapter.Evaluate(
          z_adapter.data(), f2.data(), h2.data(), g2.data(), &error) ||
      !through.Evaluate(
          z_through.data(), f3.data(), h3.data(), g3.data(), &error)) {
    std::fprintf(stderr, "evaluation failed: %s\n", error.c_str());
    return 1;
  }
  const double value_gap = std::max((f1 - f2).cwiseAbs().maxCoeff(),
                                    (f1 - f3).cwiseAbs().maxCoeff()) /
                           f1.cwiseAbs().maxCoeff();
  double gradient_gap = 0.0;
  for (int j = 0; j < n; ++j) {
    const int od = direct.parameter_blocks()[j].offset;
    const int oa = adapter.ParameterBlockOffset(block(j));
    const int ot = through.ParameterBlockOffset(block(j));
    if (oa < 0 || ot < 0) continue;  // unused block
    for (int c = 0; c < 3; ++c) {
      for (int s = 0; s < 2; ++s) {
        gradient_gap = std::max({gradient_gap,
                                 std::abs(g1(od + c, s) - g2(oa + c, s)),
                                 std::abs(g1(od + c, s) - g3(ot + c, s))});
      }
    }
  }

  Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(q, -1.0, 1.0);
  Eigen::VectorXd out_direct(k), out_adapter(adapter.NumParameters()),
      out_through(through.NumParameters());

  struct Row {
    const char* name;
    double direct, adapter, through;
  };
  std::vector<Row> rows;
  rows.push_back(
      {"value (F, h)",
       Time(
           [&] {
             direct_evaluator.Evaluate(
                 z_direct.data(), f1.data(), h1.data(), nullptr, nullptr);
           },
           repetitions),
       Time(
           [&] {
             adapter.Evaluate(
                 z_adapter.data(), f2.data(), h2.data(), nullptr, nullptr);
           },
           repetitions),
       Time(
           [&] {
             through.Evaluate(
                 z_through.data(), f3.data(), h3.data(), nullptr, nullptr);
           },
           repetitions)});
  rows.push_back(
      {"gradient (F, grad F, h, J_h)",
       Time(
           [&] {
             direct_evaluator.Evaluate(
                 z_direct.data(), f1.data(), h1.data(), g1.data(), nullptr);
           },
           repetitions),
       Time(
           [&] {
             adapter.Evaluate(
                 z_adapter.data(), f2.data(), h2.data(), g2.data(), nullptr);
           },
           repetitions),
       Time(
           [&] {
             through.Evaluate(
                 z_through.data(), f3.data(), h3.data(), g3.data(), nullptr);
           },
           repetitions)});
  rows.push_back(
      {"J_h^T v",
       Time(
           [&] {
             direct_evaluator.JacobianTransposeMultiply(v.data(),
                                                        out_direct.data());
           },
           repetitions),
       Time(
           [&] {
             adapter.JacobianTransposeMultiply(v.data(), out_adapter.data());
           },
           repetitions),
       Time(
           [&] {
             through.JacobianTransposeMultiply(v.data(), out_through.data());
           },
           repetitions)});

  // The Gauss-Newton matrix of the adapter (kDirect) at its linearization
  // point, checked against Ceres' corrected Jacobians: G x = sum of
  // weight J^T (J x) over the objectives (loss applied) and the constraints
  // (raw), for one vector x.
  const double gn_weights[2] = {0.7, 1.3};
  const double gn_c = 10.0;
  Eigen::SparseMatrix<double> gn;
  if (!adapter.Evaluate(
          z_adapter.data(), f2.data(), h2.data(), g2.data(), &error) ||
      !adapter.GaussNewtonMatrix(gn_weights, gn_c, &gn, &error)) {
    std::fprintf(stderr, "Gauss-Newton matrix failed: %s\n", error.c_str());
    return 1;
  }
  double gn_gap = 0.0;
  {
    adapter.SetParameters(z_adapter.data());
    const int na = adapter.NumParameters();
    const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(na, -1.0, 2.0);
    Eigen::VectorXd reference = Eigen::VectorXd::Zero(na);
    ceres::Problem::EvaluateOptions eo;
    for (const auto& b : adapter.parameter_blocks()) {
      eo.parameter_blocks.push_back(b.values);
    }
    const std::vector<ceres::ResidualBlockId>* groups[3] = {
        &group_a, &group_b, &anchored};
    const double weights[3] = {gn_weights[0], gn_weights[1], gn_c};
    for (int g = 0; g < 3; ++g) {
      eo.residual_blocks = *groups[g];
      eo.apply_loss_function = g < 2;
      ceres::CRSMatrix j;
      if (!ceres_problem.Evaluate(eo, nullptr, nullptr, nullptr, &j)) {
        std::fprintf(stderr, "Problem::Evaluate failed\n");
        return 1;
      }
      Eigen::VectorXd jx = Eigen::VectorXd::Zero(j.num_rows);
      for (int r = 0; r < j.num_rows; ++r) {
        for (int i = j.rows[r]; i < j.rows[r + 1]; ++i) {
          jx[r] += j.values[i] * x[j.cols[i]];
        }
      }
      for (int r = 0; r < j.num_rows; ++r) {
        for (int i = j.rows[r]; i < j.rows[r + 1]; ++i) {
          reference[j.cols[i]] += weights[g] * j.values[i] * jx[r];
        }
      }
    }
    const Eigen::VectorXd gx = gn.selfadjointView<Eigen::Lower>() * x;
    gn_gap = (gx - reference).norm() / reference.norm();
  }
  const double gn_time =
      Time([&] { adapter.GaussNewtonMatrix(gn_weights, gn_c, &gn, nullptr); },
           repetitions);

  // Yardstick: Ceres' own evaluation of every residual block.
  double ceres_cost;
  std::vector<double> ceres_gradient;
  const double ceres_all = Time(
      [&] {
        ceres_problem.Evaluate(ceres::Problem::EvaluateOptions(),
                               &ceres_cost,
                               nullptr,
                               &ceres_gradient,
                               nullptr);
      },
      repetitions);

  std::printf(
      "adapter_bench: %d point blocks (k = %d, %d used by z), 2 x %d residual "
      "blocks in the objectives (%d in all), q = %d; agreement: max relative "
      "|F| gap %.1e, max |grad| gap %.1e\n\n",
      n,
      k,
      adapter.NumParameters(),
      m,
      ceres_problem.NumResidualBlocks(),
      q,
      value_gap,
      gradient_gap);
  std::printf(
      "| per evaluation | ecmo::Problem (direct) | adapter kDirect | ratio | "
      "adapter kProblemEvaluate | ratio |\n");
  std::printf("|---|---|---|---|---|---|\n");
  auto ms = [](double s) { return s * 1e3; };
  for (const Row& r : rows) {
    std::printf("| %s | %.3f ms | %.3f ms | %.2f | %.3f ms | %.2f |\n",
                r.name,
                ms(r.direct),
                ms(r.adapter),
                r.adapter / r.direct,
                ms(r.through),
                r.through / r.direct);
  }
  std::printf(
      "\nYardstick: ceres::Problem::Evaluate of all %d residual blocks (cost "
      "and gradient): %.3f ms.\n",
      ceres_problem.NumResidualBlocks(),
      ms(ceres_all));
  std::printf(
      "\nGauss-Newton matrix (adapter kDirect, %d x %d lower triangle, %d "
      "stored entries): %.3f ms = %.2f x one gradient evaluation (%.3f ms); "
      "relative gap to Ceres' Jacobians %.1e.\n",
      static_cast<int>(gn.rows()),
      static_cast<int>(gn.cols()),
      static_cast<int>(gn.nonZeros()),
      ms(gn_time),
      gn_time / rows[1].adapter,
      ms(rows[1].adapter),
      gn_gap);
  if (smoke) {
    bool ok = std::isfinite(value_gap) && value_gap <= 1e-10 &&
              std::isfinite(gradient_gap) && gradient_gap <= 1e-10;
    if (!ok) {
      std::fprintf(stderr,
                   "adapter_bench: the routes disagree on F or grad F\n");
    }
    if (!(gn_gap <= 1e-10)) {
      ok = false;
      std::fprintf(stderr,
                   "adapter_bench: the Gauss-Newton matrix disagrees with "
                   "Ceres' Jacobians\n");
    }
    bool times_ok = std::isfinite(ceres_all) && ceres_all > 0.0 &&
                    std::isfinite(gn_time) && gn_time > 0.0;
    for (const Row& r : rows) {
      for (double t : {r.direct, r.adapter, r.through}) {
        times_ok = times_ok && std::isfinite(t) && t > 0.0;
      }
    }
    if (!times_ok) {
      std::fprintf(stderr,
                   "adapter_bench: a time is not finite and positive\n");
    }
    return ok && times_ok ? 0 : 1;
  }
  return 0;
}
