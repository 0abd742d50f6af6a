// ceres-ecmo internal: reading a sweep's JSON-lines file back for resume.
//
// Factored out of sweep.cc so that the reader can be tested and fuzzed on
// an in-memory string (fuzz/resume_fuzzer.cc). Not installed.

#ifndef ECMO_SWEEP_IO_H_
#define ECMO_SWEEP_IO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ecmo/solver.h"
#include "nlohmann/json.hpp"

namespace ecmo {
namespace internal {

// What every line of a resume file must match.
struct ResumeExpectation {
  // The file's name, for messages only.
  std::string path;
  std::string problem_name;
  int num_objectives = 0;
  int num_parameters = 0;
  int num_constraints = 0;
  // One per point of the sweep: the preference as used (after the floor).
  std::vector<std::vector<double>> preferences;
  // The options that determine a point (SweepSettings): every line must
  // carry an equal "settings" object.
  nlohmann::json settings = nlohmann::json::object();
};

// One point read back.
struct ResumedLine {
  int line_number = 0;  // 1-based
  int index = -1;
  int warm_start_from = -1;
  Solver::Summary summary;
  nlohmann::json json;
  std::string text;  // the line as it was in the file, without "\n"
};

struct ResumeContents {
  // The first line of each index, in file order.
  std::vector<ResumedLine> points;
  // Later lines repeating an index (dropped from the file on resume).
  int num_duplicates = 0;
  // The last line had no newline and did not parse: the writer was killed
  // mid-line. It is dropped; the file is cut at valid_prefix_bytes.
  bool truncated_last_line = false;
  int truncated_line_number = 0;
  int64_t valid_prefix_bytes = 0;
  // The last line parsed but has no newline: one must be added before
  // appending.
  bool needs_newline = false;
};

// Parses the text of a JSON-lines file written by ecmo::Sweep. Every field
// the sweep relies on is checked: each line must be a JSON object with an
// integer "index" in [0, n), the sweep's "problem", equal "settings", a
// "preference" matching the sweep's (1e-12), "z" / "objectives" / multiplier
// sizes of this problem (or empty), integer counts that fit, and
// "warm_start_from" -1 or another index in [0, n). Returns false on the
// first line that is not such a point, with "PATH:LINE: field ...: what is
// wrong; what to do"; only a last line cut short by a kill is tolerated.
// Never throws.
bool ParseResumeText(const std::string& text,
                     const ResumeExpectation& expect,
                     ResumeContents* contents,
                     std::string* error);

// The options of a sweep that determine its points' results, as written
// into every JSON line ("settings") and compared on resume.
nlohmann::json SweepSettings(const Solver::Options& solver,
                             bool warm_start,
                             double preference_floor,
                             const nlohmann::json& extra);

// For a message: the keys whose values differ between `file` and `run`,
// e.g. "strategy (file: \"wc-penalty-pgd\", this run:
// \"wc-augmented-lagrangian\")".
std::string DescribeSettingsDifference(const nlohmann::json& file,
                                       const nlohmann::json& run);

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_SWEEP_IO_H_
