#!/usr/bin/env bash
# `pip install .` of this source tree into a fresh venv, the way a user without a package index
# installs the module (python3 -m venv --system-site-packages; pip install --no-build-isolation:
# Debian's setuptools drives CMake through setup.py), reusing the configured BUILD_DIR
# (PIPESIM_CMAKE_BUILD_DIR) so that only the module target is brought up to date. Then the
# venv's module: it is the installed one, it simulates 1F1B's closed form, its rows are typed,
# and it reads the shipped data installed into <venv>/share/pipesim (a model only there, and the
# prediction ranges a real-cost result carries).
#
# usage: pip_install_test.sh PYTHON SOURCE_DIR BUILD_DIR
set -euo pipefail

python=$1
source_dir=$2
build_dir=$3

fail() {
  echo "pip_install_test: $*" >&2
  exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/pipesim-pip-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset PIPESIM_DATA_DIR PYTHONPATH

# A copy of the sources, so that setuptools' in-tree build/ and egg-info stay out of the tree
# under test (build folders and git data are not needed).
mkdir "$work/src"
tar -C "$source_dir" --exclude=./build --exclude='./build-*' --exclude=./.git \
  --exclude=./pipesim.egg-info -cf - . | tar -C "$work/src" -xf -

"$python" -m venv --system-site-packages "$work/venv" || fail "python3 -m venv failed"
(cd "$work/src" &&
  PIPESIM_CMAKE_BUILD_DIR=$build_dir "$work/venv/bin/pip" install --no-build-isolation \
    --no-index --no-cache-dir . >"$work/pip.log" 2>&1) ||
  { cat "$work/pip.log" >&2; fail "pip install failed"; }

venv=$work/venv
cp "$venv/share/pipesim/models/gpt2-1.3b.yaml" "$venv/share/pipesim/models/only-in-venv.yaml" ||
  fail "no shipped models in $venv/share/pipesim"
cd "$work"
"$venv/bin/python" -B - "$venv" <<'PY' || fail "the installed module failed its checks"
import os, sys
import pipesim
venv = sys.argv[1]
assert os.path.realpath(pipesim.__file__).startswith(os.path.realpath(venv) + os.sep), pipesim.__file__
r = pipesim.simulate(schedule="1f1b", stages=4, micro_batches=8, t_forward=1, t_backward=2)
assert r["iteration_time"] == (8 + 4 - 1) * 3, r["iteration_time"]  # (N + D - 1)(t_F + t_B)
rows = pipesim.sweep(schedule="gpipe", stages=[2, 4], micro_batches=8)
for row in rows:
    assert type(row["stages"]) is int and type(row["iteration_time"]) is float, row
    assert row["overlap_p2p"] is True and row["model"] is None, row
assert max(r["iteration_time"] for r in rows) == (8 + 4 - 1) * 3.0
assert "only-in-venv" in [m["name"] for m in pipesim.models()], pipesim.models()
a = pipesim.simulate(model="only-in-venv", hardware="p100-daint", stages=4, micro_batches=8)
b = pipesim.simulate(model="gpt2-1.3b", hardware="p100-daint", stages=4, micro_batches=8)
assert {**a, "model": None} == {**b, "model": None}
assert b["iteration_time_range"]["low"] < b["iteration_time"] < b["iteration_time_range"]["high"], b
PY
echo "pip_install_test: OK ($venv)"
