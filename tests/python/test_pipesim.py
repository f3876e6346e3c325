"""Tests of the `pipesim` Python module against the CLI it mirrors.

The oracle is the built CLI itself, run as a subprocess: simulate() must return exactly what
`pipesim simulate --format json` prints for the same options, sweep() exactly the rows of
`pipesim sweep`'s CSV with each field typed as the output schema declares its column (int,
float, bool for on|off and flags, str, None for an empty field), compare(), search() and
validate() what those commands print, the list functions what `pipesim list` prints, and errors
the CLI's error line. Plus closed forms (1F1B: T = (N+D-1)(t_F+t_B), bubble ratio
(D-1)/(N+D-1)).

Run by ctest (tests/python/CMakeLists.txt) with Debian's python3, PYTHONPATH at the build tree's
module, PIPESIM_CLI at the build tree's CLI and PIPESIM_SCHEMA at docs/schema's output schema.
Standard library only (to_dataframe() is checked when pandas is importable).
"""

import csv
import glob
import importlib.util
import io
import json
import os
import re
import subprocess
import tempfile
import unittest

import pipesim

CLI = os.environ["PIPESIM_CLI"]
with open(os.environ["PIPESIM_SCHEMA"], encoding="utf-8") as schema_file:
    ROW_SCHEMA = json.load(schema_file)["$defs"]["row"]


def flag(name):
    return "--" + name.replace("_", "-")


def cli_args(options):
    args = []
    for name, value in options.items():
        args += [flag(name), value if isinstance(value, str) else repr(value)]
    return args


def run_cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=False)


