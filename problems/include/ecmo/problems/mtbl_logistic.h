// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// mtbl_logistic: a synthetic, seeded multi-task bilevel (MTBL) instance
// with the structure of data re-weighting on a digits-like classification
// task, at any size of the lower level.
//
//   x in R^N            logits of N source weights w = softmax(x);
//   y in R^{C d}        a multinomial logistic regression W (C classes,
//                       d features; y = W row-major, n_y = C d);
//   g(x, y) = sum_j w_j L_j(y) + l2/2 ||y||^2,
//     L_j = mean cross-entropy of W on the training samples of source j;
//   f_s(x, y) = mean cross-entropy of W on the validation samples whose
//     class belongs to task group s (classes c with c mod S = s).
//
// Data: class means mu_c ~ N(0, separation^2 I_d); a sample of class c is
// (mu_c + N(0, I_d)) / sqrt(d) (unit scale whatever d). Source j's labels
// are clean on the classes of group j mod S and flipped to a uniformly
// random class with probability label_noise on the others, so each task
// prefers its own source and the weights trade the tasks off. Validation
// labels are clean.
//
// With l2 > 0, g(x, .) is strongly convex (the paper's digits anchor uses
// 1e-3). With l2 = 0 it is merely convex (the paper's setting): the
// softmax is invariant to adding the same vector to every row of W, so
// grad^2_yy g has a null space of dimension d (at least) and y* is not
// unique; when the training data are linearly separable (n_y >~ number of
// samples) g has no minimizer at all.
//
// The lower level is hand-written and matrix-free: GradY, GradX, exact
// Hessian-vector products, the forward product and the exact third-order
// product (LowerLevel::GradYJacobianTransposeProductDerivative), each
// costing a few products of the (samples x d) feature matrix with C-column
// matrices: time linear in n_y and in the number of samples.
//
//   ecmo::problems::MtblLogisticOptions options;
//   options.num_lower_parameters = 640;
//   std::string error;
//   auto instance = ecmo::problems::BuildMtblLogistic(options, &error);
//   Eigen::VectorXd z = instance->start;
//   ecmo::Solve(solver_options, instance->evaluator.get(),
//               {1.0 / 3, 1.0 / 3, 1.0 / 3}, &z, &summary);

#ifndef ECMO_PROBLEMS_MTBL_LOGISTIC_H_
#define ECMO_PROBLEMS_MTBL_LOGISTIC_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "ceres/jet.h"
#include "ecmo/mtbl.h"

namespace ecmo {
namespace problems {

struct MtblLogisticOptions {
  // n_y = C d; rounded down to a multiple of num_classes (at least C).
  int num_lower_parameters = 640;
  int num_classes = 10;  // C >= 2
  int num_sources = 3;   // N >= 1 (nx = N)
  int num_tasks = 3;     // S in [1, C]
  int train_samples_per_source = 300;
  int validation_samples = 300;
  double separation = 1.0;
  double label_noise = 0.5;
  // L2 weight of the lower level (>= 0; 0 = merely convex).
  double l2 = 1e-3;
  uint64_t seed = 7;
  // The start point: x0 = 0 (equal source weights) and y0 = W after this
  // many Newton iterations of ecmo::SolveLowerLevel from W = 0 (0: y0 = 0).
  int start_newton_iterations = 20;
};

// The lower level of mtbl_logistic (see the top of this file). Immutable
// after construction apart from an internal cache of the last class
// probabilities (guarded by a mutex): every method is const and
// thread-safe.
class MtblLogisticLowerLevel final : public LowerLevel {
 public:
  // features: samples x d (row-major), labels in [0, C), source of each
  // sample in [0, N).
  MtblLogisticLowerLevel(
      int num_sources,
      int num_classes,
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>
          features,
      std::vector<int> labels,
      std::vector<int> sources,
      double l2);

