// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: the scalarization that ecmo::Solve computed on an
// evaluator (or an ecmo::Problem), reused by later solves on it
// (Solver::Options::reuse_scalarization). Not installed.
//
// Why: a utopia reference point or a normalization costs S single-objective
// solves, each about as much as a WC point. Code that calls Solve once per
// preference paid them on every call (35-52 s of a 43-68 s point of a
// full-space bilevel problem), and since each call computed them from its
// own (warm) start, the scalarization, hence the point a preference
// selects, changed from call to call.

#ifndef ECMO_INTERNAL_SCALARIZATION_CACHE_H_
#define ECMO_INTERNAL_SCALARIZATION_CACHE_H_

#include <memory>
#include <mutex>
#include <string>

#include "Eigen/Core"
#include "ecmo/scalarization.h"
#include "ecmo/solver.h"

namespace ecmo {
namespace internal {

// What a cached scalarization was computed for: the options that define it
// (ecmo/scalarization.h), the strategy of its single-objective solves and
// the problem's sizes.
struct ScalarizationKey {
  std::vector<double> objective_offset;
  bool automatic_objective_offset = false;
  std::vector<double> reference_point;
  double utopia_margin = 0.0;
  bool normalize_objectives = false;
  std::vector<double> objective_scale;
  StrategyType strategy = StrategyType::AUTOMATIC;
  int num_parameters = 0;
  int num_objectives = 0;
  int num_constraints = 0;
  int num_inequality_constraints = 0;

  static ScalarizationKey Of(const Solver::Options& options,
                             const Evaluator& evaluator);
  bool operator==(const ScalarizationKey& other) const;
};

// Shared by an ecmo::Problem and the evaluators Solve builds on it (one per
// call), or owned by one evaluator. Locked: the evaluators of one Problem
// may live on several threads.
class ScalarizationCache {
 public:
  // The scalarization stored under `key`, or null.
  std::shared_ptr<const Scalarization> Find(const ScalarizationKey& key) const;
  void Store(const ScalarizationKey& key, const Scalarization& scalarization);
  void Clear();

 private:
  mutable std::mutex mutex_;
  ScalarizationKey key_;
  std::shared_ptr<const Scalarization> value_;
};

// The scalarization Solve uses when none is given: the cached one when
// options.reuse_scalarization and it was computed for the same key (marked
// Scalarization::reused), else ComputeScalarization at z, stored for the
// next call when it needed single-objective solves.
bool FindOrComputeScalarization(const Solver::Options& options,
                                Evaluator* evaluator,
                                const Eigen::VectorXd& z,
                                Scalarization* scalarization,
                                std::string* error);

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_INTERNAL_SCALARIZATION_CACHE_H_
