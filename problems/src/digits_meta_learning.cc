// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// digits_meta_learning (see ecmo/problems/digits.h): a ReLU MLP feature
// extractor (x) shared by the tasks and a linear softmax classifier (y).
//
// Every oracle comes from one hand-written routine, MlpClassifier::Run:
// the forward pass, the mean cross-entropy, and its gradient in (x, y) by
// back-propagation. Run optionally carries a tangent direction
// (x_dot, y_dot) through every step (forward-mode differentiation of the
// hand-written gradient, each matrix product A B giving the tangent
// A_dot B + A B_dot), which yields the exact directional derivative of the
// gradient, i.e. a Hessian-vector product of g:
//   GradYJacobianTransposeProduct(v): direction (0, v); by the symmetry of
//     the Hessian, (d/dt) grad g(x, y + t v) = (H_xy v, H_yy v);
//   GradYJacobianProduct(w_x, w_y): direction (w_x, w_y), the y part of the
//     directional derivative = H_yx w_x + H_yy w_y.
// Tangents are carried as double matrices (not ceres::Jet scalars), so
// every product runs in Eigen's vectorized double kernels; the cost is a
// small multiple of one gradient, linear in the samples and the
// parameters. The lower level caches the network's activations at the
// last x (a lower-level solve or a CG solve keeps x fixed). ReLU's derivative
// is taken as 0 at 0 (a set of measure zero).
//
// Layouts. x: for each layer l (64 -> hidden_sizes... -> r), W_l
// (out x in, row-major) then b_l (out). y: the 10 x (r + 1) matrix
// [W | b] row-major (row c: class c's weights on the r features, then its
// bias), so the classifier acts on the features with a constant 1 appended.

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ceres/cost_function.h"
#include "digits_internal.h"
#include "ecmo/lower_level_solver.h"
#include "ecmo/problems/digits.h"

namespace ecmo {
namespace problems {

namespace {

using internal::RowMatrix;
using Map = Eigen::Map<RowMatrix>;
using ConstMap = Eigen::Map<const RowMatrix>;
using VectorMap = Eigen::Map<Eigen::VectorXd>;
using ConstVectorMap = Eigen::Map<const Eigen::VectorXd>;
constexpr int kClasses = internal::kDigitsClasses;

// What MlpClassifier::Run computes; null members are skipped (and so is
// the work only they need).
struct RunOutputs {
  double* value = nullptr;       // mean CE + l2/2 ||y||^2
  double* grad_x = nullptr;      // nx
  double* grad_y = nullptr;      // ny
  double* grad_x_dot = nullptr;  // nx: d/dt grad_x along (x_dot, y_dot)
  double* grad_y_dot = nullptr;  // ny: d/dt grad_y along (x_dot, y_dot)
};

// The network and one labelled set. Immutable: Run is const, keeps no
// state, and is thread-safe.
class MlpClassifier {
 public:
  // sizes = {64, hidden..., r}.
  MlpClassifier(std::vector<int> sizes,
                RowMatrix inputs,
                std::vector<int> labels)
      : sizes_(std::move(sizes)),
        inputs_(std::move(inputs)),
        labels_(std::move(labels)) {
    int offset = 0;
    for (size_t l = 0; l + 1 < sizes_.size(); ++l) {
      offsets_.push_back(offset);
      offset += sizes_[l + 1] * (sizes_[l] + 1);
    }
    nx_ = offset;
    ny_ = kClasses * (sizes_.back() + 1);
  }

  int nx() const { return nx_; }
  int ny() const { return ny_; }
  int num_samples() const { return static_cast<int>(labels_.size()); }

  // The output of every layer at x (ReLU applied on the hidden layers; the
  // last is the representation phi, samples x r).
  using Activations = std::vector<RowMatrix>;
  std::shared_ptr<const Activations> Forward(const double* x) const;

  // x_dot / y_dot null: a zero tangent in that block. The tangent outputs
  // need at least one of them, and grad_x_dot needs x_dot = null.
  // `forward`: Forward(x) if the caller has it (else computed here).
  bool Run(const double* x,
           const double* y,
           const double* x_dot,
           const double* y_dot,
           double l2,
           const RunOutputs& out,
           const Activations* forward = nullptr) const;

