// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// SweepRunner: the sweep summary (front, indicators) and the refinement
// of the front (see sweep_runner.h).

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <system_error>
#include <utility>

#include "ecmo/indicators.h"
#include "ecmo/result_writer.h"
#include "front_refinement.h"
#include "sweep_runner.h"

namespace ecmo {
namespace internal {

void SweepRunner::Summarize() {
  ParetoSweep::Summary& sum = *summary_;
  const int S = num_objectives_;
  std::vector<int> usable_index;
  sum.num_solved = sum.num_usable = sum.num_converged = sum.num_not_solved = 0;
  sum.num_refined = sum.num_possibly_spurious_ends = 0;
  sum.num_cold_checks = sum.num_solved_cold = 0;
  sum.num_cold_retries = sum.num_cold_retries_kept = 0;
  // Points per strategy, by enum (a name per point was a heap string per
  // point); listed by name below.
  std::map<StrategyType, int> strategies;
  sum.num_points = static_cast<int>(sum.points.size());
  sum.gradient_evaluations = 0;
  for (const SweepPoint& p : sum.points) {
    const Solver::Summary& s = p.summary;
    if (p.refined && p.status != SweepPoint::NOT_SOLVED) ++sum.num_refined;
    if (p.status == SweepPoint::NOT_SOLVED) {
      ++sum.num_not_solved;
      continue;
    }
    if (p.status == SweepPoint::SOLVED) {
      ++sum.num_solved;
      sum.gradient_evaluations += s.evaluations.gradient_evaluations;
    }
    if (s.termination_type == ceres::CONVERGENCE) ++sum.num_converged;
    if (!p.cold_check.empty()) {
      ++sum.num_cold_checks;
      if (p.warm_start_from < 0) ++sum.num_solved_cold;
    }
    if (p.cold_retry) {
      ++sum.num_cold_retries;
      if (p.warm_start_from < 0) ++sum.num_cold_retries_kept;
    }
    if (!s.IsSolutionUsable()) continue;
    ++sum.num_usable;
    if (p.possibly_spurious_end) ++sum.num_possibly_spurious_ends;
    ++strategies[s.strategy];
    const double kkt = s.kkt.with_solver_multipliers.SquaredNorm();
    const double kkt_ls = s.kkt.with_least_squares_multipliers.SquaredNorm();
    if (std::isfinite(kkt)) {
      sum.worst_kkt_residual_sq = std::max(sum.worst_kkt_residual_sq, kkt);
    }
    if (std::isfinite(kkt_ls)) {
      sum.worst_kkt_residual_sq_least_squares =
          std::max(sum.worst_kkt_residual_sq_least_squares, kkt_ls);
    }
    if (s.objectives.size() == S && s.objectives.allFinite()) {
      usable_index.push_back(p.index);
    }
  }
  std::map<std::string, int> by_name;
  for (const auto& [strategy, count] : strategies) {
    by_name[StrategyTypeToString(strategy)] = count;
  }
  sum.strategies_used.clear();
  for (const auto& [name, count] : by_name) {
    sum.strategies_used += (sum.strategies_used.empty() ? "" : ", ") + name +
                           " " + std::to_string(count);
  }
  Eigen::MatrixXd front(usable_index.size(), std::max(S, 0));
  for (size_t r = 0; r < usable_index.size(); ++r) {
    front.row(r) = sum.points[usable_index[r]].summary.objectives.transpose();
  }
  if (S > 0 && !usable_index.empty()) {
    // The non-dominated rows once (Nadir and DefaultReferencePoint(front)
    // would each find them again).
    const std::vector<int> kept = NonDominatedIndices(front);
    sum.ideal = Ideal(front);
    sum.nadir = Nadir(front, kept);
    if (static_cast<int>(options_.reference_point.size()) == S) {
      sum.reference_point =
          Eigen::Map<const Eigen::VectorXd>(options_.reference_point.data(), S);
    } else {
      sum.reference_point = DefaultReferencePoint(
          sum.ideal, sum.nadir, options_.reference_point_offset);
    }
    std::string error;
    const HypervolumeValue hv =
        BoundedHypervolume(front, sum.reference_point, &error);
    sum.hypervolume = hv.value;
    sum.hypervolume_estimated = hv.estimated;
    sum.hypervolume_standard_error = hv.standard_error;
    // The front as reported and drawn (ecmo/indicators.h): near-duplicates
    // within the certificate's accuracy are not called dominated.
    sum.non_dominated.clear();
    for (int r : NonDominatedWithTolerance(front)) {
      sum.non_dominated.push_back(usable_index[r]);
    }
  } else if (S > 0) {
    sum.ideal = Eigen::VectorXd::Constant(S, kNaN);
    sum.nadir = Eigen::VectorXd::Constant(S, kNaN);
    sum.reference_point = Eigen::VectorXd::Constant(S, kNaN);
    sum.hypervolume = kNaN;
  }

  std::ostringstream os;
  const int reached = sum.num_points - sum.num_not_solved;
  os << reached << " of " << sum.num_points << " points reached ("
     << sum.num_solved << " solved, " << sum.num_resumed
     << " resumed): " << sum.num_converged << " converged, "
     << (sum.num_usable - sum.num_converged) << " usable without "
     << "convergence, " << (reached - sum.num_usable) << " failed.";
  if (stop_) {
    sum.termination_type = stop_type_;
    os << " Stopped by a SweepCallback.";
  } else if (sum.num_converged == sum.num_points) {
    sum.termination_type = ceres::CONVERGENCE;
  } else {
    sum.termination_type = ceres::NO_CONVERGENCE;
  }
  if (!write_error_.empty()) {
    os << " Writing the results failed: " << write_error_ << ".";
  }
  sum.write_error = write_error_;
  sum.message = os.str();
}

namespace {

// The key of a refined point's JSON line that names the two points whose
// gap it filled.
constexpr char kRefinedBetween[] = "refined_between";

}  // namespace

// The pairs recorded by the refined points read back from a resume file;
// a pair that is not two earlier points' indices is ignored (it only
// steers where the next point is aimed).
std::set<std::pair<int, int>> SweepRunner::ResumedRefinementPairs() const {
  std::set<std::pair<int, int>> pairs;
  for (const SweepPoint& p : summary_->points) {
    if (!p.refined || !p.extra.is_object()) continue;
    const auto it = p.extra.find(kRefinedBetween);
    if (it == p.extra.end() || !it->is_array() || it->size() != 2 ||
        !(*it)[0].is_number_integer() || !(*it)[1].is_number_integer()) {
      continue;
    }
    const int a = (*it)[0].get<int>(), b = (*it)[1].get<int>();
    if (a >= 0 && b > a && b < p.index) pairs.insert({a, b});
  }
  return pairs;
}

int SweepRunner::RefinementCap() const {
  using Options = ParetoSweep::Options;
  if (options_.refine_to != Options::kRefineWhereNeeded) {
    return options_.refine_to;
  }
  const int given = summary_->num_points;
  if (given < 2 || given > Options::kRefineWhereNeededMaxPreferences) return 0;
  return 2 * given - 1;
}

// Adaptive refinement (Options::refine_to): one point at a time, each aimed
// at the largest hole of the front found so far (front_refinement.h) and
// warm-started from the nearest finished point.
void SweepRunner::Refine() {
  const int S = num_objectives_;
  const Scalarization& scalarization = summary_->scalarization;
  if (scalarization.reference_point.size() != S ||
      scalarization.objective_scale.size() != S) {
    return;
  }
  const int cap = RefinementCap();
  const bool where_needed =
      options_.refine_to == ParetoSweep::Options::kRefineWhereNeeded;
  summary_->points.reserve(cap);
  Worker* worker = &workers_[0];
  // Pairs of point indices whose gap was aimed at, one per refined point.
  // Each refined point's line records its pair ("refined_between"), so
  // that a resumed sweep aims where an uninterrupted one would (without
  // it, 67-297 of 400 points of a resumed three-objective refinement
  // differed).
  std::set<std::pair<int, int>> tried = ResumedRefinementPairs();
  const int max_attempts = 4 * cap;
  for (int attempt = static_cast<int>(tried.size());
       attempt < max_attempts &&
       static_cast<int>(summary_->points.size()) < cap;
       ++attempt) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_) return;
    }
    std::vector<int> usable;
    for (const SweepPoint& p : summary_->points) {
      if (p.summary.IsSolutionUsable() && p.summary.objectives.size() == S &&
          p.summary.objectives.allFinite()) {
        usable.push_back(p.index);
      }
    }
    if (usable.size() < 2) return;
    Eigen::MatrixXd objectives(usable.size(), S);
    for (size_t r = 0; r < usable.size(); ++r) {
      objectives.row(r) =
          summary_->points[usable[r]].summary.objectives.transpose();
    }
    // The spread that measures holes: nadir - r when the payoff table gave
    // one, else the points' own spread above r.
    Eigen::VectorXd range =
        scalarization.nadir_point.size() == S
            ? Eigen::VectorXd(scalarization.nadir_point -
                              scalarization.reference_point)
            : Eigen::VectorXd(objectives.colwise().maxCoeff().transpose() -
                              scalarization.reference_point);
    for (int s = 0; s < S; ++s) {
      if (!(range[s] > 0.0)) range[s] = 1.0;
    }
    std::set<std::pair<int, int>> tried_rows;
    for (size_t a = 0; a < usable.size(); ++a) {
      for (size_t b = a + 1; b < usable.size(); ++b) {
        if (tried.count({usable[a], usable[b]}) > 0) {
          tried_rows.insert({static_cast<int>(a), static_cast<int>(b)});
        }
      }
    }
    internal::RefinementCandidate candidate;
    if (!internal::NextRefinement(objectives,
                                  scalarization.reference_point,
                                  scalarization.objective_scale,
                                  range,
                                  tried_rows,
                                  &candidate)) {
      return;
    }
    // Where needed only: stop once the largest hole is no wider than
    // refine_gap_ratio neighbour spacings (twice the hole is the gap
    // between the pair when no other point is nearer its midpoint).
    if (where_needed &&
        !(2.0 * candidate.hole >
          options_.refine_gap_ratio * candidate.mean_spacing)) {
      return;
    }
    tried.insert({usable[candidate.a], usable[candidate.b]});

