// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ecmo_solve: solve a registered ECMO problem for one preference or a sweep
// of preferences, print the report, and write JSON / CSV / JSON-lines and
// plots.
//
//   ecmo_solve --list_problems
//   ecmo_solve --problem=gebken_circle --preference=0.3,0.7
//   ecmo_solve --problem=gebken_circle --sweep=11 --output=front.json
//              --csv=front.csv
//   ecmo_solve --problem=gebken_circle --preferences=das-dennis:100
//              --strategy=wc-augmented-lagrangian --num_threads=2
//              --jsonl=front.jsonl --resume --plot=front.png
//   ecmo_solve --problem=mtbl_example_iii_matrix_free --sweep=11
//              --num_threads=2 --jsonl=front.jsonl --resume
//   ecmo_solve --problem_library=./libmy_problems.so --problem=my_front
//              --sweep=11 --reference=ipopt
//   ecmo_solve --help      (this tool's flags; --helpfull: all)
//   ecmo_solve --version
//
// Problems registered only as an evaluator (e.g. a matrix-free bilevel
// problem, marked "evaluator only" by --list_problems) take every option
// except --reference=ipopt, which needs an ecmo::Problem and refuses them.
// Families with a size parameter take --problem_size.
//
// --problem_library loads the user's own problems from shared libraries
// built against the installed package (ecmo/problems/registration.h,
// docs/problem_libraries.md); a library that cannot be loaded (missing,
// not a shared library, no registration symbols, built for another ECMO
// version, a name already taken) is bad input (exit 2).
//
// Sweeps run through ecmo::Sweep (ecmo/sweep.h): several threads, warm
// starts from the nearest finished point, every point streamed to --jsonl
// and --csv as soon as it is done, --resume to finish an interrupted sweep.
// Built with MPI (ECMO_WITH_MPI), under `mpirun -np N` they run through
// ecmo::DistributedSweep (ecmo/sweep_mpi.h, docs/distributed.md): the
// points are spread over the ranks, rank 0 writes the files and reports,
// and the other ranks print nothing after the flags were checked.
// The CSV is streamed in completion order (the crash-safe copy) and, once
// the sweep is done, replaced atomically by the same rows in index order
// with an "index" column first.
//
// Exit status (kExitUsage below), so that a script can trust it:
//   0  every point converged (CONVERGENCE: certified by the KKT
//      certificate at the returned point, or ||K||^2 <= --kkt_tolerance;
//      a point the certificate refuses is NO_CONVERGENCE) and, with
//      --reference=ipopt, agrees with the reference;
//   3  every point is usable but some are not certified (NO_CONVERGENCE,
//      USER_SUCCESS);
//   1  some point failed or is unusable, or disagrees with the reference,
//      or library code ended the process early (exit() in a problem
//      library);
//   2  bad input (flags, preference / resume files, a locked or unwritable
//      output path) found before solving; nothing was written;
//   4  an I/O error while writing the results (disk full, file-size limit):
//      the message names the file; files replaced whole (--output, plot
//      data) keep their old contents.

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "ecmo/cross_check.h"
#include "ecmo/plot.h"
#include "ecmo/preference_grid.h"
#include "ecmo/problem.h"
#include "ecmo/problems/registry.h"
#include "ecmo/result_writer.h"
#include "ecmo/solver.h"
#include "ecmo/sweep.h"
#ifdef ECMO_WITH_MPI
#include "ecmo/sweep_mpi.h"
#endif
#include "ecmo/types.h"
#include "gflags/gflags.h"
#include "glog/logging.h"
#include "tool_flags.h"

DEFINE_bool(list_problems,
            false,
            "List the problems (built-in and --problem_library) and exit.");
DEFINE_string(problem,
              "gebken_circle",
              "Name of a built-in problem or of a --problem_library "
              "problem.");
DEFINE_string(problem_library,
              "",
              "Comma-separated paths of shared libraries whose problems "
              "(registered with ECMO_REGISTER_PROBLEM, "
              "ecmo/problems/registration.h) join the built-in ones.");
DEFINE_int32(problem_size,
             0,
             "Size parameter of problem families that take one (see "
             "--list_problems, e.g. the number of lower-level variables); "
             "0: the problem's default. Refused by fixed-size problems.");
DEFINE_string(preference,
              "",
              "One preference, comma separated (e.g. 0.3,0.7). Overrides "
              "--sweep.");
DEFINE_int32(sweep,
             11,
             "Number of evenly spaced preferences for S = 2: lambda_1 = "
             "i/(N+1), i = 1..N (strictly inside the simplex).");
DEFINE_string(preferences,
              "",
              "Preferences of a sweep (overrides --sweep): das-dennis:H, "
              "paper, random:N[:SEED], file:PATH or even:N (S = 2). Zero "
              "weights are raised to --preference_floor.");
DEFINE_double(preference_floor,
              ecmo::kDefaultPreferenceFloor,
              "Sweeps: weights below this are raised to it (open simplex).");
DEFINE_int32(num_threads,
             1,
             "Sweeps: worker threads (one problem instance each).");
DEFINE_bool(warm_start,
            true,
            "Sweeps: start each point from the nearest finished point.");
DEFINE_bool(cold_checks,
            true,
            "Sweeps: compare a certified warm-started point that may be KKT "
            "for other preferences too (its source's objectives, or a "
            "saturated region) with a cold solve, and keep the smaller WC "
            "value.");
DEFINE_string(jsonl,
              "",
              "Sweeps: stream every finished point to this JSON-lines file "
              "(one point per line, flushed at once).");
DEFINE_bool(resume,
            false,
            "Sweeps: skip the points already in --jsonl and append the "
            "rest (an interrupted sweep loses nothing).");
DEFINE_double(progress_every_n_seconds,
              2.0,
              "Sweeps: progress line on stderr this often, once the sweep "
              "has run this long.");
DEFINE_string(plot,
              "",
              "Draw the front (and the convergence of ||K||^2 next to it, "
              "FILE_convergence.png) with gnuplot: FILE.png or FILE.svg.");
DEFINE_bool(history,
            true,
            "Record ||K||^2 per iteration (JSON \"history\", convergence "
            "plot).");
DEFINE_int32(history_stride,
             0,
             "Record every n-th iteration, n >= 0 (0: max(1, T/10000)).");
DEFINE_int32(history_entries,
             150,
             "Keep at most about this many history entries per point, "
             "log-spaced (0: all recorded).");
DEFINE_string(strategy,
              "automatic",
              "Solver strategy: automatic (default: wc-sqp on problems with "
              "at most 10 parameters and equality constraints only, "
              "wc-newton on larger sums of squared residuals and on larger "
              "problems with exact Hessian products and equality "
              "constraints (full-space bilevel), else "
              "wc-augmented-lagrangian), wc-augmented-lagrangian, "
              "wc-newton (second-order inner solves: ill-conditioned and "
              "large problems), wc-sqp (dense SQP: small problems, equality "
              "constraints only), wc-penalty-lbfgs, or wc-penalty-pgd (the "
              "paper's Algorithm 1).");
