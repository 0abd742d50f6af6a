// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The bound-constrained L-BFGS of plugin/src/box_lbfgs.h against closed
// forms and a brute-force active-set reference: box-constrained quadratics,
// Rosenbrock with and without a bound that cuts off its minimum (KKT signs),
// evaluation failures, iterates confined to the box, the callback, the
// budgets, and no heap allocation on a repeated call.

#include "box_lbfgs.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <thread>
#include <vector>

#include "Eigen/Dense"
#include "gtest/gtest.h"
#include "malloc_counter.h"
#include "test_vectors.h"

// Heap allocations are counted by interposing malloc (malloc_counter.h).

namespace ecmo {
namespace internal {
namespace {

using testing::kInf;

BoxLbfgs::Options Tight() {
  BoxLbfgs::Options options;
  options.max_num_iterations = 10000;
  options.function_tolerance = 0.0;
  options.parameter_tolerance = 0.0;
  // Rosenbrock's and the quadratics' smallest Hessian eigenvalues are about
  // 0.4 and 1: ||x - x*|| <= 2.5e-9 at this gradient.
  options.gradient_tolerance = 1e-9;
  // Ceres' default (1e-9) is absolute in x: near x* the steps are smaller.
  options.min_line_search_step_size = 1e-20;
  return options;
}

// f = 1/2 x^T A x - b^T x.
class Quadratic final : public ceres::FirstOrderFunction {
 public:
  Quadratic(Eigen::MatrixXd a, Eigen::VectorXd b)
      : a_(std::move(a)), b_(std::move(b)) {}
  bool Evaluate(const double* x,
                double* cost,
                double* gradient) const override {
    Eigen::Map<const Eigen::VectorXd> xv(x, b_.size());
    *cost = 0.5 * xv.dot(a_ * xv) - b_.dot(xv);
    if (gradient != nullptr) {
      Eigen::Map<Eigen::VectorXd>(gradient, b_.size()) = a_ * xv - b_;
    }
    return true;
  }
  int NumParameters() const override { return static_cast<int>(b_.size()); }

 private:
  Eigen::MatrixXd a_;
  Eigen::VectorXd b_;
};

// Chained Rosenbrock sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2; optional
// record of points outside a box (it then returns false there).
class Rosenbrock final : public ceres::FirstOrderFunction {
 public:
  explicit Rosenbrock(int n) : n_(n) {}
  void Confine(const double* lower, const double* upper) {
    lower_ = lower;
    upper_ = upper;
  }
  bool Evaluate(const double* x,
                double* cost,
                double* gradient) const override {
    ++evaluations_;
    if (lower_ != nullptr) {
      for (int i = 0; i < n_; ++i) {
        if (x[i] < lower_[i] || x[i] > upper_[i]) {
          ++outside_;
          return false;
        }
      }
    }
    *cost = 0.0;
    if (gradient != nullptr) {
      for (int i = 0; i < n_; ++i) gradient[i] = 0.0;
    }
    for (int i = 0; i + 1 < n_; ++i) {
      const double a = x[i + 1] - x[i] * x[i];
      const double b = 1.0 - x[i];
      *cost += 100.0 * a * a + b * b;
      if (gradient != nullptr) {
        gradient[i] += -400.0 * a * x[i] - 2.0 * b;
        gradient[i + 1] += 200.0 * a;
      }
    }
    return true;
  }
  int NumParameters() const override { return n_; }
  int outside() const { return outside_; }
  int evaluations() const { return evaluations_; }

