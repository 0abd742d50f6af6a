// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// MTBL report: what a bilevel solve means in bilevel language (lower-level
// optimality, convexity, unboundedness), and the MTBL Solve.

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "ceres/gradient_problem.h"
#include "ecmo/internal/report.h"
#include "ecmo/kkt.h"
#include "ecmo/mtbl.h"

namespace ecmo {

using internal::AllFinite;
using internal::FormatVector;

namespace {

class LowerLevelFunction final : public ceres::FirstOrderFunction {
 public:
  LowerLevelFunction(const LowerLevel* lower, const Eigen::VectorXd& x)
      : lower_(lower), x_(x) {}
  bool Evaluate(const double* y,
                double* cost,
                double* gradient) const override {
    if (!lower_->Value(x_.data(), y, cost)) return false;
    if (gradient != nullptr && !lower_->GradY(x_.data(), y, gradient)) {
      return false;
    }
    return true;
  }
  int NumParameters() const override { return lower_->NumLowerParameters(); }

 private:
  const LowerLevel* lower_;
  Eigen::VectorXd x_;
};

// Minimizes g(x, .) from *y (overwritten with the minimizer). Returns true
// when the solve reached a stationary point (Ceres CONVERGENCE, or a
// gradient at most 1e-6 of the starting one); *value receives g(x, y*).
bool SolveLowerLevelLbfgs(const LowerLevel& lower,
                          const Eigen::VectorXd& x,
                          const ceres::GradientProblemSolver::Options& options,
                          Eigen::VectorXd* y,
                          double* value,
                          std::string* message) {
  const int ny = lower.NumLowerParameters();
  Eigen::VectorXd h0(ny), h1(ny);
  if (!lower.GradY(x.data(), y->data(), h0.data())) {
    *message = "grad_y g could not be evaluated at the start of the solve";
    return false;
  }
  ceres::GradientProblem problem(new LowerLevelFunction(&lower, x));
  ceres::GradientProblemSolver::Summary summary;
  Eigen::VectorXd y_start = *y;
  ceres::Solve(options, problem, y->data(), &summary);
  if (!summary.IsSolutionUsable() || !lower.Value(x.data(), y->data(), value) ||
      !lower.GradY(x.data(), y->data(), h1.data())) {
    *y = y_start;
    *message = "Ceres: " + summary.message;
    return false;
  }
  *message = "Ceres: " + summary.message;
  return summary.termination_type == ceres::CONVERGENCE ||
         h1.norm() <= 1e-6 * std::max(1e-300, h0.norm());
}

// Everything the report needs, for both kinds of MTBL problem.
struct ReportContext {
  Evaluator* evaluator = nullptr;  // upper objectives at packed z
  const LowerLevel* lower = nullptr;
  int x_offset = 0;
  int y_offset = 0;
};

bool ComputeReport(const ReportContext& context,
                   const Solver::Summary& summary,
                   const MtblReportOptions& options,
                   MtblReport* report) {
  *report = MtblReport();
  report->termination_type = summary.termination_type;
  Evaluator* evaluator = context.evaluator;
  const LowerLevel& lower = *context.lower;
  const int k = evaluator->NumParameters();
  const int S = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  const int nx = lower.NumUpperParameters();
  const int ny = lower.NumLowerParameters();
  if (summary.z.size() != k) {
    std::ostringstream os;
    os << "ComputeMtblReport: the summary holds no final point (z has "
       << summary.z.size() << " entries, the problem " << k
       << "); the solve ended with "
       << TerminationTypeName(summary.termination_type) << ": "
       << summary.message;
    report->message = os.str();
    report->termination_type = ceres::FAILURE;
    return false;
  }
  const Eigen::VectorXd z = summary.z;
  report->x = z.segment(context.x_offset, nx);
  report->y = z.segment(context.y_offset, ny);
  if (summary.z.size() > 0 &&
      summary.kkt.with_least_squares_multipliers.stationarity.size() == k) {
    report->kkt_residual_sq =
        summary.kkt.with_least_squares_multipliers.SquaredNorm();
  }

  Eigen::VectorXd f(S), h(q);
  std::string error;
  if (!evaluator->Evaluate(z.data(), f.data(), h.data(), nullptr, &error)) {
    report->message = "ComputeMtblReport: at the final point: " + error;
    report->termination_type = ceres::FAILURE;
    return false;
  }
  report->upper_objectives = f;
  Eigen::VectorXd grad_y(ny);
  if (lower.GradY(report->x.data(), report->y.data(), grad_y.data())) {
    report->grad_y_g_norm = grad_y.norm();
  }

  // Convexity of g(x, .) along random directions.
  auto check_convexity = [&](const Eigen::VectorXd& point, const char* where) {
    double min_relative = 0.0;
    std::string message;
    const bool convex =
        CheckLowerLevelConvexity(lower,
                                 point.data() + context.x_offset,
                                 point.data() + context.y_offset,
                                 options,
                                 &min_relative,
                                 &message);
    if (std::isnan(report->min_relative_curvature) ||
        min_relative < report->min_relative_curvature) {
      report->min_relative_curvature = min_relative;
    }
    if (!convex) {
      report->lower_level_convex = false;
      report->warnings.push_back(std::string("At the ") + where + ": " +
                                 message);
    }
  };
  if (options.start_z.size() == k)
    check_convexity(options.start_z, "start point");
  check_convexity(z, "final point");

  // Uniqueness of y*: the null space of grad^2_yy g at the final point.
  if (options.estimate_null_space) {
    LowerLevelSpectrum& spectrum = report->lower_level_spectrum;
    if (EstimateLowerLevelSpectrum(lower,
                                   report->x.data(),
                                   report->y.data(),
                                   options.null_space,
                                   &spectrum)) {
      report->lower_level_unique = spectrum.unique;
      if (!spectrum.unique) {
        report->warnings.push_back("The lower-level solution is not unique: " +
                                   spectrum.message);
      }
    } else {
      report->warnings.push_back(spectrum.message);
    }
  }

  // The lower-level gap g(x, y) - min_y g(x, .).
  double g_value = 0.0;
  const bool has_value =
      lower.Value(report->x.data(), report->y.data(), &g_value);
  if (options.estimate_lower_level_gap) {
    if (!has_value) {
      report->warnings.push_back(
          "The lower-level gap g(x, y) - min_y g(x, .) was not estimated: the "
          "lower level provides no value g (implement LowerLevel::Value).");
    } else {
      Eigen::VectorXd y_star = report->y;
      double g_star = g_value;
      std::string message;
      const bool solved = SolveLowerLevelLbfgs(lower,
                                               report->x,
                                               options.lower_level_solver,
                                               &y_star,
                                               &g_star,
                                               &message);
      report->lower_level_gap = g_value - g_star;
      report->lower_level_solution = y_star;
      if (!solved) {
        report->warnings.push_back(
            "The lower-level solve for the gap did not reach a stationary "
            "point (" +
            message + "); the gap is a lower bound only.");
      }
    }
  }

  Eigen::VectorXd lambda = Eigen::VectorXd::Constant(S, 1.0 / S);
  if (static_cast<int>(summary.preference.size()) == S) {
    for (int s = 0; s < S; ++s) lambda[s] = summary.preference[s];
    if (lambda.sum() > 0.0) lambda /= lambda.sum();
  }

  // Shifted objectives that became non-positive while decreasing: the WC
  // scalarization's positivity broke, typical of an unbounded upper level.
  if (static_cast<int>(summary.objective_offset_used.size()) == S &&
      summary.initial_objectives.size() == S) {
    for (int s = 0; s < S; ++s) {
      const double shifted = f[s] + summary.objective_offset_used[s];
      if (shifted <= 0.0 && f[s] < summary.initial_objectives[s]) {
        report->unbounded_suspected = true;
        std::ostringstream os;
        os << "Upper objective " << s << " fell from "
           << summary.initial_objectives[s] << " to " << f[s]
           << ", below -offset = " << -summary.objective_offset_used[s]
           << ", so the weighted-Chebyshev scalarization no longer applies; "
              "the upper level may be unbounded below on the lower-level "
              "solution set.";
        report->warnings.push_back(os.str());
      }
    }
  }

  // The unboundedness probe along rays in x.
  if (options.probe_steps > 0) {
    std::vector<Eigen::VectorXd> directions;
    if (options.start_z.size() == k) {
      const Eigen::VectorXd d =
          report->x - options.start_z.segment(context.x_offset, nx);
      if (d.norm() > 1e-12 * std::max(1.0, report->x.norm())) {
        directions.push_back(d.normalized());
      }
    }
    for (int j = 0; j < std::min(nx, options.probe_max_coordinates); ++j) {
      for (double sign : {1.0, -1.0}) {
        directions.push_back(sign * Eigen::VectorXd::Unit(nx, j));
      }
    }
    const double base = 1e-2 * std::max(1.0, report->x.norm());
    Eigen::VectorXd f_probe(S), h_probe(q);
    for (const Eigen::VectorXd& d : directions) {
      Eigen::VectorXd zt = z;
      Eigen::VectorXd y_star = report->y;
      std::vector<double> psi;
      bool ok = true;
      for (int j = -1; j <= options.probe_steps; ++j) {
        const double t = j < 0 ? 0.0 : base * std::ldexp(1.0, j);
        const Eigen::VectorXd xt = report->x + t * d;
        double g_star = 0.0;
        std::string message;
        if (!has_value || !SolveLowerLevelLbfgs(lower,
                                                xt,
                                                options.lower_level_solver,
                                                &y_star,
                                                &g_star,
                                                &message)) {
          // Without g the probe uses grad_y g = 0 only through the final y;
          // it needs the lower-level solves, so it is skipped.
          ok = false;
          break;
        }
        zt.segment(context.x_offset, nx) = xt;
        zt.segment(context.y_offset, ny) = y_star;
        if (!evaluator->Evaluate(
                zt.data(), f_probe.data(), h_probe.data(), nullptr, &error)) {
          ok = false;
          break;
        }
        psi.push_back(lambda.cwiseProduct(f_probe).maxCoeff());
        if (psi.size() >= 2 && !(psi.back() < psi[psi.size() - 2])) {
          ok = false;  // Not a descent ray (or levelled off): stop.
          break;
        }
      }
      if (!ok || static_cast<int>(psi.size()) < 7) continue;
      // Decrements over the middle and the last third of the doublings.
      const int n = static_cast<int>(psi.size());
      const int a = n / 3, b = 2 * n / 3;
      const double middle = psi[a] - psi[b];
      const double last = psi[b] - psi[n - 1];
      const double total = psi[0] - psi[n - 1];
      if (last >= 0.5 * middle && total > 1e-6 * (1.0 + std::abs(psi[0]))) {
        report->unbounded_suspected = true;
        std::ostringstream os;
        os.precision(6);
        os << "The upper level appears unbounded below on the lower-level "
              "solution set: along x + t d with d = "
           << FormatVector(d) << " and y = argmin_y g(x + t d, .), "
           << "max_s lambda_s f_s falls from " << psi[0] << " (t = 0) to "
           << psi[n - 1] << " (t = " << base * std::ldexp(1.0, n - 2)
           << ") at every doubling of t without levelling off. No Pareto "
              "point exists for this preference; bound the objectives or "
              "the variables.";
        report->warnings.push_back(os.str());
        break;
      }
    }
  }
  if (report->unbounded_suspected) report->termination_type = ceres::FAILURE;

  std::ostringstream os;
  os.precision(6);
  os << "Bilevel solve: " << TerminationTypeName(report->termination_type);
  if (report->termination_type != summary.termination_type) {
    os << " (the solver reported "
       << TerminationTypeName(summary.termination_type) << ")";
  }
  os << ". Solver: " << summary.message
     << " Upper level: f = " << FormatVector(f)
     << " at x = " << FormatVector(report->x)
     << ". Lower level: ||grad_y g|| = " << report->grad_y_g_norm;
  if (!std::isnan(report->lower_level_gap)) {
    os << ", g(x, y) - min_y g(x, .) = " << report->lower_level_gap;
  }
  if (report->kkt_residual_sq >= 0.0) {
    os << ". ||K||^2 (least squares) = " << report->kkt_residual_sq;
  }
  os << ".";
  for (const std::string& warning : report->warnings) {
    os << " WARNING: " << warning;
  }
  report->message = os.str();
  return true;
}

}  // namespace

// ------------------------------------------------------------- reporting --

ceres::GradientProblemSolver::Options
MtblReportOptions::DefaultLowerLevelSolverOptions() {
  ceres::GradientProblemSolver::Options options;
  options.max_num_iterations = 2000;
  options.function_tolerance = 1e-15;
  options.parameter_tolerance = 1e-15;
  options.gradient_tolerance = 1e-12;
  options.logging_type = ceres::SILENT;
  return options;
}

bool CheckLowerLevelConvexity(const LowerLevel& lower_level,
                              const double* x,
                              const double* y,
                              const MtblReportOptions& options,
                              double* min_relative,
                              std::string* message) {
  const int ny = lower_level.NumLowerParameters();
  std::mt19937_64 rng(options.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd d(ny), hd(ny);
  double worst = std::numeric_limits<double>::infinity();
  Eigen::VectorXd worst_d;
  double worst_curvature = 0.0;
  for (int i = 0; i < options.convexity_directions; ++i) {
    for (int j = 0; j < ny; ++j) d[j] = normal(rng);
    if (!lower_level.HessianYYProduct(x, y, d.data(), hd.data())) {
      if (message != nullptr) {
        *message =
            "the convexity check could not evaluate grad^2_yy g "
            "(HessianYYProduct failed).";
      }
      if (min_relative != nullptr) *min_relative = 0.0;
      return true;  // Unknown, not non-convex.
    }
    const double curvature = d.dot(hd);
    const double scale = hd.norm() * d.norm();
    const double relative = scale > 0.0 ? curvature / scale : 0.0;
    if (relative < worst) {
      worst = relative;
      worst_d = d;
      worst_curvature = curvature;
    }
  }
  if (options.convexity_directions <= 0) worst = 0.0;
  if (min_relative != nullptr) *min_relative = worst;
  const bool convex = !(worst < -options.convexity_tolerance);
  if (message != nullptr) {
    if (convex) {
      message->clear();
    } else {
      std::ostringstream os;
      os.precision(6);
      os << "g(x, .) is not convex: along the direction d = "
         << FormatVector(worst_d)
         << " the curvature d^T grad^2_yy g d = " << worst_curvature
         << " (relative " << worst
         << ") is negative. grad_y g = 0 then also admits saddle points and "
            "maxima of the lower level, so solutions of the ECMO problem "
            "need not solve the bilevel problem.";
      *message = os.str();
    }
  }
  return convex;
}

bool ComputeMtblReport(const MtblProblem& problem,
                       const Solver::Summary& summary,
                       const MtblReportOptions& options,
                       MtblReport* report) {
  if (report == nullptr) return false;
  std::string error;
  if (!problem.IsValid(&error)) {
    *report = MtblReport();
    report->message = "ComputeMtblReport: invalid problem: " + error;
    return false;
  }
  ProblemEvaluator evaluator(&problem.problem());
  ReportContext context;
  context.evaluator = &evaluator;
  context.lower = problem.lower_level();
  context.x_offset = problem.UpperOffset();
  context.y_offset = problem.LowerOffset();
  return ComputeReport(context, summary, options, report);
}

bool ComputeMtblReport(MtblEvaluator* evaluator,
                       const Solver::Summary& summary,
                       const MtblReportOptions& options,
                       MtblReport* report) {
  if (report == nullptr) return false;
  std::string error;
  if (evaluator == nullptr || !evaluator->IsValid(&error)) {
    *report = MtblReport();
    report->message = "ComputeMtblReport: invalid evaluator: " +
                      (evaluator == nullptr ? std::string("null") : error);
    return false;
  }
  ReportContext context;
  context.evaluator = evaluator;
  context.lower = evaluator->lower_level();
  context.x_offset = 0;
  context.y_offset = evaluator->NumUpperParameters();
  return ComputeReport(context, summary, options, report);
}

bool MtblSolver::Options::IsValid(std::string* error) const {
  if (!solver.IsValid(error)) return false;
  static constexpr char kOptions[] = "MtblSolver::Options";
  ECMO_OPTION_CHECK(kOptions,
                    report.convexity_directions,
                    report.convexity_directions >= 0,
                    ">= 0");
  ECMO_OPTION_CHECK(kOptions,
                    report.convexity_tolerance,
                    report.convexity_tolerance >= 0.0 &&
                        std::isfinite(report.convexity_tolerance),
                    ">= 0 and finite");
  ECMO_OPTION_CHECK(
      kOptions, report.probe_steps, report.probe_steps >= 0, ">= 0");
  ECMO_OPTION_CHECK(kOptions,
                    report.probe_max_coordinates,
                    report.probe_max_coordinates >= 0,
                    ">= 0");
  std::string ceres_error;
  if (!report.lower_level_solver.IsValid(&ceres_error)) {
    if (error != nullptr) {
      *error = internal::OptionError(
          kOptions,
          "report.lower_level_solver (ceres::GradientProblemSolver::"
          "Options): " +
              ceres_error);
    }
    return false;
  }
  return true;
}

bool MtblSolver::Summary::IsSolutionUsable() const {
  return ecmo::IsSolutionUsable(termination_type);
}

std::string MtblSolver::Summary::BriefReport() const {
  return solver.BriefReport() +
         "; MTBL: " + TerminationTypeName(termination_type) +
         (report.unbounded_suspected ? " (unbounded suspected)" : "");
}

std::string MtblSolver::Summary::FullReport() const {
  internal::ReportWriter out("ceres-ecmo MTBL (bilevel) Report");
  out.Row("Termination", TerminationTypeName(termination_type));
  out.Row("x (upper level)", FormatVector(report.x));
  out.Row("y (lower level)", FormatVector(report.y));
  out.Row("Upper objectives f(x, y)", FormatVector(report.upper_objectives));
  out.Row("||grad_y g(x, y)||_2", report.grad_y_g_norm);
  out.Row("g(x, y) - min_y g(x, .)", report.lower_level_gap);
  out.Row("||K||^2 (least squares)", report.kkt_residual_sq);
  out.Row("Lower level convex (sampled)",
          report.lower_level_convex ? "yes" : "no");
  out.Row("Min relative curvature", report.min_relative_curvature);
  out.Row("Unbounded suspected", report.unbounded_suspected ? "yes" : "no");
  if (report.lower_level_spectrum.null_space_dimension >= 0) {
    out.Row2("grad^2_yy g eigenvalues (est.)",
             report.lower_level_spectrum.smallest_eigenvalue,
             report.lower_level_spectrum.largest_eigenvalue);
    out.Row("Null space dimension (est.)",
            report.lower_level_spectrum.null_space_dimension);
    out.Row("Lower-level solution unique",
            report.lower_level_unique ? "yes" : "no");
  }
  for (const std::string& warning : report.warnings) {
    out.Row("Warning", warning);
  }
  out.Text("\n" + message + "\n");
  return solver.FullReport() + out.str();
}

void Solve(const MtblSolver::Options& options,
           MtblProblem* problem,
           const std::vector<double>& preference,
           MtblSolver::Summary* summary) {
  if (summary == nullptr) return;
  *summary = MtblSolver::Summary();
  std::string error;
  if (!options.IsValid(&error)) {
    summary->solver.message = error;
    summary->report.message = error;
    summary->message = error;
    return;
  }
  SolveMtbl(options.solver,
            problem,
            preference,
            &summary->solver,
            &summary->report,
            options.report);
  const bool has_report =
      summary->report.x.size() > 0 || summary->report.y.size() > 0;
  summary->termination_type = has_report ? summary->report.termination_type
                                         : summary->solver.termination_type;
  summary->message = summary->report.message.empty() ? summary->solver.message
                                                     : summary->report.message;
}

void SolveMtbl(const Solver::Options& options,
               MtblProblem* problem,
               const std::vector<double>& preference,
               Solver::Summary* summary,
               MtblReport* report,
               const MtblReportOptions& report_options) {
  if (summary == nullptr) return;
  if (problem == nullptr) {
    *summary = Solver::Summary();
    summary->message = "SolveMtbl: the problem is null.";
    if (report != nullptr) {
      *report = MtblReport();
      report->message = summary->message;
    }
    return;
  }
  MtblReportOptions with_start = report_options;
  std::string error;
  if (problem->IsValid(&error)) {
    with_start.start_z.resize(problem->problem().NumParameters());
    problem->problem().GetParameters(with_start.start_z.data());
  }
  Solve(options, problem->problem(), preference, summary);
  if (report != nullptr) {
    if (!ComputeMtblReport(*problem, *summary, with_start, report) &&
        !problem->IsValid(&error)) {
      report->message = "SolveMtbl: invalid problem: " + error;
    }
  }
}

}  // namespace ecmo
