// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
//
// The 2D g2o reader of examples/pipelines/ (g2o_pose_graph.h): every kind
// of bad input is refused with a message that names the file and the line
// at fault, and the problem it builds has the costs and derivatives of
// the formula in the header, computed here by hand and by finite
// differences.

#include "g2o_pose_graph.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ceres/crs_matrix.h"
#include "ceres/manifold.h"
#include "gtest/gtest.h"

namespace ecmo_pipelines {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Writes `text` to a file of the test's temporary folder; its path.
std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/g2o_reader_" + name;
  std::ofstream out(path, std::ios::trunc);
  out << text;
  return path;
}

// Reads `text` and expects a refusal whose message starts with
// "path:line: " and contains `what`.
void ExpectRefused(const std::string& name,
                   const std::string& text,
                   int line,
                   const std::string& what) {
  SCOPED_TRACE(name);
  const std::string path = WriteFile(name, text);
  G2oGraph2dData data;
  std::string error;
  EXPECT_FALSE(ReadG2oGraph2d(path, &data, &error));
  EXPECT_EQ(error.rfind(path + ":" + std::to_string(line) + ": ", 0), 0u)
      << error;
  EXPECT_NE(error.find(what), std::string::npos) << error;
  // The graph's factory refuses the same file with the same message.
  std::string create_error;
  EXPECT_EQ(G2oPoseGraph2d::Create(path, {}, &create_error), nullptr);
  EXPECT_EQ(create_error, error);
}

// Two vertices and an odometry edge: what the bad inputs are made from.
const char kVertices[] =
    "VERTEX_SE2 0 0 0 0\n"
    "VERTEX_SE2 1 1 0 0\n";
const char kOdometry[] = "EDGE_SE2 0 1 1 0 0 1 0 0 1 0 1\n";

TEST(G2oReaderTest, TooFewFieldsNamesTheLine) {
  ExpectRefused("few_fields",
                std::string(kVertices) + "VERTEX_SE2 2 0 0\n" + kOdometry,
                3,
                "VERTEX_SE2 has 3 fields after the tag, expects 4");
}

TEST(G2oReaderTest, TooManyFieldsNamesTheLine) {
  ExpectRefused("many_fields",
                std::string(kVertices) + "EDGE_SE2 0 1 1 0 0 1 0 0 1 0 1 7\n",
                3,
                "EDGE_SE2 has 12 fields");
}

TEST(G2oReaderTest, FieldThatIsNotANumberNamesTheLine) {
  ExpectRefused(
      "not_a_number",
      "VERTEX_SE2 0 0 0 0\nVERTEX_SE2 1 1 x0 0\n" + std::string(kOdometry),
      2,
      "field y is not a number: 'x0'");
  ExpectRefused("not_an_id",
                std::string(kVertices) + "EDGE_SE2 0 1.5 1 0 0 1 0 0 1 0 1\n",
                3,
                "field b is not an integer vertex id: '1.5'");
}

TEST(G2oReaderTest, UnknownTagNamesTheLine) {
  ExpectRefused(
      "unknown_tag",
      std::string("# a comment\n\n") + kVertices + "POINT 3 1 2\n" + kOdometry,
      5,
      "unknown tag 'POINT'");
}

TEST(G2oReaderTest, ThreeDimensionalTagNamesTheLine) {
  ExpectRefused("tag_3d",
                "VERTEX_SE3:QUAT 0 0 0 0 0 0 0 1\n",
                1,
                "3D graph: not supported by the 2D reader (tag "
                "VERTEX_SE3:QUAT)");
  ExpectRefused("edge_3d",
                std::string(kVertices) +
                    "EDGE_SE3:QUAT 0 1 0 0 0 0 0 0 1 1 0 0 0 0 0 1 0 0 0 0 1 "
                    "0 0 0 1 0 0 1 0 1\n",
                3,
                "3D graph");
}

TEST(G2oReaderTest, NanAndInfinityNameTheLine) {
  ExpectRefused("nan",
                std::string(kVertices) + "VERTEX_SE2 2 nan 0 0\n" + kOdometry,
                3,
                "field x is not finite: 'nan'");
  ExpectRefused("infinite_information",
                std::string(kVertices) + "EDGE_SE2 0 1 1 0 0 inf 0 0 1 0 1\n",
                3,
                "field I11 is not finite");
  // Overflow to infinity is not a number either.
  ExpectRefused("overflow",
                std::string(kVertices) + "VERTEX_SE2 2 0 1e999 0\n" + kOdometry,
                3,
                "field y is not finite");
}

