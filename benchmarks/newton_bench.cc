// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: second-order strategies (wc-newton, wc-sqp) against the
// first-order ones (wc-augmented-lagrangian, the default, and
// wc-penalty-lbfgs) and exact-Hessian Ipopt on an ill-conditioned family,
// in one run.
//
// Rosenbrock-type family with one nonlinear equality, z in R^k:
//
//   f_1(z) = sum_{i<k-1} 100 (z_{i+1} - z_i^2)^2 + (1 - z_i)^2,
//   f_2(z) = sum_i (z_i + 1)^2,
//   h(z)   = ||z||^2 - k/2,
//
// reference point r = 0 (both objectives are nonnegative), start
// z0 = (0.5, ..., 0.5) (infeasible). The evaluator computes values,
// gradients and J_h products analytically (O(k)), and, in the rows marked
// "exact", the Hessian-of-the-Lagrangian products too (f_1's Hessian is
// tridiagonal); the rows marked "differences" use the library's default
// gradient differences. Columns: points certified out of the preferences
// run, median gradient evaluations, median Hessian products, median
// gradient-equivalent evaluations (gradients + Hessian products; an exact
// product costs about one gradient here), median Newton/L-BFGS inner
// iterations (for Ipopt: its iterations; its products are the k columns
// of the dense exact Hessian per iteration), median wall time per point,
// and its ratio to the default's.
//
//   newton_bench [--max_k=1000] [--only=NAME]  (rows whose name contains
//                                               NAME; the default's row is
//                                               always run as the time base)
//   newton_bench --smoke   (CTest: k = 10; exits 1 unless every wc-newton
//                           and wc-sqp point is certified)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/ipopt_reference.h"
#include "ecmo/solver.h"
#include "median.h"

namespace {

using ecmo_bench::Median;

class RosenbrockFamily final : public ecmo::Evaluator {
 public:
  RosenbrockFamily(int k, bool exact_hessian)
      : k_(k), exact_hessian_(exact_hessian) {}
  int NumParameters() const override { return k_; }
  int NumObjectives() const override { return 2; }
  int NumConstraints() const override { return 1; }
  bool HasExactLagrangianHessian() const override { return exact_hessian_; }

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string* /*error*/) override {
    double f1 = 0.0, f2 = 0.0, norm_sq = 0.0;
    if (grad_f != nullptr) std::memset(grad_f, 0, sizeof(double) * 2 * k_);
    for (int i = 0; i < k_; ++i) {
      f2 += (z[i] + 1.0) * (z[i] + 1.0);
      norm_sq += z[i] * z[i];
      if (grad_f != nullptr) grad_f[k_ + i] = 2.0 * (z[i] + 1.0);
      if (i + 1 < k_) {
        const double a = z[i + 1] - z[i] * z[i];
        f1 += 100.0 * a * a + (1.0 - z[i]) * (1.0 - z[i]);
        if (grad_f != nullptr) {
          grad_f[i] += -400.0 * a * z[i] - 2.0 * (1.0 - z[i]);
          grad_f[i + 1] += 200.0 * a;
        }
      }
    }
    f[0] = f1;
    f[1] = f2;
    h[0] = norm_sq - 0.5 * k_;
    if (grad_f != nullptr) z_.assign(z, z + k_);
    return true;
  }
  void DoJacobianTransposeMultiply(const double* v,
                                   double* out) const override {
    for (int i = 0; i < k_; ++i) out[i] = 2.0 * z_[i] * v[0];
  }
  void DoJacobianMultiply(const double* x, double* out) const override {
    double sum = 0.0;
    for (int i = 0; i < k_; ++i) sum += 2.0 * z_[i] * x[i];
    out[0] = sum;
  }
  bool DoLagrangianHessianMultiply(const double* a,
                                   const double* b,
                                   const double* x,
                                   double* out,
                                   std::string* error) override {
    if (!exact_hessian_) {
      return Evaluator::DoLagrangianHessianMultiply(a, b, x, out, error);
    }
    const double diagonal = 2.0 * a[1] + 2.0 * b[0];
    for (int i = 0; i < k_; ++i) out[i] = diagonal * x[i];
    for (int i = 0; i + 1 < k_; ++i) {
      const double r = z_[i + 1] - z_[i] * z_[i];
      const double g = -2.0 * z_[i] * x[i] + x[i + 1];
      out[i] +=
          a[0] * (200.0 * (-2.0 * z_[i]) * g - 400.0 * r * x[i] + 2.0 * x[i]);
      out[i + 1] += a[0] * 200.0 * g;
    }
    return true;
  }

