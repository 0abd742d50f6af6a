// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The Ceres phase of StrategyType::WC_NEWTON (see
// Solver::Options::NewtonOptions::ceres_phase and wc_ceres_phase.h).
//
// With c_s(z) = lambda_s (f_s(z) - r_s), the WC point on a convex part of
// a front is the minimizer z(a) of the weighted sum sum_s a_s f_s with
// a_s = omega_s lambda_s, omega the WC multipliers, at which the active
// terms c_s are equal. For S = 2 the spread g(t) = (c_1 - c_2) / max|c| at
// z(omega(t)), t = log(omega_1 / omega_2), decreases in t (more weight on
// f_1 lowers c_1), so a secant on t with a bracket (bisection when the
// secant leaves it, steps of at most 4 e-folds before one is found) finds
// its root in a few warm-started solves. Where no root exists (one
// objective's minimizer already has the smaller weighted term) t runs off
// to the simplex's boundary; the phase stops there and the Newton loop
// certifies the end point. For S > 2: omega_s <- omega_s exp(2 (c_s -
// mean c) / max|c|), normalized. Equalities: the augmented Lagrangian's
// nu <- nu + mu h after every solve; mu grows tenfold when ||h|| did not
// fall by a factor 4. Bounds: the adapter's least-squares problem has them
// (Ceres keeps its iterates inside), and predicted starts are projected.

#include "wc_ceres_phase.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "Eigen/SparseCholesky"
#include "Eigen/SparseCore"
#include "ceres/solver.h"
#include "glog/logging.h"
#include "wc_diagnosis.h"

namespace ecmo {

ceres::Solver::Options Solver::Options::NewtonOptions::DefaultCeresOptions() {
  ceres::Solver::Options options;
  options.max_num_iterations = 1000;
  options.logging_type = ceres::SILENT;
  options.minimizer_progress_to_stdout = false;
  return options;
}

namespace internal {
namespace {

// Limits on t = log(omega_1 / omega_2): the simplex's boundary in practice
// (omega_min ~ 1e-13), and the longest step before a bracket is found.
constexpr double kMaxLogRatio = 30.0;
constexpr double kMaxStep = 4.0;
// A bracket on t narrower than this with g still far from 0 means that
// z(t) jumps inside it.
constexpr double kMinBracket = 0.05;

class CeresPhase {
 public:
  CeresPhase(const StrategyInput& input, CeresPhaseResult* result)
      : input_(input),
        newton_(input.options->newton),
        evaluator_(input.evaluator),
        S_(evaluator_->NumObjectives()),
        q_(evaluator_->NumConstraints()),
        result_(result) {}

  void Run() {
    result_->z = input_.z0;
    result_->nu = Eigen::VectorXd::Zero(q_);
    const Solver::Options::WarmStart& warm = input_.options->warm_start;
    Eigen::VectorXd omega = Eigen::VectorXd::Constant(S_, 1.0 / S_);
    // The weighted sum that z0 (the neighbour's point) minimizes when the
    // warm start's preference let Solve carry omega over, else omega as
    // given.
    const Eigen::VectorXd& given = input_.ceres_phase_omega.size() == S_
                                       ? input_.ceres_phase_omega
                                       : warm.omega;
    const bool warm_weights = given.size() == S_ && given.sum() > 0.0;
    warm_start_point_ = warm_weights;
    if (warm_weights) {
      omega = given.cwiseMax(1e-8 * given.sum());
      omega /= omega.sum();
    }
    if (warm.nu.size() == q_ && q_ > 0) result_->nu = warm.nu;
    if (!EvaluateTerms()) return;
    const Solver::Options::QuasiNewtonOptions& qn =
        input_.options->quasi_newton;
    mu_ = warm.penalty_u > 0.0 ? warm.penalty_u : qn.initial_penalty;
    if (mu_ <= 0.0) {
      mu_ = 10.0 * std::max(1.0, c_.cwiseAbs().maxCoeff()) /
            std::max(1.0, h_.squaredNorm());
      mu_ = std::min(std::max(mu_, 1e-2), 1e8);
    }
    mu_ = std::min(mu_, qn.max_penalty);
    if (warm_weights && !newton_.ceres_phase_on_warm_starts) {
      // A neighbour's point with its weights (carried over to this
      // preference, or as given when the preferences are far apart): the
      // Newton loop starts there (NewtonOptions::ceres_phase_on_warm_starts).
      RecordWeights(omega);
      result_->used = true;
      result_->message =
          "skipped on a warm start (the neighbour's point and "
          "weights)";
      return;
    }
    if (input_.ceres_phase_omega.size() == S_ && MinimizesWeightedSum(omega)) {
      // The neighbour's point already minimizes the weighted sum at the
      // carried weights (CarryWarmStartOver): a ceres::Solve would stop at
      // its first gradient check after paying its preprocessing.
      RecordWeights(omega);
      VLOG(1) << "Ceres phase: the start minimizes the weighted sum at omega "
              << omega.transpose() << " c " << c_.transpose();
    } else if (!Solve(omega)) {
      return;
    }
    result_->used = true;
    if (S_ == 2) {
      SecantOnLogRatio(omega);
    } else {
      MultiplicativeUpdates(omega);
    }
  }