TEST(G2oReaderTest, InformationThatIsNotPositiveDefiniteNamesTheLine) {
  // Negative diagonal.
  ExpectRefused("negative_information",
                std::string(kVertices) + "EDGE_SE2 0 1 1 0 0 -1 0 0 1 0 1\n",
                3,
                "is not positive definite");
  // Positive diagonal, indefinite: [1 2; 2 1] in the x/y block.
  ExpectRefused("indefinite_information",
                std::string(kVertices) + "\nEDGE_SE2 0 1 1 0 0 1 2 0 1 0 1\n",
                4,
                "EDGE_SE2 0 -> 1: the information matrix");
  // Singular (a zero row): semi-definite is not enough.
  ExpectRefused("singular_information",
                std::string(kVertices) + "EDGE_SE2 0 1 1 0 0 1 0 0 1 0 0\n",
                3,
                "is not positive definite");
}

TEST(G2oReaderTest, EdgeToAMissingVertexNamesTheEdgesLine) {
  // The vertex may come after the edge, so the message comes at the end,
  // still naming the edge's line.
  ExpectRefused("missing_vertex",
                std::string(kVertices) + kOdometry +
                    "EDGE_SE2 1 7 1 0 0 1 0 0 1 0 1\n" + "VERTEX_SE2 2 2 0 0\n",
                4,
                "EDGE_SE2 1 -> 7 names vertex 7, which the file does not "
                "define");
}

TEST(G2oReaderTest, DuplicateVertexNamesBothLines) {
  ExpectRefused("duplicate_vertex",
                std::string(kVertices) + kOdometry + "VERTEX_SE2 0 5 5 0\n",
                4,
                "VERTEX_SE2 0 is defined twice (first on line 1)");
}

TEST(G2oReaderTest, SelfEdgeNamesTheLine) {
  ExpectRefused("self_edge",
                std::string(kVertices) + "EDGE_SE2 1 1 0 0 0 1 0 0 1 0 1\n",
                3,
                "EDGE_SE2 joins vertex 1 to itself");
}

// A file without a record at fault has no line to name: the message names
// the file and says how many lines were read.
TEST(G2oReaderTest, EmptyFileAndFileWithoutEdges) {
  for (const auto& [name, text, what] : std::vector<std::array<std::string, 3>>{
           {"empty", "", "no VERTEX_SE2 in the file (0 lines read)"},
           {"comments_only",
            "# nothing\n\n",
            "no VERTEX_SE2 in the file (2 lines read)"},
           {"no_edges", kVertices, "no EDGE_SE2 in the file (2 lines read)"},
       }) {
    SCOPED_TRACE(name);
    const std::string path = WriteFile(name, text);
    G2oGraph2dData data;
    std::string error;
    EXPECT_FALSE(ReadG2oGraph2d(path, &data, &error));
    EXPECT_EQ(error, path + ": " + what);
  }
}

TEST(G2oReaderTest, UnreadablePathsSayWhy) {
  G2oGraph2dData data;
  std::string error;
  const std::string missing = ::testing::TempDir() + "/g2o_reader_missing/x";
  EXPECT_FALSE(ReadG2oGraph2d(missing, &data, &error));
  EXPECT_EQ(error, missing + ": cannot open the file for reading");
  EXPECT_FALSE(ReadG2oGraph2d(::testing::TempDir(), &data, &error));
  EXPECT_NE(error.find("is a directory, not a g2o file"), std::string::npos)
      << error;
  // A null error pointer is allowed.
  EXPECT_FALSE(ReadG2oGraph2d(missing, &data, nullptr));
}

// Three poses, an odometry edge 0 -> 1 with identity information and a
// loop closure 2 -> 0 (|2 - 0| != 1) with a full information matrix seen
// from a rotated pose. FIX lines are skipped; vertices may follow edges.
const char kTinyGraph[] =
    "EDGE_SE2 0 1 1.5 1.0 0.2 1 0 0 1 0 1\n"
    "VERTEX_SE2 0 0 0 0\n"
    "VERTEX_SE2 1 1 2 0.5\n"
    "VERTEX_SE2 2 0 1 1.5707963267948966\n"
    "FIX 0\n"
    "EDGE_SE2 2 0 -1.2 0.5 -1.0 4 1 0 9 0 16\n";

class TinyGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    graph_ = G2oPoseGraph2d::Create(WriteFile("tiny", kTinyGraph), {}, &error);
    ASSERT_NE(graph_, nullptr) << error;
  }

  // The hand computation of the header's formula. Odometry 0 -> 1: pose 0
  // is the origin with heading 0, so the displacement seen from it is
  // p_1 = (1, 2); the error is (1 - 1.5, 2 - 1, 0.5 - 0.2).
  static double HandOdometryCost() {
    const double e[3] = {-0.5, 1.0, 0.3};
    return 0.5 * (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);  // 0.67
  }
  // Loop closure 2 -> 0: pose 2 = (0, 1) with heading pi/2, so
  // R(pi/2)^T (p_0 - p_2) = R(pi/2)^T (0, -1) = (-1, 0); the error is
  // (-1 + 1.2, 0 - 0.5, 0 - pi/2 + 1), and the cost 1/2 e^T Omega e with
  // Omega = [4 1 0; 1 9 0; 0 0 16].
  static double HandLoopClosureCost() {
    const double e0 = 0.2, e1 = -0.5, e2 = 1.0 - kPi / 2;
    return 0.5 * (4 * e0 * e0 + 2 * 1 * e0 * e1 + 9 * e1 * e1 + 16 * e2 * e2);
  }

  std::unique_ptr<G2oPoseGraph2d> graph_;
};

TEST_F(TinyGraphTest, StructureFollowsTheFile) {
  EXPECT_EQ(graph_->num_poses(), 3);
  EXPECT_EQ(graph_->num_parameters(), 6);
  EXPECT_EQ(graph_->data().num_odometry, 1);
  EXPECT_EQ(graph_->data().num_loop_closures, 1);
  ASSERT_EQ(graph_->data().edges.size(), 2u);
  EXPECT_EQ(graph_->data().edges[0].line, 1);
  EXPECT_EQ(graph_->data().edges[1].line, 6);
  EXPECT_EQ(graph_->data().edges[1].a, 2);
  EXPECT_EQ(graph_->data().edges[1].b, 0);
  EXPECT_EQ(graph_->odometry.size(), 1u);
  EXPECT_EQ(graph_->loop_closures.size(), 1u);
  // The smallest id is the anchor.
  EXPECT_TRUE(graph_->problem.IsParameterBlockConstant(graph_->position(0)));
  EXPECT_TRUE(graph_->problem.IsParameterBlockConstant(graph_->heading(0)));
  EXPECT_FALSE(graph_->problem.IsParameterBlockConstant(graph_->position(1)));
  const auto groups = graph_->ObjectiveGroups();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].name, "odometry");
  EXPECT_EQ(groups[1].name, "loop_closures");
}

TEST_F(TinyGraphTest, CostsMatchTheHandComputation) {
  const Eigen::Vector2d costs = graph_->Costs();
  EXPECT_NEAR(costs[0], 0.67, 1e-15);
  EXPECT_NEAR(costs[0], HandOdometryCost(), 1e-15);
  EXPECT_NEAR(costs[1], HandLoopClosureCost(), 1e-14);

  // Weights become ScaledLoss: Ceres' own cost is the weighted sum.
  G2oPoseGraph2d::Options weighted;
  weighted.odometry_weight = 0.25;
  weighted.loop_closure_weight = 3.0;
  std::string error;
  auto scaled = G2oPoseGraph2d::Create(graph_->data(), weighted, &error);
  ASSERT_NE(scaled, nullptr) << error;
  double cost = 0.0;
  ASSERT_TRUE(scaled->problem.Evaluate(
      ceres::Problem::EvaluateOptions(), &cost, nullptr, nullptr, nullptr));
  EXPECT_NEAR(
      cost, 0.25 * HandOdometryCost() + 3.0 * HandLoopClosureCost(), 1e-14);
  // The unweighted costs do not see the weights.
  EXPECT_NEAR(scaled->Costs()[1], HandLoopClosureCost(), 1e-14);

  // Headings in R (for the Ipopt reference): the same costs.
  G2oPoseGraph2d::Options in_r;
  in_r.angle_manifold = false;
  auto flat = G2oPoseGraph2d::Create(graph_->data(), in_r, &error);
  ASSERT_NE(flat, nullptr) << error;
  EXPECT_EQ(flat->Costs(), graph_->Costs());
  EXPECT_EQ(flat->problem.GetManifold(flat->heading(1)), nullptr);
  EXPECT_NE(graph_->problem.GetManifold(graph_->heading(1)), nullptr);
}

