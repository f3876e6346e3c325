// Prediction ranges on the command line: validate writes the table as YAML only with --ranges,
// and a real-cost simulate reports the range its class's row of the shipped table gives.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "../support/cli_invoke.hpp"
#include "pipesim/scenario/prediction_range.hpp"

namespace pipesim {
namespace {

using testing::invoke_cli;

std::string source_file(const std::string& relative) {
  const char* root = std::getenv("PIPESIM_SOURCE_DIR");
  return (std::filesystem::path(root ? root : ".") / relative).string();
}

TEST(PredictionRangeCli, YamlIsTheRangesFormatOnly) {
  const auto no_ranges = invoke_cli({"validate", "--format", "yaml"});
  EXPECT_EQ(no_ranges.code, 2);
  EXPECT_NE(no_ranges.err.find("--ranges"), std::string::npos) << no_ranges.err;
  const auto csv_ranges = invoke_cli({"validate", "--ranges", "--format", "csv"});
  EXPECT_EQ(csv_ranges.code, 2);
  EXPECT_NE(csv_ranges.err.find("text or yaml"), std::string::npos) << csv_ranges.err;
}

TEST(PredictionRangeCli, ValidateWritesATableTheReaderTakes) {
  const testing::ScratchDir dir;
  const std::string out = dir.file("ranges.yaml");
  const auto r = invoke_cli({"validate", source_file("validation/nar-t1-1008.0b.yaml"),
                             source_file("validation/nar-t1-145.6b.yaml"), "--ranges", "--format",
                             "yaml", "-o", out});
  ASSERT_EQ(r.code, 0) << r.err;
  const scenario::RangeTable table = scenario::read_range_table(out);
  EXPECT_DOUBLE_EQ(table.coverage, 0.8);
  ASSERT_EQ(table.ranges.size(), 1u);  // two runs: no class of its own, all runs only
  EXPECT_EQ(table.ranges.back().basis, "all runs");
  EXPECT_EQ(table.ranges.back().runs, 2u);
}

TEST(PredictionRangeCli, SimulateReportsItsClasssRangeOfTheShippedTable) {
  const auto r =
      invoke_cli({"simulate", "--model", "llama3-70b", "--hardware", "h100-dgx", "--schedule",
                  "1f1b", "-D", "8", "-N", "16", "--tensor-parallel", "8", "--format", "json"});
  ASSERT_TRUE(r.code == 0 || r.code == 4) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const scenario::RangeTable table =
      scenario::read_range_table(source_file("validation/ranges/prediction-ranges.yaml"));
  const scenario::RatioRange& expected =
      scenario::range_for(table, {"dense", "hopper", "multi-node"});
  const double t = j.at("iteration_time").get<double>();
  const auto& range = j.at("iteration_time_range");
  EXPECT_EQ(range.at("basis"), expected.basis);
  EXPECT_DOUBLE_EQ(range.at("low").get<double>(), expected.low * t);
  EXPECT_DOUBLE_EQ(range.at("high").get<double>(), expected.high * t);
  EXPECT_DOUBLE_EQ(range.at("coverage").get<double>(), table.coverage);
  // Unit-cost runs have no measured runs like them: no range.
  const auto unit =
      invoke_cli({"simulate", "--schedule", "1f1b", "-D", "4", "-N", "8", "--format", "json"});
  ASSERT_EQ(unit.code, 0) << unit.err;
  EXPECT_FALSE(nlohmann::json::parse(unit.out).contains("iteration_time_range"));
}

}  // namespace
}  // namespace pipesim