DEFINE_int32(max_iterations,
             10000,
             "Iteration budget: T of wc-penalty-pgd (also sets its "
             "schedule); the total inner L-BFGS iterations of the other "
             "strategies.");
DEFINE_double(kkt_tolerance,
              0.0,
              "The paper's absolute test: stop when ||K||^2 <= this, instead "
              "of the certificate measured at the point (0, default: the "
              "certificate for wc-augmented-lagrangian and wc-penalty-lbfgs; "
              "wc-penalty-pgd runs all T iterations). At most 1e-4 (a squared "
              "residual: residuals of 1e-2), 1e-2 for wc-penalty-pgd.");
DEFINE_double(stationarity_tolerance,
              1e-6,
              "Certificate: |sum omega - 1|, and the Lagrangian gradient over "
              "its largest term (the terms cancel to this fraction).");
DEFINE_double(complementarity_tolerance,
              1e-8,
              "Certificate: each objective's slack over the weighted "
              "objective values at the point.");
DEFINE_double(feasibility_tolerance, 1e-8, "Certificate: ||h||_inf.");
DEFINE_double(model_tolerance,
              1e-12,
              "Certificate, where a model exists (least-squares problems): "
              "the decrease a Gauss-Newton step of the point's own weighted "
              "sum may still predict, over the weighted objective values. "
              "In (0, 1e-4].");
DEFINE_double(stationarity_floor,
              0.0,
              "Certificate: an absolute level (the units of the Lagrangian "
              "gradient) below which the stationarity is not measured "
              "relatively; 0 = none. Finite, >= 0.");
DEFINE_bool(second_order_check,
            true,
            "At a certified point, test the curvature of the Lagrangian on "
            "the critical cone; a saddle point is not CONVERGENCE (restart "
            "along a negative-curvature direction, else NO_CONVERGENCE).");
DEFINE_int32(max_saddle_escapes,
             2,
             "Restarts from saddle points per solve (>= 0; 0: a saddle "
             "ends NO_CONVERGENCE at once).");
DEFINE_string(reference_point,
              "auto",
              "Reference point r of the scalarization lambda_s (f_s - r_s) / "
              "w_s <= rho: auto (the utopia point from one single-objective "
              "solve per objective; r = 0 for one objective), offset (the "
              "paper's form r = -objective_offset with the problem's own "
              "offsets or --objective_offset), or r_1,...,r_S.");
DEFINE_double(utopia_margin,
              1e-2,
              "Margin of the automatic utopia point below the ideal point, "
              "relative to the objective's range.");
DEFINE_string(normalize,
              "auto",
              "Divide the objectives by nadir - utopia so that a uniform "
              "preference grid spreads points evenly and a preference means "
              "the same point in any units: auto (on with the automatic "
              "reference point, for sweeps and one --preference alike), "
              "true (the same, and an error with --reference_point or "
              "--objective_offset) or false.");
DEFINE_int32(refine,
             -1,
             "Sweeps: add points where the front has its largest gaps until "
             "it has this many points (0: off; -1: where needed, until the "
             "largest gap is within 3x the mean spacing, at most 2 P - 1 "
             "points for P preferences, for P <= 200).");
DEFINE_double(eta0, 0.01, "wc-penalty-pgd: eta = eta0 T^(-1/4).");
DEFINE_double(c0, 1.0, "wc-penalty-pgd: u = v = c0 T^(1/4).");
DEFINE_string(step_rule,
              "backtracking",
              "wc-penalty-pgd step rule: fixed or backtracking.");
DEFINE_string(newton_hessian,
              "automatic",
              "wc-newton curvature: automatic (Gauss-Newton when the problem "
              "is a sum of squared residuals, else Hessian products), "
              "gauss-newton or exact-products.");
DEFINE_string(newton_linear_solver,
              "automatic",
              "wc-newton linear solver: automatic, sparse-cholesky, "
              "dense-cholesky or conjugate-gradients.");
DEFINE_string(sqp_hessian,
              "automatic",
              "wc-sqp curvature: automatic (up to 2,000 parameters exact "
              "products when the problem provides them, else BFGS; "
              "limited-memory BFGS above), bfgs, exact-products or lbfgs.");
DEFINE_string(objective_offset,
              "",
              "The paper's form: comma-separated offsets added to the "
              "objectives (r = -offset); implies --reference_point=offset.");
DEFINE_bool(automatic_objective_offset,
            false,
            "Legacy: offsets 1 + max(0, -f_s(z0)) (prefer the automatic "
            "reference point).");
DEFINE_bool(json,
            false,
            "Print the JSON result on stdout instead of the "
            "report.");
DEFINE_string(output, "", "Write the JSON result to this file.");
DEFINE_string(csv,
              "",
              "Write one CSV row per point to this file: streamed as points "
              "finish, then replaced by the rows in index order (the "
              "preferences as given, then --refine's points) with an index "
              "column first.");
DEFINE_string(hypervolume_reference,
              "",
              "Sweeps: reference point R_1,...,R_S of the reported "
              "hypervolume (finite, one entry per objective). Empty: the "
              "nadir of the usable points pushed out by 10% of their range "
              "(ecmo::DefaultReferencePoint).");
DEFINE_bool(progress,
            false,
            "Print the solver's progress per iteration on stdout (not with "
            "--json).");
DEFINE_string(reference,
              "none",
              "Cross-check every point against a reference solver: none or "
              "ipopt (interior point on the same WC problem).");
DEFINE_double(reference_tolerance,
              1e-8,
              "Ipopt reference: convergence tolerance.");

