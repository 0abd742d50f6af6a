// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// mtbl_logistic: synthetic multi-task data re-weighting with a multinomial
// logistic lower level (see ecmo/problems/mtbl_logistic.h).
//
// Notation in the products below, per sample i of source j: a_i its
// features, p_i = softmax(W a_i) its class probabilities, e_i its one-hot
// label, omega_i = w_j / n_j its weight in g. For a direction V (C x d),
// u_i = V a_i; the Hessian of the cross-entropy in the logits is
// diag(p) - p p^T, so (diag(p) - p p^T) u = p .* (u - p.u), and its
// derivative along logits r (dp = p .* (r - p.r)) applied to u is
// dp .* u - dp (p.u) - p (dp.u). Every product is therefore "logits of a
// direction" (X V^T, samples x C), a per-sample C-vector formula, and one
// accumulation Q^T X (C x d).

#include "ecmo/problems/mtbl_logistic.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "cross_entropy_cost.h"
#include "ecmo/lower_level_solver.h"

namespace ecmo {
namespace problems {

namespace {

using RowMatrix = internal::RowMatrix;
using ConstWeightsMap = Eigen::Map<const RowMatrix>;
using internal::CrossEntropyCost;
using internal::SoftmaxRows;

}  // namespace

// ---------------------------------------------------- the lower level --

MtblLogisticLowerLevel::MtblLogisticLowerLevel(int num_sources,
                                               int num_classes,
                                               RowMatrix features,
                                               std::vector<int> labels,
                                               std::vector<int> sources,
                                               double l2)
    : num_sources_(num_sources),
      num_classes_(num_classes),
      features_(std::move(features)),
      labels_(std::move(labels)),
      sources_(std::move(sources)),
      source_sizes_(num_sources, 0),
      l2_(l2) {
  for (int j : sources_) ++source_sizes_[j];
}

int MtblLogisticLowerLevel::NumLowerParameters() const {
  return num_classes_ * static_cast<int>(features_.cols());
}

void MtblLogisticLowerLevel::Weights(const double* x,
                                     Eigen::VectorXd* w,
                                     Eigen::VectorXd* sample_weight) const {
  const Eigen::Map<const Eigen::VectorXd> xv(x, num_sources_);
  *w = (xv.array() - xv.maxCoeff()).exp();
  *w /= w->sum();
  if (sample_weight != nullptr) {
    sample_weight->resize(num_samples());
    for (int i = 0; i < num_samples(); ++i) {
      const int j = sources_[i];
      (*sample_weight)[i] = (*w)[j] / std::max(1, source_sizes_[j]);
    }
  }
}

std::shared_ptr<const RowMatrix> MtblLogisticLowerLevel::Probabilities(
    const double* y) const {
  const int ny = NumLowerParameters();
  const Eigen::Map<const Eigen::VectorXd> yv(y, ny);
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cached_p_ != nullptr && cached_y_.size() == ny && cached_y_ == yv) {
      return cached_p_;
    }
  }
  const ConstWeightsMap w(y, num_classes_, num_features());
  auto p = std::make_shared<RowMatrix>(features_ * w.transpose());
  SoftmaxRows(p.get(), nullptr);
  std::lock_guard<std::mutex> lock(cache_mutex_);
  cached_y_ = yv;
  cached_p_ = p;
  return p;
}

bool MtblLogisticLowerLevel::Value(const double* x,
                                   const double* y,
                                   double* g) const {
  Eigen::VectorXd w, omega, lse;
  Weights(x, &w, &omega);
  const ConstWeightsMap wy(y, num_classes_, num_features());
  RowMatrix z = features_ * wy.transpose();
  double value = 0.0;
  for (int i = 0; i < num_samples(); ++i) value -= omega[i] * z(i, labels_[i]);
  SoftmaxRows(&z, &lse);
  value += omega.dot(lse);
  value += 0.5 * l2_ * wy.squaredNorm();
  *g = value;
  return std::isfinite(value);
}

