// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo INTERNAL: not part of the public API. Installed only because
// the adapters library (a separate target) shares it with the plugin; the
// names may change without notice.
//
// Shared plumbing of every solver family (Ceres keeps the same things in
// internal/ceres/solver.cc and solver_utils.h): the wall-clock timer, the
// finiteness test, the number and vector formats of the reports, the
// report layout (one label width for every FullReport) and the option
// checks that write "Invalid configuration. X::Options::field = value.
// Violated constraint: X::Options::field rule".

#ifndef ECMO_INTERNAL_REPORT_H_
#define ECMO_INTERNAL_REPORT_H_

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/evaluator.h"
#include "ecmo/kkt.h"
#include "ecmo/types.h"

namespace ecmo {
namespace internal {

// Seconds since construction (steady clock).
class WallTimer {
 public:
  WallTimer() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Ends a solve with a FAILURE summary: the message and the time spent so
// far (any Summary with termination_type, message and
// total_time_in_seconds).
template <typename Summary>
void Fail(const WallTimer& timer,
          const std::string& message,
          Summary* summary) {
  summary->termination_type = ceres::FAILURE;
  summary->message = message;
  summary->total_time_in_seconds = timer.Seconds();
}

// True when all n values are finite (no NaN, no inf).
bool AllFinite(const double* values, size_t n);

// An error message written with operator<<, whose stream is created on
// the first write. For checks that run on every solve and almost always
// pass: constructing a std::ostringstream sets up a locale, which cost 2%
// of a 101-point sweep at k = 10 when the warm-start check built one per
// point.
class LazyMessage {
 public:
  template <typename T>
  LazyMessage& operator<<(const T& value) {
    if (stream_ == nullptr) stream_ = std::make_unique<std::ostringstream>();
    *stream_ << value;
    return *this;
  }
  bool empty() const { return stream_ == nullptr || stream_->tellp() == 0; }
  std::string str() const {
    return stream_ == nullptr ? std::string() : stream_->str();
  }

 private:
  std::unique_ptr<std::ostringstream> stream_;
};

// The Euclidean projection of v onto the unit simplex {w >= 0, sum w = 1}
// (sort-based, O(n log n)).
Eigen::VectorXd ProjectOntoSimplex(const Eigen::VectorXd& v);

// True when two enum names are the same up to case and '-' vs '_'
// ("wc-penalty-pgd" == "WC_PENALTY_PGD"): how every StringToX parses.
bool SameEnumName(const std::string& a, const std::string& b);

// "%.17g": every digit needed to read the same double back (the CSV,
// JSON-lines and plot data files).
std::string FormatRoundTrip(double x);

// *error = message, unless error is null (the optional error argument of
// the validating functions).
void SetError(std::string* error, const std::string& message);

// A quiet NaN: the value of every entry that was not computed.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// "%.6e": how every report prints a real number.
std::string FormatNumber(double x);
// printf's "%.<precision>e", by std::to_chars: a solver's closing message
// is built once per point, and at small k snprintf's locale handling was a
// visible part of a solve.
std::string FormatScientific(double x, int precision);
// The same appended to *out (no temporary string).
void AppendScientific(double x, int precision, std::string* out);

// "[a, b, c]" with `precision` significant digits; vectors longer than
// max_entries (> 0) end in ", ... (n entries)". max_entries <= 0 prints all.
std::string FormatVector(const Eigen::VectorXd& v,
                         int max_entries = 6,
                         int precision = 6);
std::string FormatVector(const std::vector<double>& v,
                         int max_entries = 6,
                         int precision = 6);

// The layout of every FullReport: a title underlined with dashes, section
// headings, and "label value" rows whose values start in one column.
class ReportWriter {
 public:
  // Width of the label column of Row().
  static constexpr int kLabelWidth = 40;

  // Starts the report with "\n<title>\n<dashes>\n".
  explicit ReportWriter(const std::string& title);

