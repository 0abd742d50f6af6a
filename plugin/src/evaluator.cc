// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/evaluator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <sstream>
#include <utility>
#include <vector>

#include "ecmo/internal/report.h"
#include "ecmo/manifold.h"
#include "ecmo/problem.h"
#include "scalarization_cache.h"
#include "solve_workspace.h"

namespace ecmo {

using internal::AllFinite;

Evaluator::Evaluator() = default;
Evaluator::~Evaluator() = default;

internal::SolveWorkspace* Evaluator::workspace() {
  if (workspace_ == nullptr) {
    workspace_ = std::make_unique<internal::SolveWorkspace>();
  }
  return workspace_.get();
}

internal::SparseLdlt* Evaluator::gauss_newton_factorization() {
  return &workspace()->gauss_newton;
}

internal::ScalarizationCache* Evaluator::scalarization_cache() {
  if (scalarization_cache_ == nullptr) {
    scalarization_cache_ = std::make_shared<internal::ScalarizationCache>();
  }
  return scalarization_cache_.get();
}

void Evaluator::ForgetScalarization() {
  if (scalarization_cache_ != nullptr) scalarization_cache_->Clear();
}

void Evaluator::ShareScalarizationCache(
    std::shared_ptr<internal::ScalarizationCache> cache) {
  scalarization_cache_ = std::move(cache);
}

namespace {

// Calls `body` (a user's evaluator or cost function underneath) and turns
// an exception into false with a message: Solve and Sweep never throw, and
// a cost function that throws is a failed evaluation like one that
// returns false. std::bad_alloc passes: running out of memory says nothing
// about the point (a sweep hands the point to another thread).
template <typename Body>
bool CallUserCode(const char* what, std::string* error, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is not the cost function's answer
  } catch (const std::exception& e) {
    if (error != nullptr) {
      *error = std::string(what) + " threw an exception: " + e.what();
    }
  } catch (...) {
    if (error != nullptr) {
      *error = std::string(what) + " threw an exception (not a std::exception)";
    }
  }
  return false;
}

}  // namespace

bool Evaluator::Evaluate(
    const double* z, double* f, double* h, double* grad_f, std::string* error) {
  ++counts_.value_evaluations;
  if (grad_f != nullptr) ++counts_.gradient_evaluations;
  bool ok = CallUserCode("the evaluator (a cost function)", error, [&] {
    return DoEvaluate(z, f, h, grad_f, error);
  });
  // Evaluators should refuse non-finite values themselves; a user's own
  // evaluator that does not is caught here, so that no strategy sees them.
  if (ok && !(Eigen::Map<const Eigen::VectorXd>(f, NumObjectives())
                  .allFinite() &&
              (h == nullptr ||
               Eigen::Map<const Eigen::VectorXd>(h, NumConstraints())
                   .allFinite()))) {
    ok = false;
    if (error != nullptr) {
      *error = "the evaluator returned a non-finite objective or constraint "
               "value";
    }
  }
  if (!ok) ++counts_.failed_evaluations;
  if (grad_f != nullptr) {
    if (ok) {
      linearization_point_ =
          Eigen::Map<const Eigen::VectorXd>(z, NumParameters());
    } else {
      linearization_point_.resize(0);
    }
  }
  return ok;
}

std::string Evaluator::ObjectiveName(int s) const {
  return "f_" + std::to_string(s + 1);
}

bool Evaluator::LagrangianHessianMultiply(const double* a,
                                          const double* b,
                                          const double* x,
                                          double* out,
                                          std::string* error) {
  ++counts_.hessian_products;
  return CallUserCode("the evaluator's Hessian product", error, [&] {
    return DoLagrangianHessianMultiply(a, b, x, out, error);
  });
}

bool Evaluator::GaussNewtonMatrix(const double* a,
                                  double c,
                                  Eigen::SparseMatrix<double>* lower,
                                  std::string* error) {
  row_weights_.assign(NumConstraints(), c);
  return GaussNewtonMatrix(a, row_weights_.data(), lower, error);
}

bool Evaluator::GaussNewtonMatrix(const double* a,
                                  const double* c,
                                  Eigen::SparseMatrix<double>* lower,
                                  std::string* error) {
  ++counts_.gauss_newton_matrices;
  return CallUserCode("the evaluator's Gauss-Newton matrix", error, [&] {
    return DoGaussNewtonMatrix(a, c, lower, error);
  });
}