def cli_ok(*args):
    done = run_cli(*args)
    if done.returncode != 0:
        raise AssertionError(f"pipesim {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def cli_error(*args):
    """The CLI's error line without its 'pipesim: error: ' prefix."""
    done = run_cli(*args)
    assert done.returncode == 2, (args, done.returncode, done.stdout)
    line = done.stderr.rstrip("\n")
    assert line.startswith("pipesim: error: ") and "\n" not in line, line
    return line[len("pipesim: error: "):]


def in_python_words(message, call):
    """A CLI error line as the module words it: an option is a keyword (`--micro-batches` →
    `micro_batches=`), and the command line is the call that was given it."""
    message = message.replace("command line: ", call + ": ")
    return re.sub(r"--([a-z0-9-]+)", lambda m: m.group(1).replace("-", "_") + "=", message)


def cli_json(options, *extra):
    return json.loads(cli_ok("simulate", "--format", "json", *cli_args(options), *extra))


def typed_field(column, text):
    """A CSV field as the schema types its column: the oracle of the module's typed rows."""
    if text == "":
        return None
    spec = ROW_SCHEMA["properties"][column]
    types = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
    if "integer" in types:
        return int(text)
    if "number" in types:
        return float(text)
    if "boolean" in types:
        return {"true": True, "false": False}[text]
    if set(spec.get("enum", [])) - {None} == {"on", "off"}:  # an on|off option
        return {"on": True, "off": False}[text]
    return text


def typed(row):
    return {column: typed_field(column, text) for column, text in row.items()}


def csv_rows(text):
    return [typed(row) for row in csv.DictReader(io.StringIO(text))]


def cli_rows(options, *extra):
    return csv_rows(cli_ok("sweep", *cli_args(options), *extra))


class ModuleTest(unittest.TestCase):
    def test_module_is_the_one_under_test(self):
        # PYTHONPATH names the build tree's (or the installed) module: no other pipesim.
        first = os.environ["PYTHONPATH"].split(os.pathsep)[0]
        self.assertEqual(os.path.dirname(os.path.abspath(pipesim.__file__)),
                         os.path.abspath(first))

    def test_version_matches_cli(self):
        self.assertEqual("pipesim " + pipesim.__version__, cli_ok("--version").strip())


class SimulateTest(unittest.TestCase):
    def test_1f1b_closed_form(self):
        # (N + D - 1)(t_F + t_B) = 11 * 3 slots; bubble ratio (D-1)/(N+D-1) = 3/11.
        r = pipesim.simulate(schedule="1f1b", stages=4, micro_batches=8, t_forward=1,
                             t_backward=2)
        self.assertEqual(r["iteration_time"], 33)
        self.assertAlmostEqual(r["bubble_ratio"], 3 / 11, places=12)

    def test_gpipe_closed_form_over_sizes(self):
        for d, n in [(2, 3), (4, 8), (8, 5)]:
            r = pipesim.simulate(schedule="gpipe", stages=d, micro_batches=n, t_forward=1.5,
                                 t_backward=2.5)
            self.assertAlmostEqual(r["iteration_time"], (n + d - 1) * 4.0, places=9)

    def test_equals_cli_json(self):
        cases = [
            dict(schedule="1f1b", stages=4, micro_batches=8, t_forward=1, t_backward=2),
            dict(schedule="gpipe", stages=3, micro_batches=5, t_comm=0.25),
            dict(schedule="chimera", stages=4, micro_batches=8, strategy="doubling"),
            dict(schedule="interleaved", stages=4, micro_batches=8, chunks=2, t_forward=0.7),
            dict(schedule="zb-h1", stages=4, micro_batches=6, t_weight=1),
            dict(schedule="pipedream", stages=3, micro_batches=6, iterations=3),
        ]
        for options in cases:
            with self.subTest(**options):
                self.assertEqual(pipesim.simulate(**options), cli_json(options))

    def test_ops_equal_cli_ops(self):
        options = dict(schedule="dualpipe", stages=4, micro_batches=8)
        r = pipesim.simulate(ops=True, **options)
        self.assertEqual(r, cli_json(options, "--ops"))
        self.assertNotEqual(r, pipesim.simulate(**options))  # ops add a per-worker list

    def test_real_cost_equals_cli_json(self):
        options = dict(model="gpt2-1.3b", hardware="p100-daint", stages=4, micro_batches=8,
                       micro_batch_size=2, recompute="selective")
        r = pipesim.simulate(**options)
        self.assertEqual(r, cli_json(options))
        self.assertEqual(r["mode"], "real-cost")
        self.assertEqual(r["model"], "gpt2-1.3b")
        self.assertEqual(r["mini_batch"], 2 * 8)
        self.assertGreater(r["throughput"], 0)
        self.assertTrue(0 < r["mfu"] < 1)
        # throughput = samples per iteration / iteration time
        self.assertAlmostEqual(r["throughput"] * r["iteration_time"], 16, places=9)

    def test_value_types_parse_as_their_text(self):
        base = pipesim.simulate(stages=4, micro_batches=8, t_forward=1, t_backward=2)
        self.assertEqual(pipesim.simulate(stages="4", micro_batches="8", t_forward="1",
                                          t_backward=2.0), base)
        self.assertEqual(pipesim.simulate(stages=4, micro_batches=None, t_forward=1.0,
                                          strategy=""), base)
        # A float is written as Python's shortest repr, so the value survives exactly.
        r = pipesim.simulate(schedule="gpipe", stages=2, micro_batches=1, t_forward=0.1,
                             t_backward=0.2)
        self.assertEqual(r, cli_json(dict(schedule="gpipe", stages=2, micro_batches=1,
                                          t_forward="0.1", t_backward="0.2")))

    def test_overlap_p2p_text(self):
        options = dict(model="gpt2-1.3b", hardware="p100-daint", overlap_p2p="off")
        self.assertEqual(pipesim.simulate(**options), cli_json(options))


class SweepTest(unittest.TestCase):
    def test_rows_equal_cli_csv(self):
        # stages 3 makes chimera invalid: a row with a reason, quoted in the CSV when it holds
        # a comma.
        options = dict(schedule="gpipe,1f1b,chimera", stages="3,4", micro_batches="4:8:x2",
                       t_comm="0,0.5")
        rows = pipesim.sweep(jobs=2, **options)
        expected = cli_rows(options, "--jobs", "2")
        for row in expected:
            row["status"] = in_python_words(row["status"], "sweep()")
        self.assertEqual(rows, expected)
        self.assertEqual(len(rows), 3 * 2 * 2 * 2)
        self.assertTrue(any(r["status"].startswith("invalid: ") for r in rows))
        self.assertEqual(list(rows[0]), next(csv.reader(io.StringIO(
            cli_ok("sweep", "--stages", "2")))))

    def test_python_lists_equal_list_text(self):
        self.assertEqual(
            pipesim.sweep(schedule=["gpipe", "1f1b"], stages=range(2, 5), t_forward=(1, 1.5)),
            pipesim.sweep(schedule="gpipe,1f1b", stages="2:4", t_forward="1,1.5"))

    def test_rows_agree_with_simulate(self):
        rows = pipesim.sweep(schedule="1f1b", stages=[2, 4], micro_batches=[4, 8])
        for row in rows:
            r = pipesim.simulate(schedule="1f1b", stages=row["stages"],
                                 micro_batches=row["micro_batches"])
            self.assertEqual(row["iteration_time"], r["iteration_time"])
            self.assertEqual(row["status"], "ok")

    def test_real_cost_rows_equal_cli_csv(self):
        options = dict(model="gpt2-1.3b", hardware="p100-daint", stages="2,4",
                       schedule="1f1b,chimera", recompute="none,full")
        rows = pipesim.sweep(**options)
        self.assertEqual(rows, cli_rows(options))
        self.assertTrue(all(r["throughput"] > 0 for r in rows if r["status"] == "ok"))

    def test_sweep_file_equals_cli(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "sweep.yaml")
            with open(path, "w", encoding="utf-8") as f:
                f.write("schedule: [gpipe, 1f1b]\nstages: 2,4\nmicro-batches: 4:16:x2\n")
            rows = pipesim.sweep(file=path, micro_batches=8)  # the keyword wins over the file
            self.assertEqual(rows, cli_rows({"micro_batches": 8}, "--file", path))
            self.assertEqual(len(rows), 4)


class TypedRowsTest(unittest.TestCase):
    def test_every_column_has_its_schema_type(self):
        rows = pipesim.sweep(schedule="gpipe,1f1b,chimera", stages="3,4", micro_batches="4,16")
        rows += pipesim.sweep(model="gpt2-1.3b", hardware="p100-daint", stages=4,
                              schedule=["1f1b", "pipedream"])
        self.assertEqual([list(r) for r in rows], [ROW_SCHEMA["x-columns"]] * len(rows))
        kinds = {"integer": int, "number": float, "boolean": bool, "string": str}
        for row in rows:
            for column, value in row.items():
                spec = ROW_SCHEMA["properties"][column]
                types = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
                allowed = {type(None)} if "null" in types else set()
                allowed |= {kinds[t] for t in types if t != "null"}
                if set(spec.get("enum", [])) - {None} == {"on", "off"}:
                    allowed = (allowed & {type(None)}) | {bool}
                with self.subTest(column=column, value=value):
                    self.assertIn(type(value), allowed)

    def test_numbers_compare_as_numbers(self):
        # As text, max() of the iteration times would be the lexically largest ("99" > "201").
        rows = pipesim.sweep(schedule="gpipe", stages=4, micro_batches=[8, 64], t_forward=1,
                             t_backward=2)
        times = [r["iteration_time"] for r in rows]
        self.assertEqual(times, [(n + 4 - 1) * 3.0 for n in (8, 64)])  # GPipe's closed form
        self.assertEqual(max(times), 201.0)

    def test_switches_are_bools_both_ways(self):
        on = dict(model="gpt2-1.3b", hardware="h100-dgx", stages=4, micro_batches=8,
                  tensor_parallel=2)
        self.assertEqual(pipesim.simulate(**on, sequence_parallel=True),
                         pipesim.simulate(**on, sequence_parallel="on"))
        self.assertNotEqual(pipesim.simulate(**on, sequence_parallel=True),
                            pipesim.simulate(**on, sequence_parallel=False))
        rows = pipesim.sweep(**on, sequence_parallel=[True, False])
        self.assertEqual([r["sequence_parallel"] for r in rows], [True, False])
        self.assertEqual(rows, cli_rows({**on, "sequence_parallel": "on,off"}))

    @unittest.skipIf(importlib.util.find_spec("pandas") is None, "pandas is not installed")
    def test_to_dataframe(self):
        rows = pipesim.sweep(schedule=["gpipe", "1f1b"], stages=[2, 4])
        frame = pipesim.to_dataframe(rows)
        self.assertEqual(list(frame.columns), ROW_SCHEMA["x-columns"])
        self.assertEqual(frame.to_dict("records")[1]["stages"], rows[1]["stages"])
        self.assertEqual(float(frame["iteration_time"].max()),
                         max(r["iteration_time"] for r in rows))


class CommandsTest(unittest.TestCase):
    def test_compare_ranks_the_sweep(self):
        options = dict(schedule="gpipe,1f1b,zb-h1,chimera", stages="3,4", micro_batches="8,16")
        c = pipesim.compare(**options)
        cli_text = cli_ok("compare", *cli_args(options))
        self.assertEqual(c["text"], in_python_words(cli_text, "compare()"))
        rows = pipesim.sweep(**options)
        self.assertEqual(c["rank_by"], "iteration_time")
        self.assertFalse(c["higher_is_better"])
        ranked = [r for g in c["groups"] for r in g["rows"]]
        # Every row once: ranked (ok) or not.
        key = lambda r: json.dumps(r, sort_keys=True)
        self.assertEqual(sorted(map(key, ranked + c["not_ranked"])), sorted(map(key, rows)))
        self.assertTrue(all(r["status"] != "ok" for r in c["not_ranked"]))
        for group in c["groups"]:
            times = [r["iteration_time"] for r in group["rows"]]
            self.assertEqual(times, sorted(times))  # lower is better: best first
            self.assertEqual({r["micro_batches"] for r in group["rows"]},
                             {int(group["label"].split()[0])})

    def test_compare_rank_by_and_errors(self):
        c = pipesim.compare(schedule="gpipe,1f1b", stages=4, rank_by="peak_activations_max")
        self.assertEqual([r["schedule"] for r in c["groups"][0]["rows"]], ["1f1b", "gpipe"])
        with self.assertRaisesRegex(ValueError, "rank_by"):
            pipesim.compare(stages=4, rank_by="status")

    def test_search_equals_cli(self):
        args = ["--model", "gpt2-1.3b", "--hardware", "p100-daint", "--gpus", "8",
                "--mini-batch", "32", "--schedule", "1f1b,gpipe,zb-h1", "--jobs", "2"]
        s = pipesim.search("gpt2-1.3b", "p100-daint", gpus=8, mini_batch=32,
                           schedules=["1f1b", "gpipe", "zb-h1"], jobs=2)
        with tempfile.TemporaryDirectory() as tmp:
            winners, every = os.path.join(tmp, "w.csv"), os.path.join(tmp, "all.csv")
            cli_ok("search", *args, "-o", winners)
            cli_ok("search", *args, "--all", "-o", every)
            with open(every, encoding="utf-8") as f:
                self.assertEqual(s["rows"], csv_rows(f.read()))
            with open(winners, encoding="utf-8") as f:
                expected = list(csv.DictReader(f))
        for w in expected:
            w.update(typed({k: v for k, v in w.items() if k not in ("rank", "limited_by")}))
            w["rank"] = int(w["rank"])
        self.assertEqual(s["winners"], expected)
        self.assertEqual(s["rank_by"], "throughput")
        self.assertEqual([w["rank"] for w in s["winners"]], [1, 2, 3])

    def test_search_expert_and_context_parallel_equal_cli(self):
        args = ["--model", "mixtral-8x7b", "--hardware", "h100-dgx", "--gpus", "16",
                "--mini-batch", "32", "--schedule", "1f1b", "--recompute", "full",
                "-T", "1,2", "-C", "1,2", "-E", "1,8", "--expert-tensor-parallel", "1,2",
                "--jobs", "2"]
        s = pipesim.search("mixtral-8x7b", "h100-dgx", gpus=16, mini_batch=32,
                           schedules="1f1b", recompute="full", tensor_parallel=[1, 2],
                           context_parallel="1,2", expert_parallel=[1, 8],
                           expert_tensor_parallel=[1, 2], jobs=2)
        with tempfile.TemporaryDirectory() as tmp:
            every = os.path.join(tmp, "all.csv")
            cli_ok("search", *args, "--all", "-o", every)
            with open(every, encoding="utf-8") as f:
                self.assertEqual(s["rows"], csv_rows(f.read()))
        degrees = {(r["context_parallel"], r["expert_parallel"], r["expert_tensor_parallel"])
                   for r in s["rows"]}
        self.assertIn((2, 8, 2), degrees)

    def test_search_takes_a_config_json_and_simulate_options(self):
        config = os.path.join(os.path.dirname(os.environ["PIPESIM_SCHEMA"]), "..", "..",
                              "tests", "data", "hf", "qwen3-0.6b.json")
        args = ["--model", config, "--hardware", "h100-dgx", "--gpus", "8", "--mini-batch", "16",
                "--schedule", "1f1b", "--sequence", "2048", "--precision", "bf16", "--jobs", "2"]
        s = pipesim.search(config, "h100-dgx", gpus=8, mini_batch=16, schedules="1f1b",
                           sequence=2048, precision="bf16", jobs=2)
        with tempfile.TemporaryDirectory() as tmp:
            every = os.path.join(tmp, "all.csv")
            cli_ok("search", *args, "--all", "-o", every)
            with open(every, encoding="utf-8") as f:
                self.assertEqual(s["rows"], csv_rows(f.read()))
        self.assertTrue(s["winners"])
        self.assertEqual({r["model_sequence"] for r in s["rows"] if r["status"] == "ok"}, {2048})
        # An option search chooses itself is refused by name.
        with self.assertRaisesRegex(ValueError, r"stages"):
            pipesim.search(config, "h100-dgx", gpus=8, mini_batch=16, sequence=2048, stages=2)

    def test_megatron_names_are_keywords(self):
        ours = pipesim.simulate(model="llama3-8b", hardware="h100-dgx", tensor_parallel=2,
                                stages=2, micro_batches=4)
        theirs = pipesim.simulate(model="llama3-8b", hardware="h100-dgx",
                                  tensor_model_parallel_size=2,
                                  pipeline_model_parallel_size=2, micro_batches=4)
        self.assertEqual(ours, theirs)
        # The same option under both names agrees, or is refused naming both.
        self.assertEqual(pipesim.simulate(model="llama3-8b", hardware="h100-dgx", stages=2,
                                          pipeline_model_parallel_size=2, tensor_parallel=2,
                                          micro_batches=4), ours)
        with self.assertRaisesRegex(ValueError, r"stages=2 and pipeline_model_parallel_size=4"):
            pipesim.simulate(model="llama3-8b", hardware="h100-dgx", stages=2,
                             pipeline_model_parallel_size=4)
        rows = pipesim.sweep(model="llama3-8b", hardware="h100-dgx",
                             tensor_model_parallel_size=[1, 2], stages=2, micro_batches=4)
        self.assertEqual([r["tensor_parallel"] for r in rows], [1, 2])

    def test_search_errors_name_the_keyword(self):
        with self.assertRaisesRegex(ValueError, r"^search\(\): gpus=: "):
            pipesim.search("gpt2-1.3b", "p100-daint", gpus=0, mini_batch=32)

    def test_validate_equals_cli_json(self):
        files = sorted(glob.glob(os.path.join(os.path.dirname(os.environ["PIPESIM_SCHEMA"]),
                                              "..", "..", "validation", "*.yaml")))[:3]
        self.assertEqual(len(files), 3)
        self.assertEqual(pipesim.validate(files),
                         json.loads(cli_ok("validate", "--format", "json", *files)))


class ListTest(unittest.TestCase):
    def test_schedules_equal_cli_list(self):
        lines = [f"{s['name']:<14} {s['description']}  [{s['citation']}]"
                 for s in pipesim.schedules()]
        self.assertEqual(lines, cli_ok("list", "schedules").splitlines())
        self.assertIn("1f1b", [s["name"] for s in pipesim.schedules()])

    def test_models_and_hardware_equal_cli_list(self):
        for what, listed in [("models", pipesim.models()), ("hardware", pipesim.hardware())]:
            with self.subTest(what=what):
                lines = [f"{m['name']:<14} {m['description']}" for m in listed]
                # The CLI indents each profile's curve provenance under it.
                cli = [l for l in cli_ok("list", what).splitlines() if not l.startswith(" ")]
                self.assertEqual(lines, cli)
        for h in pipesim.hardware():
            kinds = {text.split(":")[0] for text in h["curves"].values()}
            self.assertTrue(kinds <= {"measured", "derived", "fitted", "assumed"}, h["name"])
            self.assertIn("hbm_efficiency", h["curves"], h["name"])
        self.assertIn("gpt2-1.3b", [m["name"] for m in pipesim.models()])
        self.assertIn("p100-daint", [h["name"] for h in pipesim.hardware()])

    def test_options_are_the_cli_flags(self):
        help_text = cli_ok("simulate", "--help")
        names = [o["name"] for o in pipesim.options()]
        self.assertIn("micro_batches", names)
        for name in names:
            self.assertIn(flag(name), help_text)
        self.assertIn("micro_batches", pipesim.simulate.__doc__)


class ErrorTest(unittest.TestCase):
    def assert_cli_message(self, call, options, *cli_command):
        with self.assertRaises(ValueError) as caught:
            call(**options)
        expected = in_python_words(cli_error(*cli_command, *cli_args(options)),
                                   call.__name__ + "()")
        self.assertEqual(str(caught.exception), expected)

    def test_simulate_errors_carry_cli_message(self):
        for options in [dict(stages=0), dict(stages="four"), dict(schedule="no-such-schedule"),
                        dict(t_forward=-1), dict(recompute="some"),
                        dict(model="no-such-model", hardware="p100-daint"),
                        dict(schedule="chimera", stages=3),
                        dict(schedule="interleaved", stages=4, micro_batches=6)]:
            with self.subTest(**options):
                self.assert_cli_message(pipesim.simulate, options, "simulate")

    def test_sweep_errors_carry_cli_message(self):
        for options in [dict(stages="0,4"), dict(micro_batches="8:4"), dict(t_comm="0,,1")]:
            with self.subTest(**options):
                self.assert_cli_message(pipesim.sweep, options, "sweep")

    def test_sweep_unknown_schedule_is_an_invalid_row(self):
        # As in the CLI: a configuration that cannot run is a row with its reason, not an error.
        options = dict(schedule="1f1b,no-such-schedule", stages="4")
        rows = pipesim.sweep(**options)
        expected = cli_rows(options)
        for row in expected:
            row["status"] = in_python_words(row["status"], "sweep()")
        self.assertEqual(rows, expected)
        self.assertEqual(rows[0]["status"], "ok")
        self.assertTrue(rows[1]["status"].startswith("invalid: sweep(): schedule=: "), rows[1])

    def test_python_usage_errors(self):
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'stage'"):
            pipesim.simulate(stage=4)
        with self.assertRaisesRegex(TypeError, "stages: expected int, float, str or bool"):
            pipesim.simulate(stages=[4, 8])  # lists are for sweep()
        with self.assertRaisesRegex(ValueError, r"jobs: must be in \[0, 256\], got -1"):
            pipesim.sweep(jobs=-1)
        with self.assertRaisesRegex(ValueError, r"overlap_p2p=: must be one of on\|off, got 'yes'"):
            pipesim.simulate(overlap_p2p="yes")
        with self.assertRaisesRegex(ValueError, "stages=: expected an integer"):
            pipesim.simulate(stages=4.5)

    def test_switches_take_bools(self):
        # An on|off option takes True/False as well as its words.
        off = dict(schedule="1f1b", stages=4, micro_batches=8, model="gpt2-1.3b",
                   hardware="p100-daint")
        self.assertEqual(pipesim.simulate(**off, overlap_p2p=False),
                         pipesim.simulate(**off, overlap_p2p="off"))
        self.assertEqual(pipesim.simulate(**off, overlap_p2p=True), pipesim.simulate(**off))


if __name__ == "__main__":
    unittest.main()