 private:
  int n_;
  const double* lower_ = nullptr;
  const double* upper_ = nullptr;
  mutable int outside_ = 0;
  mutable int evaluations_ = 0;
};

// Brute-force reference for a strictly convex box QP: every assignment of
// each variable to {free, lower, upper} (3^n), the reduced system solved on
// the free set, kept if feasible and the multipliers have the right signs.
Eigen::VectorXd BoxQpByEnumeration(const Eigen::MatrixXd& a,
                                   const Eigen::VectorXd& b,
                                   const Eigen::VectorXd& lower,
                                   const Eigen::VectorXd& upper) {
  const int n = static_cast<int>(b.size());
  int combinations = 1;
  for (int i = 0; i < n; ++i) combinations *= 3;
  for (int c = 0; c < combinations; ++c) {
    std::vector<int> state(n);
    for (int i = 0, r = c; i < n; ++i, r /= 3) state[i] = r % 3;
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    std::vector<int> free;
    for (int i = 0; i < n; ++i) {
      if (state[i] == 0) free.push_back(i);
      if (state[i] == 1) x[i] = lower[i];
      if (state[i] == 2) x[i] = upper[i];
      if (state[i] != 0 && !std::isfinite(x[i])) goto next;
    }
    {
      const int m = static_cast<int>(free.size());
      if (m > 0) {
        Eigen::MatrixXd aff(m, m);
        Eigen::VectorXd rhs(m);
        for (int i = 0; i < m; ++i) {
          rhs[i] = b[free[i]];
          for (int j = 0; j < n; ++j) {
            if (state[j] != 0) rhs[i] -= a(free[i], j) * x[j];
          }
          for (int j = 0; j < m; ++j) aff(i, j) = a(free[i], free[j]);
        }
        const Eigen::VectorXd xf = aff.ldlt().solve(rhs);
        for (int i = 0; i < m; ++i) x[free[i]] = xf[i];
      }
      const Eigen::VectorXd g = a * x - b;
      for (int i = 0; i < n; ++i) {
        if (x[i] < lower[i] - 1e-12 || x[i] > upper[i] + 1e-12) goto next;
        if (state[i] == 1 && g[i] < -1e-12) goto next;  // must push outward
        if (state[i] == 2 && g[i] > 1e-12) goto next;
      }
      return x;
    }
  next:;
  }
  ADD_FAILURE() << "no KKT point found by enumeration";
  return Eigen::VectorXd();
}

TEST(BoxLbfgs, BoxQuadraticMatchesActiveSetEnumeration) {
  // SPD A = M^T M + I with a fixed pseudo-random M; b pushes some variables
  // through their lower bounds and others through their upper bounds.
  const int n = 7;
  Eigen::MatrixXd m(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) m(i, j) = std::sin(1.0 + 3.0 * i + 7.0 * j);
  }
  const Eigen::MatrixXd a = m.transpose() * m + Eigen::MatrixXd::Identity(n, n);
  Eigen::VectorXd b(n);
  b << 8.0, -6.0, 3.0, -9.0, 0.5, 7.0, -2.0;
  Eigen::VectorXd lower = Eigen::VectorXd::Constant(n, -1.0);
  Eigen::VectorXd upper = Eigen::VectorXd::Constant(n, 1.0);
  lower[4] = -kInf;  // one side open
  upper[6] = kInf;
  const Eigen::VectorXd reference = BoxQpByEnumeration(a, b, lower, upper);
  ASSERT_EQ(reference.size(), n);
  int at_lower = 0, at_upper = 0;
  for (int i = 0; i < n; ++i) {
    at_lower += reference[i] == lower[i];
    at_upper += reference[i] == upper[i];
  }
  ASSERT_GE(at_lower, 1) << "the case must have an active lower bound";
  ASSERT_GE(at_upper, 1) << "the case must have an active upper bound";

  Quadratic f(a, b);
  BoxLbfgs solver(Tight());
  BoxLbfgs::Summary summary;
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  solver.Minimize(f, lower.data(), upper.data(), nullptr, x.data(), &summary);
  EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_LE((x - reference).lpNorm<Eigen::Infinity>(), 1e-8)
      << "x = " << x.transpose() << "\nreference = " << reference.transpose();
  for (int i = 0; i < n; ++i) {
    EXPECT_GE(x[i], lower[i]);
    EXPECT_LE(x[i], upper[i]);
  }
}

TEST(BoxLbfgs, IllConditionedQuadraticWithoutBounds) {
  // Condition number 1e4 with coupling: A = Q diag(1 .. 1e4) Q^T.
  const int n = 30;
  Eigen::MatrixXd m(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) m(i, j) = std::cos(0.3 + 1.7 * i * j + i);
  }
  const Eigen::MatrixXd q =
      Eigen::HouseholderQR<Eigen::MatrixXd>(m).householderQ();
  Eigen::VectorXd eigenvalues(n);
  for (int i = 0; i < n; ++i) eigenvalues[i] = std::pow(1e4, i / (n - 1.0));
  const Eigen::MatrixXd a = q * eigenvalues.asDiagonal() * q.transpose();
  Eigen::VectorXd b(n);
  for (int i = 0; i < n; ++i) b[i] = 1.0 + 0.1 * i;
  const Eigen::VectorXd reference = a.ldlt().solve(b);