TEST_F(TinyGraphTest, HeadingsTwoPiApartAreTheSamePose) {
  std::vector<Eigen::Vector3d> poses = graph_->Poses();
  const Eigen::Vector2d before = graph_->Costs();
  poses[1][2] += 2 * kPi;
  poses[2][2] -= 4 * kPi;
  ASSERT_TRUE(graph_->SetPoses(poses));
  EXPECT_NEAR(graph_->Costs()[0], before[0], 1e-13);
  EXPECT_NEAR(graph_->Costs()[1], before[1], 1e-12);
  // SetPoses wraps the stored headings into [-pi, pi).
  EXPECT_NEAR(*graph_->heading(1), 0.5, 1e-14);
  graph_->ResetToStart();
  EXPECT_EQ(graph_->Costs(), before);
}

// The Jacobian Ceres evaluates (autodiff through the wrap and the whitening)
// against central differences of the residuals, over the poses that move.
TEST_F(TinyGraphTest, JacobianMatchesFiniteDifferences) {
  ceres::Problem::EvaluateOptions evaluate;
  std::vector<double*> parameters;
  for (int i = 1; i < 3; ++i) {
    parameters.push_back(graph_->position(i));
    parameters.push_back(graph_->heading(i));
  }
  evaluate.parameter_blocks = parameters;
  evaluate.residual_blocks = graph_->odometry;
  evaluate.residual_blocks.push_back(graph_->loop_closures[0]);
  const auto residuals_at = [&]() {
    std::vector<double> residuals;
    EXPECT_TRUE(graph_->problem.Evaluate(
        evaluate, nullptr, &residuals, nullptr, nullptr));
    return Eigen::Map<Eigen::VectorXd>(residuals.data(), residuals.size())
        .eval();
  };
  double cost = 0.0;
  std::vector<double> residuals;
  ceres::CRSMatrix crs;
  ASSERT_TRUE(
      graph_->problem.Evaluate(evaluate, &cost, &residuals, nullptr, &crs));
  ASSERT_EQ(crs.num_rows, 6);
  ASSERT_EQ(crs.num_cols, 6);  // (x, y, theta) of poses 1 and 2
  Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(6, 6);
  for (int r = 0; r < crs.num_rows; ++r) {
    for (int k = crs.rows[r]; k < crs.rows[r + 1]; ++k) {
      jacobian(r, crs.cols[k]) = crs.values[k];
    }
  }
  // Column order: position(1) x, y, heading(1), position(2) x, y,
  // heading(2).
  std::vector<double*> columns = {graph_->position(1),
                                  graph_->position(1) + 1,
                                  graph_->heading(1),
                                  graph_->position(2),
                                  graph_->position(2) + 1,
                                  graph_->heading(2)};
  const double h = 1e-6;
  for (int c = 0; c < 6; ++c) {
    const double saved = *columns[c];
    *columns[c] = saved + h;
    const Eigen::VectorXd plus = residuals_at();
    *columns[c] = saved - h;
    const Eigen::VectorXd minus = residuals_at();
    *columns[c] = saved;
    const Eigen::VectorXd difference = (plus - minus) / (2 * h);
    for (int r = 0; r < 6; ++r) {
      EXPECT_NEAR(jacobian(r, c), difference[r], 1e-7)
          << "row " << r << " column " << c;
    }
  }
  // Spot checks by hand: the odometry residual's x row is
  // cos(theta_0) x_1 + sin(theta_0) y_1 - m_x with theta_0 = 0, so its
  // derivative in x_1 is 1, in y_1 0; its theta row moves 1:1 with
  // theta_1. The loop closure's theta row (whitened by L^T, whose (3, 3)
  // entry is 4) moves by -4 with theta_2 (it is theta_0 - theta_2 - m).
  EXPECT_NEAR(jacobian(0, 0), 1.0, 1e-14);
  EXPECT_NEAR(jacobian(0, 1), 0.0, 1e-14);
  EXPECT_NEAR(jacobian(2, 2), 1.0, 1e-14);
  EXPECT_NEAR(jacobian(5, 5), -4.0, 1e-14);
}

// ---- 3D ----

