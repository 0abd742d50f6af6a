// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// MTBL at scale (plain program, Markdown tables on stdout): the synthetic
// mtbl_logistic instance (ecmo/problems/mtbl_logistic.h; 3 sources, 3
// tasks, multinomial logistic lower level, l2 = 1e-3) at n_y = 64, 640,
// 6400, one table row per (size, method, preference):
//
//   wc-al full        today's default (WC_AUGMENTED_LAGRANGIAN) on the
//                     full-space MtblEvaluator, z = (x, y);
//   wc-newton full    WC_NEWTON on the same evaluator, exact Hessian-of-
//                     the-Lagrangian products (third-order product of the
//                     lower level);
//   wc-al reduced     WC_AUGMENTED_LAGRANGIAN on ReducedMtblEvaluator (x
//                     only, y = y*(x) by Newton-CG, implicit hypergradients);
//   wc-newton reduced WC_NEWTON on ReducedMtblEvaluator;
//   wc-sqp reduced    WC_SQP on ReducedMtblEvaluator (x has 3 entries:
//                     a dense SQP with the exact reduced Hessian);
//   ls-lbfgs          the baseline: linear scalarization sum_s lambda_s F_s
//                     minimized by L-BFGS (ceres::GradientProblemSolver) on
//                     the same implicit hypergradients (a different point
//                     for the same weights; only its time compares).
//
// Columns: time per point, gradient evaluations of the evaluator the
// strategy sees (hypergradients for the reduced form), lower-level
// Hessian-vector products (J_h^T v, J_h w and Lagrangian-Hessian products
// for the full form; Newton-CG and implicit-function CG products for the
// reduced form), ||K||^2 with least-squares multipliers of the problem the
// strategy solved, and for the reduced form also of the full-space ECMO
// problem at (x, y*(x)); "cert" = ||K||^2 (full space) <= 1e-10.
// A second table: time per lower-level product vs n_y.
//
//   mtbl_scale_bench [--sizes=64,640,6400] [--points=3]
//                    [--max_default_ny=640] [--time_limit=600]
//   mtbl_scale_bench --smoke   (CTest: n_y = 64, one preference, exit 1
//       unless wc-newton (full and reduced) and wc-sqp (reduced) certify
//       the point)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ceres/gradient_problem.h"
#include "ceres/gradient_problem_solver.h"
#include "ecmo/kkt.h"
#include "ecmo/lower_level_solver.h"
#include "ecmo/mtbl.h"
#include "ecmo/problems/mtbl_logistic.h"
#include "ecmo/solver.h"

namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int g_failures = 0;
// --reference_zero: reference point r = 0 (the cross-entropies are >= 0)
// instead of the utopia point, so no single-objective solves run.
bool g_reference_zero = false;
// --only=<text>[,<text>...]: run only the methods whose name contains one
// of the texts (e.g. --only="wc-newton reduced,ls-lbfgs").
std::vector<std::string> g_only;
bool Selected(const char* method) {
  if (g_only.empty()) return true;
  for (const std::string& text : g_only) {
    if (std::string(method).find(text) != std::string::npos) return true;
  }
  return false;
}

struct Row {
  std::string method;
  double seconds = 0.0;
  int64_t gradients = 0;
  int64_t hessian_products = 0;
  double kkt_own = -1.0;
  double kkt_full = -1.0;
  std::string termination;
  Eigen::VectorXd objectives;
};

void PrintRow(int ny, const std::vector<double>& preference, const Row& row) {
  std::ostringstream pref;
  pref.precision(2);
  for (size_t s = 0; s < preference.size(); ++s) {
    pref << (s ? "/" : "") << preference[s];
  }
  // The baseline solves another scalarization: no WC KKT numbers ("-").
  const bool scored = row.kkt_own >= 0.0;
  auto kkt = [&](double value) {
    char text[32] = "-";
    if (scored) std::snprintf(text, sizeof(text), "%.1e", value);
    return std::string(text);
  };
  const bool certified = row.kkt_full >= 0.0 && row.kkt_full <= 1e-10;
  std::printf("| %d | %s | %s | %.3f | %lld | %lld | %s | %s | %s | %s |\n",
              ny,
              row.method.c_str(),
              pref.str().c_str(),
              row.seconds,
              static_cast<long long>(row.gradients),
              static_cast<long long>(row.hessian_products),
              kkt(row.kkt_own).c_str(),
              kkt(row.kkt_full).c_str(),
              scored ? (certified ? "yes" : "no") : "-",
              row.termination.c_str());
  std::fflush(stdout);
}

