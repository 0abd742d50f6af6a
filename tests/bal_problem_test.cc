// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
//
// The BAL reader of examples/pipelines/ (bal_problem.h): every kind of bad
// input is refused with a message that names the file and the line at
// fault; the problem it builds has the costs of Snavely's projection
// computed here by hand (Eigen's angle-axis, not Ceres' rotation code); a
// written file reads back to the same doubles; and the generated scene
// written as BAL data has the generated problem's costs.

#include "bal_problem.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Geometry"
#include "ceres/solver.h"
#include "ecmo/problems/bundle_adjustment.h"
#include "gtest/gtest.h"
#include "test_files.h"

namespace ecmo_pipelines {
namespace {

std::string BalPath(const std::string& name) {
  return ::testing::TempDir() + "/bal_reader_" + name;
}

// Two cameras, two points, every camera seeing every point: what the bad
// inputs are made from. Cameras look down -z (Snavely), so the points sit
// at z < 0 in the cameras' frames.
const char kHeader[] = "2 2 4\n";
const char kObservations[] =
    "0 0 10.5 -3.25\n"
    "0 1 -7 4\n"
    "1 0 2 2\n"
    "1 1 0.5 -1\n";
const char kCameras[] =
    "0.01\n-0.02\n0.03\n0.1\n-0.2\n0.3\n500\n-0.1\n0.05\n"
    "0.2 0.1 -0.05 1 0.5 -0.25 450 0.02 -0.01\n";
const char kPoints[] = "0.5 -0.25 -5\n-0.75 0.4 -6\n";

std::string Scene() {
  return std::string(kHeader) + kObservations + kCameras + kPoints;
}

// Reads `text` and expects a refusal whose message starts with
// "path:line: " (or "path: " for line 0) and contains `what`.
void ExpectBalRefused(const std::string& name,
                   const std::string& text,
                   int line,
                   const std::string& what) {
  SCOPED_TRACE(name);
  const std::string path = BalPath(name);
  ecmo::testing::WriteText(path, text);
  BalData data;
  std::string error;
  EXPECT_FALSE(ReadBalFile(path, &data, &error));
  const std::string prefix =
      path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": ";
  EXPECT_EQ(error.rfind(prefix, 0), 0u) << error;
  EXPECT_NE(error.find(what), std::string::npos) << error;
  // The problem's factory refuses the same file with the same message.
  std::string create_error;
  EXPECT_EQ(BalProblem::Create(path, {}, &create_error), nullptr);
  EXPECT_EQ(create_error, error);
}

TEST(BalReaderTest, BadInputsNameTheLine) {
  ExpectBalRefused("header_word", "two 2 4\n" + Scene().substr(6), 1,
                "num_cameras is not an integer: 'two'");
  ExpectBalRefused("one_camera", "1 2 4\n" + Scene().substr(6), 1,
                "num_cameras is 1, outside [2, ");
  ExpectBalRefused("camera_index",
                std::string(kHeader) + "0 0 1 2\n0 1 1 2\n3 0 1 2\n", 4,
                "observation 2 camera index is 3, outside [0, 2)");
  ExpectBalRefused("point_index",
                std::string(kHeader) + "0 0 1 2\n0 -1 1 2\n", 3,
                "observation 1 point index is -1, outside [0, 2)");
  ExpectBalRefused("nan_pixel",
                std::string(kHeader) + "0 0 1 2\n0 1 nan 2\n", 3,
                "observation 1 x is not finite: 'nan'");
  ExpectBalRefused("word_pixel",
                std::string(kHeader) + "0 0 1 2\n0 1 1 2px\n", 3,
                "observation 1 y is not a number: '2px'");
  // A comment line still counts as a line.
  ExpectBalRefused("comment_then_infinity",
                std::string("# scene\n") + kHeader + kObservations +
                    "0.01 -0.02 0.03 0.1 -0.2 0.3 inf -0.1 0.05\n",
                7, "camera 0 f is not finite: 'inf'");
  ExpectBalRefused("negative_focal",
                std::string(kHeader) + kObservations +
                    "0 0 0 0 0 0 -500 0 0\n",
                6, "camera 0 f (the focal length) is -500, not positive");
  ExpectBalRefused("ends_in_cameras",
                std::string(kHeader) + kObservations + "0 0 0 0 0 0 500 0 0\n1",
                7, "the file ends early, at camera 1 ry (the cameras: 1 of 2 read)");
  ExpectBalRefused("ends_in_observations", std::string(kHeader) + "0 0 1 2\n", 2,
                "the file ends early, at observation 1 camera index (the "
                "observations: 1 of 4 read)");
  // Camera 0 takes one line per value (lines 6-14), as the data sets
  // write them; camera 1 is line 15, the points 16 and 17.
  ExpectBalRefused("extra_value", Scene() + "\n7\n", 19,
                "a value after the last point: '7' (the header promises 2 "
                "cameras, 2 points and 4 observations)");
  // Point 1 at the origin and camera 1 unrotated with t_z = 0: the point
  // is in the camera's plane at the start.
  ExpectBalRefused("depth_zero",
                std::string(kHeader) + kObservations +
                    "0.01 -0.02 0.03 0.1 -0.2 0.3 500 -0.1 0.05\n"
                    "0 0 0 1 0.5 0 450 0 0\n0.5 -0.25 -5\n0 0 0\n",
                5, "observation 3 (camera 1, point 1): the point is in the "
                   "camera's plane");
  ExpectBalRefused("empty", "", 0, "the file ends early, at num_cameras");
}

TEST(BalReaderTest, UnobservedCameraOrPointIsRefused) {
  // Three cameras, camera 2 in no observation.
  ExpectBalRefused("unseen_camera",
                std::string("3 2 4\n") + kObservations + kCameras +
                    "0 0 0 0 0 0 500 0 0\n" + kPoints,
                0, "camera 2 is in no observation");
  ExpectBalRefused("unseen_point",
                std::string("2 3 4\n") + kObservations + kCameras + kPoints +
                    "1 1 -4\n",
                0, "point 2 is in no observation");
}

TEST(BalReaderTest, UnreadablePathsSayWhy) {
  BalData data;
  std::string error;
  EXPECT_FALSE(ReadBalFile(BalPath("does_not_exist"), &data, &error));
  EXPECT_NE(error.find("cannot open the file for reading"), std::string::npos)
      << error;
  EXPECT_FALSE(ReadBalFile(::testing::TempDir(), &data, &error));
  EXPECT_NE(error.find("is a directory, not a BAL file"), std::string::npos)
      << error;
}

// Snavely's projection written out with Eigen: R from the angle-axis
// vector, P = R X + t, p = -P_xy / P_z, pixel = f (1 + k1 |p|^2 +
// k2 |p|^4) p.
Eigen::Vector2d Residual(const double* camera,
                         const double* point,
                         const Eigen::Vector2d& observed) {
  const Eigen::Vector3d w(camera[0], camera[1], camera[2]);
  const Eigen::Matrix3d r =
      Eigen::AngleAxisd(w.norm(), w.normalized()).toRotationMatrix();
  const Eigen::Vector3d p =
      r * Eigen::Vector3d(point[0], point[1], point[2]) +
      Eigen::Vector3d(camera[3], camera[4], camera[5]);
  const Eigen::Vector2d xy = -p.head<2>() / p[2];
  const double r2 = xy.squaredNorm();
  return camera[6] * (1.0 + camera[7] * r2 + camera[8] * r2 * r2) * xy -
         observed;
}

TEST(BalProblemTest, CostsMatchTheHandComputation) {
  const std::string path = BalPath("scene");
  ecmo::testing::WriteText(path, Scene());
  for (const double huber : {0.0, 3.0}) {
    SCOPED_TRACE(huber);
    BalProblem::Options options;
    options.huber_scale = huber;
    std::string error;
    std::unique_ptr<BalProblem> bal = BalProblem::Create(path, options, &error);
    ASSERT_NE(bal, nullptr) << error;
    EXPECT_EQ(bal->num_cameras(), 2);
    EXPECT_EQ(bal->num_points(), 2);
    EXPECT_EQ(bal->num_observations(), 4);
    EXPECT_EQ(bal->num_parameters(), 9 + 3);
    EXPECT_TRUE(bal->problem.IsParameterBlockConstant(bal->camera(0)));
    EXPECT_TRUE(bal->problem.IsParameterBlockConstant(bal->point(0)));
    EXPECT_FALSE(bal->problem.IsParameterBlockConstant(bal->camera(1)));
    Eigen::Vector2d expected(0.0, 0.0);
    for (const BalData::Observation& o : bal->data().observations) {
      const double s =
          Residual(bal->camera(o.camera), bal->point(o.point), o.pixel)
              .squaredNorm();
      // Ceres' Huber loss: rho(s) = s for s <= d^2, 2 d sqrt(s) - d^2 above.
      const double rho = huber == 0.0 || s <= huber * huber
                             ? s
                             : 2.0 * huber * std::sqrt(s) - huber * huber;
      expected[o.camera < 1 ? 0 : 1] += 0.5 * rho;
    }
    const Eigen::Vector2d costs = bal->Costs();
    EXPECT_NEAR(costs[0], expected[0], 1e-12 * expected[0]);
    EXPECT_NEAR(costs[1], expected[1], 1e-12 * expected[1]);
    // The group weights scale the problem's cost, not Costs().
    options.group_a_weight = 3.0;
    options.group_b_weight = 0.5;
    std::unique_ptr<BalProblem> weighted =
        BalProblem::Create(bal->data(), options, &error);
    ASSERT_NE(weighted, nullptr) << error;
    EXPECT_NEAR(weighted->Costs()[0], expected[0], 1e-12 * expected[0]);
    double total = 0.0;
    weighted->problem.Evaluate({}, &total, nullptr, nullptr, nullptr);
    EXPECT_NEAR(total, 3.0 * expected[0] + 0.5 * expected[1],
                1e-12 * total);
  }
}

TEST(BalProblemTest, WrittenFileReadsBackToTheSameDoubles) {
  const std::string path = BalPath("scene_in");
  ecmo::testing::WriteText(path, Scene());
  BalData data, again;
  std::string error;
  ASSERT_TRUE(ReadBalFile(path, &data, &error)) << error;
  const std::string copy = BalPath("scene_out");
  ASSERT_TRUE(WriteBalFile(copy, data, &error)) << error;
  ASSERT_TRUE(ReadBalFile(copy, &again, &error)) << error;
  EXPECT_EQ(again.cameras, data.cameras);
  EXPECT_EQ(again.points, data.points);
  ASSERT_EQ(again.observations.size(), data.observations.size());
  for (size_t i = 0; i < data.observations.size(); ++i) {
    EXPECT_EQ(again.observations[i].camera, data.observations[i].camera);
    EXPECT_EQ(again.observations[i].point, data.observations[i].point);
    EXPECT_EQ(again.observations[i].pixel, data.observations[i].pixel);
  }
  EXPECT_FALSE(WriteBalFile(::testing::TempDir() + "/no/such/dir/x.bal",
                            data, &error));
  EXPECT_FALSE(error.empty());
}

// The generated scene as BAL data has the generated problem's costs, at
// its start and after a few Levenberg-Marquardt steps have moved every
// camera and point (the sign convention and the camera layout, checked
// against an independent model).
TEST(BalProblemTest, GeneratedSceneHasTheGeneratedCosts) {
  ecmo::problems::BundleAdjustment::Options options;
  options.num_cameras = 4;
  options.num_points = 12;
  options.start_rotation_noise *= 10.0;
  options.start_point_noise *= 10.0;
  std::string error;
  std::unique_ptr<ecmo::problems::BundleAdjustment> scene =
      ecmo::problems::BundleAdjustment::Create(options, &error);
  ASSERT_NE(scene, nullptr) << error;
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    const Eigen::Vector2d generated = scene->Costs();
    std::unique_ptr<BalProblem> bal =
        BalProblem::Create(BalDataFromScene(scene.get()), {}, &error);
    ASSERT_NE(bal, nullptr) << error;
    EXPECT_EQ(bal->num_observations(), 4 * 12);
    const Eigen::Vector2d costs = bal->Costs();
    EXPECT_NEAR(costs[0], generated[0], 1e-10 * generated[0]);
    EXPECT_NEAR(costs[1], generated[1], 1e-10 * generated[1]);
    ceres::Solver::Options steps;
    steps.max_num_iterations = 3;
    ceres::Solver::Summary summary;
    ceres::Solve(steps, &scene->problem, &summary);
    ASSERT_LT(scene->Costs().sum(), generated.sum());
  }
}

}  // namespace
}  // namespace ecmo_pipelines
