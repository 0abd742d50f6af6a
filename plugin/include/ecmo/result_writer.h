// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.
//
// Library: ecmo::sweep (find_package(ecmo COMPONENTS sweep)), which adds
// nlohmann-json to ecmo::plugin's dependencies.
//
// Machine-readable results: a Solver::Summary as JSON (nlohmann::json) and
// as CSV rows with a header, in one schema shared by every tool.
//
// JSON point schema (keys always present):
//   version (ecmo::VersionString() of the library that wrote it, see
//   ecmo/version.h), problem, strategy, preference[], objective_offset[],
//   termination, message, iterations, objective_evaluations,
//   gradient_evaluations, wall_time_seconds, rho, z[], objectives[],
//   constraint_norm,
//   kkt: { residual_sq, residual_sq_least_squares, average_residual_sq,
//          blocks: { simplex_sq, stationarity_sq, feasibility_sq,
//                    complementarity_sq } (solver multipliers),
//          blocks_least_squares: {...},
//          omega[], nu[], omega_least_squares[], nu_least_squares[] }
// Numbers that were never computed are -1 (Ceres' convention); NaN and
// infinities are written as null.
//
// Optional keys:
//   schedule: { step_rule, eta, u, v, shortened_steps }   (WC_PENALTY_PGD)
//   quasi_newton: { inner_iterations, penalty_increases, u, v,
//                   certified_by, inner_message }  (quasi-Newton strategies)
//   history: { iteration[], kkt_residual_sq[], average_kkt_residual_sq[],
//              constraint_norm[], rho[], penalty[], gradient_evaluations[],
//              time_seconds[] }
//     Summary::history (when Solver::Options::record_history), stored by
//     column: entry j of every array belongs to the j-th recorded iteration.
//
// Pareto sweeps (ecmo/sweep.h) write one such object per line of a
// JSON-lines file, with "index" (position in the preference list) and
// "preference" (the one used, after the open-simplex floor) added.

#ifndef ECMO_RESULT_WRITER_H_
#define ECMO_RESULT_WRITER_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "ecmo/solver.h"
#include "nlohmann/json.hpp"

