#include "ecmo/mtbl.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "ceres/gradient_problem.h"
#include "ecmo/kkt.h"

namespace ecmo {
namespace {

bool AllFinite(const double* v, int n) {
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) return false;
  }
  return true;
}

std::string FormatVector(const Eigen::VectorXd& v, int max_entries = 6) {
  std::ostringstream os;
  os.precision(6);
  os << "[";
  const int shown = std::min<int>(static_cast<int>(v.size()), max_entries);
  for (int i = 0; i < shown; ++i) os << (i ? ", " : "") << v[i];
  if (shown < v.size()) os << ", ... (" << v.size() << " entries)";
  os << "]";
  return os.str();
}

// Whether [a, a + na) and [b, b + nb) share an element.
bool Overlap(const double* a, int na, const double* b, int nb) {
  return a < b + nb && b < a + na;
}

// The LowerLevel of an MtblProblem (see internal::MakeCostFunctionLowerLevel).
class CostFunctionLowerLevel final : public LowerLevel {
 public:
  CostFunctionLowerLevel(
      int nx,
      int ny,
      const ceres::CostFunction* grad_y,
      std::function<bool(const double*, const double*, double*)> value)
      : nx_(nx), ny_(ny), grad_y_(grad_y), value_(std::move(value)) {}

  int NumUpperParameters() const override { return nx_; }
  int NumLowerParameters() const override { return ny_; }

  bool Value(const double* x, const double* y, double* g) const override {
    return value_(x, y, g) && std::isfinite(*g);
  }

  bool GradY(const double* x, const double* y, double* h) const override {
    const double* parameters[2] = {x, y};
    return grad_y_->Evaluate(parameters, h, nullptr) && AllFinite(h, ny_);
  }

  bool GradYJacobianTransposeProduct(const double* x,
                                     const double* y,
                                     const double* v,
                                     double* out_x,
                                     double* out_y) const override {
    std::vector<double> jx, jy;
    if (!Jacobian(x, y, &jx, &jy)) return false;
    std::fill(out_x, out_x + nx_, 0.0);
    std::fill(out_y, out_y + ny_, 0.0);
    for (int r = 0; r < ny_; ++r) {
      const double vr = v[r];
      for (int c = 0; c < nx_; ++c) out_x[c] += jx[r * nx_ + c] * vr;
      for (int c = 0; c < ny_; ++c) {
        out_y[c] += jy[static_cast<size_t>(r) * ny_ + c] * vr;
      }
    }
    return true;
  }

  bool GradYJacobianProduct(const double* x,
                            const double* y,
                            const double* w_x,
                            const double* w_y,
                            double* out) const override {
    std::vector<double> jx, jy;
    if (!Jacobian(x, y, &jx, &jy)) return false;
    for (int r = 0; r < ny_; ++r) {
      double sum = 0.0;
      for (int c = 0; c < nx_; ++c) sum += jx[r * nx_ + c] * w_x[c];
      for (int c = 0; c < ny_; ++c) {
        sum += jy[static_cast<size_t>(r) * ny_ + c] * w_y[c];
      }
      out[r] = sum;
    }
    return true;
  }

 private:
  bool Jacobian(const double* x,
                const double* y,
                std::vector<double>* jx,
                std::vector<double>* jy) const {
    std::vector<double> h(ny_);
    jx->resize(static_cast<size_t>(ny_) * nx_);
    jy->resize(static_cast<size_t>(ny_) * ny_);
    const double* parameters[2] = {x, y};
    double* jacobians[2] = {jx->data(), jy->data()};
    return grad_y_->Evaluate(parameters, h.data(), jacobians) &&
           AllFinite(jx->data(), static_cast<int>(jx->size())) &&
           AllFinite(jy->data(), static_cast<int>(jy->size()));
  }

  int nx_;
  int ny_;
  const ceres::CostFunction* grad_y_;
  std::function<bool(const double*, const double*, double*)> value_;
};