bool Evaluator::DoGaussNewtonMatrix(const double* /*a*/,
                                    const double* /*c*/,
                                    Eigen::SparseMatrix<double>* /*lower*/,
                                    std::string* error) {
  if (error != nullptr) {
    *error =
        "this evaluator has no Gauss-Newton structure (its objectives are "
        "not sums of squared residuals)";
  }
  return false;
}

bool Evaluator::SolveWeightedLeastSquares(const ceres::Solver::Options& options,
                                          const double* a,
                                          double mu,
                                          const double* shift,
                                          double* z,
                                          ceres::Solver::Summary* summary,
                                          std::string* error) {
  ++counts_.least_squares_solves;
  const bool ok = CallUserCode(
      "a cost function in the weighted least-squares solve", error, [&] {
        return DoSolveWeightedLeastSquares(
            options, a, mu, shift, z, summary, error);
      });
  counts_.least_squares_iterations +=
      static_cast<int64_t>(summary->iterations.size());
  counts_.value_evaluations += summary->num_residual_evaluations;
  counts_.gradient_evaluations += summary->num_jacobian_evaluations;
  return ok;
}

bool Evaluator::DoSolveWeightedLeastSquares(
    const ceres::Solver::Options& /*options*/,
    const double* /*a*/,
    double /*mu*/,
    const double* /*shift*/,
    double* /*z*/,
    ceres::Solver::Summary* /*summary*/,
    std::string* error) {
  if (error != nullptr) {
    *error =
        "this evaluator cannot hand a weighted least-squares problem to "
        "ceres::Solve (its objectives are not sums of squared residuals of "
        "a ceres::Problem)";
  }
  return false;
}

namespace {

// The difference steps of a Hessian product along x at z with step t that
// stay inside [lower, upper] (empty: no bounds): pairs (part of x, signed
// step) whose parts sum to x but for components whose bounds hold them
// within the step. False when no component of x can move.
bool DifferenceSteps(const Eigen::VectorXd& lower,
                     const Eigen::VectorXd& upper,
                     const Eigen::VectorXd& z,
                     const Eigen::VectorXd& x,
                     double t,
                     std::vector<std::pair<Eigen::VectorXd, double>>* steps) {
  steps->clear();
  if (lower.size() == 0) {
    steps->emplace_back(x, t);
    return true;
  }
  const int k = static_cast<int>(x.size());
  auto fits = [&](int i, double s) {
    const double moved = z[i] + s * x[i];
    return moved >= lower[i] && moved <= upper[i];
  };
  // A component whose box is narrower than the step on both sides is held
  // fixed: a step that fits would be too short for a difference above the
  // gradients' rounding, and a solver can move it by less than the step.
  Eigen::VectorXd direction = x;
  for (int i = 0; i < k; ++i) {
    if (direction[i] != 0.0 && !fits(i, t) && !fits(i, -t)) direction[i] = 0.0;
  }
  if (direction.isZero(0.0)) return false;
  Eigen::VectorXd forward = Eigen::VectorXd::Zero(k);
  Eigen::VectorXd backward = Eigen::VectorXd::Zero(k);
  for (int i = 0; i < k; ++i) {
    if (fits(i, t)) {
      forward[i] = direction[i];
    } else if (fits(i, -t)) {
      backward[i] = direction[i];
    }
  }
  if (!forward.isZero(0.0)) steps->emplace_back(std::move(forward), t);
  if (!backward.isZero(0.0)) steps->emplace_back(std::move(backward), -t);
  return true;
}

}  // namespace