 private:
  // c_ = lambda (f + offset) and h_ at result_->z.
  bool EvaluateTerms() {
    Eigen::VectorXd f(S_);
    h_.resize(q_);
    std::string error;
    if (!evaluator_->Evaluate(
            result_->z.data(), f.data(), h_.data(), nullptr, &error)) {
      result_->message = "cannot evaluate the point: " + error;
      return false;
    }
    c_ = input_.lambda.cwiseProduct(f + input_.offset);
    return true;
  }

  // log(max c / min c) when every term is positive, else
  // (max c - min c) / max |c|.
  double Spread() const {
    if (c_.minCoeff() > 0.0) return std::log(c_.maxCoeff() / c_.minCoeff());
    return (c_.maxCoeff() - c_.minCoeff()) /
           std::max(c_.cwiseAbs().maxCoeff(), 1e-300);
  }

  bool Converged() {
    result_->spread = Spread();
    if (result_->spread <= newton_.ceres_phase_tolerance) {
      result_->message = "the Chebyshev terms agree within " +
                         Sci(result_->spread) + " (relative)";
      return true;
    }
    if (result_->solves >= newton_.max_ceres_solves) {
      result_->message = "max_ceres_solves reached with the Chebyshev terms " +
                         Sci(result_->spread) + " apart (relative)";
      return true;
    }
    return false;
  }

  // The phase's point is result_->z, a minimizer of the weighted sum at
  // omega, with terms c_ and penalty mu_.
  void RecordWeights(const Eigen::VectorXd& omega) {
    result_->omega = omega;
    result_->mu = mu_;
    result_->max_term = c_.cwiseAbs().maxCoeff();
  }

  // One ceres::Solve of the weighted sum at omega from result_->z; then
  // the augmented-Lagrangian update of nu (and mu). False (and the phase
  // ends) when Ceres fails or the time is up.
  bool Solve(const Eigen::VectorXd& omega) {
    ceres::Solver::Options options = newton_.ceres;
    // The first solve from the user's start is a plain weighted sum at the
    // preference's weights: it picks the basin the point ends in, so it
    // runs to the nested options' own tolerance, as a plain ceres::Solve
    // would (stopped at 1e-2 on mit.g2o it left 3 of 11 points in a basin
    // where the plain weighted sum at the same preference dominates them).
    // The later solves only move along the front from there.
    if (result_->solves > 0 || warm_start_point_) {
      options.function_tolerance = std::max(
          options.function_tolerance, newton_.ceres_phase_function_tolerance);
    }
    const double remaining =
        input_.options->max_solver_time_in_seconds - input_.timer->Seconds();
    if (remaining <= 0.0) {
      result_->message = "no time left for a Ceres solve";
      return false;
    }
    options.max_solver_time_in_seconds =
        std::min(options.max_solver_time_in_seconds, remaining);
    const Eigen::VectorXd a = omega.cwiseProduct(input_.lambda);
    const Eigen::VectorXd shift = result_->nu / mu_;
    ceres::Solver::Summary summary;
    std::string error;
    Eigen::VectorXd z = result_->z;
    if (!evaluator_->SolveWeightedLeastSquares(
            options, a.data(), mu_, shift.data(), z.data(), &summary, &error)) {
      result_->message = error;
      return false;
    }
    ++result_->solves;
    result_->z = z;
    gradients_current_ = false;
    const double previous_h = q_ > 0 ? h_.norm() : 0.0;
    if (!EvaluateTerms()) return false;
    RecordWeights(omega);
    if (q_ > 0) {
      result_->nu += mu_ * h_;
      if (h_.norm() > 0.25 * previous_h) {
        mu_ = std::min(10.0 * mu_, input_.options->quasi_newton.max_penalty);
      }
    }
    VLOG(1) << "Ceres phase solve " << result_->solves << ": omega "
            << omega.transpose() << " c " << c_.transpose() << " |h| "
            << h_.norm() << ", " << summary.iterations.size()
            << " Ceres iterations, "
            << ceres::TerminationTypeToString(summary.termination_type);
    return true;
  }

