#!/usr/bin/python3
"""Runs every `pipesim` command of every README code block, so the docs cannot drift.

Usage: run_doc_commands.py PIPESIM [REPO_ROOT] [--keep] [--only README ...]

What is run
  - READMEs: README.md at the root and every */README.md below it, except under build*/,
    hidden folders (.git/, .ci/, ...) and tests/golden/.
  - Blocks: fenced code blocks whose language is `sh`, `bash` or `shell` (an indented fence,
    e.g. inside a list item, counts too). ```python blocks (`import pipesim`) are left out: the
    Python module has its own tests (tests/python/, ctest python_test). Untagged blocks are
    output, yaml/cmake blocks are not commands.
  - Commands: each line whose first word is `pipesim`, with backslash continuations joined
    and a trailing unquoted `# comment` removed. Every other line (tools/*.sh, cmake, build
    trees, the install example) is not run: those build or install; the count is printed.
  - How: with bash (`set -o pipefail`), `pipesim` being a shell function that runs the binary
    given as PIPESIM, so globs, redirections and pipes work as written. The environment has
    PIPESIM_DATA_DIR=REPO_ROOT (the shipped models/hardware/validation runs). Timeout:
    TIMEOUT_S seconds per command.
  - Where: one fresh temporary folder per README, in which its blocks' commands run in README
    order (a later command reads an earlier one's output, also across blocks: README.md's
    `pipesim plot run.json` reads the `run.json` of its "Using it" block). The folder holds
    COPIES (never links: commands write e.g. hardware/h200-sxm-calibrated.yaml) of FIXTURE_DIRS,
    and the stand-ins of GPU_RUN_STANDINS.

Stand-ins for a GPU run
  The host half of calibration reads what tools/gpu-calibrate.sh measured on a GPU node
  (`run/samples.csv`, `run/layer_times.csv`, `results/calibration/h200/...`). CI has no GPU, so
  those files are the repository's SYNTHETIC inputs (tests/data/calibration/synthetic_samples.csv
  with its `# gpu:` line naming the H200, calibrate/examples/layer_times.csv). This checks the
  commands' syntax and that they work on well-formed samples; nothing is measured. A file the
  repository really has (a committed results/calibration/h200/samples.csv) is used as it is.

Pass rule (one rule, no guessing from prose)
  A command passes when it exits 0, or, when its line ends with the marker comment
  `# exit N` (the comment starts with `exit N`, more text may follow: `# exit 4: does not fit`),
  when it exits exactly N. A README that shows an error on purpose must carry the marker.

Skips
  Only the commands matched by SKIPS below are skipped, each printed with its reason.

Output: one line per command (`ok`, `FAIL (exit N)`, `FAIL (timeout)`, `skipped: reason`), the
output tail of each failure, one count line per README, and last
`N passed, N failed, N skipped`. Exit status 1 on any failure, 2 on a usage error.
"""
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TIMEOUT_S = 120

# Copied into every README's folder (relative to the repository root), when present.
FIXTURE_DIRS = ["validation", "examples", "models", "hardware", "calibrate/examples",
                "tests/data", "results/calibration"]

# Folder -> {file: repository file}: what a GPU run (tools/gpu-calibrate.sh) leaves there.
SYNTHETIC_SAMPLES = "tests/data/calibration/synthetic_samples.csv"
EXAMPLE_LAYER_TIMES = "calibrate/examples/layer_times.csv"
GPU_RUN_STANDINS = {
    "run": {"samples.csv": SYNTHETIC_SAMPLES, "layer_times.csv": EXAMPLE_LAYER_TIMES},
    "results/calibration/h200": {"samples.csv": SYNTHETIC_SAMPLES,
                                 "layer_times.csv": EXAMPLE_LAYER_TIMES},
}
STANDIN_GPU_LINE = "# gpu: NVIDIA H200"  # replaces the synthetic file's `# gpu:` line


def _words(command):
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _calibrate_run_mode(words):
    # `pipesim calibrate ...` that measures: neither --from-samples, --from-trace nor the
    # layer-check.
    return (len(words) > 1 and words[0] == "pipesim" and words[1] == "calibrate"
            and "layer-check" not in words
            and not any(w.split("=")[0] in ("--from-samples", "--from-trace") for w in words))


# (predicate on the command's words, reason). Lines starting with mpirun or
# tools/gpu-calibrate.sh are reported here too rather than silently not run.
SKIPS = [
    (_calibrate_run_mode,
     "needs a CUDA GPU (`pipesim calibrate` without --from-samples runs the CUDA benchmarks)"),
    (lambda w: bool(w) and w[0] == "mpirun", "needs MPI and several GPUs (mpirun)"),
    (lambda w: bool(w) and w[0].endswith("gpu-calibrate.sh"),
     "needs a GPU node with the CUDA toolkit (tools/gpu-calibrate.sh)"),
]

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([A-Za-z0-9_+-]*)")
SHELL_LANGS = {"sh", "bash", "shell"}
EXIT_MARKER = re.compile(r"^exit\s+(\d+)\b")


def split_comment(line):
    """Returns (code, comment) with an unquoted `#` that starts a word as the split point."""
    quote = None
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = None
        elif c == "\\":
            i += 1
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
        i += 1
    return line.rstrip(), ""


