// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The certificate measures at the returned point (ecmo/kkt.h): no rescaling
// of an objective, added constant, rescaling of the parameters or far start
// may turn a non-WC point into a certified one, nor change the verdict.
//
// Every registry problem with an ecmo::Problem, no manifold and at most 40
// parameters is solved with the default strategy and the normalized
// scalarization (the one a sweep uses, invariant under these transforms)
// as posed, and then rewritten:
//
//   f_1 -> 1e6 f_1, f_1 -> 1e-6 f_1, f_1 -> f_1 + 1e3,
//   z -> 1e3 z and z -> 1e-3 z (the problem in z' = z / c),
//   the start moved 1e3 times as far from the solution (quadratic
//   objectives grow 1e6-fold there).
//
// Independent check: every certified point is compared with the registry's
// closed-form WC point of the scalarization it reports (pareto_point with
// the effective weights and offset, mapped back to the problem as posed),
// and the verdict must not change with the transform.

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/problems/registry.h"
#include "ecmo/solver.h"
#include "gtest/gtest.h"
#include "test_problems.h"

namespace ecmo {
namespace {

// f'_s(z') = a_s f_s(c z') + b_s, h'(z') = h(c z'), bounds / c: the same
// problem in other units. Wraps (does not own) `inner`.
class TransformedEvaluator final : public Evaluator {
 public:
  TransformedEvaluator(Evaluator* inner,
                       const Eigen::VectorXd& a,
                       const Eigen::VectorXd& b,
                       double c)
      : inner_(inner), a_(a), b_(b), c_(c), z_(inner->NumParameters()) {
    if (inner->HasBounds()) {
      SetBounds(inner->lower_bounds() / c, inner->upper_bounds() / c);
    }
  }

  int NumParameters() const override { return inner_->NumParameters(); }
  int NumObjectives() const override { return inner_->NumObjectives(); }
  int NumConstraints() const override { return inner_->NumConstraints(); }
  int NumInequalityConstraints() const override {
    return inner_->NumInequalityConstraints();
  }

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string* error) override {
    const int k = NumParameters();
    const int S = NumObjectives();
    z_ = c_ * Eigen::Map<const Eigen::VectorXd>(z, k);
    if (!inner_->Evaluate(z_.data(), f, h, grad_f, error)) return false;
    for (int s = 0; s < S; ++s) {
      f[s] = a_[s] * f[s] + b_[s];
      if (grad_f != nullptr) {
        Eigen::Map<Eigen::VectorXd>(grad_f + s * k, k) *= a_[s] * c_;
      }
    }
    return true;
  }
  void DoJacobianTransposeMultiply(const double* v,
                                   double* out) const override {
    inner_->JacobianTransposeMultiply(v, out);
    Eigen::Map<Eigen::VectorXd>(out, NumParameters()) *= c_;
  }
  void DoJacobianMultiply(const double* x, double* out) const override {
    Eigen::VectorXd scaled =
        c_ * Eigen::Map<const Eigen::VectorXd>(x, NumParameters());
    inner_->JacobianMultiply(scaled.data(), out);
  }