namespace {

constexpr int kExitCertified = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNotCertified = 3;
constexpr int kExitWriteError = 4;

constexpr char kUsage[] =
    "Solve a built-in (or --problem_library) equality-constrained\n"
    "multi-objective problem for one preference or a Pareto sweep of\n"
    "preferences (weighted-Chebyshev scalarization), print a report and\n"
    "write JSON / CSV / JSON lines / plots. All options are --flags; this\n"
    "tool's flags are listed below (--helpfull adds those of glog and\n"
    "gflags, --version the version).\n"
    "\n"
    "Examples:\n"
    "  ecmo_solve --list_problems\n"
    "  ecmo_solve --problem=gebken_circle --preference=0.3,0.7\n"
    "  ecmo_solve --problem=convex_line --sweep=21 --output=front.json "
    "--csv=front.csv\n"
    "  ecmo_solve --problem=sphere_octant --preferences=das-dennis:6 "
    "--refine=60 --num_threads=2 --jsonl=front.jsonl --plot=front.png\n"
    "      (interrupted? the same command with --resume finishes it)\n"
    "  ecmo_solve --problem=gebken_circle --sweep=11 "
    "--hypervolume_reference=4,4 --json\n"
    "  ecmo_solve --problem=mtbl_example_iii_matrix_free --sweep=11 "
    "--num_threads=2\n"
    "      (problems marked 'evaluator only' by --list_problems take every "
    "flag but --reference=ipopt)\n"
    "  ecmo_solve --problem_library=./libmy_problems.so --problem=my_front "
    "--sweep=11 --reference=ipopt\n"
    "      (your own problems: ECMO_REGISTER_PROBLEM in "
    "ecmo/problems/registration.h)\n"
    "\n"
    "Exit status:\n"
    "  0  every point converged (CONVERGENCE: certified by the KKT "
    "certificate, or ||K||^2 <= --kkt_tolerance) and, with "
    "--reference=ipopt, agrees with the reference\n"
    "  3  every point usable, some not certified (NO_CONVERGENCE, "
    "USER_SUCCESS)\n"
    "  1  some point failed (FAILURE, unusable) or disagrees with the "
    "reference, or a problem library ended the process (exit())\n"
    "  2  bad input (flags, preference or resume files, a problem library "
    "that cannot be loaded, a locked or unwritable output path), found "
    "before solving\n"
    "  4  I/O error while writing the results (the message names the file)"
#ifdef ECMO_WITH_MPI
    "\n\n"
    "Built with MPI: under mpirun (or srun) a sweep is distributed over the\n"
    "ranks, with no further flag: `mpirun -np 4 ecmo_solve --sweep=101\n"
    "--jsonl=front.jsonl ...`. Rank 0 writes every file and the report;\n"
    "each rank solves with --num_threads threads; after a crash the same\n"
    "command with --resume finishes the sweep. With --warm_start=false the\n"
    "points equal a single-process run's to the bit (docs/distributed.md)."
#endif
    ;

// Comma-separated numbers; an empty field ("0.5,0.5," or "0.5,,0.5") is an
// error, not a shorter list.
bool ParseList(const std::string& text,
               std::vector<double>* values,
               std::string* error) {
  values->clear();
  size_t start = 0;
  int field = 0;
  while (true) {
    ++field;
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) {
      *error = "field " + std::to_string(field) +
               " is empty (a trailing or doubled comma?); give one number "
               "per field";
      return false;
    }
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (end == item.c_str() || *end != '\0') {
      *error = "'" + ecmo::TextForMessage(item) + "' is not a number";
      return false;
    }
    values->push_back(v);
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

// The largest --problem_size: every family's size is a count of poses,
// points or samples, and 1e6 of them is far beyond what one machine
// solves here (2147483640 failed at once in an allocation).
constexpr int kMaxProblemSize = 1000000;

// A preference file of 256 MiB holds millions of rows, far more than a
// sweep solves (ecmo::kMaxPreferenceCount); pipes and devices are cut at
// 64 MiB by ecmo::ReadFileText.
constexpr int64_t kMaxPreferenceFileBytes = int64_t{256} << 20;

// True when `spec` is ParsePreferenceSpec's "file:PATH" (keyword
// case-insensitive, '_' for '-', blanks around the spec ignored); sets
// *path to PATH, taken verbatim as ParsePreferenceSpec takes it.
bool PreferenceFileOf(const std::string& spec, std::string* path) {
  const size_t begin = spec.find_first_not_of(" \t\r\n\f\v");
  if (begin == std::string::npos) return false;
  const size_t end = spec.find_last_not_of(" \t\r\n\f\v") + 1;
  const std::string trimmed = spec.substr(begin, end - begin);
  const size_t colon = trimmed.find(':');
  if (colon == std::string::npos) return false;
  std::string keyword = trimmed.substr(0, colon);
  keyword.erase(keyword.find_last_not_of(" \t\r\n\f\v") + 1);
  for (char& c : keyword) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (keyword != "file") return false;
  *path = trimmed.substr(colon + 1);
  return !path->empty();
}

// `message` with the user's file names and specs cut by
// ecmo::TextForMessage wherever library code quotes them whole: a 100 kB
// --csv or --preferences value made a message of 100-300 kB (battery K1).
std::string ForMessage(std::string message) {
  for (const std::string* value :
       {&FLAGS_output, &FLAGS_csv, &FLAGS_jsonl, &FLAGS_plot,
        &FLAGS_preferences, &FLAGS_preference, &FLAGS_problem_library}) {
    message = ecmo::tools::CutValue(message, *value);
  }
  return message;
}

int Usage(const std::string& message) {
  std::cerr << "ecmo_solve: " << ForMessage(message) << "\n";
  return kExitUsage;
}

int WriteError(const std::string& message) {
  std::cerr << "ecmo_solve: " << ForMessage(message) << "\n";
  return kExitWriteError;
}

bool FlagGiven(const char* name) {
  return !gflags::GetCommandLineFlagInfoOrDie(name).is_default;
}

}  // namespace

int Main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
#ifdef ECMO_WITH_MPI
  // Under mpirun every rank runs this program; rank 0 alone writes files.
  ecmo::MpiSession mpi(&argc, &argv);
  if (!mpi.ok()) return Usage("MPI: " + mpi.error() + ".");
  const bool coordinator = mpi.coordinator();
#else
  const bool coordinator = true;
#endif
  if (argc > 1)
    return Usage("unexpected argument '" + ecmo::TextForMessage(argv[1]) +
                 "'; all options are --flags (see --help).");

