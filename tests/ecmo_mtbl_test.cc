// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The MTBL study driver end to end: the reduced study (--smoke) on both
// digits instances with every method, asserted on the numbers it reports
// (losses fall from the start, a "prefer" preference makes its objective
// the lowest of that objective over the preferences, the WC points are
// lower-level optimal and KKT-small, the hypervolume is that of the points
// listed), the driver's errors, and its runs: on several threads, streamed
// to points.jsonl and resumed from it.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "command_runner.h"
#include "gtest/gtest.h"
#include "mtbl_study_points.h"
#include "nlohmann/json.hpp"
#include "test_files.h"

namespace {

#ifdef ECMO_MTBL_PATH

struct ToolRun {
  int exit_code = -1;
  std::string output;
};

ToolRun RunMtbl(const std::string& args, bool merge_stderr = true) {
  const ecmo::testing::CommandResult r = ecmo::testing::RunCommand(
      std::string(ECMO_MTBL_PATH) + " " + args, merge_stderr);
  return ToolRun{r.exit_code, r.output};
}

// The hypervolume of points v (maximized, reference 0) in 2..5 dimensions
// by inclusion-exclusion over the boxes [0, v_i]: an independent check of
// the driver's figure for small sets.
double BoxUnionVolume(const std::vector<std::vector<double>>& v) {
  const size_t n = v.size();
  double total = 0.0;
  for (size_t mask = 1; mask < (size_t{1} << n); ++mask) {
    std::vector<double> corner(v[0].size(),
                               std::numeric_limits<double>::infinity());
    int bits = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!(mask & (size_t{1} << i))) continue;
      ++bits;
      for (size_t s = 0; s < corner.size(); ++s) {
        corner[s] = std::min(corner[s], v[i][s]);
      }
    }
    double volume = 1.0;
    for (double c : corner) volume *= c;
    total += (bits % 2 ? 1.0 : -1.0) * volume;
  }
  return total;
}

// The smoke study with r = 0 (--scalarization=paper): a "prefer f_s" point
// then minimizes f_s alone, which the checks below use, and the full-space
// WC points take seconds, not the half minute each they take from the
// utopia point's start (benchmarks/README.md, "MTBL study").
void CheckSmokeStudy(const std::string& task,
                     const std::vector<std::string>& methods) {
  std::string list;
  for (const std::string& m : methods) list += (list.empty() ? "" : ",") + m;
  const ToolRun run = RunMtbl("--task=" + task +
                                  " --smoke --json --scalarization=paper "
                                  "--method=" +
                                  list,
                              /*merge_stderr=*/false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json study = nlohmann::json::parse(run.output);
  const int S = static_cast<int>(study["objective_names"].size());
  ASSERT_EQ(S, 5);
  std::map<int, std::vector<double>> start;
  for (const auto& s : study["start"]) {
    start[s["seed"].get<int>()] = s["losses"].get<std::vector<double>>();
  }
  ASSERT_EQ(start.size(), 1u);

  // Every method's every point improves on the start in its own measure:
  // the WC and LS points in the weighted (Chebyshev or sum) value of their
  // preference, the preference-free points in the sum of the losses.
  std::map<std::string, int> points_per_method;
  // losses[seed][preference name] for wc-penalty.
  std::map<int, std::map<std::string, std::vector<double>>> wc;
  for (const auto& p : study["points"]) {
    const std::string method = p["method"];
    const int seed = p["seed"];
    ++points_per_method[method];
    ASSERT_TRUE(p["usable"].get<bool>()) << p.dump();
    const std::vector<double> f = p["losses"];
    const std::vector<double>& f0 = start[seed];
    ASSERT_EQ(static_cast<int>(f.size()), S);
    const std::vector<double> w = p["preference"];
    double value = 0.0, value0 = 0.0;
    for (int s = 0; s < S; ++s) {
      if (w.empty()) {
        value += f[s];
        value0 += f0[s];
      } else if (method.rfind("wc-", 0) == 0) {
        value = std::max(value, w[s] * f[s]);
        value0 = std::max(value0, w[s] * f0[s]);
      } else {
        value += w[s] * f[s];
        value0 += w[s] * f0[s];
      }
    }
    EXPECT_LT(value, value0)
        << method << " seed " << seed << " " << p["preference_name"];
    if (method == "wc-penalty") {
      wc[seed][p["preference_name"].get<std::string>()] = f;
      // Lower-level optimal, and KKT-small (the smoke budget certifies).
      EXPECT_LT(p["grad_y_g_norm"].get<double>(), 1e-4) << p.dump();
      EXPECT_LT(p["kkt_residual_sq"].get<double>(), 1e-6) << p.dump();
      EXPECT_LT(std::abs(p["lower_level_gap"].get<double>()), 1e-6) << p.dump();
    }
  }
  // Three preferences for the preference-taking methods, one run for the
  // others.
  for (const std::string& m : methods) {
    const bool per_preference =
        m.rfind("wc-", 0) == 0 || m == "itd-ls" || m == "soba-ls";
    EXPECT_EQ(points_per_method[m], per_preference ? 3 : 1) << m;
  }
  // Preferring f_1 (f_2) gives the lowest f_1 (f_2) of the three WC points.
  const bool has_wc =
      std::find(methods.begin(), methods.end(), "wc-penalty") != methods.end();
  for (const auto& [seed, by_name] : wc) {
    ASSERT_EQ(by_name.size(), 3u);
    for (int s = 0; s < 2; ++s) {
      const std::string preferred = "prefer-f" + std::to_string(s + 1);
      for (const auto& [name, f] : by_name) {
        if (name == preferred) continue;
        EXPECT_LE(by_name.at(preferred)[s], f[s] + 1e-9)
            << "seed " << seed << ": " << preferred << " vs " << name;
      }
    }
  }
  // The reported hypervolume of wc-penalty is that of its listed points.
  double hv_sum = 0.0;
  for (const auto& [seed, by_name] : wc) {
    std::vector<std::vector<double>> v;
    for (const auto& [name, f] : by_name) {
      std::vector<double> inverse(S);
      for (int s = 0; s < S; ++s) inverse[s] = 1.0 / f[s];
      v.push_back(inverse);
    }
    hv_sum += BoxUnionVolume(v);
  }
  if (has_wc) {
    const double reported = study["hypervolume"];
    EXPECT_NEAR(reported, hv_sum / wc.size(), 1e-9 * hv_sum);
  }
  for (const auto& row : study["methods"]) {
    if (row["method"] == "wc-penalty") {
      EXPECT_EQ(row["converged"].get<int>(), 3);
    }
    // Every row has a hypervolume and an epsilon.
    EXPECT_EQ(row["hypervolume"]["count"].get<int>(), 1) << row.dump();
    EXPECT_GT(row["hypervolume"]["mean"].get<double>(), 0.0) << row.dump();
    EXPECT_GE(row["epsilon"]["mean"].get<double>(), 0.0) << row.dump();
  }
}

TEST(EcmoMtbl, SmokeStudyOnDigitsDataWeighting) {
  CheckSmokeStudy("digits_data_weighting",
                  {"wc-penalty",
                   "wc-reduced",
                   "moml",
                   "moco",
                   "forum",
                   "itd-ls",
                   "soba-ls"});
}

// The baselines only: the full-space WC strategies do not converge on this
// instance within a useful budget yet (benchmarks/README.md, "MTBL study").
TEST(EcmoMtbl, SmokeStudyOnDigitsMetaLearningBaselines) {
  CheckSmokeStudy("digits_meta_learning",
                  {"moml", "moco", "forum", "itd-ls", "soba-ls"});
}

TEST(EcmoMtbl, WritesPointsStudyAndPictures) {
  const std::string dir = ::testing::TempDir() + "/ecmo_mtbl_out";
  const ToolRun run = RunMtbl(
      "--task=digits_data_weighting --smoke --method=wc-penalty,itd-ls "
      "--scalarization=paper --output_dir=" +
      dir);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("HV(1/loss)"), std::string::npos) << run.output;
  std::ifstream csv(dir + "/points.csv");
  ASSERT_TRUE(csv.good());
  int lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  EXPECT_EQ(lines, 1 + 2 * 3);  // header, 2 methods x 3 preferences
  std::ifstream json(dir + "/study.json");
  // Not discarded: a study.json that does not parse (no exceptions asked).
  EXPECT_FALSE(nlohmann::json::parse(json, nullptr, false).is_discarded());
  // The settings header of points.jsonl is, but for --method, the one of
  // the resume fuzzer's seeds (real --smoke runs of every method): were it
  // to change, the fuzzer would refuse every seed at its first line and
  // never reach a run's line. Then make the seeds again (fuzz/corpus/
  // mtbl_resume_fuzzer/seed-smoke*: ecmo_mtbl --smoke [--scalarization=
  // utopia] --output_dir=DIR, its points.jsonl) and the fuzzer's settings.
  std::string header, seed_header;
  std::getline(std::ifstream(dir + "/points.jsonl"), header);
  std::getline(std::ifstream(std::string(ECMO_SOURCE_DIR) +
                             "/fuzz/corpus/mtbl_resume_fuzzer/seed-smoke"),
               seed_header);
  nlohmann::json written = nlohmann::json::parse(header, nullptr, false);
  nlohmann::json seeded = nlohmann::json::parse(seed_header, nullptr, false);
  ASSERT_TRUE(written.contains("settings")) << header;
  ASSERT_TRUE(seeded.contains("settings")) << seed_header;
  written["settings"].erase("methods");
  seeded["settings"].erase("methods");
  EXPECT_EQ(written["settings"], seeded["settings"]);
  if (std::system("gnuplot --version > /dev/null 2>&1") == 0) {
    std::ifstream front(dir + "/front.png"), curves(dir + "/convergence.png");
    EXPECT_TRUE(front.good());
    EXPECT_TRUE(curves.good());
  }
}

