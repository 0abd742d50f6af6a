// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: the WC strategies against each other and against the Ipopt
// reference, on every registry problem.
//
// For every problem, preference lambda = (l, 1 - l), l in {0.1, 0.3, 0.5,
// 0.7, 0.9}, and strategy, one cold start from the problem's start point:
//
//   wc-penalty-pgd           the paper's Algorithm 1, stopped at
//                            ||K||^2 <= 1e-3 (its own multipliers) or after
//                            --pgd_iterations iterations (T; the schedule
//                            eta = eta0 T^(-1/4), u = c0 T^(1/4) uses it);
//   wc-penalty-lbfgs         slack-eliminated penalty continuation,
//   wc-augmented-lagrangian  method of multipliers,  both to
//                            ||K||^2 <= --tolerance (default 1e-12);
//   ipopt-reference          ecmo::SolveReference (tol 1e-10), if built.
//
// Printed per point: termination, ||K||^2 with least-squares multipliers,
// |z - z*| against the analytic Pareto point, gradient evaluations, wall time
// per point (median of --repeats solves), and the ratios of gradient
// evaluations and time of the faithful strategy (to 1e-3) and of Ipopt over
// the strategy's. A summary per strategy follows.
//
// Every solve sets its strategy and the paper's form of the scalarization,
// objective_offset = the registry's ProblemInfo::objective_offset (the
// analytic z* and the Ipopt reference use the same offsets).
//
//   strategies_bench [--pgd_iterations=100000] [--repeats=21]
//                    [--tolerance=1e-12] [--no_pgd] [--no_ipopt]
//   strategies_bench --smoke   (CTest: lambda_1 in {0.3, 0.7}, one repeat,
//       T = 20000 for pgd; exits 1 unless the fast strategies and Ipopt
//       converge on every point to a finite ||K||^2 <= tolerance and,
//       where the registry knows z*, to |z - z*| <= 1e-3; wc-penalty-lbfgs
//       on circle_quarter, a known limitation, only to ||K||^2 <= 1e-10)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "ecmo/problems/registry.h"
#include "ecmo/solver.h"
#include "median.h"

#if __has_include("ecmo/ipopt_reference.h")
#include "ecmo/ipopt_reference.h"
#define ECMO_BENCH_HAVE_IPOPT 1
#else
#define ECMO_BENCH_HAVE_IPOPT 0
#endif

namespace {

using ecmo_bench::Median;

struct Flags {
  int pgd_iterations = 100000;
  int repeats = 21;
  double tolerance = 1e-12;
  bool pgd = true;
  bool ipopt = ECMO_BENCH_HAVE_IPOPT;
  bool smoke = false;
};

bool ParseFlags(int argc, char** argv, Flags* flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* name, std::string* out) {
      const std::string prefix = std::string("--") + name + "=";
      if (arg.rfind(prefix, 0) != 0) return false;
      *out = arg.substr(prefix.size());
      return true;
    };
    std::string v;
    if (value("pgd_iterations", &v)) {
      flags->pgd_iterations = std::atoi(v.c_str());
    } else if (value("repeats", &v)) {
      flags->repeats = std::max(1, std::atoi(v.c_str()));
    } else if (value("tolerance", &v)) {
      flags->tolerance = std::atof(v.c_str());
    } else if (arg == "--no_pgd") {
      flags->pgd = false;
    } else if (arg == "--no_ipopt") {
      flags->ipopt = false;
    } else if (arg == "--smoke") {
      flags->smoke = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--pgd_iterations=N] [--repeats=N] "
                   "[--tolerance=X] [--no_pgd] [--no_ipopt] [--smoke]\n",
                   argv[0]);
      return false;
    }
  }
  return true;
}

struct Result {
  std::string termination;
  bool converged = false;
  double kkt_ls = NAN;
  double z_error = NAN;
  long long gradient_evaluations = 0;
  double seconds = NAN;  // median wall time per solve
};

using Clock = std::chrono::steady_clock;

Result RunStrategy(const ecmo::problems::ProblemInfo& info,
                   ecmo::problems::ProblemInstance* instance,
                   const std::vector<double>& preference,
                   const Eigen::VectorXd& expected,
                   ecmo::StrategyType strategy,
                   double tolerance,
                   int max_iterations,
                   int repeats) {
  ecmo::Solver::Options options;
  options.strategy = strategy;
  options.kkt_tolerance = tolerance;
  options.max_iterations = max_iterations;
  options.objective_offset = info.objective_offset;
  options.record_history = false;
  std::vector<double> times;
  ecmo::Solver::Summary summary;
  for (int r = 0; r < repeats; ++r) {
    instance->ResetToStart();
    const Clock::time_point start = Clock::now();
    ecmo::Solve(options, instance->problem, preference, &summary);
    times.push_back(
        std::chrono::duration<double>(Clock::now() - start).count());
  }
  Result result;
  result.termination = ecmo::TerminationTypeName(summary.termination_type);
  result.converged = summary.termination_type == ceres::CONVERGENCE;
  result.kkt_ls = summary.kkt.with_least_squares_multipliers.SquaredNorm();
  if (summary.z.size() == expected.size()) {
    result.z_error = (summary.z - expected).norm();
  }
  result.gradient_evaluations = summary.evaluations.gradient_evaluations;
  result.seconds = Median(times);
  return result;
}