  int NumUpperParameters() const override { return num_sources_; }
  int NumLowerParameters() const override;
  bool Value(const double* x, const double* y, double* g) const override;
  bool GradY(const double* x, const double* y, double* h) const override;
  // grad_x g = w .* (L - w.L) with L_j the mean training cross-entropy of
  // source j (the softmax Jacobian applied to the per-source losses); used
  // by the FORUM baseline (ecmo/mtbl_baselines.h).
  bool GradX(const double* x, const double* y, double* out) const override;
  bool GradYJacobianTransposeProduct(const double* x,
                                     const double* y,
                                     const double* v,
                                     double* out_x,
                                     double* out_y) const override;
  bool GradYJacobianProduct(const double* x,
                            const double* y,
                            const double* w_x,
                            const double* w_y,
                            double* out) const override;
  bool GradYJacobianTransposeProductDerivative(const double* x,
                                               const double* y,
                                               const double* v,
                                               const double* d_x,
                                               const double* d_y,
                                               double* out_x,
                                               double* out_y) const override;
  bool HasExactThirdOrderProduct() const override { return true; }

  int num_samples() const { return static_cast<int>(labels_.size()); }
  int num_features() const { return static_cast<int>(features_.cols()); }
  int num_classes() const { return num_classes_; }
  // The training data and the L2 weight g is built from (for
  // MtblLogisticObjective).
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>&
  features() const {
    return features_;
  }
  const std::vector<int>& labels() const { return labels_; }
  const std::vector<int>& sources() const { return sources_; }
  double l2() const { return l2_; }

 private:
  using RowMatrix =
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  // Source weights softmax(x) and per-sample weights w_j / n_j.
  void Weights(const double* x,
               Eigen::VectorXd* w,
               Eigen::VectorXd* sample_weight) const;
  // Class probabilities (samples x C) of W = y. The last ones are cached:
  // the products inside one CG solve (and one Newton step of a strategy)
  // share y, and the probabilities cost one of the product's three passes
  // over the data plus samples x C exponentials.
  std::shared_ptr<const RowMatrix> Probabilities(const double* y) const;

  int num_sources_;
  int num_classes_;
  RowMatrix features_;
  std::vector<int> labels_;
  std::vector<int> sources_;
  std::vector<int> source_sizes_;
  double l2_;
  // The probability cache (guarded: the const methods stay thread-safe).
  mutable std::mutex cache_mutex_;
  mutable Eigen::VectorXd cached_y_;
  mutable std::shared_ptr<const RowMatrix> cached_p_;
};

// The same g as MtblLogisticLowerLevel::Value, on the same data, written
// once as the templated functor that MtblProblem::SetDynamicLowerLevelObjective
// and AutoDiffLowerLevel (ecmo/autodiff_lower_level.h) take: the reference
// for automatic differentiation against the hand-written products, in tests
// and benchmarks.
//
//   g(x, y) = sum_i omega_i (log sum_c exp(z_ic) - z_i,label_i)
//             + l2/2 ||y||^2,   z_i = W a_i,   omega_i = w_j / n_j,
//   w = softmax(x), j the source of sample i, n_j its size.
//
// Plain scalar loops (no Eigen reductions), constants as K<T>, so it runs
// on doubles, nested Jets and ADOL-C's adouble alike. Unlike the
// hand-written lower level it does not subtract the maximum logit before
// exponentiating (that would add a comparison per sample to an ADOL-C tape,
// each a branch that forces a new recording when it flips), so it overflows
// for logits or x above about 700; the instances here stay far below.
namespace internal {
template <typename T>
struct IsJet : std::false_type {};
template <typename T, int N>
struct IsJet<ceres::Jet<T, N>> : std::true_type {};
// Whether T * double compiles (double, Jet, adouble; not nested Jets).
template <typename T, typename = void>
struct HasDoubleProduct : std::false_type {};
template <typename T>
struct HasDoubleProduct<T,
                        std::void_t<decltype(std::declval<const T&>() * 1.0)>>
    : std::true_type {};
}  // namespace internal

class MtblLogisticObjective {
 public:
  explicit MtblLogisticObjective(const MtblLogisticLowerLevel& lower_level)
      : num_sources_(lower_level.NumUpperParameters()),
        num_classes_(lower_level.num_classes()),
        num_features_(lower_level.num_features()),
        features_(lower_level.features()),
        labels_(lower_level.labels()),
        sources_(lower_level.sources()),
        source_sizes_(num_sources_, 0),
        l2_(lower_level.l2()) {
    for (int j : sources_) ++source_sizes_[j];
  }

