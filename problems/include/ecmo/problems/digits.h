// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Two multi-task bilevel learning (MTBL) instances on real data: the UCI
// optical handwritten digits (1,797 8x8 images, classes 0..9; CC BY 4.0,
// E. Alpaydin and C. Kaynak; the file ships as data/digits.csv.gz, see
// data/README.md). Both are matrix-free ecmo::MtblEvaluator problems over
// z = (x, y) with h = grad_y g; their lower levels are convex in y (merely
// convex when l2 = 0) and implement Value, GradY, GradX and exact
// Hessian-vector products (GradYJacobianTransposeProduct and
// GradYJacobianProduct), so the WC strategies and every baseline of
// ecmo/mtbl_baselines.h run on the same oracles. The third-order product
// is exact for data weighting and the default (differences of exact
// Hessian-vector products) for meta-learning.
//
// 1. digits_data_weighting (x = source-weight logits, y = a linear softmax
//    classifier, S = 5 validation objectives, one per digit pair).
// 2. digits_meta_learning (x = a shared ReLU MLP feature extractor, y = the
//    final linear classifier, S = 5 tasks, one per digit pair).
// The exact construction (splits, noise, sizes, start point) is written at
// each Options struct below. Everything is deterministic given the seed.
//
//   ecmo::problems::DigitsDataWeightingOptions options;
//   options.seed = 3;
//   std::string error;
//   auto instance = ecmo::problems::BuildDigitsDataWeighting(options, &error);
//   if (instance == nullptr) { std::cerr << error << "\n"; return 1; }
//   Eigen::VectorXd z = instance->start;
//   ecmo::Solve(solver_options, instance->evaluator.get(),
//               std::vector<double>(5, 0.2), &z, &summary);
//
// Errors: nothing aborts or throws; a missing or malformed data file or
// invalid options give null and *error naming the problem and what to do
// (for the data file: its path, data_path and ECMO_DATA_DIR).
//
// Thread safety: the lower levels are thread-safe (every method const;
// each keeps a cache of its last forward pass, guarded by a mutex); the
// evaluator, like every ecmo::Evaluator, is not.

#ifndef ECMO_PROBLEMS_DIGITS_H_
#define ECMO_PROBLEMS_DIGITS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/mtbl.h"