  // The function whose root the S = 2 search finds, decreasing in t:
  // log(c_1 / c_2) when both terms are positive (the usual case, r below
  // the front; nearly linear in t over the front, where c_1 / c_2 ranges
  // over decades), else (c_1 - c_2) / max |c|.
  double Gap() const {
    return c_.minCoeff() > 0.0
               ? std::log(c_[0] / c_[1])
               : (c_[0] - c_[1]) / std::max(c_.cwiseAbs().maxCoeff(), 1e-300);
  }

  // Verifies an end of the front: solves with the weights at the
  // boundary (objective j's minimizer, direction +1 for j = 1, -1 for
  // j = 2). If j's term is still the larger there, that minimizer is the
  // WC point, unless the point is stationary for the other objective too
  // (StationaryForTheOther). If the terms swap, the weighted sums jumped from
  // one end of the front to the other (a concave front: weighted sums only find
  // its ends, which are stationary, spurious KKT points of the WC problem): the
  // phase's point is no start for the Newton loop, which then starts from the
  // user's start instead (result_->used = false).
  void EndOfFront(double direction) {
    const int j = direction > 0.0 ? 1 : 2;
    if (!Solve(OmegaOf(direction * kMaxLogRatio))) return;
    // With equality constraints the check below is not reliable (the
    // augmented Lagrangian's residuals move the point a little either way;
    // measured on the concave-front test): such ends are left to the
    // Newton loop from the start point.
    if (Gap() * direction >= 0.0 && q_ == 0 &&
        !StationaryForTheOther(direction)) {
      result_->at_boundary = true;
      result_->message = "objective " + std::to_string(j) +
                         "'s minimizer has the larger weighted term: an end "
                         "of the front";
      return;
    }
    result_->used = false;
    result_->message =
        "the weights reach the simplex's boundary but the point may be a "
        "spurious end (terms swapped, both objectives stationary, or "
        "equality constraints); the Newton loop starts from the start point";
  }

  // True when result_->z is also stationary for the weighted sum with the
  // weights at the other end (one Levenberg-Marquardt iteration does not
  // lower it): both objectives are stationary there, as at the ends of a
  // concave front on a closed manifold or constraint set, which are KKT
  // points of every WC problem but not its solution.
  bool StationaryForTheOther(double direction) {
    ceres::Solver::Options options = newton_.ceres;
    options.max_num_iterations = 1;
    const Eigen::VectorXd a =
        OmegaOf(-direction * kMaxLogRatio).cwiseProduct(input_.lambda);
    const Eigen::VectorXd shift = result_->nu / mu_;
    Eigen::VectorXd z = result_->z;
    ceres::Solver::Summary summary;
    std::string error;
    if (!evaluator_->SolveWeightedLeastSquares(
            options, a.data(), mu_, shift.data(), z.data(), &summary, &error)) {
      return false;
    }
    return summary.initial_cost - summary.final_cost <=
           1e-8 * std::abs(summary.initial_cost);
  }

  static Eigen::VectorXd OmegaOf(double t) {
    // omega_1 / omega_2 = e^t, omega on the simplex, without overflow.
    Eigen::VectorXd omega(2);
    omega[0] = 1.0 / (1.0 + std::exp(-t));
    omega[1] = 1.0 / (1.0 + std::exp(t));
    return omega;
  }

