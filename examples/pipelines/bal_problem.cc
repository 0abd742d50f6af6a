// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "bal_problem.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "ceres/autodiff_cost_function.h"
#include "ceres/loss_function.h"
#include "ceres/rotation.h"
#include "ceres/solver.h"
#include "ecmo/problems/bundle_adjustment.h"
#include "ecmo/result_writer.h"
#include "text_file.h"
#include "user_front.h"

namespace ecmo_pipelines {
namespace {

constexpr int kCameraSize = BalData::kCameraSize;
constexpr int kPointSize = BalData::kPointSize;
constexpr const char* kCameraNames[kCameraSize] = {
    "rx", "ry", "rz", "tx", "ty", "tz", "f", "k1", "k2"};
constexpr const char* kPointNames[kPointSize] = {"x", "y", "z"};

// pixel(camera, point) - observed, in Snavely's convention (see the
// header). An evaluation with the point in the camera's plane fails (Ceres
// then rejects the step) instead of returning infinities.
struct SnavelyReprojection {
  SnavelyReprojection(double u, double v) : u(u), v(v) {}
  template <typename T>
  bool operator()(const T* camera, const T* point, T* residual) const {
    T p[3];
    ceres::AngleAxisRotatePoint(camera, point, p);
    p[0] += camera[3];
    p[1] += camera[4];
    p[2] += camera[5];
    if (p[2] == T(0.0)) return false;
    const T x = -p[0] / p[2];
    const T y = -p[1] / p[2];
    const T r2 = x * x + y * y;
    const T distortion = T(1.0) + r2 * (camera[7] + camera[8] * r2);
    residual[0] = camera[6] * distortion * x - u;
    residual[1] = camera[6] * distortion * y - v;
    return true;
  }
  double u, v;
};

// The blank-separated values of a file, each with its line; lines whose
// first non-blank character is '#' are skipped.
class Values {
 public:
  Values(const std::string& path, std::ifstream* in) : path_(path), in_(in) {}

  // The next value's text into *text and its line into *line; false at the
  // end of the file.
  bool Next(std::string* text, int* line) {
    while (!(tokens_ >> *text)) {
      std::string next;
      if (!std::getline(*in_, next)) return false;
      ++line_;
      const size_t first = next.find_first_not_of(" \t\r");
      if (first != std::string::npos && next[first] == '#') next.clear();
      tokens_.clear();
      tokens_.str(next);
    }
    *line = line_;
    return true;
  }
  // Next, or false with "path:line: the file ends early, at `what`
  // (`context`)" in *error: `context` says what was being read ("the
  // cameras: 3 of 54 read").
  bool Expect(const std::string& what,
              const std::string& context,
              std::string* text,
              int* line,
              std::string* error) {
    if (Next(text, line)) return true;
    return Fail(path_, line_,
                "the file ends early, at " + what + " (" + context + ")",
                error);
  }
  // The next value as a finite number; false with the reason in *error
  // (`what` names the value, "camera 2 f"; `context` as for Expect).
  bool Number(const std::string& what,
              const std::string& context,
              double* value,
              int* line,
              std::string* error) {
    std::string text;
    if (!Expect(what, context, &text, line, error)) return false;
    char* end = nullptr;
    const double parsed = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) {
      return Fail(path_,
                  *line,
                  what + " is not a number: '" + Printable(text) + "'",
                  error);
    }
    // strtod accepts "nan" and "inf" and overflows to inf: none of them is
    // a usable camera, point or pixel.
    if (!std::isfinite(parsed)) {
      return Fail(path_, *line, what + " is not finite: '" + text + "'", error);
    }
    *value = parsed;
    return true;
  }
  // The next value as a whole number in [low, high), as Number.
  bool Integer(const std::string& what,
               const std::string& context,
               long long low,
               long long high,
               int* value,
               int* line,
               std::string* error) {
    std::string text;
    if (!Expect(what, context, &text, line, error)) return false;
    errno = 0;
    char* end = nullptr;
    const long long parsed = std::strtoll(text.c_str(), &end, 10);
    if (end != text.c_str() + text.size() || errno != 0) {
      return Fail(path_,
                  *line,
                  what + " is not an integer: '" + Printable(text) + "'",
                  error);
    }
    if (parsed < low || parsed >= high) {
      std::ostringstream range;
      range << what << " is " << parsed << ", outside [" << low << ", " << high
            << ")";
      return Fail(path_, *line, range.str(), error);
    }
    *value = static_cast<int>(parsed);
    return true;
  }
  int lines_read() const { return line_; }
  bool bad() const { return in_->bad(); }

