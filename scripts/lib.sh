# Shared by the build and CI scripts (sourced, not run).

# "-GNinja" for a new build tree when Ninja is installed, nothing for an
# existing tree (which keeps its generator). Ninja compiles a target's files
# before the libraries it links are linked, so both cores stay busy
# (tests/README.md, "CI time").
cmake_generator() {
  if [ ! -f "$1/CMakeCache.txt" ] && command -v ninja > /dev/null; then
    echo "-GNinja"
  fi
}

# "== <who>: <what> done at M min S s" (time since the script started), for
# tests/README.md's "CI time".
stage() { echo "== $1: $2 done at $((SECONDS / 60)) min $((SECONDS % 60)) s"; }
