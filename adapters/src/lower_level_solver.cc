// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Lower-level numerics: Newton-CG solves of g(x, .), Lanczos estimates of
// the spectrum of grad^2_yy g, and the reduced-space MTBL evaluator.

#include "ecmo/lower_level_solver.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/Eigenvalues"
#include "ecmo/internal/report.h"
#include "ecmo/mtbl.h"

namespace ecmo {

namespace {

// H_yy v (the y part of the lower level's transpose product).
class HessianOperator {
 public:
  HessianOperator(const LowerLevel& lower, const double* x, const double* y)
      : lower_(lower), x_(x), y_(y) {}
  bool Apply(const Eigen::VectorXd& v, Eigen::VectorXd* out) {
    out->resize(v.size());
    ++products_;
    return lower_.HessianYYProduct(x_, y_, v.data(), out->data()) &&
           out->allFinite();
  }
  int64_t products() const { return products_; }

 private:
  const LowerLevel& lower_;
  const double* x_;
  const double* y_;
  int64_t products_ = 0;
};

bool SameVector(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() && a == b;
}

enum class CgOutcome { CONVERGED, MAX_ITERATIONS, NEGATIVE_CURVATURE, FAILED };

// Conjugate gradients on H s = rhs from *s, until ||r|| <= tolerance (the
// residual of H s = rhs itself, whatever the preconditioner), with
// z = M^{-1} r from `preconditioner` (identity when it holds no
// factorization).
CgOutcome PreconditionedCg(HessianOperator* op,
                           const LowerLevelPreconditioner& preconditioner,
                           const Eigen::VectorXd& rhs,
                           double tolerance,
                           int max_iterations,
                           Eigen::VectorXd* s,
                           int* iterations) {
  Eigen::VectorXd hs;
  *iterations = 0;
  if (s->squaredNorm() > 0.0) {
    if (!op->Apply(*s, &hs)) return CgOutcome::FAILED;
  } else {
    hs.setZero(rhs.size());
  }
  Eigen::VectorXd r = rhs - hs;
  if (r.norm() <= tolerance) return CgOutcome::CONVERGED;
  Eigen::VectorXd z, hp;
  preconditioner.Apply(r, &z);
  double rz = r.dot(z);
  Eigen::VectorXd p = z;
  for (int it = 0; it < max_iterations; ++it) {
    if (!op->Apply(p, &hp)) return CgOutcome::FAILED;
    ++*iterations;
    const double curvature = p.dot(hp);
    if (!(curvature > 0.0)) return CgOutcome::NEGATIVE_CURVATURE;
    const double alpha = rz / curvature;
    *s += alpha * p;
    r -= alpha * hp;
    if (r.norm() <= tolerance) return CgOutcome::CONVERGED;
    preconditioner.Apply(r, &z);
    const double rz_new = r.dot(z);
    p = z + (rz_new / rz) * p;
    rz = rz_new;
  }
  return CgOutcome::MAX_ITERATIONS;
}

// One preconditioned CG solve at (x, y): refreshes the preconditioner there
// first when it asks for it (adding the refresh and its products to the
// counts), and records the solve's iterations.
CgOutcome SolveWithPreconditioner(const LowerLevel& lower,
                                  const double* x,
                                  const double* y,
                                  LowerLevelPreconditioner* preconditioner,
                                  const Eigen::VectorXd& rhs,
                                  double tolerance,
                                  int max_iterations,
                                  Eigen::VectorXd* s,
                                  int* iterations,
                                  int64_t* products,
                                  int64_t* refreshes) {
  if (preconditioner->refresh_due()) {
    const int64_t products_before = preconditioner->products();
    const int64_t refreshes_before = preconditioner->refreshes();
    preconditioner->Refresh(lower, x, y, nullptr);
    *products += preconditioner->products() - products_before;
    *refreshes += preconditioner->refreshes() - refreshes_before;
  }
  HessianOperator op(lower, x, y);
  const CgOutcome outcome = PreconditionedCg(
      &op, *preconditioner, rhs, tolerance, max_iterations, s, iterations);
  *products += op.products();
  preconditioner->RecordSolve(*iterations);
  return outcome;
}

}  // namespace

// ------------------------------------------------------ SolveLowerLevel --

const char* LowerLevelPreconditionerTypeToString(
    LowerLevelPreconditionerType type) {
  switch (type) {
    case LowerLevelPreconditionerType::IDENTITY:
      return "identity";
    case LowerLevelPreconditionerType::DENSE_HESSIAN:
      return "dense-hessian";
    case LowerLevelPreconditionerType::AUTOMATIC:
      return "automatic";
  }
  return "unknown";
}

bool StringToLowerLevelPreconditionerType(std::string value,
                                          LowerLevelPreconditionerType* type) {
  for (LowerLevelPreconditionerType candidate :
       {LowerLevelPreconditionerType::IDENTITY,
        LowerLevelPreconditionerType::DENSE_HESSIAN,
        LowerLevelPreconditionerType::AUTOMATIC}) {
    if (internal::SameEnumName(LowerLevelPreconditionerTypeToString(candidate),
                               value)) {
      *type = candidate;
      return true;
    }
  }
  return false;
}

class LowerLevelPreconditioner::Factorization {
 public:
  Eigen::LLT<Eigen::MatrixXd> llt;
};

LowerLevelPreconditioner::LowerLevelPreconditioner(
    const LowerLevelSolver::Options& options, int ny)
    : ny_(ny),
      enabled_(options.preconditioner_type ==
                   LowerLevelPreconditionerType::DENSE_HESSIAN ||
               (options.preconditioner_type ==
                    LowerLevelPreconditionerType::AUTOMATIC &&
                ny <= options.max_dense_preconditioner_size)),
      expected_iterations_(options.preconditioned_cg_iterations) {}

LowerLevelPreconditioner::~LowerLevelPreconditioner() = default;

bool LowerLevelPreconditioner::enabled() const { return enabled_; }

bool LowerLevelPreconditioner::ready() const {
  return factorization_ != nullptr;
}

bool LowerLevelPreconditioner::refresh_due() const {
  return enabled_ && excess_iterations_ >= ny_;
}

void LowerLevelPreconditioner::RecordSolve(int iterations) {
  excess_iterations_ += std::max(0, iterations - expected_iterations_);
}

bool LowerLevelPreconditioner::Refresh(const LowerLevel& lower_level,
                                       const double* x,
                                       const double* y,
                                       std::string* error) {
  if (!enabled_) return false;
  excess_iterations_ = 0;
  factorization_.reset();
  auto disable = [&](const char* why) {
    enabled_ = false;
    if (error != nullptr) {
      *error = std::string("LowerLevelPreconditioner: ") + why +
               "; CG continues without a preconditioner.";
    }
    return false;
  };
  Eigen::MatrixXd hessian(ny_, ny_);
  Eigen::VectorXd unit = Eigen::VectorXd::Zero(ny_);
  for (int j = 0; j < ny_; ++j) {
    unit[j] = 1.0;
    ++products_;
    if (!lower_level.HessianYYProduct(
            x, y, unit.data(), hessian.col(j).data())) {
      return disable("a Hessian-vector product failed");
    }
    unit[j] = 0.0;
  }
  if (!hessian.allFinite()) return disable("grad^2_yy g is not finite");
  ++refreshes_;
  // Symmetrize (the products are exact only to rounding).
  hessian = 0.5 * (hessian + hessian.transpose()).eval();
  auto factorization = std::make_unique<Factorization>();
  const double scale = std::max(hessian.diagonal().cwiseAbs().maxCoeff(),
                                std::numeric_limits<double>::min());
  double shift = 0.0;
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (shift > 0.0) hessian.diagonal().array() += shift;
    factorization->llt.compute(hessian);
    if (factorization->llt.info() == Eigen::Success) {
      factorization_ = std::move(factorization);
      return true;
    }
    if (shift > 0.0) hessian.diagonal().array() -= shift;
    shift = shift == 0.0 ? 1e-10 * scale : 100.0 * shift;
  }
  return disable("grad^2_yy g could not be factorized (not positive definite)");
}