  Quadratic f(a, b);
  BoxLbfgs::Options options = Tight();
  // With H0 = I (Ceres' default) L-BFGS with rank 20 < n = 30 stalls near
  // 2e-8 on this spectrum once f differences drown in rounding; the scaled
  // H0 reaches the tolerance in a few dozen iterations.
  options.use_approximate_eigenvalue_bfgs_scaling = true;
  BoxLbfgs solver(options);
  BoxLbfgs::Summary summary;
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  // Null bounds and all-infinite bounds are the same problem.
  solver.Minimize(f, nullptr, nullptr, nullptr, x.data(), &summary);
  EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_LE((x - reference).lpNorm<Eigen::Infinity>(), 1e-8) << summary.message;
  const Eigen::VectorXd lo = Eigen::VectorXd::Constant(n, -kInf);
  const Eigen::VectorXd hi = Eigen::VectorXd::Constant(n, kInf);
  Eigen::VectorXd x2 = Eigen::VectorXd::Zero(n);
  BoxLbfgs::Summary summary2;
  solver.Minimize(f, lo.data(), hi.data(), nullptr, x2.data(), &summary2);
  EXPECT_EQ(summary2.iterations, summary.iterations);
  EXPECT_EQ((x2 - x).lpNorm<Eigen::Infinity>(), 0.0);
}

// f = 1 + 1/2 x^T A x - b^T x: near x* the decrease per step falls below
// f's rounding (decreases ~ g^2 / 2 ~ 1e-16 once g ~ 1e-8) long before the
// gradient is small. With the strategies' function_tolerance of 1e-15 the
// solve must go on by the approximate Wolfe steps while they still reduce
// the gradient, not stop on cost changes that are rounding noise.
class OffsetQuadratic final : public ceres::FirstOrderFunction {
 public:
  OffsetQuadratic(const Eigen::VectorXd& diagonal, const Eigen::VectorXd& b)
      : inner_(Eigen::MatrixXd(diagonal.asDiagonal()), b) {}
  bool Evaluate(const double* x,
                double* cost,
                double* gradient) const override {
    if (!inner_.Evaluate(x, cost, gradient)) return false;
    *cost += 1.0;
    return true;
  }
  int NumParameters() const override { return inner_.NumParameters(); }

