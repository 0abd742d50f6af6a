// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/types.h"

#include <algorithm>

#include "ecmo/internal/report.h"

namespace ecmo {

const char* StrategyTypeToString(StrategyType type) {
  switch (type) {
    case StrategyType::AUTOMATIC:
      return "automatic";
    case StrategyType::WC_PENALTY_PGD:
      return "wc-penalty-pgd";
    case StrategyType::WC_PENALTY_LBFGS:
      return "wc-penalty-lbfgs";
    case StrategyType::WC_AUGMENTED_LAGRANGIAN:
      return "wc-augmented-lagrangian";
    case StrategyType::WC_NEWTON:
      return "wc-newton";
    case StrategyType::WC_SQP:
      return "wc-sqp";
  }
  return "unknown";
}

std::vector<std::string> StrategyTypeNames() {
  return {StrategyTypeToString(StrategyType::AUTOMATIC),
          StrategyTypeToString(StrategyType::WC_PENALTY_PGD),
          StrategyTypeToString(StrategyType::WC_PENALTY_LBFGS),
          StrategyTypeToString(StrategyType::WC_AUGMENTED_LAGRANGIAN),
          StrategyTypeToString(StrategyType::WC_NEWTON),
          StrategyTypeToString(StrategyType::WC_SQP)};
}

bool StringToStrategyType(std::string value, StrategyType* type) {
  for (StrategyType candidate : {StrategyType::AUTOMATIC,
                                 StrategyType::WC_PENALTY_PGD,
                                 StrategyType::WC_PENALTY_LBFGS,
                                 StrategyType::WC_AUGMENTED_LAGRANGIAN,
                                 StrategyType::WC_NEWTON,
                                 StrategyType::WC_SQP}) {
    if (internal::SameEnumName(StrategyTypeToString(candidate), value)) {
      *type = candidate;
      return true;
    }
  }
  return false;
}

const char* StepRuleToString(StepRule rule) {
  switch (rule) {
    case StepRule::FIXED:
      return "fixed";
    case StepRule::BACKTRACKING:
      return "backtracking";
  }
  return "unknown";
}

bool StringToStepRule(std::string value, StepRule* rule) {
  for (StepRule candidate : {StepRule::FIXED, StepRule::BACKTRACKING}) {
    if (internal::SameEnumName(StepRuleToString(candidate), value)) {
      *rule = candidate;
      return true;
    }
  }
  return false;
}

const char* NewtonHessianTypeToString(NewtonHessianType type) {
  switch (type) {
    case NewtonHessianType::AUTOMATIC:
      return "automatic";
    case NewtonHessianType::GAUSS_NEWTON:
      return "gauss-newton";
    case NewtonHessianType::EXACT_PRODUCTS:
      return "exact-products";
  }
  return "unknown";
}

bool StringToNewtonHessianType(std::string value, NewtonHessianType* type) {
  for (NewtonHessianType candidate :
       {NewtonHessianType::AUTOMATIC, NewtonHessianType::GAUSS_NEWTON,
        NewtonHessianType::EXACT_PRODUCTS}) {
    if (internal::SameEnumName(NewtonHessianTypeToString(candidate), value)) {
      *type = candidate;
      return true;
    }
  }
  return false;
}

const char* SqpHessianTypeToString(SqpHessianType type) {
  switch (type) {
    case SqpHessianType::AUTOMATIC:
      return "automatic";
    case SqpHessianType::BFGS:
      return "bfgs";
    case SqpHessianType::EXACT_PRODUCTS:
      return "exact-products";
    case SqpHessianType::LBFGS:
      return "lbfgs";
  }
  return "unknown";
}

bool StringToSqpHessianType(std::string value, SqpHessianType* type) {
  for (SqpHessianType candidate : {SqpHessianType::AUTOMATIC,
                                   SqpHessianType::BFGS,
                                   SqpHessianType::EXACT_PRODUCTS,
                                   SqpHessianType::LBFGS}) {
    if (internal::SameEnumName(SqpHessianTypeToString(candidate), value)) {
      *type = candidate;
      return true;
    }
  }
  return false;
}

const char* NewtonLinearSolverTypeToString(NewtonLinearSolverType type) {
  switch (type) {
    case NewtonLinearSolverType::AUTOMATIC:
      return "automatic";
    case NewtonLinearSolverType::SPARSE_CHOLESKY:
      return "sparse-cholesky";
    case NewtonLinearSolverType::DENSE_CHOLESKY:
      return "dense-cholesky";
    case NewtonLinearSolverType::CONJUGATE_GRADIENTS:
      return "conjugate-gradients";
  }
  return "unknown";
}

bool StringToNewtonLinearSolverType(std::string value,
                                    NewtonLinearSolverType* type) {
  for (NewtonLinearSolverType candidate :
       {NewtonLinearSolverType::AUTOMATIC,
        NewtonLinearSolverType::SPARSE_CHOLESKY,
        NewtonLinearSolverType::DENSE_CHOLESKY,
        NewtonLinearSolverType::CONJUGATE_GRADIENTS}) {
    if (internal::SameEnumName(NewtonLinearSolverTypeToString(candidate),
                               value)) {
      *type = candidate;
      return true;
    }
  }
  return false;
}

const char* TerminationTypeName(TerminationType type) {
  return ceres::TerminationTypeToString(type);
}

bool IsSolutionUsable(TerminationType type) {
  return type == ceres::CONVERGENCE || type == ceres::NO_CONVERGENCE ||
         type == ceres::USER_SUCCESS;
}

}  // namespace ecmo
