// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// libFuzzer target: random small ECMO problems (quadratic polynomial
// objectives and constraints with coefficients that may be NaN, Inf or
// huge), random preferences and options, run through every strategy and the
// KKT function. Invariants checked (abort = finding):
//   - Solve returns (no crash, no hang: iteration budgets are small);
//   - CONVERGENCE is never reported with a non-finite ||K||^2, z or F;
//   - a usable summary has finite z;
//   - least-squares multipliers have omega >= 0 and score no worse than
//     omega = 0, nu = 0 when the point is finite.

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "ceres/cost_function.h"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"
#include "ecmo/problem.h"
#include "ecmo/solver.h"
#include "ecmo/types.h"
#include "fuzz_input.h"

namespace {

// r_i(z) = c_i + g_i^T z + z^T H_i z over one parameter block of size k.
class Quadratic final : public ceres::CostFunction {
 public:
  Quadratic(int k, int m, ecmo::fuzz::FuzzInput* in) : k_(k), m_(m) {
    set_num_residuals(m);
    mutable_parameter_block_sizes()->push_back(k);
    c_.resize(m);
    g_.resize(m * k);
    h_.resize(m * k * k);
    for (double& x : c_) x = in->Double();
    for (double& x : g_) x = in->Double();
    for (double& x : h_) x = in->Byte() % 3 == 0 ? in->Double() : 0.0;
  }
  bool Evaluate(double const* const* p, double* r, double** j) const override {
    const double* z = p[0];
    for (int i = 0; i < m_; ++i) {
      double value = c_[i];
      for (int a = 0; a < k_; ++a) {
        value += g_[i * k_ + a] * z[a];
        for (int b = 0; b < k_; ++b) {
          value += h_[(i * k_ + a) * k_ + b] * z[a] * z[b];
        }
      }
      r[i] = value;
      if (j != nullptr && j[0] != nullptr) {
        for (int a = 0; a < k_; ++a) {
          double d = g_[i * k_ + a];
          for (int b = 0; b < k_; ++b) {
            d += (h_[(i * k_ + a) * k_ + b] + h_[(i * k_ + b) * k_ + a]) * z[b];
          }
          j[0][i * k_ + a] = d;
        }
      }
    }
    return true;
  }

 private:
  int k_, m_;
  std::vector<double> c_, g_, h_;
};

bool AllFinite(const Eigen::VectorXd& v) { return v.allFinite(); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ecmo::fuzz::FuzzInput in(data, size);
  const int k = in.Int(1, 4);
  const int S = in.Int(1, 3);
  const int q = in.Int(0, 2);
  std::vector<double> z(k);
  for (double& x : z) x = in.Double();

  ecmo::Problem problem;
  for (int s = 0; s < S; ++s) {
    problem.AddObjective(std::make_unique<Quadratic>(k, 1, &in), {z.data()});
  }
  for (int i = 0; i < q; ++i) {
    problem.AddConstraint(std::make_unique<Quadratic>(k, in.Int(1, 2), &in),
                          {z.data()});
  }
  std::vector<double> preference(in.Int(0, 4));
  for (double& w : preference) w = in.Byte() % 4 == 0 ? in.Double() : 0.0;
  double sum = 0.0;
  for (double& w : preference) {
    if (w == 0.0) w = (in.Byte() % 9 + 1) / 10.0;
    sum += w;
  }
  if (in.Byte() % 2 == 0 && sum != 0.0 && std::isfinite(sum)) {
    for (double& w : preference) w /= sum;
  }

  ecmo::Solver::Options options;
  const std::vector<std::string> names = ecmo::StrategyTypeNames();
  ecmo::StringToStrategyType(names[in.Byte() % names.size()],
                             &options.strategy);
  options.max_iterations = in.Int(-1, 40);
  options.max_solver_time_in_seconds = 2.0;
  options.kkt_tolerance = in.Byte() % 2 ? 0.0 : std::abs(in.Double());
  options.pgd.eta0 = in.Byte() % 2 ? options.pgd.eta0 : in.Double();
  options.automatic_objective_offset = in.Byte() % 2 == 0;
  if (in.Byte() % 3 == 0) {
    options.objective_offset.assign(in.Int(0, 3), in.Double());
  }

  ecmo::Solver::Summary summary;
  ecmo::Solve(options, problem, preference, &summary);
  if (summary.termination_type == ceres::CONVERGENCE) {
    if (!std::isfinite(summary.kkt.with_least_squares_multipliers.SquaredNorm()) ||
        !AllFinite(summary.z) || !AllFinite(summary.objectives)) {
      std::fprintf(stderr, "%s\n", summary.FullReport().c_str());  // why
      std::abort();
    }
  }
  if (summary.IsSolutionUsable() && !AllFinite(summary.z)) std::abort();

  // The KKT function on its own at the (possibly non-finite) start point.
  std::string error;
  if (problem.IsValid(&error) && S >= 1) {
    ecmo::ProblemEvaluator evaluator(&problem);
    Eigen::VectorXd point(k);
    problem.GetParameters(point.data());
    Eigen::VectorXd lambda = Eigen::VectorXd::Constant(S, 1.0 / S);
    ecmo::KktSystem system;
    if (point.allFinite() &&
        system.Linearize(&evaluator, lambda, Eigen::VectorXd(), in.Double(),
                         point, &error)) {
      const ecmo::KktMultipliers ls = system.LeastSquaresMultipliers();
      if (ls.omega.size() != S || (ls.omega.array() < 0.0).any()) std::abort();
      ecmo::KktMultipliers zero;
      zero.omega = Eigen::VectorXd::Zero(S);
      zero.nu = Eigen::VectorXd::Zero(evaluator.NumConstraints());
      const double best = system.Residual(ls).SquaredNorm();
      const double baseline = system.Residual(zero).SquaredNorm();
      if (std::isfinite(baseline) && std::isfinite(best) &&
          best > baseline * (1.0 + 1e-9) + 1e-12) {
        std::abort();
      }
    }
  }
  return 0;
}
