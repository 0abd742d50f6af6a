// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// When a sweep compares a warm-started point with a cold solve (see
// sweep_cold_check.h).

#include "sweep_cold_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "ecmo/internal/report.h"

namespace ecmo {
namespace internal {
namespace {

double Sum(const std::vector<double>& v) {
  double sum = 0.0;
  for (double x : v) sum += x;
  return sum;
}

bool HasScalarization(const Solver::Summary& s, int S) {
  const Scalarization& c = s.scalarization;
  return static_cast<int>(s.objectives.size()) == S &&
         c.reference_point.size() == S && c.objective_scale.size() == S;
}

// An objective counts as active when it is within kInactiveSlack of its
// scale (|f - r| at the point) of the level rho w / lambda + r at which its
// WC term reaches rho.
constexpr double kInactiveSlack = 1e-3;

// The active objectives' count, and *active the last of them (-1: none);
// -1 without a usable WC value.
int ActiveObjectives(const Solver::Summary& s,
                     const std::vector<double>& preference,
                     int* active) {
  const Scalarization& c = s.scalarization;
  const int S = static_cast<int>(preference.size());
  *active = -1;
  const double rho = c.WcValue(preference, s.objectives);
  if (!std::isfinite(rho)) return -1;
  const double sum = Sum(preference);
  int count = 0;
  for (int i = 0; i < S; ++i) {
    const double scale =
        std::max(std::abs(s.objectives[i] - c.reference_point[i]), 1e-300);
    const double level =
        rho * c.objective_scale[i] * sum / preference[i] + c.reference_point[i];
    if ((level - s.objectives[i]) / scale > kInactiveSlack) continue;
    ++count;
    *active = i;
  }
  return count;
}

// Within the options' feasibility tolerance (in the constraints' units).
bool Feasible(const Solver::Options& options, const Solver::Summary& s) {
  return s.num_constraints <= 0 ||
         s.constraint_max_norm <= options.feasibility_tolerance;
}

// Within 1e-6 of the larger: about what the certificate resolves of the
// values.
double WcTie(double a, double b) {
  return 1e-6 * std::max(std::abs(a), std::abs(b));
}

}  // namespace

bool ColdRetryIsBetter(const Solver::Options& options,
                       const Solver::Summary& warm,
                       const Solver::Summary& cold) {
  if (cold.termination_type == ceres::CONVERGENCE) return true;
  if (!cold.IsSolutionUsable()) return false;
  if (!warm.IsSolutionUsable()) return true;
  const bool cold_feasible = Feasible(options, cold);
  if (Feasible(options, warm) != cold_feasible) return cold_feasible;
  if (cold_feasible) {
    const double warm_value = warm.WcValue(), cold_value = cold.WcValue();
    const double tie = WcTie(warm_value, cold_value);
    if (cold_value < warm_value - tie) return true;
    if (warm_value < cold_value - tie) return false;
  }
  return cold.CertificateRatio(options) < warm.CertificateRatio(options);
}

bool ColdSolveBeatsFlaggedPoint(const Solver::Options& options,
                                const Solver::Summary& warm,
                                const Solver::Summary& cold) {
  if (!cold.IsSolutionUsable() || !Feasible(options, cold)) return false;
  const double warm_value = warm.WcValue(), cold_value = cold.WcValue();
  return cold_value < warm_value - WcTie(warm_value, cold_value);
}

// At a WC solution with one active objective, z minimizes that objective
// at least locally; f_j more than kAboveMinimum of its scale above the
// ideal point is not at its minimum.
bool SpuriousEnd(const Solver::Summary& s,
                 const std::vector<double>& preference,
                 std::string* why) {
  constexpr double kAboveMinimum = 1e-3;
  const Scalarization& c = s.scalarization;
  const int S = static_cast<int>(preference.size());
  if (S < 2 || c.ideal_point.size() != S || !HasScalarization(s, S)) {
    return false;
  }
  int active = -1;
  if (ActiveObjectives(s, preference, &active) != 1) return false;
  const double scale = std::max(
      std::abs(s.objectives[active] - c.reference_point[active]), 1e-300);
  const double above = (s.objectives[active] - c.ideal_point[active]) / scale;
  if (!(above > kAboveMinimum)) return false;
  *why = "a stationary point of objective " + std::to_string(active + 1) +
         " alone (the only active one) at f = " +
         FormatScientific(s.objectives[active], 4) + ", above its minimum " +
         FormatScientific(c.ideal_point[active], 4);
  return true;
}

bool CollapsedOntoSource(const Solver::Summary& s,
                         const std::vector<double>& preference,
                         const Solver::Summary& source,
                         const std::vector<double>& source_preference) {
  constexpr double kSame = 1e-6;
  const int S = static_cast<int>(preference.size());
  if (S < 2 || !HasScalarization(s, S) ||
      static_cast<int>(source.objectives.size()) != S ||
      static_cast<int>(source_preference.size()) != S) {
    return false;
  }
  const double sum = Sum(preference), source_sum = Sum(source_preference);
  bool same_preference = true;
  for (int i = 0; i < S; ++i) {
    if (std::abs(preference[i] / sum - source_preference[i] / source_sum) >
        1e-12) {
      same_preference = false;
    }
  }
  if (same_preference) return false;
  // With one objective active, a range of preferences selecting one point
  // is what an end of the front does (SpuriousEnd judges those).
  int active = -1;
  if (ActiveObjectives(s, preference, &active) < 2) return false;
  const Eigen::VectorXd& r = s.scalarization.reference_point;
  for (int i = 0; i < S; ++i) {
    const double scale = std::max(std::abs(s.objectives[i] - r[i]), 1e-300);
    if (!(std::abs(s.objectives[i] - source.objectives[i]) <= kSame * scale)) {
      return false;
    }
  }
  return true;
}

bool SaturatedCoordinates(Evaluator* evaluator,
                          const Solver::Summary& s,
                          const std::vector<double>& preference,
                          const Eigen::VectorXd& start,
                          double feasibility_tolerance,
                          ColdCheckScratch* scratch,
                          std::string* why) {
  // How much less a coordinate may move the objectives at the point than
  // at the start, and the local step (absolute: a logit's scale is 1
  // whatever its value, which drifts along the softmax's invariant
  // direction; an ordinary coordinate's gradient changes by curvature
  // times the step, far more than kLessThanAtStart of what it was at a
  // start less than 1 / kLocalStep * 1 / kLessThanAtStart away).
  constexpr double kLessThanAtStart = 1e-6;
  constexpr double kLocalStep = 1e-3;
  const int S = static_cast<int>(preference.size());
  const int k = evaluator->NumParameters();
  const int m = evaluator->NumConstraints();
  if (S < 1 || evaluator->manifold() != nullptr || s.z.size() != k ||
      start.size() != k || !HasScalarization(s, S) ||
      evaluator->NumObjectives() != S) {
    return false;
  }
  const Scalarization& c = s.scalarization;
  const double sum = Sum(preference);
  // Storage kept by the worker: nothing is allocated once it is sized
  // (a sweep's points allocate little, solve_workspace_test.cc).
  Eigen::VectorXd& a = scratch->weights;
  Eigen::VectorXd& f = scratch->f;
  Eigen::VectorXd& h0 = scratch->h0;
  Eigen::VectorXd& h = scratch->h;
  Eigen::VectorXd& x = scratch->z;
  Eigen::VectorXd& response = scratch->response;
  Eigen::MatrixXd& grad = scratch->grad_f;
  f.resize(S);
  h0.resize(m);
  h.resize(m);
  grad.resize(k, S);
  std::string error;
  // The objectives' gradients at the start, once per start point.
  if (scratch->start_grad_f.rows() != k || scratch->start_grad_f.cols() != S ||
      scratch->start.size() != k || scratch->start != start) {
    scratch->start_grad_f.resize(k, S);
    scratch->start = start;
    if (!evaluator->Evaluate(start.data(),
                             f.data(),
                             h.data(),
                             scratch->start_grad_f.data(),
                             &error) ||
        !scratch->start_grad_f.allFinite()) {
      scratch->start.resize(0);
      return false;
    }
  }
  // The weights of the WC terms, a_s = lambda_s / w_s.
  a.resize(S);
  for (int i = 0; i < S; ++i) {
    a[i] = preference[i] / sum / c.objective_scale[i];
  }
  // How strongly the weighted objectives respond to z_i: the largest
  // a_s |d f_s / d z_i|.
  const auto respond = [&](const Eigen::MatrixXd& g, int i) {
    double r = 0.0;
    for (int j = 0; j < S; ++j) r = std::max(r, a[j] * std::abs(g(i, j)));
    return r;
  };
  if (!evaluator->Evaluate(
          s.z.data(), f.data(), h0.data(), grad.data(), &error)) {
    return false;
  }
  // Candidates: coordinates the objectives responded to at the start and
  // hardly respond to here (response holds the start's response, 0 for
  // the others).
  response.setZero(k);
  int count = 0;
  for (int i = 0; i < k; ++i) {
    const double at_start = respond(scratch->start_grad_f, i);
    if (at_start > 0.0 && respond(grad, i) <= kLessThanAtStart * at_start) {
      response[i] = at_start;
      ++count;
    }
  }
  if (count == 0) return false;
  // A plateau, not a minimum: after a small move of the candidates the
  // objectives still hardly respond (an ordinary minimizer's gradient grows
  // with its curvature), and the constraints have not noticed.
  x = s.z;
  for (int i = 0; i < k; ++i) {
    if (response[i] > 0.0) x[i] += kLocalStep;
  }
  evaluator->ProjectOntoBounds(x.data());
  if (!evaluator->Evaluate(x.data(), f.data(), h.data(), grad.data(), &error) ||
      (m > 0 && (h - h0).cwiseAbs().maxCoeff() > feasibility_tolerance)) {
    return false;
  }
  int flat = 0;
  std::ostringstream names;
  for (int i = 0; i < k; ++i) {
    if (!(response[i] > 0.0) ||
        !(respond(grad, i) <= kLessThanAtStart * response[i])) {
      continue;
    }
    if (flat < 4) {
      names << (flat > 0 ? ", " : "") << "z[" << i
            << "] = " << FormatScientific(s.z[i], 3);
    }
    ++flat;
  }
  if (flat == 0) return false;
  std::ostringstream os;
  os << "a saturated region: the objectives respond to " << flat
     << " coordinate" << (flat > 1 ? "s" : "") << " (" << names.str()
     << (flat > 4 ? ", ..." : "")
     << ") a million times less than at the start point";
  *why = os.str();
  return true;
}

}  // namespace internal
}  // namespace ecmo
