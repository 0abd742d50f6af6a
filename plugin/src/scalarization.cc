// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Reference point and objective scales of the WC scalarization
// (ecmo/scalarization.h): the single-objective solves behind the utopia
// point and the normalization.

#include "ecmo/scalarization.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "ecmo/solver.h"
#include "scalarization_internal.h"
#include "strategy.h"
#include "worker_thread.h"

namespace ecmo {

const char* ReferencePointTypeToString(ReferencePointType type) {
  switch (type) {
    case ReferencePointType::OBJECTIVE_OFFSET:
      return "OBJECTIVE_OFFSET";
    case ReferencePointType::GIVEN:
      return "GIVEN";
    case ReferencePointType::SINGLE_OBJECTIVE:
      return "SINGLE_OBJECTIVE";
    case ReferencePointType::UTOPIA:
      return "UTOPIA";
  }
  return "UNKNOWN";
}

namespace {

// Objective `objective` of `inner` alone, with all of inner's constraints
// (equalities, inequalities, bounds, manifold) and second-order structure,
// so that min f_s is solved on the same feasible set as the WC problems.
// Evaluations are counted by the wrapped evaluator (and by this one).
class SingleObjectiveEvaluator final : public Evaluator {
 public:
  SingleObjectiveEvaluator(Evaluator* inner, int objective)
      : inner_(inner),
        objective_(objective),
        f_(inner->NumObjectives()),
        grad_f_(inner->NumParameters(), inner->NumObjectives()),
        weights_(Eigen::VectorXd::Zero(inner->NumObjectives())) {
    if (inner->HasBounds()) {
      SetBounds(inner->lower_bounds(), inner->upper_bounds());
    }
  }

  int NumParameters() const override { return inner_->NumParameters(); }
  int NumObjectives() const override { return 1; }
  int NumConstraints() const override { return inner_->NumConstraints(); }
  int NumInequalityConstraints() const override {
    return inner_->NumInequalityConstraints();
  }
  const ceres::Manifold* manifold() const override {
    return inner_->manifold();
  }
  bool HasExactLagrangianHessian() const override {
    return inner_->HasExactLagrangianHessian();
  }
  bool HasGaussNewtonMatrix() const override {
    return inner_->HasGaussNewtonMatrix();
  }
  bool HasWeightedLeastSquaresSolver() const override {
    return inner_->HasWeightedLeastSquaresSolver();
  }

 protected:
  bool DoEvaluate(const double* z,
                  double* f,
                  double* h,
                  double* grad_f,
                  std::string* error) override {
    if (!inner_->Evaluate(z,
                          f_.data(),
                          h,
                          grad_f != nullptr ? grad_f_.data() : nullptr,
                          error)) {
      return false;
    }
    f[0] = f_[objective_];
    if (grad_f != nullptr) {
      Eigen::Map<Eigen::VectorXd>(grad_f, NumParameters()) =
          grad_f_.col(objective_);
    }
    return true;
  }
  void DoJacobianTransposeMultiply(const double* v,
                                   double* out) const override {
    inner_->JacobianTransposeMultiply(v, out);
  }
  void DoJacobianMultiply(const double* x, double* out) const override {
    inner_->JacobianMultiply(x, out);
  }
  // The products below take one weight per objective: a[0] goes to this
  // objective, 0 to the others.
  bool DoLagrangianHessianMultiply(const double* a,
                                   const double* b,
                                   const double* x,
                                   double* out,
                                   std::string* error) override {
    if (!inner_->HasExactLagrangianHessian()) {
      // Gradient differences of this evaluator (the base class's).
      return Evaluator::DoLagrangianHessianMultiply(a, b, x, out, error);
    }
    weights_[objective_] = a[0];
    return inner_->LagrangianHessianMultiply(weights_.data(), b, x, out, error);
  }
  bool DoGaussNewtonMatrix(const double* a,
                           const double* c,
                           Eigen::SparseMatrix<double>* lower,
                           std::string* error) override {
    weights_[objective_] = a[0];
    return inner_->GaussNewtonMatrix(weights_.data(), c, lower, error);
  }
  bool DoSolveWeightedLeastSquares(const ceres::Solver::Options& options,
                                   const double* a,
                                   double mu,
                                   const double* shift,
                                   double* z,
                                   ceres::Solver::Summary* summary,
                                   std::string* error) override {
    weights_[objective_] = a[0];
    return inner_->SolveWeightedLeastSquares(
        options, weights_.data(), mu, shift, z, summary, error);
  }

