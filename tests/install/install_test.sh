#!/usr/bin/env bash
# Install, move, embed: `cmake --install` of this build into a temporary prefix, the
# prefix moved elsewhere (nothing installed may name the build tree), then (1) an outside CMake
# project finds it with find_package(pipesim), includes <pipesim/pipesim.hpp>, simulates through
# the public API and reads a model only the moved prefix has, and (2) the moved
# bin/pipesim runs a real-cost simulation from its own share/pipesim, with no environment help,
# and (3) when the build has the Python module ($PIPESIM_PYTHON names the interpreter it is for),
# the moved prefix's module imports with PYTHONPATH at its dist-packages and gives the CLI's
# results, reading the moved prefix's data.
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

# Nothing installed names the build tree (binaries included: a path compiled in would break once
# the build tree is gone). Debug info records where each object was compiled (a build with line
# tables, the asan preset, carries the build path there by design), so the check reads copies
# with their debug sections stripped: what runs, not where it was built.
scan=$work/scan
cp -a "$prefix" "$scan"
find "$scan" -type f \( -name '*.a' -o -name '*.so' -o -perm -u+x \) -exec strip --strip-debug {} + \
  2>/dev/null || true
# AddressSanitizer describes every instrumented global by its source file (a header generated in
# the build tree among them) in the binary's data: a sanitized build checks its text files only.
binary_files=text
[ -n "${PIPESIM_SANITIZED:-}" ] && binary_files=without-match
if grep -rl --binary-files="$binary_files" -e "$build_dir" "$scan"; then
  fail "installed files name the build tree $build_dir (above)"
fi
rm -rf "$scan"
for f in share/pipesim/schema/pipesim-output.schema.json share/pipesim/examples/sweep.yaml \
  share/pipesim/calibrate/fit-profile.py share/pipesim/calibrate/layer_times.csv; do
  [ -f "$prefix/$f" ] || fail "not installed: $f"
done

# A model that exists only in the moved prefix proves the data came from there, not from the
# source tree the libraries were built from.
cp "$prefix/share/pipesim/models/gpt2-1.3b.yaml" "$prefix/share/pipesim/models/only-in-prefix.yaml"

# (1) The consumer project: one file, built against the moved prefix only.
cmake -S "$consumer_src" -B "$work/consumer" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" "$@" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log" >&2; fail "consumer: configure failed"; }
cmake --build "$work/consumer" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; fail "consumer: build failed"; }
"$work/consumer/consumer" || fail "consumer: wrong simulation result"
# Its shipped data is the moved prefix's: run from elsewhere, with no environment help.
(cd "$work" && "$work/consumer/consumer" only-in-prefix >"$work/consumer-moved.txt") ||
  fail "consumer: the model only in the moved prefix was not found"
(cd "$work" && "$work/consumer/consumer" gpt2-1.3b >"$work/consumer-shipped.txt") ||
  fail "consumer: gpt2-1.3b failed"
grep -q '^real-cost iteration_time ' "$work/consumer-moved.txt" || fail "consumer: no real-cost line"
cmp -s "$work/consumer-moved.txt" "$work/consumer-shipped.txt" ||
  fail "consumer: the same model under two names gave different results"

# (2) The moved CLI: its version, then shipped names resolved from <prefix>/share/pipesim.
pipesim=$prefix/bin/pipesim
[ "$("$pipesim" --version)" = "pipesim $version" ] || fail "--version: '$("$pipesim" --version)'"
# Listed into a file: `grep -q` on a pipe exits at the first match, and under pipefail the
# SIGPIPE of a listing longer than one write would fail the line.
"$pipesim" list models >"$work/models.txt" || fail "list models failed"
grep -q '^only-in-prefix ' "$work/models.txt" || fail "list models: only-in-prefix missing"
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

# (3) The Python module of the moved prefix: the import check, then a real-cost run on a model
# only the moved prefix has, equal to what the moved CLI printed for it.
if [ -n "${PIPESIM_PYTHON:-}" ]; then
  module=$(find "$prefix" -path '*/dist-packages/pipesim*.so')
  [ -n "$module" ] || fail "python: no pipesim module under $prefix/*/dist-packages"
  site=$(dirname "$module")
  PYTHONPATH=$site "$PIPESIM_PYTHON" -B -c "import pipesim; assert pipesim.simulate(schedule='1f1b', stages=4, micro_batches=8, t_forward=1, t_backward=2)['iteration_time'] == 33" ||
    fail "python: the 1F1B D=4 N=8 check failed"
  PYTHONPATH=$site "$PIPESIM_PYTHON" -B - "$site" "$work/moved.json" <<'EOF' || fail "python: the moved module disagrees with the moved CLI"
import json, os, sys
import pipesim
site, moved_json = sys.argv[1:]
assert os.path.dirname(pipesim.__file__) == site, pipesim.__file__
assert "only-in-prefix" in [m["name"] for m in pipesim.models()], pipesim.models()
r = pipesim.simulate(model="only-in-prefix", hardware="p100-daint", stages=4, micro_batches=8)
with open(moved_json, encoding="utf-8") as f:
    assert r == json.load(f)
EOF
fi
echo "install_test: moved prefix OK ($prefix)"
