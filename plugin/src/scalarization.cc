// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Reference point and objective scales of the WC scalarization
// (ecmo/scalarization.h): the single-objective solves behind the utopia
// point and the normalization.

#include "ecmo/scalarization.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <utility>

#include "ecmo/internal/report.h"
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

// delta_s of the lexicographic stage, relative to the first payoff table's
// range of f_s (see SolvePayoffTable).
constexpr double kLexicographicTolerance = 1e-6;

// The weighted objective w . F of `inner` (w of size S, fixed), with all
// of inner's constraints (equalities, inequalities, bounds, manifold) and
// second-order structure, so that it is minimized on the same feasible set
// as the WC problems: w = e_s is objective s alone; the lexicographic
// stage adds small weights on the other objectives.
// Evaluations are counted by the wrapped evaluator (and by this one).
class WeightedObjectiveEvaluator final : public Evaluator {
 public:
  WeightedObjectiveEvaluator(Evaluator* inner, const Eigen::VectorXd& weights)
      : inner_(inner),
        weights_(weights),
        f_(inner->NumObjectives()),
        grad_f_(inner->NumParameters(), inner->NumObjectives()),
        scaled_(inner->NumObjectives()) {
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
    f[0] = weights_.dot(f_);
    if (grad_f != nullptr) {
      Eigen::Map<Eigen::VectorXd>(grad_f, NumParameters()) =
          grad_f_ * weights_;
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
  // The products below take one weight per objective: a[0] w.
  bool DoLagrangianHessianMultiply(const double* a,
                                   const double* b,
                                   const double* x,
                                   double* out,
                                   std::string* error) override {
    if (!inner_->HasExactLagrangianHessian()) {
      // Gradient differences of this evaluator (the base class's).
      return Evaluator::DoLagrangianHessianMultiply(a, b, x, out, error);
    }
    scaled_ = a[0] * weights_;
    return inner_->LagrangianHessianMultiply(scaled_.data(), b, x, out, error);
  }
  bool DoGaussNewtonMatrix(const double* a,
                           const double* c,
                           Eigen::SparseMatrix<double>* lower,
                           std::string* error) override {
    scaled_ = a[0] * weights_;
    return inner_->GaussNewtonMatrix(scaled_.data(), c, lower, error);
  }
  bool DoSolveWeightedLeastSquares(const ceres::Solver::Options& options,
                                   const double* a,
                                   double mu,
                                   const double* shift,
                                   double* z,
                                   ceres::Solver::Summary* summary,
                                   std::string* error) override {
    scaled_ = a[0] * weights_;
    return inner_->SolveWeightedLeastSquares(
        options, scaled_.data(), mu, shift, z, summary, error);
  }

 private:
  Evaluator* inner_;
  Eigen::VectorXd weights_;  // S, fixed
  Eigen::VectorXd f_;
  Eigen::MatrixXd grad_f_;
  Eigen::VectorXd scaled_;  // S: the products' objective weights
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
  // Row s: F at the solve's end (and the point), or why there is none.
  struct Row {
    Eigen::VectorXd f;
    Eigen::VectorXd z;
    ceres::TerminationType termination = ceres::FAILURE;
    std::string error;
    bool lexicographic = false;
  };
  std::vector<Row> rows(S);
  // Minimizes weights . F from `start` on evaluators[t]: true with
  // F and the point at its end when the solve ended usable.
  const auto minimize = [&](const Eigen::VectorXd& weights,
                            const Eigen::VectorXd& start,
                            int t,
                            Row* row) {
    Evaluator* evaluator = evaluators[t];
    WeightedObjectiveEvaluator one(evaluator, weights);
    Eigen::VectorXd zs = start;
    Solver::Summary summary;
    Solve(single, &one, {1.0}, &zs, &summary);
    row->termination = summary.termination_type;
    if (!summary.IsSolutionUsable() || summary.z.size() != z.size()) {
      row->error = TerminationTypeName(summary.termination_type) +
                   std::string(": ") + summary.message;
      return false;
    }
    Eigen::VectorXd h(q);
    row->f.resize(S);
    if (!evaluator->Evaluate(
            summary.z.data(), row->f.data(), h.data(), nullptr, &row->error)) {
      row->f.resize(0);
      if (row->error.empty()) row->error = "The evaluator failed.";
      return false;
    }
    row->z = summary.z;
    return true;
  };
  const auto solve_row = [&](int s, int t) {
    Row& row = rows[s];
    if (!minimize(Eigen::VectorXd::Unit(S, s), z, t, &row)) {
      row.f.resize(0);
      row.error =
          "Computing the automatic reference point (utopia): the "
          "single-objective solve min f_" +
          std::to_string(s) + " s.t. h = 0 ended " + row.error +
          " Give Solver::Options::reference_point (a point below every "
          "attainable objective value) or objective_offset instead.";
    }
  };
  const auto for_each_objective = [&](const std::function<void(int, int)>& f) {
    if (parallel_for && evaluators.size() > 1 && S > 1) {
      parallel_for(S, f);
    } else {
      // Stops at the first failure, which is the one reported.
      for (int s = 0; s < S; ++s) {
        f(s, 0);
        if (rows[s].f.size() != S) break;
      }
    }
  };
  for_each_objective(solve_row);
  bool all_rows = true;
  for (const Row& row : rows) all_rows = all_rows && row.f.size() == S;
  // The lexicographic stage: a minimizer of f_s that is not unique (the
  // odometry chain of a pose graph is met exactly by a whole family of
  // poses) leaves the other objectives arbitrary, and the nadir, margin
  // and scales would inherit them. From each end, minimize
  // f_s + sum_t w_t f_t with w_t = delta_s / ((S - 1) (f_t(z_s) - f_t*)):
  // that raises f_s by at most delta_s = kLexicographicTolerance times the
  // first table's range of f_s, and takes the other objectives to their
  // minimum over (nearly) the set of minimizers of f_s. Where the
  // minimizer is unique it moves z by O(w), f_s by O(w^2) and the others
  // by about delta_s.
  int lexicographic_solves = 0;
  Eigen::MatrixXd first(S, S);
  Eigen::VectorXd best(S);
  if (all_rows) {
    for (int s = 0; s < S; ++s) first.row(s) = rows[s].f.transpose();
    best = first.colwise().minCoeff().transpose();
  }
  // delta_s comes from the table's range of f_s, which the other rows'
  // non-unique minimizers inflate too (f_2 = 1e6 at an arbitrary end of
  // f_1 makes delta_2 a million times too large). So the stage repeats
  // with the ranges of the table it produced, from the first solves'
  // points, for the rows whose delta shrank more than tenfold (at most
  // three passes; the ranges only shrink).
  if (all_rows && S > 1) {
    Eigen::MatrixXd table = first;
    Eigen::VectorXd used_delta = Eigen::VectorXd::Zero(S);
    for (int pass = 0; pass < 3; ++pass) {
      std::vector<Eigen::VectorXd> weights(S);
      std::vector<bool> redo(S, false);
      for (int s = 0; s < S; ++s) {
        const double delta =
            kLexicographicTolerance * (table.col(s).maxCoeff() - best[s]);
        weights[s] = Eigen::VectorXd::Unit(S, s);
        if (!(delta > 0.0) || !std::isfinite(delta)) continue;
        if (used_delta[s] > 0.0 && delta > 0.1 * used_delta[s]) continue;
        for (int t = 0; t < S; ++t) {
          const double excess = first(s, t) - best[t];
          const double size = std::max({std::abs(first(s, t)),
                                        std::abs(best[t]),
                                        std::numeric_limits<double>::min()});
          if (t == s || !(excess > 1e-12 * size)) continue;
          weights[s][t] = delta / ((S - 1) * excess);
        }
        redo[s] = weights[s].cwiseAbs().sum() > 1.0;
        if (redo[s]) used_delta[s] = delta;
      }
      std::vector<Row> lexicographic(S);
      for_each_objective([&](int s, int t) {
        if (!redo[s]) return;
        Row& row = lexicographic[s];
        if (minimize(weights[s], rows[s].z, t, &row) &&
            row.f[s] <= first(s, s) + 2.0 * used_delta[s]) {
          row.lexicographic = true;
        }
      });
      bool changed = false;
      for (int s = 0; s < S; ++s) {
        if (!redo[s]) continue;
        ++lexicographic_solves;
        if (lexicographic[s].lexicographic) {
          table.row(s) = lexicographic[s].f.transpose();
          changed = true;
        }
      }
      if (!changed) break;
    }
    for (int s = 0; s < S; ++s) rows[s].f = table.row(s).transpose();
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
  out->num_lexicographic_solves = lexicographic_solves;
  for (int s = 0; s < S; ++s) {
    // (The lexicographic stage may raise f_s at its own end by delta_s.)
    out->ideal_point[s] =
        std::min(out->payoff_table.col(s).minCoeff(), best[s]);
  }
  out->nadir_point = out->payoff_table.colwise().maxCoeff().transpose();
  if (lexicographic_solves > 0) {
    const Eigen::VectorXd first_nadir = first.colwise().maxCoeff().transpose();
    std::ostringstream changed;
    changed.precision(4);
    for (int s = 0; s < S; ++s) {
      const double range = first_nadir[s] - best[s];
      if (out->nadir_point[s] < first_nadir[s] - 0.01 * range) {
        changed << " f_" << s << " " << first_nadir[s] << " -> "
                << out->nadir_point[s] << ";";
      }
    }
    if (!changed.str().empty()) {
      notes << "Some single-objective minimizers were not unique: the "
               "lexicographic ends lowered the nadir estimate:"
            << changed.str() << " ";
    }
  }
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

std::string Scalarization::DescribeSolves() const {
  std::ostringstream os;
  os << num_single_objective_solves;
  if (num_lexicographic_solves > 0) {
    os << " + " << num_lexicographic_solves << " lexicographic";
  }
  os << " (" << evaluations.gradient_evaluations << " gradient evaluations, "
     << internal::FormatNumber(time_in_seconds) << " s"
     << (reused ? ", reused from an earlier solve on this problem)" : ")");
  return os.str();
}

double Scalarization::WcValue(const std::vector<double>& preference,
                              const Eigen::VectorXd& f) const {
  const int S = static_cast<int>(preference.size());
  double sum = 0.0;
  for (double p : preference) sum += p;
  if (S == 0 || f.size() != S || reference_point.size() != S ||
      objective_scale.size() != S || !(sum > 0.0)) {
    return std::numeric_limits<double>::infinity();
  }
  double value = -std::numeric_limits<double>::infinity();
  for (int s = 0; s < S; ++s) {
    value = std::max(
        value,
        preference[s] / sum * (f[s] - reference_point[s]) / objective_scale[s]);
  }
  return std::isfinite(value) ? value : std::numeric_limits<double>::infinity();
}

namespace internal {

bool CheckScalarizationSizes(const Solver::Options& options,
                             int num_objectives,
                             std::string* error) {
  for (const auto& [name, values] :
       {std::pair<const char*, const std::vector<double>*>{
            "objective_offset", &options.objective_offset},
        {"reference_point", &options.reference_point},
        {"objective_scale", &options.objective_scale}}) {
    if (!values->empty() &&
        static_cast<int>(values->size()) != num_objectives) {
      std::ostringstream os;
      os << "Solver::Options::" << name << " has " << values->size()
         << " entries but the problem has " << num_objectives
         << " objectives; give one per objective or none.";
      *error = os.str();
      return false;
    }
  }
  return true;
}

bool NeedsSingleObjectiveSolves(const Solver::Options& options,
                                int num_objectives) {
  if (num_objectives <= 1 || options.scalarization != nullptr) return false;
  // Only the automatic (utopia) reference point needs them; its
  // normalization reuses the same table.
  return !options.automatic_objective_offset &&
         options.objective_offset.empty() && options.reference_point.empty();
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
    out->num_lexicographic_solves = 0;
    return true;
  }
  if (!CheckScalarizationSizes(options, S, error)) return false;
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
