// `pipesim search` end to end on a shipped model and profile: the winner of each schedule is
// the best fitting row of the equivalent sweep, the CSVs are deterministic across thread
// counts, and pruned configurations are rows with their reason.

#include <gtest/gtest.h>

#include <map>

#include "../support/cli_invoke.hpp"
#include "pipesim/report/csv.hpp"

namespace pipesim::cli {
namespace {

using report::CsvTable;
using report::parse_csv;

using testing::invoke_cli;
using testing::ScratchDir;

// Placement and partition fixed: search does not refine them, so its space is the sweep's.
const std::vector<std::string> kSearch{
    "search",    "--model",      "gpt2-32l",   "--hardware",  "p100-daint", "--gpus",
    "4",         "--mini-batch", "8",          "--schedules", "gpipe,1f1b", "--recompute",
    "none,full", "--placement",  "data-major", "--partition", "uniform"};

CsvTable run_search(const ScratchDir& dir, const std::string& name,
                    std::vector<std::string> extra) {
  auto args = kSearch;
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"-o", dir.file(name)});
  const auto r = invoke_cli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return parse_csv(name, ScratchDir::read(dir.file(name)));
}

std::string cell(const CsvTable& t, const std::vector<std::string>& row, const std::string& c) {
  return row[t.column("t", c)];
}

TEST(SearchCommand, WinnerIsTheBestFittingRowOfTheEquivalentSweep) {
  const ScratchDir dir;
  const CsvTable best = run_search(dir, "best.csv", {});
  ASSERT_EQ(best.rows.size(), 2u);
  // The same space as a sweep: every D, W, B, N and recomputation mode, keeping D·W = P and
  // B·N·W = B̂.
  const auto r = invoke_cli({"sweep", "--model", "gpt2-32l", "--hardware", "p100-daint",
                             "--schedule", "gpipe,1f1b", "--stages", "1,2,4", "--data-parallel",
                             "1,2,4", "--micro-batch-size", "1:8:x2", "--micro-batches", "1:8:x2",
                             "--recompute", "none,full", "-o", dir.file("sweep.csv")});
  ASSERT_EQ(r.code, 0) << r.err;
  const CsvTable sweep = parse_csv("sweep.csv", ScratchDir::read(dir.file("sweep.csv")));
  std::map<std::string, std::pair<double, const std::vector<std::string>*>> best_of;
  for (const auto& row : sweep.rows) {
    const int d = std::stoi(cell(sweep, row, "stages"));
    const int w = std::stoi(cell(sweep, row, "data_parallel"));
    const int b = std::stoi(cell(sweep, row, "micro_batch_size"));
    const int n = std::stoi(cell(sweep, row, "micro_batches"));
    if (d * w != 4 || b * n * w != 8 || cell(sweep, row, "status") != "ok") continue;
    const double throughput = std::stod(cell(sweep, row, "throughput"));
    auto& entry = best_of[cell(sweep, row, "schedule")];
    if (entry.second == nullptr || throughput > entry.first) entry = {throughput, &row};
  }
  ASSERT_EQ(best_of.size(), 2u);
  for (const auto& row : best.rows) {
    const auto& [throughput, expected] = best_of.at(cell(best, row, "schedule"));
    for (const char* c : {"stages", "data_parallel", "micro_batch_size", "micro_batches",
                          "recompute", "iteration_time", "throughput", "peak_memory_max"}) {
      EXPECT_EQ(cell(best, row, c), cell(sweep, *expected, c)) << c;
    }
  }
  EXPECT_GE(std::stod(cell(best, best.rows[0], "throughput")),
            std::stod(cell(best, best.rows[1], "throughput")))
      << "ranked best first";
  EXPECT_EQ(cell(best, best.rows[0], "rank"), "1");
}