 private:
  const std::string& path_;
  std::ifstream* in_;
  std::istringstream tokens_;
  int line_ = 0;
};

std::string Counted(long long n, const char* thing) {
  return std::to_string(n) + " " + thing + (n == 1 ? "" : "s");
}

// The checks that need the whole scene: sizes, indices, finite values, a
// positive focal length, every camera and point observed, a finite
// residual of every observation at the start. Lines come from the
// observations (0 when built by hand).
bool CheckScene(const BalData& data, std::string* error) {
  const std::string& path = data.path.empty() ? "BAL data" : data.path;
  if (data.num_cameras < 2) {
    return Fail(path,
                0,
                "the scene has " + Counted(data.num_cameras, "camera") +
                    ": at least 2 are needed, one per camera group",
                error);
  }
  if (data.num_points < 1 || data.observations.empty()) {
    return Fail(path, 0, "the scene has no point or no observation", error);
  }
  if (data.cameras.size() !=
          static_cast<size_t>(kCameraSize) * data.num_cameras ||
      data.points.size() != static_cast<size_t>(kPointSize) * data.num_points) {
    return Fail(path,
                0,
                "the parameter arrays do not match the counts (" +
                    std::to_string(data.cameras.size()) +
                    " camera values, " + std::to_string(data.points.size()) +
                    " point values)",
                error);
  }
  for (int c = 0; c < data.num_cameras; ++c) {
    for (int k = 0; k < kCameraSize; ++k) {
      if (!std::isfinite(data.cameras[kCameraSize * c + k])) {
        return Fail(path,
                    0,
                    "camera " + std::to_string(c) + " " + kCameraNames[k] +
                        " is not finite",
                    error);
      }
    }
    if (!(data.cameras[kCameraSize * c + 6] > 0.0)) {
      std::ostringstream what;
      what << "camera " << c << ": the focal length "
           << data.cameras[kCameraSize * c + 6] << " is not positive";
      return Fail(path, 0, what.str(), error);
    }
  }
  for (double x : data.points) {
    if (!std::isfinite(x)) return Fail(path, 0, "a point is not finite", error);
  }
  std::vector<char> camera_seen(data.num_cameras, 0);
  std::vector<char> point_seen(data.num_points, 0);
  for (size_t i = 0; i < data.observations.size(); ++i) {
    const BalData::Observation& o = data.observations[i];
    if (o.camera < 0 || o.camera >= data.num_cameras || o.point < 0 ||
        o.point >= data.num_points || !o.pixel.allFinite()) {
      return Fail(path,
                  o.line,
                  "observation " + std::to_string(i) +
                      " has an index out of range or a pixel that is not "
                      "finite",
                  error);
    }
    camera_seen[o.camera] = 1;
    point_seen[o.point] = 1;
    const SnavelyReprojection reprojection(o.pixel[0], o.pixel[1]);
    double r[2] = {NAN, NAN};
    if (!reprojection(&data.cameras[kCameraSize * o.camera],
                      &data.points[kPointSize * o.point],
                      r) ||
        !std::isfinite(r[0]) || !std::isfinite(r[1])) {
      return Fail(path,
                  o.line,
                  "observation " + std::to_string(i) + " (camera " +
                      std::to_string(o.camera) + ", point " +
                      std::to_string(o.point) +
                      "): the point is in the camera's plane at the start "
                      "(depth 0), so its reprojection is not finite",
                  error);
    }
  }
  const auto unseen_camera =
      std::find(camera_seen.begin(), camera_seen.end(), 0);
  if (unseen_camera != camera_seen.end()) {
    return Fail(path,
                0,
                "camera " +
                    std::to_string(unseen_camera - camera_seen.begin()) +
                    " is in no observation: its parameters would be "
                    "undetermined (remove it and renumber the cameras)",
                error);
  }
  const auto unseen_point = std::find(point_seen.begin(), point_seen.end(), 0);
  if (unseen_point != point_seen.end()) {
    return Fail(path,
                0,
                "point " + std::to_string(unseen_point - point_seen.begin()) +
                    " is in no observation: its coordinates would be "
                    "undetermined (remove it and renumber the points)",
                error);
  }
  return true;
}

}  // namespace

