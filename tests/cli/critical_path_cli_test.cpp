// simulate --critical-path (text and JSON) and --export-dot through the CLI: what they print,
// that the JSON path adds up to the run, and one clear line with exit code 2 for bad input.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../support/cli_invoke.hpp"

namespace pipesim::cli {
namespace {

using pipesim::testing::count_lines;
using pipesim::testing::ScratchDir;
const auto invoke = &pipesim::testing::invoke_cli;

TEST(CliCriticalPath, TextHasTheSummaryAndOneLinePerStep) {
  const auto r = invoke({"simulate", "--schedule", "1f1b", "-D", "4", "-N", "8", "--t-forward", "1",
                         "--t-backward", "2", "--critical-path"});
  ASSERT_EQ(r.code, 0) << r.err;
  // (N + D − 1)(t_F + t_B) = 33 slots, all compute; tests/sim/critical_path_test.cpp reasons
  // out the 30 steps (22 compute ops, 6 transfers, an all-reduce and an optimizer step).
  EXPECT_NE(
      r.out.find(
          "critical path: 30 ops, 33 slots compute, 0 slots communication, 0 slots waiting\n"),
      std::string::npos)
      << r.out;
  const size_t table = r.out.find("\n step kind");
  ASSERT_NE(table, std::string::npos);
  EXPECT_EQ(count_lines(r.out.substr(table + 1)), 1u + 30u);  // header + steps
  const auto plain = invoke({"simulate", "--schedule", "1f1b", "-D", "4", "-N", "8"});
  EXPECT_EQ(r.out.rfind(plain.out, 0), 0u) << "the usual report comes first, unchanged";
  EXPECT_EQ(plain.out.find("critical path"), std::string::npos) << "opt-in";
}

TEST(CliCriticalPath, JsonStepsAddUpToTheIterationTime) {
  // zb-h1 with a W op of its own cost; chimera has none.
  for (const std::vector<std::string>& schedule :
       {std::vector<std::string>{"zb-h1", "--t-weight", "1"},
        std::vector<std::string>{"chimera"}}) {
    std::vector<std::string> args{
        "simulate", "--schedule",     "-D", "4", "-N", "8", "--t-comm", "0.5", "--format",
        "json",     "--critical-path"};
    args.insert(args.begin() + 2, schedule.begin(), schedule.begin() + 1);
    args.insert(args.end(), schedule.begin() + 1, schedule.end());
    const auto r = invoke(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& path = j.at("critical_path");
    ASSERT_FALSE(path.empty());
    double sum = 0.0, communication = 0.0;
    for (const auto& s : path) {
      sum += s.at("duration").get<double>() + s.at("wait").get<double>();
      EXPECT_DOUBLE_EQ(s.at("duration").get<double>(),
                       s.at("end").get<double>() - s.at("start").get<double>());
      if (s.at("kind") == "S") {
        EXPECT_TRUE(s.contains("peer"));
        communication += s.at("duration").get<double>();
      }
    }
    EXPECT_DOUBLE_EQ(sum, j.at("iteration_time").get<double>()) << schedule[0];
    EXPECT_GT(communication, 0.0) << "t_comm > 0: the path crosses workers";
    EXPECT_EQ(path.front().at("via"), "start");
    EXPECT_EQ(path.front().at("start"), 0.0);
  }
}

TEST(CliCriticalPath, RefusedWithCsv) {
  const auto r = invoke({"simulate", "--schedule", "1f1b", "-D", "2", "-N", "2", "--format", "csv",
                         "--critical-path"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("--critical-path: prints with --format text or json, not csv"),
            std::string::npos)
      << r.err;
}

TEST(CliExportDot, WritesTheGraphAtomically) {
  const ScratchDir dir;
  const std::string dot = dir.file("g.dot"), gv = dir.file("g.gv");
  ASSERT_EQ(
      invoke({"simulate", "--schedule", "1f1b", "-D", "2", "-N", "2", "--export-dot", dot}).code,
      0);
  ASSERT_EQ(
      invoke({"simulate", "--schedule", "1f1b", "-D", "2", "-N", "2", "--export-dot", gv}).code, 0);
  const std::string text = ScratchDir::read(dot);
  EXPECT_EQ(text.rfind("digraph G {", 0), 0u);
  EXPECT_NE(text.find("label=\"1f1b  D=2 N=2\";"), std::string::npos);
  EXPECT_EQ(ScratchDir::read(gv), text);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.file("")))
    files += e.is_regular_file();
  EXPECT_EQ(files, 2u) << "no temporary left behind";
}

TEST(CliExportDot, RefusesAnotherExtensionAndAnUnwritablePath) {
  const ScratchDir dir;
  const std::string svg = dir.file("g.svg");
  auto r = invoke({"simulate", "--schedule", "1f1b", "-D", "2", "-N", "2", "--export-dot", svg});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("--export-dot: writes GraphViz DOT: the file must end in .dot or .gv, "
                       "got '.svg'"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(svg));
  const std::string missing = dir.file("no/such/folder/g.dot");
  r = invoke({"simulate", "--schedule", "1f1b", "-D", "2", "-N", "2", "--export-dot", missing});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("no/such/folder/g.dot"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pipesim::cli
