// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The projected active-set L-BFGS of box_lbfgs.h.

#include "box_lbfgs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>

namespace ecmo {
namespace internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
// Relative rounding level of f below which cost differences are not trusted
// (about 450 ulps; Hager and Zhang use 1e-6, loose enough to accept steps
// whose real decrease the sufficient-decrease test could still resolve).
constexpr double kCostNoise = 1e-13;
// Iterations without a new lowest gradient after which a solve whose cost
// changes only at rounding level stops (see Converged).
constexpr int kNoiseStalls = 5;

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

bool BoxLbfgs::Options::IsValid(std::string* error) const {
  auto fail = [error](const char* what) {
    if (error != nullptr) *error = what;
    return false;
  };
  if (max_lbfgs_rank <= 0) return fail("max_lbfgs_rank must be > 0.");
  if (max_num_iterations < 0) return fail("max_num_iterations must be >= 0.");
  if (!(max_solver_time_in_seconds >= 0.0)) {
    return fail("max_solver_time_in_seconds must be >= 0.");
  }
  if (!(function_tolerance >= 0.0) || !(gradient_tolerance >= 0.0) ||
      !(parameter_tolerance >= 0.0)) {
    return fail(
        "function_tolerance, gradient_tolerance and parameter_tolerance "
        "must be >= 0.");
  }
  if (!(min_line_search_step_size > 0.0)) {
    return fail("min_line_search_step_size must be > 0.");
  }
  const double c1 = line_search_sufficient_function_decrease;
  const double c2 = line_search_sufficient_curvature_decrease;
  if (!(c1 > 0.0 && c1 < c2 && c2 < 1.0)) {
    return fail(
        "need 0 < line_search_sufficient_function_decrease < "
        "line_search_sufficient_curvature_decrease < 1.");
  }
  if (!(max_line_search_step_contraction > 0.0 &&
        max_line_search_step_contraction < min_line_search_step_contraction &&
        min_line_search_step_contraction < 1.0)) {
    return fail(
        "need 0 < max_line_search_step_contraction < "
        "min_line_search_step_contraction < 1.");
  }
  if (max_num_line_search_step_size_iterations <= 0) {
    return fail("max_num_line_search_step_size_iterations must be > 0.");
  }
  if (max_num_line_search_direction_restarts < 0) {
    return fail("max_num_line_search_direction_restarts must be >= 0.");
  }
  if (!(max_line_search_step_expansion > 1.0)) {
    return fail("max_line_search_step_expansion must be > 1.");
  }
  return true;
}

void BoxLbfgs::Resize(int n) {
  // Eigen's resize is a no-op when the size does not change: this is the
  // only place buffers are allocated.
  if (n != n_) {
    x_.resize(n);
    g_.resize(n);
    d_.resize(n);
    x_trial_.resize(n);
    g_trial_.resize(n);
    x_best_.resize(n);
    g_best_.resize(n);
    n_ = n;
    rank_ = -1;
  }
  if (options_.max_lbfgs_rank != rank_) {
    rank_ = options_.max_lbfgs_rank;
    memory_.Resize(n, rank_);
  }
}

size_t BoxLbfgs::WorkspaceBytes() const {
  const size_t doubles = x_.size() + g_.size() + d_.size() + x_trial_.size() +
                         g_trial_.size() + x_best_.size() + g_best_.size() +
                         lower_box_.size() + upper_box_.size() + free_.size() +
                         memory_.StorageSize();
  return doubles * sizeof(double);
}

void BoxLbfgs::SetMessage(Summary* summary, const char* format, ...) {
  // Formatted into a fixed buffer, then assigned: a reused Summary keeps
  // its string's capacity, so no allocation in steady state.
  va_list args;
  va_start(args, format);
  std::vsnprintf(message_buffer_, sizeof(message_buffer_), format, args);
  va_end(args);
  summary->message.assign(message_buffer_);
}

bool BoxLbfgs::EvaluateAt(const double* x, double* cost, double* gradient) {
  ++summary_->num_cost_evaluations;
  ++summary_->num_gradient_evaluations;
  if (!function_->Evaluate(x, cost, gradient)) return false;
  if (!std::isfinite(*cost)) return false;
  return Eigen::Map<const Eigen::VectorXd>(gradient, n_).allFinite();
}

double BoxLbfgs::ProjectedGradientMaxNorm(const Eigen::VectorXd& x,
                                          const Eigen::VectorXd& g) const {
  if (!bounded_) return g.lpNorm<Eigen::Infinity>();
  // ||x - P(x - g)||_inf.
  return (x - (x - g).cwiseMax(lower_box_).cwiseMin(upper_box_))
      .lpNorm<Eigen::Infinity>();
}

void BoxLbfgs::ComputeFreeSet() {
  num_fixed_ = 0;
  for (int i = 0; i < n_; ++i) {
    const bool fixed = lower_box_[i] == upper_box_[i] ||
                       (x_[i] <= lower_box_[i] && g_[i] > 0.0) ||
                       (x_[i] >= upper_box_[i] && g_[i] < 0.0);
    free_[i] = fixed ? 0.0 : 1.0;
    num_fixed_ += fixed ? 1 : 0;
  }
}

void BoxLbfgs::ComputeDirection() {
  // d = -H g by the two-loop recursion, on the free variables when some are
  // fixed (every product masked by free_, so d is zero on the fixed ones).
  // With none fixed (bounds that do not bind, the common case) it is the
  // plain recursion with the stored s^T y.
  const bool masked = bounded_ && num_fixed_ > 0;
  if (masked) {
    d_ = -g_.cwiseProduct(free_);
  } else {
    d_ = -g_;
  }
  memory_.ApplyInverse(d_,
                       masked ? &free_ : nullptr,
                       options_.use_approximate_eigenvalue_bfgs_scaling);
  if (bounded_) {
    // Drop components that would leave the box at once: the path P(x + t d)
    // would bend at t = 0 and the slope below would not be phi'(0).
    for (int i = 0; i < n_; ++i) {
      if ((x_[i] <= lower_box_[i] && d_[i] < 0.0) ||
          (x_[i] >= upper_box_[i] && d_[i] > 0.0)) {
        d_[i] = 0.0;
      }
    }
  }
}

BoxLbfgs::Trial BoxLbfgs::EvaluateStep(double t) {
  Trial trial;
  trial.t = t;
  x_trial_ = x_ + t * d_;
  if (bounded_) {
    x_trial_ = x_trial_.cwiseMax(lower_box_).cwiseMin(upper_box_);
  }
  trial.valid = EvaluateAt(x_trial_.data(), &trial.cost, g_trial_.data());
  if (!trial.valid) return trial;
  if (!bounded_) {
    trial.slope = g_trial_.dot(d_);
  } else {
    // One-sided derivative of phi(t) = f(P(x + t d)): only coordinates not
    // clamped at t move.
    double slope = 0.0;
    for (int i = 0; i < n_; ++i) {
      const double unclamped = x_[i] + t * d_[i];
      if (unclamped > lower_box_[i] && unclamped < upper_box_[i]) {
        slope += g_trial_[i] * d_[i];
      }
    }
    trial.slope = slope;
  }
  return trial;
}

bool BoxLbfgs::LineSearch(double t0, double slope0, Trial* accepted) {
  const double c1 = options_.line_search_sufficient_function_decrease;
  const double c2 = options_.line_search_sufficient_curvature_decrease;
  const double d_max = d_.lpNorm<Eigen::Infinity>();
  // Sufficient decrease along the projected path: f(x(t)) <= f(x) +
  // c1 g^T (x(t) - x), which is c1 t phi'(0) while the path is straight.
  // Near a minimizer the decrease c1 t phi'(0) drowns in the rounding
  // error of f; there (cost within kCostNoise |f| of f(x)) the approximate
  // Wolfe test of Hager and Zhang, phi'(t) <= (1 - 2 c1) |phi'(0)| (the
  // same test for a quadratic), judges the step by the slope instead.
  const double noise = kCostNoise * std::abs(cost_);
  auto sufficient = [&](const Trial& trial) {
    const double decrease = bounded_
                                ? (g_.array() * (x_trial_ - x_).array()).sum()
                                : trial.t * slope0;
    return trial.cost <= cost_ + c1 * decrease ||
           (trial.cost <= cost_ + noise &&
            trial.slope <= (1.0 - 2.0 * c1) * -slope0);
  };
  // Worse than lo beyond the rounding level of f.
  auto worse = [&](const Trial& trial, const Trial& lo) {
    return lo.t > 0.0 &&
           (noise > 0.0 ? trial.cost > lo.cost + noise : trial.cost >= lo.cost);
  };
  auto curvature = [&](const Trial& trial) {
    return std::abs(trial.slope) <= -c2 * slope0;
  };
  // lo: the best trial meeting sufficient decrease (t = 0: the iterate);
  // its point is kept in x_best_ / g_best_ (buffers swapped, not copied).
  Trial lo;
  lo.t = 0.0;
  lo.cost = cost_;
  lo.slope = slope0;
  lo.valid = true;
  Trial hi;
  auto take_as_lo = [&](const Trial& trial) {
    lo = trial;
    x_best_.swap(x_trial_);
    g_best_.swap(g_trial_);
  };
  int evaluations = 0;
  const int max_evaluations = options_.max_num_line_search_step_size_iterations;
  bool bracketed = false;
  double t = t0;
  // Bracketing: grow the step while the slope stays negative.
  while (evaluations < max_evaluations) {
    const Trial trial = EvaluateStep(t);
    ++evaluations;
    if (!trial.valid || !sufficient(trial) || worse(trial, lo)) {
      hi = trial;
      bracketed = true;
      break;
    }
    if (curvature(trial)) {
      take_as_lo(trial);
      *accepted = lo;
      return true;
    }
    if (trial.slope >= 0.0) {
      hi = lo;
      take_as_lo(trial);
      bracketed = true;
      break;
    }
    // Still descending: extrapolate the slope to zero (secant), between
    // twice the step and max_line_search_step_expansion times it.
    const Trial previous = lo;
    take_as_lo(trial);
    double next = options_.max_line_search_step_expansion * t;
    if (trial.slope > previous.slope) {
      const double secant = trial.t - trial.slope * (trial.t - previous.t) /
                                          (trial.slope - previous.slope);
      if (std::isfinite(secant)) next = std::min(next, secant);
    }
    t = std::max(next, 2.0 * t);
  }
  // Zoom: shrink [lo, hi] (either order) keeping lo acceptable.
  while (bracketed && evaluations < max_evaluations) {
    const double width = hi.t - lo.t;
    if (std::abs(width) * d_max < options_.min_line_search_step_size) break;
    double candidate = lo.t + 0.5 * width;
    if (hi.valid) {
      // Cubic through (lo, hi) values and slopes; quadratic through lo's
      // value and slope and hi's value if the cubic has no minimizer.
      const double d1 =
          lo.slope + hi.slope - 3.0 * (lo.cost - hi.cost) / (lo.t - hi.t);
      const double radicand = d1 * d1 - lo.slope * hi.slope;
      if (radicand >= 0.0) {
        const double d2 = std::copysign(std::sqrt(radicand), width);
        candidate = hi.t - width * (hi.slope + d2 - d1) /
                               (hi.slope - lo.slope + 2.0 * d2);
      } else {
        const double curvature2 = hi.cost - lo.cost - lo.slope * width;
        if (curvature2 > 0.0) {
          candidate = lo.t - lo.slope * width * width / (2.0 * curvature2);
        }
      }
    }
    // Safeguard: a fraction of the bracket from lo within the contraction
    // limits.
    double tau = (candidate - lo.t) / width;
    if (!std::isfinite(tau)) tau = 0.5;
    tau = std::min(std::max(tau, options_.max_line_search_step_contraction),
                   options_.min_line_search_step_contraction);
    const Trial trial = EvaluateStep(lo.t + tau * width);
    ++evaluations;
    if (!trial.valid || !sufficient(trial) || worse(trial, lo)) {
      hi = trial;
      continue;
    }
    if (curvature(trial)) {
      take_as_lo(trial);
      *accepted = lo;
      return true;
    }
    if (trial.slope * width >= 0.0) hi = lo;
    take_as_lo(trial);
  }
  // Out of evaluations or precision: the best acceptable step, if any.
  if (lo.t > 0.0) {
    *accepted = lo;
    return true;
  }
  return false;
}

void BoxLbfgs::UpdateMemory() {
  // (s, y) from the accepted point (x_best_, g_best_) and the iterate.
  memory_.next_s() = x_best_ - x_;
  memory_.next_y() = g_best_ - g_;
  memory_.Commit(kEpsilon, 0.0);  // skipped without curvature
}

bool BoxLbfgs::BudgetExhausted(Summary* summary) {
  if (summary->iterations >= options_.max_num_iterations) {
    summary->termination_type = ceres::NO_CONVERGENCE;
    SetMessage(summary,
               "Maximum number of iterations reached (%d).",
               options_.max_num_iterations);
    return true;
  }
  const double elapsed = elapsed_ >= 0.0 ? elapsed_ : Now() - start_time_;
  elapsed_ = -1.0;
  if (elapsed >= options_.max_solver_time_in_seconds) {
    summary->termination_type = ceres::NO_CONVERGENCE;
    SetMessage(summary,
               "Maximum solver time reached (%g s).",
               options_.max_solver_time_in_seconds);
    return true;
  }
  return false;
}

bool BoxLbfgs::RunCallback(ceres::IterationCallback* callback,
                           double step_norm,
                           double step_size,
                           double gradient_max_norm,
                           Summary* summary) {
  if (callback == nullptr) return false;
  ceres::IterationSummary it;
  it.iteration = summary->iterations;
  it.step_is_valid = it.step_is_successful = summary->iterations > 0;
  it.cost = cost_;
  it.cost_change = summary->iterations > 0 ? previous_cost_ - cost_ : 0.0;
  it.gradient_max_norm = gradient_max_norm;
  it.step_norm = step_norm;
  it.step_size = step_size;
  elapsed_ = Now() - start_time_;
  it.cumulative_time_in_seconds = elapsed_;
  switch ((*callback)(it)) {
    case ceres::SOLVER_TERMINATE_SUCCESSFULLY:
      summary->termination_type = ceres::USER_SUCCESS;
      SetMessage(summary,
                 "User callback returned SOLVER_TERMINATE_SUCCESSFULLY.");
      return true;
    case ceres::SOLVER_ABORT:
      summary->termination_type = ceres::USER_FAILURE;
      SetMessage(summary, "User callback returned SOLVER_ABORT.");
      return true;
    default:
      return false;
  }
}

bool BoxLbfgs::Converged(double step_norm,
                         double gradient_max_norm,
                         Summary* summary) {
  if (gradient_max_norm <= options_.gradient_tolerance) {
    summary->termination_type = ceres::CONVERGENCE;
    SetMessage(summary,
               "Gradient tolerance reached: projected gradient max norm "
               "%.6e <= %.6e.",
               gradient_max_norm,
               options_.gradient_tolerance);
    return true;
  }
  if (summary->iterations == 0) return false;
  const double x_norm = x_.norm();
  if (step_norm <=
      options_.parameter_tolerance * (x_norm + options_.parameter_tolerance)) {
    summary->termination_type = ceres::CONVERGENCE;
    SetMessage(summary,
               "Parameter tolerance reached: |step| / |x| = %.6e <= %.6e.",
               step_norm / std::max(x_norm, kEpsilon),
               options_.parameter_tolerance);
    return true;
  }
  const double change = std::abs(previous_cost_ - cost_);
  if (change < options_.function_tolerance * std::abs(previous_cost_)) {
    // Below the rounding level of f a change measures nothing: the steps
    // the approximate Wolfe test accepts there still reduce the gradient,
    // which is what the caller's stopping test (a KKT residual) needs. A
    // tolerance under that level therefore stops the solve only once the
    // gradient, too, has stalled (no new low in kNoiseStalls iterations).
    if (options_.function_tolerance < kCostNoise &&
        change <= kCostNoise * std::abs(previous_cost_)) {
      if (gradient_max_norm < lowest_gradient_in_noise_) {
        lowest_gradient_in_noise_ = gradient_max_norm;
        noise_stalls_ = 0;
        return false;
      }
      if (++noise_stalls_ < kNoiseStalls) return false;
    }
    summary->termination_type = ceres::CONVERGENCE;
    SetMessage(summary,
               "Function tolerance reached: |cost change| / |cost| = %.6e "
               "< %.6e.",
               change / std::max(std::abs(previous_cost_), kEpsilon),
               options_.function_tolerance);
    return true;
  }
  return false;
}

bool BoxLbfgs::SetUpBounds(const double* lower,
                           const double* upper,
                           Summary* summary) {
  bounded_ = false;
  for (int i = 0; i < n_ && !bounded_; ++i) {
    bounded_ = (lower != nullptr && std::isfinite(lower[i])) ||
               (upper != nullptr && std::isfinite(upper[i]));
  }
  if (!bounded_) return true;
  // Sized on the first bounded call with this n, then reused.
  if (lower_box_.size() != n_) {
    lower_box_.resize(n_);
    upper_box_.resize(n_);
    free_.resize(n_);
  }
  for (int i = 0; i < n_; ++i) {
    lower_box_[i] = lower != nullptr ? lower[i] : -kInf;
    upper_box_[i] = upper != nullptr ? upper[i] : kInf;
    if (!(lower_box_[i] <= upper_box_[i])) {
      summary->termination_type = ceres::FAILURE;
      SetMessage(summary,
                 "Invalid bounds for x[%d]: lower %g must be <= upper %g.",
                 i,
                 lower_box_[i],
                 upper_box_[i]);
      return false;
    }
  }
  return true;
}

void BoxLbfgs::Minimize(const ceres::FirstOrderFunction& function,
                        const double* lower,
                        const double* upper,
                        ceres::IterationCallback* callback,
                        double* x,
                        Summary* summary) {
  start_time_ = Now();
  elapsed_ = -1.0;
  summary_ = summary;
  function_ = &function;
  summary->termination_type = ceres::FAILURE;
  summary->iterations = 0;
  summary->num_cost_evaluations = 0;
  summary->num_gradient_evaluations = 0;
  summary->evaluated_start = false;
  std::string error;
  if (!options_.IsValid(&error)) {
    summary->message = "Invalid BoxLbfgs::Options: " + error;
    return;
  }
  const int n = function.NumParameters();
  if (n <= 0) {
    SetMessage(summary, "The function has %d parameters; need > 0.", n);
    return;
  }
  Resize(n);
  if (!SetUpBounds(lower, upper, summary)) return;

  // Iteration zero: the (projected) start.
  x_ = Eigen::Map<const Eigen::VectorXd>(x, n);
  if (bounded_) x_ = x_.cwiseMax(lower_box_).cwiseMin(upper_box_);
  if (!EvaluateAt(x_.data(), &cost_, g_.data())) {
    SetMessage(summary,
               "Cannot evaluate the function at the start point (Evaluate "
               "returned false or a non-finite value).");
    return;
  }
  summary->evaluated_start = true;
  summary->initial_cost = summary->final_cost = cost_;
  previous_cost_ = cost_;
  memory_.Clear();
  lowest_gradient_in_noise_ = kInf;
  noise_stalls_ = 0;
  int restarts = 0;
  double gradient_max_norm = ProjectedGradientMaxNorm(x_, g_);
  bool done = RunCallback(callback, 0.0, 0.0, gradient_max_norm, summary) ||
              Converged(0.0, gradient_max_norm, summary);

  while (!done && !BudgetExhausted(summary)) {
    if (bounded_) ComputeFreeSet();
    ComputeDirection();
    double slope0 = g_.dot(d_);
    if (!(slope0 < 0.0) && memory_.size() > 0) {
      // The memory gives no descent direction (rounding, or pairs stale on
      // the current free set): steepest descent, counted as a restart.
      memory_.Clear();
      ++restarts;
      ComputeDirection();
      slope0 = g_.dot(d_);
    }
    if (!(slope0 < 0.0)) {
      summary->termination_type = ceres::FAILURE;
      SetMessage(summary,
                 "No descent direction: directional derivative %.6e with "
                 "projected gradient max norm %.6e.",
                 slope0,
                 gradient_max_norm);
      break;
    }
    // Ceres' initial step: scaled to the gradient without curvature
    // information, otherwise from the last decrease (capped at 1).
    double t0 = memory_.size() == 0
                    ? std::min(1.0, 1.0 / d_.lpNorm<Eigen::Infinity>())
                    : std::min(1.0, 2.0 * (cost_ - previous_cost_) / slope0);
    if (!(t0 > 0.0)) t0 = 1.0;
    Trial accepted;
    if (!LineSearch(t0, slope0, &accepted)) {
      if (memory_.size() > 0 &&
          restarts < options_.max_num_line_search_direction_restarts) {
        memory_.Clear();
        ++restarts;
        continue;
      }
      summary->termination_type = ceres::FAILURE;
      SetMessage(summary,
                 "Line search failed: no step of size >= %.3e (times "
                 "||d||_inf) along the %s direction decreases the cost "
                 "%.16e sufficiently (directional derivative %.6e).",
                 options_.min_line_search_step_size,
                 memory_.size() > 0 ? "L-BFGS" : "steepest-descent",
                 cost_,
                 slope0);
      break;
    }
    const double step_norm = (x_best_ - x_).norm();
    UpdateMemory();
    x_.swap(x_best_);
    g_.swap(g_best_);
    previous_cost_ = cost_;
    cost_ = accepted.cost;
    ++summary->iterations;
    gradient_max_norm = ProjectedGradientMaxNorm(x_, g_);
    done = RunCallback(
               callback, step_norm, accepted.t, gradient_max_norm, summary) ||
           Converged(step_norm, gradient_max_norm, summary);
  }
  Eigen::Map<Eigen::VectorXd>(x, n) = x_;
  summary->final_cost = cost_;
}

}  // namespace internal
}  // namespace ecmo
