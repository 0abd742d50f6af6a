// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Reading saved results back (resumed sweeps, plots): SummaryFromJson,
// ScalarizationFromJson, JSON-lines and result files. The writers are in
// result_writer.cc.

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <new>
#include <sstream>
#include <vector>

#include "ecmo/internal/report.h"
#include "ecmo/result_writer.h"

namespace ecmo {

// ------------------------------------------------------------- reading --

namespace {

using internal::kNaN;

// Reads j[key] as a double: numbers as they are, null as NaN. A missing key
// leaves *out unchanged. False when the value has another type.
bool ReadDouble(const nlohmann::json& j,
                const char* key,
                double* out,
                std::string* error) {
  const auto it = j.find(key);
  if (it == j.end()) return true;
  if (it->is_null()) {
    *out = kNaN;
    return true;
  }
  if (!it->is_number()) {
    *error = std::string("\"") + key + "\" is not a number";
    return false;
  }
  *out = it->get<double>();
  return true;
}

template <typename Int>
bool ReadInt(const nlohmann::json& j,
             const char* key,
             Int* out,
             std::string* error) {
  const auto it = j.find(key);
  if (it == j.end()) return true;
  if (!it->is_number()) {
    *error = std::string("\"") + key + "\" is not a number";
    return false;
  }
  // Converting a double outside Int's range is undefined behaviour (1e300
  // iterations read back as -2147483648): refuse it instead.
  const double value = it->get<double>();
  if (!(value >= static_cast<double>(std::numeric_limits<Int>::min()) &&
        value < static_cast<double>(std::numeric_limits<Int>::max()) + 1.0) ||
      value != std::floor(value)) {
    std::ostringstream os;
    os << "\"" << key << "\" = " << value << " is not an integer in ["
       << std::numeric_limits<Int>::min() << ", "
       << std::numeric_limits<Int>::max() << "]";
    *error = os.str();
    return false;
  }
  *out = static_cast<Int>(value);
  return true;
}

bool ReadString(const nlohmann::json& j,
                const char* key,
                std::string* out,
                std::string* error) {
  const auto it = j.find(key);
  if (it == j.end()) return true;
  if (!it->is_string()) {
    *error = std::string("\"") + key + "\" is not a string";
    return false;
  }
  *out = it->get<std::string>();
  return true;
}

// Reads an array of numbers (null entries as NaN).
bool ReadArray(const nlohmann::json& j,
               const char* key,
               std::vector<double>* out,
               std::string* error) {
  const auto it = j.find(key);
  if (it == j.end()) return true;
  if (!it->is_array()) {
    *error = std::string("\"") + key + "\" is not an array";
    return false;
  }
  out->clear();
  for (const nlohmann::json& v : *it) {
    if (v.is_null()) {
      out->push_back(kNaN);
    } else if (v.is_number()) {
      out->push_back(v.get<double>());
    } else {
      *error = std::string("\"") + key + "\" has a non-numeric entry";
      return false;
    }
  }
  return true;
}

bool ReadVector(const nlohmann::json& j,
                const char* key,
                Eigen::VectorXd* out,
                std::string* error) {
  if (j.find(key) == j.end()) return true;
  std::vector<double> v;
  if (!ReadArray(j, key, &v, error)) return false;
  *out = Eigen::Map<const Eigen::VectorXd>(v.data(), v.size());
  return true;
}

bool ReadBlocks(const nlohmann::json& kkt,
                const char* key,
                KktResidual* out,
                std::string* error) {
  const auto it = kkt.find(key);
  if (it == kkt.end()) return true;
  if (!it->is_object()) {
    *error = std::string("\"kkt.") + key + "\" is not an object";
    return false;
  }
  double simplex = 0.0, stationarity = 0.0, feasibility = 0.0,
         complementarity = 0.0, constraint_complementarity = 0.0;
  if (!ReadDouble(*it, "simplex_sq", &simplex, error) ||
      !ReadDouble(*it, "stationarity_sq", &stationarity, error) ||
      !ReadDouble(*it, "feasibility_sq", &feasibility, error) ||
      !ReadDouble(*it, "complementarity_sq", &complementarity, error) ||
      !ReadDouble(*it,
                  "constraint_complementarity_sq",
                  &constraint_complementarity,
                  error)) {
    return false;
  }
  // The squared norms exactly as written, as a finished point of a sweep
  // keeps them (KktResidual::KeepNormsOnly): a resumed point's ||K||^2 is
  // the one the original run computed, to the bit. The blocks are not in
  // the file. (Files from before inequality constraints have 0 for their
  // block.) A negative value counts as 0; a null (NaN: the point was
  // never scored) makes ||K||^2 NaN, as it was when written.
  const auto clamp = [](double v) { return v > 0.0 ? v : 0.0; };
  *out = KktResidual();
  const bool known = !std::isnan(simplex) && !std::isnan(stationarity) &&
                     !std::isnan(feasibility) && !std::isnan(complementarity) &&
                     !std::isnan(constraint_complementarity);
  out->simplex = known ? std::sqrt(clamp(simplex)) : kNaN;
  if (known) out->kept_squared_norms.simplex = clamp(simplex);
  out->kept_squared_norms.stationarity = clamp(stationarity);
  out->kept_squared_norms.feasibility = clamp(feasibility);
  out->kept_squared_norms.complementarity = clamp(complementarity);
  out->kept_squared_norms.constraint_complementarity =
      clamp(constraint_complementarity);
  return true;
}

bool TerminationFromName(const std::string& name, TerminationType* type) {
  for (TerminationType t : {ceres::CONVERGENCE,
                            ceres::NO_CONVERGENCE,
                            ceres::FAILURE,
                            ceres::USER_SUCCESS,
                            ceres::USER_FAILURE}) {
    if (name == TerminationTypeName(t)) {
      *type = t;
      return true;
    }
  }
  return false;
}

bool ReadCertificate(const nlohmann::json& kkt,
                     const char* key,
                     KktCertificate* out,
                     std::string* error) {
  const auto it = kkt.find(key);
  if (it == kkt.end()) return true;
  if (!it->is_object()) {
    *error = std::string("\"kkt.") + key + "\" is not an object";
    return false;
  }
  return ReadDouble(*it, "simplex", &out->simplex, error) &&
         ReadDouble(*it, "stationarity", &out->stationarity, error) &&
         ReadDouble(*it, "stationarity_scale", &out->stationarity_scale,
                    error) &&
         ReadDouble(*it, "model_decrease", &out->model_decrease, error) &&
         ReadDouble(*it, "complementarity", &out->complementarity, error) &&
         ReadDouble(*it, "value_scale", &out->value_scale, error) &&
         ReadDouble(*it, "feasibility", &out->feasibility, error);
}

bool SummaryFromJsonImpl(const nlohmann::json& j,
                         Solver::Summary* s,
                         std::string* error) {
  if (!j.is_object()) {
    *error = "not a JSON object";
    return false;
  }
  for (const char* key : {"termination", "z", "objectives", "preference"}) {
    if (j.find(key) == j.end()) {
      *error = std::string("missing key \"") + key + "\"";
      return false;
    }
  }
  std::string text;
  if (!ReadString(j, "strategy", &text, error)) return false;
  if (!text.empty() && !StringToStrategyType(text, &s->strategy)) {
    *error = "unknown strategy \"" + text + "\"";
    return false;
  }
  text.clear();
  if (!ReadString(j, "termination", &text, error)) return false;
  if (!TerminationFromName(text, &s->termination_type)) {
    *error = "unknown termination \"" + text + "\"";
    return false;
  }
  if (!ReadString(j, "message", &s->message, error) ||
      !ReadString(j, "strategy_choice", &s->strategy_choice, error) ||
      !ReadArray(j, "preference", &s->preference, error) ||
      !ReadArray(j, "objective_offset", &s->objective_offset_used, error) ||
      !ReadInt(j, "iterations", &s->iterations, error) ||
      !ReadInt(j,
               "objective_evaluations",
               &s->evaluations.value_evaluations,
               error) ||
      !ReadInt(j,
               "gradient_evaluations",
               &s->evaluations.gradient_evaluations,
               error) ||
      !ReadDouble(j, "wall_time_seconds", &s->total_time_in_seconds, error) ||
      !ReadDouble(j, "rho", &s->final_rho, error) ||
      !ReadVector(j, "z", &s->z, error) ||
      !ReadVector(j, "objectives", &s->objectives, error) ||
      !ReadDouble(j, "constraint_norm", &s->constraint_norm, error)) {
    return false;
  }
  s->num_objectives = static_cast<int>(s->preference.size());
  s->num_parameters = static_cast<int>(s->z.size());
  const auto kkt = j.find("kkt");
  if (kkt != j.end()) {
    if (!kkt->is_object()) {
      *error = "\"kkt\" is not an object";
      return false;
    }
    if (!ReadDouble(
            *kkt, "average_residual_sq", &s->average_kkt_residual_sq, error) ||
        !ReadBlocks(*kkt, "blocks", &s->kkt.with_solver_multipliers, error) ||
        !ReadBlocks(*kkt,
                    "blocks_least_squares",
                    &s->kkt.with_least_squares_multipliers,
                    error) ||
        !ReadVector(*kkt, "omega", &s->kkt.solver_multipliers.omega, error) ||
        !ReadVector(*kkt, "nu", &s->kkt.solver_multipliers.nu, error) ||
        !ReadVector(*kkt,
                    "omega_least_squares",
                    &s->kkt.least_squares_multipliers.omega,
                    error) ||
        !ReadVector(*kkt,
                    "nu_least_squares",
                    &s->kkt.least_squares_multipliers.nu,
                    error) ||
        !ReadVector(*kkt,
                    "bound_lower",
                    &s->kkt.solver_multipliers.bound_lower,
                    error) ||
        !ReadVector(*kkt,
                    "bound_upper",
                    &s->kkt.solver_multipliers.bound_upper,
                    error) ||
        !ReadVector(*kkt,
                    "bound_lower_least_squares",
                    &s->kkt.least_squares_multipliers.bound_lower,
                    error) ||
        !ReadVector(*kkt,
                    "bound_upper_least_squares",
                    &s->kkt.least_squares_multipliers.bound_upper,
                    error)) {
      return false;
    }
    s->num_constraints =
        static_cast<int>(s->kkt.least_squares_multipliers.nu.size());
    // Files written before the certificate was measured at the point
    // carry "objective_scale" instead of "stationarity_floor": their
    // certificates are read as they were written.
    s->kkt.has_certificates = kkt->find("certificate") != kkt->end();
    if (!ReadDouble(*kkt,
                    "stationarity_floor",
                    &s->kkt.stationarity_floor,
                    error) ||
        !ReadCertificate(*kkt,
                         "certificate",
                         &s->kkt.certificate_with_solver_multipliers,
                         error) ||
        !ReadCertificate(*kkt,
                         "certificate_least_squares",
                         &s->kkt.certificate_with_least_squares_multipliers,
                         error)) {
      return false;
    }
  }
  if (!ReadDouble(j, "constraint_max_norm", &s->constraint_max_norm, error)) {
    return false;
  }
  const auto scalarization = j.find("scalarization");
  if (scalarization != j.end() &&
      !ScalarizationFromJson(*scalarization, &s->scalarization, error)) {
    return false;
  }
  const auto schedule = j.find("schedule");
  if (schedule != j.end() && schedule->is_object()) {
    text.clear();
    if (!ReadString(*schedule, "step_rule", &text, error)) return false;
    if (!text.empty()) StringToStepRule(text, &s->step_rule);
    if (!ReadDouble(*schedule, "eta", &s->eta, error) ||
        !ReadDouble(*schedule, "u", &s->penalty_u, error) ||
        !ReadDouble(*schedule, "v", &s->penalty_v, error) ||
        !ReadInt(
            *schedule, "shortened_steps", &s->num_shortened_steps, error)) {
      return false;
    }
  }
  const auto qn = j.find("quasi_newton");
  if (qn != j.end() && qn->is_object()) {
    if (!ReadInt(*qn, "inner_iterations", &s->inner_iterations, error) ||
        !ReadInt(*qn, "penalty_increases", &s->num_penalty_increases, error) ||
        !ReadDouble(*qn, "u", &s->penalty_u, error) ||
        !ReadDouble(*qn, "v", &s->penalty_v, error) ||
        !ReadString(*qn, "certified_by", &s->certified_by, error) ||
        !ReadString(*qn, "inner_message", &s->inner_message, error) ||
        !ReadInt(*qn, "shortened_steps", &s->num_shortened_steps, error)) {
      return false;
    }
  }
  const auto history = j.find("history");
  if (history != j.end()) {
    if (!history->is_object()) {
      *error = "\"history\" is not an object";
      return false;
    }
    std::vector<double> iteration, kkt_sq, average, constraint, rho, penalty,
        gradients, time;
    if (!ReadArray(*history, "iteration", &iteration, error) ||
        !ReadArray(*history, "kkt_residual_sq", &kkt_sq, error) ||
        !ReadArray(*history, "average_kkt_residual_sq", &average, error) ||
        !ReadArray(*history, "constraint_norm", &constraint, error) ||
        !ReadArray(*history, "rho", &rho, error) ||
        !ReadArray(*history, "penalty", &penalty, error) ||
        !ReadArray(*history, "gradient_evaluations", &gradients, error) ||
        !ReadArray(*history, "time_seconds", &time, error)) {
      return false;
    }
    auto at = [](const std::vector<double>& v, size_t i) {
      return i < v.size() ? v[i] : 0.0;
    };
    s->history.resize(iteration.size());
    for (size_t i = 0; i < iteration.size(); ++i) {
      IterationSummary& it = s->history[i];
      it.iteration = static_cast<int>(iteration[i]);
      it.kkt_residual_sq = at(kkt_sq, i);
      it.average_kkt_residual_sq = at(average, i);
      it.constraint_norm = at(constraint, i);
      it.rho = at(rho, i);
      it.penalty = at(penalty, i);
      it.gradient_evaluations = static_cast<int64_t>(at(gradients, i));
      it.cumulative_time_in_seconds = at(time, i);
    }
  }
  return true;
}

}  // namespace

bool SummaryFromJson(const nlohmann::json& json,
                     Solver::Summary* summary,
                     std::string* error) {
  Solver::Summary s;
  std::string message;
  if (!SummaryFromJsonImpl(json, &s, &message)) {
    if (error != nullptr) *error = message;
    return false;
  }
  *summary = std::move(s);
  return true;
}

namespace {

// "N bytes" with a binary unit when round.
std::string Bytes(int64_t n) {
  if (n >= (int64_t{1} << 30) && n % (int64_t{1} << 30) == 0) {
    return std::to_string(n >> 30) + " GiB";
  }
  if (n >= (int64_t{1} << 20) && n % (int64_t{1} << 20) == 0) {
    return std::to_string(n >> 20) + " MiB";
  }
  return std::to_string(n) + " bytes";
}

// The deepest nesting of arrays and objects in `text` (brackets inside
// strings do not count); stops counting once past `limit`.
int JsonDepth(const std::string& text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

bool ReadFileText(const std::string& path,
                  const JsonReadLimits& limits,
                  std::string* text,
                  std::string* error) {
  auto fail = [&](const std::string& message) {
    if (error != nullptr) *error = path + ": " + message;
    text->clear();
    return false;
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot open the file");
  text->clear();
  // A regular file is refused by its size before any of it is read; a
  // stream (a pipe, a device such as /dev/zero) is read up to 64 MiB.
  int64_t limit = limits.max_file_bytes;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      limit = std::min<int64_t>(limit, int64_t{64} << 20);
    } else if (static_cast<int64_t>(st.st_size) > limit) {
      return fail("its " + Bytes(st.st_size) + " exceed the limit of " +
                  Bytes(limit) +
                  " for a result or JSON-lines file (JsonReadLimits::"
                  "max_file_bytes); is it the right file?");
    }
  }
  try {
    char buffer[1 << 16];
    while (in) {
      in.read(buffer, sizeof(buffer));
      const std::streamsize n = in.gcount();
      if (n <= 0) break;
      if (static_cast<int64_t>(text->size()) + n > limit) {
        return fail("longer than the limit of " + Bytes(limit) +
                    " for a result or JSON-lines file (JsonReadLimits::"
                    "max_file_bytes; 64 MiB from a pipe or device); is it "
                    "the right file?");
      }
      text->append(buffer, static_cast<size_t>(n));
    }
  } catch (const std::bad_alloc&) {
    return fail("out of memory after reading " + Bytes(text->size()));
  }
  if (in.bad()) return fail("read failed");
  return true;
}

namespace {

bool TooDeep(const std::string& text, const JsonReadLimits& limits) {
  return JsonDepth(text, limits.max_depth) > limits.max_depth;
}

std::string DepthMessage(const JsonReadLimits& limits) {
  return "arrays or objects nested deeper than " +
         std::to_string(limits.max_depth) +
         " levels (JsonReadLimits::max_depth; the library writes at most 4)";
}

}  // namespace

bool ParseJsonBounded(const std::string& text,
                      const JsonReadLimits& limits,
                      nlohmann::json* value,
                      std::string* error) {
  auto fail = [&](const std::string& message) {
    if (error != nullptr) *error = message;
    *value = nlohmann::json();
    return false;
  };
  if (static_cast<int64_t>(text.size()) > limits.max_line_bytes) {
    return fail("longer than the limit of " + Bytes(limits.max_line_bytes) +
                " for one JSON value (JsonReadLimits::max_line_bytes)");
  }
  if (TooDeep(text, limits)) return fail(DepthMessage(limits));
  try {
    *value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  } catch (const std::bad_alloc&) {
    return fail("out of memory while parsing " + Bytes(text.size()));
  }
  if (value->is_discarded()) return fail("not JSON");
  return true;
}

std::string TextForMessage(const std::string& text, size_t max_chars) {
  if (text.size() <= max_chars) return text;
  return text.substr(0, max_chars) + "... (" + std::to_string(text.size()) +
         " characters)";
}

std::string JsonForMessage(const nlohmann::json& value, size_t max_chars) {
  return TextForMessage(
      value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
      max_chars);
}

JsonLines ParseJsonLines(const std::string& text,
                         const JsonReadLimits& limits) {
  JsonLines result;
  size_t start = 0;
  int line_number = 0;
  while (start < text.size()) {
    ++line_number;
    const size_t newline = text.find('\n', start);
    const bool terminated = newline != std::string::npos;
    const size_t end = terminated ? newline : text.size();
    const std::string line = text.substr(start, end - start);
    const size_t next = terminated ? newline + 1 : text.size();
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      if (terminated &&
          result.valid_prefix_bytes == static_cast<int64_t>(start)) {
        result.valid_prefix_bytes = static_cast<int64_t>(next);
      }
      start = next;
      continue;
    }
    nlohmann::json value;
    if (!ParseJsonBounded(line, limits, &value, nullptr)) {
      result.bad_lines.push_back(line_number);
      if (!terminated) result.last_line_truncated = true;
    } else {
      result.values.push_back(std::move(value));
      result.line_numbers.push_back(line_number);
      if (terminated) result.valid_prefix_bytes = static_cast<int64_t>(next);
    }
    start = next;
  }
  return result;
}

bool ReadJsonLines(const std::string& path,
                   JsonLines* out,
                   std::string* error,
                   const JsonReadLimits& limits) {
  std::string text;
  if (!ReadFileText(path, limits, &text, error)) return false;
  *out = ParseJsonLines(text, limits);
  return true;
}

bool ReadResultFile(const std::string& path,
                    std::vector<nlohmann::json>* points,
                    nlohmann::json* document,
                    int* num_skipped_lines,
                    std::string* error,
                    const JsonReadLimits& limits) {
  auto fail = [&](const std::string& message) {
    if (error != nullptr) *error = message;
    return false;
  };
  std::string text;
  if (!ReadFileText(path, limits, &text, error)) return false;
  if (document != nullptr) *document = nlohmann::json();
  if (num_skipped_lines != nullptr) *num_skipped_lines = 0;
  std::vector<nlohmann::json> result;
  // A whole sweep JSON may exceed one line's limit: its own limit is the
  // file's.
  JsonReadLimits whole_limits = limits;
  whole_limits.max_line_bytes = limits.max_file_bytes;
  // Too deep as a whole is too deep line by line too: refused here, with
  // the file named, rather than as unreadable lines.
  if (TooDeep(text, limits)) return fail(path + ": " + DepthMessage(limits));
  nlohmann::json whole;
  const bool parsed = ParseJsonBounded(text, whole_limits, &whole, nullptr);
  if (parsed && whole.is_object()) {
    const auto it = whole.find("points");
    if (it != whole.end() && it->is_array()) {
      for (const nlohmann::json& p : *it) result.push_back(p);
      if (document != nullptr) *document = whole;
    } else {
      result.push_back(whole);
    }
  } else {
    const JsonLines lines = ParseJsonLines(text, limits);
    for (const nlohmann::json& v : lines.values) {
      if (v.is_object()) result.push_back(v);
    }
    if (num_skipped_lines != nullptr) {
      *num_skipped_lines = static_cast<int>(lines.bad_lines.size());
    }
  }
  if (result.empty()) {
    return fail(path +
                ": no result point found (expected the JSON or "
                "JSON-lines output of ecmo_solve)");
  }
  *points = std::move(result);
  return true;
}

bool ScalarizationFromJson(const nlohmann::json& j,
                           Scalarization* out,
                           std::string* error) {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  if (!j.is_object()) {
    *error = "\"scalarization\" is not an object";
    return false;
  }
  Scalarization s;
  std::string type;
  if (!ReadString(j, "reference_point_type", &type, error)) return false;
  bool known = type.empty();
  for (ReferencePointType t : {ReferencePointType::OBJECTIVE_OFFSET,
                               ReferencePointType::GIVEN,
                               ReferencePointType::SINGLE_OBJECTIVE,
                               ReferencePointType::UTOPIA}) {
    if (type == ReferencePointTypeToString(t)) {
      s.reference_point_type = t;
      known = true;
    }
  }
  if (!known) {
    *error = "unknown scalarization.reference_point_type \"" + type + "\"";
    return false;
  }
  // Optional flags (files written before scale_given or reused existed
  // lack them).
  for (const auto& [key, flag] : {std::make_pair("normalized", &s.normalized),
                                  std::make_pair("scale_given", &s.scale_given),
                                  std::make_pair("reused", &s.reused)}) {
    const auto it = j.find(key);
    if (it == j.end()) continue;
    if (!it->is_boolean()) {
      *error = std::string("\"scalarization.") + key + "\" is not a boolean";
      return false;
    }
    *flag = it->get<bool>();
  }
  if (!ReadVector(j, "reference_point", &s.reference_point, error) ||
      !ReadVector(j, "objective_scale", &s.objective_scale, error) ||
      !ReadVector(j, "ideal", &s.ideal_point, error) ||
      !ReadVector(j, "nadir", &s.nadir_point, error) ||
      !ReadInt(j,
               "single_objective_solves",
               &s.num_single_objective_solves,
               error) ||
      !ReadInt(j,
               "lexicographic_solves",
               &s.num_lexicographic_solves,
               error) ||
      !ReadInt(j,
               "objective_evaluations",
               &s.evaluations.value_evaluations,
               error) ||
      !ReadInt(j,
               "gradient_evaluations",
               &s.evaluations.gradient_evaluations,
               error) ||
      !ReadDouble(j, "time_seconds", &s.time_in_seconds, error) ||
      !ReadString(j, "message", &s.message, error)) {
    return false;
  }
  *out = std::move(s);
  return true;
}

}  // namespace ecmo
