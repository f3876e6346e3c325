// Prediction ranges from validation residuals: the ratio each point gives, the quantiles by
// hand, the fallback from a class too small to a wider one, one ratio per run, and
// leave-one-source-out coverage on sources built by hand.

#include "pipesim/validation/prediction_range.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/cli_invoke.hpp"
#include "pipesim/core/config_error.hpp"

namespace pipesim::validation {
namespace {

PointResult time_point(const std::string& id, const std::string& source, double ratio,
                       const std::string& workload = "dense", double gpus = 64) {
  PointResult p;
  p.id = id;
  p.source = source;
  p.metric = ValidationMetric::IterationTime;
  p.measured = ratio;
  p.predicted = 1.0;
  p.status = "ok";
  p.gpu_generation = "hopper";
  p.gpus = gpus;
  p.workload = workload;
  return p;
}

TEST(PredictionRange, TimeAndThroughputPointsGiveMeasuredOverPredictedTime) {
  PointResult t = time_point("a", "s", 1.0);
  t.measured = 10;
  t.predicted = 8;
  EXPECT_DOUBLE_EQ(*time_ratio(t), 1.25);
  PointResult thr = t;
  thr.metric = ValidationMetric::SamplesPerGpuPerSec;
  thr.measured = 100;
  thr.predicted = 125;  // predicted faster: the run takes 1.25× the predicted time
  EXPECT_DOUBLE_EQ(*time_ratio(thr), 1.25);
  PointResult memory = t;
  memory.metric = ValidationMetric::PeakMemoryGib;
  EXPECT_FALSE(time_ratio(memory));
  PointResult failed = t;
  failed.predicted.reset();
  EXPECT_FALSE(time_ratio(failed));
}

TEST(PredictionRange, AClassRangeIsTheCentralShareOfItsRatios) {
  std::vector<PointResult> points;
  for (int i = 0; i <= 10; ++i)  // 1.00, 1.01, ..., 1.10
    points.push_back(time_point(fmt::format("r{}", i), "s", 1.0 + 0.01 * i));
  // The same run twice counts once.
  points.push_back(time_point("r0", "s", 3.0));
  const RangeTable table = prediction_ranges(points, 0.8);
  const RatioRange& r = range_for(table, {"dense", "hopper", "multi-node"});
  EXPECT_EQ(r.basis, "dense/hopper/multi-node");
  EXPECT_EQ(r.runs, 11u);
  // Quantiles 0.1 and 0.9 of 11 ordered values: positions 1 and 9.
  EXPECT_NEAR(r.low, 1.01, 1e-12);
  EXPECT_NEAR(r.high, 1.09, 1e-12);
}

TEST(PredictionRange, ASmallClassFallsBackToAWiderOne) {
  std::vector<PointResult> points;
  for (int i = 0; i < 12; ++i)
    points.push_back(time_point(fmt::format("d{}", i), "s", 1.0 + 0.01 * i));
  for (int i = 0; i < 3; ++i)  // three MoE runs: no class of their own
    points.push_back(time_point(fmt::format("m{}", i), "s", 2.0, "moe"));
  const RangeTable table = prediction_ranges(points, 0.8);
  EXPECT_EQ(range_for(table, {"moe", "hopper", "multi-node"}).basis, "all runs");
  EXPECT_EQ(range_for(table, {"moe", "hopper", "multi-node"}).runs, 15u);
  // A dense run on one node falls back to dense/hopper (its scale has no runs).
  EXPECT_EQ(range_for(table, {"dense", "hopper", "one node"}).basis, "dense/hopper");
  // No runs at all: the prediction itself.
  const RangeTable empty = prediction_ranges({}, 0.8);
  EXPECT_EQ(range_for(empty, {"dense", "ampere", "one node"}).runs, 0u);
  EXPECT_DOUBLE_EQ(range_for(empty, {"dense", "ampere", "one node"}).low, 1.0);
}

TEST(PredictionRange, LeaveOneSourceOutChecksEachSourceAgainstTheOthers) {
  // Two sources measured alike, ratios 1..20: each source's range from the other is the
  // quantiles 0.1 and 0.9 at positions 1.9 and 17.1, [2.9, 18.1]: 16 of its 20 runs inside.
  std::vector<PointResult> alike;
  for (const std::string source : {"a", "b"})
    for (int i = 1; i <= 20; ++i)
      alike.push_back(time_point(fmt::format("{}{}", source, i), source, i));
  const Coverage c = leave_one_source_out(alike, 0.8);
  EXPECT_EQ(c.runs, 40u);
  EXPECT_EQ(c.inside, 32u);
  // Two sources that disagree: neither's runs lie in the other's range.
  std::vector<PointResult> apart;
  for (int i = 1; i <= 20; ++i) {
    apart.push_back(time_point(fmt::format("a{}", i), "a", 1.0 + 0.05 * i));
    apart.push_back(time_point(fmt::format("b{}", i), "b", 5.0));
  }
  EXPECT_EQ(leave_one_source_out(apart, 0.8).inside, 0u);
}

TEST(PredictionRange, TheTableReadsBackFromItsYaml) {
  std::vector<PointResult> points;
  for (int i = 0; i < 12; ++i)
    points.push_back(time_point(fmt::format("d{}", i), "s", 1.0 + 0.013 * i));
  const RangeTable table = prediction_ranges(points, 0.8);
  const testing::ScratchDir dir;
  const RangeTable read =
      scenario::read_range_table(dir.write("ranges.yaml", scenario::range_table_yaml(table)));
  EXPECT_EQ(read.coverage, table.coverage);
  ASSERT_EQ(read.ranges.size(), table.ranges.size());
  for (size_t i = 0; i < read.ranges.size(); ++i) {
    EXPECT_EQ(read.ranges[i].basis, table.ranges[i].basis);
    EXPECT_EQ(read.ranges[i].runs, table.ranges[i].runs);
    EXPECT_EQ(read.ranges[i].low, table.ranges[i].low);  // shortest round-trip text: exact
    EXPECT_EQ(read.ranges[i].high, table.ranges[i].high);
  }
}

TEST(PredictionRange, BadTablesAreRefusedNamingFileAndField) {
  const testing::ScratchDir dir;
  const auto refused = [&](const std::string& text, const std::string& field) {
    const std::string path = dir.write("ranges.yaml", text);
    try {
      scenario::read_range_table(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const core::ConfigError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find(field), std::string::npos) << what;
    }
  };
  const std::string all = "  - {basis: all runs, runs: 3, low: 0.9, high: 1.2}\n";
  refused("coverage: 1\nranges:\n" + all, "coverage");
  refused("coverage: 0.8\nranges:\n  - {basis: dense, runs: 3, low: 1.2, high: 0.9}\n" + all,
          "ranges[0].high");
  refused("coverage: 0.8\nranges:\n  - {basis: dense, runs: 3, low: 0.9, high: 1.2}\n", "all runs");
  refused("coverage: 0.8\nranges:\n  - {basis: all runs, runs: 3, low: 0.9, high: 1.2, x: 1}\n",
          "x");
  refused("coverage: 0.8\n", "ranges");
}

// A prediction of t seconds for a run of a class ranges over its class's ratios times t.
TEST(PredictionRange, APredictionsRangeIsItsClasssRatiosTimesItsTime) {
  RangeTable table;
  table.coverage = 0.8;
  table.ranges = {{1.1, 1.6, 40, "moe/hopper/multi-node"}, {0.9, 1.2, 400, "all runs"}};
  const scenario::TimeRange moe =
      scenario::time_range(10.0, {"moe", "hopper", "multi-node"}, table);
  EXPECT_DOUBLE_EQ(moe.low, 11.0);
  EXPECT_DOUBLE_EQ(moe.high, 16.0);
  EXPECT_EQ(moe.basis, "moe/hopper/multi-node");
  EXPECT_EQ(moe.coverage, 0.8);
  const scenario::TimeRange dense =
      scenario::time_range(2.0, {"dense", "ampere", "one node"}, table);
  EXPECT_DOUBLE_EQ(dense.low, 1.8);
  EXPECT_EQ(dense.basis, "all runs");
}

}  // namespace
}  // namespace pipesim::validation