bool Evaluator::DoLagrangianHessianMultiply(const double* a,
                                            const double* b,
                                            const double* x,
                                            double* out,
                                            std::string* error) {
  const int k = NumParameters();
  const int S = NumObjectives();
  const int q = NumConstraints();
  Eigen::Map<Eigen::VectorXd> result(out, k);
  if (linearization_point_.size() != k) {
    if (error != nullptr) {
      *error =
          "no linearization point: call Evaluate with gradients before "
          "asking for Hessian products";
    }
    return false;
  }
  const Eigen::Map<const Eigen::VectorXd> direction(x, k);
  const double direction_norm = direction.norm();
  if (direction_norm == 0.0) {
    result.setZero();
    return true;
  }
  const Eigen::Map<const Eigen::VectorXd> weights_f(a, S);
  const Eigen::Map<const Eigen::VectorXd> weights_h(b, q);
  // The base point is copied: Evaluate below overwrites the member.
  const Eigen::VectorXd z = linearization_point_;
  const double t = std::sqrt(std::numeric_limits<double>::epsilon()) *
                   (1.0 + z.norm()) / direction_norm;
  Eigen::VectorXd f(S), h(q), jt(k);
  Eigen::MatrixXd grad_f(k, S);
  // grad L at `point`, linearizing there.
  auto gradient_at = [&](const Eigen::VectorXd& point, Eigen::VectorXd* g) {
    if (!Evaluate(point.data(), f.data(), h.data(), grad_f.data(), error)) {
      return false;
    }
    *g = grad_f * weights_f;
    if (q > 0) {
      JacobianTransposeMultiply(weights_h.data(), jt.data());
      *g += jt;
    }
    return true;
  };
  // The difference steps stay inside the bounds: one-sided differences
  // along the part of x that has room forward (+t) and the part that has
  // room backward (-t); the Hessian product is linear in x. A solver at a
  // bound asks for products along directions that point out of the box,
  // and user functions may be undefined there (a log at 0, a square root
  // of a negative number).
  std::vector<std::pair<Eigen::VectorXd, double>> steps;
  if (!DifferenceSteps(lower_bounds_, upper_bounds_, z, direction, t, &steps)) {
    result.setZero();
    return true;
  }
  result.setZero();
  Eigen::VectorXd g_step, g_base;
  std::string step_error;
  bool ok_steps = true;
  for (const auto& [part, step] : steps) {
    ok_steps = gradient_at(z + step * part, &g_step);
    if (!ok_steps) {
      if (error != nullptr) step_error = *error;
      break;
    }
    result += g_step / step;
  }
  // Restore the linearization at z whatever happened at the steps.
  if (!gradient_at(z, &g_base)) return false;
  if (!ok_steps) {
    if (error != nullptr) {
      *error = "Hessian product by gradient differences: " + step_error;
    }
    return false;
  }
  for (const auto& step : steps) result -= g_base / step.second;
  return true;
}


void Evaluator::SetBounds(const Eigen::VectorXd& lower,
                          const Eigen::VectorXd& upper) {
  const bool any =
      (lower.array() > -std::numeric_limits<double>::infinity()).any() ||
      (upper.array() < std::numeric_limits<double>::infinity()).any();
  if (!any) {
    lower_bounds_.resize(0);
    upper_bounds_.resize(0);
    return;
  }
  lower_bounds_ = lower;
  upper_bounds_ = upper;
}

Eigen::VectorXd Evaluator::ConstraintViolation(const Eigen::VectorXd& g) const {
  Eigen::VectorXd violation;
  ConstraintViolation(g, &violation);
  return violation;
}

void Evaluator::ConstraintViolation(const Eigen::VectorXd& g,
                                    Eigen::VectorXd* violation) const {
  *violation = g;
  const int first = NumEqualityConstraints();
  for (int i = first; i < violation->size(); ++i) {
    (*violation)[i] = std::max(0.0, (*violation)[i]);
  }
}

int Evaluator::NumBoundedParameters() const {
  return static_cast<int>(
      ((lower_bounds_.array() > -std::numeric_limits<double>::infinity()) ||
       (upper_bounds_.array() < std::numeric_limits<double>::infinity()))
          .count());
}

bool Evaluator::ProjectOntoBounds(double* z) const {
  bool moved = false;
  for (int i = 0; i < lower_bounds_.size(); ++i) {
    const double clamped =
        std::min(std::max(z[i], lower_bounds_[i]), upper_bounds_[i]);
    moved = moved || clamped != z[i];
    z[i] = clamped;
  }
  return moved;
}

void Evaluator::JacobianTransposeMultiply(const double* v, double* out) {
  ++counts_.jacobian_transpose_products;
  DoJacobianTransposeMultiply(v, out);
}

void Evaluator::JacobianMultiply(const double* x, double* out) {
  ++counts_.jacobian_products;
  DoJacobianMultiply(x, out);
}