// The equal preference keeps its name when it comes from a file (so the
// first WC method's "(equal)" row exists), and the other rows are file
// lines.
TEST(EcmoMtbl, EqualPreferenceFromAFileIsNamedEqual) {
  const std::string path = ::testing::TempDir() + "/ecmo_mtbl_prefs.txt";
  {
    std::ofstream out(path);
    out << "0.96,0.01,0.01,0.01,0.01\n1,1,1,1,1\n";
  }
  const ToolRun run = RunMtbl(
      "--task=digits_data_weighting --method=itd-ls --seeds=1 "
      "--baseline_iterations=3 --json --preferences=file:" +
          path,
      /*merge_stderr=*/false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json study = nlohmann::json::parse(run.output);
  ASSERT_EQ(study["points"].size(), 2u);
  EXPECT_EQ(study["points"][0]["preference_name"], "file-line-1");
  EXPECT_EQ(study["points"][1]["preference_name"], "equal");
  for (double w : study["points"][1]["preference"]) EXPECT_DOUBLE_EQ(w, 0.2);
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Brute-force loss-space indicators of one seed, independent of the
// driver's: the non-dominated union by pairwise comparison, the reference
// point nadir + 0.1 (nadir - ideal) of that union, the hypervolume as the
// union of the boxes [f, r] by inclusion-exclusion, eps+ and IGD+ from
// their definitions.
using Matrix = std::vector<std::vector<double>>;

Matrix NonDominated(const Matrix& points) {
  Matrix out;
  for (size_t i = 0; i < points.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < points.size() && !dominated; ++j) {
      bool no_worse = true, better = false;
      for (size_t s = 0; s < points[i].size(); ++s) {
        no_worse = no_worse && points[j][s] <= points[i][s];
        better = better || points[j][s] < points[i][s];
      }
      dominated = no_worse && better;
    }
    if (!dominated) out.push_back(points[i]);
  }
  return out;
}

double LossHypervolume(const Matrix& points, const std::vector<double>& r) {
  Matrix v;  // r - f, kept where f strictly dominates r
  for (const auto& f : points) {
    std::vector<double> d(r.size());
    bool inside = true;
    for (size_t s = 0; s < r.size(); ++s) {
      d[s] = r[s] - f[s];
      inside = inside && d[s] > 0.0;
    }
    if (inside) v.push_back(d);
  }
  return v.empty() ? 0.0 : BoxUnionVolume(v);
}

double EpsilonPlus(const Matrix& a, const Matrix& reference) {
  double worst = -std::numeric_limits<double>::infinity();
  for (const auto& r : reference) {
    double best = std::numeric_limits<double>::infinity();
    for (const auto& p : a) {
      double m = -std::numeric_limits<double>::infinity();
      for (size_t s = 0; s < r.size(); ++s) m = std::max(m, p[s] - r[s]);
      best = std::min(best, m);
    }
    worst = std::max(worst, best);
  }
  return worst;
}

double IgdPlus(const Matrix& a, const Matrix& reference) {
  double sum = 0.0;
  for (const auto& r : reference) {
    double best = std::numeric_limits<double>::infinity();
    for (const auto& p : a) {
      double d = 0.0;
      for (size_t s = 0; s < r.size(); ++s) {
        d += std::pow(std::max(p[s] - r[s], 0.0), 2);
      }
      best = std::min(best, std::sqrt(d));
    }
    sum += best;
  }
  return sum / reference.size();
}

// --method=all runs one WC form (the reduced one for a strongly convex
// lower level, the full-space one when --l2 = 0 makes it merely convex)
// beside the five baselines, and every row's HV(loss), eps+ and IGD+ are
// those of its points against the union of all methods' points.
TEST(EcmoMtbl, AllRunsOneWcFormAndScoresEveryRowInLossSpace) {
  for (const std::string l2 : {"", "--l2=0"}) {
    SCOPED_TRACE(l2);
    const ToolRun run =
        RunMtbl("--task=mtbl_logistic --smoke --method=all --json " + l2,
                /*merge_stderr=*/false);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const nlohmann::json study = nlohmann::json::parse(run.output);
    const std::string wc = l2.empty() ? "wc-reduced" : "wc-penalty";
    std::vector<std::string> rows;
    for (const auto& row : study["methods"]) rows.push_back(row["method"]);
    EXPECT_EQ(rows,
              (std::vector<std::string>{wc,
                                        wc + " (equal)",
                                        "moml",
                                        "moco",
                                        "forum",
                                        "itd-ls",
                                        "soba-ls"}));
    std::map<std::string, Matrix> losses;
    Matrix all;
    for (const auto& p : study["points"]) {
      ASSERT_TRUE(p["usable"].get<bool>()) << p.dump();
      const std::vector<double> f = p["losses"];
      losses[p["method"]].push_back(f);
      if (p["method"] == wc && p["preference_name"] == "equal") {
        losses[wc + " (equal)"].push_back(f);
      }
      all.push_back(f);
    }
    const Matrix front = NonDominated(all);
    const size_t S = front[0].size();
    std::vector<double> ideal(S, 1e300), nadir(S, -1e300), r(S);
    for (const auto& f : front) {
      for (size_t s = 0; s < S; ++s) {
        ideal[s] = std::min(ideal[s], f[s]);
        nadir[s] = std::max(nadir[s], f[s]);
      }
    }
    for (size_t s = 0; s < S; ++s)
      r[s] = nadir[s] + 0.1 * (nadir[s] - ideal[s]);
    const std::vector<double> reported_r =
        study["hypervolume_loss_reference_per_seed"][0];
    ASSERT_EQ(reported_r.size(), S);
    for (size_t s = 0; s < S; ++s) EXPECT_NEAR(reported_r[s], r[s], 1e-12);
    for (const auto& row : study["methods"]) {
      const Matrix& mine = losses[row["method"]];
      SCOPED_TRACE(row["method"].get<std::string>());
      ASSERT_FALSE(mine.empty());
      const double hv = LossHypervolume(mine, r);
      EXPECT_NEAR(row["hypervolume_loss"]["mean"].get<double>(),
                  hv,
                  1e-9 * std::max(hv, 1e-12));
      EXPECT_NEAR(row["epsilon_loss"]["mean"].get<double>(),
                  EpsilonPlus(mine, front),
                  1e-12);
      EXPECT_NEAR(row["igd_plus_loss"]["mean"].get<double>(),
                  IgdPlus(mine, front),
                  1e-12);
      // One seed: its per-seed values are the means.
      for (const char* key :
           {"hypervolume_loss", "epsilon_loss", "igd_plus_loss"}) {
        ASSERT_EQ(row["per_seed"][key].size(), 1u) << key;
        EXPECT_EQ(row["per_seed"][key][0], row[key]["mean"]) << key;
      }
    }
  }
}

// Per seed, the baselines' wall-time budget is the mean time per point of
// the first WC method (times F with matched:F); a baseline uses it up
// unless its own stationarity test stops it first. A number of seconds is
// the budget itself.
TEST(EcmoMtbl, MatchedBudgetsGiveBaselinesTheWcTimePerPoint) {
  std::vector<std::pair<std::string, double>> specs = {
      {"matched", 1.0}, {"matched:2", 2.0}, {"0.25", -0.25}};
#ifdef ECMO_UNDER_ASAN
  // The sanitizers make each study about 15 times slower; the two-phase
  // code is the same for the three forms.
  specs.resize(1);
#endif
  for (const auto& [spec, factor] : specs) {
    SCOPED_TRACE(spec);
    // r = 0: the budgets do not depend on the scalarization, and the
    // utopia point's solves would double the study's time.
    const ToolRun run = RunMtbl(
        "--task=mtbl_logistic --smoke --method=wc-reduced,itd-ls,moml "
        "--scalarization=paper --json --baseline_budget=" +
            spec,
        /*merge_stderr=*/false);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const nlohmann::json study = nlohmann::json::parse(run.output);
    EXPECT_EQ(study["baseline_budget"], spec);
    int wc_points = 0;
    const double wc_seconds =
        ecmo::testing::MeanSeconds(study, "wc-reduced", &wc_points);
    ASSERT_EQ(wc_points, 3);
    const double budget = factor > 0.0 ? factor * wc_seconds : -factor;
    int baseline_points = 0;
    for (const auto& p : study["points"]) {
      if (p["method"] == "wc-reduced") {
        EXPECT_TRUE(p["budget_seconds"].is_null()) << p.dump();
        continue;
      }
      ++baseline_points;
      ASSERT_TRUE(p["budget_seconds"].is_number()) << p.dump();
      EXPECT_NEAR(p["budget_seconds"].get<double>(), budget, 1e-9 * budget);
      const double seconds = p["seconds"].get<double>();
      if (p["termination"] == "CONVERGENCE") {
        EXPECT_LT(seconds, budget) << p.dump();
      } else {
        EXPECT_EQ(p["termination"], "NO_CONVERGENCE") << p.dump();
        EXPECT_GE(seconds, budget) << p.dump();
        // No iteration cap: the smoke study's fixed 40 do not stop it.
        EXPECT_NE(p["message"].get<std::string>().find("solver time"),
                  std::string::npos)
            << p.dump();
      }
      EXPECT_LT(seconds, budget + std::max(1.0, budget)) << p.dump();
    }
    EXPECT_EQ(baseline_points, 4);  // itd-ls at 3 preferences, moml once
  }
}

// The utopia point's time is charged in full to each WC method that uses
// it: every WC point's seconds in study.json are its solve's (as streamed
// to points.jsonl) plus the seed's utopia seconds over the preferences.
TEST(EcmoMtbl, UtopiaTimeIsChargedToEachWcMethod) {
  const std::string dir = ::testing::TempDir() + "/ecmo_mtbl_utopia_charge";
  const ToolRun run = RunMtbl(
      "--task=mtbl_logistic --smoke --method=wc-penalty,wc-reduced,moml "
      "--scalarization=utopia --output_dir=" +
      dir);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::ifstream in(dir + "/study.json");
  const nlohmann::json study = nlohmann::json::parse(in);
  const double utopia =
      study["scalarization_per_seed"][0]["seconds"].get<double>();
  ASSERT_GT(utopia, 0.0);
  std::map<std::pair<std::string, std::string>, double> streamed;
  const std::vector<std::string> lines = ReadLines(dir + "/points.jsonl");
  for (size_t i = 1; i < lines.size(); ++i) {
    const nlohmann::json p = nlohmann::json::parse(lines[i])["point"];
    streamed[{p["method"], p["preference_name"]}] = p["seconds"];
  }
  int charged = 0;
  for (const auto& p : study["points"]) {
    const double raw = streamed.at({p["method"], p["preference_name"]});
    const double expected = p["method"] == "moml" ? raw : raw + utopia / 3.0;
    EXPECT_NEAR(p["seconds"].get<double>(), expected, 1e-12) << p.dump();
    if (p["method"] != "moml") ++charged;
  }
  EXPECT_EQ(charged, 6);
}

// With r = 0 the paper's "prefer f1" and "slightly prefer f1" presets
// select the same weakly Pareto point (only f1 is pushed); with the utopia
// reference point and nadir - utopia scales each selects its own, and both
// are certified for the WC problem they were solved for.
TEST(EcmoMtbl, UtopiaScalarizationSeparatesLopsidedPresets) {
  const std::string path = ::testing::TempDir() + "/ecmo_mtbl_lopsided.txt";
  {
    std::ofstream out(path);
    out << "0.96,0.01,0.01,0.01,0.01\n0.84,0.04,0.04,0.04,0.04\n";
  }
  std::map<std::string, std::vector<std::vector<double>>> losses;
  for (const std::string scalarization : {"paper", "utopia"}) {
    const ToolRun run = RunMtbl(
        "--task=digits_data_weighting --method=wc-reduced --seeds=1 --json "
        "--scalarization=" +
            scalarization + " --preferences=file:" + path,
        /*merge_stderr=*/false);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const nlohmann::json study = nlohmann::json::parse(run.output);
    EXPECT_EQ(study["scalarization"], scalarization);
    ASSERT_EQ(study["points"].size(), 2u);
    for (const auto& p : study["points"]) {
      ASSERT_TRUE(p["usable"].get<bool>()) << p.dump();
      EXPECT_LE(p["kkt_residual_sq"].get<double>(), 1e-10) << p.dump();
      losses[scalarization].push_back(p["losses"].get<std::vector<double>>());
    }
    if (scalarization == "utopia") {
      // The reference point lies below every point found.
      const std::vector<double> r =
          study["scalarization_per_seed"][0]["reference_point"];
      for (const auto& f : losses[scalarization]) {
        for (size_t s = 0; s < r.size(); ++s) EXPECT_LT(r[s], f[s]);
      }
    }
  }
  auto distance = [](const std::vector<double>& a,
                     const std::vector<double>& b) {
    double d = 0.0;
    for (size_t s = 0; s < a.size(); ++s) {
      d = std::max(d, std::abs(a[s] - b[s]));
    }
    return d;
  };
  EXPECT_LT(distance(losses["paper"][0], losses["paper"][1]), 1e-4);
  EXPECT_GT(distance(losses["utopia"][0], losses["utopia"][1]), 1e-2);
}

// The reduced form's strategy and the lower level's CG preconditioner
// change the work, not the point: the automatic choices (wc-sqp, x having
// 3 entries; a factorized Hessian of g) reach the certified point of
// wc-newton with plain CG, with fewer Hessian-vector products than wc-sqp
// with plain CG.
TEST(EcmoMtbl, ReducedStrategyAndPreconditionerChangeOnlyTheWork) {
  struct Run {
    std::string flags, strategy, preconditioner;
    nlohmann::json point;
  };
  std::vector<Run> runs = {
      {"", "wc-sqp", "automatic", {}},
      {"--reduced_strategy=wc-sqp --lower_preconditioner=identity",
       "wc-sqp",
       "identity",
       {}},
      {"--reduced_strategy=wc-newton --lower_preconditioner=identity",
       "wc-newton",
       "identity",
       {}}};
  for (Run& r : runs) {
    const ToolRun run = RunMtbl(
        "--task=digits_data_weighting --method=wc-reduced --seeds=1 --json "
        "--preferences=equal " +
            r.flags,
        /*merge_stderr=*/false);
    ASSERT_EQ(run.exit_code, 0) << r.flags << "\n" << run.output;
    const nlohmann::json study = nlohmann::json::parse(run.output);
    EXPECT_EQ(study["reduced_strategy"], r.strategy) << r.flags;
    EXPECT_EQ(study["lower_preconditioner"], r.preconditioner) << r.flags;
    ASSERT_EQ(study["points"].size(), 1u);
    r.point = study["points"][0];
    ASSERT_TRUE(r.point["usable"].get<bool>()) << r.point.dump();
    EXPECT_LE(r.point["kkt_residual_sq"].get<double>(), 1e-10) << r.flags;
  }
  const std::vector<double> reference = runs[2].point["losses"];
  for (const Run& r : runs) {
    const std::vector<double> losses = r.point["losses"];
    ASSERT_EQ(losses.size(), reference.size());
    for (size_t s = 0; s < losses.size(); ++s) {
      EXPECT_NEAR(losses[s], reference[s], 1e-6 * reference[s]) << r.flags;
    }
  }
  EXPECT_LT(2 * runs[0].point["hessian_products"].get<int64_t>(),
            runs[1].point["hessian_products"].get<int64_t>());
}

using ecmo::testing::ReadText;

// The study of the resume and thread tests: every kind of method (the
// full-space and reduced WC forms, a preference-taking and a preference-
// free baseline) on the synthetic instance, 10 runs in about a second.
// r = 0 (--scalarization=paper): with the default utopia point the
// reduced form's points agree across threads only to the solver's
// tolerance (UtopiaScalarizationIsSharedByTheThreads), not to the bit.
const char kStudy[] =
    "--task=mtbl_logistic --smoke --method=wc-penalty,wc-reduced,itd-ls,moml "
    "--scalarization=paper";

// Two worker threads solve the same points as one: each thread has its
// own instances, and every run starts from the instance's start point.
TEST(EcmoMtbl, TwoThreadsSolveTheSamePointsAsOne) {
  const std::string one = ::testing::TempDir() + "/ecmo_mtbl_threads1";
  const std::string two = ::testing::TempDir() + "/ecmo_mtbl_threads2";
  ASSERT_EQ(RunMtbl(std::string(kStudy) + " --output_dir=" + one).exit_code, 0);
  const ToolRun run =
      RunMtbl(std::string(kStudy) + " --num_threads=2 --output_dir=" + two);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json a = ecmo::testing::StudyPoints(one + "/study.json");
  ASSERT_EQ(a.size(), 10u);
  ecmo::testing::ExpectSameStudyPoints(
      a, ecmo::testing::StudyPoints(two + "/study.json"));
}

// With the utopia reference point each seed's S single-objective solves
// run once per process, spread over one instance per thread (the threads
// that come next take those instances): two threads report 2 instances and
// reach the one-thread scalarization and points to solver tolerance (the
// reduced form carries its lower-level warm starts from solve to solve, so
// not bit for bit).
TEST(EcmoMtbl, UtopiaScalarizationIsSharedByTheThreads) {
  const std::string flags =
      "--task=mtbl_logistic --smoke --method=wc-reduced,itd-ls "
      "--scalarization=utopia --json";
  nlohmann::json study[2];
  for (int threads = 1; threads <= 2; ++threads) {
    const ToolRun run =
        RunMtbl(flags + " --num_threads=" + std::to_string(threads),
                /*merge_stderr=*/false);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    study[threads - 1] = nlohmann::json::parse(run.output);
    ASSERT_EQ(study[threads - 1]["scalarization_per_seed"].size(), 1u);
    EXPECT_EQ(study[threads - 1]["scalarization_per_seed"][0]["instances"],
              threads);
  }
  for (const char* key : {"reference_point", "objective_scale"}) {
    const std::vector<double> a = study[0]["scalarization_per_seed"][0][key];
    const std::vector<double> b = study[1]["scalarization_per_seed"][0][key];
    ASSERT_EQ(a.size(), 3u);
    ASSERT_EQ(b.size(), a.size());
    for (size_t s = 0; s < a.size(); ++s) {
      EXPECT_NEAR(a[s], b[s], 1e-8 * std::abs(a[s])) << key << " " << s;
    }
  }
  const nlohmann::json& one = study[0]["points"];
  const nlohmann::json& two = study[1]["points"];
  ASSERT_EQ(one.size(), 6u);
  ASSERT_EQ(two.size(), one.size());
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i]["method"], two[i]["method"]);
    const std::vector<double> fa = one[i]["losses"], fb = two[i]["losses"];
    ASSERT_EQ(fa.size(), fb.size());
    for (size_t s = 0; s < fa.size(); ++s) {
      EXPECT_NEAR(fa[s], fb[s], 1e-6 * std::abs(fa[s])) << "point " << i;
    }
  }
}