namespace ecmo {

nlohmann::json SummaryToJson(const Solver::Summary& summary,
                             const std::string& problem_name);

// {"reference_point_type", "reference_point", "objective_scale",
//  "normalized", "scale_given", "reused", "ideal", "nadir",
//  "single_objective_solves",
//  "gradient_evaluations", "objective_evaluations", "time_seconds",
//  "message"}: where a solve's (or a sweep's) r and w came from and what
// computing them cost (ecmo/scalarization.h). A point's JSON holds it under
// "scalarization", and its KKT certificate under "kkt"."certificate" and
// "kkt"."certificate_least_squares" ({"simplex", "stationarity",
// "complementarity", "feasibility"}, with "objective_scale" sigma).
nlohmann::json ScalarizationToJson(const Scalarization& scalarization);
// The inverse; false with a message naming the first bad key.
bool ScalarizationFromJson(const nlohmann::json& json,
                           Scalarization* scalarization,
                           std::string* error);

// CSV: CsvHeader(S, k) once, then one CsvRow per point. Columns:
// problem,strategy,lambda_1..S,f_1..S,rho,constraint_norm,kkt_residual_sq,
// kkt_residual_sq_least_squares,average_kkt_residual_sq,termination,
// certified (1: the point passed the certificate, termination CONVERGENCE;
// 0 otherwise),iterations,gradient_evaluations,wall_time_seconds,z_1..k
std::string CsvHeader(int num_objectives, int num_parameters);
std::string CsvRow(const Solver::Summary& summary,
                   const std::string& problem_name);

// The inverse of SummaryToJson, for reading saved results back (resumed
// sweeps, plots). Restores every field the JSON holds: strategy, preference,
// objective offset, termination and message, iterations, evaluation counts,
// time, rho, z, objectives, constraint norm, the multipliers and the average
// KKT residual, the schedule and quasi-Newton fields, and the history. The
// KKT residual vectors themselves are not in the JSON, only their block
// sums: each block is restored as a one-entry vector holding the block's
// norm, so KktResidual::SquaredNorm() and the *Sq() block sums read back
// (to rounding) while the individual entries are lost. null reads as NaN.
// Missing optional keys keep their defaults. Returns false with a message
// naming the first key of the wrong type or missing a required key
// ("termination", "z", "objectives", "preference"); never throws.
bool SummaryFromJson(const nlohmann::json& json,
                     Solver::Summary* summary,
                     std::string* error);

// Contents of a JSON-lines file (one JSON value per line).
// Limits every reader of a JSON or JSON-lines file applies (ReadJsonLines,
// ReadResultFile, a sweep's resume, the tools), so that a corrupt or
// hostile file (a device such as /dev/zero, arrays nested 60,000 deep, one
// line of a gigabyte) ends in a message naming the limit, never in
// exhausted memory or a stack overflow. The defaults are far above what
// the library writes: a point of 10,000 parameters is a line of about
// 250 kB, and a 1,000-point sweep of them a file of 250 MB.
struct JsonReadLimits {
  // Bytes read from a file; a longer file (or an endless device) is
  // refused.
  int64_t max_file_bytes = int64_t{1} << 30;  // 1 GiB
  // Bytes of one line of a JSON-lines file.
  int64_t max_line_bytes = int64_t{256} << 20;  // 256 MiB
  // Nesting of arrays and objects. The library writes at most 4 levels.
  int max_depth = 64;
};

// Reads the file at `path` into *text, at most limits.max_file_bytes of
// it: false with "PATH: ..." when it cannot be opened or read, or is
// longer than the limit (the message names the limit). Memory exhaustion
// while reading is reported the same way.
bool ReadFileText(const std::string& path,
                  const JsonReadLimits& limits,
                  std::string* text,
                  std::string* error);

// Parses `text` as one JSON value. False with a message (no exception)
// when it is not JSON, nests deeper than limits.max_depth, or is longer
// than limits.max_line_bytes. The nesting is checked before parsing, so
// that nothing downstream (dumps for messages, comparisons) recurses
// deeper than the limit.
bool ParseJsonBounded(const std::string& text,
                      const JsonReadLimits& limits,
                      nlohmann::json* value,
                      std::string* error);

// `value` as compact JSON for a message, cut to about `max_chars`
// characters ("..." and the full length appended): a 10 MB string in a
// file is named, not echoed. Invalid UTF-8 is replaced.
std::string JsonForMessage(const nlohmann::json& value, size_t max_chars = 80);

// A user's text (a flag value, a name) for a message, cut the same way.
std::string TextForMessage(const std::string& text, size_t max_chars = 80);

struct JsonLines {
  // The values of the lines that parsed, in file order, with their 1-based
  // line numbers.
  std::vector<nlohmann::json> values;
  std::vector<int> line_numbers;
  // Lines that did not parse (line numbers). Blank lines are skipped
  // silently.
  std::vector<int> bad_lines;
  // True when the last line had no terminating newline and did not parse:
  // the writer was killed in the middle of writing it.
  bool last_line_truncated = false;
  // Bytes from the start of the file to the end of the last line that
  // parsed and ended in a newline; truncating the file there drops a
  // partial last line.
  int64_t valid_prefix_bytes = 0;
};

// Reads a JSON-lines file. Returns false (with a message) when the file
// cannot be opened or read or exceeds limits.max_file_bytes; lines that do
// not parse (or exceed the line or nesting limits) are reported in `out`.
bool ReadJsonLines(const std::string& path,
                   JsonLines* out,
                   std::string* error,
                   const JsonReadLimits& limits = JsonReadLimits());

// ReadJsonLines without the file: splits `text` (a JSON-lines file's
// contents, e.g. from ReadFileText) into lines and parses each with
// ParseJsonBounded under the line and nesting limits. For a caller that
// needs the text as well as its lines (to cut a partial last line off at
// valid_prefix_bytes) and so reads the file once; limits.max_file_bytes is
// the reader's to apply. Never fails: a line that does not parse goes to
// bad_lines.
JsonLines ParseJsonLines(const std::string& text,
                         const JsonReadLimits& limits = JsonReadLimits());

// Reads the points of a saved result, whatever ecmo_solve wrote: a sweep
// JSON ({"points": [...], ...}), a single point's JSON, or a JSON-lines file
// (one point per line; a truncated last line is skipped and counted in
// *num_skipped_lines if not null). *document receives the top-level object
// of a sweep JSON (empty otherwise; may be null). Points are returned in
// file order. Returns false with a message if the file cannot be read or
// holds no point.
bool ReadResultFile(const std::string& path,
                    std::vector<nlohmann::json>* points,
                    nlohmann::json* document,
                    int* num_skipped_lines,
                    std::string* error,
                    const JsonReadLimits& limits = JsonReadLimits());

// Replaces the file at `path` with `text` so that a failure never leaves a
// truncated file in place of a good one: the text goes to a temporary file
// in the same directory, which is fsync'ed and renamed over the target. A
// symbolic link stays a link (its target is replaced). A path that exists
// and is not a regular file (a device such as /dev/stdout, a FIFO) is
// written in place. Every write, fsync and close is checked: false with
// "PATH: what failed: strerror" (the old file, if any, is left as it was).
bool WriteFileAtomically(const std::string& path,
                         const std::string& text,
                         std::string* error);

// Checks, before long work, that `path` can be (re)written: its directory
// exists and is writable, the name is not too long for the file system
// (ENAMETOOLONG: a component above NAME_MAX or the path above PATH_MAX)
// and, if the file exists, it is writable. Creates nothing. False with a message naming the path and the reason.
bool CheckWritable(const std::string& path, std::string* error);

// The absolute path with symbolic links resolved
// (std::filesystem::weakly_canonical of the absolute path: components that
// do not exist yet are kept as given); the path itself if that fails.
std::string CanonicalPath(const std::string& path);

// True when the two paths name one file: the same canonical absolute path
// ("a.csv", "./a.csv" and "$PWD/a.csv" before any exists), or, when both
// exist, the same device and inode (hard links, bind mounts). For refusing
// two outputs that would overwrite each other, or an output that is an
// input.
bool SameFile(const std::string& a, const std::string& b);

}  // namespace ecmo

#endif  // ECMO_RESULT_WRITER_H_
