// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// libFuzzer target over ecmo_mtbl's --resume reader
// (ecmo::tools::ParseFinishedRuns, examples/mtbl_study_file.h): the bytes
// are the text of points.jsonl, read back by the study of `ecmo_mtbl
// --smoke` (digits_data_weighting, every method, the prefer-f1, prefer-f2
// and equal preferences, seed 1: 15 runs of 5 objectives) and by the same
// study with --scalarization=utopia. The file itself is
// ecmo::tools::ReadFinishedRuns' (read once under the size limit, cut by
// WriteFileAtomically), which tests/ecmo_mtbl_test.cc covers.
// Invariants: no crash, no exception, no unbounded recursion or allocation;
// a refusal names the file and is short (nothing from the file is echoed);
// an accepted file yields runs the tool can use without checks (tasks in
// range, each point its run's method, seed and preference, vectors of 0 or
// S entries, curves of equal lengths, the seed's report an object with a
// scalarization exactly when the study uses one), points that PointToJson
// writes and PointFromJson reads back the same, and a cut that leaves a
// file --resume accepts again with the same runs and nothing more to cut.

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "mtbl_study_file.h"
#include "nlohmann/json.hpp"

namespace {

using ecmo::tools::FinishedRun;

// The "settings" header of `ecmo_mtbl --smoke`, as the header line of a
// real smoke run's points.jsonl has it (the seeds in
// fuzz/corpus/mtbl_resume_fuzzer/ come from such runs): a seed is read
// past the header only while these agree with what the tool writes.
constexpr char kSmokeSettings[] = R"({"baseline_budget":"iterations",
  "baseline_iterations":0,"data":"",
  "first_seed":1,"inner_iterations":0,"kkt_tolerance":-1.0,"l2":0.001,
  "lower_preconditioner":"automatic","max_seconds_per_point":120.0,
  "methods":["wc-penalty","wc-reduced","moml","moco","forum","itd-ls",
             "soba-ls"],
  "preferences":[{"name":"prefer-f1","weights":[0.96,0.01,0.01,0.01,0.01]},
                 {"name":"prefer-f2","weights":[0.01,0.96,0.01,0.01,0.01]},
                 {"name":"equal","weights":[0.2,0.2,0.2,0.2,0.2]}],
  "proximal":-1.0,"reduced_strategy":"wc-sqp","scalarization":"paper",
  "seeds":1,"smoke":true,"strategy":"wc-newton",
  "task":"digits_data_weighting","upper_step_size":0.0})";

constexpr char kPath[] = "fuzz/points.jsonl";

// A study as ecmo_mtbl builds it from its flags, and the settings it
// writes for them; here both are made from the settings.
struct FuzzStudy {
  nlohmann::json settings;
  ecmo::tools::Study study;
  std::vector<ecmo::tools::Run> runs;
  int num_objectives = 0;
};

FuzzStudy MakeStudy(bool utopia) {
  FuzzStudy f;
  f.settings = nlohmann::json::parse(kSmokeSettings);
  if (utopia) f.settings["scalarization"] = "utopia";
  ecmo::tools::Study& study = f.study;
  study.task = f.settings["task"].get<std::string>();
  study.smoke = true;
  study.utopia = utopia;
  const std::vector<ecmo::tools::Method> all = ecmo::tools::AllMethods();
  for (const nlohmann::json& name : f.settings["methods"]) {
    for (const ecmo::tools::Method& m : all) {
      if (m.name == name) study.methods.push_back(m);
    }
  }
  for (const nlohmann::json& p : f.settings["preferences"]) {
    study.preferences.push_back({p["name"].get<std::string>(),
                                 p["weights"].get<std::vector<double>>()});
  }
  f.num_objectives = static_cast<int>(study.preferences[0].weights.size());
  f.runs = ecmo::tools::MakeRuns(study,
                                 f.settings["first_seed"].get<int>(),
                                 f.settings["seeds"].get<int>());
  return f;
}

// The smoke study with the paper scalarization, then with the utopia one
// (made once: the fuzzer calls the entry point millions of times).
const std::vector<FuzzStudy>& Studies() {
  static const std::vector<FuzzStudy>* studies =
      new std::vector<FuzzStudy>{MakeStudy(false), MakeStudy(true)};
  return *studies;
}

