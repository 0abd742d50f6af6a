// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// MTBL model: LowerLevel, MtblProblem (nested automatic differentiation of
// g) and the matrix-free MtblEvaluator. The report is in mtbl_report.cc.

#include <algorithm>
#include <cmath>
#include <sstream>

#include "ecmo/internal/report.h"
#include "ecmo/kkt.h"
#include "ecmo/mtbl.h"

namespace ecmo {

using internal::AllFinite;

namespace {

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
}  // namespace

// ------------------------------------------------------------- LowerLevel --

LowerLevel::~LowerLevel() = default;

bool LowerLevel::Value(const double*, const double*, double*) const {
  return false;
}

bool LowerLevel::GradX(const double*, const double*, double*) const {
  return false;
}

bool LowerLevel::HessianYYProduct(const double* x,
                                  const double* y,
                                  const double* v,
                                  double* out_y) const {
  // Per thread, so that concurrent const calls stay safe; sized once per
  // thread and problem size, not per product (nx can be large).
  thread_local std::vector<double> scratch_x;
  scratch_x.resize(NumUpperParameters());
  return GradYJacobianTransposeProduct(x, y, v, scratch_x.data(), out_y);
}

bool LowerLevel::GradYJacobianProduct(const double* x,
                                      const double* y,
                                      const double* w_x,
                                      const double* w_y,
                                      double* out) const {
  const int nx = NumUpperParameters();
  const int ny = NumLowerParameters();
  // y part: H_yy w_y = (d h / d y)^T w_y by symmetry of grad^2_yy g.
  if (!HessianYYProduct(x, y, w_y, out)) return false;
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

bool LowerLevel::GradYJacobianTransposeProductDerivative(const double* x,
                                                         const double* y,
                                                         const double* v,
                                                         const double* d_x,
                                                         const double* d_y,
                                                         double* out_x,
                                                         double* out_y) const {
  const int nx = NumUpperParameters();
  const int ny = NumLowerParameters();
  const Eigen::Map<const Eigen::VectorXd> xv(x, nx), yv(y, ny);
  const Eigen::Map<const Eigen::VectorXd> dx(d_x, nx), dy(d_y, ny);
  const double d_norm = std::sqrt(dx.squaredNorm() + dy.squaredNorm());
  Eigen::Map<Eigen::VectorXd> ox(out_x, nx), oy(out_y, ny);
  if (d_norm == 0.0) {
    ox.setZero();
    oy.setZero();
    return true;
  }
  // Central difference: the products are exact, so the error is the
  // O(t^2) truncation plus rounding of order eps / t.
  const double t = std::cbrt(std::numeric_limits<double>::epsilon()) *
                   (1.0 + std::sqrt(xv.squaredNorm() + yv.squaredNorm())) /
                   d_norm;
  Eigen::VectorXd xp = xv + t * dx, xm = xv - t * dx;
  Eigen::VectorXd yp = yv + t * dy, ym = yv - t * dy;
  Eigen::VectorXd px(nx), py(ny), mx(nx), my(ny);
  if (!GradYJacobianTransposeProduct(
          xp.data(), yp.data(), v, px.data(), py.data()) ||
      !GradYJacobianTransposeProduct(
          xm.data(), ym.data(), v, mx.data(), my.data())) {
    return false;
  }
  ox = (px - mx) / (2.0 * t);
  oy = (py - my) / (2.0 * t);
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

bool MtblEvaluator::UpperGradients(const double* z,
                                   double* f,
                                   double* grad_f,
                                   std::string* error) {
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
  if (grad_f != nullptr &&
      !AllFinite(grad_f, static_cast<int>(k * objectives_.size()))) {
    if (error != nullptr) {
      *error = "MtblEvaluator: an objective returned a non-finite gradient.";
    }
    return false;
  }
  return true;
}

bool MtblEvaluator::DoEvaluate(
    const double* z, double* f, double* h, double* grad_f, std::string* error) {
  std::string invalid;
  if (!IsValid(&invalid)) {
    if (error != nullptr) *error = invalid;
    return false;
  }
  const int k = nx_ + ny_;
  if (!UpperGradients(z, f, grad_f, error)) return false;
  if (!lower_level_->GradY(z, z + nx_, h) || !AllFinite(h, ny_)) {
    if (error != nullptr) {
      *error =
          "MtblEvaluator: the lower level's GradY failed or returned a "
          "non-finite value.";
    }
    return false;
  }
  if (grad_f != nullptr) z_lin_ = Eigen::Map<const Eigen::VectorXd>(z, k);
  return true;
}

bool MtblEvaluator::DoLagrangianHessianMultiply(const double* a,
                                                const double* b,
                                                const double* x,
                                                double* out,
                                                std::string* error) {
  const int k = nx_ + ny_;
  const int S = NumObjectives();
  Eigen::Map<Eigen::VectorXd> result(out, k);
  if (z_lin_.size() != k) {
    if (error != nullptr) {
      *error =
          "MtblEvaluator: no linearization point: call Evaluate with "
          "gradients before asking for Hessian products";
    }
    return false;
  }
  const Eigen::Map<const Eigen::VectorXd> direction(x, k);
  const double direction_norm = direction.norm();
  result.setZero();
  if (direction_norm == 0.0) return true;
  // Lower level: the Hessian of b^T grad_y g times x.
  Eigen::VectorXd lower_x(nx_), lower_y(ny_);
  if (!lower_level_->GradYJacobianTransposeProductDerivative(
          z_lin_.data(),
          z_lin_.data() + nx_,
          b,
          x,
          x + nx_,
          lower_x.data(),
          lower_y.data())) {
    if (error != nullptr) {
      *error =
          "MtblEvaluator: the lower level's third-order product "
          "(GradYJacobianTransposeProductDerivative) failed";
    }
    return false;
  }
  result.head(nx_) = lower_x;
  result.tail(ny_) = lower_y;
  // Upper objectives: central difference of sum_s a_s grad f_s.
  const Eigen::Map<const Eigen::VectorXd> weights(a, S);
  if (weights.cwiseAbs().maxCoeff() == 0.0) return true;
  const double t = std::cbrt(std::numeric_limits<double>::epsilon()) *
                   (1.0 + z_lin_.norm()) / direction_norm;
  const Eigen::VectorXd z_plus = z_lin_ + t * direction;
  const Eigen::VectorXd z_minus = z_lin_ - t * direction;
  Eigen::VectorXd f(S);
  Eigen::MatrixXd grad_plus(k, S), grad_minus(k, S);
  if (!UpperGradients(z_plus.data(), f.data(), grad_plus.data(), error) ||
      !UpperGradients(z_minus.data(), f.data(), grad_minus.data(), error)) {
    return false;
  }
  result += (grad_plus - grad_minus) * weights / (2.0 * t);
  if (!result.allFinite()) {
    if (error != nullptr) {
      *error = "MtblEvaluator: a Hessian product is not finite";
    }
    return false;
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

}  // namespace ecmo
