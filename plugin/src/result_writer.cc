// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/result_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "ecmo/internal/report.h"
#include "ecmo/version.h"

namespace ecmo {
namespace {

std::vector<double> ToVector(const Eigen::VectorXd& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}

nlohmann::json Blocks(const KktResidual& k) {
  return {{"simplex_sq", k.SimplexSq()},
          {"stationarity_sq", k.StationaritySq()},
          {"feasibility_sq", k.FeasibilitySq()},
          {"complementarity_sq", k.ComplementaritySq()},
          {"constraint_complementarity_sq", k.ConstraintComplementaritySq()}};
}

using internal::FormatRoundTrip;

nlohmann::json CertificateToJson(const KktCertificate& c) {
  nlohmann::json j = {{"simplex", c.simplex},
                      {"stationarity", c.stationarity},
                      {"stationarity_scale", c.stationarity_scale},
                      {"complementarity", c.complementarity},
                      {"value_scale", c.value_scale},
                      {"feasibility", c.feasibility}};
  // NaN is not JSON: the model's block only where it was computed.
  if (!std::isnan(c.model_decrease)) j["model_decrease"] = c.model_decrease;
  return j;
}

}  // namespace

nlohmann::json ScalarizationToJson(const Scalarization& s) {
  return {
      {"reference_point_type",
       ReferencePointTypeToString(s.reference_point_type)},
      {"reference_point", ToVector(s.reference_point)},
      {"objective_scale", ToVector(s.objective_scale)},
      {"normalized", s.normalized},
      {"scale_given", s.scale_given},
      {"reused", s.reused},
      {"ideal", ToVector(s.ideal_point)},
      {"nadir", ToVector(s.nadir_point)},
      {"single_objective_solves", s.num_single_objective_solves},
      {"lexicographic_solves", s.num_lexicographic_solves},
      {"objective_evaluations", s.evaluations.value_evaluations},
      {"gradient_evaluations", s.evaluations.gradient_evaluations},
      {"time_seconds", s.time_in_seconds},
      {"message", s.message},
  };
}

nlohmann::json SummaryToJson(const Solver::Summary& summary,
                             const std::string& problem_name) {
  nlohmann::json kkt = {
      {"residual_sq", summary.kkt.with_solver_multipliers.SquaredNorm()},
      {"residual_sq_least_squares",
       summary.kkt.with_least_squares_multipliers.SquaredNorm()},
      {"average_residual_sq", summary.average_kkt_residual_sq},
      {"blocks", Blocks(summary.kkt.with_solver_multipliers)},
      {"blocks_least_squares",
       Blocks(summary.kkt.with_least_squares_multipliers)},
      {"omega", ToVector(summary.kkt.solver_multipliers.omega)},
      {"nu", ToVector(summary.kkt.solver_multipliers.nu)},
      {"omega_least_squares",
       ToVector(summary.kkt.least_squares_multipliers.omega)},
      {"nu_least_squares", ToVector(summary.kkt.least_squares_multipliers.nu)},
  };
  // Bound multipliers only for problems with bounds (k entries each).
  const KktMultipliers& own = summary.kkt.solver_multipliers;
  const KktMultipliers& ls = summary.kkt.least_squares_multipliers;
  if (own.bound_lower.size() > 0 || ls.bound_lower.size() > 0) {
    kkt["bound_lower"] = ToVector(own.bound_lower);
    kkt["bound_upper"] = ToVector(own.bound_upper);
    kkt["bound_lower_least_squares"] = ToVector(ls.bound_lower);
    kkt["bound_upper_least_squares"] = ToVector(ls.bound_upper);
  }
  if (summary.kkt.has_certificates) {
    kkt["stationarity_floor"] = summary.kkt.stationarity_floor;
    kkt["certificate"] =
        CertificateToJson(summary.kkt.certificate_with_solver_multipliers);
    kkt["certificate_least_squares"] = CertificateToJson(
        summary.kkt.certificate_with_least_squares_multipliers);
  }
  nlohmann::json j = {
      {"version", VersionString()},
      {"problem", problem_name},
      {"strategy", StrategyTypeToString(summary.strategy)},
      {"preference", summary.preference},
      {"objective_offset", summary.objective_offset_used},
      {"termination", TerminationTypeName(summary.termination_type)},
      {"message", summary.message},
      {"iterations", summary.iterations},
      {"objective_evaluations", summary.evaluations.value_evaluations},
      {"gradient_evaluations", summary.evaluations.gradient_evaluations},
      {"hessian_products", summary.evaluations.hessian_products},
      {"gauss_newton_matrices", summary.evaluations.gauss_newton_matrices},
      {"least_squares_solves", summary.evaluations.least_squares_solves},
      {"least_squares_iterations",
       summary.evaluations.least_squares_iterations},
      {"certificate_models", summary.evaluations.certificate_models},
      {"failed_evaluations", summary.evaluations.failed_evaluations},
      {"certified", summary.termination_type == ceres::CONVERGENCE},
      {"wall_time_seconds", summary.total_time_in_seconds},
      {"rho", summary.final_rho},
      {"z", ToVector(summary.z)},
      {"objectives", ToVector(summary.objectives)},
      {"constraint_norm", summary.constraint_norm},
      {"kkt", kkt},
      {"constraint_max_norm", summary.constraint_max_norm},
      {"scalarization", ScalarizationToJson(summary.scalarization)},
  };
  if (!summary.strategy_choice.empty()) {
    j["strategy_choice"] = summary.strategy_choice;
  }
  // The second-order test (ecmo/second_order.h); non-finite numbers are
  // JSON null (+inf: the active constraints pin the point down).
  {
    const SecondOrderReport& so = summary.second_order;
    nlohmann::json second = {{"computed", so.computed},
                             {"saddle", so.saddle},
                             {"saddle_escapes", so.saddle_escapes}};
    if (so.computed) {
      auto number = [](double v) {
        return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
      };
      second["min_eigenvalue"] = number(so.min_eigenvalue);
      second["curvature_scale"] = number(so.curvature_scale);
      second["reduced_dimension"] = so.reduced_dimension;
      second["cone_span_dimension"] = so.cone_span_dimension;
      second["lanczos"] = so.lanczos;
      second["hessian_products"] = so.hessian_products;
      second["negative_curvature_unconfirmed"] =
          so.negative_curvature_unconfirmed;
    } else {
      second["not_computed_reason"] = so.not_computed_reason;
    }
    j["second_order"] = second;
  }
  if (summary.strategy == StrategyType::WC_PENALTY_PGD && summary.eta > 0.0) {
    j["schedule"] = {{"step_rule", StepRuleToString(summary.step_rule)},
                     {"eta", summary.eta},
                     {"u", summary.penalty_u},
                     {"v", summary.penalty_v},
                     {"shortened_steps", summary.num_shortened_steps}};
  }
  if (summary.strategy != StrategyType::WC_PENALTY_PGD &&
      summary.inner_iterations >= 0) {
    j["quasi_newton"] = {{"inner_iterations", summary.inner_iterations},
                         {"penalty_increases", summary.num_penalty_increases},
                         {"u", summary.penalty_u},
                         {"v", summary.penalty_v},
                         {"certified_by", summary.certified_by},
                         {"inner_message", summary.inner_message}};
    if (summary.strategy == StrategyType::WC_NEWTON) {
      j["quasi_newton"]["shortened_steps"] = summary.num_shortened_steps;
    }
  }
  if (!summary.history.empty()) {
    std::vector<int> iteration;
    std::vector<double> kkt, average, constraint, rho, penalty, time;
    std::vector<int64_t> gradients;
    for (const IterationSummary& it : summary.history) {
      iteration.push_back(it.iteration);
      kkt.push_back(it.kkt_residual_sq);
      average.push_back(it.average_kkt_residual_sq);
      constraint.push_back(it.constraint_norm);
      rho.push_back(it.rho);
      penalty.push_back(it.penalty);
      gradients.push_back(it.gradient_evaluations);
      time.push_back(it.cumulative_time_in_seconds);
    }
    j["history"] = {{"iteration", iteration},
                    {"kkt_residual_sq", kkt},
                    {"average_kkt_residual_sq", average},
                    {"constraint_norm", constraint},
                    {"rho", rho},
                    {"penalty", penalty},
                    {"gradient_evaluations", gradients},
                    {"time_seconds", time}};
  }
  return j;
}

std::string CsvHeader(int num_objectives, int num_parameters) {
  std::ostringstream os;
  os << "problem,strategy";
  for (int s = 1; s <= num_objectives; ++s) os << ",lambda_" << s;
  for (int s = 1; s <= num_objectives; ++s) os << ",f_" << s;
  os << ",rho,constraint_norm,kkt_residual_sq,kkt_residual_sq_least_squares,"
        "average_kkt_residual_sq,termination,certified,iterations,"
        "gradient_evaluations,wall_time_seconds";
  for (int i = 1; i <= num_parameters; ++i) os << ",z_" << i;
  return os.str();
}

std::string CsvRow(const Solver::Summary& summary,
                   const std::string& problem_name) {
  std::ostringstream os;
  os << problem_name << "," << StrategyTypeToString(summary.strategy);
  for (double w : summary.preference) os << "," << FormatRoundTrip(w);
  for (int s = 0; s < summary.objectives.size(); ++s) {
    os << "," << FormatRoundTrip(summary.objectives[s]);
  }
  // Keep the column count fixed when the solve failed before evaluating.
  for (int s = static_cast<int>(summary.objectives.size());
       s < static_cast<int>(summary.preference.size());
       ++s) {
    os << ",nan";
  }
  os << "," << FormatRoundTrip(summary.final_rho) << ","
     << FormatRoundTrip(summary.constraint_norm) << ","
     << FormatRoundTrip(summary.kkt.with_solver_multipliers.SquaredNorm())
     << ","
     << FormatRoundTrip(
            summary.kkt.with_least_squares_multipliers.SquaredNorm())
     << "," << FormatRoundTrip(summary.average_kkt_residual_sq) << ","
     << TerminationTypeName(summary.termination_type) << ","
     << (summary.termination_type == ceres::CONVERGENCE ? 1 : 0) << ","
     << summary.iterations << "," << summary.evaluations.gradient_evaluations
     << "," << FormatRoundTrip(summary.total_time_in_seconds);
  for (int i = 0; i < summary.z.size(); ++i)
    os << "," << FormatRoundTrip(summary.z[i]);
  return os.str();
}

namespace {

std::string Errno(const std::string& path, const std::string& what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

// Writes all of `text` to `fd`, retrying short writes and EINTR.
bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string DirectoryOf(const std::string& path) {
  const std::filesystem::path parent =
      std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

}  // namespace

std::string CanonicalPath(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = path;
  // Follow the last component's links first: weakly_canonical keeps a
  // dangling link as it is, and writing "through" it must create its
  // target, not replace the link.
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec));
       ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  // weakly_canonical keeps a relative path relative when none of it exists
  // yet ("a.csv" stayed "a.csv" while "./a.csv" became "/cwd/a.csv").
  const fs::path absolute = fs::absolute(p, ec);
  if (!ec) p = absolute;
  const fs::path canonical = fs::weakly_canonical(p, ec);
  return ec ? p.string() : canonical.string();
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  return CanonicalPath(a) == CanonicalPath(b);
}

bool WriteFileAtomically(const std::string& path,
                         const std::string& text,
                         std::string* error) {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  // Write through a symbolic link: replace its target, keep the link.
  std::string target = path;
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    target = CanonicalPath(path);
  }
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    // A device or FIFO cannot be renamed over; write it in place.
    const int fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) {
      *error = Errno(path, "cannot open for writing");
      return false;
    }
    if (!WriteAll(fd, text)) {
      *error = Errno(path, "write failed");
      ::close(fd);
      return false;
    }
    if (::close(fd) != 0) {
      *error = Errno(path, "close failed");
      return false;
    }
    return true;
  }
  std::string tmp = target + ".tmp.XXXXXX";
  const int fd = ::mkstemp(&tmp[0]);
  if (fd < 0) {
    *error =
        Errno(path, "cannot create a temporary file in " + DirectoryOf(target));
    return false;
  }
  const auto fail = [&](const std::string& what) {
    *error = Errno(path, what);
    ::close(fd);
    ::unlink(tmp.c_str());
    return false;
  };
  // mkstemp creates mode 0600: keep the old file's mode, or the usual one.
  const mode_t mode = exists ? (st.st_mode & 07777) : 0644;
  if (::fchmod(fd, mode) != 0) return fail("chmod of " + tmp + " failed");
  if (!WriteAll(fd, text)) return fail("write of " + tmp + " failed");
  if (::fsync(fd) != 0) return fail("fsync of " + tmp + " failed");
  if (::close(fd) != 0) {
    *error = Errno(path, "close of " + tmp + " failed");
    ::unlink(tmp.c_str());
    return false;
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    *error = Errno(path, "cannot rename " + tmp + " over it");
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

bool CheckWritable(const std::string& path, std::string* error) {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  if (path.empty()) {
    *error = "the path is empty";
    return false;
  }
  struct stat st;
  const std::string target = CanonicalPath(path);
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      *error = path + ": is a directory; give a file name";
      return false;
    }
    if (::access(target.c_str(), W_OK) != 0) {
      *error = Errno(path, "not writable");
      return false;
    }
    if (!S_ISREG(st.st_mode)) return true;  // a device: written in place
  } else if (errno == ENAMETOOLONG) {
    // The directory may well be writable, but no file of this name can be
    // created in it: without this check a sweep solved and then failed to
    // write its results (battery K5).
    *error = TextForMessage(path) +
             ": the file name is too long for the file system";
    return false;
  }
  const std::string dir = DirectoryOf(target);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *error = path + ": the directory " + dir + " does not exist";
    return false;
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    *error = Errno(path, "the directory " + dir + " is not writable");
    return false;
  }
  return true;
}

}  // namespace ecmo