void LowerLevelPreconditioner::Apply(const Eigen::VectorXd& r,
                                     Eigen::VectorXd* z) const {
  if (factorization_ == nullptr) {
    *z = r;
    return;
  }
  *z = factorization_->llt.solve(r);
}

bool LowerLevelSolver::Options::IsValid(std::string* error) const {
  static constexpr char kOptions[] = "LowerLevelSolver::Options";
  ECMO_OPTION_CHECK(kOptions, max_iterations, max_iterations >= 0, ">= 0");
  ECMO_OPTION_CHECK(
      kOptions,
      gradient_tolerance,
      gradient_tolerance >= 0.0 && std::isfinite(gradient_tolerance),
      ">= 0 and finite");
  ECMO_OPTION_CHECK(kOptions, max_cg_iterations, max_cg_iterations > 0, "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    cg_relative_tolerance,
                    cg_relative_tolerance > 0.0 && cg_relative_tolerance < 1.0,
                    "in (0, 1)");
  ECMO_OPTION_CHECK(
      kOptions, max_line_search_steps, max_line_search_steps > 0, "> 0");
  ECMO_OPTION_CHECK(kOptions,
                    armijo_coefficient,
                    armijo_coefficient > 0.0 && armijo_coefficient < 0.5,
                    "in (0, 0.5)");
  ECMO_OPTION_CHECK(kOptions,
                    max_dense_preconditioner_size,
                    max_dense_preconditioner_size >= 0,
                    ">= 0");
  ECMO_OPTION_CHECK(kOptions,
                    preconditioned_cg_iterations,
                    preconditioned_cg_iterations >= 0,
                    ">= 0");
  return true;
}

