// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: cross-check of a strategy against the Ipopt reference.

#include "ecmo/cross_check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "Eigen/SVD"
#include "ecmo/evaluator.h"
#include "ecmo/internal/report.h"
#include "ecmo/problem.h"

namespace ecmo {

using internal::FormatNumber;

namespace {

std::string Sci(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2e", x);
  return buffer;
}

std::vector<double> ToVector(const Eigen::VectorXd& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}

const char* HessianName(IpoptReference::HessianType type) {
  switch (type) {
    case IpoptReference::HessianType::AUTOMATIC:
      return "automatic";
    case IpoptReference::HessianType::EXACT:
      return "exact";
    case IpoptReference::HessianType::GAUSS_NEWTON:
      return "gauss_newton";
    case IpoptReference::HessianType::LIMITED_MEMORY:
      return "limited_memory";
  }
  return "unknown";
}

Eigen::VectorXd StackMultipliers(const KktMultipliers& m) {
  Eigen::VectorXd out(m.omega.size() + m.nu.size());
  out << m.omega, m.nu;
  return out;
}

// (z_L, z_U) of size 2k; zeros when a side is empty (no bounds: zero).
Eigen::VectorXd StackBoundMultipliers(const KktMultipliers& m, int k) {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(2 * k);
  if (m.bound_lower.size() == k) out.head(k) = m.bound_lower;
  if (m.bound_upper.size() == k) out.tail(k) = m.bound_upper;
  return out;
}

// The offset the solver scalarized with; falls back to its options when it
// failed before choosing one.
Eigen::VectorXd OffsetUsedBySolver(const Solver::Options& options,
                                   const Solver::Summary& summary,
                                   Evaluator* evaluator,
                                   const Eigen::VectorXd& z0) {
  const int S = evaluator->NumObjectives();
  if (static_cast<int>(summary.objective_offset_used.size()) == S) {
    return Eigen::Map<const Eigen::VectorXd>(
        summary.objective_offset_used.data(), S);
  }
  Eigen::VectorXd offset = Eigen::VectorXd::Zero(S);
  if (options.automatic_objective_offset) {
    Eigen::VectorXd f(S), h(evaluator->NumConstraints());
    std::string error;
    if (evaluator->Evaluate(z0.data(), f.data(), h.data(), nullptr, &error)) {
      for (int s = 0; s < S; ++s) offset[s] = 1.0 + std::max(0.0, -f[s]);
    }
  } else if (static_cast<int>(options.objective_offset.size()) == S) {
    offset =
        Eigen::Map<const Eigen::VectorXd>(options.objective_offset.data(), S);
  }
  return offset;
}

// ||grad F(z)||_F and the smallest singular value of the Jacobian of the
// constraints active at z: the equality rows of J_g, the rows of the
// inequalities with a positive multiplier in `reference` and a unit row
// per bound with a positive multiplier (LICQ's matrix; 0 when it has more
// rows than columns; -1 when not computed: no active constraint, too large,
// or the evaluation failed). Returns false if the evaluation fails.
bool LinearizationNorms(Evaluator* evaluator,
                        const Eigen::VectorXd& z,
                        const KktMultipliers& reference,
                        double* objective_jacobian_norm,
                        double* sigma_min) {
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int m = evaluator->NumConstraints();
  const int q = evaluator->NumEqualityConstraints();
  Eigen::VectorXd f(S), g(m);
  Eigen::MatrixXd grad_f(k, S);
  std::string error;
  *sigma_min = -1.0;
  if (!evaluator->Evaluate(
          z.data(), f.data(), g.data(), grad_f.data(), &error)) {
    return false;
  }
  *objective_jacobian_norm = grad_f.norm();
  std::vector<int> rows;
  for (int i = 0; i < m; ++i) {
    if (i < q || (reference.nu.size() == m && reference.nu[i] > 0.0)) {
      rows.push_back(i);
    }
  }
  std::vector<int> bound_rows;
  for (int j = 0; j < k; ++j) {
    const bool lower =
        reference.bound_lower.size() == k && reference.bound_lower[j] > 0.0;
    const bool upper =
        reference.bound_upper.size() == k && reference.bound_upper[j] > 0.0;
    if (lower || upper) bound_rows.push_back(j);
  }
  const int active = static_cast<int>(rows.size() + bound_rows.size());
  constexpr double kMaxDenseEntries = 4e6;
  if (active == 0 || static_cast<double>(m) * k > kMaxDenseEntries) {
    return true;
  }
  if (active > k) {
    *sigma_min = 0.0;
    return true;
  }
  Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(active, k);
  Eigen::VectorXd unit = Eigen::VectorXd::Zero(k);
  Eigen::VectorXd column(m);
  for (int j = 0; j < k; ++j) {
    unit[j] = 1.0;
    evaluator->JacobianMultiply(unit.data(), column.data());
    unit[j] = 0.0;
    for (size_t r = 0; r < rows.size(); ++r) {
      jacobian(static_cast<int>(r), j) = column[rows[r]];
    }
  }
  for (size_t b = 0; b < bound_rows.size(); ++b) {
    jacobian(static_cast<int>(rows.size() + b), bound_rows[b]) = 1.0;
  }
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(jacobian);
  *sigma_min = svd.singularValues()[active - 1];
  return true;
}

void Judge(const CrossCheck::Options& options,
           Evaluator* evaluator,
           CrossCheck::Summary* r) {
  const Solver::Summary& s = r->solver;
  const IpoptReference::Summary& ref = r->reference;
  std::vector<std::string> failed;
  if (!s.IsSolutionUsable()) {
    failed.push_back(
        "solver: " + std::string(TerminationTypeName(s.termination_type)) +
        " (" + s.message + ")");
  }
  if (!ref.IsSolutionUsable()) {
    failed.push_back(
        "reference: " + std::string(TerminationTypeName(ref.termination_type)) +
        " (" + ref.message + ")");
  }
  const int k = evaluator->NumParameters();
  const bool have_points = s.z.size() == k && ref.z.size() == k &&
                           s.objectives.size() == ref.objectives.size() &&
                           s.objectives.size() > 0;
  if (!have_points) {
    if (failed.empty()) failed.push_back("a run returned no point");
    r->agree = false;
    std::string verdict = "DISAGREE: ";
    for (size_t i = 0; i < failed.size(); ++i) {
      verdict += (i > 0 ? "; " : "") + failed[i];
    }
    r->verdict = verdict;
    return;
  }

  r->rho_difference = std::abs(s.final_rho - ref.final_rho);
  r->z_distance = (s.z - ref.z).norm();
  r->objective_distance = (s.objectives - ref.objectives).norm();
  const KktMultipliers& ls_solver = s.kkt.least_squares_multipliers;
  const KktMultipliers& ls_reference = ref.kkt.least_squares_multipliers;
  const Eigen::VectorXd ms = StackMultipliers(ls_solver);
  const Eigen::VectorXd mr = StackMultipliers(ls_reference);
  const bool have_multipliers = ms.size() == mr.size();
  r->multiplier_distance = have_multipliers ? (ms - mr).norm() : -1.0;
  // The inequalities' part of nu (its last p entries) and the bound
  // multipliers, each named in the verdict.
  const int p = evaluator->NumInequalityConstraints();
  const bool has_bounds = evaluator->HasBounds();
  if (p > 0) {
    r->inequality_multiplier_distance =
        have_multipliers && ls_solver.nu.size() >= p &&
                ls_solver.nu.size() == ls_reference.nu.size()
            ? (ls_solver.nu.tail(p) - ls_reference.nu.tail(p)).norm()
            : -1.0;
  }
  const Eigen::VectorXd bs = StackBoundMultipliers(ls_solver, k);
  const Eigen::VectorXd br = StackBoundMultipliers(ls_reference, k);
  if (has_bounds) r->bound_multiplier_distance = (bs - br).norm();

  const double k_solver = s.kkt.with_least_squares_multipliers.SquaredNorm();
  const double k_reference =
      ref.kkt.with_least_squares_multipliers.SquaredNorm();
  const double eps =
      options.error_bound_constant * std::sqrt(k_solver + k_reference);
  double g = 1.0;
  double sigma_min = -1.0;
  if (LinearizationNorms(evaluator, ref.z, ls_reference, &g, &sigma_min)) {
    g = std::isfinite(g) ? std::max(1.0, g) : 1.0;
  }
  r->constraint_jacobian_sigma_min = sigma_min;
  // Least-squares nu moves by up to |change of the stationarity block| /
  // sigma_min(J_active): without LICQ (sigma_min = 0) nu is not
  // identifiable and the multiplier bound is vacuous. The bound multipliers
  // join the multipliers' size.
  const double m =
      1.0 + std::sqrt(mr.squaredNorm() + br.squaredNorm()) +
      (sigma_min < 0.0
           ? 0.0
           : (sigma_min > 0.0 ? 1.0 / sigma_min
                              : std::numeric_limits<double>::infinity()));
  r->z_bound = std::max(options.z_tolerance, eps);
  r->objective_bound = std::max(options.objective_tolerance, g * eps);
  r->multiplier_bound = std::max(options.multiplier_tolerance, m * eps);

  if (!(k_solver <= options.max_solver_kkt_residual_sq)) {
    failed.push_back("solver ||K||^2_LS = " + Sci(k_solver) + " > " +
                     Sci(options.max_solver_kkt_residual_sq) +
                     " (not converged)");
  }
  struct Check {
    const char* name;
    double value;
    double bound;
  };
  std::vector<Check> checks = {
      {"|z - z_ref|", r->z_distance, r->z_bound},
      {"|F - F_ref|", r->objective_distance, r->objective_bound},
      {"|rho - rho_ref|", r->rho_difference, r->objective_bound},
      {"|mult - mult_ref|", r->multiplier_distance, r->multiplier_bound},
  };
  if (p > 0) {
    checks.push_back({"|mu - mu_ref| (inequalities)",
                      r->inequality_multiplier_distance,
                      r->multiplier_bound});
  }
  if (has_bounds) {
    checks.push_back({"|(z_L, z_U) - (z_L, z_U)_ref| (bounds)",
                      r->bound_multiplier_distance,
                      r->multiplier_bound});
  }
  std::string all;
  for (const Check& c : checks) {
    const bool ok = c.value >= 0.0 && c.value <= c.bound;
    const std::string text = std::string(c.name) + " = " + Sci(c.value) +
                             (ok ? " <= " : " > ") + Sci(c.bound);
    all += (all.empty() ? "" : ", ") + text;
    if (!ok) failed.push_back(text);
  }
  r->agree = failed.empty();
  if (r->agree) {
    r->verdict = "AGREE: " + all;
  } else {
    std::string verdict = "DISAGREE: ";
    for (size_t i = 0; i < failed.size(); ++i) {
      verdict += (i > 0 ? "; " : "") + failed[i];
    }
    r->verdict = verdict;
  }
}

}  // namespace

void Solve(const CrossCheck::Options& options,
           Evaluator* evaluator,
           const std::vector<double>& preference,
           Eigen::VectorXd* z,
           CrossCheck::Summary* summary) {
  if (summary == nullptr) return;
  CrossCheck::Summary& result = *summary;
  result = CrossCheck::Summary();
  if (evaluator == nullptr || z == nullptr) {
    result.verdict = "DISAGREE: the evaluator or z is null.";
    return;
  }
  const Eigen::VectorXd z0 = *z;

  Eigen::VectorXd z_solver = z0;
  Solve(options.solver, evaluator, preference, &z_solver, &result.solver);

  // The reference starts from the same point, with the offset and scales
  // the solver used, and its certificate measured with the solver's sigma.
  IpoptReference::Options reference_options = options.reference;
  const int S = evaluator->NumObjectives();
  if (result.solver.scalarization.objective_scale.size() == S &&
      reference_options.objective_scale.empty()) {
    reference_options.objective_scale =
        ToVector(result.solver.scalarization.objective_scale);
  }
  reference_options.stationarity_floor = options.solver.stationarity_floor;
  reference_options.model_tolerance = options.solver.model_tolerance;
  if (z0.size() == evaluator->NumParameters()) {
    reference_options.objective_offset = ToVector(
        OffsetUsedBySolver(options.solver, result.solver, evaluator, z0));
    reference_options.reference_point.clear();
  }
  Eigen::VectorXd z_reference = z0;
  Solve(reference_options,
        evaluator,
        preference,
        &z_reference,
        &result.reference);

  if (z0.size() == evaluator->NumParameters()) {
    Judge(options, evaluator, &result);
  } else {
    result.verdict =
        "DISAGREE: the start point has " + std::to_string(z0.size()) +
        " entries but the problem has " +
        std::to_string(evaluator->NumParameters()) + " parameters.";
  }
  if (result.solver.IsSolutionUsable()) *z = z_solver;
}

void Solve(const CrossCheck::Options& options,
           Problem* problem_pointer,
           const std::vector<double>& preference,
           CrossCheck::Summary* summary) {
  if (summary == nullptr) return;
  CrossCheck::Summary& result = *summary;
  result = CrossCheck::Summary();
  if (problem_pointer == nullptr) {
    result.verdict = "DISAGREE: the problem is null.";
    return;
  }
  const Problem& problem = *problem_pointer;
  std::string error;
  if (!problem.IsValid(&error)) {
    // Let both runs report the invalid problem in their own words.
    Solve(options.solver, problem_pointer, preference, &result.solver);
    Solve(options.reference, problem_pointer, preference, &result.reference);
    result.verdict = "DISAGREE: invalid problem: " + error;
    return;
  }
  ProblemEvaluator evaluator(&problem);
  Eigen::VectorXd z(problem.NumParameters());
  problem.GetParameters(z.data());
  Solve(options, &evaluator, preference, &z, summary);
  // The blocks hold the solver's solution when usable, else the start.
  problem.SetParameters(z.data());
}

CrossCheck::Summary CrossCheck(const CrossCheck::Options& options,
                               const Problem& problem,
                               const std::vector<double>& preference) {
  CrossCheck::Summary summary;
  // Problem::SetParameters is const: the legacy const reference already
  // allowed the solve to write the user's blocks.
  Solve(options, const_cast<Problem*>(&problem), preference, &summary);
  return summary;
}

std::string CrossCheck::Summary::BriefReport() const { return verdict; }

std::string CrossCheck::Summary::FullReport() const {
  internal::ReportWriter report("ceres-ecmo Cross-Check Report");
  std::ostringstream& os = report.stream();
  char line[512];
  auto row3 = [&](const char* label,
                  const std::string& a,
                  const std::string& b) {
    std::snprintf(
        line, sizeof(line), "%-34s %22s %22s\n", label, a.c_str(), b.c_str());
    os << line;
  };
  auto count = [](int64_t x) { return std::to_string(x); };
  const KktResidual& so = solver.kkt.with_solver_multipliers;
  const KktResidual& sl = solver.kkt.with_least_squares_multipliers;
  const KktResidual& ro = reference.kkt.with_solver_multipliers;
  const KktResidual& rl = reference.kkt.with_least_squares_multipliers;

  row3("", StrategyTypeToString(solver.strategy), "Ipopt reference");
  row3("Termination",
       TerminationTypeName(solver.termination_type),
       TerminationTypeName(reference.termination_type));
  row3(
      "rho", FormatNumber(solver.final_rho), FormatNumber(reference.final_rho));
  row3("||h(z)||_2",
       FormatNumber(solver.constraint_norm),
       FormatNumber(reference.constraint_norm));
  row3("||K||^2 (own multipliers)",
       FormatNumber(so.SquaredNorm()),
       FormatNumber(ro.SquaredNorm()));
  row3("||K||^2 (least squares)",
       FormatNumber(sl.SquaredNorm()),
       FormatNumber(rl.SquaredNorm()));
  row3("Iterations",
       std::to_string(solver.iterations),
       std::to_string(reference.iterations));
  row3("Value evaluations",
       count(solver.evaluations.value_evaluations),
       count(reference.evaluations.value_evaluations));
  row3("Gradient evaluations",
       count(solver.evaluations.gradient_evaluations),
       count(reference.evaluations.gradient_evaluations));
  row3("Time (s)",
       FormatNumber(solver.total_time_in_seconds),
       FormatNumber(reference.total_time_in_seconds));
  const int k = static_cast<int>(std::max(solver.z.size(), reference.z.size()));
  for (int j = 0; j < k; ++j) {
    const std::string label = "z[" + std::to_string(j) + "]";
    row3(label.c_str(),
         j < solver.z.size() ? FormatNumber(solver.z[j]) : "-",
         j < reference.z.size() ? FormatNumber(reference.z[j]) : "-");
  }
  const int S = static_cast<int>(
      std::max(solver.objectives.size(), reference.objectives.size()));
  for (int s = 0; s < S; ++s) {
    const std::string label = "f" + std::to_string(s + 1) + "(z)";
    row3(
        label.c_str(),
        s < solver.objectives.size() ? FormatNumber(solver.objectives[s]) : "-",
        s < reference.objectives.size() ? FormatNumber(reference.objectives[s])
                                        : "-");
  }
  os << "\nAgreement                          distance                  "
        "bound\n";
  auto row2 = [&](const char* label, double value, double bound) {
    std::snprintf(line,
                  sizeof(line),
                  "%-34s %22s %22s\n",
                  label,
                  FormatNumber(value).c_str(),
                  FormatNumber(bound).c_str());
    os << line;
  };
  row2("|z - z_ref|", z_distance, z_bound);
  row2("|F - F_ref|", objective_distance, objective_bound);
  row2("|rho - rho_ref|", rho_difference, objective_bound);
  row2("|(omega, nu) - (omega, nu)_ref| LS",
       multiplier_distance,
       multiplier_bound);
  if (inequality_multiplier_distance >= 0.0) {
    row2("|mu - mu_ref| LS (inequalities)",
         inequality_multiplier_distance,
         multiplier_bound);
  }
  if (bound_multiplier_distance >= 0.0) {
    row2("|(z_L, z_U) - ref| LS (bounds)",
         bound_multiplier_distance,
         multiplier_bound);
  }
  std::snprintf(line,
                sizeof(line),
                "%-34s %22s\n",
                "sigma_min(J_active(z_ref))",
                FormatNumber(constraint_jacobian_sigma_min).c_str());
  os << line;
  os << "\n" << verdict << "\n";
  return report.str();
}

nlohmann::json CrossCheckToJson(const CrossCheck::Summary& result) {
  const IpoptReference::Summary& r = result.reference;
  const double rho = std::isfinite(r.final_rho) ? r.final_rho : -1.0;
  nlohmann::json kkt = {
      {"residual_sq", r.kkt.with_solver_multipliers.SquaredNorm()},
      {"residual_sq_least_squares",
       r.kkt.with_least_squares_multipliers.SquaredNorm()},
      {"omega", ToVector(r.kkt.solver_multipliers.omega)},
      {"nu", ToVector(r.kkt.solver_multipliers.nu)},
      {"omega_least_squares", ToVector(r.kkt.least_squares_multipliers.omega)},
      {"nu_least_squares", ToVector(r.kkt.least_squares_multipliers.nu)},
  };
  // Bound multipliers only for problems with bounds, so files of
  // unbounded problems stay as they were.
  if (r.kkt.solver_multipliers.bound_lower.size() > 0) {
    kkt["bound_lower"] = ToVector(r.kkt.solver_multipliers.bound_lower);
    kkt["bound_upper"] = ToVector(r.kkt.solver_multipliers.bound_upper);
  }
  if (r.kkt.least_squares_multipliers.bound_lower.size() > 0) {
    kkt["bound_lower_least_squares"] =
        ToVector(r.kkt.least_squares_multipliers.bound_lower);
    kkt["bound_upper_least_squares"] =
        ToVector(r.kkt.least_squares_multipliers.bound_upper);
  }
  nlohmann::json reference = {
      {"termination", TerminationTypeName(r.termination_type)},
      {"message", r.message},
      {"ipopt_status", r.ipopt_status_name},
      {"hessian", HessianName(r.hessian_used)},
      {"certified", r.certified},
      {"manifold_constraints", r.num_manifold_constraints},
      {"preference", r.preference},
      {"objective_offset", r.objective_offset_used},
      {"iterations", r.iterations},
      {"objective_evaluations", r.evaluations.value_evaluations},
      {"gradient_evaluations", r.evaluations.gradient_evaluations},
      {"wall_time_seconds", r.total_time_in_seconds},
      {"rho", rho},
      {"z", ToVector(r.z)},
      {"objectives", ToVector(r.objectives)},
      {"constraint_norm", r.constraint_norm},
      {"kkt", kkt},
  };
  nlohmann::json agreement = {
      {"z_distance", result.z_distance},
      {"objective_distance", result.objective_distance},
      {"multiplier_distance", result.multiplier_distance},
      {"rho_difference", result.rho_difference},
      {"z_bound", result.z_bound},
      {"objective_bound", result.objective_bound},
      {"multiplier_bound", result.multiplier_bound},
      {"constraint_jacobian_sigma_min", result.constraint_jacobian_sigma_min},
      {"agree", result.agree},
      {"verdict", result.verdict},
  };
  // Only for problems with inequalities / bounds (see above).
  if (result.inequality_multiplier_distance >= 0.0) {
    agreement["inequality_multiplier_distance"] =
        result.inequality_multiplier_distance;
  }
  if (result.bound_multiplier_distance >= 0.0) {
    agreement["bound_multiplier_distance"] = result.bound_multiplier_distance;
  }
  return {{"reference", reference}, {"agreement", agreement}};
}

}  // namespace ecmo