namespace ecmo {
namespace problems {

// ------------------------------------------------------------------ data --

struct DigitsData {
  // One row per image: the 64 pixel counts divided by 16 (values in [0, 1]).
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> images;
  std::vector<int> labels;  // 0..9
};

// The most a digits file may hold once decompressed: 64 MiB, 250 times the
// shipped file (265 KB). It bounds what LoadDigits allocates for a file
// that is not a digits file (a gzip bomb: a few hundred KB that inflate to
// gigabytes; an endless device such as /dev/zero).
constexpr int64_t kMaxDigitsFileBytes = int64_t{64} << 20;

// Reads the digits file: gzip-compressed or plain CSV, one image per line,
// 64 integers in [0, 16] then the label in [0, 9]. False with *error naming
// the file and the line on anything else (missing file, a directory,
// truncated gzip, more than kMaxDigitsFileBytes decompressed, wrong column
// count, out-of-range value).
bool LoadDigits(const std::string& path, DigitsData* data, std::string* error);

// Where the shipped data file is: $ECMO_DATA_DIR/digits.csv.gz when that
// environment variable is set, else the source tree's data/digits.csv.gz
// when it exists (builds from source), else the installed copy
// (<prefix>/share/ecmo/digits.csv.gz, <prefix> being the
// CMAKE_INSTALL_PREFIX the library was configured with: an install moved
// elsewhere needs ECMO_DATA_DIR).
std::string DefaultDigitsPath();

// ------------------------------------------------------------- instances --

// The digit pair of task s (s = 0..4): {2s, 2s + 1}.
constexpr int kDigitsNumTasks = 5;

struct DigitsDataWeightingOptions {
  // N = 3 training sources holding the SAME train_images images (drawn at
  // random, stratified by class: counts in proportion to the class sizes)
  // with different label quality: source A has clean labels on digits 0-4
  // and noisy ones on 5-9, source B the reverse, source C noisy labels
  // everywhere. A noisy label is replaced by a uniformly random class with
  // probability label_noise.
  int train_images = 300;
  double label_noise = 0.8;
  // Validation images (stratified likewise, disjoint from the training
  // images, clean labels); f_s = mean cross-entropy on those of digit pair
  // s, plus the proximal term below.
  int validation_images = 600;
  // y is the 10 x 64 weight matrix (row-major, no bias) of a linear
  // softmax classifier on the pixels / 16.
  // g(x, y) = sum_j softmax(x)_j L_j(y) + l2/2 ||y||^2, L_j the mean
  // training cross-entropy of source j. l2 > 0: strongly convex lower
  // level; l2 = 0: merely convex (y* has a null space).
  double l2 = 1e-3;
  // delta/2 ||x||^2 added to every upper objective. Without it the
  // preferred source's weight runs to infinity (the optimum is at
  // x = infinity); part of the instance's definition.
  double proximal = 1e-3;
  uint64_t seed = 1;
  // Start: x0 = 0 (equal weights), y0 = this many Newton iterations of
  // ecmo::SolveLowerLevel from 0.
  int start_newton_iterations = 20;
  // Empty: DefaultDigitsPath().
  std::string data_path;
};

struct DigitsMetaLearningOptions {
  // The shared feature extractor (parameters x): input 64 -> hidden layers
  // (ReLU) -> a linear layer to representation_size features; the
  // classifier (parameters y) maps the representation to 10 logits
  // (weights and biases: ny = 10 (representation_size + 1)).
  // Layouts: x holds, layer by layer, W_l (out x in, row-major) then b_l;
  // y is the 10 x (representation_size + 1) matrix [W | b], row-major
  // (row c: class c's weights, then its bias). Adding one vector to every
  // row of y leaves the softmax unchanged: with l2 = 0 that direction is
  // in the null space of grad^2_yy g.
  // Every oracle costs a few passes of the network over the training
  // images (time linear in the images and the parameters); hidden
  // {32, 32} with representation 16 is about three times cheaper than the
  // defaults.
  std::vector<int> hidden_sizes = {64, 64};
  int representation_size = 32;
  // Task s's training subset: train_per_task images, round(80%) of them of
  // digit pair s (split evenly between the two digits) and the rest spread
  // evenly over the other eight digits; its validation subset is built the
  // same way (validation_per_task images). All ten subsets are drawn
  // without replacement from one pool, so no image is in two of them.
  int train_per_task = 100;
  int validation_per_task = 60;
  // g(x, y) = the summed training cross-entropy over the five subsets
  // (divided by the number of training images) + l2/2 ||y||^2: convex in
  // y, not strongly when l2 = 0 (the paper's setting).
  double l2 = 0.0;
  // f_s = mean validation cross-entropy of task s + proximal/2 ||x||^2.
  // With proximal = 0 nothing bounds the scale of the network: x is fitted
  // to the validation images themselves (they are the upper objectives),
  // and a network that separates every task's validation images drives
  // all five losses towards 0 together as its weights grow, so the tasks
  // need not trade off at all (WC-Newton from the default start reaches
  // losses of about 1e-9 for the equal preference). A positive value keeps
  // x bounded, as in digits_data_weighting.
  double proximal = 0.0;
  uint64_t seed = 1;
  // Start: x0 = He-initialized weights (seeded), zero biases; y0 = this
  // many Newton iterations of ecmo::SolveLowerLevel from 0.
  int start_newton_iterations = 10;
  std::string data_path;
};

struct DigitsInstance {
  // The lower level (owned here), the full-space evaluator over
  // z = (x, y) (it points into lower_level), and the start point.
  // Ownership: evaluator is declared after lower_level, so it is destroyed
  // first; keep the two together when moving them out.
  std::unique_ptr<LowerLevel> lower_level;
  std::unique_ptr<MtblEvaluator> evaluator;
  Eigen::VectorXd start;
  // "digits_0_1", "digits_2_3", ..., "digits_8_9".
  std::vector<std::string> objective_names;
  // The images (0-based rows of the data file) of every subset, for
  // reports and checks. Meta-learning: train_rows[s] and
  // validation_rows[s] of task s (s = 0..4). Data weighting: train_rows[0]
  // (the images that all three sources hold) and validation_rows[s], the
  // validation images of digit pair s.
  std::vector<std::vector<int>> train_rows;
  std::vector<std::vector<int>> validation_rows;
  // One paragraph: the sizes, the splits, the choices made (for reports).
  std::string description;
};

std::unique_ptr<DigitsInstance> BuildDigitsDataWeighting(
    const DigitsDataWeightingOptions& options, std::string* error);
std::unique_ptr<DigitsInstance> BuildDigitsMetaLearning(
    const DigitsMetaLearningOptions& options, std::string* error);

}  // namespace problems
}  // namespace ecmo

#endif  // ECMO_PROBLEMS_DIGITS_H_
