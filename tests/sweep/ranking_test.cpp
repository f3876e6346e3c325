// Ranking rows: order, ties, groups, what limits a winner — on unit-cost rows from a real
// sweep, and the compare command that prints them.

#include "pipesim/sweep/ranking.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "../support/cli_invoke.hpp"
#include "../support/xml_check.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/sweep/sweep_grid.hpp"
#include "pipesim/sweep/sweep_runner.hpp"

namespace pipesim::sweep {
namespace {

using scenario::limiting_factor;
using scenario::RowMetrics;
using scenario::Status;

std::vector<SweepRow> unit_rows() {
  // gpipe and 1f1b, D = 2, 4, 8 and N = 2, 8, and an unknown schedule's invalid rows: 12 ok.
  const SweepGrid grid = make_grid(
      {{"schedule", "gpipe,1f1b,zigzag"}, {"stages", "2:8:x2"}, {"micro_batches", "2,8"}}, "");
  std::vector<SweepRow> rows;
  scenario::SpecCache specs;
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

// A real-cost row on T·C·D·W GPUs at a given throughput.
SweepRow real_row(int tensor, int stages, int width, double throughput) {
  SweepRow row;
  const auto columns = scenario::input_columns();
  for (const scenario::Option& o : scenario::options())
    row.inputs.push_back(o.spec.default_text);
  const auto set = [&](const std::string& name, int v) {
    const auto at = std::find(columns.begin(), columns.end(), name) - columns.begin();
    row.inputs[static_cast<size_t>(at)] = std::to_string(v);
  };
  set("tensor_parallel", tensor);
  set("stages", stages);
  set("data_parallel", width);
  row.metrics.throughput = throughput;
  row.metrics.iteration_time = 1.0 / throughput;
  return row;
}

// More GPUs buy throughput by themselves: runs on different GPU counts are ranked per GPU, and
// runs on one count as before.
TEST(Ranking, DifferentGpuCountsRankPerGpu) {
  // 2 GPUs at 10 samples/s (5 per GPU) against 8 GPUs at 30 (3.75 per GPU).
  const std::vector<SweepRow> rows{real_row(1, 8, 1, 30.0), real_row(1, 2, 1, 10.0)};
  EXPECT_EQ(scenario::row_gpus(rows[0]), 8);
  EXPECT_EQ(scenario::row_gpus(rows[1]), 2);
  const RankMetric plain = default_rank_metric(rows);
  EXPECT_EQ(rank_rows(rows, plain), (std::vector<size_t>{0, 1})) << "absolute: 8 GPUs first";
  const RankMetric fair = fair_metric(rows, {0, 1}, plain);
  EXPECT_TRUE(fair.per_gpu);
  EXPECT_EQ(fair.label(), "throughput per GPU");
  EXPECT_EQ(rank_rows(rows, fair), (std::vector<size_t>{1, 0}));
  EXPECT_DOUBLE_EQ(*rank_value(rows[1], fair), 5.0);
  const auto groups = ranked_groups(rows, plain);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].order, (std::vector<size_t>{1, 0}));
  EXPECT_EQ(groups[0].gpu_counts, (std::vector<int>{2, 8}));
  // Time: GPU-seconds per iteration, lower is better.
  const RankMetric time = fair_metric(rows, {0, 1}, rank_metric("iteration_time"));
  EXPECT_TRUE(time.per_gpu);
  EXPECT_EQ(rank_rows(rows, time), (std::vector<size_t>{1, 0}));
  // One GPU count (T·D·W = 8 both): absolute throughput, unchanged.
  const std::vector<SweepRow> same{real_row(2, 4, 1, 10.0), real_row(1, 8, 1, 20.0)};
  EXPECT_FALSE(fair_metric(same, {0, 1}, plain).per_gpu);
  EXPECT_EQ(ranked_groups(same, plain)[0].order, (std::vector<size_t>{1, 0}));
  EXPECT_TRUE(ranked_groups(same, plain)[0].gpu_counts.empty());
  // Unit-cost rows have no GPU count and keep their ranking.
  EXPECT_FALSE(fair_metric(unit_rows(), {0, 1, 2, 3}, rank_metric("iteration_time")).per_gpu);
}

// compare on a real sweep over W at one mini-batch: the rows use 8 and 32 GPUs, the table
// says it ranks per GPU and its order is that of throughput / GPUs, computed here from the CSV.
TEST(CompareCommand, RanksRunsOnDifferentGpuCountsPerGpu) {
  const testing::ScratchDir dir;
  const auto r =
      testing::invoke_cli({"compare", "--model", "gpt2-1.3b", "--hardware", "p100-daint",
                           "--schedule", "1f1b", "--stages", "8", "--data-parallel", "1,4",
                           "--micro-batches", "8,32", "--csv", dir.file("cmp.csv")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("on 8 and 32 GPUs, so ranked by throughput per GPU"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("throughput/GPU"), std::string::npos) << r.out;
  // mini-batch 32: W = 1, N = 32 (8 GPUs) and W = 4, N = 8 (32 GPUs).
  const std::string csv = testing::ScratchDir::read(dir.file("cmp.csv"));
  std::istringstream lines(csv);
  std::string header, line;
  std::getline(lines, header);
  const auto column = [&](const std::string& name) {
    std::istringstream h(header);
    std::string cell;
    for (size_t i = 0; std::getline(h, cell, ','); ++i) {
      if (cell == name) return i;
    }
    return std::string::npos;
  };
  const size_t width = column("data_parallel"), n = column("micro_batches"),
               rate = column("throughput");
  double per_gpu_w1 = 0, per_gpu_w4 = 0;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string cell; std::getline(l, cell, ',');)
      cells.push_back(cell);
    if (cells[width] == "1" && cells[n] == "32") per_gpu_w1 = std::stod(cells[rate]) / 8;
    if (cells[width] == "4" && cells[n] == "8") per_gpu_w4 = std::stod(cells[rate]) / 32;
  }
  ASSERT_GT(per_gpu_w1, 0);
  ASSERT_GT(per_gpu_w4, 0);
  // The group of mini-batch 32 lists the better per-GPU run first.
  const size_t group = r.out.find("mini-batch 32 samples");
  ASSERT_NE(group, std::string::npos) << r.out;
  std::istringstream table(r.out.substr(r.out.find('\n', group) + 1));
  std::string heading, first;
  std::getline(table, heading);
  std::getline(table, first);
  const auto words = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string w; in >> w;)
      out.push_back(w);
    return out;
  };
  const auto names = words(heading);
  const auto at = std::find(names.begin(), names.end(), "data_parallel") - names.begin();
  ASSERT_LT(static_cast<size_t>(at), names.size()) << heading;
  const bool w4_first = words(first).at(static_cast<size_t>(at)) == "4";
  EXPECT_EQ(w4_first, per_gpu_w4 > per_gpu_w1) << r.out;
}

}  // namespace
}  // namespace pipesim::sweep
