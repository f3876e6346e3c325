// The CLI's file outputs and inputs: --timeline (SVG), --trace (Chrome trace events),
// --export-csv and --schedule-file round trip, and one clear line + exit code 2 for a bad file.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ranges>
#include <sstream>

#include "../support/cli_invoke.hpp"
#include "cli/commands.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::cli {
namespace {

using pipesim::testing::CliResult;
// One in-process CLI runner for every test (tests/support/cli_invoke.hpp).
const auto invoke = &pipesim::testing::invoke_cli;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + 1))
    ++n;
  return n;
}

const std::string kDir = ::testing::TempDir();

TEST(CliFiles, TimelineDrawsEveryOpInTwoShadesDeterministically) {
  const std::string svg = kDir + "chimera.svg";
  ASSERT_EQ(
      invoke({"simulate", "--schedule", "chimera", "-D", "4", "-N", "8", "--timeline", svg}).code,
      0);
  const std::string a = slurp(svg);
  EXPECT_EQ(a.rfind("<svg", 0), 0u);
  for (const char* row : {">P0<", ">P1<", ">P2<", ">P3<"})
    EXPECT_NE(a.find(row), std::string::npos);
  EXPECT_EQ(count(a, "<title>F("), 32u);  // D·N forwards
  EXPECT_EQ(count(a, "<title>B("), 32u);
  EXPECT_NE(a.find("F forward (down)"), std::string::npos);
  EXPECT_NE(a.find("F forward (up)"), std::string::npos);
  EXPECT_NE(a.find("all-reduce launch"), std::string::npos);
  EXPECT_NE(a.find(">time (slots)<"), std::string::npos);
  EXPECT_NE(a.find("iteration time 30 slots"), std::string::npos) << "the unit is named";
  ASSERT_EQ(
      invoke({"simulate", "--schedule", "chimera", "-D", "4", "-N", "8", "--timeline", svg}).code,
      0);
  EXPECT_EQ(slurp(svg), a);
}

TEST(CliFiles, TimelineRefusesAnExtensionItCannotWrite) {
  const std::string png = kDir + "timeline.png";
  const auto r =
      invoke({"simulate", "--schedule", "1f1b", "-D", "2", "-N", "2", "--timeline", png});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count(r.err, "\n"), 1u) << r.err;
  EXPECT_NE(r.err.find("--timeline: writes SVG: the file must end in .svg, got '.png'"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(png));
}

TEST(CliFiles, RealCostTimelineIsScaledToTheFigureWidth) {
  // Real-cost runs last fractions of a second: the figure must still be wide enough to read.
  const std::string svg = kDir + "real.svg";
  ASSERT_EQ(invoke({"simulate", "--schedule", "1f1b", "-D", "4", "-N", "4", "--model", "gpt2-32l",
                    "--hardware", "p100-daint", "--timeline", svg})
                .code,
            0);
  const std::string a = slurp(svg);
  const auto at = a.find("width=\"");
  ASSERT_NE(at, std::string::npos);
  EXPECT_GT(std::stod(a.substr(at + 7)), 1000.0);
  EXPECT_NE(a.find(">time (s)<"), std::string::npos);
}

TEST(CliFiles, TraceHasOneCompleteEventPerOpOnEachWorkersComputeTrack) {
  const std::string path = kDir + "trace.json";
  ASSERT_EQ(invoke({"simulate", "--schedule", "zb-h1", "-D", "3", "-N", "4", "--t-weight", "1",
                    "--t-comm", "0.5", "--trace", path})
                .code,
            0);
  const auto j = nlohmann::json::parse(slurp(path));
  size_t compute = 0, sends = 0, names = 0;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "M") {
      ++names;
      continue;
    }
    ASSERT_EQ(e.at("ph"), "X");
    EXPECT_GE(e.at("dur").get<double>(), 0.0);
    EXPECT_LT(e.at("pid").get<int>(), 3);
    if (e.at("cat") == "compute") ++compute;
    if (e.at("cat") == "transfer") ++sends;
  }
  EXPECT_EQ(compute, 3u * 4u * 3u);  // F, I, W per stage and micro-batch
  EXPECT_GT(sends, 0u);
  EXPECT_EQ(names, 3u * 5u);  // process name, sort index, three thread names
}