// Reads `text` with the 3D reader and expects a refusal naming `line`.
void ExpectRefused3d(const std::string& name,
                     const std::string& text,
                     int line,
                     const std::string& what) {
  SCOPED_TRACE(name);
  const std::string path = WriteFile(name, text);
  G2oGraph3dData data;
  std::string error;
  EXPECT_FALSE(ReadG2oGraph3d(path, &data, &error));
  EXPECT_EQ(error.rfind(path + ":" + std::to_string(line) + ": ", 0), 0u)
      << error;
  EXPECT_NE(error.find(what), std::string::npos) << error;
}

const char kVertices3d[] =
    "VERTEX_SE3:QUAT 0 0 0 0 0 0 0 1\n"
    "VERTEX_SE3:QUAT 1 1 0 0 0 0 0 1\n";
// Identity information: the upper triangle of I_6, 21 numbers.
const char kIdentity6[] = "1 0 0 0 0 0 1 0 0 0 0 1 0 0 0 1 0 0 1 0 1";

TEST(G2oReader3dTest, BadInputsNameTheLine) {
  ExpectRefused3d("3d_few_fields",
                  std::string(kVertices3d) + "VERTEX_SE3:QUAT 2 0 0 0 0 0 1\n",
                  3,
                  "VERTEX_SE3:QUAT has 7 fields after the tag, expects 8");
  ExpectRefused3d(
      "3d_zero_quaternion",
      std::string(kVertices3d) + "VERTEX_SE3:QUAT 2 0 0 0 0 0 0 0\n",
      3,
      "the quaternion has norm 0");
  ExpectRefused3d("3d_not_pd",
                  std::string(kVertices3d) +
                      "EDGE_SE3:QUAT 0 1 1 0 0 0 0 0 1 "
                      "1 0 0 0 0 0 1 0 0 0 0 1 0 0 0 1 0 0 1 0 -1\n",
                  3,
                  "is not positive definite");
  ExpectRefused3d("3d_2d_tag",
                  std::string(kVertices3d) + "VERTEX_SE2 2 0 0 0\n",
                  3,
                  "2D graph: not supported by the 3D reader");
  ExpectRefused3d("3d_nan",
                  std::string(kVertices3d) +
                      "EDGE_SE3:QUAT 0 1 nan 0 0 0 0 0 1 " + kIdentity6 + "\n",
                  3,
                  "field x is not finite");
  ExpectRefused3d("3d_missing_vertex",
                  std::string(kVertices3d) +
                      "EDGE_SE3:QUAT 0 4 1 0 0 0 0 0 1 " + kIdentity6 + "\n",
                  3,
                  "names vertex 4, which the file does not define");
  ExpectRefused3d("3d_self_edge",
                  std::string(kVertices3d) +
                      "EDGE_SE3:QUAT 1 1 1 0 0 0 0 0 1 " + kIdentity6 + "\n",
                  3,
                  "joins vertex 1 to itself");
}

TEST(G2oReader3dTest, DimensionIsTheFirstRecords) {
  EXPECT_TRUE(IsG2oFile3d(
      WriteFile("dim3", std::string("# c\nFIX 0\n") + kVertices3d)));
  EXPECT_FALSE(IsG2oFile3d(WriteFile("dim2", kVertices)));
  EXPECT_FALSE(IsG2oFile3d(::testing::TempDir() + "/g2o_reader_missing/x"));
}

// Pose 1 = (1, 2, 3), rotated by 0.4 about z; the odometry edge measures
// (1, 2, 2.5) and 0.3 about z. Pose 0 is the identity, so the position
// error is (0, 0, 0.5) and the rotation error a rotation by 0.1 about z,
// whose doubled vector part is (0, 0, 2 sin(0.05)). Pose 2 = (0, 0, 1)
// rotated by 0.2 about x; the loop closure 0 -> 2 measures (0, 0, 1) and
// no rotation, with information diag(1, 1, 1, 4, 4, 4): residual
// (0, 0, 0, 2 * 2 sin(0.1), 0, 0).
class TinyGraph3dTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string text =
        "VERTEX_SE3:QUAT 0 0 0 0 0 0 0 1\n"
        "VERTEX_SE3:QUAT 1 1 2 3 0 0 " +
        Number(std::sin(0.2)) + " " + Number(std::cos(0.2)) + "\n" +
        "VERTEX_SE3:QUAT 2 0 0 1 " + Number(std::sin(0.1)) + " 0 0 " +
        Number(std::cos(0.1)) + "\n" + "EDGE_SE3:QUAT 0 1 1 2 2.5 0 0 " +
        Number(std::sin(0.15)) + " " + Number(std::cos(0.15)) + " " +
        kIdentity6 + "\n" +
        "EDGE_SE3:QUAT 0 2 0 0 1 0 0 0 1 "
        "1 0 0 0 0 0 1 0 0 0 0 1 0 0 0 4 0 0 4 0 4\n";
    std::string error;
    graph_ = G2oPoseGraph3d::Create(WriteFile("tiny3d", text), {}, &error);
    ASSERT_NE(graph_, nullptr) << error;
  }
  static std::string Number(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.17g", value);
    return buffer;
  }
  std::unique_ptr<G2oPoseGraph3d> graph_;
};

