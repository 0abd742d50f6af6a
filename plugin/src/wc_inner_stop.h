// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: when the inner L-BFGS solves of the quasi-Newton WC
// strategies (wc_quasi_newton.cc) stop, from the KKT record that
// WcReducedPenalty keeps for every accepted iterate.

#ifndef ECMO_INTERNAL_WC_INNER_STOP_H_
#define ECMO_INTERNAL_WC_INNER_STOP_H_

#include <algorithm>
#include <cmath>

#include "ceres/iteration_callback.h"
#include "ecmo/wc_reduced_penalty.h"
#include "strategy.h"

namespace ecmo {
namespace internal {

// Whether a recorded point meets the stopping rule.
inline bool PointMeets(const StopRule& stop, const WcReducedPenalty::Point& point) {
  if (point.gradient_sq < 0.0) return false;
  return stop.Met(point.KktSq(), point.certificate);
}

// Whether a recorded point is close enough to the rule that the
// least-squares multipliers may certify it (StopRule::IsClose).
inline bool PointIsClose(const StopRule& stop,
                         const WcReducedPenalty::Point& point,
                         double factor) {
  return stop.IsClose(point.KktSq(), point.certificate, factor);
}

class InnerStop final : public ceres::IterationCallback {
 public:
  InnerStop(const WcReducedPenalty* function,
            const StrategyInput* input,
            double raw_tolerance,
            double factor)
      : function_(function),
        input_(input),
        raw_tolerance_(raw_tolerance),
        factor_(factor) {}

  ceres::CallbackReturnType operator()(
      const ceres::IterationSummary& summary) override {
    WcReducedPenalty::Point point;
    if (!function_->FindPoint(summary.cost, true, &point)) {
      return ceres::SOLVER_CONTINUE;
    }
    if (PointMeets(input_->stop, point)) {
      return ceres::SOLVER_TERMINATE_SUCCESSFULLY;
    }
    if (IsUnboundedEvidence(*input_, point.rho,
                            point.certificate.feasibility)) {
      unbounded_ = true;
      return ceres::SOLVER_TERMINATE_SUCCESSFULLY;
    }
    const double outer_part = point.feasibility_sq + point.complementarity_sq;
    if (point.gradient_sq <=
        std::max(factor_ * outer_part, 0.5 * raw_tolerance_)) {
      return ceres::SOLVER_TERMINATE_SUCCESSFULLY;
    }
    // Certificate: the inner solve owns the simplex and stationarity
    // blocks; once both meet half the tolerance only the outer loop can
    // help.
    if (!input_->stop.absolute &&
        point.certificate.simplex <=
            0.5 * input_->stop.stationarity_tolerance &&
        point.certificate.stationarity <=
            0.5 * input_->stop.stationarity_tolerance) {
      return ceres::SOLVER_TERMINATE_SUCCESSFULLY;
    }
    return ceres::SOLVER_CONTINUE;
  }

  void Reset() {
    unbounded_ = false;
  }
  bool unbounded() const { return unbounded_; }

 private:
  const WcReducedPenalty* function_;
  const StrategyInput* input_;
  double raw_tolerance_;
  double factor_;
  bool unbounded_ = false;
};

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_WC_INNER_STOP_H_
