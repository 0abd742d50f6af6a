// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/linear_scalarization.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "Eigen/Cholesky"
#include "Eigen/SVD"
#include "ecmo/internal/report.h"
#include "ecmo/internal/solve_on_problem.h"
#include "ecmo/problem.h"

namespace ecmo {

using internal::FormatNumber;
using internal::FormatVector;

namespace {

// Projection onto {z : A z = b} with A A^T factorized once.
class AffineProjector {
 public:
  bool Initialize(const AffineConstraints& c,
                  double rank_tolerance,
                  std::string* error) {
    A_ = c.A;
    b_ = c.b;
    const int q = static_cast<int>(A_.rows());
    if (q == 0) return true;
    const int k = static_cast<int>(A_.cols());
    std::ostringstream os;
    if (q > k) {
      os << "The constraint matrix A is " << q << " x " << k
         << ": more equations than unknowns, so it cannot have full row "
            "rank. Remove the redundant constraints.";
    } else {
      Eigen::JacobiSVD<Eigen::MatrixXd> svd(A_);
      const Eigen::VectorXd& sigma = svd.singularValues();
      const double largest = sigma.size() > 0 ? sigma[0] : 0.0;
      const double smallest = sigma.size() > 0 ? sigma[sigma.size() - 1] : 0.0;
      if (!(largest > 0.0) || smallest <= rank_tolerance * largest) {
        int rank = 0;
        for (int i = 0; i < sigma.size(); ++i) {
          if (sigma[i] > rank_tolerance * largest) ++rank;
        }
        os << "The constraint matrix A (" << q << " x " << k
           << ") is rank deficient: rank " << rank << " < " << q
           << " rows (sigma_min / sigma_max = "
           << (largest > 0.0 ? smallest / largest : 0.0)
           << " <= rank_tolerance = " << rank_tolerance
           << "). Remove redundant or contradictory constraints so that A "
              "has full row rank.";
      }
    }
    if (!os.str().empty()) {
      if (error != nullptr) *error = os.str();
      return false;
    }
    llt_.compute(A_ * A_.transpose());
    if (llt_.info() != Eigen::Success) {
      if (error != nullptr) {
        *error =
            "Factorizing A A^T failed although A passed the rank test; "
            "rescale the constraints.";
      }
      return false;
    }
    return true;
  }

  Eigen::VectorXd Project(const Eigen::VectorXd& w) const {
    if (A_.rows() == 0) return w;
    return w - A_.transpose() * llt_.solve(A_ * w - b_);
  }

  // Least-squares v = argmin ||g + A^T v|| = -(A A^T)^{-1} A g.
  Eigen::VectorXd Multiplier(const Eigen::VectorXd& g) const {
    if (A_.rows() == 0) return Eigen::VectorXd();
    return -llt_.solve(A_ * g);
  }

  Eigen::VectorXd Residual(const Eigen::VectorXd& z) const {
    if (A_.rows() == 0) return Eigen::VectorXd();
    return A_ * z - b_;
  }

  const Eigen::MatrixXd& A() const { return A_; }

