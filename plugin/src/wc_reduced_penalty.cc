// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/wc_reduced_penalty.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "ecmo/manifold.h"

namespace ecmo {

WcReducedPenalty::WcReducedPenalty(Evaluator* evaluator,
                                   const Eigen::VectorXd& lambda,
                                   const Eigen::VectorXd& offset)
    : evaluator_(evaluator),
      manifold_(evaluator->manifold()),
      k_(evaluator->NumParameters()),
      S_(evaluator->NumObjectives()),
      q_(evaluator->NumConstraints()),
      p_(evaluator->NumInequalityConstraints()),
      lambda_(lambda),
      offset_(offset.size() == lambda.size()
                  ? offset
                  : Eigen::VectorXd::Zero(lambda.size())),
      omega_shift_(Eigen::VectorXd::Zero(S_)),
      nu_shift_(Eigen::VectorXd::Zero(q_)),
      f_(S_),
      h_(q_),
      omega_plus_(S_),
      nu_plus_(q_),
      weights_(S_),
      jt_(k_),
      tangent_(manifold_ != nullptr ? manifold_->TangentSize() : 0),
      grad_f_(k_, S_),
      last_x_(1 + k_),
      history_(kHistory) {
  // NaN costs never match a lookup.
  for (Point& p : history_) p.cost = std::numeric_limits<double>::quiet_NaN();
}

void WcReducedPenalty::Reset(const Eigen::VectorXd& lambda,
                             const Eigen::VectorXd& offset) {
  lambda_ = lambda;
  if (offset.size() == lambda.size()) {
    offset_ = offset;
  } else {
    offset_.setZero(lambda.size());
  }
  u_ = 1.0;
  v_ = 1.0;
  omega_shift_.setZero(S_);
  nu_shift_.setZero(q_);
  last_valid_ = false;
  last_point_ = Point();
  for (Point& p : history_) p.cost = std::numeric_limits<double>::quiet_NaN();
  history_next_ = 0;
  last_error_.clear();
}

void WcReducedPenalty::SetPenalties(double u, double v) {
  u_ = u;
  v_ = v;
  last_valid_ = false;
}

bool WcReducedPenalty::SetMultiplierShifts(const Eigen::VectorXd& omega,
                                           const Eigen::VectorXd& nu) {
  if (omega.size() != S_ || nu.size() != q_) return false;
  omega_shift_ = omega;
  nu_shift_ = nu;
  last_valid_ = false;
  return true;
}

bool WcReducedPenalty::Evaluate(const double* x,
                                double* cost,
                                double* gradient) const {
  last_valid_ = false;
  if (!EvaluateProblem(x + 1, gradient != nullptr)) return false;
  return Assemble(x, cost, gradient);
}

bool WcReducedPenalty::EvaluateAtBestRho(double* x,
                                         double* cost,
                                         double* gradient) const {
  last_valid_ = false;
  if (!EvaluateProblem(x + 1, gradient != nullptr)) return false;
  x[0] = MinimizeOverRho(lambda_.cwiseProduct(f_) + omega_shift_ / v_, v_);
  return Assemble(x, cost, gradient);
}

bool WcReducedPenalty::EvaluateProblem(const double* z,
                                       bool with_gradient) const {
  if (!evaluator_->Evaluate(z,
                            f_.data(),
                            h_.data(),
                            with_gradient ? grad_f_.data() : nullptr,
                            &last_error_)) {
    return false;
  }
  f_ += offset_;
  return true;
}

double WcReducedPenalty::MinimizeOverRho(const Eigen::VectorXd& c, double v) {
  std::vector<double> sorted(c.data(), c.data() + c.size());
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  const int n = static_cast<int>(sorted.size());
  double sum = 0.0;
  double rho = sorted[0] - 1.0 / v;
  for (int m = 1; m <= n; ++m) {
    sum += sorted[m - 1];
    rho = (sum - 1.0 / v) / m;
    if (m == n || rho >= sorted[m]) break;
  }
  return rho;
}

bool WcReducedPenalty::Assemble(const double* x,
                                double* cost,
                                double* gradient) const {
  const double rho = x[0];
  const double* z = x + 1;
  Point point;
  point.rho = rho;
  double value = rho;
  double complementarity_sq = 0.0;
  double scaled_complementarity = 0.0;
  // The certificate's value scale D (ecmo/kkt.h) at this point.
  double value_scale = std::abs(rho);
  for (int s = 0; s < S_; ++s) {
    value_scale = std::max(value_scale, std::abs(lambda_[s] * f_[s]));
  }
  auto relative = [value_scale](double x) {
    return value_scale > 0.0 ? x / value_scale : x;
  };
  for (int s = 0; s < S_; ++s) {
    const double shift = omega_shift_[s] / v_;
    const double m = std::max(0.0, lambda_[s] * f_[s] - rho + shift);
    value += 0.5 * v_ * (m * m - shift * shift);
    omega_plus_[s] = v_ * m;
    const double slack = rho - lambda_[s] * f_[s];
    const double c = std::min(omega_plus_[s], slack);
    complementarity_sq += c * c;
    scaled_complementarity =
        std::max(scaled_complementarity,
                 std::abs(std::min(omega_plus_[s], relative(slack))));
  }
  // Equalities: nu^T h + u/2 ||h||^2. Inequalities c <= 0, slack
  // eliminated like the WC ones: u/2 [max(0, c + nu/u)^2 - (nu/u)^2], with
  // the multiplier nu+ = u max(0, c + nu/u) >= 0 and the KKT entry
  // min(nu+, -c) counted with the equalities' residual (both are what the
  // outer multiplier updates drive to zero).
  const int qe = q_ - p_;
  double h_sq = 0.0;
  double feasibility_inf = 0.0;
  if (qe > 0) {
    const auto h = h_.head(qe);
    h_sq = h.squaredNorm();
    value += nu_shift_.head(qe).dot(h) + 0.5 * u_ * h_sq;
    nu_plus_.head(qe) = nu_shift_.head(qe) + u_ * h;
    feasibility_inf = h.cwiseAbs().maxCoeff();
  }
  for (int i = qe; i < q_; ++i) {
    const double shift = nu_shift_[i] / u_;
    const double t = std::max(0.0, h_[i] + shift);
    value += 0.5 * u_ * (t * t - shift * shift);
    nu_plus_[i] = u_ * t;
    const double c = std::min(nu_plus_[i], -h_[i]);
    h_sq += c * c;
    feasibility_inf = std::max(
        feasibility_inf, std::abs(std::min(relative(nu_plus_[i]), -h_[i])));
  }
  if (!std::isfinite(value)) {
    last_error_ = "the penalty function is not finite";
    return false;
  }
  point.cost = value;
  point.feasibility_sq = h_sq;
  point.complementarity_sq = complementarity_sq;
  point.certificate.simplex = std::abs(1.0 - omega_plus_.sum());
  point.certificate.complementarity = scaled_complementarity;
  point.certificate.feasibility = feasibility_inf;

  if (gradient != nullptr) {
    gradient[0] = 1.0 - omega_plus_.sum();
    Eigen::Map<Eigen::VectorXd> gz(gradient + 1, k_);
    weights_ = lambda_.cwiseProduct(omega_plus_);
    gz.noalias() = grad_f_ * weights_;
    // The certificate's stationarity scale T: the largest single term
    // (ambient components; the final verdict takes tangent ones).
    double term_scale = 0.0;
    for (int s = 0; s < S_; ++s) {
      term_scale = std::max(term_scale, std::abs(weights_[s]) *
                                            grad_f_.col(s).lpNorm<Eigen::Infinity>());
    }
    if (q_ > 0) {
      evaluator_->JacobianTransposeMultiply(nu_plus_.data(), jt_.data());
      gz += jt_;
      term_scale = std::max(term_scale, jt_.lpNorm<Eigen::Infinity>());
    }
    auto relative_stationarity = [term_scale](double x) {
      if (term_scale > 0.0) return x / term_scale;
      return x == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
    };
    if (manifold_ == nullptr && evaluator_->HasBounds()) {
      // The projected gradient z - P(z - grad): a component pushed
      // outwards counts only its distance to the bound, so one held at its
      // bound is stationary and one short of it is not. This is the KKT
      // entry with the credited bound multipliers (ecmo::BoundMultiplier)
      // summed over stationarity and bound complementarity, all in the
      // block the inner solve owns: counting min(force, distance) as
      // feasibility would tell the outer loop to raise the penalty for a
      // component the inner solve simply has not moved to its bound yet.
      const Eigen::VectorXd& lower = evaluator_->lower_bounds();
      const Eigen::VectorXd& upper = evaluator_->upper_bounds();
      double stationarity_sq = 0.0, stationarity_inf = 0.0;
      for (int i = 0; i < k_; ++i) {
        const double g = gz[i];
        const double r = g > 0.0 ? std::min(g, z[i] - lower[i])
                                 : std::max(g, z[i] - upper[i]);
        stationarity_sq += r * r;
        stationarity_inf = std::max(stationarity_inf, std::abs(r));
      }
      point.gradient_sq = gradient[0] * gradient[0] + stationarity_sq;
      point.certificate.stationarity = relative_stationarity(stationarity_inf);
    } else if (manifold_ == nullptr) {
      point.gradient_sq = gradient[0] * gradient[0] + gz.squaredNorm();
      point.certificate.stationarity =
          k_ > 0 ? relative_stationarity(gz.cwiseAbs().maxCoeff()) : 0.0;
    } else {
      if (!manifold_->RightMultiplyByPlusJacobian(
              z, 1, gradient + 1, tangent_.data())) {
        last_error_ = "the manifold failed to project the gradient";
        return false;
      }
      point.gradient_sq = gradient[0] * gradient[0] + tangent_.squaredNorm();
      point.certificate.stationarity =
          tangent_.size() > 0
              ? relative_stationarity(tangent_.cwiseAbs().maxCoeff())
              : 0.0;
    }
    if (!std::isfinite(point.gradient_sq)) {
      last_error_ = "the penalty gradient is not finite";
      return false;
    }
  }
  *cost = value;

  std::memcpy(last_x_.data(), x, sizeof(double) * (1 + k_));
  last_point_ = point;
  last_valid_ = true;
  history_[history_next_] = point;
  history_next_ = (history_next_ + 1) % kHistory;
  return true;
}

ceres::Manifold* WcReducedPenalty::TangentManifold() const {
  if (manifold_ == nullptr) return nullptr;
  return new DynamicProductManifold({{1, nullptr}, {k_, manifold_}});
}

bool WcReducedPenalty::FindPoint(double cost,
                                 bool need_gradient,
                                 Point* point) const {
  for (int i = 1; i <= kHistory; ++i) {
    const Point& p = history_[(history_next_ - i + kHistory) % kHistory];
    if (p.cost == cost && (!need_gradient || p.gradient_sq >= 0.0)) {
      *point = p;
      return true;
    }
  }
  return false;
}

bool WcReducedPenalty::MultipliersAt(const double* x,
                                     KktMultipliers* multipliers,
                                     Point* point) const {
  if (!(last_valid_ &&
        std::memcmp(last_x_.data(), x, sizeof(double) * (1 + k_)) == 0)) {
    double cost;
    if (!Evaluate(x, &cost, nullptr)) return false;
  }
  // Copied in place: the caller's vectors keep their storage across
  // outer iterations.
  multipliers->omega = omega_plus_;
  if (q_ > 0) {
    multipliers->nu = nu_plus_;
  } else {
    multipliers->nu.resize(0);
  }
  *point = last_point_;
  return true;
}

}  // namespace ecmo
