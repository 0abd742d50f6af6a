// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).

#include "scalarization_cache.h"

#include <utility>

#include "ecmo/evaluator.h"
#include "scalarization_internal.h"

namespace ecmo {
namespace internal {

ScalarizationKey ScalarizationKey::Of(const Solver::Options& options,
                                      const Evaluator& evaluator) {
  ScalarizationKey key;
  key.objective_offset = options.objective_offset;
  key.automatic_objective_offset = options.automatic_objective_offset;
  key.reference_point = options.reference_point;
  key.utopia_margin = options.utopia_margin;
  key.normalize_objectives = options.normalize_objectives;
  key.objective_scale = options.objective_scale;
  key.strategy = options.strategy;
  key.num_parameters = evaluator.NumParameters();
  key.num_objectives = evaluator.NumObjectives();
  key.num_constraints = evaluator.NumConstraints();
  key.num_inequality_constraints = evaluator.NumInequalityConstraints();
  return key;
}

bool ScalarizationKey::operator==(const ScalarizationKey& o) const {
  return objective_offset == o.objective_offset &&
         automatic_objective_offset == o.automatic_objective_offset &&
         reference_point == o.reference_point &&
         utopia_margin == o.utopia_margin &&
         normalize_objectives == o.normalize_objectives &&
         objective_scale == o.objective_scale && strategy == o.strategy &&
         num_parameters == o.num_parameters &&
         num_objectives == o.num_objectives &&
         num_constraints == o.num_constraints &&
         num_inequality_constraints == o.num_inequality_constraints;
}

std::shared_ptr<const Scalarization> ScalarizationCache::Find(
    const ScalarizationKey& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (value_ == nullptr || !(key_ == key)) return nullptr;
  return value_;
}

void ScalarizationCache::Store(const ScalarizationKey& key,
                               const Scalarization& scalarization) {
  auto value = std::make_shared<const Scalarization>(scalarization);
  std::lock_guard<std::mutex> lock(mutex_);
  key_ = key;
  value_ = std::move(value);
}

void ScalarizationCache::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  value_.reset();
}

bool FindOrComputeScalarization(const Solver::Options& options,
                                Evaluator* evaluator,
                                const Eigen::VectorXd& z,
                                Scalarization* scalarization,
                                std::string* error) {
  // Scalarizations that follow from the options alone are cheaper to
  // compute than to look up, and do not depend on z.
  if (!options.reuse_scalarization ||
      !NeedsSingleObjectiveSolves(options, evaluator->NumObjectives())) {
    return ComputeScalarization(options, evaluator, z, scalarization, error);
  }
  ScalarizationCache* cache = evaluator->scalarization_cache();
  const ScalarizationKey key = ScalarizationKey::Of(options, *evaluator);
  if (std::shared_ptr<const Scalarization> found = cache->Find(key)) {
    *scalarization = *found;
    scalarization->reused = true;
    return true;
  }
  if (!ComputeScalarization(options, evaluator, z, scalarization, error)) {
    return false;
  }
  cache->Store(key, *scalarization);
  return true;
}

}  // namespace internal
}  // namespace ecmo
