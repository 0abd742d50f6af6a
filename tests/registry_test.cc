// Every registry problem: builds a valid problem of the advertised size, and
// its analytic Pareto point is certified by the KKT system (least-squares
// multipliers) and lies on the analytic front.

#include <cmath>
#include <string>

#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"
#include "ecmo/problems/registry.h"
#include "gtest/gtest.h"

namespace ecmo {
namespace {

TEST(Registry, NamesAreUniqueAndFindable) {
  EXPECT_NE(problems::Find("gebken_circle"), nullptr);
  EXPECT_NE(problems::Find("convex_line"), nullptr);
  EXPECT_NE(problems::Find("mtbl_example_iii"), nullptr);
  EXPECT_EQ(problems::Find("no_such_problem"), nullptr);
  EXPECT_NE(problems::ProblemNames().find("gebken_circle"), std::string::npos);
}

TEST(Registry, EveryProblemBuildsAndItsParetoPointsAreKktPoints) {
  for (const problems::ProblemInfo& info : problems::AllProblems()) {
    SCOPED_TRACE(info.name);
    auto instance = info.build();
    std::string error;
    ASSERT_TRUE(instance->problem.IsValid(&error)) << error;
    EXPECT_EQ(instance->problem.NumObjectives(), info.num_objectives);
    EXPECT_EQ(instance->problem.NumParameters(), info.num_parameters);
    EXPECT_EQ(instance->problem.NumConstraints(), info.num_constraints);
    EXPECT_FALSE(info.description.empty());
    ASSERT_TRUE(info.pareto_point);
    ProblemEvaluator evaluator(&instance->problem);
    const Eigen::VectorXd offset = Eigen::Map<const Eigen::VectorXd>(
        info.objective_offset.data(), info.num_objectives);
    for (double l1 : {0.1, 0.3, 0.5, 0.7, 0.9}) {
      const Eigen::Vector2d lambda(l1, 1.0 - l1);
      const Eigen::VectorXd z = info.pareto_point(lambda, offset);
      Eigen::VectorXd f(2), h(info.num_constraints);
      ASSERT_TRUE(evaluator.Evaluate(z.data(), f.data(), h.data(), nullptr,
                                     &error));
      EXPECT_LT(h.norm(), 1e-12);
      const double rho = lambda.cwiseProduct(f + offset).maxCoeff();
      KktSystem system;
      ASSERT_TRUE(system.Linearize(&evaluator, lambda, offset, rho, z, &error));
      const double k2 =
          system.Residual(system.LeastSquaresMultipliers()).SquaredNorm();
      EXPECT_LT(k2, 1e-20) << "lambda1 = " << l1;
      // On the analytic front: some sampled front point is within the
      // sampling resolution.
      const Eigen::MatrixXd front = info.pareto_front(20001);
      const double distance =
          (front.rowwise() - f.transpose()).rowwise().norm().minCoeff();
      EXPECT_LT(distance, 1e-3);
    }
  }
}

}  // namespace
}  // namespace ecmo
