// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/types.h"

#include <algorithm>
#include <cctype>

namespace ecmo {
namespace {

// Upper-cases and maps '-' to '_' so "wc-penalty-pgd" == "WC_PENALTY_PGD".
std::string Canonical(std::string value) {
  for (char& c : value) {
    c = (c == '-') ? '_' : static_cast<char>(std::toupper(c));
  }
  return value;
}

}  // namespace

const char* StrategyTypeToString(StrategyType type) {
  switch (type) {
    case StrategyType::WC_PENALTY_PGD:
      return "wc-penalty-pgd";
    case StrategyType::WC_PENALTY_LBFGS:
      return "wc-penalty-lbfgs";
    case StrategyType::WC_AUGMENTED_LAGRANGIAN:
      return "wc-augmented-lagrangian";
  }
  return "unknown";
}

std::vector<std::string> StrategyTypeNames() {
  return {StrategyTypeToString(StrategyType::WC_PENALTY_PGD),
          StrategyTypeToString(StrategyType::WC_PENALTY_LBFGS),
          StrategyTypeToString(StrategyType::WC_AUGMENTED_LAGRANGIAN)};
}

bool StringToStrategyType(std::string value, StrategyType* type) {
  const std::string canonical = Canonical(value);
  for (StrategyType candidate : {StrategyType::WC_PENALTY_PGD,
                                 StrategyType::WC_PENALTY_LBFGS,
                                 StrategyType::WC_AUGMENTED_LAGRANGIAN}) {
    if (Canonical(StrategyTypeToString(candidate)) == canonical) {
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
  const std::string canonical = Canonical(value);
  for (StepRule candidate : {StepRule::FIXED, StepRule::BACKTRACKING}) {
    if (Canonical(StepRuleToString(candidate)) == canonical) {
      *rule = candidate;
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