    SweepPoint* point = nullptr;
    Eigen::VectorXd z0 = start_point_;
    Solver::Options::WarmStart warm;
    bool have_warm = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      SweepPoint fresh;
      fresh.index = static_cast<int>(summary_->points.size());
      fresh.refined = true;
      fresh.preference_given = candidate.preference;
      fresh.preference = ToOpenSimplex(candidate.preference,
                                       preference_floor_,
                                       &fresh.preference_changed);
      summary_->points.push_back(std::move(fresh));
      done_.push_back(0);
      point = &summary_->points.back();
      if (options_.warm_start) {
        const int from = NearestFinished(point->preference);
        if (from >= 0) {
          point->warm_start_from = from;
          z0 = summary_->points[from].summary.z;
          have_warm = WarmStartFrom(summary_->points[from].summary, &warm);
        }
      }
    }
    point->thread = 0;
    point->rank = worker->rank;
    SolvePoint(worker,
               point,
               z0,
               have_warm ? &warm : nullptr,
               point->warm_start_from >= 0
                   ? &summary_->points[point->warm_start_from]
                   : nullptr);
    if (options_.max_history_entries > 0) {
      ThinHistory(options_.max_history_entries, &point->summary.history);
    }
    point->extra[kRefinedBetween] = {usable[candidate.a], usable[candidate.b]};
    PointLines lines;
    FormatLines(*point, &lines);
    std::lock_guard<std::mutex> lock(mutex_);
    Finish(point, lines);
  }
}

}  // namespace internal
}  // namespace ecmo