TEST_F(TinyGraph3dTest, CostsMatchTheHandComputation) {
  EXPECT_EQ(graph_->num_poses(), 3);
  EXPECT_EQ(graph_->num_parameters(), 12);
  EXPECT_EQ(graph_->odometry.size(), 1u);
  EXPECT_EQ(graph_->loop_closures.size(), 1u);
  const double s = 2 * std::sin(0.05);
  const Eigen::Vector2d costs = graph_->Costs();
  EXPECT_NEAR(costs[0], 0.5 * (0.25 + s * s), 1e-14);
  const double r = 4 * std::sin(0.1);
  EXPECT_NEAR(costs[1], 0.5 * r * r, 1e-14);
}

// The tangent-space Jacobian Ceres evaluates against central differences
// along the manifold's Plus (the quaternion blocks move on the sphere).
TEST_F(TinyGraph3dTest, JacobianMatchesFiniteDifferencesOnTheManifold) {
  ceres::Problem::EvaluateOptions evaluate;
  evaluate.parameter_blocks = graph_->MovingParameterBlocks();
  const auto residuals_at = [&]() {
    std::vector<double> residuals;
    EXPECT_TRUE(graph_->problem.Evaluate(
        evaluate, nullptr, &residuals, nullptr, nullptr));
    return Eigen::Map<Eigen::VectorXd>(residuals.data(), residuals.size())
        .eval();
  };
  std::vector<double> residuals;
  ceres::CRSMatrix crs;
  ASSERT_TRUE(
      graph_->problem.Evaluate(evaluate, nullptr, &residuals, nullptr, &crs));
  ASSERT_EQ(crs.num_rows, 12);
  ASSERT_EQ(crs.num_cols, 12);  // 3 + 3 tangent per moving pose
  Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(12, 12);
  for (int r = 0; r < crs.num_rows; ++r) {
    for (int k = crs.rows[r]; k < crs.rows[r + 1]; ++k) {
      jacobian(r, crs.cols[k]) = crs.values[k];
    }
  }
  const ceres::EigenQuaternionManifold manifold;
  const double h = 1e-6;
  int column = 0;
  for (int i = 1; i < 3; ++i) {
    for (int k = 0; k < 3; ++k, ++column) {  // position
      double* x = graph_->position(i) + k;
      const double saved = *x;
      *x = saved + h;
      const Eigen::VectorXd plus = residuals_at();
      *x = saved - h;
      const Eigen::VectorXd minus = residuals_at();
      *x = saved;
      const Eigen::VectorXd difference = (plus - minus) / (2 * h);
      for (int r = 0; r < 12; ++r) {
        EXPECT_NEAR(jacobian(r, column), difference[r], 1e-7)
            << "row " << r << " column " << column;
      }
    }
    for (int k = 0; k < 3; ++k, ++column) {  // rotation, tangent
      double* q = graph_->rotation(i);
      double saved[4], moved[4];
      std::copy(q, q + 4, saved);
      double delta[3] = {0, 0, 0};
      delta[k] = h;
      manifold.Plus(saved, delta, moved);
      std::copy(moved, moved + 4, q);
      const Eigen::VectorXd plus = residuals_at();
      delta[k] = -h;
      manifold.Plus(saved, delta, moved);
      std::copy(moved, moved + 4, q);
      const Eigen::VectorXd minus = residuals_at();
      std::copy(saved, saved + 4, q);
      const Eigen::VectorXd difference = (plus - minus) / (2 * h);
      for (int r = 0; r < 12; ++r) {
        EXPECT_NEAR(jacobian(r, column), difference[r], 1e-7)
            << "row " << r << " column " << column;
      }
    }
  }
}

}  // namespace
}  // namespace ecmo_pipelines