namespace {

// Formats at most the first 8 coordinates of z for error messages.
std::string FormatPoint(const double* z, int k) {
  return "z = " +
         internal::FormatVector(Eigen::Map<const Eigen::VectorXd>(z, k),
                                /*max_entries=*/8);
}

}  // namespace

ProblemEvaluator::ProblemEvaluator(const Problem* problem) : problem_(problem) {
  ShareScalarizationCache(problem_->scalarization_cache_);
  if (problem_->HasManifolds()) {
    // Over the variable blocks only: constant blocks are not in z.
    std::vector<DynamicProductManifold::Factor> factors;
    for (const Problem::ParameterBlock& b : problem_->parameter_blocks()) {
      if (!b.constant) factors.push_back({b.size, b.manifold});
    }
    manifold_ = std::make_unique<DynamicProductManifold>(std::move(factors));
  }
  // g = (h, c): the equality terms, then the inequality terms behind them.
  for (const Problem::Term& term : problem_->constraints()) {
    constraint_terms_.push_back({&term, term.residual_offset});
  }
  for (const Problem::Term& term : problem_->inequality_constraints()) {
    constraint_terms_.push_back(
        {&term, problem_->NumConstraints() + term.residual_offset});
  }
  if (problem_->HasBounds()) {
    Eigen::VectorXd lower(problem_->NumParameters());
    Eigen::VectorXd upper(problem_->NumParameters());
    problem_->GetBounds(lower.data(), upper.data());
    SetBounds(lower, upper);
  }
  // Fix the positions of the Jacobian blocks once: one per (constraint term,
  // parameter block) pair.
  for (size_t t = 0; t < constraint_terms_.size(); ++t) {
    const Problem::Term& term = *constraint_terms_[t].term;
    const int rows = term.cost_function->num_residuals();
    for (int b : term.blocks) {
      const Problem::ParameterBlock& block = problem_->parameter_blocks()[b];
      if (block.constant) continue;  // no columns in z
      JacobianBlock jb;
      jb.term = static_cast<int>(t);
      jb.residual_offset = constraint_terms_[t].residual_offset;
      jb.parameter_offset = block.offset;
      jb.rows = rows;
      jb.cols = block.size;
      jb.values.assign(static_cast<size_t>(rows) * block.size, 0.0);
      jacobian_blocks_.push_back(std::move(jb));
    }
  }
}

int ProblemEvaluator::NumParameters() const {
  return problem_->NumParameters();
}
int ProblemEvaluator::NumObjectives() const {
  return problem_->NumObjectives();
}
int ProblemEvaluator::NumConstraints() const {
  return problem_->NumConstraints() + problem_->NumInequalityConstraints();
}
int ProblemEvaluator::NumInequalityConstraints() const {
  return problem_->NumInequalityConstraints();
}

std::string ProblemEvaluator::ObjectiveName(int s) const {
  const std::string& name = problem_->objectives()[s].name;
  return name.empty() ? Evaluator::ObjectiveName(s) : name;
}