// ||K||^2 (least-squares multipliers) of the full-space WC problem at z.
double FullSpaceKkt(ecmo::MtblEvaluator* full,
                    const ecmo::Solver::Summary& summary,
                    const Eigen::VectorXd& z) {
  Eigen::VectorXd lambda, offset;
  if (z.size() != full->NumParameters() ||
      !ecmo::ScalarizationWeights(summary, &lambda, &offset) ||
      lambda.size() != full->NumObjectives()) {
    return -1.0;
  }
  ecmo::KktMultipliers none;
  none.omega = summary.kkt.solver_multipliers.omega;
  none.nu = Eigen::VectorXd::Zero(full->NumConstraints());
  ecmo::KktReport report;
  std::string error;
  if (!ecmo::ComputeKktReport(
          full, lambda, offset, summary.final_rho, z, none, &report, &error)) {
    std::fprintf(stderr, "mtbl_scale_bench: KKT failed: %s\n", error.c_str());
    return -1.0;
  }
  return report.with_least_squares_multipliers.SquaredNorm();
}

int64_t FullProducts(const ecmo::EvaluationCounts& c) {
  return c.jacobian_transpose_products + c.jacobian_products +
         c.hessian_products;
}

ecmo::Solver::Options StrategyOptions(ecmo::StrategyType strategy,
                                      double time_limit) {
  ecmo::Solver::Options options;
  options.strategy = strategy;
  options.max_solver_time_in_seconds = time_limit;
  return options;
}

// The reference point (utopia) and scales, computed once per method as a
// sweep does (S single-objective solves with the method's strategy).
std::shared_ptr<const ecmo::Scalarization> Setup(
    ecmo::problems::MtblLogisticInstance* instance,
    ecmo::StrategyType strategy,
    bool reduced_form,
    double time_limit,
    double* seconds) {
  const int nx = instance->lower_level->NumUpperParameters();
  const int ny = instance->lower_level->NumLowerParameters();
  auto scalarization = std::make_shared<ecmo::Scalarization>();
  std::string error;
  const Clock::time_point start = Clock::now();
  bool ok = false;
  ecmo::Solver::Options options = StrategyOptions(strategy, time_limit);
  if (g_reference_zero) {
    options.reference_point.assign(instance->evaluator->NumObjectives(), 0.0);
  }
  if (reduced_form) {
    ecmo::ReducedMtblEvaluator reduced(instance->evaluator.get(),
                                       instance->start.tail(ny));
    const Eigen::VectorXd x = instance->start.head(nx);
    ok = ecmo::ComputeScalarization(
        options, &reduced, x, scalarization.get(), &error);
  } else {
    ok = ecmo::ComputeScalarization(options,
                                    instance->evaluator.get(),
                                    instance->start,
                                    scalarization.get(),
                                    &error);
  }
  *seconds = Seconds(start);
  if (!ok) {
    std::fprintf(
        stderr, "mtbl_scale_bench: scalarization: %s\n", error.c_str());
    ++g_failures;
    return nullptr;
  }
  return scalarization;
}

Row RunFull(ecmo::problems::MtblLogisticInstance* instance,
            ecmo::StrategyType strategy,
            const std::vector<double>& preference,
            std::shared_ptr<const ecmo::Scalarization> scalarization,
            double time_limit) {
  Row row;
  row.method = strategy == ecmo::StrategyType::WC_NEWTON ? "wc-newton full"
                                                         : "wc-al full";
  ecmo::Solver::Options options = StrategyOptions(strategy, time_limit);
  options.scalarization = scalarization;
  ecmo::Solver::Summary summary;
  Eigen::VectorXd z = instance->start;
  ecmo::MtblEvaluator* evaluator = instance->evaluator.get();
  evaluator->ResetCounts();
  const Clock::time_point start = Clock::now();
  ecmo::Solve(options, evaluator, preference, &z, &summary);
  row.seconds = Seconds(start);
  // The evaluator's own counts: they include the certification's products
  // (least-squares multipliers), which the summary may not.
  row.gradients = evaluator->counts().gradient_evaluations;
  row.hessian_products = FullProducts(evaluator->counts());
  if (getenv("MTBL_BENCH_DEBUG")) {
    std::fprintf(stderr,
                 "summary: grads %lld jt %lld j %lld hess %lld; evaluator: "
                 "values %lld grads %lld jt %lld j %lld hess %lld\n",
                 (long long)summary.evaluations.gradient_evaluations,
                 (long long)summary.evaluations.jacobian_transpose_products,
                 (long long)summary.evaluations.jacobian_products,
                 (long long)summary.evaluations.hessian_products,
                 (long long)evaluator->counts().value_evaluations,
                 (long long)evaluator->counts().gradient_evaluations,
                 (long long)evaluator->counts().jacobian_transpose_products,
                 (long long)evaluator->counts().jacobian_products,
                 (long long)evaluator->counts().hessian_products);
  }
  row.kkt_own = summary.kkt.with_least_squares_multipliers.SquaredNorm();
  row.kkt_full = row.kkt_own;
  row.termination = ecmo::TerminationTypeName(summary.termination_type);
  row.objectives = summary.objectives;
  return row;
}

