// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// ceres-ecmo: equality-constrained multi-objective optimization on Ceres.

#include "ecmo/indicators.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ecmo/internal/report.h"

namespace ecmo {
namespace {

using internal::kNaN;
constexpr double kInf = std::numeric_limits<double>::infinity();

using internal::SetError;

std::string FormatDouble(double value) {
  std::ostringstream stream;
  stream << value;
  return stream.str();
}

bool RowHasNaN(const Eigen::MatrixXd& points, int row) {
  for (int j = 0; j < points.cols(); ++j) {
    if (std::isnan(points(row, j))) {
      return true;
    }
  }
  return false;
}

// A set of points stored row-major, `dim` doubles per point. The WFG
// recursion creates many small limit sets, for which this is cheaper than
// Eigen matrices.
struct PointSet {
  int dim = 0;
  std::vector<double> values;

  int size() const { return static_cast<int>(values.size()) / dim; }
  const double* point(int i) const { return values.data() + i * dim; }
  void Append(const double* p) { values.insert(values.end(), p, p + dim); }
};

// True if a_i <= b_i for i < dim.
bool WeaklyDominates(const double* a, const double* b, int dim) {
  for (int i = 0; i < dim; ++i) {
    if (a[i] > b[i]) {
      return false;
    }
  }
  return true;
}

// Sorts `order` so that the points it indexes are in ascending
// lexicographic order, ties broken by index. `get(i, j)` returns coordinate
// j of point i. In this order a point can only be weakly dominated by points
// before it.
template <typename Getter>
void SortLexicographic(int dim, const Getter& get, std::vector<int>* order) {
  std::sort(order->begin(), order->end(), [&](int a, int b) {
    for (int j = 0; j < dim; ++j) {
      const double x = get(a, j);
      const double y = get(b, j);
      if (x < y) return true;
      if (y < x) return false;
    }
    return a < b;
  });
}

// Indices into `candidates` order (a subset of the points, NaN-free) of the
// non-dominated points, first duplicate kept. Returned in lexicographic
// order.
template <typename Getter>
std::vector<int> NonDominatedSubset(int dim,
                                    const Getter& get,
                                    std::vector<int> order) {
  SortLexicographic(dim, get, &order);
  std::vector<int> kept;
  if (dim <= 2) {
    // After the sort, a point survives iff its last coordinate is strictly
    // below every earlier one.
    double best = kInf;
    bool first = true;
    for (int i : order) {
      const double last = get(i, dim - 1);
      if (first || last < best) {
        kept.push_back(i);
        best = last;
        first = false;
      }
    }
    return kept;
  }
  if (dim == 3) {
    // Kung's sweep: in this order a point is weakly dominated iff an
    // earlier kept point is weakly below it in (y, z). The kept points'
    // (y, z) staircase (y ascending, z strictly descending; points it no
    // longer holds are weakly dominated in (y, z) by one it holds) answers
    // that in O(log n): O(n log n) in all, where the pairwise loop below
    // is O(n^2) on a front with no dominated point (20,000 sweep points:
    // 0.5 s per call). Same points kept.
    std::map<double, double> staircase;
    for (int i : order) {
      const double y = get(i, 1);
      const double z = get(i, 2);
      auto above = staircase.upper_bound(y);
      if (above != staircase.begin() && std::prev(above)->second <= z) {
        continue;
      }
      kept.push_back(i);
      for (auto it = staircase.lower_bound(y);
           it != staircase.end() && it->second >= z;) {
        it = staircase.erase(it);
      }
      staircase[y] = z;
    }
    return kept;
  }
  for (int i : order) {
    bool dominated = false;
    for (int k : kept) {
      bool weakly = true;
      for (int j = 0; j < dim && weakly; ++j) {
        weakly = get(k, j) <= get(i, j);
      }
      if (weakly) {
        dominated = true;
        break;
      }
    }
    if (!dominated) {
      kept.push_back(i);
    }
  }
  return kept;
}

PointSet NonDominated(const PointSet& set) {
  std::vector<int> order(set.size());
  std::iota(order.begin(), order.end(), 0);
  const auto get = [&set](int i, int j) { return set.values[i * set.dim + j]; };
  const std::vector<int> kept = NonDominatedSubset(set.dim, get, order);
  PointSet result;
  result.dim = set.dim;
  result.values.reserve(kept.size() * set.dim);
  for (int i : kept) {
    result.Append(set.point(i));
  }
  return result;
}

// All points strictly dominate `ref` in the functions below.

double Hv1D(const PointSet& set, const double* ref) {
  double best = ref[0];
  for (int i = 0; i < set.size(); ++i) {
    best = std::min(best, set.point(i)[0]);
  }
  return ref[0] - best;
}

// Horizontal strips: in ascending x, each point whose y is below all earlier
// ones adds the strip [y, min_y) x [x, r_1].
double Hv2D(const PointSet& set, const double* ref) {
  const int n = set.size();
  std::vector<std::array<double, 2>> sorted(n);
  for (int i = 0; i < n; ++i) {
    sorted[i] = {set.point(i)[0], set.point(i)[1]};
  }
  std::sort(sorted.begin(), sorted.end());
  double area = 0.0;
  double min_y = ref[1];
  for (const auto& [x, y] : sorted) {
    if (y < min_y) {
      area += (ref[0] - x) * (min_y - y);
      min_y = y;
    }
  }
  return area;
}

// Beume et al. (2009). The staircase maps x to y for the 2-D non-dominated
// points seen so far (x ascending, y descending), between the sentinels
// (-inf, r_2) and (r_1, -inf). `area` is the area it dominates within
// [., r_1] x [., r_2]; the volume grows by area * dz between sweep events.
double Hv3D(const PointSet& set, const double* ref) {
  const int n = set.size();
  std::vector<std::array<double, 3>> sorted(n);
  for (int i = 0; i < n; ++i) {
    const double* p = set.point(i);
    sorted[i] = {p[0], p[1], p[2]};
  }
  std::sort(sorted.begin(),
            sorted.end(),
            [](const std::array<double, 3>& a, const std::array<double, 3>& b) {
              return a[2] < b[2];
            });

  std::map<double, double> staircase;
  staircase.emplace(-kInf, ref[1]);
  staircase.emplace(ref[0], -kInf);
  double area = 0.0;
  double volume = 0.0;
  double z_previous = 0.0;
  bool first = true;
  for (const auto& p : sorted) {
    const double x = p[0];
    const double y = p[1];
    if (!first) {
      volume += area * (p[2] - z_previous);
    }
    first = false;
    z_previous = p[2];

    // The staircase point with the largest key <= x has the smallest y among
    // those with key <= x; p is dominated in 2-D iff that y is <= p's.
    auto right = staircase.upper_bound(x);
    auto left = std::prev(right);
    if (left->second <= y) {
      continue;
    }
    // Remove the points p dominates (keys >= x, y >= p's; they are
    // contiguous), adding for each x-interval of [x, next key) the area
    // between its old lower bound and y. If left has key x it is one of them
    // (its interval before x has width 0).
    auto it = left->first == x ? left : right;
    double height = left->second;
    double x_from = x;
    while (it->second >= y) {
      area += (it->first - x_from) * (height - y);
      x_from = it->first;
      height = it->second;
      it = staircase.erase(it);
    }
    area += (it->first - x_from) * (height - y);
    staircase.emplace_hint(it, x, y);
  }
  volume += area * (ref[2] - z_previous);
  return volume;
}

// The work WFG may still do (coordinates visited in limit sets); null:
// unbounded. Once it runs out, `exceeded` is set and every level returns
// at once (the value is then meaningless).
struct HvBudget {
  int64_t remaining = 0;
  bool exceeded = false;
};

double HvRecursive(const PointSet& set, const double* ref, HvBudget* budget);

// WFG, slicing the last objective. Correct for any set (the slices of
// B_k minus the boxes of later points are disjoint); non-dominated input
// keeps the limit sets small.
double HvWfg(const PointSet& set, const double* ref, HvBudget* budget) {
  const int n = set.size();
  const int d = set.dim;
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Worst (largest) last objective first, so that every later point is at
  // least as good in the sliced objective.
  std::sort(order.begin(), order.end(), [&set, d](int a, int b) {
    return set.point(a)[d - 1] > set.point(b)[d - 1];
  });

  PointSet limit;
  limit.dim = d - 1;
  std::vector<double> bound(d - 1);
  double volume = 0.0;
  for (int k = 0; k < n; ++k) {
    if (budget != nullptr) {
      budget->remaining -= static_cast<int64_t>(n - k) * d;
      if (budget->remaining < 0) budget->exceeded = true;
      if (budget->exceeded) return 0.0;
    }
    const double* p = set.point(order[k]);
    const double depth = ref[d - 1] - p[d - 1];
    double inclusive = 1.0;
    for (int j = 0; j < d - 1; ++j) {
      inclusive *= ref[j] - p[j];
    }
    limit.values.clear();
    bool covered = false;
    for (int m = k + 1; m < n && !covered; ++m) {
      const double* q = set.point(order[m]);
      for (int j = 0; j < d - 1; ++j) {
        bound[j] = std::max(p[j], q[j]);
      }
      // max(p, q) == p: q covers p's whole slice.
      covered = WeaklyDominates(q, p, d - 1);
      limit.Append(bound.data());
    }
    if (covered) {
      continue;
    }
    double exclusive = inclusive;
    if (limit.size() > 0) {
      exclusive -= HvRecursive(NonDominated(limit), ref, budget);
    }
    volume += depth * std::max(exclusive, 0.0);
  }
  return volume;
}

double HvRecursive(const PointSet& set, const double* ref, HvBudget* budget) {
  const int n = set.size();
  if (n == 0) {
    return 0.0;
  }
  if (n == 1) {
    double volume = 1.0;
    for (int j = 0; j < set.dim; ++j) {
      volume *= ref[j] - set.values[j];
    }
    return volume;
  }
  switch (set.dim) {
    case 1:
      return Hv1D(set, ref);
    case 2:
      return Hv2D(set, ref);
    case 3:
      return Hv3D(set, ref);
    default:
      return HvWfg(set, ref, budget);
  }
}

// Common validation for the unary set-versus-reference-set indicators.
bool ValidateSets(const char* name,
                  const Eigen::MatrixXd& approximation,
                  const Eigen::MatrixXd& reference_front,
                  bool require_positive,
                  std::string* error) {
  const std::string prefix = std::string(name) + ": ";
  if (approximation.cols() < 1) {
    SetError(error,
             prefix +
                 "the approximation set has 0 objectives (columns); "
                 "need at least 1");
    return false;
  }
  if (approximation.cols() != reference_front.cols()) {
    SetError(error,
             prefix + "the approximation set has " +
                 std::to_string(approximation.cols()) +
                 " objectives (columns) but the reference front has " +
                 std::to_string(reference_front.cols()));
    return false;
  }
  if (approximation.rows() == 0) {
    SetError(error, prefix + "the approximation set is empty");
    return false;
  }
  if (reference_front.rows() == 0) {
    SetError(error, prefix + "the reference front is empty");
    return false;
  }
  const std::pair<const Eigen::MatrixXd*, const char*> sets[] = {
      {&approximation, "approximation"}, {&reference_front, "reference front"}};
  for (const auto& [set, label] : sets) {
    for (int i = 0; i < set->rows(); ++i) {
      for (int j = 0; j < set->cols(); ++j) {
        const double v = (*set)(i, j);
        if (std::isfinite(v) && (!require_positive || v > 0.0)) {
          continue;
        }
        const std::string where = std::string(label) + " point " +
                                  std::to_string(i) + ", objective " +
                                  std::to_string(j);
        if (!std::isfinite(v)) {
          SetError(error, prefix + where + " is not finite");
          return false;
        }
        SetError(error,
                 prefix + where + " is " + FormatDouble(v) +
                     "; the multiplicative indicator needs every value > 0");
        return false;
      }
    }
  }
  return true;
}

// max_{r in R} min_{a in A} distance(a, r) or its mean over R.
template <typename Distance>
double MinMaxOverSets(const Eigen::MatrixXd& approximation,
                      const Eigen::MatrixXd& reference_front,
                      const Distance& distance,
                      bool mean) {
  double result = mean ? 0.0 : -kInf;
  for (int r = 0; r < reference_front.rows(); ++r) {
    double best = kInf;
    for (int a = 0; a < approximation.rows(); ++a) {
      best = std::min(best, distance(a, r));
    }
    result = mean ? result + best : std::max(result, best);
  }
  return mean ? result / static_cast<double>(reference_front.rows()) : result;
}

}  // namespace

std::vector<int> NonDominatedIndices(const Eigen::MatrixXd& points) {
  std::vector<int> order;
  order.reserve(points.rows());
  for (int i = 0; i < points.rows(); ++i) {
    if (!RowHasNaN(points, i)) {
      order.push_back(i);
    }
  }
  if (points.cols() == 0 || order.empty()) {
    // With no objectives all rows are equal: keep the first.
    return order.empty() ? order : std::vector<int>{order.front()};
  }
  const auto get = [&points](int i, int j) { return points(i, j); };
  std::vector<int> kept =
      NonDominatedSubset(static_cast<int>(points.cols()), get, order);
  std::sort(kept.begin(), kept.end());
  return kept;
}

std::vector<int> NonDominatedWithTolerance(const Eigen::MatrixXd& points,
                                           double relative_tolerance) {
  const int n = static_cast<int>(points.rows());
  const int S = static_cast<int>(points.cols());
  std::vector<int> finite;
  for (int r = 0; r < n; ++r) {
    if (points.row(r).allFinite()) finite.push_back(r);
  }
  if (finite.empty()) return finite;
  Eigen::MatrixXd rows(finite.size(), S);
  for (size_t r = 0; r < finite.size(); ++r) rows.row(r) = points.row(finite[r]);
  const Eigen::VectorXd tol =
      relative_tolerance *
      (rows.colwise().maxCoeff() - rows.colwise().minCoeff()).transpose();
  // Only exactly non-dominated rows can dominate by the rule: a row that
  // weakly dominates j is nowhere worse than j.
  const std::vector<int> candidates = NonDominatedIndices(rows);
  const bool exact = static_cast<double>(rows.rows()) *
                         static_cast<double>(candidates.size()) * S >
                     1e9;
  std::vector<char> is_candidate(rows.rows(), 0);
  for (int c : candidates) is_candidate[c] = 1;
  // Row j dominates row i by the rule.
  const auto dominates = [&](int j, int i) {
    bool somewhere_better = false;
    for (int s = 0; s < S; ++s) {
      const double d = rows(j, s) - rows(i, s);
      if (d > tol[s]) return false;
      if (d < -tol[s]) somewhere_better = true;
    }
    return somewhere_better;
  };
  // Row i is within the tolerance of row c in every objective.
  const auto near = [&](int i, int c) {
    return ((rows.row(i) - rows.row(c)).cwiseAbs().transpose().array() <=
            tol.array())
        .all();
  };
  std::vector<int> result;
  for (int i = 0; i < rows.rows(); ++i) {
    bool keep;
    if (exact) {
      // The exact front, plus the near-duplicates of its rows.
      keep = is_candidate[i] ||
             std::any_of(candidates.begin(), candidates.end(),
                         [&](int c) { return near(i, c); });
    } else {
      keep = std::none_of(candidates.begin(), candidates.end(),
                          [&](int j) { return j != i && dominates(j, i); });
    }
    if (keep) result.push_back(finite[i]);
  }
  return result;
}

Eigen::VectorXd Ideal(const Eigen::MatrixXd& points) {
  Eigen::VectorXd ideal = Eigen::VectorXd::Constant(points.cols(), kNaN);
  bool any = false;
  for (int i = 0; i < points.rows(); ++i) {
    if (RowHasNaN(points, i)) {
      continue;
    }
    if (!any) {
      ideal = points.row(i).transpose();
      any = true;
    } else {
      ideal = ideal.cwiseMin(points.row(i).transpose());
    }
  }
  return ideal;
}

Eigen::VectorXd Nadir(const Eigen::MatrixXd& points) {
  return Nadir(points, NonDominatedIndices(points));
}

Eigen::VectorXd Nadir(const Eigen::MatrixXd& points,
                      const std::vector<int>& front) {
  Eigen::VectorXd nadir = Eigen::VectorXd::Constant(points.cols(), kNaN);
  for (size_t k = 0; k < front.size(); ++k) {
    if (k == 0) {
      nadir = points.row(front[k]).transpose();
    } else {
      nadir = nadir.cwiseMax(points.row(front[k]).transpose());
    }
  }
  return nadir;
}

namespace {

// Hypervolume and HypervolumeWithinBudget; budget null: unbounded.
double HypervolumeImpl(const Eigen::MatrixXd& points,
                       const Eigen::VectorXd& reference,
                       HvBudget* budget,
                       std::string* error) {
  const int dim = static_cast<int>(points.cols());
  if (dim < 1) {
    SetError(error,
             "Hypervolume: the points have 0 objectives (columns); need at "
             "least 1");
    return kNaN;
  }
  if (reference.size() != dim) {
    SetError(error,
             "Hypervolume: the reference point has " +
                 std::to_string(reference.size()) +
                 " entries but the points have " + std::to_string(dim) +
                 " objectives (columns)");
    return kNaN;
  }
  for (int j = 0; j < dim; ++j) {
    if (!std::isfinite(reference[j])) {
      SetError(error,
               "Hypervolume: reference point entry " + std::to_string(j) +
                   " is not finite");
      return kNaN;
    }
  }
  for (int i = 0; i < points.rows(); ++i) {
    for (int j = 0; j < dim; ++j) {
      if (!std::isfinite(points(i, j))) {
        SetError(error,
                 "Hypervolume: point " + std::to_string(i) + ", objective " +
                     std::to_string(j) + " is not finite");
        return kNaN;
      }
    }
  }

  PointSet set;
  set.dim = dim;
  set.values.reserve(points.size());
  std::vector<double> row(dim);
  for (int i = 0; i < points.rows(); ++i) {
    bool inside = true;
    for (int j = 0; j < dim; ++j) {
      row[j] = points(i, j);
      inside = inside && row[j] < reference[j];
    }
    if (inside) {
      set.Append(row.data());
    }
  }
  if (dim >= 4) {
    // WFG requires (and profits from) a non-dominated input; the 1-D to 3-D
    // algorithms skip dominated points on their own.
    set = NonDominated(set);
  }
  const double volume = HvRecursive(set, reference.data(), budget);
  if (budget != nullptr && budget->exceeded) {
    SetError(error,
             "Hypervolume: the exact computation exceeds its work budget (" +
                 std::to_string(set.size()) + " non-dominated points in " +
                 std::to_string(dim) + " objectives); use HypervolumeEstimate");
    return kNaN;
  }
  return volume;
}

}  // namespace

double Hypervolume(const Eigen::MatrixXd& points,
                   const Eigen::VectorXd& reference,
                   std::string* error) {
  return HypervolumeImpl(points, reference, nullptr, error);
}

double HypervolumeWithinBudget(const Eigen::MatrixXd& points,
                               const Eigen::VectorXd& reference,
                               int64_t max_work,
                               std::string* error) {
  HvBudget budget;
  budget.remaining = std::max<int64_t>(max_work, 0);
  return HypervolumeImpl(points, reference, &budget, error);
}

HypervolumeValue BoundedHypervolume(const Eigen::MatrixXd& points,
                                    const Eigen::VectorXd& reference,
                                    std::string* error) {
  HypervolumeValue result;
  HvBudget budget;
  budget.remaining = kHypervolumeWorkBudget;
  std::string message;
  result.value = HypervolumeImpl(points, reference, &budget, &message);
  if (!budget.exceeded) {
    if (std::isnan(result.value)) SetError(error, message);
    return result;
  }
  result.estimated = true;
  result.value = HypervolumeEstimate(points,
                                     reference,
                                     kHypervolumeSamples,
                                     /*seed=*/1,
                                     &result.standard_error,
                                     error);
  return result;
}

double HypervolumeEstimate(const Eigen::MatrixXd& points,
                           const Eigen::VectorXd& reference,
                           int num_samples,
                           uint64_t seed,
                           double* standard_error,
                           std::string* error) {
  // The same validation as the exact value (an empty budget fails only on
  // work, after every check has passed).
  std::string message;
  HypervolumeWithinBudget(points.topRows(0), reference, 0, &message);
  if (!message.empty() || num_samples < 1) {
    SetError(error,
             message.empty() ? "HypervolumeEstimate: num_samples must be >= 1"
                             : message);
    if (standard_error != nullptr) *standard_error = kNaN;
    return kNaN;
  }
  const int dim = static_cast<int>(points.cols());
  std::vector<int> inside;
  for (int i = 0; i < points.rows(); ++i) {
    if (!points.row(i).allFinite()) {
      SetError(
          error,
          "HypervolumeEstimate: point " + std::to_string(i) + " is not finite");
      if (standard_error != nullptr) *standard_error = kNaN;
      return kNaN;
    }
    if ((points.row(i).transpose().array() < reference.array()).all()) {
      inside.push_back(i);
    }
  }
  if (inside.empty()) {
    if (standard_error != nullptr) *standard_error = 0.0;
    return 0.0;
  }
  // Uniform samples in the box [ideal of the points that count, reference]:
  // every dominated point lies in it.
  Eigen::VectorXd low = points.row(inside[0]).transpose();
  for (int i : inside) low = low.cwiseMin(points.row(i).transpose());
  const double box = (reference - low).prod();
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::VectorXd z(dim);
  int64_t hits = 0;
  for (int t = 0; t < num_samples; ++t) {
    for (int j = 0; j < dim; ++j) {
      z[j] = low[j] + unit(engine) * (reference[j] - low[j]);
    }
    for (int i : inside) {
      if ((points.row(i).transpose().array() <= z.array()).all()) {
        ++hits;
        break;
      }
    }
  }
  const double p = static_cast<double>(hits) / num_samples;
  if (standard_error != nullptr) {
    *standard_error = box * std::sqrt(p * (1.0 - p) / num_samples);
  }
  return box * p;
}

Eigen::VectorXd DefaultReferencePoint(const Eigen::MatrixXd& points,
                                      double offset) {
  if (!std::isfinite(offset) || offset < 0.0) {
    return Eigen::VectorXd::Constant(points.cols(), kNaN);
  }
  return DefaultReferencePoint(Ideal(points), Nadir(points), offset);
}

Eigen::VectorXd DefaultReferencePoint(const Eigen::VectorXd& ideal,
                                      const Eigen::VectorXd& nadir,
                                      double offset) {
  const int S = static_cast<int>(nadir.size());
  if (!std::isfinite(offset) || offset < 0.0 || ideal.size() != S) {
    return Eigen::VectorXd::Constant(S, kNaN);
  }
  Eigen::VectorXd reference(S);
  for (int j = 0; j < S; ++j) {
    const double range = nadir[j] - ideal[j];
    reference[j] = std::isnan(ideal[j])
                       ? kNaN
                       : nadir[j] + (range > 0.0 ? offset * range : offset);
  }
  return reference;
}

double AdditiveEpsilon(const Eigen::MatrixXd& approximation,
                       const Eigen::MatrixXd& reference_front,
                       std::string* error) {
  if (!ValidateSets(
          "AdditiveEpsilon", approximation, reference_front, false, error)) {
    return kNaN;
  }
  const auto distance = [&](int a, int r) {
    return (approximation.row(a) - reference_front.row(r)).maxCoeff();
  };
  return MinMaxOverSets(approximation, reference_front, distance, false);
}

double MultiplicativeEpsilon(const Eigen::MatrixXd& approximation,
                             const Eigen::MatrixXd& reference_front,
                             std::string* error) {
  if (!ValidateSets("MultiplicativeEpsilon",
                    approximation,
                    reference_front,
                    true,
                    error)) {
    return kNaN;
  }
  const auto distance = [&](int a, int r) {
    return approximation.row(a)
        .cwiseQuotient(reference_front.row(r))
        .maxCoeff();
  };
  return MinMaxOverSets(approximation, reference_front, distance, false);
}

double Igd(const Eigen::MatrixXd& approximation,
           const Eigen::MatrixXd& reference_front,
           std::string* error) {
  if (!ValidateSets("Igd", approximation, reference_front, false, error)) {
    return kNaN;
  }
  const auto distance = [&](int a, int r) {
    return (approximation.row(a) - reference_front.row(r)).norm();
  };
  return MinMaxOverSets(approximation, reference_front, distance, true);
}

double IgdPlus(const Eigen::MatrixXd& approximation,
               const Eigen::MatrixXd& reference_front,
               std::string* error) {
  if (!ValidateSets("IgdPlus", approximation, reference_front, false, error)) {
    return kNaN;
  }
  const auto distance = [&](int a, int r) {
    return (approximation.row(a) - reference_front.row(r)).cwiseMax(0.0).norm();
  };
  return MinMaxOverSets(approximation, reference_front, distance, true);
}

}  // namespace ecmo