  // w_ = [lambda_s P^T grad f_s] (tangent coordinates, P the manifold's
  // PlusJacobian) at result_->z, evaluated once per point z.
  bool ObjectiveGradients() {
    if (gradients_current_) return true;
    const int k = evaluator_->NumParameters();
    const int kt = evaluator_->NumTangentParameters();
    Eigen::VectorXd f(S_), h(q_);
    Eigen::MatrixXd grad_f(k, S_);
    std::string error;
    if (!evaluator_->Evaluate(
            result_->z.data(), f.data(), h.data(), grad_f.data(), &error)) {
      return false;
    }
    w_.resize(kt, S_);
    const ceres::Manifold* manifold = evaluator_->manifold();
    for (int s = 0; s < S_; ++s) {
      const Eigen::VectorXd column = input_.lambda[s] * grad_f.col(s);
      if (manifold == nullptr) {
        w_.col(s) = column;
      } else if (!manifold->RightMultiplyByPlusJacobian(
                     result_->z.data(), 1, column.data(), w_.col(s).data())) {
        return false;
      }
    }
    gradients_current_ = true;
    return true;
  }

  // True when result_->z is stationary for sum_s omega_s lambda_s f_s to
  // 1e-3 relative (the phase's own solves stop at a relative cost change
  // of ceres_phase_function_tolerance, far looser). Only without bounds
  // (at a bound the gradient need not vanish) and without equality
  // constraints (the test leaves out J_h^T nu and the feasibility of z).
  bool MinimizesWeightedSum(const Eigen::VectorXd& omega) {
    if (q_ > 0 || evaluator_->HasBounds() || !ObjectiveGradients()) {
      return false;
    }
    double scale = 0.0;
    for (int s = 0; s < S_; ++s) {
      scale = std::max(scale, omega[s] * w_.col(s).norm());
    }
    return scale > 0.0 && (w_ * omega).norm() <= 1e-3 * scale;
  }

  // dg/dt at result_->z (a weighted-sum minimizer) by the implicit
  // function theorem on the Gauss-Newton matrix G of the weighted sum:
  //   G dz/dt = -omega_1 omega_2 (lambda_1 grad f_1 - lambda_2 grad f_2)
  // (tangent coordinates), dc_s/dt = lambda_s grad f_s^T dz/dt. Keeps
  // dz/dt in predictor_ for Predict. False when the evaluator has no
  // Gauss-Newton matrix or a step fails (the secant is used instead).
  bool Sensitivity(const Eigen::VectorXd& omega, double* slope) {
    if (!evaluator_->HasGaussNewtonMatrix() || !ObjectiveGradients()) {
      return false;
    }
    const Eigen::MatrixXd& w = w_;
    std::string error;
    const Eigen::VectorXd a = omega.cwiseProduct(input_.lambda);
    Eigen::SparseMatrix<double> lower;
    if (!evaluator_->GaussNewtonMatrix(a.data(), mu_, &lower, &error)) {
      return false;
    }
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Lower> ldlt(
        lower);
    if (ldlt.info() != Eigen::Success) return false;
    const Eigen::VectorXd rhs = -omega[0] * omega[1] * (w.col(0) - w.col(1));
    const Eigen::VectorXd dz = ldlt.solve(rhs);
    if (ldlt.info() != Eigen::Success || !dz.allFinite()) return false;
    const Eigen::VectorXd dc = w.transpose() * dz;
    *slope = c_.minCoeff() > 0.0
                 ? dc[0] / c_[0] - dc[1] / c_[1]
                 : (dc[0] - dc[1]) / std::max(c_.cwiseAbs().maxCoeff(), 1e-300);
    predictor_ = dz;
    return std::isfinite(*slope);
  }

  // result_->z <- Plus(z, dt dz/dt): the first-order prediction of the
  // next minimizer, the start of the next Ceres solve.
  void Predict(double dt) {
    gradients_current_ = false;
    const ceres::Manifold* manifold = evaluator_->manifold();
    const Eigen::VectorXd step = dt * predictor_;
    if (manifold == nullptr) {
      result_->z += step;
      // The prediction ignores the bounds (the sensitivity treats every
      // component as free); Ceres starts from its projection.
      evaluator_->ProjectOntoBounds(result_->z.data());
      return;
    }
    Eigen::VectorXd z(result_->z.size());
    if (manifold->Plus(result_->z.data(), step.data(), z.data())) {
      result_->z = z;
    }
  }

