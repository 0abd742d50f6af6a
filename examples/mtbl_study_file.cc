// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).

#include "mtbl_study_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "ecmo/mtbl_baselines.h"
#include "ecmo/preference_grid.h"
#include "ecmo/result_writer.h"
#include "nlohmann/json.hpp"

namespace ecmo {
namespace tools {

std::vector<Method> AllMethods() {
  std::vector<Method> methods;
  Method wc;
  wc.name = "wc-penalty";
  wc.wc = true;
  wc.uses_preference = true;
  methods.push_back(wc);
  Method reduced = wc;
  reduced.name = "wc-reduced";
  methods.push_back(reduced);
  for (ecmo::MtblBaselineType type : {ecmo::MtblBaselineType::MOML,
                                      ecmo::MtblBaselineType::MOCO,
                                      ecmo::MtblBaselineType::FORUM,
                                      ecmo::MtblBaselineType::ITD_LS,
                                      ecmo::MtblBaselineType::SOBA_LS}) {
    Method m;
    m.name = ecmo::MtblBaselineTypeToString(type);
    m.baseline = type;
    m.uses_preference = type == ecmo::MtblBaselineType::ITD_LS ||
                        type == ecmo::MtblBaselineType::SOBA_LS;
    methods.push_back(m);
  }
  return methods;
}

std::vector<Run> MakeRuns(const Study& study, int first_seed, int num_seeds) {
  std::vector<Run> runs;
  for (int k = 0; k < num_seeds; ++k) {
    for (size_t m = 0; m < study.methods.size(); ++m) {
      if (!study.methods[m].uses_preference) {
        runs.push_back({first_seed + k, static_cast<int>(m), -1});
        continue;
      }
      for (size_t p = 0; p < study.preferences.size(); ++p) {
        runs.push_back(
            {first_seed + k, static_cast<int>(m), static_cast<int>(p)});
      }
    }
  }
  return runs;
}

bool UsesUtopia(const Study& study) {
  return study.utopia && std::any_of(study.methods.begin(),
                                     study.methods.end(),
                                     [](const Method& m) { return m.wc; });
}

std::vector<double> AsStdVector(const Eigen::VectorXd& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}

nlohmann::json Number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

double ReadNumber(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>()
                       : std::numeric_limits<double>::quiet_NaN();
}

namespace {

constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr int64_t kMaxCount = std::numeric_limits<int64_t>::max();
constexpr double kAny = -std::numeric_limits<double>::infinity();

// Reads the fields of one JSON object (a points.jsonl line or a part of
// one), checking the type and range of each; the first failure is kept,
// named by the field's path ("point.losses has 3 entries; expected 0 or 5,
// the study's objectives"), and later reads do nothing. Nothing throws:
// nlohmann's get<>() and value() throw type_error on a field of another
// type, which aborted --resume on an edited or damaged file. Every field
// is required: PointToJson and the seed's report always write them all.
class FieldReader {
 public:
  FieldReader(const nlohmann::json& object, std::string path)
      : object_(object), path_(std::move(path)) {
    if (!object_.is_object()) Refuse("", "is not an object");
  }

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  bool Has(const char* key) const { return object_.contains(key); }

  // Keeps the first failure: `what` said of the field `key`.
  void Refuse(const char* key, const std::string& what) {
    if (!ok()) return;
    std::string name = path_;
    if (*key != '\0') name += (name.empty() ? "" : ".") + std::string(key);
    error_ = (name.empty() ? std::string("the line") : name) + " " + what;
  }
  // A nested object's failure, once it has been read.
  void Adopt(const FieldReader& nested) {
    if (ok()) error_ = nested.error_;
  }