 private:
  Quadratic inner_;
};

TEST(BoxLbfgs, FunctionToleranceBelowRoundingDoesNotStopProgress) {
  // Eigenvalues 1 .. 1e2: L-BFGS converges linearly at first, so the
  // gradient passes through the range where f stops resolving the decrease.
  const int n = 20;
  Eigen::VectorXd diagonal(n), b(n), start(n);
  for (int i = 0; i < n; ++i) {
    diagonal[i] = std::pow(1e2, i / (n - 1.0));
    b[i] = 1.0 + 0.05 * i;
    start[i] = std::cos(1.0 + i);
  }
  const Eigen::VectorXd reference = b.cwiseQuotient(diagonal);
  OffsetQuadratic f(diagonal, b);
  BoxLbfgs::Options options = Tight();
  options.max_lbfgs_rank = 20;
  options.function_tolerance = 1e-15;
  options.parameter_tolerance = 1e-15;
  options.gradient_tolerance = 1e-12;
  BoxLbfgs solver(options);
  for (const bool bounded : {false, true}) {
    SCOPED_TRACE(bounded ? "inactive box" : "no bounds");
    // The box -10 <= x <= 10 never binds: the same answer either way.
    const Eigen::VectorXd lo = Eigen::VectorXd::Constant(n, -10.0);
    const Eigen::VectorXd hi = Eigen::VectorXd::Constant(n, 10.0);
    Eigen::VectorXd x = start;
    BoxLbfgs::Summary summary;
    solver.Minimize(f,
                    bounded ? lo.data() : nullptr,
                    bounded ? hi.data() : nullptr,
                    nullptr,
                    x.data(),
                    &summary);
    EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    // Measured: 1.2e-9 .. 1.6e-9; stopping on the function tolerance
    // leaves 2.3e-8 .. 2.7e-8 (the noise-level steps still gain a factor
    // 20; below 1e-9 the gradient's own rounding takes over).
    EXPECT_LE((x - reference).lpNorm<Eigen::Infinity>(), 5e-9)
        << summary.message;
  }
}

TEST(BoxLbfgs, RosenbrockWithoutBounds) {
  for (int n : {2, 10}) {
    Rosenbrock f(n);
    BoxLbfgs solver(Tight());
    BoxLbfgs::Summary summary;
    Eigen::VectorXd x(n);
    for (int i = 0; i < n; ++i) x[i] = i % 2 == 0 ? -1.2 : 1.0;
    solver.Minimize(f, nullptr, nullptr, nullptr, x.data(), &summary);
    EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE)
        << "n = " << n << ": " << summary.message;
    EXPECT_LE((x - Eigen::VectorXd::Ones(n)).lpNorm<Eigen::Infinity>(), 1e-8)
        << "n = " << n << ": x = " << x.transpose();
    EXPECT_EQ(summary.num_cost_evaluations, f.evaluations());
  }
}

TEST(BoxLbfgs, RosenbrockWithBoundCuttingOffTheMinimum) {
  // x1 <= 0.5 cuts off (1, 1). On x1 = 0.5 the best x2 is 0.25 (the first
  // term vanishes), f = 0.25, and df/dx1 = -2 (1 - x1) = -1 < 0 there: the
  // upper bound is active with multiplier -df/dx1 = 1 > 0, and df/dx2 = 0.
  Rosenbrock f(2);
  const double lower[2] = {-2.0, -kInf};
  const double upper[2] = {0.5, 2.0};
  f.Confine(lower, upper);
  BoxLbfgs solver(Tight());
  BoxLbfgs::Summary summary;
  double x[2] = {-1.2, 1.0};
  solver.Minimize(f, lower, upper, nullptr, x, &summary);
  EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  EXPECT_EQ(x[0], 0.5);
  EXPECT_NEAR(x[1], 0.25, 1e-8);
  EXPECT_NEAR(summary.final_cost, 0.25, 1e-14);
  double cost, g[2];
  ASSERT_TRUE(f.Evaluate(x, &cost, g));
  // KKT: the projected gradient vanishes, the bound multiplier has the sign
  // of an active upper bound and the close-form value.
  const double projected0 =
      x[0] - std::min(upper[0], std::max(lower[0], x[0] - g[0]));
  EXPECT_LE(std::abs(projected0), 1e-12);
  EXPECT_LE(std::abs(g[1]), 1e-7);
  EXPECT_NEAR(-g[0], 1.0, 1e-7);
  EXPECT_GT(-g[0], 0.0);
  EXPECT_EQ(f.outside(), 0);
}