Row RunReduced(ecmo::problems::MtblLogisticInstance* instance,
               ecmo::StrategyType strategy,
               const std::vector<double>& preference,
               std::shared_ptr<const ecmo::Scalarization> scalarization,
               double time_limit) {
  Row row;
  row.method = strategy == ecmo::StrategyType::WC_NEWTON ? "wc-newton reduced"
               : strategy == ecmo::StrategyType::WC_SQP  ? "wc-sqp reduced"
                                                         : "wc-al reduced";
  const int nx = instance->lower_level->NumUpperParameters();
  const int ny = instance->lower_level->NumLowerParameters();
  ecmo::ReducedMtblEvaluator reduced(instance->evaluator.get(),
                                     instance->start.tail(ny));
  ecmo::Solver::Options options = StrategyOptions(strategy, time_limit);
  options.scalarization = scalarization;
  ecmo::Solver::Summary summary;
  Eigen::VectorXd x = instance->start.head(nx);
  const Clock::time_point start = Clock::now();
  ecmo::Solve(options, &reduced, preference, &x, &summary);
  row.seconds = Seconds(start);
  row.gradients = summary.evaluations.gradient_evaluations;
  row.hessian_products = reduced.work().hessian_vector_products;
  if (getenv("MTBL_BENCH_DEBUG")) {
    const auto& w = reduced.work();
    std::fprintf(stderr,
                 "reduced work: solves %lld newton %lld cg %lld grads %lld "
                 "hvp %lld\n",
                 (long long)w.lower_level_solves,
                 (long long)w.newton_iterations,
                 (long long)w.cg_iterations,
                 (long long)w.lower_gradient_evaluations,
                 (long long)w.hessian_vector_products);
    std::fprintf(stderr, "%s\n", summary.FullReport().c_str());
  }
  row.kkt_own = summary.kkt.with_least_squares_multipliers.SquaredNorm();
  row.termination = ecmo::TerminationTypeName(summary.termination_type);
  row.objectives = summary.objectives;
  const Eigen::VectorXd z = reduced.FullPoint(x);
  row.kkt_full = FullSpaceKkt(instance->evaluator.get(), summary, z);
  return row;
}

// The baseline: L-BFGS on F_lambda(x) = sum_s lambda_s f_s(x, y*(x)).
class ScalarizedHypergradient final : public ceres::FirstOrderFunction {
 public:
  ScalarizedHypergradient(ecmo::ReducedMtblEvaluator* reduced,
                          std::vector<double> weights)
      : reduced_(reduced), weights_(std::move(weights)) {}
  bool Evaluate(const double* x,
                double* cost,
                double* gradient) const override {
    const int nx = reduced_->NumParameters();
    const int S = reduced_->NumObjectives();
    Eigen::VectorXd f(S);
    Eigen::MatrixXd grad(nx, S);
    std::string error;
    if (!reduced_->Evaluate(x,
                            f.data(),
                            nullptr,
                            gradient != nullptr ? grad.data() : nullptr,
                            &error)) {
      return false;
    }
    const Eigen::Map<const Eigen::VectorXd> w(weights_.data(), S);
    *cost = w.dot(f);
    if (gradient != nullptr) {
      Eigen::Map<Eigen::VectorXd>(gradient, nx) = grad * w;
    }
    return true;
  }
  int NumParameters() const override { return reduced_->NumParameters(); }

 private:
  ecmo::ReducedMtblEvaluator* reduced_;
  std::vector<double> weights_;
};

