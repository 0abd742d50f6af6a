// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: ComputeScalarization with its single-objective
// solves spread over several threads. Not installed.

#ifndef ECMO_SCALARIZATION_INTERNAL_H_
#define ECMO_SCALARIZATION_INTERNAL_H_

#include <functional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/scalarization.h"
#include "ecmo/solver.h"

namespace ecmo {
namespace internal {

// Runs body(i, t) for i = 0 .. n - 1 on threads t = 0 .. (at most
// evaluators.size() - 1) and returns when all have returned; t = 0 is the
// calling thread. Gate::Share is one.
using ParallelFor =
    std::function<void(int n, const std::function<void(int i, int t)>& body)>;

// True when ComputeScalarization runs the S single-objective solves for
// these options (the utopia point, or the normalization without given
// scales); false when the scalarization follows from the options alone.
bool NeedsSingleObjectiveSolves(const Solver::Options& options,
                                int num_objectives);

// False with a message naming the field when objective_offset,
// reference_point or objective_scale is neither empty nor of size
// num_objectives. Checked before any entry is read (IsValid cannot: it
// does not know S).
bool CheckScalarizationSizes(const Solver::Options& options,
                             int num_objectives,
                             std::string* error);

// ecmo::ComputeScalarization (ecmo/solver.h) with the payoff table's S
// single-objective solves run through parallel_for: solve s on
// evaluators[t] for the thread t that claims it. Why: they are independent
// and each costs about as much as a point, and a sweep's other threads
// would otherwise wait for them (ecmo_mtbl's utopia point: S training
// runs). Every evaluator must evaluate the same problem (built by the same
// factory), evaluators[t] is used by thread t only, and the result is the
// one-thread result whichever thread solves which objective; the start
// point is evaluated on evaluators[0]. Not owned. Evaluation counts are
// summed over the evaluators. An empty parallel_for runs every solve on
// evaluators[0], as ecmo::ComputeScalarization does.
bool ComputeScalarization(const Solver::Options& options,
                          const std::vector<Evaluator*>& evaluators,
                          const ParallelFor& parallel_for,
                          const Eigen::VectorXd& z,
                          Scalarization* scalarization,
                          std::string* error);

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_SCALARIZATION_INTERNAL_H_
