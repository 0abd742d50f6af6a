// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The MUMPS fill-reducing ordering of the Ipopt reference with a
// limited-memory Hessian (issue 16). On the sphere family of
// scaling_bench.cc (sphere_family.h: two objectives and the sphere
// constraint, each dense in z) the KKT matrix Ipopt factors is a diagonal
// plus three dense rows. Per k, the same WC point (lambda = (0.3, 0.7),
// r = 0) is solved three times, each in its own forked process:
//   default    IpoptReference::Options::mumps_pivot_order = -1 (the
//              library's choice: QAMD with a limited-memory Hessian from
//              k = 5,000 on, Ipopt's automatic ordering below)
//   automatic  mumps_pivot_order = 7 (Ipopt's own default, which the
//              library used before)
//   qamd       mumps_pivot_order = 6
// with Ipopt's CPU-time limit --max_seconds; the table has status,
// iterations, wall time and the ratio automatic / default.
//
//   mumps_ordering_bench [--sizes=1000,4000,8000,10000,100000]
//                        [--max_seconds=120]
//   mumps_ordering_bench --smoke   (CTest: k = 100 and 6000; exit 1 unless
//                                   the default converges and certifies
//                                   at every size)

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "ecmo/ipopt_reference.h"
#include "sphere_family.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Record {
  int termination = -1;  // ceres::TerminationType
  int iterations = 0;
  double seconds = 0.0;
  bool certified = false;
  double distance = NAN;  // |z - z*|
};

// One solve of the sphere family at size k, in a child process.
bool Run(int k, int pivot_order, double max_seconds, Record* record) {
  std::string payload, error;
  const bool ok = ecmo_bench::RunInChildProcess(
      [&](std::string* out) {
        auto instance = ecmo_bench::MakeSphereInstance(k);
        ecmo::IpoptReference::Options options;
        options.hessian = ecmo::IpoptReference::HessianType::LIMITED_MEMORY;
        options.mumps_pivot_order = pivot_order;
        options.max_cpu_time_in_seconds = max_seconds;
        ecmo::IpoptReference::Summary summary;
        const Clock::time_point start = Clock::now();
        ecmo::SolveReference(
            options, instance->problem, {0.3, 0.7}, {0.0, 0.0}, &summary);
        Record r;
        r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        r.termination = static_cast<int>(summary.termination_type);
        r.iterations = summary.iterations;
        r.certified = summary.certified;
        const double t = ecmo_bench::ParetoAngle(0.3);
        if (summary.z.size() == k) {
          r.distance = (summary.z -
                        (std::cos(t) * instance->a + std::sin(t) * instance->b))
                           .norm();
        }
        ecmo_bench::AppendPod(r, out);
        return true;
      },
      &payload,
      &error);
  size_t offset = 0;
  return ok && ecmo_bench::ReadPod(payload, &offset, record);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {1000, 4000, 8000, 10000, 100000};
  double max_seconds = 120.0;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--smoke") {
      smoke = true;
      sizes = {100, 6000};
      max_seconds = 60.0;
    } else if (arg.rfind("--sizes=", 0) == 0) {
      sizes.clear();
      std::stringstream stream(arg.substr(8));
      std::string item;
      while (std::getline(stream, item, ',')) {
        if (!item.empty()) sizes.push_back(std::atoi(item.c_str()));
      }
    } else if (arg.rfind("--max_seconds=", 0) == 0) {
      max_seconds = std::atof(arg.c_str() + 14);
    } else {
      std::fprintf(
          stderr,
          "usage: mumps_ordering_bench [--smoke] "
          "[--sizes=1000,4000,8000,10000,100000] [--max_seconds=120]\n");
      return 2;
    }
  }
  std::printf(
      "# sphere family, lambda = (0.3, 0.7), r = 0, limited-memory Hessian, "
      "Ipopt max_cpu_time %.0f s; one process per solve\n",
      max_seconds);
  std::printf("%8s %-10s %-14s %5s %9s %-4s %9s %10s\n",
              "k",
              "ordering",
              "termination",
              "its",
              "seconds",
              "cert",
              "|z-z*|",
              "vs default");
  bool ok = true;
  for (int k : sizes) {
    double default_seconds = NAN;
    for (const auto& [name, order] : std::vector<std::pair<const char*, int>>{
             {"default", -1}, {"automatic", 7}, {"qamd", 6}}) {
      if (smoke && order != -1) continue;
      Record r;
      if (!Run(k, order, max_seconds, &r)) {
        std::printf("%8d %-10s child process failed\n", k, name);
        ok = false;
        continue;
      }
      if (order == -1) {
        default_seconds = r.seconds;
        if (r.termination != ceres::CONVERGENCE || !r.certified) ok = false;
      }
      std::printf("%8d %-10s %-14s %5d %9.3f %-4s %9.2e %9.1fx\n",
                  k,
                  name,
                  ceres::TerminationTypeToString(
                      static_cast<ceres::TerminationType>(r.termination)),
                  r.iterations,
                  r.seconds,
                  r.certified ? "yes" : "no",
                  r.distance,
                  r.seconds / default_seconds);
    }
  }
  return ok ? 0 : 1;
}