#if ECMO_BENCH_HAVE_IPOPT
Result RunIpopt(const ecmo::problems::ProblemInfo& info,
                ecmo::problems::ProblemInstance* instance,
                const std::vector<double>& preference,
                const Eigen::VectorXd& expected,
                int repeats) {
  ecmo::IpoptReference::Options options;
  std::vector<double> times;
  ecmo::IpoptReference::Summary summary;
  for (int r = 0; r < repeats; ++r) {
    instance->ResetToStart();
    const Clock::time_point start = Clock::now();
    ecmo::SolveReference(options,
                         instance->problem,
                         preference,
                         info.objective_offset,
                         &summary);
    times.push_back(
        std::chrono::duration<double>(Clock::now() - start).count());
  }
  Result result;
  result.termination = ecmo::TerminationTypeName(summary.termination_type);
  result.converged = summary.termination_type == ceres::CONVERGENCE;
  result.kkt_ls = summary.kkt.with_least_squares_multipliers.SquaredNorm();
  if (summary.z.size() == expected.size()) {
    result.z_error = (summary.z - expected).norm();
  }
  result.gradient_evaluations = summary.evaluations.gradient_evaluations;
  result.seconds = Median(times);
  return result;
}
#endif

struct Aggregate {
  int points = 0;
  int converged = 0;
  double gradient_evaluations = 0.0;
  double seconds = 0.0;
  double worst_kkt_ls = 0.0;
  double min_gradient_ratio = INFINITY;
};

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, &flags)) return 1;
  std::vector<double> l1_values = {0.1, 0.3, 0.5, 0.7, 0.9};
  if (flags.smoke) {
    flags.pgd_iterations = 20000;
    flags.repeats = 1;
    l1_values = {0.3, 0.7};
  }
  int failures = 0;

  const std::vector<ecmo::StrategyType> fast = {
      ecmo::StrategyType::WC_PENALTY_LBFGS,
      ecmo::StrategyType::WC_AUGMENTED_LAGRANGIAN};

  std::printf(
      "# fast strategies to ||K||^2 <= %.0e; wc-penalty-pgd to 1e-3 with T = "
      "%d; repeats = %d; ipopt = %s\n",
      flags.tolerance,
      flags.pgd_iterations,
      flags.repeats,
      flags.ipopt ? "yes" : "no");
  std::printf(
      "# pgd/x: gradient evaluations (and time) of wc-penalty-pgd to 1e-3 "
      "over this strategy's ('>' = pgd hit T first: a lower bound)\n");
  std::printf("%-17s %4s %-24s %-14s %9s %9s %7s %10s %10s %9s %9s\n",
              "problem",
              "l1",
              "strategy",
              "termination",
              "K_ls",
              "|z-z*|",
              "grad_ev",
              "ms/point",
              "pgd/x ev",
              "pgd/x t",
              "ipopt/x t");

  std::map<std::string, Aggregate> totals;
  for (const ecmo::problems::ProblemInfo& info :
       ecmo::problems::AllProblems()) {
    std::unique_ptr<ecmo::problems::ProblemInstance> instance = info.build();
    const int S = info.num_objectives;
    if (S != 2) continue;  // the preference grid below is for S = 2
    for (double l1 : l1_values) {
      const std::vector<double> preference = {l1, 1.0 - l1};
      Eigen::VectorXd expected;
      if (info.pareto_point) {
        expected = info.pareto_point(
            Eigen::Map<const Eigen::VectorXd>(preference.data(), S),
            Eigen::Map<const Eigen::VectorXd>(info.objective_offset.data(), S));
      }
      std::vector<std::pair<std::string, Result>> rows;
      Result pgd;
      if (flags.pgd) {
        pgd = RunStrategy(info,
                          instance.get(),
                          preference,
                          expected,
                          ecmo::StrategyType::WC_PENALTY_PGD,
                          1e-3,
                          flags.pgd_iterations,
                          1);
        rows.emplace_back("wc-penalty-pgd (1e-3)", pgd);
      }
      Result ipopt;
#if ECMO_BENCH_HAVE_IPOPT
      if (flags.ipopt) {
        ipopt =
            RunIpopt(info, instance.get(), preference, expected, flags.repeats);
        rows.emplace_back("ipopt-reference", ipopt);
      }
#endif
      for (ecmo::StrategyType strategy : fast) {
        rows.emplace_back(ecmo::StrategyTypeToString(strategy),
                          RunStrategy(info,
                                      instance.get(),
                                      preference,
                                      expected,
                                      strategy,
                                      flags.tolerance,
                                      10000,
                                      flags.repeats));
      }
      for (const auto& [name, r] : rows) {
        char pgd_ev[32] = "-", pgd_t[32] = "-", ipopt_t[32] = "-";
        const bool is_pgd = name.rfind("wc-penalty-pgd", 0) == 0;
        if (flags.pgd && !is_pgd) {
          std::snprintf(pgd_ev,
                        sizeof(pgd_ev),
                        "%s%.0f",
                        pgd.converged ? "" : ">",
                        static_cast<double>(pgd.gradient_evaluations) /
                            std::max<long long>(1, r.gradient_evaluations));
          std::snprintf(pgd_t,
                        sizeof(pgd_t),
                        "%s%.0f",
                        pgd.converged ? "" : ">",
                        pgd.seconds / r.seconds);
        }
        if (flags.ipopt && name != "ipopt-reference") {
          std::snprintf(
              ipopt_t, sizeof(ipopt_t), "%.1f", ipopt.seconds / r.seconds);
        }
        std::printf(
            "%-17s %4.1f %-24s %-14s %9.2e %9.2e %7lld %10.4f %10s %9s "
            "%9s\n",
            info.name.c_str(),
            l1,
            name.c_str(),
            r.termination.c_str(),
            r.kkt_ls,
            r.z_error,
            r.gradient_evaluations,
            1e3 * r.seconds,
            pgd_ev,
            pgd_t,
            ipopt_t);
        // Smoke test: what the full table expects of every point (the
        // faithful strategy is not expected to reach 1e-3 within T).
        if (flags.smoke && !is_pgd) {
          double kkt_target =
              name == "ipopt-reference" ? 1e-12 : flags.tolerance;
          // Known limitation (tests/wc_penalty_lbfgs_test.cc, AllCases): on
          // the negative-front circle_quarter the pure penalty path ends at
          // max_penalty with ||K||^2 ~ 5e-12, so it is not expected to
          // converge to 1e-12 there; it must still get below 1e-10.
          const bool known_limitation =
              name == "wc-penalty-lbfgs" && info.name == "circle_quarter";
          if (known_limitation) kkt_target = std::max(kkt_target, 1e-10);
          const bool ok =
              (r.converged || known_limitation) && std::isfinite(r.kkt_ls) &&
              r.kkt_ls <= kkt_target && std::isfinite(r.seconds) &&
              (expected.size() == 0 ||
               (std::isfinite(r.z_error) && r.z_error <= 1e-3));
          if (!ok) {
            std::fprintf(stderr,
                         "strategies_bench: %s, lambda_1 = %.1f, %s failed\n",
                         info.name.c_str(),
                         l1,
                         name.c_str());
            ++failures;
          }
        } else if (flags.smoke && (!std::isfinite(r.kkt_ls) ||
                                   r.gradient_evaluations <= 0)) {
          std::fprintf(stderr,
                       "strategies_bench: %s, lambda_1 = %.1f, %s: no finite "
                       "score\n",
                       info.name.c_str(),
                       l1,
                       name.c_str());
          ++failures;
        }
        Aggregate& a = totals[name];
        ++a.points;
        a.converged += r.converged ? 1 : 0;
        a.gradient_evaluations += r.gradient_evaluations;
        a.seconds += r.seconds;
        a.worst_kkt_ls = std::max(a.worst_kkt_ls, r.kkt_ls);
        if (flags.pgd && !is_pgd) {
          a.min_gradient_ratio =
              std::min(a.min_gradient_ratio,
                       static_cast<double>(pgd.gradient_evaluations) /
                           std::max<long long>(1, r.gradient_evaluations));
        }
      }
    }
  }
  std::printf("\n# summary over all points\n");
  std::printf("%-24s %6s %9s %12s %10s %10s %14s\n",
              "strategy",
              "points",
              "converged",
              "mean grad_ev",
              "mean ms",
              "worst K_ls",
              "min pgd/x ev");
  for (const auto& [name, a] : totals) {
    char ratio[32] = "-";
    if (std::isfinite(a.min_gradient_ratio)) {
      std::snprintf(ratio, sizeof(ratio), "%.0f", a.min_gradient_ratio);
    }
    std::printf("%-24s %6d %9d %12.1f %10.4f %10.2e %14s\n",
                name.c_str(),
                a.points,
                a.converged,
                a.gradient_evaluations / a.points,
                1e3 * a.seconds / a.points,
                a.worst_kkt_ls,
                ratio);
  }
  return failures == 0 ? 0 : 1;
}
