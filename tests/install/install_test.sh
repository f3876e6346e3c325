#!/usr/bin/env bash
# Install, move, embed (issue 10): `cmake --install` of this build into a temporary prefix, the
# prefix moved elsewhere, then (1) an outside CMake project finds it with find_package(pipesim),
# includes <pipesim/pipesim.hpp> and simulates through the public API, and (2) the moved
# bin/pipesim runs a real-cost simulation from its own share/pipesim, with no environment help.
#
# usage: install_test.sh BUILD_DIR CONSUMER_SOURCE_DIR VERSION [extra consumer cmake args...]
set -euo pipefail

build_dir=$1
consumer_src=$2
version=$3
shift 3

fail() {
  echo "install_test: $*" >&2
  exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/pipesim-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset PIPESIM_DATA_DIR

cmake --install "$build_dir" --prefix "$work/prefix" >"$work/install.log" ||
  { cat "$work/install.log" >&2; fail "cmake --install failed"; }
mv "$work/prefix" "$work/moved"
prefix=$work/moved

# Relocatable: no installed CMake file names the build tree or the first prefix.
if grep -rl -e "$build_dir" -e "$work/prefix" "$prefix/lib/cmake"; then
  fail "installed CMake files name an absolute build or install path (above)"
fi

# (1) The consumer project: one file, built against the moved prefix only.
cmake -S "$consumer_src" -B "$work/consumer" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" "$@" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log" >&2; fail "consumer: configure failed"; }
cmake --build "$work/consumer" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; fail "consumer: build failed"; }
"$work/consumer/consumer" || fail "consumer: wrong simulation result"

# (2) The moved CLI: its version, then shipped names resolved from <prefix>/share/pipesim. A model
# that exists only in the moved prefix proves the data came from there, not the source tree.
pipesim=$prefix/bin/pipesim
[ "$("$pipesim" --version)" = "pipesim $version" ] || fail "--version: '$("$pipesim" --version)'"
cp "$prefix/share/pipesim/models/gpt2-1.3b.yaml" "$prefix/share/pipesim/models/only-in-prefix.yaml"
"$pipesim" list models | grep -q '^only-in-prefix ' || fail "list models: only-in-prefix missing"
"$pipesim" simulate --model gpt2-1.3b --hardware p100-daint --stages 4 --micro-batches 8 \
  --format json >"$work/shipped.json" || fail "simulate gpt2-1.3b on p100-daint failed"
"$pipesim" simulate --model only-in-prefix --hardware p100-daint --stages 4 --micro-batches 8 \
  --format json >"$work/moved.json" || fail "simulate with a model only in the moved prefix failed"
cmp -s "$work/shipped.json" "$work/moved.json" ||
  fail "the same model under two names gave different results"
grep -q '"iteration_time"' "$work/shipped.json" || fail "simulate printed no iteration_time"

# $PIPESIM_DATA_DIR overrides the installed data: only its one model is listed.
mkdir -p "$work/data/models"
cp "$prefix/share/pipesim/models/gpt2-1.3b.yaml" "$work/data/models/from-env.yaml"
listed=$(PIPESIM_DATA_DIR=$work/data "$pipesim" list models | cut -d' ' -f1)
[ "$listed" = from-env ] || fail "PIPESIM_DATA_DIR: list models gave '$listed'"
echo "install_test: moved prefix OK ($prefix)"