bool ReadBalFile(const std::string& path, BalData* data, std::string* error) {
  *data = BalData();
  data->path = path;
  std::ifstream in;
  if (!OpenTextFile(path, "a BAL file", &in, error)) return false;
  Values values(path, &in);
  constexpr long long kMaxCount = std::numeric_limits<int>::max();
  const std::string header = "the header: num_cameras num_points "
                             "num_observations";
  int line = 0, num_observations = 0;
  if (!values.Integer("num_cameras",
                      header,
                      2,
                      kMaxCount,
                      &data->num_cameras,
                      &line,
                      error) ||
      !values.Integer("num_points",
                      header,
                      1,
                      kMaxCount,
                      &data->num_points,
                      &line,
                      error) ||
      !values.Integer("num_observations",
                      header,
                      1,
                      kMaxCount,
                      &num_observations,
                      &line,
                      error)) {
    if (data->num_cameras == 1 && error != nullptr) {
      *error += " (at least 2 cameras: one per camera group)";
    }
    return false;
  }
  // The counts come from the file: reserve no more than a bounded amount up
  // front, so that a wrong header fails at the end of the file, not in the
  // allocator.
  constexpr size_t kReserve = 1 << 20;
  data->observations.reserve(
      std::min(static_cast<size_t>(num_observations), kReserve));
  for (int i = 0; i < num_observations; ++i) {
    const std::string what = "observation " + std::to_string(i);
    const std::string context =
        "the observations: " + std::to_string(i) + " of " +
        std::to_string(num_observations) + " read";
    BalData::Observation o;
    if (!values.Integer(what + " camera index",
                        context,
                        0,
                        data->num_cameras,
                        &o.camera,
                        &o.line,
                        error) ||
        !values.Integer(what + " point index",
                        context,
                        0,
                        data->num_points,
                        &o.point,
                        &line,
                        error) ||
        !values.Number(what + " x", context, &o.pixel[0], &line, error) ||
        !values.Number(what + " y", context, &o.pixel[1], &line, error)) {
      return false;
    }
    data->observations.push_back(o);
  }
  auto read_blocks = [&](const char* kind, int count, int size,
                         const char* const* names, std::vector<double>* out) {
    out->reserve(std::min(static_cast<size_t>(count) * size, kReserve));
    for (int b = 0; b < count; ++b) {
      const std::string context = std::string("the ") + kind + "s: " +
                                  std::to_string(b) + " of " +
                                  std::to_string(count) + " read";
      for (int k = 0; k < size; ++k) {
        double value = 0.0;
        if (!values.Number(
                std::string(kind) + " " + std::to_string(b) + " " + names[k],
                context,
                &value,
                &line,
                error)) {
          return false;
        }
        // A camera's focal length must be positive (checked here, where
        // the line is known; CheckScene repeats it for data built by hand).
        if (size == kCameraSize && k == 6 && !(value > 0.0)) {
          std::ostringstream what;
          what << "camera " << b << " f (the focal length) is " << value
               << ", not positive";
          return Fail(path, line, what.str(), error);
        }
        out->push_back(value);
      }
    }
    return true;
  };
  if (!read_blocks("camera", data->num_cameras, kCameraSize, kCameraNames,
                   &data->cameras) ||
      !read_blocks("point", data->num_points, kPointSize, kPointNames,
                   &data->points)) {
    return false;
  }
  std::string extra;
  if (values.Next(&extra, &line)) {
    return Fail(path,
                line,
                "a value after the last point: '" + Printable(extra) +
                    "' (the header promises " +
                    Counted(data->num_cameras, "camera") + ", " +
                    Counted(data->num_points, "point") + " and " +
                    Counted(num_observations, "observation") + ")",
                error);
  }
  if (values.bad()) return Fail(path, values.lines_read(), "read error", error);
  return CheckScene(*data, error);
}

bool WriteBalFile(const std::string& path,
                  const BalData& data,
                  std::string* error) {
  std::ostringstream out;
  out.precision(17);
  out << data.num_cameras << " " << data.num_points << " "
      << data.observations.size() << "\n";
  for (const BalData::Observation& o : data.observations) {
    out << o.camera << " " << o.point << " " << o.pixel[0] << " "
        << o.pixel[1] << "\n";
  }
  for (double x : data.cameras) out << x << "\n";
  for (double x : data.points) out << x << "\n";
  return ecmo::WriteFileAtomically(path, out.str(), error);
}

BalData BalDataFromScene(ecmo::problems::BundleAdjustment* scene) {
  using Scene = ecmo::problems::BundleAdjustment;
  BalData bal;
  bal.num_cameras = scene->num_cameras();
  bal.num_points = scene->num_points();
  for (int c = 0; c < scene->num_cameras(); ++c) {
    const double* camera = scene->camera(c);
    bal.cameras.insert(bal.cameras.end(), camera, camera + Scene::kCameraSize);
    bal.cameras.push_back(0.0);  // k1
    bal.cameras.push_back(0.0);  // k2
  }
  for (int p = 0; p < scene->num_points(); ++p) {
    const double* point = scene->point(p);
    bal.points.insert(bal.points.end(), point, point + Scene::kPointSize);
  }
  // Snavely's cameras look down -z where the generated ones look down +z:
  // negated pixels make every residual the generated one's negative.
  const std::vector<double>& observed = scene->observations();
  for (int c = 0; c < scene->num_cameras(); ++c) {
    for (int p = 0; p < scene->num_points(); ++p) {
      const size_t k = 2 * (static_cast<size_t>(c) * scene->num_points() + p);
      BalData::Observation o;
      o.camera = c;
      o.point = p;
      o.pixel = -Eigen::Vector2d(observed[k], observed[k + 1]);
      bal.observations.push_back(o);
    }
  }
  return bal;
}

