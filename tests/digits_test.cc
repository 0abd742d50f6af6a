// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The digits MTBL instances (ecmo/problems/digits.h): the loader and its
// refusals, every oracle of both lower levels and the upper objectives
// against central finite differences, determinism, the splits, and the
// null space of the merely convex meta-learning lower level.

#include "ecmo/problems/digits.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ecmo/lower_level_solver.h"
#include "ecmo/mtbl.h"
#include "ecmo/problems/registry.h"
#include "gtest/gtest.h"
#include "test_files.h"
#include "test_vectors.h"
#include "zlib.h"

namespace ecmo {
namespace {

using testing::Random;
using testing::RelativeError;

using problems::BuildDigitsDataWeighting;
using problems::BuildDigitsMetaLearning;
using problems::DigitsData;
using problems::DigitsDataWeightingOptions;
using problems::DigitsInstance;
using problems::DigitsMetaLearningOptions;
using problems::LoadDigits;

// ----------------------------------------------------------------- helpers --

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") +
         "/ecmo_digits_test_" + std::to_string(::getpid()) + "_" + name;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

using testing::ReadText;

// A small meta-learning instance (the oracles' code paths are the same at
// any size) and the default data-weighting one.
DigitsMetaLearningOptions SmallMetaOptions(double l2 = 0.0, int seed = 1) {
  DigitsMetaLearningOptions options;
  options.hidden_sizes = {12, 10};
  options.representation_size = 6;
  options.train_per_task = 30;
  options.validation_per_task = 15;
  options.l2 = l2;
  options.seed = seed;
  options.start_newton_iterations = 3;
  return options;
}

std::unique_ptr<DigitsInstance> BuildMeta(const DigitsMetaLearningOptions& o) {
  std::string error;
  auto instance = BuildDigitsMetaLearning(o, &error);
  EXPECT_NE(instance, nullptr) << error;
  return instance;
}

std::unique_ptr<DigitsInstance> BuildWeighting(
    const DigitsDataWeightingOptions& o) {
  std::string error;
  auto instance = BuildDigitsDataWeighting(o, &error);
  EXPECT_NE(instance, nullptr) << error;
  return instance;
}

// ------------------------------------------------------------------ loader --

TEST(DigitsLoader, ReadsTheShippedFile) {
  DigitsData data;
  std::string error;
  ASSERT_TRUE(LoadDigits(problems::DefaultDigitsPath(), &data, &error))
      << error;
  ASSERT_EQ(data.images.rows(), 1797);
  ASSERT_EQ(data.images.cols(), 64);
  ASSERT_EQ(data.labels.size(), 1797u);
  std::vector<int> counts(10, 0);
  for (int label : data.labels) {
    ASSERT_GE(label, 0);
    ASSERT_LE(label, 9);
    ++counts[label];
  }
  int sum = 0;
  for (int c : counts) {
    EXPECT_GE(c, 170);  // every digit has 174..183 images
    sum += c;
  }
  EXPECT_EQ(sum, 1797);
  EXPECT_GE(data.images.minCoeff(), 0.0);
  EXPECT_LE(data.images.maxCoeff(), 1.0);
  // The first image of the file (sklearn's digits[0], a zero), pixels / 16.
  EXPECT_EQ(data.labels[0], 0);
  EXPECT_DOUBLE_EQ(data.images(0, 2), 5.0 / 16);
  EXPECT_DOUBLE_EQ(data.images(0, 3), 13.0 / 16);
}

TEST(DigitsLoader, ReadsPlainCsvAndEnvironmentDirectory) {
  std::string row;
  for (int k = 0; k < 64; ++k) row += std::to_string(k % 17) + ",";
  const std::string path = TempPath("plain.csv");
  WriteFile(path, row + "7\n" + row + "3\r\n\n");
  DigitsData data;
  std::string error;
  ASSERT_TRUE(LoadDigits(path, &data, &error)) << error;
  ASSERT_EQ(data.images.rows(), 2);
  EXPECT_EQ(data.labels, (std::vector<int>{7, 3}));
  EXPECT_DOUBLE_EQ(data.images(1, 20), (20 % 17) / 16.0);
  std::remove(path.c_str());

  // ECMO_DATA_DIR overrides the default path; a missing file there gives
  // an instance error that names the path and the variable.
  const std::string dir = TempPath("empty_dir");
  ASSERT_EQ(setenv("ECMO_DATA_DIR", dir.c_str(), 1), 0);
  EXPECT_EQ(problems::DefaultDigitsPath(), dir + "/digits.csv.gz");
  DigitsDataWeightingOptions options;
  auto instance = BuildDigitsDataWeighting(options, &error);
  unsetenv("ECMO_DATA_DIR");
  EXPECT_EQ(instance, nullptr);
  EXPECT_NE(error.find(dir + "/digits.csv.gz"), std::string::npos) << error;
  EXPECT_NE(error.find("ECMO_DATA_DIR"), std::string::npos) << error;
}

TEST(DigitsLoader, RefusesBadFilesNamingThem) {
  const std::string gz = ReadText(problems::DefaultDigitsPath());
  ASSERT_GT(gz.size(), 1000u);
  std::string row;
  for (int k = 0; k < 64; ++k) row += "1,";
  struct Case {
    std::string name, bytes, expect;
  };
  const std::vector<Case> cases = {
      {"truncated.csv.gz", gz.substr(0, gz.size() / 2), "truncated"},
      {"garbage.csv", "hello, world\n", "line 1"},
      {"corrupt.csv.gz", gz.substr(0, 20) + std::string(200, 'x'), "gzip"},
      {"columns.csv", row + "5\n1,2,3\n", "line 2"},
      {"range.csv", "17," + row.substr(2) + "5\n", "out of range"},
      {"label.csv", row + "10\n", "out of range"},
      {"extra.csv", row + "5,6\n", "more than 65"},
      // Binary bytes, not gzip: read as text, refused at the first NUL.
      {"binary.csv",
       row + "5" + std::string(1, '\0') + "junk\n",
       "unexpected characters after column 65"},
      {"empty.csv", "", "no images"},
  };
  for (const Case& c : cases) {
    const std::string path = TempPath(c.name);
    WriteFile(path, c.bytes);
    DigitsData data;
    std::string error;
    EXPECT_FALSE(LoadDigits(path, &data, &error)) << c.name;
    EXPECT_NE(error.find(path), std::string::npos) << c.name << ": " << error;
    EXPECT_NE(error.find(c.expect), std::string::npos)
        << c.name << ": " << error;
    std::remove(path.c_str());
  }
  DigitsData data;
  std::string error;
  const std::string missing = TempPath("missing.csv.gz");
  EXPECT_FALSE(LoadDigits(missing, &data, &error));
  EXPECT_NE(error.find(missing), std::string::npos) << error;
}

// A file that is not a digits file stops the reader at a size limit instead
// of exhausting memory: a gzip bomb (here 65 MiB of zeros in about 65 KB;
// real ones inflate to gigabytes), an endless device, and a directory.
TEST(DigitsLoader, RefusesGzipBombsDevicesAndDirectories) {
  const std::string bomb = TempPath("bomb.csv.gz");
  {
    gzFile out = gzopen(bomb.c_str(), "wb9");
    ASSERT_NE(out, nullptr);
    const std::string zeros(1 << 20, '\0');
    for (int64_t written = 0; written <= problems::kMaxDigitsFileBytes;
         written += static_cast<int64_t>(zeros.size())) {
      ASSERT_EQ(gzwrite(out, zeros.data(), zeros.size()),
                static_cast<int>(zeros.size()));
    }
    ASSERT_EQ(gzclose(out), Z_OK);
  }
  EXPECT_LT(ReadText(bomb).size(), 1u << 20);
  for (const std::string& path : {bomb, std::string("/dev/zero")}) {
    DigitsData data;
    std::string error;
    EXPECT_FALSE(LoadDigits(path, &data, &error)) << path;
    EXPECT_NE(error.find("'" + path + "' holds more than 64 MiB"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("not the digits CSV"), std::string::npos) << error;
  }
  std::remove(bomb.c_str());
  DigitsData data;
  std::string error;
  const std::string dir = TempPath("a_directory");
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  EXPECT_FALSE(LoadDigits(dir, &data, &error));
  EXPECT_NE(error.find("'" + dir + "' is a directory"), std::string::npos)
      << error;
  ::rmdir(dir.c_str());
}

// ---------------------------------------------------- finite differences --

// Checks every oracle of `lower` at (x, y) against central differences
// along random directions; `step_x` is small for the ReLU network (a
// pre-activation crossing zero inside the difference would cost accuracy).
void CheckOracles(const LowerLevel& lower,
                  const Eigen::VectorXd& x,
                  const Eigen::VectorXd& y,
                  double step_x,
                  std::mt19937_64* rng) {
  const int nx = lower.NumUpperParameters();
  const int ny = lower.NumLowerParameters();
  const double t = 1e-5;
  const Eigen::VectorXd dx = Random(nx, rng), dy = Random(ny, rng),
                        v = Random(ny, rng);
  auto value = [&](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    double g = 0.0;
    EXPECT_TRUE(lower.Value(a.data(), b.data(), &g));
    return g;
  };
  auto grad_y = [&](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    Eigen::VectorXd h(ny);
    EXPECT_TRUE(lower.GradY(a.data(), b.data(), h.data()));
    return h;
  };
  auto grad_x = [&](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    Eigen::VectorXd h(nx);
    EXPECT_TRUE(lower.GradX(a.data(), b.data(), h.data()));
    return h;
  };
  const Eigen::VectorXd hy = grad_y(x, y), hx = grad_x(x, y);
  // GradY and GradX against differences of Value.
  const double fd_y = (value(x, y + t * dy) - value(x, y - t * dy)) / (2 * t);
  EXPECT_LT(RelativeError(hy.dot(dy), fd_y), 1e-6) << hy.dot(dy) << " " << fd_y;
  const double fd_x =
      (value(x + step_x * dx, y) - value(x - step_x * dx, y)) / (2 * step_x);
  EXPECT_LT(RelativeError(hx.dot(dx), fd_x), 1e-6) << hx.dot(dx) << " " << fd_x;

  // The transpose product: out_y = H_yy v against differences of GradY in
  // y; out_x = H_xy v against differences of GradX in y, and <out_x, dx>
  // = v^T H_yx dx against differences of GradY in x.
  Eigen::VectorXd out_x(nx), out_y(ny);
  ASSERT_TRUE(lower.GradYJacobianTransposeProduct(
      x.data(), y.data(), v.data(), out_x.data(), out_y.data()));
  const Eigen::VectorXd fd_hyy =
      (grad_y(x, y + t * v) - grad_y(x, y - t * v)) / (2 * t);
  EXPECT_LT(RelativeError(out_y, fd_hyy), 1e-6);
  const Eigen::VectorXd fd_hxy =
      (grad_x(x, y + t * v) - grad_x(x, y - t * v)) / (2 * t);
  EXPECT_LT(RelativeError(out_x, fd_hxy), 1e-6);
  const Eigen::VectorXd fd_hyx_dx =
      (grad_y(x + step_x * dx, y) - grad_y(x - step_x * dx, y)) / (2 * step_x);
  EXPECT_LT(RelativeError(out_x.dot(dx), v.dot(fd_hyx_dx)), 1e-6);
  // The y part alone (meta-learning: its own product without the
  // back-propagation; data weighting: the default through the pair)
  // against differences of GradY, and equal to the pair's y part.
  Eigen::VectorXd yy(ny);
  ASSERT_TRUE(lower.HessianYYProduct(x.data(), y.data(), v.data(), yy.data()));
  EXPECT_LT(RelativeError(yy, fd_hyy), 1e-6);
  EXPECT_LT(RelativeError(yy, out_y), 1e-13);

  // The forward product H_yx dx + H_yy dy against differences of GradY.
  Eigen::VectorXd forward(ny);
  ASSERT_TRUE(lower.GradYJacobianProduct(
      x.data(), y.data(), dx.data(), dy.data(), forward.data()));
  const double s = std::min(t, step_x);
  const Eigen::VectorXd fd_forward =
      (grad_y(x + s * dx, y + s * dy) - grad_y(x - s * dx, y - s * dy)) /
      (2 * s);
  EXPECT_LT(RelativeError(forward, fd_forward), 1e-6);
}

// The upper objectives' gradients (through the evaluator) against central
// differences of the objectives along a random direction of z.
void CheckUpperGradients(MtblEvaluator* evaluator,
                         const Eigen::VectorXd& z,
                         double step,
                         std::mt19937_64* rng) {
  const int k = evaluator->NumParameters();
  const int num_objectives = evaluator->NumObjectives();
  const int q = evaluator->NumConstraints();
  Eigen::VectorXd f(num_objectives), fp(num_objectives), fm(num_objectives),
      h(q);
  Eigen::MatrixXd grad(k, num_objectives);
  std::string error;
  ASSERT_TRUE(
      evaluator->Evaluate(z.data(), f.data(), h.data(), grad.data(), &error))
      << error;
  const Eigen::VectorXd d = Random(k, rng);
  const Eigen::VectorXd zp = z + step * d, zm = z - step * d;
  ASSERT_TRUE(
      evaluator->Evaluate(zp.data(), fp.data(), h.data(), nullptr, &error));
  ASSERT_TRUE(
      evaluator->Evaluate(zm.data(), fm.data(), h.data(), nullptr, &error));
  for (int s = 0; s < num_objectives; ++s) {
    const double fd = (fp[s] - fm[s]) / (2 * step);
    EXPECT_LT(RelativeError(grad.col(s).dot(d), fd), 1e-6) << "f_" << s;
    EXPECT_GT(f[s], 0.0);
  }
}

TEST(DigitsDataWeighting, OraclesMatchFiniteDifferences) {
  std::mt19937_64 rng(11);
  for (double l2 : {1e-3, 0.0}) {
    DigitsDataWeightingOptions options;
    options.l2 = l2;
    options.start_newton_iterations = 2;
    auto instance = BuildWeighting(options);
    ASSERT_NE(instance, nullptr);
    const LowerLevel& lower = *instance->lower_level;
    ASSERT_EQ(lower.NumUpperParameters(), 3);
    ASSERT_EQ(lower.NumLowerParameters(), 640);
    const Eigen::VectorXd x = 0.8 * Random(3, &rng);
    const Eigen::VectorXd y = 0.3 * Random(640, &rng);
    CheckOracles(lower, x, y, 1e-5, &rng);
    Eigen::VectorXd z(643);
    z << x, y;
    CheckUpperGradients(instance->evaluator.get(), z, 1e-5, &rng);
  }
}

// The registry's reduced entry is the default full instance at
// (x, y*(x)): its objectives are the full evaluator's there, y*(x) solves
// the lower level, and its hypergradients match central differences of
// its own values (each a lower-level solve).
TEST(DigitsDataWeighting, ReducedRegistryEntryIsTheFullInstanceAtYStar) {
  const problems::ProblemInfo* full_info =
      problems::Find("digits_data_weighting");
  const problems::ProblemInfo* reduced_info =
      problems::Find("digits_data_weighting_reduced");
  ASSERT_NE(full_info, nullptr);
  ASSERT_NE(reduced_info, nullptr);
  EXPECT_FALSE(reduced_info->has_problem());
  std::string error;
  std::unique_ptr<EvaluatorInstance> full =
      problems::BuildEvaluator(*full_info, 0, &error);
  std::unique_ptr<EvaluatorInstance> reduced =
      problems::BuildEvaluator(*reduced_info, 0, &error);
  ASSERT_NE(full, nullptr) << error;
  ASSERT_NE(reduced, nullptr) << error;
  ASSERT_EQ(reduced->evaluator->NumObjectives(), 5);
  ASSERT_EQ(reduced->evaluator->NumParameters(), 3);
  ASSERT_EQ(reduced->evaluator->NumConstraints(), 0);
  EXPECT_EQ(reduced->start, full->start.head(3));
  auto* form = dynamic_cast<ReducedMtblEvaluator*>(reduced->evaluator.get());
  ASSERT_NE(form, nullptr);

  const Eigen::Vector3d x(0.6, -0.4, 0.2);
  Eigen::VectorXd f(5);
  Eigen::MatrixXd grad(3, 5);
  ASSERT_TRUE(form->Evaluate(x.data(), f.data(), nullptr, grad.data(), &error))
      << error;
  const Eigen::VectorXd z = form->FullPoint(x);
  ASSERT_EQ(z.size(), 643);
  Eigen::VectorXd f_full(5), h(640);
  ASSERT_TRUE(full->evaluator->Evaluate(
      z.data(), f_full.data(), h.data(), nullptr, &error))
      << error;
  EXPECT_LT(RelativeError(f_full, f), 1e-14);
  // y*(x) to the lower-level solver's default gradient tolerance.
  EXPECT_LE(h.norm(), 1e-9);
  // Central differences: they agree to about 1e-9 relative (measured
  // 8e-10 to 1.2e-9); 1e-7 leaves room for the lower-level solves'
  // tolerance.
  const double t = 1e-4;
  for (int c = 0; c < 3; ++c) {
    Eigen::Vector3d xp = x, xm = x;
    xp[c] += t;
    xm[c] -= t;
    Eigen::VectorXd fp(5), fm(5);
    ASSERT_TRUE(form->Evaluate(xp.data(), fp.data(), nullptr, nullptr, &error));
    ASSERT_TRUE(form->Evaluate(xm.data(), fm.data(), nullptr, nullptr, &error));
    EXPECT_LT(RelativeError(grad.row(c).transpose(), (fp - fm) / (2 * t)), 1e-7)
        << "logit " << c;
  }
}

TEST(DigitsMetaLearning, OraclesMatchFiniteDifferences) {
  std::mt19937_64 rng(12);
  for (double l2 : {0.0, 0.05}) {
    DigitsMetaLearningOptions options = SmallMetaOptions(l2);
    options.proximal = l2 > 0.0 ? 0.3 : 0.0;  // the upper objectives' term
    auto instance = BuildMeta(options);
    ASSERT_NE(instance, nullptr);
    const LowerLevel& lower = *instance->lower_level;
    const int nx = lower.NumUpperParameters();
    const int ny = lower.NumLowerParameters();
    // 64-12-10-6: (64 + 1) 12 + (12 + 1) 10 + (10 + 1) 6; y = 10 x 7.
    ASSERT_EQ(nx, 65 * 12 + 13 * 10 + 11 * 6);
    ASSERT_EQ(ny, 70);
    const Eigen::VectorXd x =
        instance->start.head(nx) + 0.05 * Random(nx, &rng);
    const Eigen::VectorXd y = 0.5 * Random(ny, &rng);
    CheckOracles(lower, x, y, 1e-6, &rng);
    Eigen::VectorXd z(nx + ny);
    z << x, y;
    CheckUpperGradients(instance->evaluator.get(), z, 1e-6, &rng);
  }
}

TEST(DigitsMetaLearning, DefaultSizesAndOraclesAtTheStart) {
  // The defaults (64-64-64-32), at the start point: the transpose product
  // against differences of the gradients in y (no activation changes).
  auto instance = BuildMeta(DigitsMetaLearningOptions());
  ASSERT_NE(instance, nullptr);
  const LowerLevel& lower = *instance->lower_level;
  const int nx = lower.NumUpperParameters();
  const int ny = lower.NumLowerParameters();
  EXPECT_EQ(nx, 65 * 64 + 65 * 64 + 65 * 32);
  EXPECT_EQ(ny, 330);
  EXPECT_EQ(instance->start.size(), nx + ny);
  std::mt19937_64 rng(13);
  const Eigen::VectorXd x = instance->start.head(nx);
  const Eigen::VectorXd y = instance->start.tail(ny);
  const Eigen::VectorXd v = Random(ny, &rng);
  Eigen::VectorXd out_x(nx), out_y(ny), gp(ny), gm(ny), xp(nx), xm(nx);
  ASSERT_TRUE(lower.GradYJacobianTransposeProduct(
      x.data(), y.data(), v.data(), out_x.data(), out_y.data()));
  const double t = 1e-5;
  const Eigen::VectorXd yp = y + t * v, ym = y - t * v;
  ASSERT_TRUE(lower.GradY(x.data(), yp.data(), gp.data()));
  ASSERT_TRUE(lower.GradY(x.data(), ym.data(), gm.data()));
  EXPECT_LT(RelativeError(out_y, (gp - gm) / (2 * t)), 1e-6);
  ASSERT_TRUE(lower.GradX(x.data(), yp.data(), xp.data()));
  ASSERT_TRUE(lower.GradX(x.data(), ym.data(), xm.data()));
  EXPECT_LT(RelativeError(out_x, (xp - xm) / (2 * t)), 1e-6);
  // The start solves the lower level approximately (10 Newton steps).
  Eigen::VectorXd h(ny), h0(ny);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(ny);
  ASSERT_TRUE(lower.GradY(x.data(), y.data(), h.data()));
  ASSERT_TRUE(lower.GradY(x.data(), zero.data(), h0.data()));
  EXPECT_LT(h.norm(), 1e-3 * h0.norm());
}

TEST(DigitsInstances, InvalidOptionsNameTheField) {
  std::string error;
  DigitsMetaLearningOptions meta = SmallMetaOptions();
  meta.proximal = -1.0;
  EXPECT_EQ(BuildDigitsMetaLearning(meta, &error), nullptr);
  EXPECT_NE(error.find("proximal"), std::string::npos) << error;
  meta = SmallMetaOptions();
  meta.hidden_sizes = {8, 0};
  EXPECT_EQ(BuildDigitsMetaLearning(meta, &error), nullptr);
  EXPECT_NE(error.find("hidden_sizes"), std::string::npos) << error;
  meta = SmallMetaOptions();
  meta.train_per_task = 400;  // five tasks x 320 images of their pair
  EXPECT_EQ(BuildDigitsMetaLearning(meta, &error), nullptr);
  EXPECT_NE(error.find("too few images of digit"), std::string::npos) << error;
  DigitsDataWeightingOptions weighting;
  weighting.label_noise = 1.5;
  EXPECT_EQ(BuildDigitsDataWeighting(weighting, &error), nullptr);
  EXPECT_NE(error.find("label_noise"), std::string::npos) << error;
  weighting = DigitsDataWeightingOptions();
  weighting.train_images = 1500;
  EXPECT_EQ(BuildDigitsDataWeighting(weighting, &error), nullptr);
  EXPECT_NE(error.find("exceeds the 1797 images"), std::string::npos) << error;
}

// ----------------------------------------------------------- determinism --

TEST(DigitsInstances, DeterministicGivenTheSeed) {
  auto objectives = [](DigitsInstance* instance) {
    const int num_objectives = instance->evaluator->NumObjectives();
    Eigen::VectorXd f(num_objectives);
    Eigen::VectorXd h(instance->evaluator->NumConstraints());
    std::string error;
    EXPECT_TRUE(instance->evaluator->Evaluate(
        instance->start.data(), f.data(), h.data(), nullptr, &error));
    return f;
  };
  {
    auto a = BuildMeta(SmallMetaOptions(0.0, 3));
    auto b = BuildMeta(SmallMetaOptions(0.0, 3));
    auto c = BuildMeta(SmallMetaOptions(0.0, 4));
    ASSERT_TRUE(a && b && c);
    EXPECT_EQ(a->start, b->start);
    EXPECT_EQ(objectives(a.get()), objectives(b.get()));
    EXPECT_EQ(a->train_rows, b->train_rows);
    EXPECT_NE(a->start, c->start);
    EXPECT_NE(a->train_rows, c->train_rows);
  }
  {
    DigitsDataWeightingOptions options;
    options.start_newton_iterations = 2;
    options.seed = 3;
    auto a = BuildWeighting(options);
    auto b = BuildWeighting(options);
    options.seed = 4;
    auto c = BuildWeighting(options);
    ASSERT_TRUE(a && b && c);
    EXPECT_EQ(a->start, b->start);
    EXPECT_EQ(objectives(a.get()), objectives(b.get()));
    EXPECT_NE(a->start, c->start);
    EXPECT_NE(objectives(a.get()), objectives(c.get()));
  }
}

// ----------------------------------------------------------------- splits --

TEST(DigitsMetaLearning, SplitsAreEightyTwentyAndDisjoint) {
  DigitsData data;
  std::string error;
  ASSERT_TRUE(LoadDigits(problems::DefaultDigitsPath(), &data, &error));
  DigitsMetaLearningOptions options = SmallMetaOptions();
  options.train_per_task = 100;
  options.validation_per_task = 60;
  auto instance = BuildMeta(options);
  ASSERT_NE(instance, nullptr);
  ASSERT_EQ(instance->train_rows.size(), 5u);
  ASSERT_EQ(instance->validation_rows.size(), 5u);
  std::set<int> seen;
  int total = 0;
  for (int s = 0; s < 5; ++s) {
    for (const auto* subset :
         {&instance->train_rows[s], &instance->validation_rows[s]}) {
      const int size = static_cast<int>(subset->size());
      EXPECT_EQ(size, subset == &instance->train_rows[s] ? 100 : 60);
      std::vector<int> counts(10, 0);
      for (int row : *subset) {
        ASSERT_GE(row, 0);
        ASSERT_LT(row, 1797);
        ++counts[data.labels[row]];
        seen.insert(row);
        ++total;
      }
      // 80% of the task's pair, split evenly; 20% over the other digits.
      EXPECT_EQ(counts[2 * s] + counts[2 * s + 1], (size * 4) / 5);
      EXPECT_LE(std::abs(counts[2 * s] - counts[2 * s + 1]), 1);
      for (int c = 0; c < 10; ++c) {
        if (c / 2 != s) {
          EXPECT_GE(counts[c], (size / 5) / 8);
          EXPECT_LE(counts[c], (size / 5 + 7) / 8);
        }
      }
    }
  }
  // No image in two subsets (so validation is disjoint from training).
  EXPECT_EQ(static_cast<int>(seen.size()), total);
}

TEST(DigitsDataWeighting, SplitsAreStratifiedAndDisjoint) {
  DigitsData data;
  std::string error;
  ASSERT_TRUE(LoadDigits(problems::DefaultDigitsPath(), &data, &error));
  DigitsDataWeightingOptions options;
  options.start_newton_iterations = 0;
  auto instance = BuildWeighting(options);
  ASSERT_NE(instance, nullptr);
  ASSERT_EQ(instance->train_rows.size(), 1u);
  ASSERT_EQ(instance->validation_rows.size(), 5u);
  EXPECT_EQ(instance->objective_names,
            (std::vector<std::string>{"digits_0_1",
                                      "digits_2_3",
                                      "digits_4_5",
                                      "digits_6_7",
                                      "digits_8_9"}));
  std::vector<int> class_sizes(10, 0), train_counts(10, 0);
  for (int label : data.labels) ++class_sizes[label];
  const std::vector<int>& train = instance->train_rows[0];
  EXPECT_EQ(train.size(), 300u);
  for (int row : train) ++train_counts[data.labels[row]];
  for (int c = 0; c < 10; ++c) {
    EXPECT_NEAR(train_counts[c], 300.0 * class_sizes[c] / 1797, 1.0) << c;
  }
  std::set<int> train_set(train.begin(), train.end());
  EXPECT_EQ(train_set.size(), train.size());
  size_t validation_total = 0;
  for (int s = 0; s < 5; ++s) {
    for (int row : instance->validation_rows[s]) {
      EXPECT_EQ(data.labels[row] / 2, s);
      EXPECT_EQ(train_set.count(row), 0u) << row;
    }
    validation_total += instance->validation_rows[s].size();
  }
  EXPECT_EQ(validation_total, 600u);
}

// ------------------------------------------------------------- null space --

TEST(DigitsMetaLearning, SoftmaxInvarianceIsTheNullSpaceWithoutL2) {
  std::mt19937_64 rng(14);
  for (double l2 : {0.0, 0.1}) {
    auto instance = BuildMeta(SmallMetaOptions(l2));
    ASSERT_NE(instance, nullptr);
    const LowerLevel& lower = *instance->lower_level;
    const int nx = lower.NumUpperParameters();
    const int ny = lower.NumLowerParameters();
    const int width = ny / 10;  // r + 1
    const Eigen::VectorXd x = instance->start.head(nx);
    const Eigen::VectorXd y = 0.5 * Random(ny, &rng);
    // d: the same vector u in every row of y = [W | b].
    const Eigen::VectorXd u = Random(width, &rng);
    Eigen::VectorXd d(ny);
    for (int c = 0; c < 10; ++c) d.segment(c * width, width) = u;
    const Eigen::VectorXd other = Random(ny, &rng);
    Eigen::VectorXd ox(nx), oy(ny), rx(nx), ry(ny);
    ASSERT_TRUE(lower.GradYJacobianTransposeProduct(
        x.data(), y.data(), d.data(), ox.data(), oy.data()));
    ASSERT_TRUE(lower.GradYJacobianTransposeProduct(
        x.data(), y.data(), other.data(), rx.data(), ry.data()));
    const double scale = ry.norm() / other.norm();
    // H_yy d = l2 d; the mixed block sees no change of the probabilities.
    EXPECT_LT((oy - l2 * d).norm() / d.norm(), 1e-12 * std::max(1.0, scale));
    EXPECT_LT(ox.norm() / d.norm(), 1e-12 * std::max(1.0, rx.norm()));
    EXPECT_GT(scale, 1e-3);  // not a trivially zero Hessian
  }
}

// ------------------------------------------------------------ thread safety --

TEST(DigitsMetaLearning, ConcurrentCallsAtDifferentPointsAgree) {
  // The activation cache is shared by the const methods: two threads
  // alternating between two x must get what one thread gets.
  auto instance = BuildMeta(SmallMetaOptions());
  ASSERT_NE(instance, nullptr);
  const LowerLevel& lower = *instance->lower_level;
  const int nx = lower.NumUpperParameters();
  const int ny = lower.NumLowerParameters();
  std::mt19937_64 rng(15);
  const std::vector<Eigen::VectorXd> xs = {
      instance->start.head(nx), instance->start.head(nx) + Random(nx, &rng)};
  const Eigen::VectorXd y = Random(ny, &rng), v = Random(ny, &rng);
  std::vector<Eigen::VectorXd> expected;
  for (const Eigen::VectorXd& x : xs) {
    Eigen::VectorXd ox(nx), oy(ny);
    ASSERT_TRUE(lower.GradYJacobianTransposeProduct(
        x.data(), y.data(), v.data(), ox.data(), oy.data()));
    Eigen::VectorXd both(nx + ny);
    both << ox, oy;
    expected.push_back(both);
  }
  std::vector<int> mismatches(2, 0);
  auto work = [&](int id) {
    Eigen::VectorXd ox(nx), oy(ny), both(nx + ny);
    for (int k = 0; k < 40; ++k) {
      const int which = (k + id) % 2;
      lower.GradYJacobianTransposeProduct(
          xs[which].data(), y.data(), v.data(), ox.data(), oy.data());
      both << ox, oy;
      if (both != expected[which]) ++mismatches[id];
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  EXPECT_EQ(mismatches[0], 0);
  EXPECT_EQ(mismatches[1], 0);
}

}  // namespace
}  // namespace ecmo
