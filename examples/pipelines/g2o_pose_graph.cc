// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "g2o_pose_graph.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

#include "Eigen/Cholesky"
#include "ceres/autodiff_cost_function.h"
#include "ceres/autodiff_manifold.h"
#include "ceres/loss_function.h"
#include "ceres/manifold.h"
#include "ceres/rotation.h"
#include "ecmo/problems/pose_graph.h"
#include "text_file.h"

namespace ecmo_pipelines {
namespace {

// Whitened error of the measured pose of b in a's frame, in 3D (see the
// header): positions and Eigen quaternions (x, y, z, w).
class RelativePose3dError {
 public:
  RelativePose3dError(const Eigen::Vector3d& position,
                      const Eigen::Quaterniond& rotation,
                      const Eigen::Matrix<double, 6, 6>& sqrt_information)
      : position_(position),
        rotation_(rotation),
        sqrt_information_(sqrt_information) {}

  template <typename T>
  bool operator()(const T* position_a,
                  const T* rotation_a,
                  const T* position_b,
                  const T* rotation_b,
                  T* residual) const {
    const Eigen::Map<const Eigen::Matrix<T, 3, 1>> p_a(position_a);
    const Eigen::Map<const Eigen::Matrix<T, 3, 1>> p_b(position_b);
    const Eigen::Map<const Eigen::Quaternion<T>> q_a(rotation_a);
    const Eigen::Map<const Eigen::Quaternion<T>> q_b(rotation_b);
    // The manifold keeps the blocks at norm 1, so the conjugate is the
    // inverse.
    const Eigen::Quaternion<T> q_a_inverse = q_a.conjugate();
    const Eigen::Matrix<T, 3, 1> position_error =
        q_a_inverse * (p_b - p_a) - position_.template cast<T>();
    const Eigen::Quaternion<T> rotation_error =
        rotation_.template cast<T>().conjugate() * (q_a_inverse * q_b);
    Eigen::Matrix<T, 6, 1> error;
    error.template head<3>() = position_error;
    error.template tail<3>() = T(2.0) * rotation_error.vec();
    Eigen::Map<Eigen::Matrix<T, 6, 1>> r(residual);
    r = sqrt_information_.template cast<T>() * error;
    return true;
  }

 private:
  Eigen::Vector3d position_;
  Eigen::Quaterniond rotation_;
  Eigen::Matrix<double, 6, 6> sqrt_information_;
};

// The fields of one record, after the tag.
class Record {
 public:
  Record(const std::string& path,
         int line,
         const std::string& tag,
         std::vector<std::string> fields)
      : path_(path), line_(line), tag_(tag), fields_(std::move(fields)) {}

  // Exactly as many fields as `names` lists (names are for messages).
  bool HasFields(const std::vector<const char*>& names,
                 std::string* error) const {
    if (fields_.size() == names.size()) return true;
    std::ostringstream what;
    what << tag_ << " has " << fields_.size() << " field"
         << (fields_.size() == 1 ? "" : "s") << " after the tag, expects "
         << names.size() << " (";
    for (size_t i = 0; i < names.size(); ++i) {
      what << (i > 0 ? " " : "") << names[i];
    }
    what << ")";
    return Fail(path_, line_, what.str(), error);
  }

  // Field i as a vertex id: a whole number that fits an int.
  bool Id(int i, const char* name, int* value, std::string* error) const {
    const std::string& text = fields_[i];
    errno = 0;
    char* end = nullptr;
    const long long parsed = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || errno != 0 ||
        parsed < std::numeric_limits<int>::min() ||
        parsed > std::numeric_limits<int>::max()) {
      return Fail(path_,
                  line_,
                  tag_ + " field " + name + " is not an integer vertex id: '" +
                      Printable(text) + "'",
                  error);
    }
    *value = static_cast<int>(parsed);
    return true;
  }

  // Field i as a finite number.
  bool Number(int i,
              const char* name,
              double* value,
              std::string* error) const {
    const std::string& text = fields_[i];
    char* end = nullptr;
    const double parsed = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
      return Fail(path_,
                  line_,
                  tag_ + " field " + name + " is not a number: '" +
                      Printable(text) + "'",
                  error);
    }
    // strtod accepts "nan" and "inf" and overflows to inf: none of them is
    // a usable pose or information entry.
    if (!std::isfinite(parsed)) {
      return Fail(path_,
                  line_,
                  tag_ + " field " + name + " is not finite: '" + text + "'",
                  error);
    }
    *value = parsed;
    return true;
  }