std::string LowerLevelSolver::Summary::BriefReport() const {
  std::ostringstream os;
  os.precision(3);
  os << "SolveLowerLevel: " << TerminationTypeName(termination_type) << ", "
     << iterations << " Newton iterations, " << cg_iterations
     << " CG iterations, ||grad_y g|| " << initial_gradient_norm << " -> "
     << gradient_norm;
  return os.str();
}

bool LowerLevelSolver::Summary::IsSolutionUsable() const {
  return ecmo::IsSolutionUsable(termination_type);
}

bool SolveLowerLevel(const LowerLevelSolver::Options& options,
                     const LowerLevel& lower_level,
                     const double* x,
                     Eigen::VectorXd* y,
                     LowerLevelSolver::Summary* summary) {
  LowerLevelPreconditioner preconditioner(options,
                                          lower_level.NumLowerParameters());
  return SolveLowerLevel(options, lower_level, x, y, &preconditioner, summary);
}

bool SolveLowerLevel(const LowerLevelSolver::Options& options,
                     const LowerLevel& lower_level,
                     const double* x,
                     Eigen::VectorXd* y,
                     LowerLevelPreconditioner* preconditioner,
                     LowerLevelSolver::Summary* summary) {
  if (summary == nullptr) return false;
  *summary = LowerLevelSolver::Summary();
  std::string error;
  const int ny = lower_level.NumLowerParameters();
  if (!options.IsValid(&error)) {
    summary->message = error;
    return false;
  }
  if (x == nullptr || y == nullptr || y->size() != ny) {
    std::ostringstream os;
    os << "SolveLowerLevel: x must be non-null and y must have ny = " << ny
       << " entries (it has " << (y == nullptr ? -1 : y->size()) << ").";
    summary->message = os.str();
    return false;
  }
  if (preconditioner == nullptr) {
    summary->message = "SolveLowerLevel: the preconditioner is null.";
    return false;
  }
  // Value (or, without Value, ||grad||^2 / 2) and gradient at a point.
  bool has_value = true;
  auto value_at = [&](const Eigen::VectorXd& point,
                      Eigen::VectorXd* gradient,
                      double* value) {
    ++summary->gradient_evaluations;
    if (!lower_level.GradY(x, point.data(), gradient->data()) ||
        !gradient->allFinite()) {
      return false;
    }
    if (has_value) {
      ++summary->value_evaluations;
      return lower_level.Value(x, point.data(), value) && std::isfinite(*value);
    }
    *value = 0.5 * gradient->squaredNorm();
    return true;
  };
  Eigen::VectorXd gradient(ny), trial_gradient(ny);
  double value = 0.0;
  has_value = lower_level.Value(x, y->data(), &value);
  if (!value_at(*y, &gradient, &value)) {
    summary->message =
        "SolveLowerLevel: g or grad_y g could not be evaluated at the start "
        "point (the lower level returned false or a non-finite value).";
    return false;
  }
  summary->initial_gradient_norm = gradient.norm();
  Eigen::VectorXd step(ny), trial(ny);
  std::string stop;
  summary->termination_type = ceres::NO_CONVERGENCE;
  for (;;) {
    const double gradient_norm = gradient.norm();
    summary->gradient_norm = gradient_norm;
    if (gradient_norm <= options.gradient_tolerance) {
      summary->termination_type = ceres::CONVERGENCE;
      stop = "||grad_y g|| <= gradient_tolerance";
      break;
    }
    if (summary->iterations >= options.max_iterations) {
      stop = "max_iterations reached";
      break;
    }
    // Newton step by truncated CG (y is fixed during the step, so the
    // operator reads it directly).
    step.setZero();
    int cg_iterations = 0;
    const double forcing =
        std::min(options.cg_relative_tolerance, std::sqrt(gradient_norm));
    const CgOutcome outcome =
        SolveWithPreconditioner(lower_level,
                                x,
                                y->data(),
                                preconditioner,
                                -gradient,
                                forcing * gradient_norm,
                                options.max_cg_iterations,
                                &step,
                                &cg_iterations,
                                &summary->hessian_products,
                                &summary->preconditioner_refreshes);
    summary->cg_iterations += cg_iterations;
    if (outcome == CgOutcome::FAILED) {
      stop = "a Hessian-vector product failed";
      break;
    }
    if (outcome == CgOutcome::NEGATIVE_CURVATURE) {
      summary->negative_curvature = true;
    }
    double slope = gradient.dot(step);
    if (!(slope < 0.0)) {
      step = -gradient;
      slope = -gradient.squaredNorm();
    }
    // Armijo backtracking. Without Value the merit ||grad||^2 / 2 has no
    // known slope along the step; ask for plain decrease.
    double alpha = 1.0;
    double trial_value = 0.0;
    bool accepted = false;
    for (int ls = 0; ls < options.max_line_search_steps; ++ls) {
      trial = *y + alpha * step;
      if (value_at(trial, &trial_gradient, &trial_value)) {
        const double required =
            has_value ? value + options.armijo_coefficient * alpha * slope
                      : value;
        // Near y* the decrease of g falls below its rounding error; then
        // a step that keeps g (to rounding) and shrinks grad is accepted.
        const bool flat = has_value &&
                          std::abs(trial_value - value) <=
                              64.0 * std::numeric_limits<double>::epsilon() *
                                  (1.0 + std::abs(value)) &&
                          trial_gradient.norm() < gradient_norm;
        if (trial_value <= required || flat) {
          accepted = true;
          break;
        }
      }
      alpha *= 0.5;
    }
    ++summary->iterations;
    if (!accepted) {
      stop = "the line search could not decrease g along the Newton step";
      break;
    }
    *y = trial;
    gradient = trial_gradient;
    value = trial_value;
  }
  if (has_value) summary->value = value;
  std::ostringstream os;
  os.precision(3);
  os << "SolveLowerLevel: " << stop << " after " << summary->iterations
     << " Newton iterations (" << summary->cg_iterations
     << " CG); ||grad_y g|| = " << summary->gradient_norm << ".";
  if (summary->negative_curvature) {
    os << " CG met non-positive curvature: g(x, .) is not convex here.";
  }
  summary->message = os.str();
  return summary->IsSolutionUsable();
}