Row RunBaseline(ecmo::problems::MtblLogisticInstance* instance,
                const std::vector<double>& preference) {
  Row row;
  row.method = "ls-lbfgs (baseline)";
  const int nx = instance->lower_level->NumUpperParameters();
  const int ny = instance->lower_level->NumLowerParameters();
  ecmo::ReducedMtblEvaluator reduced(instance->evaluator.get(),
                                     instance->start.tail(ny));
  ceres::GradientProblem problem(
      new ScalarizedHypergradient(&reduced, preference));
  ceres::GradientProblemSolver::Options options;
  options.logging_type = ceres::SILENT;
  options.max_num_iterations = 200;
  options.gradient_tolerance = 1e-8;
  options.function_tolerance = 1e-12;
  ceres::GradientProblemSolver::Summary summary;
  Eigen::VectorXd x = instance->start.head(nx);
  const Clock::time_point start = Clock::now();
  ceres::Solve(options, problem, x.data(), &summary);
  row.seconds = Seconds(start);
  row.gradients = summary.num_gradient_evaluations;
  row.hessian_products = reduced.work().hessian_vector_products;
  row.termination = ceres::TerminationTypeToString(summary.termination_type);
  return row;
}

// Mean time of `call` over enough repetitions to take ~budget seconds.
template <typename Call>
double TimePerCall(Call call, double budget) {
  int reps = 1;
  for (;;) {
    const Clock::time_point start = Clock::now();
    for (int r = 0; r < reps; ++r) call();
    const double t = Seconds(start);
    if (t >= budget || reps >= (1 << 20)) return t / reps;
    reps *= 2;
  }
}

void ProductTimes(const std::vector<int>& sizes, double budget) {
  std::printf(
      "\n### Time per lower-level call vs n_y (ms; 900 training samples)\n\n"
      "| n_y | GradY | H v (transpose product) | J w (forward) | third-order "
      "| Lagrangian Hessian product (evaluator) |\n"
      "|---|---|---|---|---|---|\n");
  for (int ny : sizes) {
    ecmo::problems::MtblLogisticOptions options;
    options.num_lower_parameters = ny;
    options.start_newton_iterations = 0;
    std::string error;
    auto instance = ecmo::problems::BuildMtblLogistic(options, &error);
    const auto& lower = *instance->lower_level;
    const int nx = 3;
    Eigen::VectorXd x = Eigen::VectorXd::Constant(nx, 0.1);
    Eigen::VectorXd y = Eigen::VectorXd::Constant(ny, 0.01);
    Eigen::VectorXd v = Eigen::VectorXd::Constant(ny, 0.3), out(ny), out_x(nx),
                    dx = Eigen::VectorXd::Constant(nx, 0.2);
    const double t_grad = TimePerCall(
        [&] { lower.GradY(x.data(), y.data(), out.data()); }, budget);
    const double t_hvp = TimePerCall(
        [&] {
          lower.GradYJacobianTransposeProduct(
              x.data(), y.data(), v.data(), out_x.data(), out.data());
        },
        budget);
    const double t_fwd = TimePerCall(
        [&] {
          lower.GradYJacobianProduct(
              x.data(), y.data(), dx.data(), v.data(), out.data());
        },
        budget);
    const double t_third = TimePerCall(
        [&] {
          lower.GradYJacobianTransposeProductDerivative(x.data(),
                                                        y.data(),
                                                        v.data(),
                                                        dx.data(),
                                                        v.data(),
                                                        out_x.data(),
                                                        out.data());
        },
        budget);
    ecmo::MtblEvaluator* evaluator = instance->evaluator.get();
    Eigen::VectorXd z(nx + ny), f(3), h(ny), dir(nx + ny), hz(nx + ny);
    z << x, y;
    dir.setConstant(0.1);
    Eigen::MatrixXd grad_f(nx + ny, 3);
    evaluator->Evaluate(z.data(), f.data(), h.data(), grad_f.data(), &error);
    const Eigen::Vector3d a(0.3, 0.3, 0.4);
    const double t_lag = TimePerCall(
        [&] {
          evaluator->LagrangianHessianMultiply(
              a.data(), v.data(), dir.data(), hz.data(), &error);
        },
        budget);
    std::printf("| %d | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
                ny,
                1e3 * t_grad,
                1e3 * t_hvp,
                1e3 * t_fwd,
                1e3 * t_third,
                1e3 * t_lag);
    if (!(t_hvp > 0.0) || !std::isfinite(t_hvp)) ++g_failures;
  }
}