 private:
  const std::string& path_;
  int line_;
  std::string tag_;
  std::vector<std::string> fields_;
};

// An edge as read, before its vertex ids are resolved to indices.
struct RawEdge {
  int id_a = 0;
  int id_b = 0;
  G2oGraph2dData::Edge edge;
};

}  // namespace

bool ReadG2oGraph2d(const std::string& path,
                    G2oGraph2dData* data,
                    std::string* error) {
  *data = G2oGraph2dData();
  data->path = path;
  // An ifstream opens a directory without complaint and then reads
  // nothing: say what it is instead of "no VERTEX_SE2".
  std::ifstream in;
  if (!OpenTextFile(path, "a g2o file", &in, error)) return false;

  // id -> (pose, line of definition); std::map keeps the ids sorted.
  std::map<int, std::pair<Eigen::Vector3d, int>> vertices;
  std::vector<RawEdge> raw_edges;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    std::istringstream tokens(text);
    std::string tag;
    if (!(tokens >> tag) || tag[0] == '#') continue;  // empty or comment
    std::vector<std::string> fields;
    for (std::string field; tokens >> field;) fields.push_back(field);
    const Record record(path, line, tag, fields);

    if (tag == "VERTEX_SE2") {
      if (!record.HasFields({"id", "x", "y", "theta"}, error)) return false;
      int id = 0;
      Eigen::Vector3d pose;
      if (!record.Id(0, "id", &id, error) ||
          !record.Number(1, "x", &pose[0], error) ||
          !record.Number(2, "y", &pose[1], error) ||
          !record.Number(3, "theta", &pose[2], error)) {
        return false;
      }
      const auto seen = vertices.find(id);
      if (seen != vertices.end()) {
        return Fail(path,
                    line,
                    "VERTEX_SE2 " + std::to_string(id) +
                        " is defined twice (first on line " +
                        std::to_string(seen->second.second) + ")",
                    error);
      }
      pose[2] = ecmo::problems::NormalizeAngle(pose[2]);
      vertices.emplace(id, std::make_pair(pose, line));
    } else if (tag == "EDGE_SE2") {
      if (!record.HasFields({"a",
                             "b",
                             "dx",
                             "dy",
                             "dtheta",
                             "I11",
                             "I12",
                             "I13",
                             "I22",
                             "I23",
                             "I33"},
                            error)) {
        return false;
      }
      RawEdge raw;
      raw.edge.line = line;
      if (!record.Id(0, "a", &raw.id_a, error) ||
          !record.Id(1, "b", &raw.id_b, error) ||
          !record.Number(2, "dx", &raw.edge.measurement[0], error) ||
          !record.Number(3, "dy", &raw.edge.measurement[1], error) ||
          !record.Number(4, "dtheta", &raw.edge.measurement[2], error)) {
        return false;
      }
      if (raw.id_a == raw.id_b) {
        return Fail(
            path,
            line,
            "EDGE_SE2 joins vertex " + std::to_string(raw.id_a) + " to itself",
            error);
      }
      const char* names[6] = {"I11", "I12", "I13", "I22", "I23", "I33"};
      double upper[6];
      for (int k = 0; k < 6; ++k) {
        if (!record.Number(5 + k, names[k], &upper[k], error)) return false;
      }
      Eigen::Matrix3d information;
      information << upper[0], upper[1], upper[2],  //
          upper[1], upper[3], upper[4],             //
          upper[2], upper[4], upper[5];
      // Omega = L L^T; the residual is whitened by L^T. LLT reports a
      // non-positive pivot as a NumericalIssue; the diagonal test also
      // catches a pivot that underflowed to zero.
      const Eigen::LLT<Eigen::Matrix3d> llt(information);
      if (llt.info() != Eigen::Success ||
          !(llt.matrixLLT().diagonal().minCoeff() > 0.0)) {
        std::ostringstream what;
        what << "EDGE_SE2 " << raw.id_a << " -> " << raw.id_b
             << ": the information matrix [" << upper[0] << " " << upper[1]
             << " " << upper[2] << "; . " << upper[3] << " " << upper[4]
             << "; . . " << upper[5] << "] is not positive definite";
        return Fail(path, line, what.str(), error);
      }
      raw.edge.sqrt_information = llt.matrixU();
      // Consecutive ids are odometry (the data sets' convention); 64-bit
      // difference so that extreme ids cannot overflow.
      raw.edge.loop_closure =
          std::llabs(static_cast<long long>(raw.id_b) - raw.id_a) != 1;
      raw_edges.push_back(raw);
    } else if (tag == "FIX") {
      // The reader fixes the smallest id itself (see the header).
      continue;
    } else if (tag == "VERTEX_SE3:QUAT" || tag == "EDGE_SE3:QUAT") {
      return Fail(path,
                  line,
                  "3D graph: not supported by the 2D reader (tag " + tag + ")",
                  error);
    } else {
      return Fail(path,
                  line,
                  "unknown tag '" + Printable(tag) +
                      "' (the 2D reader knows VERTEX_SE2, EDGE_SE2 and FIX)",
                  error);
    }
  }
  if (in.bad()) {
    return Fail(path, line, "read error", error);
  }
  // No single line is at fault here: say how many were read, so that an
  // empty file and one of comments only are told apart.
  const std::string lines_read =
      " (" + std::to_string(line) + " line" + (line == 1 ? "" : "s") + " read)";
  if (vertices.empty()) {
    return Fail(path, 0, "no VERTEX_SE2 in the file" + lines_read, error);
  }
  if (raw_edges.empty()) {
    return Fail(path, 0, "no EDGE_SE2 in the file" + lines_read, error);
  }

  std::map<int, int> index;
  for (const auto& [id, pose_and_line] : vertices) {
    index.emplace(id, static_cast<int>(data->ids.size()));
    data->ids.push_back(id);
    data->poses.push_back(pose_and_line.first);
  }
  for (RawEdge& raw : raw_edges) {
    for (const int id : {raw.id_a, raw.id_b}) {
      if (index.count(id) == 0) {
        return Fail(path,
                    raw.edge.line,
                    "EDGE_SE2 " + std::to_string(raw.id_a) + " -> " +
                        std::to_string(raw.id_b) + " names vertex " +
                        std::to_string(id) + ", which the file does not define",
                    error);
      }
    }
    raw.edge.a = index[raw.id_a];
    raw.edge.b = index[raw.id_b];
    ++(raw.edge.loop_closure ? data->num_loop_closures : data->num_odometry);
    data->edges.push_back(raw.edge);
  }
  return true;
}