// points.jsonl holds a header and every finished run at once; a study cut
// short (here: its last runs removed and a line cut in the middle, as a
// kill leaves it) is finished by --resume, which solves only the missing
// runs, and ends with the same points as the uninterrupted study.
TEST(EcmoMtbl, ResumeFinishesAStudyCutShortWithTheSamePoints) {
  const std::string clean = ::testing::TempDir() + "/ecmo_mtbl_clean";
  const std::string cut = ::testing::TempDir() + "/ecmo_mtbl_cut";
  ASSERT_EQ(RunMtbl(std::string(kStudy) + " --output_dir=" + clean).exit_code,
            0);
  const std::vector<std::string> lines = ReadLines(clean + "/points.jsonl");
  ASSERT_EQ(lines.size(), 11u);  // the header and 10 runs
  const nlohmann::json header = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(header["settings"]["task"], "mtbl_logistic");
  ASSERT_EQ(std::system(("mkdir -p " + cut).c_str()), 0);
  {
    std::ofstream out(cut + "/points.jsonl", std::ios::trunc);
    for (int i = 0; i < 5; ++i) out << lines[i] << "\n";  // 4 runs
    out << lines[5].substr(0, lines[5].size() / 2);       // cut short
  }
  const ToolRun resumed =
      RunMtbl(std::string(kStudy) + " --resume --output_dir=" + cut);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("dropped a last line cut short"),
            std::string::npos)
      << resumed.output;
  EXPECT_NE(resumed.output.find("resumed 4 of 10 runs"), std::string::npos)
      << resumed.output;
  // Only the 6 missing runs were solved (one progress line each).
  int solved = 0;
  for (size_t at = resumed.output.find("seed 1 "); at != std::string::npos;
       at = resumed.output.find("seed 1 ", at + 1)) {
    ++solved;
  }
  EXPECT_EQ(solved, 6) << resumed.output;
  EXPECT_EQ(ReadLines(cut + "/points.jsonl").size(), 11u);
  ecmo::testing::ExpectSameStudyPoints(
      ecmo::testing::StudyPoints(clean + "/study.json"),
      ecmo::testing::StudyPoints(cut + "/study.json"));
  // A finished study resumes to itself without solving anything.
  const ToolRun again =
      RunMtbl(std::string(kStudy) + " --resume --output_dir=" + cut);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("resumed 10 of 10 runs"), std::string::npos)
      << again.output;
  ecmo::testing::ExpectSameStudyPoints(
      ecmo::testing::StudyPoints(clean + "/study.json"),
      ecmo::testing::StudyPoints(cut + "/study.json"));
}