 private:
  Evaluator* inner_;
  Eigen::VectorXd a_, b_;
  double c_;
  Eigen::VectorXd z_;
};

struct Transform {
  std::string name;
  double a1 = 1.0;    // factor on f_1
  double b1 = 0.0;    // constant added to f_1
  double c = 1.0;     // z = c z'
  double far = 0.0;   // start moved to z* + far (z0 - z*) when > 0
};

struct Outcome {
  bool certified = false;
  Eigen::VectorXd f;  // objectives of the problem as posed
  double distance_to_exact = NAN;  // max_s |f_s - f_exact,s| / range_s
  std::string message;
};

// Solves `info` at `preference` through the transform, from `start` (in
// the problem's own coordinates), and compares a certified point with the
// closed form.
Outcome SolveTransformed(const problems::ProblemInfo& info,
                         const Transform& t,
                         const Eigen::VectorXd& start,
                         const std::vector<double>& preference) {
  Outcome out;
  auto instance = info.build();
  ProblemEvaluator base(&instance->problem);
  const int S = info.num_objectives;
  Eigen::VectorXd a = Eigen::VectorXd::Ones(S), b = Eigen::VectorXd::Zero(S);
  a[0] = t.a1;
  b[0] = t.b1;
  TransformedEvaluator evaluator(&base, a, b, t.c);
  Solver::Options options;
  options.normalize_objectives = true;
  Eigen::VectorXd z = start / t.c;
  Solver::Summary summary;
  Solve(options, &evaluator, preference, &z, &summary);
  out.message = summary.message;
  out.certified = summary.IsCertified(options);
  if (!summary.IsSolutionUsable()) return out;
  const Eigen::VectorXd z_posed = t.c * z;
  Eigen::VectorXd f(S), h(base.NumConstraints());
  std::string error;
  if (!base.Evaluate(z_posed.data(), f.data(), h.data(), nullptr, &error)) {
    return out;
  }
  out.f = f;
  // The scalarization the solve reports, in the problem as posed:
  // lambda_s (f'_s - r'_s) / w'_s = (lambda_s a_s / w'_s) (f_s - (r'_s -
  // b_s) / a_s).
  const Scalarization& sc = summary.scalarization;
  Eigen::VectorXd lambda(S), offset(S), range(S);
  double sum = 0.0;
  for (double l : preference) sum += l;
  for (int s = 0; s < S; ++s) {
    lambda[s] = preference[s] / sum * a[s] / sc.objective_scale[s];
    offset[s] = -(sc.reference_point[s] - b[s]) / a[s];
    range[s] = sc.objective_scale[s] / a[s];
  }
  const Eigen::VectorXd z_exact = info.pareto_point(lambda, offset);
  Eigen::VectorXd f_exact(S), h_exact(base.NumConstraints());
  if (!base.Evaluate(
          z_exact.data(), f_exact.data(), h_exact.data(), nullptr, &error)) {
    return out;
  }
  out.distance_to_exact =
      (f - f_exact).cwiseAbs().cwiseQuotient(range).maxCoeff();
  return out;
}

TEST(CertificateInvariance, RegistryVerdictsAndPointsSurviveRescaling) {
  const std::vector<Transform> transforms = {
      {"f_1 * 1e6", 1e6, 0.0, 1.0, 0.0},
      {"f_1 * 1e-6", 1e-6, 0.0, 1.0, 0.0},
      {"f_1 + 1e3", 1.0, 1e3, 1.0, 0.0},
      {"z = 1e3 z'", 1.0, 0.0, 1e3, 0.0},
      {"z = 1e-3 z'", 1.0, 0.0, 1e-3, 0.0},
      {"start 1e3 times as far", 1.0, 0.0, 1.0, 1e3},
  };
  int problems_run = 0;
  int certified_points = 0;
  for (const problems::ProblemInfo& info : problems::AllProblems()) {
    if (!info.has_problem() || info.num_parameters > 40 || !info.pareto_point) {
      continue;
    }
    {
      auto probe = info.build();
      ProblemEvaluator evaluator(&probe->problem);
      if (evaluator.manifold() != nullptr) continue;
    }
    SCOPED_TRACE(info.name);
    ++problems_run;
    auto instance = info.build();
    const Eigen::VectorXd start = instance->start;
    const std::vector<double> preference =
        testing::RegistryPreference(0.3, info.num_objectives);
    const Outcome posed = SolveTransformed(info, Transform(), start, preference);
    if (posed.certified) {
      ++certified_points;
      EXPECT_LT(posed.distance_to_exact, 1e-5) << posed.message;
    }
    for (const Transform& t : transforms) {
      SCOPED_TRACE(t.name);
      Eigen::VectorXd from = start;
      if (t.far > 0.0 && posed.f.size() > 0) {
        // z* from the posed solve: solve again to read it back.
        auto again = info.build();
        ProblemEvaluator evaluator(&again->problem);
        Solver::Options options;
        options.normalize_objectives = true;
        Eigen::VectorXd z = start;
        Solver::Summary summary;
        Solve(options, &evaluator, preference, &z, &summary);
        from = z + t.far * (start - z);
      }
      const Outcome o = SolveTransformed(info, t, from, preference);
      // No false certificate, whatever the units or the start.
      if (o.certified) {
        ++certified_points;
        EXPECT_LT(o.distance_to_exact, 1e-5) << o.message;
      }
      // The verdict does not depend on the transform.
      EXPECT_EQ(o.certified, posed.certified) << o.message;
    }
  }
  EXPECT_GE(problems_run, 5);
  EXPECT_GT(certified_points, 0);
}

}  // namespace
}  // namespace ecmo