bool G2oPoseGraph2d::Options::IsValid(std::string* error) const {
  if (odometry_weight >= 0.0 && std::isfinite(odometry_weight) &&
      loop_closure_weight >= 0.0 && std::isfinite(loop_closure_weight)) {
    return true;
  }
  if (error != nullptr) {
    std::ostringstream message;
    message << "G2oPoseGraph2d::Options: odometry_weight = " << odometry_weight
            << " and loop_closure_weight = " << loop_closure_weight
            << " must be finite and >= 0";
    *error = message.str();
  }
  return false;
}

std::unique_ptr<G2oPoseGraph2d> G2oPoseGraph2d::Create(const std::string& path,
                                                       const Options& options,
                                                       std::string* error) {
  if (!options.IsValid(error)) return nullptr;
  G2oGraph2dData data;
  if (!ReadG2oGraph2d(path, &data, error)) return nullptr;
  return Create(data, options, error);
}

std::unique_ptr<G2oPoseGraph2d> G2oPoseGraph2d::Create(
    const G2oGraph2dData& data, const Options& options, std::string* error) {
  if (!options.IsValid(error)) return nullptr;
  // Data not from ReadG2oGraph2d may break what the problem relies on.
  if (data.ids.empty() || data.poses.size() != data.ids.size() ||
      data.edges.empty()) {
    Fail(data.path, 0, "no vertices or no edges", error);
    return nullptr;
  }
  for (const G2oGraph2dData::Edge& edge : data.edges) {
    const int n = static_cast<int>(data.ids.size());
    if (edge.a < 0 || edge.b < 0 || edge.a >= n || edge.b >= n ||
        edge.a == edge.b) {
      Fail(data.path, edge.line, "edge with invalid vertex indices", error);
      return nullptr;
    }
  }
  std::unique_ptr<G2oPoseGraph2d> graph(new G2oPoseGraph2d(data, options));
  graph->BuildProblem();
  return graph;
}