 private:
  ConstMap Weights(const double* x, int l) const {
    return ConstMap(x + offsets_[l], sizes_[l + 1], sizes_[l]);
  }
  ConstVectorMap Biases(const double* x, int l) const {
    return ConstVectorMap(x + offsets_[l] + sizes_[l + 1] * sizes_[l],
                          sizes_[l + 1]);
  }
  Map Weights(double* x, int l) const {
    return Map(x + offsets_[l], sizes_[l + 1], sizes_[l]);
  }
  VectorMap Biases(double* x, int l) const {
    return VectorMap(x + offsets_[l] + sizes_[l + 1] * sizes_[l],
                     sizes_[l + 1]);
  }

  std::vector<int> sizes_;
  std::vector<int> offsets_;
  RowMatrix inputs_;
  std::vector<int> labels_;
  int nx_ = 0;
  int ny_ = 0;
};

std::shared_ptr<const MlpClassifier::Activations> MlpClassifier::Forward(
    const double* x) const {
  const int num_layers = static_cast<int>(offsets_.size());
  auto act = std::make_shared<Activations>(num_layers);
  for (int l = 0; l < num_layers; ++l) {
    RowMatrix& a = (*act)[l];
    a.noalias() =
        (l == 0 ? inputs_ : (*act)[l - 1]) * Weights(x, l).transpose();
    a.rowwise() += Biases(x, l).transpose();
    if (l + 1 < num_layers) a = a.cwiseMax(0.0);
  }
  return act;
}

bool MlpClassifier::Run(const double* x,
                        const double* y,
                        const double* x_dot,
                        const double* y_dot,
                        double l2,
                        const RunOutputs& out,
                        const Activations* forward) const {
  const int num_layers = static_cast<int>(offsets_.size());
  const int r = sizes_.back();
  const int n = num_samples();
  const bool dx = x_dot != nullptr;
  const bool dy = y_dot != nullptr;
  const bool tangents = out.grad_x_dot != nullptr || out.grad_y_dot != nullptr;
  const bool backward = out.grad_x != nullptr || out.grad_x_dot != nullptr;
  // The backward tangent is written for x_dot = 0 only: no oracle needs
  // grad_x differentiated along x (H_xx).
  if (out.grad_x_dot != nullptr && dx) return false;

  // Forward: the activations (given, or computed here) and their tangent
  // act_dot[l] = (in W_l^T + b_l)_dot masked by the ReLU of layer l.
  std::shared_ptr<const Activations> computed;
  if (forward == nullptr) {
    computed = Forward(x);
    forward = computed.get();
  }
  const std::vector<RowMatrix>& act = *forward;
  std::vector<RowMatrix> act_dot(tangents && dx ? num_layers : 0);
  for (int l = 0; l < static_cast<int>(act_dot.size()); ++l) {
    const RowMatrix& in = l == 0 ? inputs_ : act[l - 1];
    act_dot[l].noalias() = in * Weights(x_dot, l).transpose();
    act_dot[l].rowwise() += Biases(x_dot, l).transpose();
    if (l > 0) {
      act_dot[l].noalias() += act_dot[l - 1] * Weights(x, l).transpose();
    }
    if (l + 1 < num_layers) {
      act_dot[l] = (act[l].array() > 0.0).select(act_dot[l], 0.0);
    }
  }
  const RowMatrix& phi = act.back();

  // Classifier: logits s = phi W^T + b, probabilities p, loss.
  const ConstMap classifier(y, kClasses, r + 1);
  const auto w = classifier.leftCols(r);
  RowMatrix p = phi * w.transpose();
  p.rowwise() += classifier.col(r).transpose();
  double loss = 0.0;
  for (int i = 0; i < n; ++i) loss -= p(i, labels_[i]);
  Eigen::VectorXd lse;
  internal::SoftmaxRows(&p, &lse);
  loss = (loss + lse.sum()) / n;
  const double y_norm2 = ConstVectorMap(y, ny_).squaredNorm();
  if (out.value != nullptr) *out.value = loss + 0.5 * l2 * y_norm2;
  if (!std::isfinite(loss)) return false;
  if (out.grad_x == nullptr && out.grad_y == nullptr && !tangents) return true;

  // G = d loss / d s = (p - onehot) / n, and its tangent
  // G_dot = (p .* (s_dot - <p, s_dot>)) / n.
  RowMatrix g = p;
  for (int i = 0; i < n; ++i) g(i, labels_[i]) -= 1.0;
  g /= n;
  RowMatrix g_dot;
  const ConstMap classifier_dot(dy ? y_dot : y, kClasses, r + 1);
  if (tangents) {
    RowMatrix s_dot = RowMatrix::Zero(n, kClasses);
    if (dx) s_dot.noalias() += act_dot.back() * w.transpose();
    if (dy) {
      s_dot.noalias() += phi * classifier_dot.leftCols(r).transpose();
      s_dot.rowwise() += classifier_dot.col(r).transpose();
    }
    const Eigen::VectorXd ps = p.cwiseProduct(s_dot).rowwise().sum();
    g_dot = p.cwiseProduct((s_dot.colwise() - ps)) / n;
  }
  if (out.grad_y != nullptr) {
    Map gy(out.grad_y, kClasses, r + 1);
    gy.leftCols(r).noalias() = g.transpose() * phi;
    gy.col(r) = g.colwise().sum().transpose();
    VectorMap(out.grad_y, ny_) += l2 * ConstVectorMap(y, ny_);
  }
  if (out.grad_y_dot != nullptr) {
    Map gy(out.grad_y_dot, kClasses, r + 1);
    gy.leftCols(r).noalias() = g_dot.transpose() * phi;
    if (dx) gy.leftCols(r).noalias() += g.transpose() * act_dot.back();
    gy.col(r) = g_dot.colwise().sum().transpose();
    if (dy) VectorMap(out.grad_y_dot, ny_) += l2 * ConstVectorMap(y_dot, ny_);
  }
  if (!backward) return true;

  // Back-propagation: delta = d loss / d (pre-activation of layer l).
  RowMatrix delta = g * w;
  RowMatrix delta_dot;
  if (tangents) {
    delta_dot = g_dot * w;
    if (dy) delta_dot.noalias() += g * classifier_dot.leftCols(r);
  }
  for (int l = num_layers - 1; l >= 0; --l) {
    const RowMatrix& in = l == 0 ? inputs_ : act[l - 1];
    if (out.grad_x != nullptr) {
      Weights(out.grad_x, l).noalias() = delta.transpose() * in;
      Biases(out.grad_x, l) = delta.colwise().sum().transpose();
    }
    if (out.grad_x_dot != nullptr) {
      Weights(out.grad_x_dot, l).noalias() = delta_dot.transpose() * in;
      Biases(out.grad_x_dot, l) = delta_dot.colwise().sum().transpose();
    }
    if (l == 0) break;
    // Through W_l and the ReLU of layer l - 1 (mask: act > 0).
    RowMatrix next = delta * Weights(x, l);
    RowMatrix next_dot;
    if (tangents) next_dot.noalias() = delta_dot * Weights(x, l);
    const RowMatrix& a = act[l - 1];
    for (Eigen::Index i = 0; i < a.size(); ++i) {
      if (!(a.data()[i] > 0.0)) {
        next.data()[i] = 0.0;
        if (tangents) next_dot.data()[i] = 0.0;
      }
    }
    delta = std::move(next);
    delta_dot = std::move(next_dot);
  }
  return true;
}

// g(x, y) = mean training cross-entropy + l2/2 ||y||^2. The network's
// activations at the last x are cached (guarded by a mutex, so the const
// methods stay thread-safe): the lower-level solves and the products of one
// CG solve share x, and the network is most of the work of every oracle.
class MetaLearningLowerLevel final : public LowerLevel {
 public:
  MetaLearningLowerLevel(MlpClassifier train, double l2)
      : train_(std::move(train)), l2_(l2) {}

