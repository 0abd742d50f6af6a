// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo INTERNAL: not part of the public API (installed because the
// adapters library shares it with the plugin).
//
// The Problem overloads of every Solve: read the start point from the
// problem's parameter blocks, solve on a ProblemEvaluator, and write the
// solution back into the blocks when the summary says it is usable.

#ifndef ECMO_INTERNAL_SOLVE_ON_PROBLEM_H_
#define ECMO_INTERNAL_SOLVE_ON_PROBLEM_H_

#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/problem.h"
#include "ecmo/types.h"

namespace ecmo {
namespace internal {

// `summary` must be reset by the caller (fields it wants in a FAILURE
// summary, such as the preference, already set). A null or invalid problem
// gives a FAILURE summary; otherwise solve(Evaluator*, Eigen::VectorXd* z)
// runs with z the start point, and z is written back when
// summary->IsSolutionUsable().
template <typename Summary, typename SolveFunction>
void SolveOnProblem(const Problem* problem,
                    Summary* summary,
                    SolveFunction&& solve) {
  std::string error;
  if (problem == nullptr || !problem->IsValid(&error)) {
    summary->termination_type = ceres::FAILURE;
    summary->message = problem == nullptr ? "ecmo::Solve: the problem is null."
                                          : "Invalid problem: " + error;
    return;
  }
  ProblemEvaluator evaluator(problem);
  Eigen::VectorXd z(problem->NumParameters());
  problem->GetParameters(z.data());
  solve(&evaluator, &z);
  // Problem::SetParameters writes the user's blocks (hence the Problem*
  // in the public overloads).
  if (summary->IsSolutionUsable()) problem->SetParameters(z.data());
}

// The whole Problem overload of a solver family X with
// Solve(const X::Options&, Evaluator*, preference, Eigen::VectorXd* z,
// X::Summary*) (found by argument-dependent lookup): resets the summary,
// records the preference and runs the evaluator overload on the problem.
template <typename Options, typename Summary>
void SolveOnProblem(const Options& options,
                    const Problem* problem,
                    const std::vector<double>& preference,
                    Summary* summary) {
  if (summary == nullptr) return;
  *summary = Summary();
  summary->preference = preference;
  SolveOnProblem(
      problem, summary, [&](Evaluator* evaluator, Eigen::VectorXd* z) {
        Solve(options, evaluator, preference, z, summary);
      });
}

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_SOLVE_ON_PROBLEM_H_