 private:
  Eigen::MatrixXd A_;
  Eigen::VectorXd b_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
};

}  // namespace

bool LinearScalarization::Options::IsValid(std::string* error) const {
  static constexpr char kOptions[] = "LinearScalarization::Options";
  ECMO_OPTION_CHECK(kOptions, max_iterations, max_iterations > 0, "> 0");
  ECMO_OPTION_CHECK(
      kOptions,
      lipschitz_constant,
      lipschitz_constant >= 0.0 && std::isfinite(lipschitz_constant),
      ">= 0 and finite (0 = backtracking estimate)");
  ECMO_OPTION_CHECK(kOptions,
                    initial_lipschitz_estimate,
                    initial_lipschitz_estimate >= 0.0 &&
                        std::isfinite(initial_lipschitz_estimate),
                    ">= 0 and finite (0 = secant estimate)");
  ECMO_OPTION_CHECK(
      kOptions,
      lipschitz_increase,
      lipschitz_increase > 1.0 && std::isfinite(lipschitz_increase),
      "> 1 and finite");
  ECMO_OPTION_CHECK(
      kOptions, max_lipschitz_increases, max_lipschitz_increases >= 0, ">= 0");
  ECMO_OPTION_CHECK(kOptions,
                    kkt_tolerance,
                    kkt_tolerance >= 0.0 && kkt_tolerance < 1.0,
                    "in [0, 1) (0: run all iterations)");
  ECMO_OPTION_CHECK(
      kOptions,
      affinity_tolerance,
      affinity_tolerance > 0.0 && std::isfinite(affinity_tolerance),
      "> 0 and finite");
  ECMO_OPTION_CHECK(kOptions,
                    rank_tolerance,
                    rank_tolerance > 0.0 && rank_tolerance < 1.0,
                    "in (0, 1)");
  ECMO_OPTION_CHECK(kOptions,
                    max_solver_time_in_seconds,
                    max_solver_time_in_seconds > 0.0,
                    "> 0");
  return true;
}

bool ValidateClosedSimplexPreference(const std::vector<double>& preference,
                                     int num_objectives,
                                     std::string* error) {
  std::ostringstream os;
  if (static_cast<int>(preference.size()) != num_objectives) {
    os << "The preference has " << preference.size()
       << " entries but the problem has " << num_objectives
       << " objectives; give one weight per objective.";
  } else {
    double sum = 0.0;
    for (size_t s = 0; s < preference.size() && os.str().empty(); ++s) {
      if (!std::isfinite(preference[s]) || preference[s] < 0.0) {
        os << "Preference entry " << s << " is " << preference[s]
           << "; linear scalarization needs weights in the closed simplex "
              "(finite, >= 0).";
      }
      sum += preference[s];
    }
    if (os.str().empty() && std::abs(sum - 1.0) > 1e-9) {
      os.precision(12);
      os << "The preference sums to " << sum
         << "; weights must sum to 1 (divide each by " << sum << ").";
    }
  }
  if (error != nullptr) *error = os.str();
  return os.str().empty();
}

bool ExtractAffineConstraints(Evaluator* evaluator,
                              const Eigen::VectorXd& z0,
                              double tolerance,
                              AffineConstraints* constraints,
                              std::string* error) {
  auto fail = [&](const std::string& message) {
    if (error != nullptr) *error = message;
    return false;
  };
  if (evaluator == nullptr || constraints == nullptr) {
    return fail("ExtractAffineConstraints: null evaluator or output.");
  }
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  if (z0.size() != k) {
    std::ostringstream os;
    os << "ExtractAffineConstraints: the point has " << z0.size()
       << " entries but the problem has " << k << " parameters.";
    return fail(os.str());
  }
  constraints->A.resize(q, k);
  constraints->b.resize(q);
  if (q == 0) return true;

  // Linearizes at a point: h and the dense J_h, one J^T e_i per row.
  Eigen::VectorXd f(S);
  Eigen::MatrixXd grad_f(k, S);
  auto linearize = [&](const Eigen::VectorXd& z,
                       Eigen::VectorXd* h,
                       Eigen::MatrixXd* jacobian,
                       std::string* message) {
    h->resize(q);
    if (!evaluator->Evaluate(
            z.data(), f.data(), h->data(), grad_f.data(), message)) {
      return false;
    }
    jacobian->resize(q, k);
    Eigen::VectorXd e = Eigen::VectorXd::Zero(q), row(k);
    for (int i = 0; i < q; ++i) {
      e[i] = 1.0;
      evaluator->JacobianTransposeMultiply(e.data(), row.data());
      e[i] = 0.0;
      jacobian->row(i) = row.transpose();
    }
    return jacobian->allFinite();
  };
  Eigen::VectorXd h0, h1;
  Eigen::MatrixXd J0, J1;
  std::string message;
  if (!linearize(z0, &h0, &J0, &message)) {
    return fail(
        "ExtractAffineConstraints: evaluating the constraints at the "
        "start point failed: " +
        message);
  }
  // A fixed pseudo-random direction (deterministic).
  Eigen::VectorXd d(k);
  for (int i = 0; i < k; ++i) d[i] = std::sin(1.0 + 2.3 * i) + 0.25;
  d *= 0.5 * std::max(1.0, z0.norm()) / d.norm();
  const Eigen::VectorXd z1 = z0 + d;
  if (!linearize(z1, &h1, &J1, &message)) {
    return fail(
        "ExtractAffineConstraints: evaluating the constraints at the "
        "second point z0 + d failed (" +
        message +
        "); the affinity check needs h defined there. Pass the "
        "constraints explicitly instead.");
  }
  const double j_scale = 1.0 + J0.cwiseAbs().maxCoeff();
  const Eigen::VectorXd predicted = h0 + J0 * d;
  int worst_row = -1;
  double worst = 0.0;
  const char* what = "";
  for (int i = 0; i < q; ++i) {
    const double jac_error = (J1.row(i) - J0.row(i)).cwiseAbs().maxCoeff();
    const double h_scale = 1.0 + std::abs(h0[i]) + std::abs(h1[i]) +
                           J0.row(i).cwiseAbs().sum() * d.cwiseAbs().maxCoeff();
    const double value_error = std::abs(h1[i] - predicted[i]) / h_scale;
    if (jac_error / j_scale > worst) {
      worst = jac_error / j_scale;
      worst_row = i;
      what = "its gradient changes";
    }
    if (value_error > worst) {
      worst = value_error;
      worst_row = i;
      what = "its value departs from the linear model";
    }
  }
  if (worst > tolerance) {
    std::ostringstream os;
    os.precision(6);
    os << "The constraints are not affine: constraint residual " << worst_row
       << " fails the affinity check between z0 and z0 + d (" << what
       << "; relative error " << worst
       << " > affinity_tolerance = " << tolerance
       << "). Linear scalarization needs affine constraints A z = b; use "
          "ecmo::Solve (weighted Chebyshev) for nonlinear constraints.";
    return fail(os.str());
  }
  constraints->A = J0;
  constraints->b = J0 * z0 - h0;
  return true;
}

bool LinearScalarization::Summary::IsSolutionUsable() const {
  return ecmo::IsSolutionUsable(termination_type);
}

std::string LinearScalarization::Summary::BriefReport() const {
  std::ostringstream os;
  os.precision(6);
  os << "ecmo::SolveLinearScalarization Report: Iterations: " << iterations
     << ", L: " << lipschitz_constant << ", L_lambda: " << weighted_objective
     << ", ||K||^2: " << kkt_residual_sq
     << ", Termination: " << TerminationTypeName(termination_type);
  return os.str();
}

std::string LinearScalarization::Summary::FullReport() const {
  internal::ReportWriter report(
      "ceres-ecmo Linear Scalarization Report (Algorithm 2)");
  report.Row("Parameters (k)", std::to_string(num_parameters));
  report.Row("Objectives (S)", std::to_string(num_objectives));
  report.Row("Affine constraints (q)", std::to_string(num_constraints));
  report.Row("Constraints", constraint_source);
  report.Row("Preference lambda", FormatVector(preference));
  report.Section("Step");
  report.Row("  Lipschitz constant L", FormatNumber(lipschitz_constant));
  report.Row("  L estimated by backtracking",
             lipschitz_estimated ? "yes" : "no");
  report.Row("  Increases of the estimate",
             std::to_string(num_lipschitz_increases));
  report.Section("Point");
  report.Row("  z0 (projected onto A z = b)",
             FormatVector(projected_initial_z));
  report.Row("  z", FormatVector(z));
  report.Row("  Objectives", FormatVector(objectives));
  report.Row("  L_lambda(z0)", FormatNumber(initial_weighted_objective));
  report.Row("  L_lambda(z)", FormatNumber(weighted_objective));
  report.Section("KKT system of the LS problem");
  report.Row(
      "  ||grad F lambda + A^T v||^2",
      FormatNumber(kkt_stationarity.size() ? kkt_stationarity.squaredNorm()
                                           : 0.0));
  report.Row("  ||A z - b||^2",
             FormatNumber(kkt_feasibility.size() ? kkt_feasibility.squaredNorm()
                                                 : 0.0));
  report.Row("  ||K||^2", FormatNumber(kkt_residual_sq));
  report.Row("  ||A z - b||_inf", FormatNumber(constraint_max_norm));
  report.Row("  v (least squares)", FormatVector(multiplier_v));
  report.Section("Work");
  report.Row("  Iterations", std::to_string(iterations));
  report.Evaluations(evaluations);
  report.TotalTime(total_time_in_seconds);
  report.Termination(termination_type, message);
  return report.str();
}

void Solve(const LinearScalarization::Options& options,
           Evaluator* evaluator,
           const std::vector<double>& preference,
           Eigen::VectorXd* z,
           LinearScalarization::Summary* summary) {
  if (summary == nullptr) return;
  const AffineConstraints* constraints = options.constraints.get();
  const internal::WallTimer timer;
  *summary = LinearScalarization::Summary();
  summary->preference = preference;
  auto fail = [&](const std::string& message) {
    internal::Fail(timer, message, summary);
  };
  std::string error;
  if (!options.IsValid(&error)) return fail(error);
  if (evaluator == nullptr || z == nullptr) {
    return fail(
        "ecmo::Solve (linear scalarization): evaluator and z must not be "
        "null.");
  }
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q_eval = evaluator->NumConstraints();
  summary->num_parameters = k;
  summary->num_objectives = S;
  if (S < 1) return fail("The problem has no objectives.");
  if (evaluator->manifold() != nullptr) {
    return fail(
        "Linear scalarization cannot solve on a manifold: the evaluator "
        "declares one (Evaluator::manifold() != nullptr, e.g. a parameter "
        "block with Problem::SetManifold), but Algorithm 2 projects onto "
        "{A z = b} in R^k and would leave it. Use ecmo::Solve with "
        "WC_AUGMENTED_LAGRANGIAN or WC_PENALTY_LBFGS, or write the manifold "
        "as an equality constraint.");
  }
  if (evaluator->NumInequalityConstraints() > 0 || evaluator->HasBounds()) {
    return fail(
        "Linear scalarization (Algorithm 2) projects onto the affine set "
        "{A z = b} and takes neither inequality constraints nor bounds; this "
        "problem has some. Use ecmo::Solve with WC_AUGMENTED_LAGRANGIAN (the "
        "default) or the Ipopt reference.");
  }
  if (z->size() != k) {
    std::ostringstream os;
    os << "The start point has " << z->size() << " entries but the problem has "
       << k << " parameters.";
    return fail(os.str());
  }
  if (!z->allFinite()) {
    return fail(
        "The start point has non-finite entries; initialize every "
        "parameter.");
  }
  if (!ValidateClosedSimplexPreference(preference, S, &error)) {
    return fail(error);
  }
  Eigen::VectorXd lambda =
      Eigen::Map<const Eigen::VectorXd>(preference.data(), S);
  lambda /= lambda.sum();

  AffineConstraints extracted;
  const AffineConstraints* used = constraints;
  if (constraints == nullptr) {
    if (!ExtractAffineConstraints(
            evaluator, *z, options.affinity_tolerance, &extracted, &error)) {
      return fail(error);
    }
    used = &extracted;
    summary->constraint_source = "extracted from the problem (verified affine)";
  } else {
    summary->constraint_source = "given";
    std::ostringstream os;
    const bool empty = constraints->A.size() == 0 && constraints->b.size() == 0;
    if (!empty && (constraints->A.cols() != k ||
                   constraints->A.rows() != constraints->b.size())) {
      os << "AffineConstraints: A is " << constraints->A.rows() << " x "
         << constraints->A.cols() << " and b has " << constraints->b.size()
         << " entries; A must be q x " << k << " (k = number of parameters) "
         << "and b must have q entries.";
    } else if (!constraints->A.allFinite() || !constraints->b.allFinite()) {
      os << "AffineConstraints: A or b has non-finite entries.";
    }
    if (!os.str().empty()) return fail(os.str());
  }
  const int q = static_cast<int>(used->A.rows());
  summary->num_constraints = q;
  AffineProjector projector;
  if (!projector.Initialize(*used, options.rank_tolerance, &error)) {
    return fail(error);
  }

  summary->initial_z = *z;
  Eigen::VectorXd zt = projector.Project(*z);
  summary->projected_initial_z = zt;

  Eigen::VectorXd f(S), h(q_eval), f_trial(S);
  Eigen::MatrixXd grad_f(k, S);
  // L_lambda and its gradient at z.
  auto evaluate = [&](const Eigen::VectorXd& point,
                      Eigen::VectorXd* values,
                      Eigen::VectorXd* gradient,
                      double* weighted,
                      std::string* message) {
    if (!evaluator->Evaluate(point.data(),
                             values->data(),
                             h.data(),
                             gradient != nullptr ? grad_f.data() : nullptr,
                             message)) {
      return false;
    }
    *weighted = lambda.dot(*values);
    if (gradient != nullptr) *gradient = grad_f * lambda;
    return std::isfinite(*weighted) &&
           (gradient == nullptr || gradient->allFinite());
  };

  double value = 0.0;
  Eigen::VectorXd gradient(k);
  if (!evaluate(zt, &f, &gradient, &value, &error)) {
    return fail("At the projected start point: " +
                (error.empty() ? std::string("non-finite value") : error));
  }
  summary->initial_weighted_objective = value;

  const bool backtracking = options.lipschitz_constant == 0.0;
  summary->lipschitz_estimated = backtracking;
  double L = options.lipschitz_constant;
  if (backtracking) {
    L = options.initial_lipschitz_estimate;
    if (L == 0.0) {
      // Secant estimate along the first projected gradient direction.
      const Eigen::VectorXd d = projector.Project(zt - gradient) - zt;
      const double dn = d.norm();
      L = 1.0;
      if (dn > 0.0) {
        const double s = 1e-4 * std::max(1.0, zt.norm()) / dn;
        Eigen::VectorXd g2(k), f2(S);
        double v2;
        if (evaluate(zt + s * d, &f2, &g2, &v2, &error)) {
          const double secant = (g2 - gradient).norm() / (s * dn);
          if (secant > 0.0 && std::isfinite(secant)) L = secant;
        }
      }
    }
  }

  auto kkt = [&](const Eigen::VectorXd& g, const Eigen::VectorXd& point) {
    summary->multiplier_v = projector.Multiplier(g);
    summary->kkt_stationarity =
        q > 0 ? Eigen::VectorXd(g + projector.A().transpose() *
                                        summary->multiplier_v)
              : g;
    summary->kkt_feasibility = projector.Residual(point);
    summary->constraint_norm = q > 0 ? summary->kkt_feasibility.norm() : 0.0;
    summary->constraint_max_norm =
        q > 0 ? summary->kkt_feasibility.cwiseAbs().maxCoeff() : 0.0;
    summary->kkt_residual_sq =
        summary->kkt_stationarity.squaredNorm() +
        (q > 0 ? summary->kkt_feasibility.squaredNorm() : 0.0);
  };

  auto record = [&](int t, double weighted, double lipschitz, double step) {
    if (!options.record_history) return;
    LinearScalarizationIteration it;
    it.iteration = t;
    it.weighted_objective = weighted;
    it.lipschitz_constant = lipschitz;
    it.step_norm = step;
    summary->history.push_back(it);
  };
  record(0, value, backtracking ? 0.0 : L, 0.0);

  summary->termination_type = ceres::NO_CONVERGENCE;
  bool timed_out = false;
  int t = 0;
  for (; t < options.max_iterations; ++t) {
    if (options.kkt_tolerance > 0.0) {
      kkt(gradient, zt);
      if (summary->kkt_residual_sq <= options.kkt_tolerance) {
        std::ostringstream os;
        os << "||K||^2 = " << summary->kkt_residual_sq
           << " <= kkt_tolerance = " << options.kkt_tolerance << ".";
        summary->termination_type = ceres::CONVERGENCE;
        summary->message = os.str();
        break;
      }
    }
    if (timer.Seconds() > options.max_solver_time_in_seconds) {
      summary->message = "Maximum solver time reached.";
      timed_out = true;
      break;
    }
    Eigen::VectorXd trial;
    double trial_value = 0.0;
    bool accepted = false;
    for (int increases = 0;; ++increases) {
      trial = projector.Project(zt - gradient / L);
      const bool ok = evaluate(trial, &f_trial, nullptr, &trial_value, &error);
      if (!backtracking) {
        if (!ok) {
          std::ostringstream os;
          os << "Iteration " << t << ": evaluation failed at the new point ("
             << (error.empty() ? "non-finite value" : error)
             << "); the step 1/L = " << 1.0 / L
             << " may be too long (is L = " << L
             << " a Lipschitz constant of grad L_lambda?).";
          return fail(os.str());
        }
        accepted = true;
        break;
      }
      const Eigen::VectorXd step = trial - zt;
      const double model = value + gradient.dot(step) +
                           0.5 * L * step.squaredNorm() +
                           1e-14 * (1.0 + std::abs(value));
      if (ok && trial_value <= model) {
        accepted = true;
        break;
      }
      if (increases >= options.max_lipschitz_increases) break;
      L *= options.lipschitz_increase;
      ++summary->num_lipschitz_increases;
    }
    if (!accepted) {
      std::ostringstream os;
      os << "Iteration " << t << ": no Lipschitz estimate up to L = " << L
         << " satisfied the descent inequality (max_lipschitz_increases = "
         << options.max_lipschitz_increases
         << "). The objectives may not be smooth (or not convex) here.";
      return fail(os.str());
    }
    const double step_norm = (trial - zt).norm();
    zt = trial;
    if (!evaluate(zt, &f, &gradient, &value, &error)) {
      return fail("Iteration " + std::to_string(t) + ": " + error);
    }
    record(t + 1, value, L, step_norm);
  }
  summary->iterations = t;
  if (summary->termination_type == ceres::NO_CONVERGENCE && !timed_out) {
    std::ostringstream os;
    os << "Maximum number of iterations reached (T = " << options.max_iterations
       << "); Theorem: L_lambda(z_T) - L_lambda(z*) <= L/(2T) ||z0 - z*||^2 "
          "with L = "
       << L << ".";
    summary->message = os.str();
  }
  kkt(gradient, zt);
  summary->lipschitz_constant = L;
  summary->z = zt;
  summary->objectives = f;
  summary->weighted_objective = value;
  summary->evaluations = evaluator->counts();
  *z = zt;
  summary->total_time_in_seconds = timer.Seconds();
}

void Solve(const LinearScalarization::Options& options,
           Problem* problem,
           const std::vector<double>& preference,
           LinearScalarization::Summary* summary) {
  internal::SolveOnProblem(options, problem, preference, summary);
}

void SolveLinearScalarization(const LinearScalarizationOptions& options,
                              Evaluator* evaluator,
                              const std::vector<double>& preference,
                              const AffineConstraints* constraints,
                              Eigen::VectorXd* z,
                              LinearScalarizationSummary* summary) {
  if (constraints == nullptr) {
    Solve(options, evaluator, preference, z, summary);
    return;
  }
  LinearScalarization::Options with_constraints = options;
  with_constraints.constraints =
      std::make_shared<const AffineConstraints>(*constraints);
  Solve(with_constraints, evaluator, preference, z, summary);
}

void SolveLinearScalarization(const LinearScalarizationOptions& options,
                              const Problem& problem,
                              const std::vector<double>& preference,
                              LinearScalarizationSummary* summary) {
  internal::SolveOnProblem(options, &problem, preference, summary);
}

}  // namespace ecmo