 private:
  int k_;
  bool exact_hessian_;
  std::vector<double> z_;
};

struct Row {
  int certified = 0;
  int points = 0;
  std::vector<double> gradients, products, equivalents, inner, seconds;
};

// One point's figures, as a solver reports them.
struct PointResult {
  bool certified = false;
  double gradients = 0.0, products = 0.0, inner = 0.0;
};

// The three preferences from the same start; `solve` runs one point.
Row RunPoints(int k,
              bool exact,
              const std::function<PointResult(RosenbrockFamily*,
                                              const std::vector<double>&,
                                              Eigen::VectorXd*)>& solve) {
  Row row;
  for (double l1 : {0.2, 0.5, 0.8}) {
    RosenbrockFamily evaluator(k, exact);
    Eigen::VectorXd z = Eigen::VectorXd::Constant(k, 0.5);
    const auto start = std::chrono::steady_clock::now();
    const PointResult point = solve(&evaluator, {l1, 1.0 - l1}, &z);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    ++row.points;
    if (point.certified) ++row.certified;
    row.gradients.push_back(point.gradients);
    row.products.push_back(point.products);
    row.equivalents.push_back(point.gradients + (exact ? point.products : 0.0));
    row.inner.push_back(point.inner);
    row.seconds.push_back(seconds);
  }
  return row;
}

Row Run(int k, ecmo::StrategyType strategy, bool exact) {
  return RunPoints(k,
                   exact,
                   [strategy, exact](RosenbrockFamily* evaluator,
                                     const std::vector<double>& preference,
                                     Eigen::VectorXd* z) {
                     ecmo::Solver::Options options;
                     options.strategy = strategy;
                     // wc-sqp: BFGS in the "differences" rows (exact
                     // products by gradient differences would cost 2k
                     // gradients per iteration).
                     options.sqp.hessian =
                         exact ? ecmo::SqpHessianType::EXACT_PRODUCTS
                               : ecmo::SqpHessianType::BFGS;
                     options.reference_point = {0.0, 0.0};
                     options.max_iterations = 100000;
                     ecmo::Solver::Summary summary;
                     ecmo::Solve(options, evaluator, preference, z, &summary);
                     PointResult point;
                     point.certified =
                         summary.termination_type == ceres::CONVERGENCE;
                     point.gradients = summary.evaluations.gradient_evaluations;
                     point.products = summary.evaluations.hessian_products;
                     point.inner = summary.inner_iterations;
                     return point;
                   });
}