  int NumUpperParameters() const override { return train_.nx(); }
  int NumLowerParameters() const override { return train_.ny(); }

  bool Value(const double* x, const double* y, double* g) const override {
    RunOutputs out;
    out.value = g;
    return Run(x, y, nullptr, nullptr, out);
  }
  bool GradY(const double* x, const double* y, double* h) const override {
    RunOutputs out;
    out.grad_y = h;
    return Run(x, y, nullptr, nullptr, out) &&
           ConstVectorMap(h, train_.ny()).allFinite();
  }
  bool GradX(const double* x, const double* y, double* gx) const override {
    RunOutputs out;
    out.grad_x = gx;
    return Run(x, y, nullptr, nullptr, out) &&
           ConstVectorMap(gx, train_.nx()).allFinite();
  }
  bool GradYJacobianTransposeProduct(const double* x,
                                     const double* y,
                                     const double* v,
                                     double* out_x,
                                     double* out_y) const override {
    RunOutputs out;
    out.grad_x_dot = out_x;
    out.grad_y_dot = out_y;
    return Run(x, y, nullptr, v, out) &&
           ConstVectorMap(out_y, train_.ny()).allFinite() &&
           ConstVectorMap(out_x, train_.nx()).allFinite();
  }
  // The y part alone: no back-propagation through the network (the
  // transpose product's x part is most of its cost).
  bool HessianYYProduct(const double* x,
                        const double* y,
                        const double* v,
                        double* out_y) const override {
    return ForwardProduct(x, y, nullptr, v, out_y);
  }
  bool GradYJacobianProduct(const double* x,
                            const double* y,
                            const double* w_x,
                            const double* w_y,
                            double* result) const override {
    return ForwardProduct(x, y, w_x, w_y, result);
  }