// --resume refuses a points.jsonl it cannot continue, naming the reason
// and leaving the file as it was.
TEST(EcmoMtbl, ResumeRefusesAnotherStudysFile) {
  const std::string dir = ::testing::TempDir() + "/ecmo_mtbl_other";
  ASSERT_EQ(RunMtbl(std::string(kStudy) + " --output_dir=" + dir).exit_code, 0);
  const std::vector<std::string> before = ReadLines(dir + "/points.jsonl");
  struct Case {
    std::string args, text;
  };
  for (const Case& c : std::vector<Case>{
           {std::string(kStudy) + " --l2=0.01", "other settings (l2)"},
           {"--task=mtbl_logistic --smoke --method=wc-penalty "
            "--scalarization=paper",
            "other settings (methods)"}}) {
    const ToolRun run = RunMtbl(c.args + " --resume --output_dir=" + dir);
    EXPECT_EQ(run.exit_code, 2) << c.args << "\n" << run.output;
    EXPECT_NE(run.output.find(c.text), std::string::npos) << run.output;
  }
  EXPECT_EQ(ReadLines(dir + "/points.jsonl"), before);
  // Not a study's file at all.
  const std::string junk = ::testing::TempDir() + "/ecmo_mtbl_junk";
  ASSERT_EQ(std::system(("mkdir -p " + junk).c_str()), 0);
  {
    std::ofstream out(junk + "/points.jsonl", std::ios::trunc);
    out << "{\"index\": 0}\nnot json\n{}\n";
  }
  const ToolRun run =
      RunMtbl(std::string(kStudy) + " --resume --output_dir=" + junk);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("points.jsonl:2: not JSON"), std::string::npos)
      << run.output;
  // --resume without a directory.
  const ToolRun alone = RunMtbl(std::string(kStudy) + " --resume");
  EXPECT_EQ(alone.exit_code, 2) << alone.output;
  EXPECT_NE(alone.output.find("--resume needs --output_dir"), std::string::npos)
      << alone.output;
}

