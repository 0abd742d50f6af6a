// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The L-BFGS inner solver of the WC outer loop: Ceres' GradientProblemSolver
// on Q(x) over R x M (wc_inner_minimizer.h).

#include <algorithm>
#include <memory>

#include "ceres/gradient_problem.h"
#include "ceres/gradient_problem_solver.h"
#include "glog/logging.h"
#include "wc_inner_minimizer.h"

namespace ecmo {

ceres::GradientProblemSolver::Options
Solver::Options::QuasiNewtonOptions::DefaultInnerOptions() {
  ceres::GradientProblemSolver::Options inner;
  inner.line_search_direction_type = ceres::LBFGS;
  inner.line_search_type = ceres::WOLFE;
  inner.max_num_iterations = 1000;
  inner.function_tolerance = 1e-15;
  inner.gradient_tolerance = 1e-15;
  inner.parameter_tolerance = 1e-15;
  inner.logging_type = ceres::SILENT;
  inner.minimizer_progress_to_stdout = false;
  return inner;
}

namespace internal {
namespace {

// ceres::GradientProblem deletes the function it is given; this forwarder
// lets it own a thin wrapper while the outer loop owns the real function.
class BorrowedFunction final : public ceres::FirstOrderFunction {
 public:
  explicit BorrowedFunction(const WcReducedPenalty* function)
      : function_(function) {}
  bool Evaluate(const double* x,
                double* cost,
                double* gradient) const override {
    return function_->Evaluate(x, cost, gradient);
  }
  int NumParameters() const override { return function_->NumParameters(); }

 private:
  const WcReducedPenalty* function_;
};

class LbfgsInnerMinimizer final : public InnerMinimizer {
 public:
  LbfgsInnerMinimizer(const StrategyInput& input, WcReducedPenalty* function)
      : options_(input.options->quasi_newton.inner) {
    if (VLOG_IS_ON(1)) options_.logging_type = ceres::PER_MINIMIZER_ITERATION;
    ceres::FirstOrderFunction* borrowed = new BorrowedFunction(function);
    ceres::Manifold* manifold = function->TangentManifold();
    problem_ =
        manifold != nullptr
            ? std::make_unique<ceres::GradientProblem>(borrowed, manifold)
            : std::make_unique<ceres::GradientProblem>(borrowed);
  }

  InnerResult Minimize(const InnerLimits& limits,
                       ceres::IterationCallback* stop,
                       double* x) override {
    ceres::GradientProblemSolver::Options inner = options_;
    inner.callbacks.push_back(stop);
    inner.max_num_iterations =
        std::min(options_.max_num_iterations, limits.max_iterations);
    inner.max_solver_time_in_seconds = std::min(
        options_.max_solver_time_in_seconds, limits.max_time_in_seconds);
    // No glog level is touched here: with logging_type SILENT, Ceres 2.1
    // hides its line-search failures, but polynomial.cc (constant
    // interpolating polynomial) and line_search_direction.cc (L-BFGS update
    // failure) warn unconditionally; solver.h documents both. Raising
    // FLAGS_minloglevel instead would drop other threads' warnings.
    ceres::GradientProblemSolver::Summary summary;
    ceres::Solve(inner, *problem_, x, &summary);
    InnerResult result;
    result.termination_type = summary.termination_type;
    result.message = summary.message;
    result.evaluated_start = !summary.iterations.empty();
    result.iterations =
        std::max(0, static_cast<int>(summary.iterations.size()) - 1);
    return result;
  }

  const char* name() const override { return "L-BFGS"; }

 private:
  ceres::GradientProblemSolver::Options options_;
  std::unique_ptr<ceres::GradientProblem> problem_;
};

}  // namespace

std::unique_ptr<InnerMinimizer> MakeLbfgsInnerMinimizer(
    const StrategyInput& input, WcReducedPenalty* function) {
  return std::make_unique<LbfgsInnerMinimizer>(input, function);
}

}  // namespace internal
}  // namespace ecmo