bool ProblemEvaluator::DoEvaluate(
    const double* z, double* f, double* h, double* grad_f, std::string* error) {
  const int k = NumParameters();
  const auto& blocks = problem_->parameter_blocks();
  if (grad_f != nullptr) {
    std::fill(grad_f, grad_f + static_cast<size_t>(k) * NumObjectives(), 0.0);
  }

  // Evaluates one term with parameter pointers into z (no copies). When
  // `want_jacobian`, the per-block Jacobians land in jacobian_scratch_.
  auto evaluate_term = [&](const Problem::Term& term,
                           double* residuals,
                           bool want_jacobian,
                           const char* kind) -> bool {
    const int m = term.cost_function->num_residuals();
    parameter_pointers_.resize(term.blocks.size());
    jacobian_scratch_.resize(
        std::max(jacobian_scratch_.size(), term.blocks.size()));
    jacobian_pointers_.resize(term.blocks.size());
    for (size_t j = 0; j < term.blocks.size(); ++j) {
      const Problem::ParameterBlock& b = blocks[term.blocks[j]];
      // A constant block is read from the user's array, and its Jacobian is
      // not asked for (a null entry, as Ceres does for constant blocks).
      parameter_pointers_[j] = b.constant ? b.values : z + b.offset;
      jacobian_pointers_[j] = nullptr;
      if (want_jacobian && !b.constant) {
        jacobian_scratch_[j].resize(static_cast<size_t>(m) * b.size);
        jacobian_pointers_[j] = jacobian_scratch_[j].data();
      }
    }
    bool any_jacobian = false;
    for (double* p : jacobian_pointers_) any_jacobian = any_jacobian || p;
    const bool ok = term.cost_function->Evaluate(
        parameter_pointers_.data(),
        residuals,
        any_jacobian ? jacobian_pointers_.data() : nullptr);
    // The common case, success, builds no message: a std::ostringstream per
    // term evaluation cost 19% of a small solve.
    int bad_block = -1;
    const bool finite = ok && AllFinite(residuals, m);
    if (finite && want_jacobian) {
      for (size_t j = 0; j < term.blocks.size() && bad_block < 0; ++j) {
        if (jacobian_pointers_[j] != nullptr &&
            !AllFinite(jacobian_pointers_[j], jacobian_scratch_[j].size())) {
          bad_block = static_cast<int>(j);
        }
      }
    }
    if (finite && bad_block < 0) return true;
    std::ostringstream os;
    if (!ok) {
      os << kind << " '" << term.name
         << "': its cost function returned false (evaluation failed) at "
         << FormatPoint(z, k)
         << ". Keep the iterates inside the function's domain (e.g. a "
            "better start point or an objective offset).";
    } else if (!finite) {
      os << kind << " '" << term.name
         << "': its cost function returned a non-finite value (NaN or Inf) "
            "at "
         << FormatPoint(z, k) << ".";
    } else {
      os << kind << " '" << term.name
         << "': its cost function returned a non-finite derivative "
            "with respect to parameter block "
         << bad_block << " at " << FormatPoint(z, k) << ".";
    }
    if (!os.str().empty()) {
      if (error != nullptr) *error = os.str();
      return false;
    }
    return true;
  };

  const bool want_gradient = grad_f != nullptr;
  for (size_t s = 0; s < problem_->objectives().size(); ++s) {
    const Problem::Term& term = problem_->objectives()[s];
    if (!evaluate_term(term, f + s, want_gradient, "objective")) return false;
    if (want_gradient) {
      double* column = grad_f + s * static_cast<size_t>(k);
      for (size_t j = 0; j < term.blocks.size(); ++j) {
        const Problem::ParameterBlock& b = blocks[term.blocks[j]];
        if (b.constant) continue;
        for (int c = 0; c < b.size; ++c) {
          column[b.offset + c] += jacobian_scratch_[j][c];
        }
      }
    }
  }

  size_t next_block = 0;
  const int q = problem_->NumConstraints();
  for (const ConstraintTerm& ct : constraint_terms_) {
    const Problem::Term& term = *ct.term;
    if (!evaluate_term(
            term,
            h + ct.residual_offset,
            want_gradient,
            ct.residual_offset < q ? "constraint" : "inequality constraint")) {
      return false;
    }
    for (size_t j = 0; j < term.blocks.size(); ++j) {
      if (blocks[term.blocks[j]].constant) continue;  // no Jacobian block
      if (want_gradient) {
        jacobian_blocks_[next_block].values = jacobian_scratch_[j];
      }
      ++next_block;
    }
  }
  return true;
}

void ProblemEvaluator::DoJacobianTransposeMultiply(const double* v,
                                                   double* out) const {
  std::fill(out, out + NumParameters(), 0.0);
  for (const JacobianBlock& b : jacobian_blocks_) {
    for (int r = 0; r < b.rows; ++r) {
      const double vr = v[b.residual_offset + r];
      if (vr == 0.0) continue;
      const double* row = b.values.data() + static_cast<size_t>(r) * b.cols;
      for (int c = 0; c < b.cols; ++c)
        out[b.parameter_offset + c] += row[c] * vr;
    }
  }
}

void ProblemEvaluator::DoJacobianMultiply(const double* x, double* out) const {
  std::fill(out, out + NumConstraints(), 0.0);
  for (const JacobianBlock& b : jacobian_blocks_) {
    for (int r = 0; r < b.rows; ++r) {
      const double* row = b.values.data() + static_cast<size_t>(r) * b.cols;
      double sum = 0.0;
      for (int c = 0; c < b.cols; ++c)
        sum += row[c] * x[b.parameter_offset + c];
      out[b.residual_offset + r] += sum;
    }
  }
}

}  // namespace ecmo
