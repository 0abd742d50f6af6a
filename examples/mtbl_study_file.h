// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The study file of ecmo_mtbl: what a study is made of (Method, Study,
// Run, Point, FinishedRun) and points.jsonl, the JSON-lines file a study
// with --output_dir writes as its runs finish and reads back with --resume.
//
// points.jsonl: line 1 is the header {"ecmo_mtbl": version, "settings":
// {...}} (the settings are the tool's to make: StudySettings in
// ecmo_mtbl.cc, from its flags); every other line is one finished run,
// {"task": t, "point": PointToJson(point), "seed": the seed's report}, in
// the order the runs finished. A run's line is also what a worker sends
// back to rank 0 under mpirun (ReadRunLine reads both).
//
// Apart from ecmo_mtbl.cc so that the reader can be fuzzed
// (fuzz/mtbl_resume_fuzzer.cc) and replayed in the test suite without the
// tool: nothing here reads a gflags flag, and nothing here throws on what
// a file holds (a damaged or edited file is a message, never an abort).

#ifndef ECMO_EXAMPLES_MTBL_STUDY_FILE_H_
#define ECMO_EXAMPLES_MTBL_STUDY_FILE_H_

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/mtbl.h"
#include "ecmo/mtbl_baselines.h"
#include "ecmo/preference_grid.h"
#include "ecmo/solver.h"
#include "ecmo/types.h"
#include "nlohmann/json.hpp"