TEST(SearchCommand, AllRowsAreByteIdenticalAcrossThreadCounts) {
  const ScratchDir dir;
  run_search(dir, "one.csv", {"--all", "--jobs", "1"});
  const CsvTable two = run_search(dir, "two.csv", {"--all", "--jobs", "2"});
  EXPECT_EQ(ScratchDir::read(dir.file("one.csv")), ScratchDir::read(dir.file("two.csv")));
  // D = 1, 2, 4 → W = 4, 2, 1 → B̂/W = 2, 4, 8 → 2 + 3 + 4 batch sizes; × 2 modes × 2 schedules.
  EXPECT_EQ(two.rows.size(), (2u + 3u + 4u) * 2u * 2u);
}

TEST(SearchCommand, PrunedConfigurationsAreRowsWithTheReason) {
  const ScratchDir dir;
  // 64 GPUs, B̂ = 16: W = 64 (D = 1) and W = 32 (D = 2) do not divide 16; D = 64 exceeds
  // gpt2-32l's 32 layers. One row for each, per schedule.
  const auto r = invoke_cli({"search", "--model", "gpt2-32l", "--hardware", "p100-daint", "--gpus",
                             "64", "--mini-batch", "16", "--schedules", "gpipe,1f1b", "--recompute",
                             "none", "--all", "-o", dir.file("all.csv")});
  ASSERT_EQ(r.code, 0) << r.err;
  const CsvTable all = parse_csv("all.csv", ScratchDir::read(dir.file("all.csv")));
  std::map<std::string, int> pruned;
  for (const auto& row : all.rows) {
    const std::string status = cell(all, row, "status");
    if (status.rfind("pruned: ", 0) == 0) ++pruned[cell(all, row, "stages") + " " + status];
  }
  EXPECT_EQ(pruned.size(), 3u);
  EXPECT_EQ(pruned["1 pruned: W = 64 does not divide the mini-batch 16"], 2);
  EXPECT_EQ(pruned["2 pruned: W = 32 does not divide the mini-batch 16"], 2);
  EXPECT_EQ(pruned["64 pruned: D = 64 > 32 layers"], 2);
}

TEST(SearchCommand, WeightsAboveTheGpuArePrunedAsOom) {
  const ScratchDir dir;
  // a100-dgx: a P100 has no bf16 peak, which the cost model refuses before any memory check.
  const auto r = invoke_cli({"search", "--model", "gpt3-175b", "--hardware", "a100-dgx", "--gpus",
                             "8", "--mini-batch", "8", "--schedules", "1f1b", "--recompute", "none",
                             "--all", "-o", dir.file("all.csv")});
  ASSERT_EQ(r.code, 0) << r.err;
  const CsvTable all = parse_csv("all.csv", ScratchDir::read(dir.file("all.csv")));
  for (const auto& row : all.rows) {
    EXPECT_EQ(cell(all, row, "status")
                  .rfind("pruned: weights, gradients, optimizer state and one micro-batch's "
                         "activations need at least ",
                         0),
              0u)
        << cell(all, row, "status");
    EXPECT_EQ(cell(all, row, "fits_memory"), "false");
  }
  EXPECT_NE(r.out.find("no fitting configuration: 1f1b ("), std::string::npos) << r.out;
}

TEST(SearchCommand, BadRequestsAreOneLine) {
  for (const auto& [args, expect] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"search", "--model", "gpt2-32l", "--hardware", "p100-daint", "--gpus", "0",
             "--mini-batch", "8"},
            "--gpus"},
           {{"search", "--model", "gpt2-32l", "--hardware", "p100-daint", "--gpus", "4",
             "--mini-batch", "8", "--schedule", "gpipe,zigzag"},
            "command line: --schedule: unknown schedule 'zigzag'"},
           {{"search", "--model", "nope", "--hardware", "p100-daint", "--gpus", "4", "--mini-batch",
             "8"},
            "nope"}}) {
    const auto r = invoke_cli(args);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(testing::count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(expect), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace pipesim::cli