  int NumUpperParameters() const { return num_sources_; }
  int NumLowerParameters() const { return num_classes_ * num_features_; }

  template <typename T>
  bool operator()(const T* x, const T* y, T* g) const {
    std::vector<T> w(num_sources_);
    T total = K<T>(0.0);
    for (int j = 0; j < num_sources_; ++j) {
      w[j] = exp(x[j]);
      total += w[j];
    }
    for (int j = 0; j < num_sources_; ++j) {
      w[j] = w[j] / (total * K<T>(std::max(1, source_sizes_[j])));
    }
    std::vector<T> logits(num_classes_);
    // Types other than double and Jets (ADOL-C's adouble): the features as
    // active constants, one per feature and sample, because ADOL-C records
    // z += a * b of two adoubles as one operation with no intermediate,
    // where a * double needs two (and two stored Taylor coefficients for
    // the Hessian products): half the tape and half the time per product.
    constexpr bool kActiveConstants =
        !std::is_same_v<T, double> && !internal::IsJet<T>::value;
    std::vector<T> active(kActiveConstants ? num_features_ : 0);
    T value = K<T>(0.0);
    for (int i = 0; i < static_cast<int>(labels_.size()); ++i) {
      const double* a = features_.data() + i * num_features_;
      if constexpr (kActiveConstants) {
        for (int k = 0; k < num_features_; ++k) {
          if constexpr (std::is_assignable_v<T&, double>) {
            active[k] = a[k];  // one operation; K<T> would add a copy
          } else {
            active[k] = K<T>(a[k]);
          }
        }
      }
      T sum_exp = K<T>(0.0);
      for (int c = 0; c < num_classes_; ++c) {
        const T* row = y + c * num_features_;
        T z = K<T>(0.0);
        for (int k = 0; k < num_features_; ++k) {
          if constexpr (kActiveConstants) {
            z += row[k] * active[k];
          } else if constexpr (internal::HasDoubleProduct<T>::value) {
            z += row[k] * a[k];
          } else {  // nested Jets take no double operand
            z += row[k] * K<T>(a[k]);
          }
        }
        logits[c] = z;
        sum_exp += exp(z);
      }
      value += w[sources_[i]] * (log(sum_exp) - logits[labels_[i]]);
    }
    T square = K<T>(0.0);
    for (int k = 0; k < NumLowerParameters(); ++k) square += y[k] * y[k];
    *g = value + K<T>(0.5 * l2_) * square;
    return true;
  }

 private:
  int num_sources_;
  int num_classes_;
  int num_features_;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>
      features_;
  std::vector<int> labels_;
  std::vector<int> sources_;
  std::vector<int> source_sizes_;
  double l2_;
};

struct MtblLogisticInstance {
  // The lower level (owned here), the full-space evaluator over z = (x, y)
  // with S validation cross-entropies as upper objectives (it points into
  // lower_level), and the start point z0 = (x0, y0).
  std::unique_ptr<MtblLogisticLowerLevel> lower_level;
  std::unique_ptr<MtblEvaluator> evaluator;
  Eigen::VectorXd start;
  MtblLogisticOptions options;  // as used (n_y rounded)
};

// Builds the instance; null (with *error) on invalid options.
std::unique_ptr<MtblLogisticInstance> BuildMtblLogistic(
    const MtblLogisticOptions& options, std::string* error);

}  // namespace problems
}  // namespace ecmo

#endif  // ECMO_PROBLEMS_MTBL_LOGISTIC_H_