  void String(const char* key, std::string* out) {
    const nlohmann::json* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_string()) return Refuse(key, "is not a string");
    *out = v->get<std::string>();
  }
  void Bool(const char* key, bool* out) {
    const nlohmann::json* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_boolean()) return Refuse(key, "is not true or false");
    *out = v->get<bool>();
  }
  // An integer in [min, max] (an unsigned one above max is refused before
  // it is converted).
  template <typename Int>
  void Integer(const char* key, int64_t min, int64_t max, Int* out) {
    const nlohmann::json* v = Find(key);
    if (v == nullptr) return;
    const bool in_range =
        v->is_number_unsigned()
            ? v->get<uint64_t>() <= static_cast<uint64_t>(max) &&
                  static_cast<int64_t>(v->get<uint64_t>()) >= min
            : v->is_number_integer() && v->get<int64_t>() >= min &&
                  v->get<int64_t>() <= max;
    if (!in_range) {
      return Refuse(key,
                    "is not an integer in [" + std::to_string(min) + ", " +
                        std::to_string(max) + "]");
    }
    *out = static_cast<Int>(v->get<int64_t>());
  }
  // A finite number >= min (kAny: any), or null: how Number() writes a
  // non-finite one (read as NaN).
  void NumberOrNull(const char* key, double min, double* out) {
    const nlohmann::json* v = Find(key);
    if (v == nullptr) return;
    if (v->is_null()) {
      *out = std::numeric_limits<double>::quiet_NaN();
    } else if (v->is_number() && std::isfinite(v->get<double>()) &&
               v->get<double>() >= min) {
      *out = v->get<double>();
    } else {
      Refuse(key, "is not a finite number" + AtLeast(min) + " or null");
    }
  }
  void FiniteNumber(const char* key, double min, double* out) {
    const nlohmann::json* v = Find(key);
    if (v == nullptr) return;
    if (!v->is_number() || !std::isfinite(v->get<double>()) ||
        v->get<double>() < min) {
      return Refuse(key, "is not a finite number" + AtLeast(min));
    }
    *out = v->get<double>();
  }
  // An array of finite numbers (nulls too, as NaN, when `nulls`) with
  // `size` entries (-1: any), or none when `may_be_empty`.
  void Numbers(const char* key,
               int size,
               bool may_be_empty,
               bool nulls,
               std::vector<double>* out) {
    const nlohmann::json* v = Find(key);
    if (v == nullptr) return;
    const bool entries_ok =
        v->is_array() &&
        std::all_of(v->begin(), v->end(), [&](const nlohmann::json& x) {
          return (nulls && x.is_null()) ||
                 (x.is_number() && std::isfinite(x.get<double>()));
        });
    if (!entries_ok) {
      return Refuse(key,
                    nulls ? "is not an array of numbers and nulls"
                          : "is not an array of finite numbers");
    }
    const int n = static_cast<int>(v->size());
    if (size >= 0 && n != size && !(may_be_empty && n == 0)) {
      return Refuse(key,
                    "has " + std::to_string(n) + " entries; expected " +
                        (may_be_empty ? "0 or " : "") + std::to_string(size) +
                        ", the study's objectives");
    }
    out->clear();
    for (const nlohmann::json& x : *v) out->push_back(ReadNumber(x));
  }
  void Vector(const char* key,
              int size,
              bool may_be_empty,
              Eigen::VectorXd* out) {
    std::vector<double> v;
    Numbers(key, size, may_be_empty, false, &v);
    *out = Eigen::Map<const Eigen::VectorXd>(v.data(), v.size());
  }
  // A nested object (null, refused, when it is not one).
  const nlohmann::json* Object(const char* key) {
    const nlohmann::json* v = Find(key);
    if (v != nullptr && !v->is_object()) {
      Refuse(key, "is not an object");
      return nullptr;
    }
    return v;
  }

 private:
  const nlohmann::json* Find(const char* key) {
    if (!ok()) return nullptr;
    const auto it = object_.find(key);
    if (it == object_.end()) {
      Refuse(key, "is missing");
      return nullptr;
    }
    return &*it;
  }
  // " >= min", or nothing for kAny.
  static std::string AtLeast(double min) {
    if (min == kAny) return "";
    std::ostringstream text;
    text << " >= " << min;
    return text.str();
  }

  const nlohmann::json& object_;
  const std::string path_;
  std::string error_;
};

// The seed number `key` of a seed's report, which must be `seed`.
void ReadSeedNumber(FieldReader* r, const char* key, int seed) {
  int value = seed;
  r->Integer(key, 0, kMaxInt, &value);
  if (value != seed) {
    r->Refuse(key,
              "is " + std::to_string(value) + ", not the run's seed " +
                  std::to_string(seed));
  }
}

// The seed's report in a run's line (SeedContext::info) for `seed`: its
// start (losses, ||grad_y g||), lambda_max and, with the utopia
// scalarization, the reference point and scales with the time they took.
// Failures go to *line.
void ReadSeedInfo(FieldReader* line, int seed, int S, bool utopia) {
  const nlohmann::json* info = line->Object("seed");
  if (info == nullptr) return;
  FieldReader r(*info, "seed");
  double number = 0.0;
  int count = 0;
  std::vector<double> values;
  Eigen::VectorXd vector;
  r.NumberOrNull("lambda_max", kAny, &number);
  if (const nlohmann::json* start = r.Object("start")) {
    FieldReader s(*start, "seed.start");
    ReadSeedNumber(&s, "seed", seed);
    s.Numbers("losses", S, false, true, &values);
    s.NumberOrNull("grad_y_g_norm", 0.0, &number);
    r.Adopt(s);
  }
  if (r.ok() && r.Has("scalarization") != utopia) {
    r.Refuse("scalarization",
             utopia ? "is missing (the study's --scalarization is utopia)"
                    : "is there, but the study's --scalarization is paper");
  }
  if (const nlohmann::json* scalarization =
          utopia ? r.Object("scalarization") : nullptr) {
    FieldReader s(*scalarization, "seed.scalarization");
    ReadSeedNumber(&s, "seed", seed);
    s.FiniteNumber("seconds", 0.0, &number);
    s.Integer("instances", 1, kMaxInt, &count);
    s.Vector("reference_point", S, false, &vector);
    s.Vector("objective_scale", S, false, &vector);
    if (s.Has("rank")) s.Integer("rank", 0, kMaxInt, &count);  // MPI only
    r.Adopt(s);
  }
  line->Adopt(r);
}

}  // namespace