// The runs `text` holds for `f`; aborts on a broken invariant. Returns
// whether the text was accepted (*keep_bytes and *finished are then set).
bool CheckRead(const FuzzStudy& f,
               const std::string& text,
               std::map<int, FinishedRun>* finished,
               int64_t* keep_bytes) {
  const ecmo::tools::Study& study = f.study;
  const int S = f.num_objectives;
  std::string error;
  *keep_bytes = -2;
  if (!ecmo::tools::ParseFinishedRuns(kPath,
                                      text,
                                      f.settings,
                                      f.runs,
                                      study,
                                      S,
                                      finished,
                                      keep_bytes,
                                      &error)) {
    if (error.rfind(std::string(kPath) + ":", 0) != 0) std::abort();
    // The messages are made of field names and numbers, never of what a
    // line holds (a 1 MB string must not be echoed).
    if (error.size() > 1000) std::abort();
    if (!finished->empty()) std::abort();  // left as it was
    return false;
  }
  const int64_t size = static_cast<int64_t>(text.size());
  if (text.empty() || text.back() == '\n') {
    if (*keep_bytes != -1) std::abort();
  } else if (*keep_bytes < 0 || *keep_bytes >= size ||
             (*keep_bytes > 0 && text[*keep_bytes - 1] != '\n')) {
    std::abort();
  }
  const bool utopia = ecmo::tools::UsesUtopia(study);
  for (const auto& [task, run] : *finished) {
    if (task < 0 || task >= static_cast<int>(f.runs.size())) std::abort();
    const ecmo::tools::Run& expected = f.runs[task];
    const ecmo::tools::Point& p = run.point;
    if (p.method != study.methods[expected.method].name ||
        p.seed != expected.seed) {
      std::abort();
    }
    const std::vector<double> weights =
        expected.preference >= 0
            ? study.preferences[expected.preference].weights
            : std::vector<double>();
    if (p.preference != weights) std::abort();
    for (const Eigen::VectorXd* v : {&p.losses,
                                     &p.losses_as_returned,
                                     &p.reference_point,
                                     &p.objective_scale}) {
      if (v->size() != 0 && v->size() != S) std::abort();
    }
    if (p.curve_time.size() != p.curve_worst_loss.size()) std::abort();
    if (p.iterations < -1 || p.gradient_evaluations < 0 ||
        p.lower_gradients < 0 || p.hessian_products < 0 || p.rank < 0) {
      std::abort();
    }
    // The tool reads the report with value() and operator[], which throw
    // or assert on anything but an object.
    if (!run.seed.is_object()) std::abort();
    const auto scalarization = run.seed.find("scalarization");
    if ((scalarization != run.seed.end()) != utopia) std::abort();
    if (utopia && !scalarization->is_object()) std::abort();
    // What the tool writes of the point (study.json, a worker's reply)
    // reads back as the same point.
    const std::string written = ecmo::tools::PointToJson(p).dump();
    ecmo::tools::Point back;
    std::string why;
    if (!ecmo::tools::PointFromJson(
            nlohmann::json::parse(written), S, &back, &why) ||
        ecmo::tools::PointToJson(back).dump() != written) {
      std::abort();
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const FuzzStudy& f : Studies()) {
    std::map<int, FinishedRun> finished;
    int64_t keep_bytes = -2;
    if (!CheckRead(f, text, &finished, &keep_bytes) || keep_bytes < 0) {
      continue;
    }
    // --resume cuts the file at keep_bytes; the next --resume must take
    // the cut file as it is, with the same runs.
    std::map<int, FinishedRun> again;
    int64_t again_keep = -2;
    if (!CheckRead(f,
                   text.substr(0, static_cast<size_t>(keep_bytes)),
                   &again,
                   &again_keep) ||
        again_keep != -1 || again.size() != finished.size()) {
      std::abort();
    }
    for (const auto& [task, run] : finished) {
      if (again.count(task) == 0) std::abort();
    }
  }
  return 0;
}