bool MtblLogisticLowerLevel::GradY(const double* x,
                                   const double* y,
                                   double* h) const {
  Eigen::VectorXd w, omega;
  Weights(x, &w, &omega);
  RowMatrix p = *Probabilities(y);
  for (int i = 0; i < num_samples(); ++i) {
    p(i, labels_[i]) -= 1.0;
    p.row(i) *= omega[i];
  }
  const int ny = NumLowerParameters();
  Eigen::Map<RowMatrix> out(h, num_classes_, num_features());
  out.noalias() = p.transpose() * features_;
  Eigen::Map<Eigen::VectorXd>(h, ny) +=
      l2_ * Eigen::Map<const Eigen::VectorXd>(y, ny);
  return Eigen::Map<const Eigen::VectorXd>(h, ny).allFinite();
}

bool MtblLogisticLowerLevel::GradX(const double* x,
                                   const double* y,
                                   double* out) const {
  Eigen::VectorXd w;
  Weights(x, &w, nullptr);
  const ConstWeightsMap wy(y, num_classes_, num_features());
  RowMatrix z = features_ * wy.transpose();
  Eigen::VectorXd lse;
  Eigen::VectorXd label_logit(num_samples());
  for (int i = 0; i < num_samples(); ++i) label_logit[i] = z(i, labels_[i]);
  SoftmaxRows(&z, &lse);
  Eigen::VectorXd losses = Eigen::VectorXd::Zero(num_sources_);
  for (int i = 0; i < num_samples(); ++i) {
    const int j = sources_[i];
    losses[j] += (lse[i] - label_logit[i]) / std::max(1, source_sizes_[j]);
  }
  const double mean = w.dot(losses);
  for (int k = 0; k < num_sources_; ++k) out[k] = w[k] * (losses[k] - mean);
  return Eigen::Map<const Eigen::VectorXd>(out, num_sources_).allFinite();
}

bool MtblLogisticLowerLevel::GradYJacobianTransposeProduct(
    const double* x,
    const double* y,
    const double* v,
    double* out_x,
    double* out_y) const {
  Eigen::VectorXd w, omega;
  Weights(x, &w, &omega);
  const std::shared_ptr<const RowMatrix> probabilities = Probabilities(y);
  const RowMatrix& p = *probabilities;
  const ConstWeightsMap vm(v, num_classes_, num_features());
  RowMatrix u = features_ * vm.transpose();
  // G_j = <grad L_j, v> = mean over source j of (p_i - e_i).u_i.
  Eigen::VectorXd g = Eigen::VectorXd::Zero(num_sources_);
  for (int i = 0; i < num_samples(); ++i) {
    const int j = sources_[i];
    const double pu = p.row(i).dot(u.row(i));
    g[j] += (pu - u(i, labels_[i])) / source_sizes_[j];
    u.row(i) =
        omega[i] * p.row(i).cwiseProduct((u.row(i).array() - pu).matrix());
  }
  const int ny = NumLowerParameters();
  Eigen::Map<RowMatrix> oy(out_y, num_classes_, num_features());
  oy.noalias() = u.transpose() * features_;
  Eigen::Map<Eigen::VectorXd>(out_y, ny) +=
      l2_ * Eigen::Map<const Eigen::VectorXd>(v, ny);
  const double wg = w.dot(g);
  for (int k = 0; k < num_sources_; ++k) out_x[k] = w[k] * (g[k] - wg);
  return Eigen::Map<const Eigen::VectorXd>(out_y, ny).allFinite();
}

bool MtblLogisticLowerLevel::GradYJacobianProduct(const double* x,
                                                  const double* y,
                                                  const double* w_x,
                                                  const double* w_y,
                                                  double* out) const {
  Eigen::VectorXd w, omega;
  Weights(x, &w, &omega);
  const Eigen::Map<const Eigen::VectorXd> dx(w_x, num_sources_);
  // d w_j = w_j (dx_j - w.dx): the x part weights each source's gradient.
  const double wdx = w.dot(dx);
  const std::shared_ptr<const RowMatrix> probabilities = Probabilities(y);
  const RowMatrix& p = *probabilities;
  const ConstWeightsMap vm(w_y, num_classes_, num_features());
  RowMatrix u = features_ * vm.transpose();
  for (int i = 0; i < num_samples(); ++i) {
    const int j = sources_[i];
    const double kappa = w[j] * (dx[j] - wdx) / source_sizes_[j];
    const double pu = p.row(i).dot(u.row(i));
    Eigen::RowVectorXd q =
        omega[i] * p.row(i).cwiseProduct((u.row(i).array() - pu).matrix());
    q += kappa * p.row(i);
    q[labels_[i]] -= kappa;
    u.row(i) = q;
  }
  const int ny = NumLowerParameters();
  Eigen::Map<RowMatrix> o(out, num_classes_, num_features());
  o.noalias() = u.transpose() * features_;
  Eigen::Map<Eigen::VectorXd>(out, ny) +=
      l2_ * Eigen::Map<const Eigen::VectorXd>(w_y, ny);
  return Eigen::Map<const Eigen::VectorXd>(out, ny).allFinite();
}