 private:
  // result = H_yx w_x + H_yy w_y (w_x null: the y part alone).
  bool ForwardProduct(const double* x,
                      const double* y,
                      const double* w_x,
                      const double* w_y,
                      double* result) const {
    RunOutputs out;
    out.grad_y_dot = result;
    return Run(x, y, w_x, w_y, out) &&
           ConstVectorMap(result, train_.ny()).allFinite();
  }
  bool Run(const double* x,
           const double* y,
           const double* x_dot,
           const double* y_dot,
           const RunOutputs& out) const {
    const std::shared_ptr<const MlpClassifier::Activations> forward =
        Forward(x);
    return train_.Run(x, y, x_dot, y_dot, l2_, out, forward.get());
  }

  std::shared_ptr<const MlpClassifier::Activations> Forward(
      const double* x) const {
    const ConstVectorMap xv(x, train_.nx());
    {
      std::lock_guard<std::mutex> lock(cache_mutex_);
      if (cached_forward_ != nullptr && cached_x_ == xv) {
        return cached_forward_;
      }
    }
    std::shared_ptr<const MlpClassifier::Activations> forward =
        train_.Forward(x);
    std::lock_guard<std::mutex> lock(cache_mutex_);
    cached_x_ = xv;
    cached_forward_ = forward;
    return forward;
  }

  MlpClassifier train_;
  double l2_;
  mutable std::mutex cache_mutex_;
  mutable Eigen::VectorXd cached_x_;
  mutable std::shared_ptr<const MlpClassifier::Activations> cached_forward_;
};

// f_s(x, y) = mean validation cross-entropy of task s + proximal/2 ||x||^2,
// over the blocks {x, y}; gradient by back-propagation. Immutable.
class ValidationCost final : public ceres::CostFunction {
 public:
  ValidationCost(MlpClassifier validation, double proximal)
      : validation_(std::move(validation)), proximal_(proximal) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(validation_.nx());
    mutable_parameter_block_sizes()->push_back(validation_.ny());
  }

  bool Evaluate(double const* const* parameters,
                double* residuals,
                double** jacobians) const override {
    RunOutputs out;
    out.value = residuals;
    if (jacobians != nullptr) {
      out.grad_x = jacobians[0];
      out.grad_y = jacobians[1];
    }
    if (!validation_.Run(
            parameters[0], parameters[1], nullptr, nullptr, 0.0, out)) {
      return false;
    }
    if (proximal_ > 0.0) {
      const ConstVectorMap x(parameters[0], validation_.nx());
      residuals[0] += 0.5 * proximal_ * x.squaredNorm();
      if (out.grad_x != nullptr)
        VectorMap(out.grad_x, x.size()) += proximal_ * x;
    }
    return std::isfinite(residuals[0]);
  }