// ------------------------------------------- EstimateLowerLevelSpectrum --

bool EstimateLowerLevelSpectrum(const LowerLevel& lower_level,
                                const double* x,
                                const double* y,
                                const LowerLevelSpectrumOptions& options,
                                LowerLevelSpectrum* spectrum) {
  if (spectrum == nullptr) return false;
  *spectrum = LowerLevelSpectrum();
  const int ny = lower_level.NumLowerParameters();
  const int steps = std::max(1, std::min(ny, options.lanczos_steps));
  const int probes = std::max(1, options.probes);
  HessianOperator op(lower_level, x, y);
  std::mt19937_64 rng(options.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  // Per run: Ritz values and their quadrature weights.
  std::vector<Eigen::VectorXd> ritz(probes), weights(probes);
  double smallest = std::numeric_limits<double>::infinity();
  double largest = -std::numeric_limits<double>::infinity();
  Eigen::MatrixXd basis(ny, steps + 1);
  Eigen::VectorXd smallest_vector;
  Eigen::VectorXd w(ny), hv(ny);
  for (int run = 0; run < probes; ++run) {
    for (int i = 0; i < ny; ++i) w[i] = normal(rng);
    basis.col(0) = w.normalized();
    std::vector<double> alpha, beta;
    int m = 0;
    for (int j = 0; j < steps; ++j) {
      if (!op.Apply(basis.col(j), &hv)) {
        spectrum->message =
            "EstimateLowerLevelSpectrum: a Hessian-vector product of the "
            "lower level failed.";
        spectrum->hessian_products = static_cast<int>(op.products());
        return false;
      }
      alpha.push_back(basis.col(j).dot(hv));
      // Full reorthogonalization (twice is enough).
      for (int pass = 0; pass < 2; ++pass) {
        hv -= basis.leftCols(j + 1) *
              (basis.leftCols(j + 1).transpose() * hv).eval();
      }
      m = j + 1;
      const double b = hv.norm();
      if (j + 1 == steps || b <= 1e-12 * std::abs(alpha.front()) || b == 0.0) {
        break;  // The Krylov space is invariant (or the budget is spent).
      }
      beta.push_back(b);
      basis.col(j + 1) = hv / b;
    }
    Eigen::MatrixXd t = Eigen::MatrixXd::Zero(m, m);
    for (int i = 0; i < m; ++i) t(i, i) = alpha[i];
    for (int i = 0; i + 1 < m; ++i) t(i, i + 1) = t(i + 1, i) = beta[i];
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(t);
    ritz[run] = eigen.eigenvalues();
    weights[run] = eigen.eigenvectors().row(0).transpose().array().square();
    Eigen::Index argmin = 0;
    const double run_smallest = ritz[run].minCoeff(&argmin);
    if (run_smallest < smallest) {
      smallest = run_smallest;
      // Ritz vector of the smallest Ritz value (unit length).
      smallest_vector = basis.leftCols(m) * eigen.eigenvectors().col(argmin);
    }
    largest = std::max(largest, ritz[run].maxCoeff());
  }
  spectrum->hessian_products = static_cast<int>(op.products());
  spectrum->smallest_eigenvalue = smallest;
  spectrum->largest_eigenvalue = largest;
  const double threshold = options.null_tolerance * std::max(0.0, largest);
  double fraction = 0.0;
  for (int run = 0; run < probes; ++run) {
    for (int i = 0; i < ritz[run].size(); ++i) {
      if (std::abs(ritz[run][i]) <= threshold) fraction += weights[run][i];
    }
  }
  fraction /= probes;
  bool zero_found = false;
  for (int run = 0; run < probes; ++run) {
    zero_found = zero_found || (ritz[run].array().abs() <= threshold).any();
  }
  spectrum->null_space_dimension =
      zero_found ? std::max(1, static_cast<int>(std::lround(fraction * ny)))
                 : 0;
  // A zero eigenvalue alone does not make y* non-unique (g = y^4 has a
  // singular Hessian at its unique minimizer): g must also be flat along
  // the null direction v. grad_y g(y + t v) stays grad_y g(y) on a true
  // null space (of an affine family of minimizers), and moves by O(t^3)
  // for a quartic; a step of length t = 0.1 max(1, ||y||) tells them apart.
  bool flat = false;
  if (zero_found && smallest_vector.size() == ny) {
    const Eigen::Map<const Eigen::VectorXd> yv(y, ny);
    const double t = 0.1 * std::max(1.0, yv.norm());
    const Eigen::VectorXd moved = yv + t * smallest_vector;
    Eigen::VectorXd h0(ny), h1(ny);
    if (lower_level.GradY(x, y, h0.data()) &&
        lower_level.GradY(x, moved.data(), h1.data())) {
      flat = (h1 - h0).norm() <=
             options.null_tolerance * std::max(0.0, largest) * t;
    }
  }
  spectrum->unique = !(zero_found && flat);
  std::ostringstream os;
  os.precision(3);
  os << "grad^2_yy g: eigenvalues in about [" << smallest << ", " << largest
     << "] (Lanczos, " << probes << " x " << steps << " products)";
  if (smallest < -threshold) {
    os << "; it has negative eigenvalues: g(x, .) is not convex here, so "
          "grad_y g = 0 does not characterize its minimizers";
  }
  if (zero_found && !flat) {
    os << "; it is singular (estimated null-space dimension "
       << spectrum->null_space_dimension
       << "), but g(x, .) is not flat along the null direction (higher-order "
          "terms, as in y^4): y* is isolated though not strongly convex, so "
          "the reduced form's implicit derivatives are ill-conditioned here.";
  } else if (zero_found) {
    os << "; it is singular: a null space of estimated dimension "
       << spectrum->null_space_dimension << " (of " << ny
       << "), so y* is not unique (g(x, .) is flat along it). The full-space "
          "ECMO form still applies; the reduced form does not.";
  } else if (smallest > 0.0) {
    os << "; positive definite (condition number about " << largest / smallest
       << "), so y* is unique.";
  } else {
    os << ".";
  }
  spectrum->message = os.str();
  return true;
}

// -------------------------------------------------- ReducedMtblEvaluator --

ReducedMtblEvaluator::ReducedMtblEvaluator(MtblEvaluator* full,
                                           const Eigen::VectorXd& y0)
    : ReducedMtblEvaluator(full, y0, Options()) {}

ReducedMtblEvaluator::ReducedMtblEvaluator(MtblEvaluator* full,
                                           const Eigen::VectorXd& y0,
                                           const Options& options)
    : full_(full), options_(options), y_(y0) {
  std::string error;
  if (full_ == nullptr) {
    first_error_ = "ReducedMtblEvaluator: the full evaluator is null.";
  } else if (!full_->IsValid(&error)) {
    first_error_ = "ReducedMtblEvaluator: " + error;
  } else if (!options_.lower_level.IsValid(&error)) {
    first_error_ = "ReducedMtblEvaluator: " + error;
  } else {
    nx_ = full_->NumUpperParameters();
    ny_ = full_->NumLowerParameters();
    preconditioner_ =
        std::make_unique<LowerLevelPreconditioner>(options_.lower_level, ny_);
    if (y0.size() != ny_) {
      std::ostringstream os;
      os << "ReducedMtblEvaluator: y0 has " << y0.size()
         << " entries; the lower level has ny = " << ny_ << ".";
      first_error_ = os.str();
    } else if (!(options_.cg_relative_tolerance > 0.0) ||
               options_.max_cg_iterations <= 0) {
      first_error_ =
          "ReducedMtblEvaluator: Options::cg_relative_tolerance and "
          "max_cg_iterations must be > 0.";
    }
  }
}

ReducedMtblEvaluator::~ReducedMtblEvaluator() = default;

bool ReducedMtblEvaluator::IsValid(std::string* error) const {
  if (error != nullptr) *error = first_error_;
  return first_error_.empty();
}

int ReducedMtblEvaluator::NumParameters() const { return nx_; }
int ReducedMtblEvaluator::NumObjectives() const {
  return full_ != nullptr ? full_->NumObjectives() : 0;
}

bool ReducedMtblEvaluator::SolveAt(const Eigen::VectorXd& x,
                                   std::string* error) {
  if (solved_ && SameVector(x, x_)) return true;
  Eigen::VectorXd y = y_;
  // First-order predictor y*(x) ~ y*(x_s) + dy*/dx (x - x_s) from the last
  // point whose sensitivity is known.
  if (sensitivity_.cols() == nx_ && x_sensitivity_.size() == nx_) {
    y = y_sensitivity_ + sensitivity_ * (x - x_sensitivity_);
  }
  LowerLevelSolver::Summary summary;
  SolveLowerLevel(options_.lower_level,
                  *full_->lower_level(),
                  x.data(),
                  &y,
                  preconditioner_.get(),
                  &summary);
  ++work_.lower_level_solves;
  work_.preconditioner_refreshes += summary.preconditioner_refreshes;
  work_.newton_iterations += summary.iterations;
  work_.cg_iterations += summary.cg_iterations;
  work_.lower_gradient_evaluations += summary.gradient_evaluations;
  work_.hessian_vector_products += summary.hessian_products;
  if (summary.termination_type != ceres::CONVERGENCE) {
    if (error != nullptr) {
      *error =
          "ReducedMtblEvaluator: the lower level was not solved to its "
          "tolerance (" +
          summary.message +
          ") Is g(x, .) strongly convex? Otherwise use the full-space "
          "MtblEvaluator.";
    }
    return false;
  }
  x_ = x;
  y_ = y;
  solved_ = true;
  return true;
}

bool ReducedMtblEvaluator::SolveHessian(const Eigen::VectorXd& rhs,
                                        Eigen::VectorXd* s,
                                        std::string* error) {
  const LowerLevel& lower = *full_->lower_level();
  int iterations = 0;
  // Keep the warm start only when it is better than zero: a large stale
  // start would limit the attainable relative accuracy (rounding of
  // rhs - H s is about eps ||H|| ||s||).
  if (s->squaredNorm() > 0.0) {
    HessianOperator op(lower, x_.data(), y_.data());
    Eigen::VectorXd hs;
    if (!op.Apply(*s, &hs) || (rhs - hs).norm() >= rhs.norm()) s->setZero();
    work_.hessian_vector_products += op.products();
  }
  const CgOutcome outcome =
      SolveWithPreconditioner(lower,
                              x_.data(),
                              y_.data(),
                              preconditioner_.get(),
                              rhs,
                              options_.cg_relative_tolerance * rhs.norm(),
                              options_.max_cg_iterations,
                              s,
                              &iterations,
                              &work_.hessian_vector_products,
                              &work_.preconditioner_refreshes);
  work_.cg_iterations += iterations;
  if (outcome == CgOutcome::CONVERGED) return true;
  if (error != nullptr) {
    *error = outcome == CgOutcome::NEGATIVE_CURVATURE
                 ? "ReducedMtblEvaluator: grad^2_yy g is not positive "
                   "definite at y*(x) (CG met non-positive curvature); the "
                   "reduced form needs a strongly convex lower level."
             : outcome == CgOutcome::FAILED
                 ? "ReducedMtblEvaluator: a Hessian-vector product failed."
                 : "ReducedMtblEvaluator: the implicit-function CG solve did "
                   "not reach Options::cg_relative_tolerance within "
                   "max_cg_iterations (grad^2_yy g nearly singular?).";
  }
  return false;
}

bool ReducedMtblEvaluator::DoEvaluate(const double* x_in,
                                      double* f,
                                      double* /*h*/,
                                      double* grad_f,
                                      std::string* error) {
  if (!first_error_.empty()) {
    if (error != nullptr) *error = first_error_;
    return false;
  }
  const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(x_in, nx_);
  if (!SolveAt(x, error)) return false;
  const int k = nx_ + ny_;
  const int S = NumObjectives();
  Eigen::VectorXd z(k), h(ny_);
  z << x_, y_;
  Eigen::MatrixXd grad_full(k, S);
  if (!full_->Evaluate(z.data(),
                       f,
                       h.data(),
                       grad_f != nullptr ? grad_full.data() : nullptr,
                       error)) {
    return false;
  }
  if (grad_f == nullptr) return true;
  Eigen::Map<Eigen::MatrixXd> grad(grad_f, nx_, S);
  grad = grad_full.topRows(nx_);
  const LowerLevel& lower = *full_->lower_level();
  if (nx_ <= S) {
    // Forward mode: H_yy D = -H_yx, one solve per coordinate of x.
    if (sensitivity_.rows() != ny_ || sensitivity_.cols() != nx_) {
      sensitivity_.setZero(ny_, nx_);
    }
    Eigen::VectorXd unit(nx_), zero_y = Eigen::VectorXd::Zero(ny_), column(ny_),
                               rhs(ny_);
    for (int c = 0; c < nx_; ++c) {
      unit.setZero();
      unit[c] = 1.0;
      ++work_.hessian_vector_products;
      if (!lower.GradYJacobianProduct(
              x_.data(), y_.data(), unit.data(), zero_y.data(), rhs.data())) {
        if (error != nullptr) {
          *error =
              "ReducedMtblEvaluator: the lower level's GradYJacobianProduct "
              "failed.";
        }
        return false;
      }
      column = sensitivity_.col(c);
      if (!SolveHessian(-rhs, &column, error)) return false;
      sensitivity_.col(c) = column;
    }
    x_sensitivity_ = x_;
    y_sensitivity_ = y_;
    grad_full_lin_ = grad_full;
    adjoint_weights_.resize(0);  // the adjoint belongs to the old point
    grad += sensitivity_.transpose() * grad_full.bottomRows(ny_);
  } else {
    // Adjoint mode: H_yy v_s = grad_y f_s, grad F_s -= H_xy v_s.
    if (adjoints_.rows() != ny_ || adjoints_.cols() != S) {
      adjoints_.setZero(ny_, S);
    }
    Eigen::VectorXd column(ny_), out_x(nx_), out_y(ny_);
    for (int s = 0; s < S; ++s) {
      column = adjoints_.col(s);
      if (!SolveHessian(grad_full.col(s).tail(ny_), &column, error)) {
        return false;
      }
      adjoints_.col(s) = column;
      ++work_.hessian_vector_products;
      if (!lower.GradYJacobianTransposeProduct(x_.data(),
                                               y_.data(),
                                               column.data(),
                                               out_x.data(),
                                               out_y.data())) {
        if (error != nullptr) {
          *error =
              "ReducedMtblEvaluator: the lower level's "
              "GradYJacobianTransposeProduct failed.";
        }
        return false;
      }
      grad.col(s) -= out_x;
    }
  }
  return true;
}

bool ReducedMtblEvaluator::DoLagrangianHessianMultiply(const double* a,
                                                       const double* b,
                                                       const double* p,
                                                       double* out,
                                                       std::string* error) {
  const int S = NumObjectives();
  const Eigen::VectorXd& lin = linearization_point();
  if (nx_ > S || lin.size() != nx_ || x_sensitivity_.size() != nx_ ||
      !SameVector(lin, x_sensitivity_)) {
    return Evaluator::DoLagrangianHessianMultiply(a, b, p, out, error);
  }
  const Eigen::Map<const Eigen::VectorXd> weights(a, S);
  const Eigen::Map<const Eigen::VectorXd> direction(p, nx_);
  // The adjoint for these weights at the linearization point.
  if (!SameVector(adjoint_weights_, weights)) {
    if (adjoint_.size() != ny_) adjoint_.setZero(ny_);
    // SolveHessian works at (x_, y_): move them to the linearization point
    // (a value-only Evaluate may have moved them since).
    x_ = x_sensitivity_;
    y_ = y_sensitivity_;
    const Eigen::VectorXd rhs =
        -(grad_full_lin_.bottomRows(ny_) * weights).eval();
    if (!SolveHessian(rhs, &adjoint_, error)) return false;
    adjoint_weights_ = weights;
  }
  Eigen::VectorXd t(nx_ + ny_), product(nx_ + ny_);
  t << direction, sensitivity_ * direction;
  if (!full_->LagrangianHessianMultiply(
          a, adjoint_.data(), t.data(), product.data(), error)) {
    return false;
  }
  work_.hessian_vector_products += 2;  // one third-order product
  Eigen::Map<Eigen::VectorXd>(out, nx_) =
      product.head(nx_) + sensitivity_.transpose() * product.tail(ny_);
  return true;
}

void ReducedMtblEvaluator::DoJacobianTransposeMultiply(const double* /*v*/,
                                                       double* out) const {
  std::fill(out, out + nx_, 0.0);  // q = 0: J_h^T v is the zero vector.
}

void ReducedMtblEvaluator::DoJacobianMultiply(const double* /*x*/,
                                              double* /*out*/) const {}

Eigen::VectorXd ReducedMtblEvaluator::FullPoint(const Eigen::VectorXd& x) {
  std::string error;
  if (!first_error_.empty() || x.size() != nx_ || !SolveAt(x, &error)) {
    return Eigen::VectorXd();
  }
  Eigen::VectorXd z(nx_ + ny_);
  z << x_, y_;
  return z;
}

}  // namespace ecmo