G2oPoseGraph2d::G2oPoseGraph2d(const G2oGraph2dData& data,
                               const Options& options)
    : data_(data), options_(options) {
  positions_.resize(2 * data_.poses.size());
  headings_.resize(data_.poses.size());
  ResetToStart();
}

void G2oPoseGraph2d::BuildProblem() {
  // One manifold shared by every heading block; the problem deletes it
  // once (Ceres' ownership rule for shared manifolds).
  ceres::Manifold* angle =
      options_.angle_manifold
          ? new ceres::AutoDiffManifold<ecmo::problems::AngleManifoldFunctor, 1, 1>
          : nullptr;
  for (int i = 0; i < num_poses(); ++i) {
    problem.AddParameterBlock(position(i), 2);
    if (angle != nullptr) {
      problem.AddParameterBlock(heading(i), 1, angle);
    } else {
      problem.AddParameterBlock(heading(i), 1);
    }
  }
  // The smallest id anchors the graph (gauge freedom).
  problem.SetParameterBlockConstant(position(0));
  problem.SetParameterBlockConstant(heading(0));
  for (const G2oGraph2dData::Edge& edge : data_.edges) {
    const double weight = edge.loop_closure ? options_.loop_closure_weight
                                            : options_.odometry_weight;
    // Weight 1 without a loss, so that the unweighted graph is exactly the
    // problem a Ceres user would build.
    ceres::LossFunction* loss =
        weight == 1.0
            ? nullptr
            : new ceres::ScaledLoss(nullptr, weight, ceres::TAKE_OWNERSHIP);
    const ceres::ResidualBlockId id = problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<ecmo::problems::RelativePose2dError, 3, 2, 1,
                                        2, 1>(
            new ecmo::problems::RelativePose2dError(edge.measurement, edge.sqrt_information)),
        loss,
        position(edge.a),
        heading(edge.a),
        position(edge.b),
        heading(edge.b));
    (edge.loop_closure ? loop_closures : odometry).push_back(id);
  }
}

std::vector<Eigen::Vector3d> G2oPoseGraph2d::Poses() const {
  std::vector<Eigen::Vector3d> poses(num_poses());
  for (int i = 0; i < num_poses(); ++i) {
    poses[i] =
        Eigen::Vector3d(positions_[2 * i], positions_[2 * i + 1], headings_[i]);
  }
  return poses;
}

bool G2oPoseGraph2d::SetPoses(const std::vector<Eigen::Vector3d>& poses) {
  if (static_cast<int>(poses.size()) != num_poses()) return false;
  for (const Eigen::Vector3d& pose : poses) {
    if (!pose.allFinite()) return false;
  }
  // In place: the problem points into these buffers.
  for (int i = 0; i < num_poses(); ++i) {
    positions_[2 * i] = poses[i][0];
    positions_[2 * i + 1] = poses[i][1];
    headings_[i] = ecmo::problems::NormalizeAngle(poses[i][2]);
  }
  return true;
}

void G2oPoseGraph2d::ResetToStart() {
  for (int i = 0; i < num_poses(); ++i) {
    positions_[2 * i] = data_.poses[i][0];
    positions_[2 * i + 1] = data_.poses[i][1];
    headings_[i] = data_.poses[i][2];
  }
}

bool G2oPoseGraph2d::CopyParametersFrom(const G2oPoseGraph2d& other) {
  if (other.data_.ids != data_.ids) return false;
  std::copy(
      other.positions_.begin(), other.positions_.end(), positions_.begin());
  std::copy(other.headings_.begin(), other.headings_.end(), headings_.begin());
  return true;
}

std::vector<ecmo::CeresProblemAdapter::ResidualGroup>
G2oPoseGraph2d::ObjectiveGroups() const {
  return {{"odometry", odometry}, {"loop_closures", loop_closures}};
}

Eigen::Vector2d G2oPoseGraph2d::Costs() {
  Eigen::Vector2d costs(0.0, 0.0);
  ceres::Problem::EvaluateOptions evaluate;
  evaluate.apply_loss_function = false;
  // An empty residual_blocks list means "all of them" to Ceres: skip an
  // empty kind instead.
  if (!odometry.empty()) {
    evaluate.residual_blocks = odometry;
    problem.Evaluate(evaluate, &costs[0], nullptr, nullptr, nullptr);
  }
  if (!loop_closures.empty()) {
    evaluate.residual_blocks = loop_closures;
    problem.Evaluate(evaluate, &costs[1], nullptr, nullptr, nullptr);
  }
  return costs;
}