 private:
  MlpClassifier validation_;
  double proximal_;
};

bool CheckOptions(const DigitsMetaLearningOptions& o, std::string* error) {
  std::ostringstream os;
  for (int h : o.hidden_sizes) {
    if (h < 1)
      os << "hidden_sizes has a layer of size " << h << "; needs >= 1.";
  }
  if (!os.str().empty()) {
  } else if (o.representation_size < 1) {
    os << "representation_size = " << o.representation_size << "; needs >= 1.";
  } else if (o.train_per_task < 5) {
    os << "train_per_task = " << o.train_per_task << "; needs >= 5.";
  } else if (o.validation_per_task < 5) {
    os << "validation_per_task = " << o.validation_per_task << "; needs >= 5.";
  } else if (!(o.l2 >= 0.0) || !std::isfinite(o.l2)) {
    os << "l2 = " << o.l2 << "; needs >= 0 and finite.";
  } else if (!(o.proximal >= 0.0) || !std::isfinite(o.proximal)) {
    os << "proximal = " << o.proximal << "; needs >= 0 and finite.";
  } else if (o.start_newton_iterations < 0) {
    os << "start_newton_iterations = " << o.start_newton_iterations
       << "; needs >= 0.";
  }
  if (os.str().empty()) return true;
  *error = "BuildDigitsMetaLearning: " + os.str();
  return false;
}

// Draws one subset of task s: round(0.8 size) images of digits 2s, 2s+1
// (split evenly) and the rest spread evenly over the other eight digits.
bool DrawTaskSubset(int s,
                    int size,
                    internal::ClassPools* pools,
                    std::mt19937_64* rng,
                    std::vector<int>* indices,
                    std::string* error) {
  const int in_pair = static_cast<int>(std::lround(0.8 * size));
  std::vector<int> pair = {2 * s, 2 * s + 1}, others;
  for (int c = 0; c < kClasses; ++c) {
    if (c / 2 != s) others.push_back(c);
  }
  const std::vector<int> a = internal::EvenCounts(in_pair, pair, rng);
  const std::vector<int> b = internal::EvenCounts(size - in_pair, others, rng);
  for (int c = 0; c < kClasses; ++c) {
    if (!pools->Take(c, a[c] + b[c], indices)) {
      *error =
          "BuildDigitsMetaLearning: the data have too few images of "
          "digit " +
          std::to_string(c) +
          " for five training and five validation subsets of "
          "train_per_task and validation_per_task images; reduce them.";
      return false;
    }
  }
  return true;
}

MlpClassifier MakeClassifier(const std::vector<int>& sizes,
                             const DigitsData& data,
                             const std::vector<int>& indices) {
  RowMatrix inputs(indices.size(), internal::kDigitsPixels);
  std::vector<int> labels(indices.size());
  for (size_t k = 0; k < indices.size(); ++k) {
    inputs.row(k) = data.images.row(indices[k]);
    labels[k] = data.labels[indices[k]];
  }
  return MlpClassifier(sizes, std::move(inputs), std::move(labels));
}

}  // namespace

std::unique_ptr<DigitsInstance> BuildDigitsMetaLearning(
    const DigitsMetaLearningOptions& options, std::string* error) {
  std::string local_error;
  if (error == nullptr) error = &local_error;
  if (!CheckOptions(options, error)) return nullptr;
  DigitsData data;
  if (!internal::LoadDigitsForInstance(
          options.data_path, "BuildDigitsMetaLearning", &data, error)) {
    return nullptr;
  }
  std::vector<int> sizes = {internal::kDigitsPixels};
  sizes.insert(
      sizes.end(), options.hidden_sizes.begin(), options.hidden_sizes.end());
  sizes.push_back(options.representation_size);

  // Every subset from one pool without replacement: the five training
  // subsets first, then the five validation subsets.
  std::mt19937_64 rng(options.seed);
  internal::ClassPools pools(data.labels, &rng);
  std::vector<int> train;
  for (int s = 0; s < kDigitsNumTasks; ++s) {
    if (!DrawTaskSubset(
            s, options.train_per_task, &pools, &rng, &train, error)) {
      return nullptr;
    }
  }
  std::vector<std::vector<int>> validation(kDigitsNumTasks);
  for (int s = 0; s < kDigitsNumTasks; ++s) {
    if (!DrawTaskSubset(s,
                        options.validation_per_task,
                        &pools,
                        &rng,
                        &validation[s],
                        error)) {
      return nullptr;
    }
  }

  auto instance = std::make_unique<DigitsInstance>();
  auto lower = std::make_unique<MetaLearningLowerLevel>(
      MakeClassifier(sizes, data, train), options.l2);
  const int nx = lower->NumUpperParameters();
  const int ny = lower->NumLowerParameters();
  instance->evaluator = std::make_unique<MtblEvaluator>(lower.get());
  for (int s = 0; s < kDigitsNumTasks; ++s) {
    const std::string name =
        "digits_" + std::to_string(2 * s) + "_" + std::to_string(2 * s + 1);
    instance->evaluator->AddUpperObjective(
        new ValidationCost(MakeClassifier(sizes, data, validation[s]),
                           options.proximal),
        {MtblBlock::X, MtblBlock::Y},
        name);
    instance->objective_names.push_back(name);
  }
  std::string invalid;
  if (!instance->evaluator->IsValid(&invalid)) {
    *error = "BuildDigitsMetaLearning: " + invalid;
    return nullptr;
  }

  // x0: He initialization (weights N(0, 2 / fan_in)), zero biases.
  Eigen::VectorXd x0 = Eigen::VectorXd::Zero(nx);
  std::normal_distribution<double> normal(0.0, 1.0);
  int offset = 0;
  for (size_t l = 0; l + 1 < sizes.size(); ++l) {
    const double scale = std::sqrt(2.0 / sizes[l]);
    for (int k = 0; k < sizes[l] * sizes[l + 1]; ++k) {
      x0[offset + k] = scale * normal(rng);
    }
    offset += sizes[l + 1] * (sizes[l] + 1);
  }
  Eigen::VectorXd y0 = Eigen::VectorXd::Zero(ny);
  if (options.start_newton_iterations > 0) {
    LowerLevelSolver::Options solver;
    solver.max_iterations = options.start_newton_iterations;
    LowerLevelSolver::Summary summary;
    SolveLowerLevel(solver, *lower, x0.data(), &y0, &summary);
  }
  instance->start.resize(nx + ny);
  instance->start << x0, y0;
  instance->lower_level = std::move(lower);
  instance->train_rows.resize(kDigitsNumTasks);
  const int per_task = options.train_per_task;
  for (int s = 0; s < kDigitsNumTasks; ++s) {
    instance->train_rows[s].assign(train.begin() + s * per_task,
                                   train.begin() + (s + 1) * per_task);
  }
  instance->validation_rows = validation;

  std::ostringstream description;
  description << "digits_meta_learning (UCI handwritten digits, seed "
              << options.seed << "): x = a shared ReLU MLP 64";
  for (int h : options.hidden_sizes) description << "-" << h;
  description << "-" << options.representation_size << " (n_x = " << nx
              << ", He-initialized), y = a linear softmax classifier on its "
                 "features (10 x "
              << options.representation_size + 1 << " with biases, n_y = " << ny
              << "). Five tasks, one per digit pair; task s trains on "
              << options.train_per_task << " and validates on "
              << options.validation_per_task
              << " images, 80% of its pair and 20% of the other digits, all "
                 "subsets disjoint. g = mean training cross-entropy over the "
                 "five subsets + "
              << options.l2
              << "/2 ||y||^2 (merely convex in y when 0: adding one vector "
                 "to every classifier row changes nothing). f_s = mean "
                 "validation cross-entropy of task s + "
              << options.proximal
              << "/2 ||x||^2. Start: y = " << options.start_newton_iterations
              << " Newton iterations from 0.";
  instance->description = description.str();
  return instance;
}

}  // namespace problems
}  // namespace ecmo