bool BalProblem::Options::IsValid(std::string* error) const {
  std::string message;
  if (!(group_a_weight > 0.0) || !std::isfinite(group_a_weight) ||
      !(group_b_weight > 0.0) || !std::isfinite(group_b_weight)) {
    message = "BalProblem::Options: group weights must be finite and > 0";
  } else if (!(huber_scale >= 0.0) || !std::isfinite(huber_scale)) {
    message = "BalProblem::Options: huber_scale must be finite and >= 0";
  }
  if (error != nullptr) *error = message;
  return message.empty();
}

std::unique_ptr<BalProblem> BalProblem::Create(const std::string& path,
                                               const Options& options,
                                               std::string* error) {
  if (!options.IsValid(error)) return nullptr;
  BalData data;
  if (!ReadBalFile(path, &data, error)) return nullptr;
  return std::unique_ptr<BalProblem>(new BalProblem(data, options));
}

std::unique_ptr<BalProblem> BalProblem::Create(const BalData& data,
                                               const Options& options,
                                               std::string* error) {
  if (!options.IsValid(error) || !CheckScene(data, error)) return nullptr;
  return std::unique_ptr<BalProblem>(new BalProblem(data, options));
}

BalProblem::BalProblem(const BalData& data, const Options& options)
    : data_(data),
      options_(options),
      cameras_(data.cameras),
      points_(data.points) {
  BuildProblem();
}

void BalProblem::BuildProblem() {
  const int half = num_cameras() / 2;
  for (const BalData::Observation& o : data_.observations) {
    const bool in_a = o.camera < half;
    const double weight =
        in_a ? options_.group_a_weight : options_.group_b_weight;
    ceres::LossFunction* robust =
        options_.huber_scale > 0.0 ? new ceres::HuberLoss(options_.huber_scale)
                                   : nullptr;
    ceres::LossFunction* loss =
        weight == 1.0
            ? robust
            : new ceres::ScaledLoss(robust, weight, ceres::TAKE_OWNERSHIP);
    const ceres::ResidualBlockId id = problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<SnavelyReprojection,
                                        2,
                                        kCameraSize,
                                        kPointSize>(
            new SnavelyReprojection(o.pixel[0], o.pixel[1])),
        loss,
        camera(o.camera),
        point(o.point));
    (in_a ? group_a : group_b).push_back(id);
  }
  // Every camera and point is observed (CheckScene), so both blocks are in
  // the problem.
  problem.SetParameterBlockConstant(camera(0));
  problem.SetParameterBlockConstant(point(0));
}

void BalProblem::ResetToStart() {
  cameras_ = data_.cameras;
  points_ = data_.points;
}

std::vector<ecmo::CeresProblemAdapter::ResidualGroup>
BalProblem::ObjectiveGroups() const {
  return {{"camera_group_a", group_a}, {"camera_group_b", group_b}};
}

Eigen::Vector2d BalProblem::Costs() {
  return ecmo::problems::BundleAdjustment::GroupCosts(
      &problem, group_a, group_b, options_.huber_scale > 0.0,
      options_.group_a_weight, options_.group_b_weight);
}

Eigen::Vector2d PlainWeightedSum(const BalProblem& bal,
                                 double w_a,
                                 double w_b,
                                 ceres::TerminationType* termination,
                                 double* solve_seconds) {
  ceres::Solver::Options plain;
  plain.linear_solver_type = ceres::SPARSE_SCHUR;
  plain.max_num_iterations = 1000;
  plain.logging_type = ceres::SILENT;
  BalProblem::Options weighted = bal.options();
  weighted.group_a_weight = w_a;
  weighted.group_b_weight = w_b;
  std::string error;
  std::unique_ptr<BalProblem> sum =
      BalProblem::Create(bal.data(), weighted, &error);
  if (sum == nullptr) return Eigen::Vector2d::Constant(NAN);
  TimedCeresSolve(plain, &sum->problem, termination, solve_seconds);
  return sum->Costs();
}

}  // namespace ecmo_pipelines