  namespace ep = ecmo::problems;
  if (!FLAGS_problem_library.empty()) {
    // Comma-separated; each library is loaded once, in the order given.
    size_t start = 0;
    while (true) {
      const size_t comma = FLAGS_problem_library.find(',', start);
      const std::string path = FLAGS_problem_library.substr(
          start,
          comma == std::string::npos ? std::string::npos : comma - start);
      if (path.empty()) {
        return Usage(
            "--problem_library: an empty path (a trailing or doubled "
            "comma?); give one library path per field.");
      }
      std::string error;
      if (!ep::LoadProblemLibrary(path, nullptr, &error)) {
        return Usage("--problem_library: " +
                     ecmo::tools::CutValue(error, path));
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (FLAGS_list_problems) {
    for (const ep::ProblemInfo* entry : ep::AllEntries()) {
      const ep::ProblemInfo& info = *entry;
      std::cout << info.name << "  (S = " << info.num_objectives
                << ", k = " << info.num_parameters
                << ", q = " << info.num_constraints;
      if (info.num_inequality_constraints > 0) {
        std::cout << ", p = " << info.num_inequality_constraints;
      }
      if (info.has_problem_size()) {
        std::cout << " at --problem_size=" << info.default_problem_size;
      }
      if (!info.has_problem()) std::cout << "; evaluator only";
      const std::string library = ep::ProblemLibraryOf(info);
      if (!library.empty()) std::cout << "; from " << library;
      std::cout << ")\n    " << info.description << "\n";
      if (info.has_problem_size()) {
        std::cout << "    --problem_size: " << info.problem_size_description
                  << "\n";
      }
    }
    return 0;
  }
  const ep::ProblemInfo* info = ep::Find(FLAGS_problem);
  if (info == nullptr) {
    return Usage("unknown problem '" + ecmo::TextForMessage(FLAGS_problem) +
                 "'; valid names: " + ep::ProblemNames() + ".");
  }
  if (FlagGiven("problem_size")) {
    if (!info->has_problem_size()) {
      return Usage(
          "--problem_size: '" + info->name +
          "' has a fixed size (k = " + std::to_string(info->num_parameters) +
          ") and takes no size; drop --problem_size.");
    }
    if (FLAGS_problem_size < 0 || FLAGS_problem_size > kMaxProblemSize) {
      return Usage("--problem_size must be in [1, " +
                   std::to_string(kMaxProblemSize) +
                   "] (or 0 for the default " +
                   std::to_string(info->default_problem_size) + " of '" +
                   info->name + "').");
    }
  }

  ecmo::Solver::Options options;
  if (!ecmo::StringToStrategyType(FLAGS_strategy, &options.strategy)) {
    std::string names;
    for (const std::string& n : ecmo::StrategyTypeNames()) {
      names += (names.empty() ? "" : ", ") + n;
    }
    return Usage("unknown strategy '" + ecmo::TextForMessage(FLAGS_strategy) +
                 "'; valid strategies: " + names + ".");
  }
  if (!ecmo::StringToStepRule(FLAGS_step_rule, &options.pgd.step_rule)) {
    return Usage("unknown step rule '" + ecmo::TextForMessage(FLAGS_step_rule) +
                 "'; valid: fixed, backtracking.");
  }
  if (options.strategy != ecmo::StrategyType::WC_PENALTY_PGD) {
    // These only steer the faithful strategy: given with another one they
    // would be ignored while the user believes they took effect.
    for (const char* flag : {"eta0", "c0", "step_rule"}) {
      if (FlagGiven(flag)) {
        return Usage(std::string("--") + flag +
                     " only applies to --strategy=wc-penalty-pgd, not '" +
                     ecmo::TextForMessage(FLAGS_strategy) +
                     "'; drop it or select wc-penalty-pgd.");
      }
    }
  }
  if (!ecmo::StringToNewtonHessianType(FLAGS_newton_hessian,
                                       &options.newton.hessian)) {
    return Usage("unknown --newton_hessian '" +
                 ecmo::TextForMessage(FLAGS_newton_hessian) +
                 "'; valid: automatic, gauss-newton, exact-products.");
  }
  if (!ecmo::StringToNewtonLinearSolverType(FLAGS_newton_linear_solver,
                                            &options.newton.linear_solver)) {
    return Usage("unknown --newton_linear_solver '" +
                 ecmo::TextForMessage(FLAGS_newton_linear_solver) +
                 "'; valid: automatic, sparse-cholesky, dense-cholesky, "
                 "conjugate-gradients.");
  }
  if (options.strategy != ecmo::StrategyType::WC_NEWTON) {
    for (const char* flag : {"newton_hessian", "newton_linear_solver"}) {
      if (FlagGiven(flag)) {
        return Usage(std::string("--") + flag +
                     " only applies to --strategy=wc-newton, not '" +
                     ecmo::TextForMessage(FLAGS_strategy) +
                     "'; drop it or select wc-newton.");
      }
    }
  }
  if (!ecmo::StringToSqpHessianType(FLAGS_sqp_hessian, &options.sqp.hessian)) {
    return Usage("unknown --sqp_hessian '" +
                 ecmo::TextForMessage(FLAGS_sqp_hessian) +
                 "'; valid: automatic, bfgs, exact-products, lbfgs.");
  }
  if (options.strategy != ecmo::StrategyType::WC_SQP &&
      options.strategy != ecmo::StrategyType::AUTOMATIC &&
      FlagGiven("sqp_hessian")) {
    return Usage(
        "--sqp_hessian only applies to --strategy=wc-sqp or "
        "automatic, not '" +
        ecmo::TextForMessage(FLAGS_strategy) + "'; drop it or select wc-sqp.");
  }
  options.max_iterations = FLAGS_max_iterations;
  options.kkt_tolerance = FLAGS_kkt_tolerance;
  options.pgd.eta0 = FLAGS_eta0;
  options.pgd.c0 = FLAGS_c0;
  options.minimizer_progress_to_stdout = FLAGS_progress && !FLAGS_json;
  options.record_history = FLAGS_history;
  // 0 selects the default; a negative stride used to be taken for it
  // without a word (battery K2), hiding a typo.
  if (FLAGS_history_stride < 0) {
    return Usage("--history_stride must be >= 0 (0: max(1, T/10000)), got " +
                 std::to_string(FLAGS_history_stride) + ".");
  }
  options.history_stride = FLAGS_history_stride > 0
                               ? FLAGS_history_stride
                               : std::max(1, FLAGS_max_iterations / 10000);
  options.stationarity_tolerance = FLAGS_stationarity_tolerance;
  options.complementarity_tolerance = FLAGS_complementarity_tolerance;
  options.model_tolerance = FLAGS_model_tolerance;
  options.stationarity_floor = FLAGS_stationarity_floor;
  options.second_order_check = FLAGS_second_order_check;
  options.max_saddle_escapes = FLAGS_max_saddle_escapes;
  options.feasibility_tolerance = FLAGS_feasibility_tolerance;
  options.utopia_margin = FLAGS_utopia_margin;
  options.automatic_objective_offset = FLAGS_automatic_objective_offset;
  std::string error;
  // The scalarization: the paper's offsets, a given reference point, or the
  // automatic utopia point.
  const bool offset_given = !FLAGS_objective_offset.empty();
  if (offset_given &&
      !ParseList(FLAGS_objective_offset, &options.objective_offset, &error)) {
    return Usage("--objective_offset: " + error + ".");
  }
  if (FLAGS_reference_point == "offset") {
    if (!offset_given && !FLAGS_automatic_objective_offset) {
      options.objective_offset = info->objective_offset;
    }
  } else if (FLAGS_reference_point != "auto") {
    if (offset_given || FLAGS_automatic_objective_offset) {
      return Usage(
          "--reference_point=" + ecmo::TextForMessage(FLAGS_reference_point) +
          " and --objective_offset / --automatic_objective_offset say the "
          "same thing (r = -offset); give one.");
    }
    if (!ParseList(FLAGS_reference_point, &options.reference_point, &error)) {
      return Usage("--reference_point: " + error +
                   " (valid: auto, offset, or r_1,...,r_S).");
    }
    if (static_cast<int>(options.reference_point.size()) !=
        info->num_objectives) {
      return Usage("--reference_point has " +
                   std::to_string(options.reference_point.size()) +
                   " entries but '" + info->name + "' has " +
                   std::to_string(info->num_objectives) + " objectives.");
    }
  }
  if (FLAGS_normalize != "auto" && FLAGS_normalize != "true" &&
      FLAGS_normalize != "false") {
    return Usage("--normalize=" + ecmo::TextForMessage(FLAGS_normalize) +
                 ": valid values are auto, true and false.");
  }
  if (FLAGS_normalize == "false") options.normalize_objectives = false;
  if (FLAGS_normalize == "true" &&
      (!options.reference_point.empty() || !options.objective_offset.empty() ||
       options.automatic_objective_offset)) {
    return Usage(
        "--normalize=true divides by nadir - utopia of the automatic "
        "reference point, which a given reference point or offset "
        "replaces (the scales are then ones); drop one of them.");
  }
  if (!options.IsValid(&error)) return Usage(error);
  if (FLAGS_reference != "none" && FLAGS_reference != "ipopt") {
    return Usage("unknown reference '" + ecmo::TextForMessage(FLAGS_reference) +
                 "'; valid: none, ipopt.");
  }
  const bool cross_check = FLAGS_reference == "ipopt";
  if (cross_check && !info->has_problem()) {
    return Usage(
        "--reference=ipopt needs an ecmo::Problem (the Ipopt "
        "reference solves one), but '" +
        info->name +
        "' is registered only as an evaluator (see "
        "--list_problems). Drop --reference, or cross-check a "
        "problem built as an ecmo::Problem.");
  }
  ecmo::CrossCheckOptions check_options;
  check_options.solver = options;
  check_options.reference.tolerance = FLAGS_reference_tolerance;
  if (cross_check && !check_options.reference.IsValid(&error)) {
    return Usage(error);
  }

  const int S = info->num_objectives;
  std::vector<std::vector<double>> preferences;
  double preference_floor = FLAGS_preference_floor;
  if (!(preference_floor > 0.0 && preference_floor < 1.0)) {
    return Usage("--preference_floor must be in (0, 1).");
  }
  if (preference_floor * S >= 1.0) {
    return Usage("--preference_floor = " + std::to_string(preference_floor) +
                 " is >= 1/S = " + std::to_string(1.0 / S) + " for '" +
                 info->name +
                 "': it would raise every preference to the centre of the "
                 "simplex. Use a floor well below 1/S (default 1e-4).");
  }
  if (!FLAGS_preference.empty() && !FLAGS_preferences.empty()) {
    return Usage(
        "give --preference (one point) or --preferences (a sweep), "
        "not both.");
  }
  if (!FLAGS_preference.empty()) {
    std::vector<double> p;
    if (!ParseList(FLAGS_preference, &p, &error)) {
      return Usage("--preference: " + error + ".");
    }
    if (!ecmo::ValidatePreference(p, S, &error)) {
      return Usage("--preference: " + error);
    }
    // A single preference is used exactly as given.
    for (double w : p) preference_floor = std::min(preference_floor, w);
    preferences.push_back(p);
  } else if (!FLAGS_preferences.empty()) {
    std::vector<ecmo::NamedPreference> named;
    std::string file;
    if (PreferenceFileOf(FLAGS_preferences, &file)) {
      // Read here, bounded, rather than by ParsePreferenceSpec, which reads
      // the file line by line without end: an endless pipe (`yes 0.5,0.5 |
      // ecmo_solve --preferences=file:/dev/stdin`) never finished and
      // /dev/zero ran out of memory (battery K4).
      const std::string name = ecmo::TextForMessage(file);
      struct stat st;
      if (::stat(file.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        return Usage("--preferences: '" + name +
                     "' is a directory, not a preference file.");
      }
      ecmo::JsonReadLimits limits;
      limits.max_file_bytes = kMaxPreferenceFileBytes;
      std::string text;
      if (!ecmo::ReadFileText(file, limits, &text, &error)) {
        return Usage("--preferences: preference file " +
                     ecmo::tools::CutValue(error, file) + ".");
      }
      if (!ecmo::ParsePreferenceFileText(text, name, S, &named, &error)) {
        return Usage("--preferences: " + error);
      }
    } else if (!ecmo::ParsePreferenceSpec(
                   FLAGS_preferences, S, &named, &error)) {
      return Usage("--preferences: " +
                   ecmo::tools::CutValue(error, FLAGS_preferences));
    }
    for (const ecmo::NamedPreference& p : named) {
      preferences.push_back(p.weights);
    }
  } else {
    if (S != 2) {
      return Usage("--sweep needs a problem with 2 objectives; '" + info->name +
                   "' has " + std::to_string(S) +
                   ". Give --preference or --preferences instead.");
    }
    if (FLAGS_sweep < 1 || FLAGS_sweep > ecmo::kMaxPreferenceCount) {
      return Usage("--sweep must be in [1, " +
                   std::to_string(ecmo::kMaxPreferenceCount) + "].");
    }
    for (int i = 1; i <= FLAGS_sweep; ++i) {
      const double l1 = static_cast<double>(i) / (FLAGS_sweep + 1);
      preferences.push_back({l1, 1.0 - l1});
    }
  }
  if (FLAGS_resume && FLAGS_jsonl.empty()) {
    return Usage("--resume needs --jsonl (the file to resume from).");
  }
  if (!FLAGS_resume && !FLAGS_jsonl.empty() && coordinator) {
    // Not an error (a rerun replaces its file), but never silent: the
    // points in it are lost unless the user meant --resume.
    struct stat st;
    if (::stat(FLAGS_jsonl.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_size > 0) {
      std::cerr << "ecmo_solve: --jsonl=" << ecmo::TextForMessage(FLAGS_jsonl)
                << " holds " << st.st_size
                << " bytes of an earlier run; they are replaced (add --resume "
                   "to keep its points and solve only the missing ones).\n";
    }
  }
  if (!FLAGS_plot.empty()) {
    std::string lower = FLAGS_plot;
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    const auto ends_with = [&](const std::string& e) {
      return lower.size() > e.size() &&
             lower.compare(lower.size() - e.size(), e.size(), e) == 0;
    };
    if (!ends_with(".png") && !ends_with(".svg")) {
      return Usage("--plot: the file name must end in .png or .svg.");
    }
  }

  ecmo::ParetoSweep::Options sweep_options;
  sweep_options.solver = options;
  sweep_options.num_threads = FLAGS_num_threads;
  sweep_options.warm_start = FLAGS_warm_start;
  sweep_options.cold_checks = FLAGS_cold_checks;
  sweep_options.preference_floor = preference_floor;
  sweep_options.problem_name = info->name;
  sweep_options.jsonl_path = FLAGS_jsonl;
  sweep_options.csv_path = FLAGS_csv;
  sweep_options.resume = FLAGS_resume;
  sweep_options.progress_to_stderr = true;
  sweep_options.progress_every_n_seconds = FLAGS_progress_every_n_seconds;
  sweep_options.max_history_entries = FLAGS_history_entries;
  // The histories stay in memory only for what reads them afterwards: the
  // JSON result (stdout or --output) and the convergence plot; --jsonl gets
  // them as each point finishes.
  sweep_options.keep_history =
      FLAGS_history &&
      (FLAGS_json || !FLAGS_output.empty() || !FLAGS_plot.empty());
  // Normalization: on with an automatic scalarization unless
  // --normalize=false (the sweep applies it only then).
  sweep_options.normalize_objectives = FLAGS_normalize != "false";
  if (FLAGS_refine < -1 || FLAGS_refine > ecmo::kMaxPreferenceCount) {
    return Usage("--refine must be in [0, " +
                 std::to_string(ecmo::kMaxPreferenceCount) +
                 "] (0: no refinement) or -1 (where needed).");
  }
  if (FLAGS_refine > 0 && !FLAGS_preference.empty()) {
    return Usage(
        "--refine needs a sweep (--sweep or --preferences), not a "
        "single --preference.");
  }
  sweep_options.refine_to = FLAGS_refine;
  if (!FLAGS_hypervolume_reference.empty()) {
    std::vector<double>& r = sweep_options.reference_point;
    if (!ParseList(FLAGS_hypervolume_reference, &r, &error)) {
      return Usage("--hypervolume_reference: " + error + ".");
    }
    if (static_cast<int>(r.size()) != S) {
      return Usage("--hypervolume_reference has " + std::to_string(r.size()) +
                   " entries but '" + info->name + "' has " +
                   std::to_string(S) + " objectives; give R_1,...,R_" +
                   std::to_string(S) + ".");
    }
    for (size_t i = 0; i < r.size(); ++i) {
      if (!std::isfinite(r[i])) {
        return Usage("--hypervolume_reference: entry " + std::to_string(i + 1) +
                     " is " + std::to_string(r[i]) +
                     "; every entry must be a finite number.");
      }
    }
  }
  if (cross_check) {
    // The reference's options change what a point holds: recorded in every
    // JSON line so that --resume refuses points checked otherwise.
    sweep_options.settings = {
        {"reference", FLAGS_reference},
        {"reference_tolerance", FLAGS_reference_tolerance}};
  }
  const int problem_size =
      info->has_problem_size()
          ? (FLAGS_problem_size > 0 ? FLAGS_problem_size
                                    : info->default_problem_size)
          : 0;
  if (problem_size > 0) {
    // Another size is another problem: --resume must refuse its points.
    sweep_options.settings["problem_size"] = problem_size;
  }
  // Side-by-side reports of the cross-check, printed for a single point.
  std::mutex reports_mutex;
  std::vector<std::string> reports;
  if (cross_check) {
    sweep_options.point_solver =
        [&check_options, &reports_mutex, &reports](
            const ecmo::Solver::Options& solver_options,
            const ecmo::Problem& problem,
            const std::vector<double>& preference,
            ecmo::Solver::Summary* summary,
            nlohmann::json* extra) {
          ecmo::CrossCheckOptions per_point = check_options;
          per_point.solver = solver_options;
          const ecmo::CrossCheckResult check =
              ecmo::CrossCheck(per_point, problem, preference);
          *summary = check.solver;
          *extra = ecmo::CrossCheckToJson(check);
          std::lock_guard<std::mutex> lock(reports_mutex);
          reports.push_back(check.Report());
        };
  }
  if (!sweep_options.IsValid(&error)) return Usage(error);

  // Output paths: fail early (exit 2), before any solve, when one cannot be
  // written or two name the same file (symbolic links resolved), which
  // would overwrite one result with another.
  std::vector<std::pair<std::string, std::string>> outputs;  // flag, path
  if (!FLAGS_output.empty()) outputs.push_back({"--output", FLAGS_output});
  if (!FLAGS_csv.empty()) outputs.push_back({"--csv", FLAGS_csv});
  if (!FLAGS_jsonl.empty()) outputs.push_back({"--jsonl", FLAGS_jsonl});
  if (!FLAGS_plot.empty()) {
    for (const std::string& file : ecmo::PlotSweepFiles(FLAGS_plot)) {
      outputs.push_back({"--plot", file});
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (ecmo::SameFile(outputs[i].second, outputs[j].second)) {
        return Usage(outputs[j].first + " and " + outputs[i].first +
                     " name the same file '" +
                     ecmo::TextForMessage(outputs[i].second) +
                     "'; one would overwrite the other. Give each output "
                     "its own file.");
      }
    }
  }
  for (const auto& [flag, path] : outputs) {
    // The plot's side files sit next to its image: checking it suffices.
    // Only the rank that writes them checks (a check may create the file).
    if (flag == "--plot" && path != FLAGS_plot) continue;
    if (coordinator && !ecmo::CheckWritable(path, &error)) {
      const int status = Usage("cannot write " + flag + " file '" +
                               ecmo::TextForMessage(path) + "': " + error +
                               ".");
#ifdef ECMO_WITH_MPI
      // The other ranks are waiting for the sweep: end them too.
      if (mpi.size() > 1) mpi.AbortAll(status);
#endif
      return status;
    }
  }

  ecmo::ParetoSweep::Summary sweep;
  // Every entry as an evaluator instance per worker (entries built as an
  // ecmo::Problem keep it, for the cross-check's point solver).
#ifdef ECMO_WITH_MPI
  ecmo::DistributedSweepStatistics distribution;
  ecmo::DistributedSweep(sweep_options,
                         ep::MakeEvaluatorFactory(*info, problem_size),
                         preferences,
                         &sweep,
                         &distribution);
  if (!coordinator) return 0;  // rank 0 reports and sets the exit status
  if (mpi.size() > 1 && sweep.num_solved > 0) {
    // One write: under mpirun stdout and stderr are forwarded apart, and a
    // line written in pieces came out with the report's table inside it.
    std::cerr << "ecmo_solve: distributed over " + distribution.Report() + "\n"
              << std::flush;
  }
#else
  ecmo::Sweep(sweep_options,
              ep::MakeEvaluatorFactory(*info, problem_size),
              preferences,
              &sweep);
#endif
  if (sweep.termination_type == ceres::FAILURE && sweep.num_solved == 0 &&
      sweep.num_resumed == 0) {
    // Options were checked above: what is left is a refused input file (a
    // resume file from another sweep, not JSON lines, locked by another
    // run) or an output that could not be opened. Nothing was solved.
    std::cerr << "ecmo_solve: " << ForMessage(sweep.message) << "\n";
    return kExitUsage;
  }
  if (!sweep.resume_message.empty()) {
    std::cerr << "ecmo_solve: " << sweep.resume_message << "\n";
  }
  if (!sweep.threads_message.empty() && sweep.num_solved > 0 &&
      sweep.num_threads_used < sweep.num_threads_given) {
    std::cerr << "ecmo_solve: using " << sweep.num_threads_used
              << " thread(s): " << sweep.threads_message << "\n";
  }

  nlohmann::json points = nlohmann::json::array();
  bool all_usable = sweep.AllPointsUsable();
  // Worst case over the sweep when cross-checking.
  int num_agree = 0;
  double worst_z = 0.0, worst_f = 0.0, worst_multiplier = 0.0;
  if (!FLAGS_json && preferences.size() > 1) {
    std::printf("%-24s %-26s %12s %12s %12s %8s %9s %-8s %-15s %s%s\n",
                "lambda",
                "F(z)",
                "||h||",
                "||K||^2",
                "||K||^2 LS",
                "iters",
                "time (s)",
                "start",
                "verdict",
                "strategy",
                cross_check ? "  |z-z_ref|  agree" : "");
  }
  auto format_vector = [](const std::vector<double>& v, int digits) {
    std::string text = "(";
    char buffer[64];
    for (size_t i = 0; i < v.size(); ++i) {
      std::snprintf(
          buffer, sizeof(buffer), "%s%.*f", i ? ", " : "", digits, v[i]);
      text += buffer;
    }
    return text + ")";
  };
  // Kept only when written or plotted: a long sweep's points would
  // otherwise cost a JSON tree and a copy each.
  const bool keep_json =
      FLAGS_json || !FLAGS_output.empty() || preferences.size() == 1;
  int num_reached = 0;
  std::vector<ecmo::Solver::Summary> summaries;
  for (const ecmo::SweepPoint& p : sweep.points) {
    if (p.status == ecmo::SweepPoint::NOT_SOLVED) continue;
    const ecmo::Solver::Summary& summary = p.summary;
    if (!FLAGS_plot.empty()) summaries.push_back(summary);
    ++num_reached;
    nlohmann::json point = ecmo::SweepPointToJson(p, info->name);
    if (!sweep.settings.empty()) point["settings"] = sweep.settings;
    if (p.status == ecmo::SweepPoint::RESUMED && p.extra.is_object() &&
        !p.extra.contains("version")) {
      // A line written before 0.2.0, which recorded no version: do not
      // stamp this library's version on a point it did not compute.
      point.erase("version");
    }
    bool agree = false;
    double z_distance = -1.0;
    std::string verdict;
    if (cross_check) {
      // Read defensively: resumed points come from a file.
      const auto a = point.find("agreement");
      if (a != point.end() && a->is_object()) {
        const auto number = [&](const char* key) {
          const auto it = a->find(key);
          return it != a->end() && it->is_number() ? it->get<double>() : -1.0;
        };
        const auto it_agree = a->find("agree");
        agree = it_agree != a->end() && it_agree->is_boolean() &&
                it_agree->get<bool>();
        const auto it_verdict = a->find("verdict");
        if (it_verdict != a->end() && it_verdict->is_string()) {
          verdict = it_verdict->get<std::string>();
        }
        z_distance = number("z_distance");
        worst_z = std::max(worst_z, z_distance);
        worst_f = std::max(worst_f, number("objective_distance"));
        worst_multiplier =
            std::max(worst_multiplier, number("multiplier_distance"));
      }
      num_agree += agree ? 1 : 0;
    }
    if (keep_json) points.push_back(point);
    if (FLAGS_json) continue;
    if (preferences.size() == 1) {
      std::cout << summary.FullReport();
      if (cross_check && reports.size() == 1) {
        std::cout << "\n" << reports[0] << "\n";
      }
    } else {
      const std::string lam = format_vector(p.preference, 4);
      const std::string f =
          summary.objectives.size() > 0
              ? format_vector(
                    std::vector<double>(
                        summary.objectives.data(),
                        summary.objectives.data() + summary.objectives.size()),
                    6)
              : std::string("-");
      // The verdict a user acts on: certified, or why not.
      const std::string start =
          p.warm_start_from < 0 ? "cold"
                                : "warm " + std::to_string(p.warm_start_from);
      std::printf("%-24s %-26s %12.4e %12.4e %12.4e %8d %9.3g %-8s %-15s %s",
                  lam.c_str(),
                  f.c_str(),
                  summary.constraint_norm,
                  summary.kkt.with_solver_multipliers.SquaredNorm(),
                  summary.kkt.with_least_squares_multipliers.SquaredNorm(),
                  summary.iterations,
                  summary.total_time_in_seconds,
                  start.c_str(),
                  summary.termination_type == ceres::CONVERGENCE
                      ? "certified"
                      : ecmo::TerminationTypeName(summary.termination_type),
                  ecmo::StrategyTypeToString(summary.strategy));
      if (cross_check) {
        std::printf("  %10.3e  %s", z_distance, agree ? "yes" : "NO");
      }
      if (p.status == ecmo::SweepPoint::RESUMED) std::printf("  (resumed)");
      std::printf("\n");
      if (cross_check && !agree) {
        std::printf("    %s\n", verdict.c_str());
      }
      if (!summary.IsSolutionUsable()) {
        std::printf("    %s\n", summary.message.c_str());
      }
    }
  }

  nlohmann::json result;
  if (preferences.size() == 1 && points.size() == 1) {
    result = points[0];
    for (const char* key : {"index", "preference_given", "warm_start_from"}) {
      result.erase(key);
    }
  } else if (keep_json) {
    // The sweep's fields without its points (replaced by `points` above):
    // a JSON tree per point built only to be dropped was the tool's peak
    // memory on long sweeps.
    std::vector<ecmo::SweepPoint> held;
    held.swap(sweep.points);
    result = ecmo::SweepToJson(sweep, info->name);
    held.swap(sweep.points);
    result["strategy"] = ecmo::StrategyTypeToString(options.strategy);
    result["points"] = std::move(points);
  }
  if (cross_check) {
    const int n = num_reached;
    result["cross_check"] = {{"reference", "ipopt"},
                             {"points", n},
                             {"agree", num_agree},
                             {"worst_z_distance", worst_z},
                             {"worst_objective_distance", worst_f},
                             {"worst_multiplier_distance", worst_multiplier}};
    if (!FLAGS_json) {
      std::printf(
          "\nCross-check against Ipopt: %d of %d points agree; worst "
          "|z - z_ref| = %.3e, worst |F - F_ref| = %.3e, worst multiplier "
          "distance = %.3e\n",
          num_agree,
          n,
          worst_z,
          worst_f,
          worst_multiplier);
    }
  }
  // One line on the scalarization every point used: where r came from, the
  // scales, and what the automatic reference point cost.
  const auto print_scalarization_line =
      [&](const ecmo::ParetoSweep::Summary& s) {
        const ecmo::Scalarization& sc = s.scalarization;
        if (sc.reference_point.size() == 0) return;
        const auto vec = [&](const Eigen::VectorXd& v) {
          return format_vector(
              std::vector<double>(v.data(), v.data() + v.size()), 4);
        };
        std::printf(
            "%d certified, %zu non-dominated (the points ecmo_plot fills); "
            "reference point r = %s (%s), scales w = %s%s",
            s.num_converged,
            s.non_dominated.size(),
            vec(sc.reference_point).c_str(),
            ecmo::ReferencePointTypeToString(sc.reference_point_type),
            vec(sc.objective_scale).c_str(),
            sc.normalized ? " (nadir - utopia)" : "");
        if (sc.num_single_objective_solves > 0) {
          std::printf(
              "; %d single-objective solves (+%d lexicographic), %lld "
              "gradient evaluations",
              sc.num_single_objective_solves,
              sc.num_lexicographic_solves,
              static_cast<long long>(sc.evaluations.gradient_evaluations));
        }
        if (s.num_refined > 0) {
          std::printf("; %d point%s added where the front had gaps "
                      "(--refine)",
                      s.num_refined,
                      s.num_refined == 1 ? "" : "s");
        }
        std::printf("\n");
      };
  if (!FLAGS_json && preferences.size() > 1) {
    std::printf(
        "\n%d points (%d solved, %d resumed), %d usable; hypervolume %.6g "
        "(reference %s); worst ||K||^2 %.3e; %d thread(s), warm start %s, "
        "%.3f s\n",
        sweep.num_points,
        sweep.num_solved,
        sweep.num_resumed,
        sweep.num_usable,
        sweep.hypervolume,
        format_vector(std::vector<double>(sweep.reference_point.data(),
                                          sweep.reference_point.data() +
                                              sweep.reference_point.size()),
                      4)
            .c_str(),
        sweep.worst_kkt_residual_sq,
        sweep.num_threads_used,
        sweep.warm_start ? "on" : "off",
        sweep.total_time_in_seconds);
    print_scalarization_line(sweep);
    if (sweep.num_possibly_spurious_ends > 0) {
      std::printf(
          "%d point(s) possibly spurious ends of the front (one objective "
          "alone active above its minimum: a stationary point of every WC "
          "problem; \"possibly_spurious_end\" in the JSON). Try another "
          "--strategy.\n",
          sweep.num_possibly_spurious_ends);
    }
    if (sweep.num_cold_checks > 0) {
      std::printf(
          "%d warm-started point(s) compared with a cold solve (possibly KKT "
          "for other preferences too: \"cold_check\" in the JSON); the "
          "cold solve won at %d.\n",
          sweep.num_cold_checks,
          sweep.num_solved_cold);
    }
    if (sweep.num_cold_retries > 0) {
      std::printf(
          "%d warm-started point(s) did not converge and were solved again "
          "cold (\"cold_retry\" in the JSON); the cold try was kept at %d.\n",
          sweep.num_cold_retries,
          sweep.num_cold_retries_kept);
    }
  }
  const auto dump = [](const nlohmann::json& j) {
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  std::string write_error = sweep.write_error;
  if (FLAGS_json) {
    std::cout << dump(result) << "\n" << std::flush;
    if (!std::cout && write_error.empty()) {
      write_error = "writing the JSON result to stdout failed";
    }
  }
  if (!FLAGS_output.empty() &&
      !ecmo::WriteFileAtomically(FLAGS_output, dump(result) + "\n", &error)) {
    if (!write_error.empty()) write_error += "; ";
    write_error += "--output: " + error;
  }
  if (!FLAGS_csv.empty()) {
    // The sweep streamed the rows in completion order; that file stays the
    // crash-safe copy until the rename inside WriteFileAtomically replaces
    // it by the same rows in index (preference) order, index column first.
    std::vector<const ecmo::SweepPoint*> ordered;
    for (const ecmo::SweepPoint& p : sweep.points) {
      if (p.status != ecmo::SweepPoint::NOT_SOLVED) ordered.push_back(&p);
    }
    std::stable_sort(ordered.begin(),
                     ordered.end(),
                     [](const ecmo::SweepPoint* a, const ecmo::SweepPoint* b) {
                       return a->index < b->index;
                     });
    const int k =
        sweep.num_parameters >= 0 ? sweep.num_parameters : info->num_parameters;
    std::string text = ecmo::SweepCsvHeader(S, k) + "\n";
    for (const ecmo::SweepPoint* p : ordered) {
      text += ecmo::SweepCsvRow(*p, info->name) + "\n";
    }
    if (!ecmo::WriteFileAtomically(FLAGS_csv, text, &error)) {
      if (!write_error.empty()) write_error += "; ";
      write_error += "--csv: " + error;
    }
  }
  if (!FLAGS_plot.empty()) {
    ecmo::PlotOptions plot_options;
    plot_options.title =
        info->name + " (" + ecmo::StrategyTypeToString(options.strategy) + ")";
    plot_options.objective_names = sweep.objective_names;
    const Eigen::MatrixXd analytic =
        info->pareto_front ? info->pareto_front(200) : Eigen::MatrixXd();
    for (const ecmo::PlotResult& r :
         ecmo::PlotSweep(plot_options, summaries, analytic, FLAGS_plot)) {
      if (r.image_written) {
        if (!FLAGS_json)
          std::cout << "Plot written to " << r.image_path << "\n";
      } else {
        std::cerr << "ecmo_solve: --plot: " << ForMessage(r.message) << "\n";
        if (r.message.rfind("Cannot write", 0) == 0) {
          if (!write_error.empty()) write_error += "; ";
          write_error += "--plot: " + r.message;
        }
      }
    }
  }
  if (!write_error.empty()) {
    // Never "written to" after a failed write: the files miss results.
    return WriteError("writing the results failed: " + write_error +
                      ". The files named are incomplete (a replaced file "
                      "keeps its old contents); free space or fix the path "
                      "and rerun (with --resume to keep the points in "
                      "--jsonl).");
  }
  if (!FLAGS_json) {
    if (!FLAGS_output.empty())
      std::cout << "JSON written to " << FLAGS_output << "\n";
    if (!FLAGS_csv.empty()) std::cout << "CSV written to " << FLAGS_csv << "\n";
    if (!FLAGS_jsonl.empty()) {
      std::cout << "JSON lines written to " << FLAGS_jsonl << "\n";
    }
  }
  const bool all_agree =
      !cross_check || num_agree == static_cast<int>(preferences.size());
  if (!all_usable || !all_agree) return kExitFailure;
  return sweep.num_converged == sweep.num_points ? kExitCertified
                                                 : kExitNotCertified;
}

int main(int argc, char** argv) {
  ecmo::tools::ParseToolFlags(kUsage, "ecmo_solve.cc", &argc, &argv);
  ecmo::tools::ExitGuard guard("ecmo_solve", kExitFailure);
  try {
    return guard.Finish(Main(argc, argv));
  } catch (const std::bad_alloc&) {
    // Not an abort: the points finished so far are in --jsonl.
    std::cerr << "ecmo_solve: out of memory (std::bad_alloc); the --jsonl "
                 "file keeps every finished point: rerun with --resume and "
                 "fewer --num_threads, or with more memory.\n";
    return guard.Finish(kExitFailure);
  }
}