TEST(BoxLbfgs, IteratesStayInsideTheBox) {
  // A start far outside and bounds that the unconstrained iterates would
  // cross in every coordinate; the function counts every call outside.
  const int n = 8;
  Rosenbrock f(n);
  std::vector<double> lower(n, -0.3), upper(n, 0.7);
  lower[3] = -kInf;
  upper[5] = kInf;
  f.Confine(lower.data(), upper.data());
  BoxLbfgs solver(Tight());
  BoxLbfgs::Summary summary;
  Eigen::VectorXd x = Eigen::VectorXd::Constant(n, 3.0);
  x[3] = -3.0;
  solver.Minimize(f, lower.data(), upper.data(), nullptr, x.data(), &summary);
  EXPECT_EQ(f.outside(), 0);
  EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  // KKT at the answer: projected gradient ~ 0, multipliers of the right sign.
  Eigen::VectorXd g(n);
  double cost;
  ASSERT_TRUE(f.Evaluate(x.data(), &cost, g.data()));
  int active = 0;
  for (int i = 0; i < n; ++i) {
    ASSERT_GE(x[i], lower[i]);
    ASSERT_LE(x[i], upper[i]);
    if (x[i] == upper[i]) {
      ++active;
      EXPECT_LE(g[i], 0.0) << i;  // multiplier -g_i >= 0
    } else if (x[i] == lower[i]) {
      ++active;
      EXPECT_GE(g[i], 0.0) << i;
    } else {
      EXPECT_LE(std::abs(g[i]), 1e-9) << i;
    }
  }
  EXPECT_GE(active, 1);
}

// f = sum_i sqrt(1 + (x_i - 1)^2), undefined (returns false) where some
// x_i < 0.5. From x = 10 the second trial step of the first line search
// lands at x ~ 0 (the slope barely changes, so the step is expanded ten
// times).
class FlatOutside final : public ceres::FirstOrderFunction {
 public:
  bool Evaluate(const double* x,
                double* cost,
                double* gradient) const override {
    *cost = 0.0;
    for (int i = 0; i < 3; ++i) {
      if (x[i] < 0.5) {
        ++failures_;
        return false;
      }
      const double r = std::sqrt(1.0 + (x[i] - 1.0) * (x[i] - 1.0));
      *cost += r;
      if (gradient != nullptr) gradient[i] = (x[i] - 1.0) / r;
    }
    return true;
  }
  int NumParameters() const override { return 3; }
  mutable int failures_ = 0;
};