def extract(readme):
    """Yields (line number, command, comment) for every logical line of the shell blocks."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    in_block, shell, fence, indent = False, False, "", 0
    pending, pending_no, comments = None, 0, []
    for no, raw in enumerate(lines, 1):
        m = FENCE.match(raw)
        if not in_block:
            if m:
                in_block, fence, indent = True, m.group(2), len(m.group(1))
                shell = m.group(3).lower() in SHELL_LANGS
            continue
        if m and m.group(2).startswith(fence[0] * 3) and not m.group(3):
            in_block = False
            if pending is not None:  # a continuation left open at the block's end
                yield pending_no, pending, " ".join(comments)
                pending = None
            continue
        if not shell:
            continue
        text = raw[indent:] if raw[:indent].isspace() else raw.lstrip()
        code, comment = split_comment(text)
        if pending is None:
            if not code.strip():
                continue
            pending, pending_no, comments = "", no, []
        if comment:
            comments.append(comment)
        if code.endswith("\\"):
            pending += code[:-1].strip() + " "
            continue
        pending += code.strip()
        yield pending_no, pending.strip(), " ".join(comments)
        pending = None


def find_readmes(root):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".") and not d.startswith("build")
                             and (rel / d).as_posix() != "tests/golden")
        if "README.md" in filenames:
            found.append(Path(dirpath) / "README.md")
    return sorted(found, key=lambda p: (p.parent != root, p.relative_to(root).as_posix()))


def make_workdir(root):
    work = Path(tempfile.mkdtemp(prefix="pipesim-doc-"))
    for d in FIXTURE_DIRS:
        if (root / d).is_dir():
            shutil.copytree(root / d, work / d, symlinks=False)
    for folder, files in GPU_RUN_STANDINS.items():
        (work / folder).mkdir(parents=True, exist_ok=True)
        for name, source in files.items():
            target = work / folder / name
            if target.exists() or not (root / source).is_file():  # committed: use it as it is
                continue
            text = (root / source).read_text(encoding="utf-8")
            if name == "samples.csv":
                text = re.sub(r"(?m)^# gpu:.*$", STANDIN_GPU_LINE, text, count=1)
            target.write_text(text, encoding="utf-8")
    return work


def run(command, cwd, env):
    """Returns (exit code or None on timeout, output tail, seconds)."""
    script = 'pipesim() { "$DOC_PIPESIM" "$@"; }\nset -o pipefail\n' + command + "\n"
    start = time.monotonic()
    proc = subprocess.Popen(["/bin/bash", "-c", script], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=TIMEOUT_S)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        code = None
    tail = out.decode("utf-8", "replace").splitlines()[-8:]
    return code, tail, time.monotonic() - start


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    keep = "--keep" in argv
    only = []
    if "--only" in argv:
        i = argv.index("--only")
        only, args = argv[i + 1:], [a for a in argv[1:i] if not a.startswith("--")]
    if not 1 <= len(args) <= 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    binary = os.path.abspath(args[0])
    root = Path(args[1] if len(args) > 1 else Path(__file__).resolve().parents[2]).resolve()
    if not os.access(binary, os.X_OK):
        print(f"run_doc_commands: {binary}: not an executable", file=sys.stderr)
        return 2
    env = dict(os.environ, PIPESIM_DATA_DIR=str(root), DOC_PIPESIM=binary, LC_ALL="C.UTF-8")
    env.pop("PIPESIM_BUDGET", None)

    totals = {"passed": 0, "failed": 0, "skipped": 0}
    per_readme = []
    started = time.monotonic()
    for readme in find_readmes(root):
        name = readme.relative_to(root).as_posix()
        if only and name not in only:
            continue
        commands, others = [], 0
        for no, command, comment in extract(readme):
            words = _words(command)
            reason = next((r for pred, r in SKIPS if pred(words)), None)
            if words and words[0] == "pipesim" or reason:
                commands.append((no, command, comment, reason))
            else:
                others += 1
        if not commands:
            continue
        print(f"== {name}: {len(commands)} commands"
              + (f" ({others} other shell lines not run: not pipesim commands)" if others else ""))
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        work = None
        for no, command, comment, reason in commands:
            where = f"{name}:{no}"
            if reason:
                print(f"skipped: {reason}  {where}  {command}")
                counts["skipped"] += 1
                continue
            if work is None:
                work = make_workdir(root)
            m = EXIT_MARKER.match(comment)
            expected = int(m.group(1)) if m else 0
            code, tail, seconds = run(command, work, env)
            if code == expected:
                print(f"ok  {where}  {command}  ({seconds:.1f} s"
                      + (f", exit {code} as documented)" if expected else ")"))
                counts["passed"] += 1
                continue
            if code is None:
                status = f"FAIL (timeout {TIMEOUT_S} s)"
            else:
                status = f"FAIL (exit {code}" + (f", documented {expected})" if expected else ")")
            print(f"{status}  {where}  {command}  ({seconds:.1f} s)")
            for line in tail:
                print(f"    | {line}")
            counts["failed"] += 1
        if work is not None:
            if keep:
                print(f"   (kept {work})")
            else:
                shutil.rmtree(work, ignore_errors=True)
        per_readme.append((name, len(commands), counts))
        for k in totals:
            totals[k] += counts[k]

    print(f"-- per README ({time.monotonic() - started:.1f} s):")
    for name, n, c in per_readme:
        print(f"   {name}: {n} found, {c['passed']} passed, {c['failed']} failed, "
              f"{c['skipped']} skipped")
    print(f"{totals['passed']} passed, {totals['failed']} failed, {totals['skipped']} skipped")
    return 1 if totals["failed"] or not per_readme else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
