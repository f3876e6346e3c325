// Ranking rows: order, ties, groups, what limits a winner — on unit-cost rows from a real
// sweep, and the compare command that prints them.

#include "pipesim/explore/ranking.hpp"

#include <gtest/gtest.h>

#include "../support/cli_invoke.hpp"
#include "../support/xml_check.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/explore/sweep_grid.hpp"
#include "pipesim/explore/sweep_runner.hpp"

namespace pipesim::explore {
namespace {

using scenario::limiting_factor;
using scenario::RowMetrics;
using scenario::Status;

std::vector<SweepRow> unit_rows() {
  // gpipe and 1f1b, D = 2, 4, 8 and N = 2, 8, and an unknown schedule's invalid rows: 12 ok.
  const SweepGrid grid = make_grid(
      {{"schedule", "gpipe,1f1b,zigzag"}, {"stages", "2:8:x2"}, {"micro_batches", "2,8"}}, "");
  std::vector<SweepRow> rows;
  SpecCache specs;
  for (size_t i = 0; i < grid.size(); ++i)
    rows.push_back(evaluate(grid.point(i), specs));
  return rows;
}

TEST(Ranking, UnitCostRowsRankByIterationTimeAscending) {
  const auto rows = unit_rows();
  const RankMetric metric = default_rank_metric(rows);
  EXPECT_EQ(metric.name, "iteration_time");
  EXPECT_FALSE(metric.higher_is_better);
  const auto order = rank_rows(rows, metric);
  ASSERT_EQ(order.size(), 12u) << "invalid rows are not ranked";
  for (size_t k = 1; k < order.size(); ++k) {
    const double a = *rows[order[k - 1]].metrics.iteration_time;
    const double b = *rows[order[k]].metrics.iteration_time;
    EXPECT_LE(a, b);
    if (a == b) {
      EXPECT_LT(order[k - 1], order[k]) << "ties keep row order";
    }
  }
  // Best: D = 2, N = 2 → (N + D − 1) · 3 = 9, gpipe's row comes first.
  EXPECT_EQ(*rows[order[0]].metrics.iteration_time, 9.0);
  EXPECT_EQ(rows[order[0]].inputs[0], "gpipe");
  EXPECT_EQ(rows[order[1]].inputs[0], "1f1b");
}

TEST(Ranking, HigherIsBetterMetricsRankDescending) {
  std::vector<SweepRow> rows(4);
  rows[0].inputs = {"a"};
  rows[0].metrics.throughput = 10;
  rows[1].inputs = {"b"};
  rows[1].metrics.throughput = 30;
  rows[2].inputs = {"a"};
  rows[2].metrics.throughput = 50;
  rows[2].status.kind = Status::Kind::Oom;
  rows[3].inputs = {"a"};
  rows[3].metrics.throughput = 20;
  const RankMetric metric = default_rank_metric(rows);
  EXPECT_EQ(metric.name, "throughput");
  EXPECT_EQ(rank_rows(rows, metric), (std::vector<size_t>{1, 3, 0})) << "oom never ranks";
  EXPECT_EQ(best_per_group(rows, 0, metric), (std::vector<size_t>{1, 3}));
}

TEST(Ranking, BestPerGroupIsEachSchedulesBestRow) {
  const auto rows = unit_rows();
  const auto best = best_per_group(rows, 0, default_rank_metric(rows));
  ASSERT_EQ(best.size(), 2u);
  for (size_t i : best) {
    for (const SweepRow& row : rows) {
      if (row.ok() && row.inputs[0] == rows[i].inputs[0]) {
        EXPECT_LE(*rows[i].metrics.iteration_time, *row.metrics.iteration_time);
      }
    }
  }
}

// The bubble ratio counts waits on communication as idle too: the bubbles named are what is
// left of it once the exposed communication is taken out.
TEST(Ranking, LimitingFactorNamesTheLargestLoss) {
  RowMetrics m;
  // Real cost: bubble_ratio is the idle share, exposed communication apart.
  m.bubble_ratio = 0.231;
  m.exposed_comm_ratio = 0.1;
  EXPECT_EQ(limiting_factor(m), "bubbles 23.1%");
  m.bubble_ratio = 0.2;
  m.exposed_comm_ratio = 0.3;
  m.memory_headroom = 0.042;
  EXPECT_EQ(limiting_factor(m), "exposed communication 30.0%; memory headroom 4.2%");
  m.bubble_ratio = 0.36;  // DualPipeV on DeepSeek-V3: 36% idle, 39% waiting on all-to-alls
  m.exposed_comm_ratio = 0.39;
  m.memory_headroom = 0.5;
  EXPECT_EQ(limiting_factor(m), "exposed communication 39.0%");
  m.bubble_ratio = 0.01;
  m.exposed_comm_ratio = 0.02;
  m.mfu = 0.55;
  m.memory_headroom = 0.5;
  EXPECT_EQ(limiting_factor(m), "compute (mfu 55.0%)");
}

TEST(Ranking, UnknownRankMetricIsAConfigError) {
  EXPECT_THROW(rank_metric("status"), core::ConfigError);
  EXPECT_TRUE(rank_metric("mfu").higher_is_better);
}

TEST(CompareCommand, PrintsARankedTableAndThePlot) {
  const testing::ScratchDir dir;
  const auto r = testing::invoke_cli({"compare", "--schedule", "gpipe,1f1b,zigzag", "--stages", "4",
                                      "--micro-batches", "4:16:x2", "--plot", dir.file("cmp.svg"),
                                      "--csv", dir.file("cmp.csv")});
  ASSERT_EQ(r.code, 0) << r.err;
  // Different N are different work per iteration: ranked only against their own N.
  EXPECT_EQ(r.out.rfind("9 configurations, 6 ranked by iteration_time (lower is better),\n"
                        "only against configurations of the same mini-batch",
                        0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("rank  schedule  micro_batches  iteration_time"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("4 micro-batches:\nrank"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("   1  gpipe                 4              21"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("   2  1f1b                 16              57"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("   3  "), std::string::npos) << r.out;  // two per mini-batch
  EXPECT_NE(r.out.find("not ranked: schedule=zigzag micro_batches=4: invalid: "), std::string::npos)
      << r.out;
  EXPECT_EQ(testing::xml_problem(testing::ScratchDir::read(dir.file("cmp.svg"))), "");
  EXPECT_EQ(testing::count_lines(testing::ScratchDir::read(dir.file("cmp.csv"))), 10u);
  // Best iteration time per N; gpipe and 1f1b take the same time, so one line names both.
  EXPECT_EQ(testing::ScratchDir::read(dir.file("cmp.dat")),
            "# schedule = gpipe = 1f1b: micro_batches, iteration time (slots)\n4 21 \"4\"\n"
            "8 33 \"8\"\n16 57 \"16\"\n\n\n# not drawn (invalid): micro_batches, position at the "
            "bottom\n4 0.08 \"4\"\n8 0.08 \"8\"\n16 0.08 \"16\"\n\n\n");
}

}  // namespace
}  // namespace pipesim::explore