TEST(BoxLbfgs, EvaluationFailuresShortenTheStep) {
  FlatOutside f;
  BoxLbfgs solver(Tight());
  BoxLbfgs::Summary summary;
  double x[3] = {10.0, 10.0, 10.0};
  solver.Minimize(f, nullptr, nullptr, nullptr, x, &summary);
  EXPECT_GT(f.failures_, 0);
  EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
  for (double xi : x) EXPECT_NEAR(xi, 1.0, 1e-9);

  // Undefined at the start: FAILURE, nothing evaluated successfully, x kept.
  double bad[3] = {0.0, 2.0, 2.0};
  solver.Minimize(f, nullptr, nullptr, nullptr, bad, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_FALSE(summary.evaluated_start);
  EXPECT_EQ(bad[0], 0.0);
}

class StopAt final : public ceres::IterationCallback {
 public:
  explicit StopAt(int iteration) : iteration_(iteration) {}
  ceres::CallbackReturnType operator()(
      const ceres::IterationSummary& summary) override {
    costs.push_back(summary.cost);
    return summary.iteration >= iteration_
               ? ceres::SOLVER_TERMINATE_SUCCESSFULLY
               : ceres::SOLVER_CONTINUE;
  }
  std::vector<double> costs;

 private:
  int iteration_;
};

TEST(BoxLbfgs, CallbackStopsTheSolve) {
  Rosenbrock f(4);
  BoxLbfgs solver(Tight());
  BoxLbfgs::Summary summary;
  StopAt stop(3);
  double x[4] = {-1.2, 1.0, -1.2, 1.0};
  solver.Minimize(f, nullptr, nullptr, &stop, x, &summary);
  EXPECT_EQ(summary.termination_type, ceres::USER_SUCCESS);
  EXPECT_EQ(summary.iterations, 3);
  ASSERT_EQ(stop.costs.size(), 4u);  // the start and three accepted steps
  double cost, g[4];
  ASSERT_TRUE(f.Evaluate(x, &cost, g));
  EXPECT_EQ(stop.costs.back(), cost);  // exactly the value at the returned x
  for (size_t i = 1; i < stop.costs.size(); ++i) {
    EXPECT_LT(stop.costs[i], stop.costs[i - 1]);
  }
}

TEST(BoxLbfgs, IterationBudget) {
  Rosenbrock f(4);
  BoxLbfgs::Options options = Tight();
  options.max_num_iterations = 5;
  BoxLbfgs solver(options);
  BoxLbfgs::Summary summary;
  double x[4] = {-1.2, 1.0, -1.2, 1.0};
  solver.Minimize(f, nullptr, nullptr, nullptr, x, &summary);
  EXPECT_EQ(summary.termination_type, ceres::NO_CONVERGENCE);
  EXPECT_EQ(summary.iterations, 5);
  EXPECT_LT(summary.final_cost, summary.initial_cost);
}

// Rosenbrock that sleeps 1 ms per evaluation.
class SlowRosenbrock final : public ceres::FirstOrderFunction {
 public:
  bool Evaluate(const double* x,
                double* cost,
                double* gradient) const override {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return inner_.Evaluate(x, cost, gradient);
  }
  int NumParameters() const override { return 2; }

 private:
  Rosenbrock inner_{2};
};

TEST(BoxLbfgs, TimeBudget) {
  SlowRosenbrock f;
  BoxLbfgs::Options options = Tight();
  options.max_solver_time_in_seconds = 0.01;
  BoxLbfgs solver(options);
  BoxLbfgs::Summary summary;
  double x[2] = {-1.2, 1.0};
  const auto start = std::chrono::steady_clock::now();
  solver.Minimize(f, nullptr, nullptr, nullptr, x, &summary);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(summary.termination_type, ceres::NO_CONVERGENCE) << summary.message;
  // Unconstrained Rosenbrock needs more than 10 evaluations; a line search
  // takes at most 20 (20 ms) past the budget.
  EXPECT_LT(elapsed, 0.2);
  EXPECT_GT(summary.iterations, 0);
}

TEST(BoxLbfgs, InvalidInputsFailWithMessages) {
  Rosenbrock f(2);
  BoxLbfgs::Options options;
  options.max_lbfgs_rank = 0;
  BoxLbfgs solver(options);
  BoxLbfgs::Summary summary;
  double x[2] = {0.0, 0.0};
  solver.Minimize(f, nullptr, nullptr, nullptr, x, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("max_lbfgs_rank"), std::string::npos);
  BoxLbfgs good;
  const double lower[2] = {1.0, 0.0};
  const double upper[2] = {0.0, 1.0};
  good.Minimize(f, lower, upper, nullptr, x, &summary);
  EXPECT_EQ(summary.termination_type, ceres::FAILURE);
  EXPECT_NE(summary.message.find("x[0]"), std::string::npos);
}

TEST(BoxLbfgs, SecondCallWithTheSameSizeDoesNotAllocate) {
#if !ECMO_COUNT_MALLOC
  GTEST_SKIP() << "malloc is not interposed in this build (sanitizer or not "
                  "glibc)";
#else
  const int n = 200;
  Rosenbrock f(n);
  std::vector<double> lower(n, -kInf), upper(n, 0.9);
  for (const bool bounded : {false, true}) {
    BoxLbfgs solver(Tight());
    BoxLbfgs::Summary summary;
    StopAt never(1 << 30);
    never.costs.reserve(100000);
    const double* lo = bounded ? lower.data() : nullptr;
    const double* hi = bounded ? upper.data() : nullptr;
    Eigen::VectorXd x = Eigen::VectorXd::Constant(n, -1.0);
    solver.Minimize(f, lo, hi, &never, x.data(), &summary);
    ASSERT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    x.setConstant(-1.0);
    never.costs.clear();
    ecmo::testing::AllocationCount count;
    solver.Minimize(f, lo, hi, &never, x.data(), &summary);
    EXPECT_EQ(count.Stop(), 0) << (bounded ? "bounded" : "unbounded");
    EXPECT_EQ(summary.termination_type, ceres::CONVERGENCE) << summary.message;
    EXPECT_GT(summary.iterations, 20);
  }
#endif
}

}  // namespace
}  // namespace internal
}  // namespace ecmo