// The trace format counts microseconds: the last event of a real-cost run ends at the simulated
// iteration time (seconds, from the JSON report of the same run) × 10⁶, and the first compute
// event starts at the first op's start × 10⁶. A unit-cost run shows 1 slot as 1000 µs.
TEST(CliFiles, TraceShowsTheIterationAtItsTrueLengthInMicroseconds) {
  struct Case {
    std::vector<std::string> mode;
    double micros_per_unit;
  };
  for (const Case& c : {Case{{"--model", "gpt2-32l", "--hardware", "p100-daint"}, 1e6},
                        Case{{"--t-comm", "0.25"}, 1e3}}) {
    const std::string path = kDir + "clock.json";
    std::vector<std::string> args{"simulate", "--schedule", "1f1b", "-D",      "4", "-N",
                                  "8",        "--format",   "json", "--trace", path};
    args.insert(args.end(), c.mode.begin(), c.mode.end());
    const CliResult r = invoke(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto report = nlohmann::json::parse(r.out);
    const double iteration = report.at("iteration_time").get<double>();
    ASSERT_GT(iteration, 0.0);
    double first = 1e300, last = 0;
    const auto trace = nlohmann::json::parse(slurp(path));
    for (const auto& e : trace.at("traceEvents")) {
      if (e.at("ph") != "X") continue;
      first = std::min(first, e.at("ts").get<double>());
      last = std::max(last, e.at("ts").get<double>() + e.at("dur").get<double>());
    }
    EXPECT_DOUBLE_EQ(first, 0.0);
    EXPECT_NEAR(last, iteration * c.micros_per_unit, 1e-9 * iteration * c.micros_per_unit);
    if (c.micros_per_unit == 1e6) {  // a real iteration is seconds long, not milliseconds
      EXPECT_GT(last, 1e5);
    }
  }
}

TEST(CliFiles, ExportedCsvReplaysToTheSameRun) {
  const std::string csv = kDir + "dualpipe.csv";
  const auto generated = invoke({"simulate", "--schedule", "dualpipe", "-D", "4", "-N", "8",
                                 "--t-weight", "1", "--format", "json", "--export-csv", csv});
  ASSERT_EQ(generated.code, 0) << generated.err;
  const auto replayed =
      invoke({"simulate", "--schedule-file", csv, "--t-weight", "1", "--format", "json"});
  ASSERT_EQ(replayed.code, 0) << replayed.err;
  const auto a = nlohmann::json::parse(generated.out), b = nlohmann::json::parse(replayed.out);
  for (const char* key : {"iteration_time", "bubble_ratio", "peak_activations", "workers",
                          "micro_batches", "pipelines", "tasks"}) {
    EXPECT_EQ(a.at(key), b.at(key)) << key;
  }
  EXPECT_EQ(a.at("per_worker"), b.at("per_worker"));
}

TEST(CliFiles, BadScheduleFileIsOneLineAndExitCode2) {
  const std::string path = kDir + "bad.csv";
  { std::ofstream(path) << "0F0,0B0\n1F0,1Z0\n"; }
  const auto r = invoke({"simulate", "--schedule-file", path});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count(r.err, "\n"), 1u) << r.err;
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("row 2 column 2"), std::string::npos) << r.err;
  const auto missing = invoke({"simulate", "--schedule-file", kDir + "nope.txt"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos) << missing.err;
}

TEST(CliFiles, ChimeraBadParametersAreOneLine) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"simulate", "--schedule", "chimera", "-D", "5", "-N", "5"},
        std::vector<std::string>{"simulate", "--schedule", "chimera", "-D", "4", "-N", "4",
                                 "--pipelines", "6"},
        std::vector<std::string>{"simulate", "--schedule", "chimera", "-D", "4", "-N", "6"}}) {
    const auto r = invoke(args);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(count(r.err, "\n"), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("pipesim: error: schedule chimera: --", 0), 0u) << r.err;
  }
}

TEST(CliFiles, ListShowsEveryScheme) {
  const auto r = invoke({"list", "schedules"});
  ASSERT_EQ(r.code, 0);
  // One line per registered scheme, each starting with its name.
  const auto schemes = pipesim::schedules::all_schedules();
  EXPECT_EQ(count(r.out, "\n"), static_cast<size_t>(std::ranges::distance(schemes))) << r.out;
  for (const pipesim::schedules::ScheduleEntry& e : schemes) {
    EXPECT_TRUE(r.out.starts_with(e.name + " ") ||
                r.out.find("\n" + e.name + " ") != std::string::npos)
        << e.name;
  }
}

}  // namespace
}  // namespace pipesim::cli