std::vector<double*> G2oPoseGraph2d::MovingParameterBlocks() {
  std::vector<double*> blocks;
  for (int i = 1; i < num_poses(); ++i) {
    blocks.push_back(position(i));
    blocks.push_back(heading(i));
  }
  return blocks;
}

// ---- 3D ----

bool IsG2oFile3d(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  while (in && std::getline(in, text)) {
    std::istringstream tokens(text);
    std::string tag;
    if (!(tokens >> tag) || tag[0] == '#' || tag == "FIX") continue;
    return tag == "VERTEX_SE3:QUAT" || tag == "EDGE_SE3:QUAT";
  }
  return false;
}

namespace {

// Reads fields [first, first + 7) of `record` as x y z qx qy qz qw; the
// quaternion normalized (a zero one is an error).
bool ReadPose3d(const Record& record,
                int first,
                const std::string& path,
                int line,
                Eigen::Vector3d* position,
                Eigen::Quaterniond* rotation,
                std::string* error) {
  const char* names[7] = {"x", "y", "z", "qx", "qy", "qz", "qw"};
  double v[7];
  for (int k = 0; k < 7; ++k) {
    if (!record.Number(first + k, names[k], &v[k], error)) return false;
  }
  *position = Eigen::Vector3d(v[0], v[1], v[2]);
  // Eigen's constructor takes w first.
  *rotation = Eigen::Quaterniond(v[6], v[3], v[4], v[5]);
  const double norm = rotation->norm();
  if (!(norm > 1e-12) || !std::isfinite(norm)) {
    return Fail(path, line, "the quaternion has norm 0", error);
  }
  rotation->coeffs() /= norm;
  return true;
}

}  // namespace

