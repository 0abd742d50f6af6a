// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
#include "ecmo/internal/report.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

namespace ecmo {
namespace internal {

bool AllFinite(const double* values, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) return false;
  }
  return true;
}

bool SameEnumName(const std::string& a, const std::string& b) {
  auto canonical = [](char c) {
    return c == '-' ? '_' : static_cast<char>(std::toupper(c));
  };
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [&](char x, char y) {
           return canonical(x) == canonical(y);
         });
}

Eigen::VectorXd ProjectOntoSimplex(const Eigen::VectorXd& v) {
  std::vector<double> sorted(v.data(), v.data() + v.size());
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  double cumulative = 0.0;
  double theta = 0.0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    cumulative += sorted[i];
    const double t = (cumulative - 1.0) / static_cast<double>(i + 1);
    if (sorted[i] - t > 0.0) theta = t;
  }
  return (v.array() - theta).max(0.0).matrix();
}

std::string FormatNumber(double x) { return FormatScientific(x, 6); }

std::string FormatRoundTrip(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", x);
  return buffer;
}

void SetError(std::string* error, const std::string& message) {
  if (error != nullptr) *error = message;
}

std::string FormatScientific(double x, int precision) {
  std::string out;
  AppendScientific(x, precision, &out);
  return out;
}

void AppendScientific(double x, int precision, std::string* out) {
  char buffer[64];
  const std::to_chars_result result =
      std::to_chars(buffer,
                    buffer + sizeof(buffer),
                    x,
                    std::chars_format::scientific,
                    precision);
  out->append(buffer, result.ptr);
}

std::string FormatVector(const Eigen::VectorXd& v,
                         int max_entries,
                         int precision) {
  std::ostringstream os;
  os.precision(precision);
  os << "[";
  const int size = static_cast<int>(v.size());
  const int shown = max_entries > 0 ? std::min(size, max_entries) : size;
  for (int i = 0; i < shown; ++i) os << (i ? ", " : "") << v[i];
  if (shown < size) os << ", ... (" << size << " entries)";
  os << "]";
  return os.str();
}

std::string FormatVector(const std::vector<double>& v,
                         int max_entries,
                         int precision) {
  return FormatVector(Eigen::Map<const Eigen::VectorXd>(
                          v.data(), static_cast<Eigen::Index>(v.size())),
                      max_entries,
                      precision);
}

ReportWriter::ReportWriter(const std::string& title) {
  os_ << "\n" << title << "\n" << std::string(title.size(), '-') << "\n";
}

void ReportWriter::Section(const std::string& heading) {
  os_ << "\n" << heading << "\n";
}

void ReportWriter::Row(const std::string& label, const std::string& value) {
  os_ << label;
  for (int i = static_cast<int>(label.size()); i < kLabelWidth; ++i) {
    os_ << ' ';
  }
  os_ << ' ' << value << "\n";
}

void ReportWriter::Row(const std::string& label, double value) {
  Row(label, FormatNumber(value));
}

void ReportWriter::Row(const std::string& label, int value) {
  Row(label, std::to_string(value));
}

void ReportWriter::Row(const std::string& label, int64_t value) {
  Row(label, std::to_string(value));
}

void ReportWriter::Columns(const std::string& first,
                           const std::string& second) {
  char line[256];
  std::snprintf(line,
                sizeof(line),
                "  %-*s %14s %14s\n",
                kLabelWidth - 2,
                "",
                first.c_str(),
                second.c_str());
  os_ << line;
}

void ReportWriter::Row2(const std::string& label, double first, double second) {
  char line[256];
  std::snprintf(line,
                sizeof(line),
                "  %-*s %14.6e %14.6e\n",
                kLabelWidth - 2,
                label.c_str(),
                first,
                second);
  os_ << line;
}

void ReportWriter::Evaluations(const EvaluationCounts& evaluations) {
  Row("  Value evaluations", evaluations.value_evaluations);
  Row("  Gradient evaluations", evaluations.gradient_evaluations);
  Row("  J^T v products", evaluations.jacobian_transpose_products);
  Row("  J v products", evaluations.jacobian_products);
  if (evaluations.hessian_products > 0) {
    Row("  Hessian products", evaluations.hessian_products);
  }
  if (evaluations.gauss_newton_matrices > 0) {
    Row("  Gauss-Newton matrices", evaluations.gauss_newton_matrices);
  }
  if (evaluations.least_squares_solves > 0) {
    Row("  ceres::Solve calls", evaluations.least_squares_solves);
    Row("  ceres::Solve iterations", evaluations.least_squares_iterations);
  }
  if (evaluations.certificate_models > 0) {
    Row("  Certificate models", evaluations.certificate_models);
  }
  if (evaluations.failed_evaluations > 0) {
    Row("  Failed evaluations (NaN, Inf)", evaluations.failed_evaluations);
  }
}

void ReportWriter::TotalTime(double seconds) {
  Row("  Total time (s)", seconds);
}

void ReportWriter::Termination(TerminationType type,
                               const std::string& message) {
  os_ << "\nTermination: " << TerminationTypeName(type) << " (" << message
      << ")\n";
}

void ReportWriter::Text(const std::string& text) { os_ << text; }

void WriteKktBlocks(const KktReport& kkt,
                    const std::string& own,
                    ReportWriter* report) {
  report->Section("KKT system (||K||^2 and its blocks)");
  report->Columns(own, "least squares");
  const KktResidual& a = kkt.with_solver_multipliers;
  const KktResidual& b = kkt.with_least_squares_multipliers;
  report->Row2("|sum omega - 1|^2", a.SimplexSq(), b.SimplexSq());
  report->Row2("|stationarity|^2", a.StationaritySq(), b.StationaritySq());
  report->Row2("|h|^2", a.FeasibilitySq(), b.FeasibilitySq());
  report->Row2("|min(omega, rho - lambda f)|^2",
               a.ComplementaritySq(),
               b.ComplementaritySq());
  if (a.inequality_complementarity.size() > 0 ||
      a.bound_complementarity.size() > 0 ||
      b.inequality_complementarity.size() > 0 ||
      b.bound_complementarity.size() > 0) {
    report->Row2("|min(mu, -c)|^2 + bounds' min()^2",
                 a.ConstraintComplementaritySq(),
                 b.ConstraintComplementaritySq());
  }
  report->Row2("||K||^2", a.SquaredNorm(), b.SquaredNorm());
}

std::string OptionError(const char* options_name, const std::string& what) {
  return std::string("Invalid configuration. ") + options_name + "::" + what;
}

}  // namespace internal
}  // namespace ecmo