 private:
  Evaluator* inner_;
  int objective_;
  Eigen::VectorXd f_;
  Eigen::MatrixXd grad_f_;
  Eigen::VectorXd weights_;  // S: the products' objective weights
};

// The payoff table: row j holds F at the minimizer of f_j found from z.
// Solve j runs on evaluators[t] for the thread t of parallel_for that
// claims it (all on evaluators[0] when parallel_for is empty); the rows
// are then assembled in order, so the table, the notes and the first error
// reported do not depend on which thread solved what.
bool SolvePayoffTable(const Solver::Options& options,
                      const std::vector<Evaluator*>& evaluators,
                      const internal::ParallelFor& parallel_for,
                      const Eigen::VectorXd& z,
                      Scalarization* out,
                      std::string* error) {
  const int S = evaluators[0]->NumObjectives();
  const int q = evaluators[0]->NumConstraints();
  Solver::Options single = options;
  single.objective_offset.clear();
  single.automatic_objective_offset = false;
  single.reference_point.clear();
  single.objective_scale.clear();
  single.normalize_objectives = false;
  single.warm_start = Solver::Options::WarmStart();
  single.callbacks.clear();
  single.record_history = false;
  single.minimizer_progress_to_stdout = false;
  single.initial_rho = std::numeric_limits<double>::quiet_NaN();

  internal::WallTimer timer;
  std::vector<EvaluationCounts> before;
  for (const Evaluator* e : evaluators) before.push_back(e->counts());
  // Row s: F at the solve's end, or why there is none.
  struct Row {
    Eigen::VectorXd f;
    ceres::TerminationType termination = ceres::FAILURE;
    std::string error;
  };
  std::vector<Row> rows(S);
  const auto solve_row = [&](int s, int t) {
    Evaluator* evaluator = evaluators[t];
    Row& row = rows[s];
    SingleObjectiveEvaluator one(evaluator, s);
    Eigen::VectorXd zs = z;
    Solver::Summary summary;
    Solve(single, &one, {1.0}, &zs, &summary);
    row.termination = summary.termination_type;
    if (!summary.IsSolutionUsable() || summary.z.size() != z.size()) {
      std::ostringstream os;
      os << "Computing the automatic reference point (utopia): the "
            "single-objective solve min f_"
         << s << " s.t. h = 0 ended in "
         << TerminationTypeName(summary.termination_type) << ": "
         << summary.message
         << " Give Solver::Options::reference_point (a point below every "
            "attainable objective value) or objective_offset instead.";
      row.error = os.str();
      return;
    }
    Eigen::VectorXd h(q);
    row.f.resize(S);
    if (!evaluator->Evaluate(
            summary.z.data(), row.f.data(), h.data(), nullptr, &row.error)) {
      row.f.resize(0);
      if (row.error.empty()) row.error = "The evaluator failed.";
    }
  };
  if (parallel_for && evaluators.size() > 1 && S > 1) {
    parallel_for(S, solve_row);
  } else {
    // Stops at the first failure, which is the one reported.
    for (int s = 0; s < S; ++s) {
      solve_row(s, 0);
      if (rows[s].f.size() != S) break;
    }
  }

  out->payoff_table.resize(S, S);
  out->ideal_point.resize(S);
  std::ostringstream notes;
  for (int s = 0; s < S; ++s) {
    const Row& row = rows[s];
    if (row.f.size() != S) {
      *error = row.error;
      return false;
    }
    if (row.termination != ceres::CONVERGENCE) {
      notes << "The single-objective solve of objective " << s << " ended "
            << TerminationTypeName(row.termination)
            << "; its value is used as the ideal estimate. ";
    }
    out->payoff_table.row(s) = row.f.transpose();
  }
  out->num_single_objective_solves = S;
  for (int s = 0; s < S; ++s) {
    out->ideal_point[s] = out->payoff_table.col(s).minCoeff();
  }
  out->nadir_point = out->payoff_table.colwise().maxCoeff().transpose();
  out->evaluations = EvaluationCounts();
  for (size_t t = 0; t < evaluators.size(); ++t) {
    out->evaluations += evaluators[t]->counts() - before[t];
  }
  out->time_in_seconds = timer.Seconds();
  out->message = notes.str();
  return true;
}

}  // namespace

bool ComputeScalarization(const Solver::Options& options,
                          Evaluator* evaluator,
                          const Eigen::VectorXd& z,
                          Scalarization* out,
                          std::string* error) {
  return ComputeScalarization(
      options, std::vector<Evaluator*>{evaluator}, z, out, error);
}

bool ComputeScalarization(const Solver::Options& options,
                          const std::vector<Evaluator*>& evaluators,
                          const Eigen::VectorXd& z,
                          Scalarization* out,
                          std::string* error) {
  if (evaluators.empty()) {
    *error = "ComputeScalarization: no evaluator given; pass at least one.";
    return false;
  }
  for (size_t t = 0; t < evaluators.size(); ++t) {
    const Evaluator* e = evaluators[t];
    if (e == nullptr) {
      *error = "ComputeScalarization: evaluators[" + std::to_string(t) +
               "] is null; pass one instance of the problem per thread.";
      return false;
    }
    const Evaluator* first = evaluators[0];
    if (e->NumParameters() != first->NumParameters() ||
        e->NumObjectives() != first->NumObjectives() ||
        e->NumConstraints() != first->NumConstraints()) {
      std::ostringstream os;
      os << "ComputeScalarization: evaluators[" << t << "] has "
         << e->NumParameters() << " parameters, " << e->NumObjectives()
         << " objectives and " << e->NumConstraints()
         << " constraints, evaluators[0] " << first->NumParameters() << ", "
         << first->NumObjectives() << " and " << first->NumConstraints()
         << "; every evaluator must be an instance of the same problem.";
      *error = os.str();
      return false;
    }
  }
  if (z.size() != evaluators[0]->NumParameters()) {
    std::ostringstream os;
    os << "ComputeScalarization: the start point has " << z.size()
       << " entries for " << evaluators[0]->NumParameters() << " parameters.";
    *error = os.str();
    return false;
  }
  const int threads =
      std::min<int>(evaluators.size(), evaluators[0]->NumObjectives());
  if (threads <= 1) {
    return internal::ComputeScalarization(
        options, evaluators, internal::ParallelFor(), z, out, error);
  }
  // The caller is thread 0; helpers 1 .. threads - 1 come from the pool.
  const internal::ParallelFor parallel_for =
      [threads](int n, const std::function<void(int, int)>& body) {
        internal::ForEachOnTeam(n, threads, body);
      };
  return internal::ComputeScalarization(
      options, evaluators, parallel_for, z, out, error);
}

namespace internal {

bool NeedsSingleObjectiveSolves(const Solver::Options& options,
                                int num_objectives) {
  if (num_objectives <= 1 || options.scalarization != nullptr) return false;
  const bool utopia = !options.automatic_objective_offset &&
                      options.objective_offset.empty() &&
                      options.reference_point.empty();
  return utopia ||
         (options.normalize_objectives && options.objective_scale.empty());
}

bool ComputeScalarization(const Solver::Options& options,
                          const std::vector<Evaluator*>& evaluators,
                          const ParallelFor& parallel_for,
                          const Eigen::VectorXd& z,
                          Scalarization* out,
                          std::string* error) {
  Evaluator* evaluator = evaluators[0];
  *out = Scalarization();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  if (options.scalarization != nullptr) {
    const Scalarization& given = *options.scalarization;
    if (given.reference_point.size() != S ||
        given.objective_scale.size() != S ||
        !given.reference_point.allFinite() ||
        !(given.objective_scale.array() > 0.0).all() ||
        !given.objective_scale.allFinite()) {
      std::ostringstream os;
      os << "Solver::Options::scalarization has a reference point of size "
         << given.reference_point.size() << " and scales of size "
         << given.objective_scale.size() << " for " << S
         << " objectives (or non-finite / non-positive entries); compute it "
            "with ComputeScalarization for this problem.";
      *error = os.str();
      return false;
    }
    if (!options.objective_offset.empty() || !options.reference_point.empty() ||
        !options.objective_scale.empty() ||
        options.automatic_objective_offset) {
      *error =
          "Solver::Options::scalarization is set together with "
          "objective_offset, reference_point, objective_scale or "
          "automatic_objective_offset; give one of them.";
      return false;
    }
    // Shared: its cost belongs to whoever computed it, not to this solve.
    *out = given;
    out->evaluations = EvaluationCounts();
    out->time_in_seconds = 0.0;
    out->num_single_objective_solves = 0;
    return true;
  }
  Eigen::VectorXd f0(S), h0(q);
  if (!evaluator->Evaluate(z.data(), f0.data(), h0.data(), nullptr, error)) {
    *error = "At the start point: " + *error;
    return false;
  }
  const bool given_scale = !options.objective_scale.empty();
  if (options.automatic_objective_offset) {
    out->reference_point_type = ReferencePointType::OBJECTIVE_OFFSET;
    out->reference_point.resize(S);
    for (int s = 0; s < S; ++s) {
      out->reference_point[s] = -(1.0 + std::max(0.0, -f0[s]));
    }
  } else if (!options.objective_offset.empty()) {
    out->reference_point_type = ReferencePointType::OBJECTIVE_OFFSET;
    out->reference_point =
        -Eigen::Map<const Eigen::VectorXd>(options.objective_offset.data(), S);
  } else if (!options.reference_point.empty()) {
    out->reference_point_type = ReferencePointType::GIVEN;
    out->reference_point =
        Eigen::Map<const Eigen::VectorXd>(options.reference_point.data(), S);
  } else if (S == 1) {
    out->reference_point_type = ReferencePointType::SINGLE_OBJECTIVE;
    out->reference_point = Eigen::VectorXd::Zero(1);
  } else {
    out->reference_point_type = ReferencePointType::UTOPIA;
  }
  const bool need_table = NeedsSingleObjectiveSolves(options, S);
  if (need_table &&
      !SolvePayoffTable(options, evaluators, parallel_for, z, out, error)) {
    return false;
  }
  // An objective that does not trade off (nadir = ideal) has no range: its
  // magnitude sets the floor, so that margins and scales stay well above
  // rounding (1e-4 of the magnitude is 1e12 ulps).
  const auto range_of = [&](int s) {
    const double ideal = out->ideal_point[s];
    const double nadir = out->nadir_point[s];
    return std::max(nadir - ideal,
                    1e-4 * std::max({1.0, std::abs(ideal), std::abs(nadir)}));
  };
  Eigen::VectorXd utopia;
  if (need_table) {
    utopia.resize(S);
    for (int s = 0; s < S; ++s) {
      utopia[s] = out->ideal_point[s] - options.utopia_margin * range_of(s);
    }
  }
  if (out->reference_point_type == ReferencePointType::UTOPIA) {
    out->reference_point = utopia;
  }
  if (given_scale) {
    out->scale_given = true;
    out->objective_scale =
        Eigen::Map<const Eigen::VectorXd>(options.objective_scale.data(), S);
  } else if (options.normalize_objectives && need_table) {
    out->normalized = true;
    out->objective_scale.resize(S);
    for (int s = 0; s < S; ++s) {
      out->objective_scale[s] =
          std::max(out->nadir_point[s] - utopia[s], range_of(s));
    }
  } else {
    out->objective_scale = Eigen::VectorXd::Ones(S);
  }
  return true;
}

}  // namespace internal
}  // namespace ecmo