nlohmann::json PointToJson(const Point& p) {
  nlohmann::json j;
  j["method"] = p.method;
  j["seed"] = p.seed;
  j["preference_name"] = p.preference_name;
  j["preference"] = p.preference;
  j["rank"] = p.rank;
  j["termination"] = p.termination;
  j["usable"] = p.usable;
  j["losses"] = AsStdVector(p.losses);
  j["losses_as_returned"] = AsStdVector(p.losses_as_returned);
  j["kkt_residual_sq"] = Number(p.kkt_residual_sq);
  j["grad_y_g_norm"] = Number(p.grad_y_g_norm);
  j["lower_level_gap"] = Number(p.lower_level_gap);
  j["seconds"] = p.seconds;
  j["gradient_evaluations"] = p.gradient_evaluations;
  j["lower_gradients"] = p.lower_gradients;
  j["hessian_products"] = p.hessian_products;
  j["iterations"] = p.iterations;
  j["message"] = p.message;
  j["reference_point"] = AsStdVector(p.reference_point);
  j["objective_scale"] = AsStdVector(p.objective_scale);
  j["curve_time"] = p.curve_time;
  j["curve_worst_loss"] = p.curve_worst_loss;
  j["budget_seconds"] = Number(p.budget_seconds);
  return j;
}

bool PointFromJson(const nlohmann::json& j,
                   int S,
                   Point* p,
                   std::string* error) {
  FieldReader r(j, "point");
  r.String("method", &p->method);
  r.Integer("seed", 0, kMaxInt, &p->seed);
  r.String("preference_name", &p->preference_name);
  r.Numbers("preference", S, true, false, &p->preference);
  r.Integer("rank", 0, kMaxInt, &p->rank);
  r.String("termination", &p->termination);
  r.Bool("usable", &p->usable);
  r.Vector("losses", S, true, &p->losses);
  r.Vector("losses_as_returned", S, true, &p->losses_as_returned);
  r.NumberOrNull("kkt_residual_sq", 0.0, &p->kkt_residual_sq);
  r.NumberOrNull("grad_y_g_norm", 0.0, &p->grad_y_g_norm);
  r.NumberOrNull("lower_level_gap", kAny, &p->lower_level_gap);
  r.FiniteNumber("seconds", 0.0, &p->seconds);
  r.Integer("gradient_evaluations", 0, kMaxCount, &p->gradient_evaluations);
  r.Integer("lower_gradients", 0, kMaxCount, &p->lower_gradients);
  r.Integer("hessian_products", 0, kMaxCount, &p->hessian_products);
  r.Integer("iterations", -1, kMaxInt, &p->iterations);
  r.String("message", &p->message);
  r.Vector("reference_point", S, true, &p->reference_point);
  r.Vector("objective_scale", S, true, &p->objective_scale);
  r.Numbers("curve_time", -1, true, true, &p->curve_time);
  r.Numbers("curve_worst_loss", -1, true, true, &p->curve_worst_loss);
  if (p->curve_time.size() != p->curve_worst_loss.size()) {
    r.Refuse("curve_worst_loss", "is not as long as point.curve_time");
  }
  // Points written before the wall-time budgets of the baselines have none.
  if (r.Has("budget_seconds")) {
    r.NumberOrNull("budget_seconds", 0.0, &p->budget_seconds);
  }
  *error = r.error();
  return r.ok();
}