  // "\n<heading>\n".
  void Section(const std::string& heading);
  // "<label padded to kLabelWidth> <value>\n".
  void Row(const std::string& label, const std::string& value);
  void Row(const std::string& label, double value);
  void Row(const std::string& label, int value);
  void Row(const std::string& label, int64_t value);
  // A two-column numeric table (the label column as for Row, indented by
  // two): the column headings, then one row of two numbers.
  void Columns(const std::string& first, const std::string& second);
  void Row2(const std::string& label, double first, double second);
  // The "Work" rows every report shares: evaluations of each kind and the
  // total time (the caller writes the section heading and its iteration
  // counts first).
  void Evaluations(const EvaluationCounts& evaluations);
  void TotalTime(double seconds);
  // The closing line: "\nTermination: <TYPE> (<message>)\n".
  void Termination(TerminationType type, const std::string& message);
  // Text as is (the caller adds the newline).
  void Text(const std::string& text);
  std::ostringstream& stream() { return os_; }

  std::string str() const { return os_.str(); }

 private:
  std::ostringstream os_;
};

// The "KKT system" section of a WC report: the blocks of ||K||^2 with the
// solver's own multipliers (column `own`) and with the least-squares ones.
void WriteKktBlocks(const KktReport& kkt,
                    const std::string& own,
                    ReportWriter* report);

// The message of a failed option check: "Invalid configuration.
// <options_name>::<field> = <value>. Violated constraint:
// <options_name>::<field> <rule>".
template <typename T>
std::string OptionViolation(const char* options_name,
                            const std::string& field,
                            const T& value,
                            const char* rule) {
  std::ostringstream os;
  os << "Invalid configuration. " << options_name << "::" << field << " = "
     << value << ". Violated constraint: " << options_name << "::" << field
     << " " << rule;
  return os.str();
}

// Checks every entry of a vector option: false (with OptionViolation
// naming "<field>[i]") at the first entry for which ok(entry) is false.
template <typename T, typename Predicate>
bool CheckEntries(const char* options_name,
                  const char* field,
                  const std::vector<T>& values,
                  Predicate ok,
                  const char* rule,
                  std::string* error) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!ok(values[i])) {
      if (error != nullptr) {
        *error = OptionViolation(
            options_name, std::string(field) + "[" + std::to_string(i) + "]",
            values[i], rule);
      }
      return false;
    }
  }
  return true;
}

// Checks that no callback pointer is null ("<field>[i] is null.").
template <typename T>
bool CheckNoNull(const char* options_name,
                 const char* field,
                 const std::vector<T*>& pointers,
                 std::string* error) {
  for (size_t i = 0; i < pointers.size(); ++i) {
    if (pointers[i] == nullptr) {
      if (error != nullptr) {
        *error = std::string("Invalid configuration. ") + options_name +
                 "::" + field + "[" + std::to_string(i) + "] is null.";
      }
      return false;
    }
  }
  return true;
}

// Predicates for CheckEntries.
inline bool IsFinite(double x) { return std::isfinite(x); }
inline bool IsPositiveFinite(double x) { return x > 0.0 && std::isfinite(x); }
inline bool IsNonNegativeFinite(double x) {
  return x >= 0.0 && std::isfinite(x);
}

// "Invalid configuration. <options_name>::<what>" for checks that do not
// fit the field = value form (null callbacks, conflicting fields).
std::string OptionError(const char* options_name, const std::string& what);

}  // namespace internal
}  // namespace ecmo

// Inside an IsValid(std::string* error) const: when `condition` is false,
// writes OptionViolation(options_name, "field", field, rule) to *error
// (when error is not null) and returns false.
#define ECMO_OPTION_CHECK(options_name, field, condition, rule) \
  do {                                                          \
    if (!(condition)) {                                         \
      if (error != nullptr) {                                   \
        *error = ::ecmo::internal::OptionViolation(             \
            options_name, #field, field, rule);                 \
      }                                                         \
      return false;                                             \
    }                                                           \
  } while (0)

#endif  // ECMO_INTERNAL_REPORT_H_
