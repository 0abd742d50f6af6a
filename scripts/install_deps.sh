#!/usr/bin/env bash
# Installs the Debian 12 packages ceres-ecmo needs. Idempotent: packages that
# are already present are left alone, and nothing is fetched when all are.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  libceres-dev libeigen3-dev libgoogle-glog-dev libgflags-dev
  coinor-libipopt-dev
  libgtest-dev libbenchmark-dev
  nlohmann-json3-dev
  libnanoflann-dev
  zlib1g-dev
  gnuplot-nox
  # For the tests: scripts/hostile_battery.sh (CTest hostile_battery_quick)
  # mutates JSON resume files and compares results with it.
  python3
  # Ninja: CMake's Ninja generator compiles a target's files before the
  # libraries it links are linked, so both cores stay busy through a build
  # (scripts/build.sh uses it for new build trees).
  ninja-build
  # Optional: LLVM's linker, 3-4x faster than GNU ld on our programs
  # (ECMO_USE_LLD in CMakeLists.txt).
  lld
  # Optional: NLopt's SLSQP, the small-k peer in benchmarks/small_problem_bench.
  libnlopt-dev
  # Optional: ADOL-C's reverse mode for ecmo::AutoDiffLowerLevel (matrix-free
  # Hessian-vector products of an MTBL lower level written once as a
  # templated functor; ECMO_WITH_ADOLC). Forward-mode Jets cannot give those
  # products at the cost of a few evaluations of g.
  libadolc-dev
)

# --fuzz: also the clang toolchain with libFuzzer and the sanitizer runtimes
# (scripts/fuzz.sh, and scripts/sanitize.sh, which builds with clang).
if [ "${1:-}" = "--fuzz" ]; then
  PACKAGES+=(clang libclang-rt-14-dev)
fi
# --mpi: Open MPI, for the distributed sweeps (ecmo::sweep_mpi,
# docs/distributed.md) and their tests; CI installs it (.ci/run), the quick
# start does not need it.
if [ "${1:-}" = "--mpi" ]; then
  PACKAGES+=(libopenmpi-dev openmpi-bin)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install_deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install_deps: done"