bool ReadRunLine(const nlohmann::json& line,
                 const Study& study,
                 const std::vector<Run>& runs,
                 int S,
                 int* task,
                 FinishedRun* run,
                 std::string* error) {
  FieldReader r(line, "");
  r.Integer("task", 0, static_cast<int64_t>(runs.size()) - 1, task);
  const nlohmann::json* point = r.Object("point");
  if (!r.ok()) {
    *error = r.error() + " (a run of this study)";
    return false;
  }
  if (!PointFromJson(*point, S, &run->point, error)) return false;
  const Run& expected = runs[*task];
  const ecmo::NamedPreference preference =
      expected.preference >= 0 ? study.preferences[expected.preference]
                               : ecmo::NamedPreference();
  if (run->point.seed != expected.seed ||
      run->point.method != study.methods[expected.method].name ||
      run->point.preference_name != preference.name ||
      run->point.preference != preference.weights) {
    *error = "run " + std::to_string(*task) +
             " is another method, seed or preference than this study's";
    return false;
  }
  ReadSeedInfo(&r, expected.seed, S, UsesUtopia(study));
  if (!r.ok()) {
    *error = r.error();
    return false;
  }
  run->seed = *line.find("seed");
  return true;
}

bool ParseFinishedRuns(const std::string& path,
                       const std::string& text,
                       const nlohmann::json& settings,
                       const std::vector<Run>& runs,
                       const Study& study,
                       int S,
                       std::map<int, FinishedRun>* finished,
                       int64_t* keep_bytes,
                       std::string* error) {
  ecmo::JsonLines lines = ecmo::ParseJsonLines(text);
  // A last line without its newline is one the writer did not finish
  // (killed mid-write): it is dropped, whether or not it parses.
  const bool unfinished = !text.empty() && text.back() != '\n';
  const int last_line =
      static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  for (int line : lines.bad_lines) {
    if (unfinished && line == last_line) continue;
    *error = path + ":" + std::to_string(line) +
             ": not JSON: not a points.jsonl file of ecmo_mtbl";
    return false;
  }
  if (unfinished && !lines.line_numbers.empty() &&
      lines.line_numbers.back() == last_line) {
    lines.values.pop_back();
    lines.line_numbers.pop_back();
  }
  if (lines.values.empty() || !lines.values[0].is_object() ||
      !lines.values[0].contains("settings")) {
    *error = path +
             ":1: no \"settings\" header: not a points.jsonl file "
             "of ecmo_mtbl";
    return false;
  }
  const nlohmann::json& theirs = lines.values[0]["settings"];
  if (theirs != settings) {
    std::string keys;
    for (auto it = settings.begin(); it != settings.end(); ++it) {
      if (!theirs.contains(it.key()) || theirs[it.key()] != it.value()) {
        keys += (keys.empty() ? "" : ", ") + it.key();
      }
    }
    *error = path + ": the study there has other settings (" +
             (keys.empty() ? std::string("extra keys") : keys) +
             "); rerun without --resume, or with the same flags";
    return false;
  }
  std::map<int, FinishedRun> read;
  for (size_t i = 1; i < lines.values.size(); ++i) {
    int task = -1;
    FinishedRun run;
    std::string why;
    if (!ReadRunLine(lines.values[i], study, runs, S, &task, &run, &why)) {
      *error = path + ":" + std::to_string(lines.line_numbers[i]) + ": " + why +
               "; repair or remove that line, or rerun without --resume to "
               "start the study again";
      return false;
    }
    read.emplace(task, std::move(run));  // the first line of a task wins
  }
  for (auto& [task, run] : read) finished->emplace(task, std::move(run));
  *keep_bytes = unfinished ? lines.valid_prefix_bytes : -1;
  return true;
}

bool ReadFinishedRuns(const std::string& path,
                      const nlohmann::json& settings,
                      const std::vector<Run>& runs,
                      const Study& study,
                      int S,
                      std::map<int, FinishedRun>* finished,
                      std::string* note,
                      std::string* error) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return true;  // a fresh study
  // One read, under the file-size limit, serves both the lines and the cut
  // below.
  std::string text;
  if (!ecmo::ReadFileText(path, ecmo::JsonReadLimits(), &text, error)) {
    return false;
  }
  int64_t keep_bytes = -1;
  if (!ParseFinishedRuns(
          path, text, settings, runs, study, S, finished, &keep_bytes, error)) {
    return false;
  }
  if (keep_bytes >= 0) {
    text.resize(static_cast<size_t>(keep_bytes));
    if (!ecmo::WriteFileAtomically(path, text, error)) return false;
    *note =
        "dropped a last line cut short (the run was killed while "
        "writing it); ";
  }
  return true;
}

}  // namespace tools
}  // namespace ecmo