// A run's line with a field of the wrong type, range or size stops
// --resume with exit 2, naming the line and the field, and leaves the file
// as it was: a "seed" that is not an object aborted the tool (an uncaught
// nlohmann type_error), a point's seed above the int range was truncated
// to another seed and taken, and vectors of another length than the
// study's objectives were read past their end.
TEST(EcmoMtbl, ResumeRefusesMalformedLinesNamingTheField) {
  const std::string dir = ::testing::TempDir() + "/ecmo_mtbl_malformed";
  // 4 runs: itd-ls at 3 preferences, moml; 3 objectives.
  const std::string study =
      "--task=mtbl_logistic --smoke --method=itd-ls,moml --output_dir=" + dir;
  ASSERT_EQ(RunMtbl(study).exit_code, 0);
  const std::vector<std::string> lines = ReadLines(dir + "/points.jsonl");
  ASSERT_EQ(lines.size(), 5u);
  const nlohmann::json run = nlohmann::json::parse(lines[1]);
  ASSERT_EQ(run["point"]["method"], "itd-ls");
  struct Case {
    std::string what;  // expected in the message after "points.jsonl:2: "
    std::function<void(nlohmann::json*)> edit;
  };
  using J = nlohmann::json;
  const std::vector<Case> cases = {
      {"seed is not an object", [](J* j) { (*j)["seed"] = 7; }},
      {"seed is not an object", [](J* j) { (*j)["seed"] = "1"; }},
      {"the line is not an object",
       [](J* j) {
         *j = J::array({1, 2});
       }},
      {"task is not an integer in [0, 3]", [](J* j) { (*j)["task"] = "0"; }},
      {"task is not an integer in [0, 3]", [](J* j) { (*j)["task"] = 4; }},
      {"point.losses is missing", [](J* j) { (*j)["point"].erase("losses"); }},
      {"point is missing", [](J* j) { j->erase("point"); }},
      {"point.seconds is not a finite number >= 0",
       [](J* j) { (*j)["point"]["seconds"] = "0.5"; }},
      {"point.kkt_residual_sq is not a finite number >= 0 or null",
       [](J* j) { (*j)["point"]["kkt_residual_sq"] = "NaN"; }},
      {"point.losses is not an array of finite numbers",
       [](J* j) { (*j)["point"]["losses"][0] = nullptr; }},
      // An infinity written as 1e999 is refused by the parser.
      {"not JSON", [](J* j) { (*j)["point"]["losses"][0] = 12345.5; }},
      {"point.losses has 2 entries; expected 0 or 3",
       [](J* j) {
         (*j)["point"]["losses"] = {1.0, 2.0};
       }},
      {"point.preference has 4 entries; expected 0 or 3",
       [](J* j) { (*j)["point"]["preference"].push_back(0.5); }},
      {"run 0 is another method, seed or preference than this study's",
       [](J* j) { (*j)["point"]["preference"][0] = 0.5; }},
      {"point.usable is not true or false",
       [](J* j) { (*j)["point"]["usable"] = 1; }},
      {"point.seed is not an integer in [0, 2147483647]",
       [](J* j) { (*j)["point"]["seed"] = uint64_t{4294967297}; }},
      {"point.gradient_evaluations is not an integer in [0, ",
       [](J* j) { (*j)["point"]["gradient_evaluations"] = -5; }},
      {"point.curve_worst_loss is not as long as point.curve_time",
       [](J* j) { (*j)["point"]["curve_time"].push_back(1.0); }},
      {"seed.start is not an object",
       [](J* j) { (*j)["seed"]["start"] = J::array(); }},
      {"seed.start.losses has 1 entries; expected 3",
       [](J* j) { (*j)["seed"]["start"]["losses"] = {1.0}; }},
      {"seed.start.seed is 2, not the run's seed 1",
       [](J* j) { (*j)["seed"]["start"]["seed"] = 2; }},
      {"seed.lambda_max is not a finite number or null",
       [](J* j) { (*j)["seed"]["lambda_max"] = "big"; }},
      {"seed.scalarization is there, but the study's --scalarization is "
       "paper",
       [](J* j) { (*j)["seed"]["scalarization"] = J::object(); }},
  };
  for (const Case& c : cases) {
    nlohmann::json edited = run;
    c.edit(&edited);
    std::string line = edited.dump();
    const size_t inf = line.find("12345.5");
    if (inf != std::string::npos) line.replace(inf, 7, "1e999");
    std::string text = lines[0] + "\n" + line + "\n";
    for (size_t i = 2; i < lines.size(); ++i) text += lines[i] + "\n";
    {
      std::ofstream out(dir + "/points.jsonl", std::ios::trunc);
      out << text;
    }
    const ToolRun resumed = RunMtbl(study + " --resume");
    EXPECT_EQ(resumed.exit_code, 2) << c.what << "\n" << resumed.output;
    EXPECT_NE(resumed.output.find("points.jsonl:2: " + c.what),
              std::string::npos)
        << resumed.output;
    EXPECT_EQ(ReadText(dir + "/points.jsonl"), text) << c.what;
  }
  // NaN is not JSON: the line is refused as such.
  {
    std::ofstream out(dir + "/points.jsonl", std::ios::trunc);
    out << lines[0] << "\n{\"task\": NaN}\n";
  }
  const ToolRun nan = RunMtbl(study + " --resume");
  EXPECT_EQ(nan.exit_code, 2) << nan.output;
  EXPECT_NE(nan.output.find("points.jsonl:2: not JSON"), std::string::npos)
      << nan.output;
  // The file as written resumes.
  {
    std::ofstream out(dir + "/points.jsonl", std::ios::trunc);
    for (const std::string& line : lines) out << line << "\n";
  }
  const ToolRun resumed = RunMtbl(study + " --resume");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resumed 4 of 4 runs"), std::string::npos)
      << resumed.output;
}