namespace ecmo {
namespace tools {

// The default lower-level L2 weight of every task (see --l2).
inline constexpr double kDefaultL2 = 1e-3;

// One of the study's methods: a WC form or one of the paper's baselines.
struct Method {
  std::string name;
  bool wc = false;               // ecmo::Solve with a WC strategy
  bool uses_preference = false;  // one run per preference
  ecmo::MtblBaselineType baseline = ecmo::MtblBaselineType::MOML;
};

// Every method ecmo_mtbl knows, in --method=all's order: wc-penalty,
// wc-reduced, then the baselines (moml, moco, forum, itd-ls, soba-ls).
std::vector<Method> AllMethods();

// The result of one run, as scored by the tool and as points.jsonl keeps
// it.
struct Point {
  std::string method;
  int seed = 0;
  std::string preference_name;  // empty for preference-free methods
  std::vector<double> preference;
  // The WC scalarization the point was solved with (--scalarization=
  // utopia): reference point r and scales w; empty: r = 0, w = 1. The KKT
  // score uses the same one.
  Eigen::VectorXd reference_point, objective_scale;
  std::string termination;
  bool usable = false;
  Eigen::VectorXd losses;              // f(x, y*(x))
  Eigen::VectorXd losses_as_returned;  // f(x, y)
  double kkt_residual_sq = std::numeric_limits<double>::quiet_NaN();
  double grad_y_g_norm = std::numeric_limits<double>::quiet_NaN();
  double lower_level_gap = std::numeric_limits<double>::quiet_NaN();
  double seconds = 0.0;
  int64_t gradient_evaluations = 0;  // upper gradients (+ grad_y g)
  int64_t lower_gradients = 0;       // grad_y g
  int64_t hessian_products = 0;      // lower-level Hessian-vector products
  int iterations = 0;
  std::string message;
  // Worst-task loss against wall time (seconds).
  std::vector<double> curve_time, curve_worst_loss;
  // The MPI rank that solved it (0 without MPI).
  int rank = 0;
  // A baseline's wall-time budget (--baseline_budget); NaN: its iteration
  // budget alone (and for the WC methods, whose budget is
  // --max_seconds_per_point).
  double budget_seconds = std::numeric_limits<double>::quiet_NaN();
};

// How long each baseline run may take (--baseline_budget).
struct BaselineBudget {
  enum class Kind {
    // Its outer iterations (--baseline_iterations, default 200) alone.
    ITERATIONS,
    // `value` times the mean wall time per point of the study's first WC
    // method on the same seed (its share of the seed's utopia point
    // included); the iterations are then unlimited unless
    // --baseline_iterations is given.
    MATCHED,
    // `value` seconds per run.
    SECONDS,
  };
  Kind kind = Kind::MATCHED;
  double value = 1.0;
};

// What every run of the study shares, the same on every rank.
struct Study {
  std::string task;
  double l2 = kDefaultL2;
  bool smoke = false;
  bool utopia = false;
  std::vector<Method> methods;
  std::vector<ecmo::NamedPreference> preferences;
  ecmo::Solver::Options wc_options;
  ecmo::StrategyType reduced_strategy = ecmo::StrategyType::WC_NEWTON;
  ecmo::ReducedMtblEvaluator::Options reduced_evaluator_options;
  BaselineBudget baseline_budget;
};

// One run: a method at one preference (or once, for a preference-free
// method) on one seed. The study's runs in order (seed, method,
// preference) are its tasks; a task is its position in that list.
struct Run {
  int seed = 0;
  int method = 0;
  int preference = -1;  // -1: preference-free
};

// The study's runs, its tasks, for the seeds first_seed, ...,
// first_seed + num_seeds - 1 (the caller keeps the last one an int).
std::vector<Run> MakeRuns(const Study& study, int first_seed, int num_seeds);

// Whether the study's WC methods use each seed's utopia scalarization
// (--scalarization=utopia and at least one WC method).
bool UsesUtopia(const Study& study);

// A finished run: its point and what its seed reported (the tool's
// SeedContext::info: "start", "lambda_max" and, with the utopia
// scalarization, "scalarization").
struct FinishedRun {
  Point point;
  nlohmann::json seed;
};

// v as a std::vector (for JSON).
std::vector<double> AsStdVector(const Eigen::VectorXd& v);

// v as JSON: a number when finite, else null (JSON has no NaN or Inf).
nlohmann::json Number(double v);

// The inverse of Number: a JSON number as a double, anything else as NaN.
double ReadNumber(const nlohmann::json& j);

// A point as JSON and back: the points.jsonl lines, the messages between
// ranks and study.json's "points". Doubles round-trip exactly (17
// significant digits); NaN is written as null and read back as NaN.
nlohmann::json PointToJson(const Point& p);

// A point as PointToJson writes it, every field checked: S (the study's
// objectives) entries in every vector that is not empty, counts >= 0
// (iterations -1: not reported), a number or null (NaN) where PointToJson
// writes Number(). Refuses (false, *error naming the field, e.g.
// "point.losses has 3 entries; expected 0 or 2, the study's objectives")
// a missing field, one of another type, out of range or of another size;
// *p is then partly filled. Never throws.
bool PointFromJson(const nlohmann::json& j,
                   int S,
                   Point* p,
                   std::string* error);

// A run's line of points.jsonl ({"task", "point", "seed"}; also a worker's
// reply), every field checked against the study of S objectives and its
// `runs` (MakeRuns): the task one of its runs, the point that run's
// (method, seed, preference name and weights), the seed's report that
// seed's (its start, lambda_max and, when UsesUtopia(study), its
// scalarization, and no scalarization otherwise). False with *error naming
// the field; *task and *run are then not to be used.
bool ReadRunLine(const nlohmann::json& line,
                 const Study& study,
                 const std::vector<Run>& runs,
                 int S,
                 int* task,
                 FinishedRun* run,
                 std::string* error);

// The finished runs in `text`, the contents of a points.jsonl file, by
// task: ReadFinishedRuns without the file (`path` only names it in
// messages), for a caller that has the text already (and for the fuzzer).
// The lines are parsed under ecmo::JsonReadLimits' line and nesting limits
// (256 MiB, 64 levels); the file-size limit is the reader's to apply.
//
// Refuses (false, *error = "PATH[:LINE]: ...") a text that is not this
// study's: a first line without the header's "settings" or with other
// settings than `settings` (the keys that differ are named), a line that
// is not JSON (but the last one when the text does not end in a newline:
// the writer was killed while writing it, and it is dropped, whether or
// not it parses), or a run's line that ReadRunLine refuses. When a task
// has several lines, the first wins.
//
// On success *finished holds the runs (it is left as it was on failure)
// and *keep_bytes says what the file should become: -1 when the text ends
// in a newline and nothing is to be cut, else the length of the prefix to
// keep (the text without its unfinished last line).
bool ParseFinishedRuns(const std::string& path,
                       const std::string& text,
                       const nlohmann::json& settings,
                       const std::vector<Run>& runs,
                       const Study& study,
                       int S,
                       std::map<int, FinishedRun>* finished,
                       int64_t* keep_bytes,
                       std::string* error);

// The finished runs of an earlier study in `path` (points.jsonl), by task,
// for --resume: the file is read once (ecmo::ReadFileText, at most
// JsonReadLimits::max_file_bytes, 1 GiB) and parsed by ParseFinishedRuns.
// A missing file is an empty study (true, nothing added). An unfinished
// last line is cut off the file itself (ecmo::WriteFileAtomically, so a
// failure leaves the old file) and *note says so ("dropped a last line cut
// short ...; "); *note is untouched otherwise. False with *error when the
// file cannot be read or written, or is refused as ParseFinishedRuns says.
bool ReadFinishedRuns(const std::string& path,
                      const nlohmann::json& settings,
                      const std::vector<Run>& runs,
                      const Study& study,
                      int S,
                      std::map<int, FinishedRun>* finished,
                      std::string* note,
                      std::string* error);

}  // namespace tools
}  // namespace ecmo

#endif  // ECMO_EXAMPLES_MTBL_STUDY_FILE_H_
