// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Pareto sweeps (ecmo/sweep.h) over a ceres::Problem brought through
// CeresProblemAdapter (ecmo/ceres_problem_adapter.h).
//
// Several threads: each worker needs its own ceres::Problem (an adapter is
// not thread-safe, and solving moves z, which lives in the adapter's
// buffers). You write a function that builds one: the parameter blocks, the
// problem over them, and the residual-block groups that become the
// objectives and the constraints; MakeCeresProblemFactory turns it into an
// EvaluatorFactory, and each worker keeps its problem and adapter for the
// whole sweep.
//
//   std::unique_ptr<ecmo::CeresProblemInstance> BuildFit() {
//     auto fit = std::make_unique<ecmo::CeresProblemInstance>();
//     fit->blocks = {{1.0, 0.0}};                         // start point
//     fit->problem = std::make_unique<ceres::Problem>();
//     double* ab = fit->blocks[0].data();
//     ecmo::CeresProblemAdapter::ResidualGroup a{"fit_a", {}}, b{"fit_b", {}},
//         norm{"unit_norm", {}};
//     for (const Sample& s : SamplesA()) {
//       a.residual_blocks.push_back(fit->problem->AddResidualBlock(
//           new ceres::AutoDiffCostFunction<Residual, 1, 2>(new Residual(s)),
//           nullptr, ab));
//     }
//     ... b likewise, norm: one block with ||ab||^2 - 1 ...
//     fit->objectives = {a, b};
//     fit->constraints = {norm};
//     return fit;
//   }
//
//   ecmo::ParetoSweep::Options options;
//   options.num_threads = 2;
//   ecmo::ParetoSweep::Summary summary;
//   ecmo::Sweep(options, ecmo::MakeCeresProblemFactory(BuildFit),
//               ecmo::DasDennis(2, 20), &summary);
//
// One thread, your own adapter: Sweep(options, &adapter, preferences,
// &summary) below.
//
// Neither form writes a solution into the parameter blocks: every solution
// is in summary.points[i].summary.z (in the adapter's z layout; write one
// back with CeresProblemAdapter::SetParameters).

#ifndef ECMO_CERES_PROBLEM_SWEEP_H_
#define ECMO_CERES_PROBLEM_SWEEP_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ceres/problem.h"
#include "ecmo/ceres_problem_adapter.h"
#include "ecmo/sweep.h"

namespace ecmo {

// One independent ceres::Problem and the groups that make it an ECMO
// problem. Ownership: everything here is owned by the instance; members
// are destroyed in reverse order, so `problem` goes before the memory its
// parameter blocks point into (`blocks`, `storage`).
struct CeresProblemInstance {
  // Parameter blocks (one vector each), holding the start point; the
  // problem's blocks may point into them.
  std::vector<std::vector<double>> blocks;
  // Any other memory the problem points into (e.g. your own pose structs);
  // may be null.
  std::shared_ptr<void> storage;
  // The problem (required). Its ownership of cost functions, losses and
  // manifolds is as set in its ceres::Problem::Options.
  std::unique_ptr<ceres::Problem> problem;
  // Objective groups (at least one) and constraint groups, as for the
  // CeresProblemAdapter constructor.
  std::vector<CeresProblemAdapter::ResidualGroup> objectives;
  std::vector<CeresProblemAdapter::ResidualGroup> constraints;
  CeresProblemAdapter::Options adapter_options;
};

// Builds one instance; null means it failed. Must build the same problem
// (same groups, sizes and start point) on every call.
using CeresProblemBuilder =
    std::function<std::unique_ptr<CeresProblemInstance>()>;

// The EvaluatorFactory of a sweep over `build`'s problems: one adapter per
// worker over its own instance (kept alive by EvaluatorInstance::storage),
// starting from the instance's parameter values. A null instance, a null
// problem or an invalid adapter is a failed build whose message names the
// reason (CeresProblemAdapter::IsValid's message).
EvaluatorFactory MakeCeresProblemFactory(CeresProblemBuilder build);

// A sweep on one adapter, on one thread (an adapter is not thread-safe):
// Sweep(options, adapter, start, ...) of ecmo/sweep.h with the start point
// read from the user's parameter blocks. The blocks are not written. An
// invalid or null adapter gives a FAILURE summary with its message.
void Sweep(const ParetoSweep::Options& options,
           CeresProblemAdapter* adapter,
           const std::vector<std::vector<double>>& preferences,
           ParetoSweep::Summary* summary);

}  // namespace ecmo

#endif  // ECMO_CERES_PROBLEM_SWEEP_H_