bool MtblLogisticLowerLevel::GradYJacobianTransposeProductDerivative(
    const double* x,
    const double* y,
    const double* v,
    const double* d_x,
    const double* d_y,
    double* out_x,
    double* out_y) const {
  // The Hessian of phi(x, y) = v^T grad_y g = sum_j w_j(x) B_j(y) + l2 v.y,
  // B_j = <grad L_j(y), v>, times (d_x, d_y).
  Eigen::VectorXd w, omega;
  Weights(x, &w, &omega);
  const Eigen::Map<const Eigen::VectorXd> dx(d_x, num_sources_);
  const double wdx = w.dot(dx);
  const std::shared_ptr<const RowMatrix> probabilities = Probabilities(y);
  const RowMatrix& p = *probabilities;
  const ConstWeightsMap vm(v, num_classes_, num_features());
  const ConstWeightsMap dm(d_y, num_classes_, num_features());
  RowMatrix u = features_ * vm.transpose();
  const RowMatrix r = features_ * dm.transpose();
  Eigen::VectorXd b = Eigen::VectorXd::Zero(num_sources_);
  Eigen::VectorXd c = Eigen::VectorXd::Zero(num_sources_);
  Eigen::RowVectorXd hu(num_classes_), dp(num_classes_);
  for (int i = 0; i < num_samples(); ++i) {
    const int j = sources_[i];
    const auto pi = p.row(i);
    const double pu = pi.dot(u.row(i));
    const double pr = pi.dot(r.row(i));
    hu = pi.cwiseProduct((u.row(i).array() - pu).matrix());
    dp = pi.cwiseProduct((r.row(i).array() - pr).matrix());
    b[j] += (pu - u(i, labels_[i])) / source_sizes_[j];
    c[j] += r.row(i).dot(hu) / source_sizes_[j];
    // Third derivative of the cross-entropy along (r, u).
    const double dpu = dp.dot(u.row(i));
    Eigen::RowVectorXd t = dp.cwiseProduct(u.row(i)) - pu * dp - dpu * pi;
    u.row(i) = (w[j] * (dx[j] - wdx) / source_sizes_[j]) * hu + omega[i] * t;
  }
  Eigen::Map<RowMatrix> oy(out_y, num_classes_, num_features());
  oy.noalias() = u.transpose() * features_;
  // x part: d^2 w / dx^2 [d_x] against B, and d w / dx against C.
  const double wb = w.dot(b), wc = w.dot(c);
  double mixed = 0.0;
  for (int l = 0; l < num_sources_; ++l) mixed += w[l] * dx[l] * (b[l] - wb);
  for (int k = 0; k < num_sources_; ++k) {
    out_x[k] =
        w[k] * (dx[k] - wdx) * (b[k] - wb) - w[k] * mixed + w[k] * (c[k] - wc);
  }
  return Eigen::Map<const Eigen::VectorXd>(out_y, NumLowerParameters())
      .allFinite();
}

// ------------------------------------------------------------- building --