// min_y g(x, y) for fixed x, for Ceres' GradientProblemSolver.
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
bool SolveLowerLevel(const LowerLevel& lower,
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
      const bool solved = SolveLowerLevel(lower,
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
        if (!has_value || !SolveLowerLevel(lower,
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

// ------------------------------------------------------------- LowerLevel --

LowerLevel::~LowerLevel() = default;

bool LowerLevel::Value(const double*, const double*, double*) const {
  return false;
}

bool LowerLevel::GradYJacobianProduct(const double* x,
                                      const double* y,
                                      const double* w_x,
                                      const double* w_y,
                                      double* out) const {
  const int nx = NumUpperParameters();
  const int ny = NumLowerParameters();
  // y part: H_yy w_y = (d h / d y)^T w_y by symmetry of grad^2_yy g.
  std::vector<double> scratch_x(nx);
  if (!GradYJacobianTransposeProduct(x, y, w_y, scratch_x.data(), out)) {
    return false;
  }
  const Eigen::Map<const Eigen::VectorXd> wx(w_x, nx);
  const double wx_norm = wx.norm();
  if (wx_norm == 0.0) return true;
  // x part: central difference of h along w_x.
  const Eigen::Map<const Eigen::VectorXd> xv(x, nx);
  const double step = std::cbrt(std::numeric_limits<double>::epsilon()) *
                      std::max(1.0, xv.norm()) / wx_norm;
  Eigen::VectorXd xp = xv + step * wx, xm = xv - step * wx;
  Eigen::VectorXd hp(ny), hm(ny);
  if (!GradY(xp.data(), y, hp.data()) || !GradY(xm.data(), y, hm.data())) {
    return false;
  }
  for (int i = 0; i < ny; ++i) out[i] += (hp[i] - hm[i]) / (2.0 * step);
  return true;
}

namespace internal {
std::unique_ptr<LowerLevel> MakeCostFunctionLowerLevel(
    int nx,
    int ny,
    const ceres::CostFunction* grad_y,
    std::function<bool(const double*, const double*, double*)> value) {
  return std::make_unique<CostFunctionLowerLevel>(
      nx, ny, grad_y, std::move(value));
}
}  // namespace internal

// ------------------------------------------------------------ MtblProblem --

MtblProblem::MtblProblem() = default;
MtblProblem::~MtblProblem() = default;

void MtblProblem::RecordError(const std::string& error) {
  if (first_error_.empty()) first_error_ = error;
}

bool MtblProblem::SetUpperLevelVariables(double* x, int size) {
  std::ostringstream os;
  if (x_ != nullptr) {
    os << "MtblProblem::SetUpperLevelVariables: x was already set; call it "
          "once.";
  } else if (x == nullptr) {
    os << "MtblProblem::SetUpperLevelVariables: x is null; pass the array "
          "holding the upper-level variables.";
  } else if (size <= 0) {
    os << "MtblProblem::SetUpperLevelVariables: size = " << size
       << "; the upper-level block needs at least one variable.";
  } else if (y_ != nullptr && Overlap(x, size, y_, ny_)) {
    os << "MtblProblem::SetUpperLevelVariables: x (" << size
       << " entries) overlaps the lower-level variables y (" << ny_
       << " entries); x and y must be disjoint arrays.";
  }
  if (!os.str().empty()) {
    RecordError(os.str());
    return false;
  }
  if (!problem_.AddParameterBlock(x, size)) {
    std::string error;
    problem_.IsValid(&error);
    RecordError("MtblProblem::SetUpperLevelVariables: " + error);
    return false;
  }
  x_ = x;
  nx_ = size;
  return true;
}

bool MtblProblem::SetLowerLevelVariables(double* y, int size) {
  std::ostringstream os;
  if (y_ != nullptr) {
    os << "MtblProblem::SetLowerLevelVariables: y was already set; call it "
          "once.";
  } else if (y == nullptr) {
    os << "MtblProblem::SetLowerLevelVariables: y is null; pass the array "
          "holding the lower-level variables.";
  } else if (size <= 0) {
    os << "MtblProblem::SetLowerLevelVariables: size = " << size
       << "; the lower-level block needs at least one variable.";
  } else if (x_ != nullptr && Overlap(y, size, x_, nx_)) {
    os << "MtblProblem::SetLowerLevelVariables: y (" << size
       << " entries) overlaps the upper-level variables x (" << nx_
       << " entries); x and y must be disjoint arrays.";
  }
  if (!os.str().empty()) {
    RecordError(os.str());
    return false;
  }
  if (!problem_.AddParameterBlock(y, size)) {
    std::string error;
    problem_.IsValid(&error);
    RecordError("MtblProblem::SetLowerLevelVariables: " + error);
    return false;
  }
  y_ = y;
  ny_ = size;
  return true;
}

int MtblProblem::AddUpperObjective(ceres::CostFunction* cost_function,
                                   const std::vector<double*>& parameter_blocks,
                                   const std::string& name) {
  return AddUpperObjective(std::unique_ptr<ceres::CostFunction>(cost_function),
                           parameter_blocks,
                           name);
}

int MtblProblem::AddUpperObjective(
    std::unique_ptr<ceres::CostFunction> cost_function,
    const std::vector<double*>& parameter_blocks,
    const std::string& name) {
  std::ostringstream os;
  if (cost_function == nullptr) {
    os << "MtblProblem::AddUpperObjective: the cost function is null.";
  } else if (x_ == nullptr || y_ == nullptr) {
    os << "MtblProblem::AddUpperObjective: call SetUpperLevelVariables and "
          "SetLowerLevelVariables before adding objectives ("
       << (x_ == nullptr ? "x" : "y") << " is not set yet).";
  } else {
    const auto& sizes = cost_function->parameter_block_sizes();
    for (size_t j = 0; j < parameter_blocks.size() && os.str().empty(); ++j) {
      double* block = parameter_blocks[j];
      if (block == nullptr || block == x_ || block == y_) continue;
      const int size = j < sizes.size() ? sizes[j] : 1;
      if (Overlap(block, size, x_, nx_) || Overlap(block, size, y_, ny_)) {
        os << "MtblProblem::AddUpperObjective: parameter block " << j
           << " of objective '" << name
           << "' overlaps x or y without being x or y itself; pass x or y "
              "(the whole array) or a separate array.";
      }
    }
  }
  if (!os.str().empty()) {
    RecordError(os.str());
    return -1;
  }
  const int index =
      problem_.AddObjective(std::move(cost_function), parameter_blocks, name);
  if (index < 0) {
    std::string error;
    problem_.IsValid(&error);
    RecordError("MtblProblem::AddUpperObjective: " + error);
  }
  return index;
}

bool MtblProblem::CheckLowerLevelCall(int nx, int ny, const char* method) {
  std::ostringstream os;
  if (lower_level_ != nullptr) {
    os << "MtblProblem::" << method
       << ": the lower-level objective was already set; call it once.";
  } else if (y_ == nullptr) {
    os << "MtblProblem::" << method
       << ": the lower-level variables y are missing; call "
          "SetLowerLevelVariables(y, ny) first.";
  } else if (x_ == nullptr) {
    os << "MtblProblem::" << method
       << ": the upper-level variables x are missing; call "
          "SetUpperLevelVariables(x, nx) first.";
  } else if (nx != nx_ || ny != ny_) {
    os << "MtblProblem::" << method << ": the functor's sizes (NX = " << nx
       << ", NY = " << ny << ") do not match the variables (nx = " << nx_
       << ", ny = " << ny_ << "); use SetLowerLevelObjective<" << nx_ << ", "
       << ny_ << ">.";
  }
  if (!os.str().empty()) {
    RecordError(os.str());
    return false;
  }
  return true;
}

void MtblProblem::AdoptLowerLevel(
    std::unique_ptr<ceres::CostFunction> grad_y,
    std::function<bool(const double*, const double*, double*)> value) {
  const ceres::CostFunction* raw = grad_y.get();
  if (problem_.AddConstraint(std::move(grad_y), {x_, y_}, "grad_y_g") < 0) {
    std::string error;
    problem_.IsValid(&error);
    RecordError("MtblProblem: adding grad_y g failed: " + error);
    return;
  }
  lower_level_ =
      internal::MakeCostFunctionLowerLevel(nx_, ny_, raw, std::move(value));
}

bool MtblProblem::IsValid(std::string* error) const {
  std::string message = first_error_;
  if (message.empty()) {
    if (x_ == nullptr) {
      message =
          "MtblProblem: the upper-level variables x are missing; call "
          "SetUpperLevelVariables(x, nx).";
    } else if (y_ == nullptr) {
      message =
          "MtblProblem: the lower-level variables y are missing; call "
          "SetLowerLevelVariables(y, ny).";
    } else if (lower_level_ == nullptr) {
      message =
          "MtblProblem: no lower-level objective g; call "
          "SetLowerLevelObjective<nx, ny>(new G) or "
          "SetDynamicLowerLevelObjective(new G).";
    } else if (problem_.NumObjectives() == 0) {
      message =
          "MtblProblem: no upper-level objective; call AddUpperObjective.";
    } else {
      std::string problem_error;
      if (!problem_.IsValid(&problem_error)) message = problem_error;
    }
  }
  if (error != nullptr) *error = message;
  return message.empty();
}

int MtblProblem::UpperOffset() const {
  for (const Problem::ParameterBlock& b : problem_.parameter_blocks()) {
    if (b.values == x_ && x_ != nullptr) return b.offset;
  }
  return -1;
}

int MtblProblem::LowerOffset() const {
  for (const Problem::ParameterBlock& b : problem_.parameter_blocks()) {
    if (b.values == y_ && y_ != nullptr) return b.offset;
  }
  return -1;
}

// ---------------------------------------------------------- MtblEvaluator --

MtblEvaluator::MtblEvaluator(const LowerLevel* lower_level)
    : lower_level_(lower_level) {
  if (lower_level_ == nullptr) {
    first_error_ = "MtblEvaluator: the lower level is null.";
    return;
  }
  nx_ = lower_level_->NumUpperParameters();
  ny_ = lower_level_->NumLowerParameters();
  if (nx_ <= 0 || ny_ <= 0) {
    std::ostringstream os;
    os << "MtblEvaluator: the lower level reports nx = " << nx_
       << " and ny = " << ny_ << "; both must be >= 1.";
    first_error_ = os.str();
  }
}

MtblEvaluator::~MtblEvaluator() = default;

int MtblEvaluator::AddUpperObjective(ceres::CostFunction* cost_function,
                                     const std::vector<MtblBlock>& blocks,
                                     const std::string& name) {
  std::unique_ptr<ceres::CostFunction> owned(cost_function);
  const std::string label =
      name.empty() ? "f" + std::to_string(objectives_.size() + 1) : name;
  std::ostringstream os;
  if (owned == nullptr) {
    os << "MtblEvaluator::AddUpperObjective: the cost function of '" << label
       << "' is null.";
  } else if (owned->num_residuals() != 1) {
    os << "MtblEvaluator::AddUpperObjective: objective '" << label << "' has "
       << owned->num_residuals()
       << " residuals; an objective is one value (num_residuals = 1).";
  } else if (owned->parameter_block_sizes().size() != blocks.size()) {
    os << "MtblEvaluator::AddUpperObjective: objective '" << label << "' takes "
       << owned->parameter_block_sizes().size() << " parameter blocks but "
       << blocks.size() << " were listed.";
  } else {
    for (size_t j = 0; j < blocks.size(); ++j) {
      const int expected = blocks[j] == MtblBlock::X ? nx_ : ny_;
      if (owned->parameter_block_sizes()[j] != expected) {
        os << "MtblEvaluator::AddUpperObjective: objective '" << label
           << "' block " << j << " has size "
           << owned->parameter_block_sizes()[j] << " but "
           << (blocks[j] == MtblBlock::X ? "x" : "y") << " has " << expected
           << " entries.";
        break;
      }
    }
  }
  if (!os.str().empty()) {
    if (first_error_.empty()) first_error_ = os.str();
    return -1;
  }
  Objective objective;
  objective.cost_function = std::move(owned);
  objective.blocks = blocks;
  objective.name = label;
  objectives_.push_back(std::move(objective));
  return static_cast<int>(objectives_.size()) - 1;
}

bool MtblEvaluator::IsValid(std::string* error) const {
  std::string message = first_error_;
  if (message.empty() && objectives_.empty()) {
    message =
        "MtblEvaluator: no upper-level objective; call AddUpperObjective.";
  }
  if (error != nullptr) *error = message;
  return message.empty();
}

int MtblEvaluator::NumParameters() const { return nx_ + ny_; }
int MtblEvaluator::NumObjectives() const {
  return static_cast<int>(objectives_.size());
}
int MtblEvaluator::NumConstraints() const { return ny_; }

bool MtblEvaluator::DoEvaluate(
    const double* z, double* f, double* h, double* grad_f, std::string* error) {
  std::string invalid;
  if (!IsValid(&invalid)) {
    if (error != nullptr) *error = invalid;
    return false;
  }
  const int k = nx_ + ny_;
  const double* x = z;
  const double* y = z + nx_;
  if (grad_f != nullptr) {
    std::fill(
        grad_f, grad_f + static_cast<size_t>(k) * objectives_.size(), 0.0);
  }
  std::vector<const double*> parameters;
  std::vector<double*> jacobians;
  for (size_t s = 0; s < objectives_.size(); ++s) {
    const Objective& objective = objectives_[s];
    const size_t n = objective.blocks.size();
    parameters.resize(n);
    jacobians.resize(n);
    for (size_t j = 0; j < n; ++j) {
      const bool is_x = objective.blocks[j] == MtblBlock::X;
      parameters[j] = is_x ? x : y;
      if (grad_f != nullptr) {
        // One buffer per listed block, so a block listed twice accumulates.
        if (jacobian_scratch_.size() < n) jacobian_scratch_.resize(n);
        jacobian_scratch_[j].assign(is_x ? nx_ : ny_, 0.0);
        jacobians[j] = jacobian_scratch_[j].data();
      }
    }
    const bool ok = objective.cost_function->Evaluate(
        parameters.data(),
        f + s,
        grad_f != nullptr ? jacobians.data() : nullptr);
    if (!ok || !std::isfinite(f[s])) {
      if (error != nullptr) {
        *error = "MtblEvaluator: objective '" + objective.name +
                 (ok ? "' returned a non-finite value."
                     : "' failed to evaluate (its cost function returned "
                       "false).");
      }
      return false;
    }
    if (grad_f != nullptr) {
      double* column = grad_f + s * static_cast<size_t>(k);
      for (size_t j = 0; j < n; ++j) {
        const bool is_x = objective.blocks[j] == MtblBlock::X;
        const int size = is_x ? nx_ : ny_;
        double* target = column + (is_x ? 0 : nx_);
        for (int c = 0; c < size; ++c) target[c] += jacobians[j][c];
      }
    }
  }
  if (!lower_level_->GradY(x, y, h) || !AllFinite(h, ny_)) {
    if (error != nullptr) {
      *error =
          "MtblEvaluator: the lower level's GradY failed or returned a "
          "non-finite value.";
    }
    return false;
  }
  if (grad_f != nullptr) {
    if (!AllFinite(grad_f, static_cast<int>(k * objectives_.size()))) {
      if (error != nullptr) {
        *error = "MtblEvaluator: an objective returned a non-finite gradient.";
      }
      return false;
    }
    z_lin_ = Eigen::Map<const Eigen::VectorXd>(z, k);
  }
  return true;
}

void MtblEvaluator::DoJacobianTransposeMultiply(const double* v,
                                                double* out) const {
  const int k = nx_ + ny_;
  if (z_lin_.size() != k ||
      !lower_level_->GradYJacobianTransposeProduct(
          z_lin_.data(), z_lin_.data() + nx_, v, out, out + nx_)) {
    std::fill(out, out + k, std::numeric_limits<double>::quiet_NaN());
  }
}

void MtblEvaluator::DoJacobianMultiply(const double* w, double* out) const {
  const int k = nx_ + ny_;
  if (z_lin_.size() != k ||
      !lower_level_->GradYJacobianProduct(
          z_lin_.data(), z_lin_.data() + nx_, w, w + nx_, out)) {
    std::fill(out, out + ny_, std::numeric_limits<double>::quiet_NaN());
  }
}

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
  const int nx = lower_level.NumUpperParameters();
  const int ny = lower_level.NumLowerParameters();
  std::mt19937_64 rng(options.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd d(ny), hd(ny), out_x(nx);
  double worst = std::numeric_limits<double>::infinity();
  Eigen::VectorXd worst_d;
  double worst_curvature = 0.0;
  for (int i = 0; i < options.convexity_directions; ++i) {
    for (int j = 0; j < ny; ++j) d[j] = normal(rng);
    if (!lower_level.GradYJacobianTransposeProduct(
            x, y, d.data(), out_x.data(), hd.data())) {
      if (message != nullptr) {
        *message =
            "the convexity check could not evaluate grad^2_yy g "
            "(GradYJacobianTransposeProduct failed).";
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