// --resume reads points.jsonl once, under ecmo::JsonReadLimits: a file
// above 1 GiB (sparse here) is refused by its size before any of it is
// read, and left as it was. It guards that single read, which also finds
// a cut last line: read by a plain ifstream, the file would be read whole.
TEST(EcmoMtbl, ResumeRefusesAPointsFileAboveTheSizeLimit) {
  const std::string dir = ::testing::TempDir() + "/ecmo_mtbl_huge";
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  const std::string path = dir + "/points.jsonl";
  const off_t size = (off_t{1} << 30) + 4096;
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, size), 0);
    ::close(fd);
  }
  const ToolRun run =
      RunMtbl(std::string(kStudy) + " --resume --output_dir=" + dir);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("points.jsonl: its 1073745920 bytes exceed the "
                            "limit of 1 GiB"),
            std::string::npos)
      << run.output;
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, size);
  ::unlink(path.c_str());
}

// Two studies writing one directory at once tore points.jsonl (both exit
// 0, and the next --resume was refused): while one holds the directory's
// lock, another stops before it reads or writes anything, with or without
// --resume.
TEST(EcmoMtbl, ConcurrentStudiesInOneDirectoryAreRefused) {
  const std::string dir = ::testing::TempDir() + "/ecmo_mtbl_lock";
  const std::string study = "--task=mtbl_logistic --smoke --method=moml ";
  ASSERT_EQ(RunMtbl(study + "--output_dir=" + dir).exit_code, 0);
  const std::string points = ReadText(dir + "/points.jsonl");
  const std::string document = ReadText(dir + "/study.json");
  ASSERT_FALSE(points.empty());
  const int fd = ::open((dir + "/.lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  for (const char* resume : {"--resume ", ""}) {
    const ToolRun run = RunMtbl(study + resume + "--output_dir=" + dir);
    EXPECT_EQ(run.exit_code, 2) << resume << run.output;
    EXPECT_NE(run.output.find("another ecmo_mtbl is writing " + dir +
                              "/points.jsonl"),
              std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("wait for it to finish, or use another "
                              "--output_dir"),
              std::string::npos)
        << run.output;
  }
  EXPECT_EQ(ReadText(dir + "/points.jsonl"), points);
  EXPECT_EQ(ReadText(dir + "/study.json"), document);
  ::close(fd);
  const ToolRun resumed = RunMtbl(study + "--resume --output_dir=" + dir);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resumed 1 of 1 runs"), std::string::npos)
      << resumed.output;
}

struct UsageCase {
  std::string args, text;
};

// Every case exits 2 (bad input) with `text` in its message.
void ExpectUsageErrors(const std::vector<UsageCase>& cases) {
  for (const UsageCase& c : cases) {
    const ToolRun run = RunMtbl(c.args);
    EXPECT_EQ(run.exit_code, 2) << c.args << "\n" << run.output;
    EXPECT_NE(run.output.find(c.text), std::string::npos) << c.args << "\n"
                                                          << run.output;
  }
}

TEST(EcmoMtbl, BadInputsGiveClearErrors) {
  ExpectUsageErrors(
      {{"--task=nope",
        "unknown --task 'nope'; valid: "
        "digits_data_weighting"},
       {"--method=wc-penalty,nope", "unknown --method 'nope'"},
       {"--preferences=grid:x", "--preferences=grid:x"},
       {"--seeds=0", "--seeds must be in [1, 1000]"},
       {"--strategy=nope", "unknown --strategy 'nope'"},
       {"--reduced_strategy=nope", "unknown --reduced_strategy 'nope'"},
       {"--lower_preconditioner=jacobi",
        "unknown --lower_preconditioner 'jacobi'"},
       {"--scalarization=nope", "unknown --scalarization 'nope'"},
       {"--baseline_budget=fast", "--baseline_budget 'fast' is not a budget"},
       {"--baseline_budget=matched:0", "--baseline_budget 'matched:0'"},
       {"--baseline_budget=-1", "--baseline_budget '-1' is not a budget"},
       {"--baseline_budget=nan", "--baseline_budget 'nan' is not a budget"},
       {"--baseline_budget=inf", "--baseline_budget 'inf' is not a budget"},
       {"--baseline_budget=matched --method=moml",
        "--baseline_budget=matched matches the time of a WC method, but "
        "--method has none"},
       {"--l2=-2", "--l2 must be >= 0"},
       {"--l2=0 --method=wc-reduced",
        "wc-reduced needs a strongly "
        "convex lower level"},
       {"--data=/nonexistent/digits.csv.gz", "/nonexistent/digits.csv.gz"},
       // Endless: the reader's size limit stops it (it ran out of
       // memory and aborted).
       {"--data=/dev/zero", "'/dev/zero' holds more than 64 MiB"},
       {"--output_dir=/proc/none", "--output_dir"},
       {"--num_threads=0", "--num_threads must be in [1, 256]"},
       {"stray", "unexpected argument 'stray'"},
       // Battery K3: gflags read it whole (std::bad_alloc, status 134).
       {"--flagfile=/dev/zero",
        "--flagfile '/dev/zero' is not a regular file"}});
}

// Battery K1: a value of about 100 kB was quoted whole (stderr of
// 100-300 kB); refusals quote it cut to about 80 characters.
TEST(EcmoMtbl, LongValuesAreCutInMessages) {
  const std::string x(100000, 'x');
  const std::string base = "--smoke --task=mtbl_logistic --method=soba-ls ";
  const std::string out = ::testing::TempDir() + "/ecmo_mtbl_long_values";
  for (const std::string& args :
       {"--smoke --method=soba-ls --task=" + x,
        "--smoke --task=mtbl_logistic --method=" + x,
        base + "--output_dir=" + x,
        "--smoke --method=soba-ls --output_dir=" + out + " --data=" + x,
        "--task=mtbl_logistic --method=soba-ls --seeds=1 --output_dir=" +
            out + " --preferences=" + x,
        base + "--scalarization=" + x, base + "--strategy=" + x,
        base + "--lower_preconditioner=" + x, base + "--" + x}) {
    const ToolRun run = RunMtbl(args);
    SCOPED_TRACE(args.substr(0, 60));
    EXPECT_EQ(run.exit_code, 2) << run.output.substr(0, 300);
    EXPECT_LT(run.output.size(), 4000u) << run.output.substr(0, 300);
    EXPECT_NE(run.output.find(" characters)"), std::string::npos)
        << run.output.substr(0, 300);
  }
}

// The numeric flags' tests run a one-run study when a flag is (wrongly)
// taken, so that a regression fails fast instead of solving for minutes.
const char kOneRun[] =
    "--task=mtbl_logistic --method=moml --baseline_iterations=2 --seeds=1 ";

// Every double flag set to `value` ("nan", "inf"), expecting
// "--FLAG must be ": in this order, kkt_tolerance, l2, proximal,
// upper_step_size, max_seconds_per_point.
std::vector<UsageCase> DoubleFlagCases(const std::string& value) {
  std::vector<UsageCase> cases;
  for (const char* flag : {"kkt_tolerance",
                           "l2",
                           "proximal",
                           "upper_step_size",
                           "max_seconds_per_point"}) {
    cases.push_back({std::string(kOneRun) + "--" + flag + "=" + value,
                     std::string("--") + flag + " must be "});
  }
  return cases;
}

// gflags reads "nan" for a double flag, and NaN fails every comparison:
// --proximal=nan silently meant the task's default.
TEST(EcmoMtbl, NanDoubleFlagsAreRefused) {
  std::vector<UsageCase> cases = DoubleFlagCases("nan");
  cases[2].text =
      "--proximal must be >= 0 and finite, or -1 (the task's "
      "default); got nan";
  ExpectUsageErrors(cases);
}

TEST(EcmoMtbl, InfiniteDoubleFlagsAreRefused) {
  std::vector<UsageCase> cases = DoubleFlagCases("inf");
  cases[4].text =
      "--max_seconds_per_point must be > 0 and finite, or -1 (the task's "
      "default); got inf";
  ExpectUsageErrors(cases);
}

// Negative values (and zero counts) are refused; -1 keeps its documented
// meaning, "the default", where a flag has it.
TEST(EcmoMtbl, NegativeFlagsAreRefusedButMinusOneMeansTheDefault) {
  const std::string one_run = kOneRun;
  ExpectUsageErrors(
      {{one_run + "--upper_step_size=-1",
        "--upper_step_size must be >= 0 and finite (0: the task's default); "
        "got -1"},
       {one_run + "--proximal=-0.5", "--proximal must be >= 0"},
       {one_run + "--l2=-3", "--l2 must be >= 0"},
       {one_run + "--kkt_tolerance=-2", "--kkt_tolerance must be >= 0"},
       {one_run + "--max_seconds_per_point=0",
        "--max_seconds_per_point must be > 0"},
       {one_run + "--baseline_iterations=-1",
        "--baseline_iterations must be >= 0 (0: the task's default); got -1"},
       {one_run + "--inner_iterations=-5", "--inner_iterations must be >= 0"},
       {one_run + "--first_seed=-1", "--first_seed must be in [0, "},
       {"--task=mtbl_logistic --seeds=-1", "--seeds must be in [1, 1000]"},
       {one_run + "--num_threads=0", "--num_threads must be in [1, 256]"}});
  const ToolRun defaults =
      RunMtbl(one_run +
              "--proximal=-1 --l2=-1 --kkt_tolerance=-1 --upper_step_size=0 "
              "--max_seconds_per_point=-1");
  EXPECT_EQ(defaults.exit_code, 0) << defaults.output;
}

// Seeds are ints: the last one, --first_seed + --seeds - 1, must be one
// too (2147483647 + 1 made seed -2147483648); the largest int is a seed.
TEST(EcmoMtbl, SeedsBeyondTheLargestIntAreRefused) {
  const std::string study =
      "--task=mtbl_logistic --method=moml --baseline_iterations=2 --json ";
  ExpectUsageErrors(
      {{study + "--first_seed=2147483647 --seeds=2",
        "--first_seed must be in [0, 2147483646] (the last seed, "
        "--first_seed + --seeds - 1, must be at most 2147483647); got "
        "2147483647"},
       {study + "--first_seed=2147483646 --seeds=3",
        "--first_seed must be in [0, 2147483645]"}});
  const ToolRun last = RunMtbl(study + "--first_seed=2147483646 --seeds=2",
                               /*merge_stderr=*/false);
  ASSERT_EQ(last.exit_code, 0) << last.output;
  const nlohmann::json points = nlohmann::json::parse(last.output)["points"];
  std::set<int64_t> seeds;
  for (const auto& p : points) {
    seeds.insert(p["seed"].get<int64_t>());
  }
  EXPECT_EQ(seeds, (std::set<int64_t>{2147483646, 2147483647}));
}

// --smoke fixes the seeds and the preferences; either given with it was
// ignored without a word.
TEST(EcmoMtbl, SmokeRefusesSeedsAndPreferences) {
  const std::string smoke = "--task=mtbl_logistic --smoke --method=moml ";
  ExpectUsageErrors(
      {{smoke + "--seeds=2",
        "--seeds cannot be combined with --smoke, whose study is one seed"},
       {smoke + "--seeds=5", "--seeds cannot be combined with --smoke"},
       {smoke + "--preferences=equal",
        "--preferences cannot be combined with --smoke"}});
  EXPECT_EQ(RunMtbl(smoke + "--first_seed=3").exit_code, 0);
}

#endif  // ECMO_MTBL_PATH

}  // namespace