std::unique_ptr<MtblLogisticInstance> BuildMtblLogistic(
    const MtblLogisticOptions& options_in, std::string* error) {
  MtblLogisticOptions options = options_in;
  std::ostringstream os;
  if (options.num_classes < 2) {
    os << "num_classes = " << options.num_classes << "; needs >= 2.";
  } else if (options.num_sources < 1) {
    os << "num_sources = " << options.num_sources << "; needs >= 1.";
  } else if (options.num_tasks < 1 || options.num_tasks > options.num_classes) {
    os << "num_tasks = " << options.num_tasks << "; needs 1 .. num_classes ("
       << options.num_classes << ").";
  } else if (options.num_lower_parameters < options.num_classes) {
    os << "num_lower_parameters = " << options.num_lower_parameters
       << "; needs >= num_classes (" << options.num_classes << ").";
  } else if (options.train_samples_per_source < 1 ||
             options.validation_samples < options.num_classes) {
    os << "train_samples_per_source must be >= 1 and validation_samples >= "
          "num_classes (every class validated).";
  } else if (!(options.l2 >= 0.0) || !std::isfinite(options.l2)) {
    os << "l2 = " << options.l2 << "; needs >= 0 and finite.";
  } else if (!(options.label_noise >= 0.0 && options.label_noise <= 1.0)) {
    os << "label_noise = " << options.label_noise << "; needs [0, 1].";
  } else if (options.start_newton_iterations < 0) {
    os << "start_newton_iterations must be >= 0.";
  }
  if (!os.str().empty()) {
    if (error != nullptr) *error = "BuildMtblLogistic: " + os.str();
    return nullptr;
  }
  const int C = options.num_classes;
  const int d = options.num_lower_parameters / C;
  options.num_lower_parameters = C * d;
  const int N = options.num_sources;
  const int S = options.num_tasks;

  std::mt19937_64 rng(options.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::uniform_int_distribution<int> any_class(0, C - 1);
  RowMatrix means(C, d);
  for (int c = 0; c < C; ++c) {
    for (int k = 0; k < d; ++k) means(c, k) = options.separation * normal(rng);
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  auto sample = [&](int c, RowMatrix* features, int row) {
    for (int k = 0; k < d; ++k) {
      (*features)(row, k) = scale * (means(c, k) + normal(rng));
    }
  };

  const int n_train = N * options.train_samples_per_source;
  RowMatrix train(n_train, d);
  std::vector<int> train_labels(n_train), train_sources(n_train);
  for (int i = 0; i < n_train; ++i) {
    const int j = i / options.train_samples_per_source;
    const int c = i % C;
    sample(c, &train, i);
    int label = c;
    if (c % S != j % S && uniform(rng) < options.label_noise) {
      label = any_class(rng);
    }
    train_labels[i] = label;
    train_sources[i] = j;
  }
  const int n_val = options.validation_samples;
  std::vector<RowMatrix> group_features(S);
  std::vector<std::vector<int>> group_labels(S);
  RowMatrix one(1, d);
  for (int i = 0; i < n_val; ++i) {
    const int c = i % C;
    sample(c, &one, 0);
    RowMatrix& g = group_features[c % S];
    g.conservativeResize(g.rows() + 1, d);
    g.row(g.rows() - 1) = one.row(0);
    group_labels[c % S].push_back(c);
  }

  auto instance = std::make_unique<MtblLogisticInstance>();
  instance->options = options;
  instance->lower_level =
      std::make_unique<MtblLogisticLowerLevel>(N,
                                               C,
                                               std::move(train),
                                               std::move(train_labels),
                                               std::move(train_sources),
                                               options.l2);
  instance->evaluator =
      std::make_unique<MtblEvaluator>(instance->lower_level.get());
  for (int s = 0; s < S; ++s) {
    instance->evaluator->AddUpperObjective(
        new CrossEntropyCost(
            std::move(group_features[s]), std::move(group_labels[s]), C),
        {MtblBlock::Y},
        "validation_group_" + std::to_string(s));
  }
  std::string invalid;
  if (!instance->evaluator->IsValid(&invalid)) {
    if (error != nullptr) *error = "BuildMtblLogistic: " + invalid;
    return nullptr;
  }
  const int ny = C * d;
  Eigen::VectorXd x0 = Eigen::VectorXd::Zero(N);
  Eigen::VectorXd y0 = Eigen::VectorXd::Zero(ny);
  if (options.start_newton_iterations > 0) {
    LowerLevelSolver::Options solver;
    solver.max_iterations = options.start_newton_iterations;
    LowerLevelSolver::Summary summary;
    SolveLowerLevel(solver, *instance->lower_level, x0.data(), &y0, &summary);
  }
  instance->start.resize(N + ny);
  instance->start << x0, y0;
  return instance;
}

}  // namespace problems
}  // namespace ecmo