  void SecantOnLogRatio(const Eigen::VectorXd& omega0) {
    double t = std::max(
        -kMaxLogRatio, std::min(kMaxLogRatio, std::log(omega0[0] / omega0[1])));
    double g = Gap();
    bool have_previous = false, have_low = false, have_high = false;
    double t_previous = 0.0, g_previous = 0.0;
    double t_low = 0.0, t_high = 0.0;  // g(t_low) > 0 > g(t_high)
    while (!Converged()) {
      if (g > 0.0) {
        t_low = t;
        have_low = true;
      } else {
        t_high = t;
        have_high = true;
      }
      const double direction = g > 0.0 ? 1.0 : -1.0;
      double t_new = t + direction;
      double slope = 0.0;
      predictor_.resize(0);
      if (Sensitivity(OmegaOf(t), &slope) && slope < 0.0) {
        t_new = t - g / slope;  // Newton on t
      } else if (have_previous && g != g_previous) {
        t_new = t - g * (t - t_previous) / (g - g_previous);
      }
      if (have_low && have_high) {
        const double lo = std::min(t_low, t_high), hi = std::max(t_low, t_high);
        if (hi - lo < kMinBracket) {
          // g jumps across 0: the weighted-sum minimizers skip this part
          // of the front (non-convex); the Newton loop takes it from here.
          result_->message =
              "the weighted sums jump across the WC point "
              "(a non-convex part of the front)";
          return;
        }
        const double margin = 0.05 * (hi - lo);
        if (!(t_new > lo + margin && t_new < hi - margin)) {
          t_new = 0.5 * (lo + hi);
        }
      } else if (!((t_new - t) * direction > 0.0)) {
        t_new = t + direction;  // the model points the wrong way
      } else if (t * direction < 0.0 && t_new * direction > 0.0) {
        // From the far side (e.g. a warm start at the other end of the
        // front): uniform weights first.
        t_new = 0.0;
      } else if (std::abs(t_new) > kMaxLogRatio) {
        // Even the model's step leaves the simplex on the side where t
        // already is: no equalizing weights, the WC point should minimize
        // objective j (the one with the larger term) alone.
        EndOfFront(direction);
        return;
      } else {
        t_new = t + direction * std::min(kMaxStep, std::abs(t_new - t));
      }
      if (std::abs(t_new) > kMaxLogRatio) {
        EndOfFront(direction);
        return;
      }
      t_previous = t;
      g_previous = g;
      have_previous = true;
      // The linear prediction helps for moderate steps only.
      if (predictor_.size() > 0 && std::abs(t_new - t) <= 2.0) {
        Predict(t_new - t);
      }
      t = t_new;
      if (!Solve(OmegaOf(t))) return;
      g = Gap();
    }
  }

  void MultiplicativeUpdates(Eigen::VectorXd omega) {
    while (!Converged()) {
      const double scale = std::max(c_.cwiseAbs().maxCoeff(), 1e-300);
      const double mean = c_.mean();
      for (int s = 0; s < S_; ++s) {
        omega[s] *= std::exp(2.0 * (c_[s] - mean) / scale);
      }
      omega /= omega.sum();
      if (omega.minCoeff() < 1e-13) {
        result_->at_boundary = true;
        result_->message = "the weights reached the simplex's boundary";
        return;
      }
      if (!Solve(omega)) return;
    }
  }

  const StrategyInput& input_;
  const Solver::Options::NewtonOptions& newton_;
  // The start is a neighbour's point (its weights were given), not the
  // user's start: every solve may stop early.
  bool warm_start_point_ = false;
  Evaluator* evaluator_;
  const int S_, q_;
  CeresPhaseResult* result_;
  Eigen::VectorXd c_, h_;
  Eigen::VectorXd predictor_;  // dz/dt (tangent), or empty
  Eigen::MatrixXd w_;          // ObjectiveGradients at result_->z
  bool gradients_current_ = false;
  double mu_ = 1.0;
};

}  // namespace

void RunCeresPhase(const StrategyInput& input, CeresPhaseResult* result) {
  *result = CeresPhaseResult();
  if (!input.options->newton.ceres_phase) {
    result->message = "newton.ceres_phase is off";
    return;
  }
  if (!input.evaluator->HasWeightedLeastSquaresSolver()) {
    result->message =
        "the evaluator cannot hand weighted least-squares problems to "
        "ceres::Solve";
    return;
  }
  // SolveWeightedLeastSquares poses every constraint row as an equality
  // residual; bounds it keeps (Ceres takes them natively).
  if (input.evaluator->NumInequalityConstraints() > 0) {
    result->message =
        "the problem has inequality constraints, which a least-squares "
        "problem for ceres::Solve cannot pose";
    return;
  }
  CeresPhase(input, result).Run();
}

}  // namespace internal
}  // namespace ecmo