std::vector<int> ParseSizes(const char* text) {
  std::vector<int> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) sizes.push_back(std::atoi(item.c_str()));
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {64, 640, 6400};
  int points = 3;
  int max_default_ny = 640;
  double time_limit = 600.0;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else if (std::strncmp(argv[i], "--sizes=", 8) == 0) {
      sizes = ParseSizes(argv[i] + 8);
    } else if (std::strncmp(argv[i], "--points=", 9) == 0) {
      points = std::atoi(argv[i] + 9);
    } else if (std::strncmp(argv[i], "--max_default_ny=", 17) == 0) {
      max_default_ny = std::atoi(argv[i] + 17);
    } else if (std::strcmp(argv[i], "--reference_zero") == 0) {
      g_reference_zero = true;
    } else if (std::strncmp(argv[i], "--only=", 7) == 0) {
      std::stringstream list(argv[i] + 7);
      for (std::string text; std::getline(list, text, ',');) {
        if (!text.empty()) g_only.push_back(text);
      }
    } else if (std::strncmp(argv[i], "--time_limit=", 13) == 0) {
      time_limit = std::atof(argv[i] + 13);
    } else {
      std::fprintf(stderr,
                   "usage: mtbl_scale_bench [--sizes=64,640,6400] "
                   "[--points=3] [--max_default_ny=640] "
                   "[--time_limit=600] [--only=METHOD] [--reference_zero] "
                   "[--smoke]\n");
      return 1;
    }
  }
  if (smoke) {
    sizes = {64};
    points = 1;
    time_limit = 60.0;
  }
  const std::vector<std::vector<double>> all_preferences = {
      {1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.6, 0.2, 0.2}, {0.2, 0.2, 0.6}};
  std::printf(
      "## mtbl_logistic: time per point (3 sources, 3 tasks, l2 = 1e-3, 900 "
      "training samples)\n\n"
      "| n_y | method | lambda | s/point | gradients | Hessian products | "
      "K^2 (own) | K^2 (full space) | cert | termination |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  for (int ny : sizes) {
    ecmo::problems::MtblLogisticOptions options;
    options.num_lower_parameters = ny;
    std::string error;
    auto instance = ecmo::problems::BuildMtblLogistic(options, &error);
    if (instance == nullptr) {
      std::fprintf(stderr, "mtbl_scale_bench: %s\n", error.c_str());
      return 1;
    }
    struct Method {
      const char* name;
      ecmo::StrategyType strategy;
      bool reduced;
    };
    const Method methods[] = {
        {"wc-al full", ecmo::StrategyType::WC_AUGMENTED_LAGRANGIAN, false},
        {"wc-newton full", ecmo::StrategyType::WC_NEWTON, false},
        {"wc-al reduced", ecmo::StrategyType::WC_AUGMENTED_LAGRANGIAN, true},
        {"wc-newton reduced", ecmo::StrategyType::WC_NEWTON, true},
        {"wc-sqp reduced", ecmo::StrategyType::WC_SQP, true},
    };
    const int num_points = std::min<int>(points, all_preferences.size());
    // One scalarization (utopia reference point, S single-objective
    // solves) per size, shared by every method as a sweep shares it, so
    // that all methods solve the same WC problems.
    double setup_seconds = 0.0;
    const auto scalarization = Setup(instance.get(),
                                     ecmo::StrategyType::WC_NEWTON,
                                     true,
                                     time_limit,
                                     &setup_seconds);
    std::printf(
        "| %d | setup: utopia point by wc-newton reduced (once per sweep) | "
        "| %.3f | | | | | | |\n",
        ny,
        setup_seconds);
    if (scalarization == nullptr) continue;
    for (const Method& method : methods) {
      if (!Selected(method.name)) continue;
      if (!method.reduced && method.strategy != ecmo::StrategyType::WC_NEWTON &&
          ny > max_default_ny) {
        continue;
      }
      for (int p = 0; p < num_points; ++p) {
        const std::vector<double>& preference = all_preferences[p];
        const Row row = method.reduced ? RunReduced(instance.get(),
                                                    method.strategy,
                                                    preference,
                                                    scalarization,
                                                    time_limit)
                                       : RunFull(instance.get(),
                                                 method.strategy,
                                                 preference,
                                                 scalarization,
                                                 time_limit);
        PrintRow(ny, preference, row);
        if (smoke &&
            method.strategy != ecmo::StrategyType::WC_AUGMENTED_LAGRANGIAN &&
            !(row.kkt_full >= 0.0 && row.kkt_full <= 1e-10)) {
          std::fprintf(
              stderr, "mtbl_scale_bench: %s not certified\n", method.name);
          ++g_failures;
        }
      }
    }
    if (Selected("ls-lbfgs (baseline)")) {
      for (int p = 0; p < num_points; ++p) {
        PrintRow(ny,
                 all_preferences[p],
                 RunBaseline(instance.get(), all_preferences[p]));
      }
    }
  }
  ProductTimes(sizes, smoke ? 0.01 : 0.3);
  return smoke && g_failures > 0 ? 1 : 0;
}