bool ReadG2oGraph3d(const std::string& path,
                    G2oGraph3dData* data,
                    std::string* error) {
  *data = G2oGraph3dData();
  data->path = path;
  std::ifstream in;
  if (!OpenTextFile(path, "a g2o file", &in, error)) return false;
  std::map<int, std::pair<G2oGraph3dData::Edge, int>> vertices;  // pose, line
  struct Raw3d {
    int id_a = 0;
    int id_b = 0;
    G2oGraph3dData::Edge edge;
  };
  std::vector<Raw3d> raw_edges;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    std::istringstream tokens(text);
    std::string tag;
    if (!(tokens >> tag) || tag[0] == '#') continue;
    std::vector<std::string> fields;
    for (std::string field; tokens >> field;) fields.push_back(field);
    const Record record(path, line, tag, fields);
    if (tag == "VERTEX_SE3:QUAT") {
      if (!record.HasFields({"id", "x", "y", "z", "qx", "qy", "qz", "qw"},
                            error)) {
        return false;
      }
      int id = 0;
      G2oGraph3dData::Edge pose;  // position and rotation only
      if (!record.Id(0, "id", &id, error) ||
          !ReadPose3d(
              record, 1, path, line, &pose.position, &pose.rotation, error)) {
        return false;
      }
      const auto seen = vertices.find(id);
      if (seen != vertices.end()) {
        return Fail(path,
                    line,
                    "VERTEX_SE3:QUAT " + std::to_string(id) +
                        " is defined twice (first on line " +
                        std::to_string(seen->second.second) + ")",
                    error);
      }
      vertices.emplace(id, std::make_pair(pose, line));
    } else if (tag == "EDGE_SE3:QUAT") {
      std::vector<const char*> names = {
          "a", "b", "x", "y", "z", "qx", "qy", "qz", "qw"};
      static const char* kInformation[21] = {
          "I11", "I12", "I13", "I14", "I15", "I16", "I22",
          "I23", "I24", "I25", "I26", "I33", "I34", "I35",
          "I36", "I44", "I45", "I46", "I55", "I56", "I66"};
      for (const char* name : kInformation) names.push_back(name);
      if (!record.HasFields(names, error)) return false;
      Raw3d raw;
      raw.edge.line = line;
      if (!record.Id(0, "a", &raw.id_a, error) ||
          !record.Id(1, "b", &raw.id_b, error) ||
          !ReadPose3d(record,
                      2,
                      path,
                      line,
                      &raw.edge.position,
                      &raw.edge.rotation,
                      error)) {
        return false;
      }
      if (raw.id_a == raw.id_b) {
        return Fail(path,
                    line,
                    "EDGE_SE3:QUAT joins vertex " + std::to_string(raw.id_a) +
                        " to itself",
                    error);
      }
      Eigen::Matrix<double, 6, 6> information;
      int k = 0;
      for (int i = 0; i < 6; ++i) {
        for (int j = i; j < 6; ++j, ++k) {
          double value = 0.0;
          if (!record.Number(9 + k, kInformation[k], &value, error)) {
            return false;
          }
          information(i, j) = information(j, i) = value;
        }
      }
      const Eigen::LLT<Eigen::Matrix<double, 6, 6>> llt(information);
      if (llt.info() != Eigen::Success ||
          !(llt.matrixLLT().diagonal().minCoeff() > 0.0)) {
        return Fail(path,
                    line,
                    "EDGE_SE3:QUAT " + std::to_string(raw.id_a) + " -> " +
                        std::to_string(raw.id_b) +
                        ": the information matrix is not positive definite",
                    error);
      }
      raw.edge.sqrt_information = llt.matrixU();
      raw.edge.loop_closure =
          std::llabs(static_cast<long long>(raw.id_b) - raw.id_a) != 1;
      raw_edges.push_back(raw);
    } else if (tag == "FIX") {
      continue;
    } else if (tag == "VERTEX_SE2" || tag == "EDGE_SE2") {
      return Fail(path,
                  line,
                  "2D graph: not supported by the 3D reader (tag " + tag + ")",
                  error);
    } else {
      return Fail(path,
                  line,
                  "unknown tag '" + Printable(tag) +
                      "' (the 3D reader knows VERTEX_SE3:QUAT, EDGE_SE3:QUAT "
                      "and FIX)",
                  error);
    }
  }
  if (in.bad()) return Fail(path, line, "read error", error);
  const std::string lines_read =
      " (" + std::to_string(line) + " line" + (line == 1 ? "" : "s") + " read)";
  if (vertices.empty()) {
    return Fail(path, 0, "no VERTEX_SE3:QUAT in the file" + lines_read, error);
  }
  if (raw_edges.empty()) {
    return Fail(path, 0, "no EDGE_SE3:QUAT in the file" + lines_read, error);
  }
  std::map<int, int> index;
  for (const auto& [id, pose_and_line] : vertices) {
    index.emplace(id, static_cast<int>(data->ids.size()));
    data->ids.push_back(id);
    const G2oGraph3dData::Edge& pose = pose_and_line.first;
    G2oPoseGraph3d::Pose v;
    v << pose.position, pose.rotation.coeffs();  // x y z, then qx qy qz qw
    data->poses.push_back(v);
  }
  for (Raw3d& raw : raw_edges) {
    for (const int id : {raw.id_a, raw.id_b}) {
      if (index.count(id) == 0) {
        return Fail(path,
                    raw.edge.line,
                    "EDGE_SE3:QUAT " + std::to_string(raw.id_a) + " -> " +
                        std::to_string(raw.id_b) + " names vertex " +
                        std::to_string(id) + ", which the file does not define",
                    error);
      }
    }
    raw.edge.a = index[raw.id_a];
    raw.edge.b = index[raw.id_b];
    ++(raw.edge.loop_closure ? data->num_loop_closures : data->num_odometry);
    data->edges.push_back(raw.edge);
  }
  return true;
}

std::unique_ptr<G2oPoseGraph3d> G2oPoseGraph3d::Create(const std::string& path,
                                                       const Options& options,
                                                       std::string* error) {
  if (!options.IsValid(error)) return nullptr;
  G2oGraph3dData data;
  if (!ReadG2oGraph3d(path, &data, error)) return nullptr;
  return Create(data, options, error);
}

std::unique_ptr<G2oPoseGraph3d> G2oPoseGraph3d::Create(
    const G2oGraph3dData& data, const Options& options, std::string* error) {
  if (!options.IsValid(error)) return nullptr;
  if (data.ids.empty() || data.poses.size() != data.ids.size() ||
      data.edges.empty()) {
    Fail(data.path, 0, "no vertices or no edges", error);
    return nullptr;
  }
  const int n = static_cast<int>(data.ids.size());
  for (const G2oGraph3dData::Edge& edge : data.edges) {
    if (edge.a < 0 || edge.b < 0 || edge.a >= n || edge.b >= n ||
        edge.a == edge.b) {
      Fail(data.path, edge.line, "edge with invalid vertex indices", error);
      return nullptr;
    }
  }
  std::unique_ptr<G2oPoseGraph3d> graph(new G2oPoseGraph3d(data, options));
  graph->BuildProblem();
  return graph;
}

