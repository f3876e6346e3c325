// A scheme registered from outside the catalogue (toy_schedule.cpp, one file, one registry
// entry) is a scheme of every front end: listed, simulated, swept, searched, exported to
// PyTorch's CSV format, in --help with its own option, and in Python.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "../support/cli_invoke.hpp"

namespace pipesim::testing {
namespace {

TEST(ToySchedule, IsListedWithItsDescription) {
  const CliResult r = invoke_cli({"list", "schedules"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("toy            test-only: GPipe in groups"), std::string::npos) << r.out;
}

TEST(ToySchedule, HelpShowsItsOwnOptionWithItsDefault) {
  for (const char* command : {"simulate", "sweep"}) {
    const CliResult r = invoke_cli({command, "--help"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("--toy-group"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1 (toy)"), std::string::npos) << r.out;
  }
}

std::string iteration_time(const CliResult& r) {
  const auto at = r.out.find("\"iteration_time\": ");
  return r.out.substr(at, r.out.find(',', at) - at);
}

TEST(ToySchedule, SimulatesAndOneGroupIsGPipe) {
  const CliResult toy = invoke_cli({"simulate", "--schedule", "toy", "-D", "4", "-N", "8",
                                    "--toy-group", "8", "--format", "json"});
  const CliResult gpipe =
      invoke_cli({"simulate", "--schedule", "gpipe", "-D", "4", "-N", "8", "--format", "json"});
  ASSERT_EQ(toy.code, 0) << toy.err;
  EXPECT_EQ(iteration_time(toy), iteration_time(gpipe));
  // Its own constraint, in the CLI's words.
  const CliResult bad =
      invoke_cli({"simulate", "--schedule", "toy", "-D", "4", "-N", "8", "--toy-group", "3"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err, "pipesim: error: schedule toy: --toy-group: must divide N = 8, got 3\n");
  // Another scheme refuses the option, naming the one that takes it.
  const CliResult other = invoke_cli({"simulate", "--schedule", "1f1b", "--toy-group", "2"});
  EXPECT_NE(other.err.find("--toy-group: does not apply to schedule 1f1b (only to toy)"),
            std::string::npos)
      << other.err;
}

TEST(ToySchedule, SweepsWithItsOptionAsAColumn) {
  const CliResult r = invoke_cli(
      {"sweep", "--schedule", "toy", "-D", "2", "-N", "4", "--toy-group", "1,2,4", "-j", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.substr(0, r.out.find('\n')).find(",toy_group,"), std::string::npos) << r.out;
  EXPECT_EQ(count_lines(r.out), 4u) << r.out;
  EXPECT_EQ(r.out.find("invalid"), std::string::npos) << r.out;
}

TEST(ToySchedule, IsSearchedWithItsVariants) {
  const CliResult r = invoke_cli({"search", "--model", "gpt2-1.3b", "--hardware", "p100-daint",
                                  "--gpus", "4", "--mini-batch", "8", "--schedule", "toy,1f1b",
                                  "--recompute", "full", "--all", "-o", "-", "-j", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\ntoy,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("toy "), std::string::npos) << r.out;  // a winner in the table
}

TEST(ToySchedule, ExportsToPyTorchCsvAndReplays) {
  const ScratchDir dir;
  const std::string csv = dir.file("toy.csv");
  ASSERT_EQ(invoke_cli({"simulate", "--schedule", "toy", "-D", "3", "-N", "6", "--toy-group", "2",
                        "--export-csv", csv})
                .code,
            0);
  const CliResult generated = invoke_cli({"simulate", "--schedule", "toy", "-D", "3", "-N", "6",
                                          "--toy-group", "2", "--format", "json"});
  const CliResult replayed = invoke_cli({"simulate", "--schedule-file", csv, "--format", "json"});
  ASSERT_EQ(replayed.code, 0) << replayed.err;
  EXPECT_EQ(iteration_time(replayed), iteration_time(generated));
}

// The Python module built with the toy linked in (tests/CMakeLists.txt) knows it too.
TEST(ToySchedule, IsInPython) {
#if !defined(PIPESIM_PYTHON) || !defined(PIPESIM_TOY_MODULE_DIR)
  GTEST_SKIP() << "this build has no Python module";
#else
  const std::string python = PIPESIM_PYTHON, module_dir = PIPESIM_TOY_MODULE_DIR;
  const ScratchDir dir;
  const std::string script = dir.file("toy.py");
  std::ofstream(script) << R"(import pipesim
assert any(s["name"] == "toy" for s in pipesim.schedules()), pipesim.schedules()
assert any(o["name"] == "toy_group" for o in pipesim.options())
toy = pipesim.simulate(schedule="toy", stages=4, micro_batches=8, toy_group=8)
gpipe = pipesim.simulate(schedule="gpipe", stages=4, micro_batches=8)
assert toy["iteration_time"] == gpipe["iteration_time"], (toy, gpipe)
rows = pipesim.sweep(schedule="toy", stages=2, micro_batches=4, toy_group=[1, 2, 4], jobs=1)
assert [r["toy_group"] for r in rows] == [1, 2, 4], rows  # typed: an integer option
try:
    pipesim.simulate(schedule="toy", stages=4, micro_batches=8, toy_group=3)
    raise SystemExit("toy_group=3 was accepted")
except ValueError as e:
    assert str(e) == "schedule toy: toy_group=: must divide N = 8, got 3", str(e)
)";
  const std::string command =
      std::string("PYTHONPATH='") + module_dir + "' '" + python + "' -B '" + script + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
#endif
}

}  // namespace
}  // namespace pipesim::testing