// The reference: Ipopt with exact Hessians of the Lagrangian (the
// evaluator's products, one per column: the dense pattern), same start and
// scalarization. "inner" holds Ipopt's iterations.
Row RunIpopt(int k) {
  return RunPoints(k,
                   true,
                   [](RosenbrockFamily* evaluator,
                      const std::vector<double>& preference,
                      Eigen::VectorXd* z) {
                     ecmo::IpoptReference::Options options;
                     options.hessian = ecmo::IpoptReference::HessianType::EXACT;
                     options.reference_point = {0.0, 0.0};
                     ecmo::IpoptReference::Summary summary;
                     ecmo::Solve(options, evaluator, preference, z, &summary);
                     PointResult point;
                     point.certified =
                         summary.termination_type == ceres::CONVERGENCE;
                     point.gradients = summary.evaluations.gradient_evaluations;
                     point.products = summary.hessian_products;
                     point.inner = summary.iterations;
                     return point;
                   });
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = false;
  int max_k = 1000;
  std::string only;  // run only the rows whose name contains this
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else if (std::strncmp(argv[i], "--max_k=", 8) == 0) {
      max_k = std::atoi(argv[i] + 8);
    } else if (std::strncmp(argv[i], "--only=", 7) == 0) {
      only = argv[i] + 7;
    } else {
      std::fprintf(stderr,
                   "newton_bench: unknown argument '%s' (use --smoke, "
                   "--max_k=N or --only=NAME)\n",
                   argv[i]);
      return 2;
    }
  }
  std::vector<int> sizes = {10};
  if (!smoke) {
    for (int k : {100, 1000, 10000}) {
      if (k <= max_k) sizes.push_back(k);
    }
  }
  std::printf(
      "Rosenbrock family with ||z||^2 = k/2, preferences 0.2/0.5/0.8, r = 0, "
      "medians per point\n");
  std::printf("%6s %-34s %9s %9s %9s %9s %7s %10s %8s\n",
              "k",
              "strategy",
              "certified",
              "grad_ev",
              "hess_prod",
              "grad_eq",
              "inner",
              "ms/point",
              "time/AL");
  bool ok = true;
  for (int k : sizes) {
    // The default's row is the time base of every other row.
    const Row al = Run(k, ecmo::StrategyType::WC_AUGMENTED_LAGRANGIAN, false);
    const double al_ms = 1e3 * Median(al.seconds);
    struct Config {
      const char* name;
      ecmo::StrategyType strategy;
      bool exact;
    };
    for (const Config& c :
         {Config{"wc-augmented-lagrangian",
                 ecmo::StrategyType::WC_AUGMENTED_LAGRANGIAN,
                 false},
          Config{
              "wc-penalty-lbfgs", ecmo::StrategyType::WC_PENALTY_LBFGS, false},
          Config{"wc-newton (exact products)",
                 ecmo::StrategyType::WC_NEWTON,
                 true},
          Config{"wc-newton (gradient differences)",
                 ecmo::StrategyType::WC_NEWTON,
                 false},
          Config{"wc-sqp (exact products)", ecmo::StrategyType::WC_SQP, true},
          Config{"wc-sqp (BFGS)", ecmo::StrategyType::WC_SQP, false},
          Config{
              "ipopt (exact Hessian)", ecmo::StrategyType::WC_NEWTON, true}}) {
      const bool ipopt = std::strncmp(c.name, "ipopt", 5) == 0;
      if (!only.empty() &&
          std::string(c.name).find(only) == std::string::npos) {
        continue;
      }
      // Dense BFGS needs about k iterations on this family at O(k^3) each
      // (973 at k = 100): not run beyond.
      if (c.strategy == ecmo::StrategyType::WC_SQP && !c.exact && k > 100) {
        continue;
      }
      if (smoke &&
          (ipopt || c.strategy == ecmo::StrategyType::WC_PENALTY_LBFGS)) {
        continue;
      }
      const Row row =
          ipopt ? RunIpopt(k)
          : c.strategy == ecmo::StrategyType::WC_AUGMENTED_LAGRANGIAN
              ? al
              : Run(k, c.strategy, c.exact);
      const double ms = 1e3 * Median(row.seconds);
      std::printf("%6d %-34s %6d/%-2d %9.0f %9.0f %9.0f %7.0f %10.3f %8.2f\n",
                  k,
                  c.name,
                  row.certified,
                  row.points,
                  Median(row.gradients),
                  Median(row.products),
                  Median(row.equivalents),
                  Median(row.inner),
                  ms,
                  ms / al_ms);
      if (!ipopt &&
          (c.strategy == ecmo::StrategyType::WC_NEWTON ||
           c.strategy == ecmo::StrategyType::WC_SQP) &&
          row.certified != row.points) {
        ok = false;
      }
    }
  }
  if (smoke && !ok) {
    std::fprintf(stderr,
                 "newton_bench: a wc-newton or wc-sqp point was not "
                 "certified\n");
    return 1;
  }
  return 0;
}