G2oPoseGraph3d::G2oPoseGraph3d(const G2oGraph3dData& data,
                               const Options& options)
    : data_(data), options_(options) {
  positions_.resize(3 * data_.poses.size());
  rotations_.resize(4 * data_.poses.size());
  ResetToStart();
}

void G2oPoseGraph3d::BuildProblem() {
  // One manifold for every rotation block; the problem deletes it once.
  ceres::Manifold* quaternion = new ceres::EigenQuaternionManifold;
  for (int i = 0; i < num_poses(); ++i) {
    problem.AddParameterBlock(position(i), 3);
    problem.AddParameterBlock(rotation(i), 4, quaternion);
  }
  problem.SetParameterBlockConstant(position(0));
  problem.SetParameterBlockConstant(rotation(0));
  for (const G2oGraph3dData::Edge& edge : data_.edges) {
    const double weight = edge.loop_closure ? options_.loop_closure_weight
                                            : options_.odometry_weight;
    ceres::LossFunction* loss =
        weight == 1.0
            ? nullptr
            : new ceres::ScaledLoss(nullptr, weight, ceres::TAKE_OWNERSHIP);
    const ceres::ResidualBlockId id = problem.AddResidualBlock(
        new ceres::AutoDiffCostFunction<RelativePose3dError, 6, 3, 4, 3, 4>(
            new RelativePose3dError(
                edge.position, edge.rotation, edge.sqrt_information)),
        loss,
        position(edge.a),
        rotation(edge.a),
        position(edge.b),
        rotation(edge.b));
    (edge.loop_closure ? loop_closures : odometry).push_back(id);
  }
}

std::vector<double*> G2oPoseGraph3d::MovingParameterBlocks() {
  std::vector<double*> blocks;
  for (int i = 1; i < num_poses(); ++i) {
    blocks.push_back(position(i));
    blocks.push_back(rotation(i));
  }
  return blocks;
}

std::vector<G2oPoseGraph3d::Pose> G2oPoseGraph3d::Poses() const {
  std::vector<Pose> poses(num_poses());
  for (int i = 0; i < num_poses(); ++i) {
    for (int k = 0; k < 3; ++k) poses[i][k] = positions_[3 * i + k];
    for (int k = 0; k < 4; ++k) poses[i][3 + k] = rotations_[4 * i + k];
  }
  return poses;
}

bool G2oPoseGraph3d::SetPoses(const std::vector<Pose>& poses) {
  if (static_cast<int>(poses.size()) != num_poses()) return false;
  for (const Pose& pose : poses) {
    if (!pose.allFinite() || !(pose.tail<4>().norm() > 0.0)) return false;
  }
  for (int i = 0; i < num_poses(); ++i) {
    const Eigen::Vector4d q = poses[i].tail<4>().normalized();
    for (int k = 0; k < 3; ++k) positions_[3 * i + k] = poses[i][k];
    for (int k = 0; k < 4; ++k) rotations_[4 * i + k] = q[k];
  }
  return true;
}

void G2oPoseGraph3d::ResetToStart() {
  for (int i = 0; i < num_poses(); ++i) {
    for (int k = 0; k < 3; ++k) positions_[3 * i + k] = data_.poses[i][k];
    for (int k = 0; k < 4; ++k) rotations_[4 * i + k] = data_.poses[i][3 + k];
  }
}

std::vector<ecmo::CeresProblemAdapter::ResidualGroup>
G2oPoseGraph3d::ObjectiveGroups() const {
  return {{"odometry", odometry}, {"loop_closures", loop_closures}};
}

Eigen::Vector2d G2oPoseGraph3d::Costs() {
  Eigen::Vector2d costs(0.0, 0.0);
  ceres::Problem::EvaluateOptions evaluate;
  evaluate.apply_loss_function = false;
  if (!odometry.empty()) {
    evaluate.residual_blocks = odometry;
    problem.Evaluate(evaluate, &costs[0], nullptr, nullptr, nullptr);
  }
  if (!loop_closures.empty()) {
    evaluate.residual_blocks = loop_closures;
    problem.Evaluate(evaluate, &costs[1], nullptr, nullptr, nullptr);
  }
  return costs;
}

}  // namespace ecmo_pipelines
