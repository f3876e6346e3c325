#!/bin/bash
# --export-dot through the real binary: GraphViz's dot parses and lays out what it writes
# (chunks, pipelines, split backward and transfers; a real-cost run's graph too), with the
# node and edge counts the JSON report states. Exits 77 (ctest: skipped) when dot is absent;
# tools/install-deps.sh installs it (Debian graphviz). Usage: export_dot.sh PIPESIM (in an
# empty scratch folder).
set -u
P="$1"
fail() { echo "FAIL: $*"; exit 1; }
command -v dot >/dev/null || { echo "GraphViz dot is not installed (tools/install-deps.sh): skipped"; exit 77; }
rm -rf export_dot && mkdir export_dot && cd export_dot || exit 1

check() {  # name, simulate options...
  local name="$1"
  shift
  "$P" simulate "$@" --export-dot "$name.dot" --format json -o "$name.json" || fail "$name: simulate"
  dot -Tsvg "$name.dot" -o "$name.svg" 2>"$name.err" || fail "$name: dot: $(head -3 "$name.err")"
  [ -s "$name.err" ] && fail "$name: dot warned: $(head -3 "$name.err")"
  grep -q "<svg" "$name.svg" || fail "$name: no SVG"
  # What dot read: `dot -Tplain` prints one line per node and one per edge.
  local tasks nodes edges
  tasks=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tasks"])' "$name.json")
  nodes=$(dot -Tplain "$name.dot" | grep -c '^node ')
  [ "$nodes" -eq "$tasks" ] || fail "$name: dot read $nodes nodes, the run has $tasks tasks"
  edges=$(dot -Tplain "$name.dot" | grep -c '^edge ')
  [ "$edges" -eq "$(grep -c -- '->[0-9]' "$name.dot")" ] || fail "$name: dot read $edges edges"
  echo "ok $name: $nodes nodes, $edges edges"
}

check zb-v --schedule zb-v -D 4 -N 8 --t-weight 1
check chimera --schedule chimera -D 4 -N 8 --pipelines 2
check interleaved --schedule interleaved -D 2 -N 4 --chunks 2 --t-comm 0.5
check real --schedule 1f1b -D 2 -N 4 --model gpt2-32l --hardware p100-daint -W 2
exit 0
