// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo internal: a sweep's files. The JSON-lines writer (LineWriter),
// the reader of a JSON-lines file for resume (ParseResumeText), and the
// settings recorded in every line.
//
// Factored out of sweep.cc so that the reader can be tested and fuzzed on
// an in-memory string (fuzz/resume_fuzzer.cc). Not installed.

#ifndef ECMO_SWEEP_IO_H_
#define ECMO_SWEEP_IO_H_

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ecmo/solver.h"
#include "nlohmann/json.hpp"

namespace ecmo {
namespace internal {

std::string Errno(const std::string& path, const std::string& what);

// nlohmann::json::dump with invalid UTF-8 replaced: what every JSON-lines
// writer of the sweeps emits.
std::string Dump(const nlohmann::json& j);

// Appends whole lines to a file with one write(2) per line (so a kill
// leaves at most the line under way cut short) and no user-space buffer.
// Every failure is kept in error() with the path and strerror: a full disk
// must never pass silently.
class LineWriter {
 public:
  LineWriter() = default;
  ~LineWriter() { Close(); }
  LineWriter(const LineWriter&) = delete;
  LineWriter& operator=(const LineWriter&) = delete;

  bool Open(const std::string& path, bool truncate) {
    Close();
    path_ = path;
    const int flags =
        O_WRONLY | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : O_APPEND);
    fd_ = ::open(path.c_str(), flags, 0644);
    if (fd_ < 0) error_ = Errno(path, "cannot open for writing");
    return fd_ >= 0;
  }
  // Opens for reading and appending (creating the file, truncating
  // nothing) and takes an exclusive advisory lock for as long as it is
  // open, so that two sweeps never interleave their lines in one file.
  bool OpenLocked(const std::string& path) {
    Close();
    path_ = path;
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      error_ = Errno(path, "cannot open for writing");
      return false;
    }
    struct stat st;
    if (::fstat(fd_, &st) == 0 && !S_ISREG(st.st_mode)) {
      // A device (e.g. /dev/full) cannot be locked or read back; write it.
      return true;
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      error_ = errno == EWOULDBLOCK
                   ? "another ecmo_solve (or ecmo::Sweep) is writing " + path +
                         " (it holds the file's lock); wait for it to "
                         "finish, or use another JSON-lines file"
                   : Errno(path, "cannot lock");
      Close();
      return false;
    }
    return true;
  }
  // Reads the whole file, at most max_bytes of it (a device such as
  // /dev/zero never ends).
  bool ReadAll(std::string* text, int64_t max_bytes) {
    text->clear();
    struct stat st;
    if (::fstat(fd_, &st) == 0) {
      if (!S_ISREG(st.st_mode)) {
        error_ = path_ +
                 " is not a regular file (a device or a pipe): a sweep can "
                 "only be resumed from the JSON-lines file it wrote";
        return false;
      }
      if (static_cast<int64_t>(st.st_size) > max_bytes) {
        error_ = TooLong(max_bytes);
        return false;
      }
    }
    char buffer[65536];
    off_t offset = 0;
    while (true) {
      const ssize_t n = ::pread(fd_, buffer, sizeof(buffer), offset);
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = Errno(path_, "read failed");
        return false;
      }
      if (n == 0) return true;
      if (static_cast<int64_t>(text->size()) + n > max_bytes) {
        error_ = TooLong(max_bytes);
        text->clear();
        return false;
      }
      text->append(buffer, static_cast<size_t>(n));
      offset += n;
    }
  }
  std::string TooLong(int64_t max_bytes) const {
    return path_ + ": longer than the limit of " +
           std::to_string(max_bytes >> 20) +
           " MiB for a JSON-lines file (JsonReadLimits::max_file_bytes); is "
           "it the right file?";
  }
  bool Truncate(int64_t size) {
    struct stat st;
    if (::fstat(fd_, &st) == 0 && !S_ISREG(st.st_mode)) return true;
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
      error_ = Errno(path_, "cannot truncate");
      return false;
    }
    return true;
  }
  bool is_open() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }
  bool Write(const std::string& text) {
    if (fd_ < 0) return false;
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        error_ = Errno(path_, "write failed");
        return false;
      }
      done += static_cast<size_t>(n);
    }
    return true;
  }
  // False (with error()) when the file was open and close(2) failed: on
  // NFS and some full disks that is where a lost write shows.
  bool Close() {
    bool ok = true;
    if (fd_ >= 0 && ::close(fd_) != 0) {
      error_ = Errno(path_, "close failed");
      ok = false;
    }
    fd_ = -1;
    return ok;
  }
  void Swap(LineWriter* other) {
    std::swap(fd_, other->fd_);
    std::swap(path_, other->path_);
    std::swap(error_, other->error_);
  }

 private:
  int fd_ = -1;
  std::string path_;
  std::string error_;
};

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
  // Adaptive refinement (ParetoSweep::Options::refine_to): lines with an
  // index in [n, n + num_refinable) are refined points, whose preference is
  // read from the line (it must lie in the open simplex) instead of being
  // matched against `preferences`.
  int num_refinable = 0;
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

// Frees summary->history (ParetoSweep::Options::keep_history = false).
void DropHistory(Solver::Summary* summary);

// A SweepPoint flag (possibly_spurious_end, cold_retry) as a point's JSON
// records it under `key` (absent or not a boolean: false): for a resumed
// line and for a point a rank sends back.
bool JsonFlag(const nlohmann::json& point, const char* key);
// SweepPoint::cold_check as a point's JSON records it (absent or not a
// string: empty).
std::string ColdCheck(const nlohmann::json& point);

// SweepPoint::extra of a resumed point: the fields of its line `file` that
// `written` (SweepPointToJson of the restored point, extra empty) lacks or
// writes otherwise, so that SweepPointToJson of the point gives the line
// back; without "settings" (ParetoSweep::Summary::settings holds it) and,
// unless keep_history, without "history". "version" is always kept: it
// tells a resumed line of an older version (which has none) apart.
nlohmann::json ResumedExtra(const nlohmann::json& file,
                            const nlohmann::json& written,
                            bool keep_history);

}  // namespace internal
}  // namespace ecmo

#endif  // ECMO_SWEEP_IO_H_
