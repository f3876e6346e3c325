// `pipesim plot` and `pipesim compare --plot` with gnuplot: well-formed SVGs, PNGs, the script
// and data saved beside the figure, and one clear line when gnuplot is missing or fails.

#include <gtest/gtest.h>

#include "../support/cli_invoke.hpp"
#include "../support/xml_check.hpp"

namespace pipesim::cli {
namespace {

using testing::count_lines;
using testing::invoke_cli;
using testing::ScratchDir;
using testing::xml_problem;

std::string sweep_csv(const ScratchDir& dir) {
  const std::string csv = dir.file("sweep.csv");
  const auto r = invoke_cli({"sweep", "--schedule", "gpipe,1f1b,zigzag", "--stages", "2:8:x2",
                             "--micro-batches", "8", "-o", csv});
  EXPECT_EQ(r.code, 0) << r.err;
  return csv;
}

TEST(PlotCommand, LinePlotIsWellFormedSvgWithScriptAndDataBeside) {
  const ScratchDir dir;
  const std::string csv = sweep_csv(dir);
  const auto r = invoke_cli({"plot", csv, "--x", "stages", "--y", "bubble_ratio", "--group",
                             "schedule", "-o", dir.file("fig.svg")});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string svg = ScratchDir::read(dir.file("fig.svg"));
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("gpipe"), std::string::npos) << "the key names each group";
  EXPECT_NE(svg.find("1f1b"), std::string::npos);
  const std::string script = ScratchDir::read(dir.file("fig.gp"));
  EXPECT_NE(script.find("datafile = \"fig.dat\""), std::string::npos) << script;
  EXPECT_NE(script.find("set terminal svg"), std::string::npos);
  // Only ok rows are drawn; gpipe and 1f1b are identical here and drawn once under both names;
  // the unknown schedule's invalid rows have no line but are marked at the bottom, one cross
  // per (series, x), and counted.
  const std::string data = ScratchDir::read(dir.file("fig.dat"));
  EXPECT_EQ(data.substr(0, data.find("# not drawn")),
            "# schedule = gpipe = 1f1b: stages, bubble ratio (fraction "
            "of worker time)\n2 0.11111111111111116 \"2\"\n4 0.2727272727272727 \"4\"\n"
            "8 0.4666666666666667 \"8\"\n\n\n");
  EXPECT_NE(data.find("# not drawn (invalid): stages, position at the bottom\n2 0.08 \"2\"\n"),
            std::string::npos)
      << data;
  EXPECT_NE(script.find("not drawn: 3 invalid"), std::string::npos) << script;
  EXPECT_NE(script.find("noenhanced"), std::string::npos) << "underscores stay underscores";
  EXPECT_NE(script.find("set ylabel \"bubble ratio (fraction of worker time)\""), std::string::npos)
      << script;
}

TEST(PlotCommand, PngByExtension) {
  const ScratchDir dir;
  const std::string csv = sweep_csv(dir);
  const auto r = invoke_cli(
      {"plot", csv, "--x", "stages", "--y", "iteration_time", "-o", dir.file("fig.png")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ScratchDir::read(dir.file("fig.png")).substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_NE(ScratchDir::read(dir.file("fig.gp")).find("set terminal pngcairo"), std::string::npos);
}

TEST(PlotCommand, BarsOfPeakActivationsPerWorkerFromSimulateJson) {
  const ScratchDir dir;
  const std::string json = dir.file("run.json");
  ASSERT_EQ(invoke_cli({"simulate", "--schedule", "1f1b", "-D", "4", "-N", "8", "--format", "json",
                        "-o", json})
                .code,
            0);
  const auto r = invoke_cli({"plot", json, "--kind", "bars", "-o", dir.file("mem.svg")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(xml_problem(ScratchDir::read(dir.file("mem.svg"))), "");
  EXPECT_EQ(ScratchDir::read(dir.file("mem.dat")),
            "# worker peak_activations\n0 4\n1 3\n2 2\n3 1\n");
}

TEST(PlotCommand, RealCostBarsAreInGibWithTheGpuMemoryLine) {
  const ScratchDir dir;
  const std::string json = dir.file("run.json");
  ASSERT_EQ(invoke_cli({"simulate", "--model", "gpt2-32l", "--hardware", "p100-daint", "--schedule",
                        "1f1b", "-D", "4", "-N", "8", "--format", "json", "-o", json})
                .code,
            0);
  const auto r = invoke_cli({"plot", json, "--kind", "bars", "-o", dir.file("mem.svg")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(xml_problem(ScratchDir::read(dir.file("mem.svg"))), "");
  const std::string data = ScratchDir::read(dir.file("mem.dat"));
  // Stacked at the peak: the last cumulative column (weights .. other) is the peak itself.
  EXPECT_EQ(data.rfind("# worker peak_memory (GiB); cumulative at the peak: +weights +gradients "
                       "+optimizer +activations +other\n0 ",
                       0),
            0u)
      << data;
  for (size_t at = data.find('\n') + 1; at < data.size(); at = data.find('\n', at) + 1) {
    const std::string line = data.substr(at, data.find('\n', at) - at);
    const std::string peak =
        line.substr(line.find(' ') + 1, line.find(' ', line.find(' ') + 1) - line.find(' ') - 1);
    EXPECT_NEAR(std::stod(peak), std::stod(line.substr(line.rfind(' ') + 1)), 1e-9) << line;
  }
  EXPECT_EQ(testing::count_lines(data), 5u);
  // p100-daint: 17,071,734,784 B per GPU, as the driver reports it.
  EXPECT_NE(ScratchDir::read(dir.file("mem.gp")).find("     15.8992919921875 with lines"),
            std::string::npos);
}

TEST(PlotCommand, MemoryOverTimeIsOneStepLinePerWorkerInGib) {
  const ScratchDir dir;
  const std::string json = dir.file("run.json");
  const auto sim = invoke_cli({"simulate", "--model", "gpt2-32l", "--hardware", "p100-daint",
                               "--schedule", "1f1b", "-D", "4", "-N", "8", "--memory-timeline",
                               "--format", "json", "-o", json});
  ASSERT_EQ(sim.code, 0) << sim.err;
  const auto r = invoke_cli({"plot", json, "--kind", "memory", "-o", dir.file("mem.svg")});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string svg = ScratchDir::read(dir.file("mem.svg"));
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("worker 3"), std::string::npos) << "the key names each worker";
  const std::string data = ScratchDir::read(dir.file("mem.dat"));
  EXPECT_EQ(data.rfind("# worker 0: time, memory (GiB)\n0 ", 0), 0u) << data;
  for (const char* block : {"# worker 1:", "# worker 2:", "# worker 3:"}) {
    EXPECT_NE(data.find(block), std::string::npos) << block;
  }
  const std::string script = ScratchDir::read(dir.file("mem.gp"));
  EXPECT_NE(script.find("with steps"), std::string::npos) << script;
  EXPECT_NE(script.find("datafile index 3 "), std::string::npos) << script;
  EXPECT_NE(script.find("     15.8992919921875 with lines linewidth 2 dashtype 2"),
            std::string::npos)
      << script;
}

TEST(PlotCommand, MemoryWithoutATimelineIsOneLineExit2) {
  const ScratchDir dir;
  const std::string json = dir.file("run.json");
  ASSERT_EQ(invoke_cli({"simulate", "--model", "gpt2-32l", "--hardware", "p100-daint", "-D", "2",
                        "--format", "json", "-o", json})
                .code,
            0);
  const auto r = invoke_cli({"plot", json, "--kind", "memory", "-o", dir.file("mem.svg")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(
      r.err.find("run.json: memory_timeline: per_worker[0] has none; simulate in real-cost mode"),
      std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("mem.svg")));
}

TEST(PlotCommand, MissingGnuplotIsOneLineAndKeepsTheScript) {
  const ScratchDir dir;
  const std::string csv = sweep_csv(dir);
  const auto r = invoke_cli({"plot", csv, "--x", "stages", "--y", "bubble_ratio", "-o",
                             dir.file("fig.svg"), "--gnuplot", "/nonexistent/gnuplot"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("pipesim: error: gnuplot not found: cannot run '/nonexistent/gnuplot'", 0),
            0u)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("fig.svg")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("fig.gp")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("fig.dat")));
}

TEST(PlotCommand, FailingGnuplotIsOneLineAndLeavesTheOldFigure) {
  const ScratchDir dir;
  const std::string csv = sweep_csv(dir);
  dir.write("fig.svg", "old");
  const auto r = invoke_cli({"plot", csv, "--x", "stages", "--y", "bubble_ratio", "-o",
                             dir.file("fig.svg"), "--gnuplot", "false"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("pipesim: error: gnuplot failed (exit 1) rendering ", 0), 0u) << r.err;
  EXPECT_EQ(ScratchDir::read(dir.file("fig.svg")), "old");
}

TEST(PlotCommand, GnuplotsLastErrorLineIsPassedOn) {
  const ScratchDir dir;
  const std::string csv = sweep_csv(dir);
  const std::string fake =
      dir.write("fake-gnuplot",
                "#!/bin/sh\necho 'set xrange [' >&2\necho '\"fig.gp\" line 7: bad' >&2\n"
                "exit 3\n");
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  const auto r = invoke_cli({"plot", csv, "--x", "stages", "--y", "bubble_ratio", "-o",
                             dir.file("fig.svg"), "--gnuplot", fake});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "pipesim: error: gnuplot failed (exit 3) rendering " + dir.file("fig.svg") +
                       ": \"fig.gp\" line 7: bad; the script is in " + dir.file("fig.gp") + "\n");
}

struct BadPlot {
  std::vector<std::string> extra;
  std::string expect;
};

class PlotCommandBad : public ::testing::TestWithParam<BadPlot> {};

TEST_P(PlotCommandBad, OneLineExit2) {
  const ScratchDir dir;
  const std::string csv = sweep_csv(dir);
  std::vector<std::string> args{"plot", csv};
  for (const auto& a : GetParam().extra)
    args.push_back(a == "FIG" ? dir.file("fig.svg") : a);
  const auto r = invoke_cli(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(GetParam().expect), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PlotCommandBad,
    ::testing::Values(
        BadPlot{{"--x", "stages", "--y", "bubble_ratio", "-o", "fig.jpg"},
                "extension must be .svg, .png or .pdf, got '.jpg'"},
        BadPlot{{"--x", "nope", "--y", "bubble_ratio", "-o", "FIG"},
                "nope: no such column; columns are schedule, stages"},
        BadPlot{{"--x", "stages", "--y", "schedule", "-o", "FIG"},
                "schedule: row 2: 'gpipe' is not a number"},
        BadPlot{{"--x", "stages", "--y", "throughput", "-o", "FIG"},
                "throughput: no row with status ok and a value to plot"},
        BadPlot{{"--y", "bubble_ratio", "-o", "FIG"}, "--x/--y: a line plot needs both"},
        BadPlot{{"--kind", "bars", "-o", "FIG"}, "sweep.csv: json: [json.exception.parse_error"},
        BadPlot{{"--x", "stages", "--y", "bubble_ratio", "--reduce", "avg", "-o", "FIG"},
                "--reduce: must be one of none|min|max"}));

TEST(PlotCommand, MissingInputIsOneLine) {
  const auto r = invoke_cli({"plot", "/nonexistent.csv", "--x", "a", "--y", "b", "-o", "f.svg"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "pipesim: error: /nonexistent.csv: file: cannot be read\n");
}

}  // namespace
}  // namespace pipesim::cli
