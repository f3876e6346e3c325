// search's table needs only the status of a run that does not fit, so it skips that run's
// replay, or screens it out before costing it when a lower bound on its peak is already above
// the GPU's memory (RowDetail::FittingOnly); --all keeps every metric (RowDetail::Full). Both
// must agree on every row's status and on every row that fits (inputs and metrics), so the
// table and its winners are the same.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pipesim/search/search.hpp"
#include "pipesim/sweep/ranking.hpp"

namespace pipesim::search {
namespace {

// A row the table prunes by its bound (branch and bound) where --all simulates it.
bool cut_by_bound(const scenario::SweepRow& full, const scenario::SweepRow& quick) {
  if (quick.status.kind != scenario::Status::Kind::Pruned ||
      full.status.kind == scenario::Status::Kind::Pruned) {
    return false;
  }
  EXPECT_NE(quick.status.reason.find("cannot beat"), std::string::npos) << quick.status.reason;
  return true;
}

// The table's rows keep their inputs when they fit (its winners are among them); any other row
// only says what it came to.
void expect_inputs_if_it_fits(const scenario::SweepRow& quick, const scenario::SweepRow& full,
                              size_t i) {
  if (quick.ok()) {
    EXPECT_EQ(quick.inputs, full.inputs) << "row " << i;
  } else {
    EXPECT_TRUE(quick.inputs.empty()) << "row " << i;
  }
}

// The same winner per schedule, and every run branch and bound cut is no faster than its
// schedule's winner; returns how many it cut.
int expect_same_winners(const std::vector<scenario::SweepRow>& full,
                        const std::vector<scenario::SweepRow>& quick) {
  const sweep::RankMetric metric = sweep::default_rank_metric(full);
  const std::vector<std::string> columns = scenario::input_columns();
  const auto schedule =
      static_cast<size_t>(std::find(columns.begin(), columns.end(), "schedule") - columns.begin());
  EXPECT_LT(schedule, columns.size());
  if (schedule >= columns.size()) return 0;
  const std::vector<size_t> winners = sweep::best_per_group(full, schedule, metric);
  EXPECT_EQ(sweep::best_per_group(quick, schedule, metric), winners);
  int cut = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    if (!cut_by_bound(full[i], quick[i])) continue;
    ++cut;
    if (!full[i].ok()) continue;
    for (const size_t w : winners) {
      if (full[w].inputs[schedule] == full[i].inputs[schedule]) {
        EXPECT_GE(*full[i].metrics.iteration_time, *full[w].metrics.iteration_time) << "row " << i;
      }
    }
  }
  return cut;
}

TEST(SearchRows, TheTablesRowsAgreeWithEveryMetricRowsOnStatusAndOnWhatFits) {
  SearchRequest request;
  request.model = "gpt2-1.3b";
  request.hardware = "p100-daint";
  request.gpus = 64;
  request.mini_batch = 64;
  request.schedules = {"1f1b", "gpipe", "chimera", "zb-h1", "pipedream-2bw"};
  request.recompute = {"none", "full"};
  scenario::SpecCache specs;
  SearchRequest again = request;
  const auto full = run_search(request, specs, 2, {}, {}, nullptr, RowDetail::Full);
  report::SearchTally tally;
  const auto quick = run_search(again, specs, 2, {}, {}, nullptr, RowDetail::FittingOnly, &tally);
  ASSERT_EQ(full.size(), quick.size());
  // The tally counts every row once, under its schedule and the status the table's row has.
  const std::vector<std::string> columns = scenario::input_columns();
  const auto schedule =
      static_cast<size_t>(std::find(columns.begin(), columns.end(), "schedule") - columns.begin());
  ASSERT_LT(schedule, columns.size());
  EXPECT_EQ(tally.total(), full.size());
  for (const auto& entry : tally.statuses) {
    const std::string& name = entry.first;
    size_t rows = 0;
    for (const auto& [kind, n] : entry.second)
      rows += n;
    EXPECT_EQ(rows, static_cast<size_t>(
                        std::count_if(full.begin(), full.end(),
                                      [&](const auto& r) { return r.inputs[schedule] == name; })))
        << name;
  }
  for (const auto kind : {scenario::Status::Kind::Ok, scenario::Status::Kind::Oom,
                          scenario::Status::Kind::Invalid, scenario::Status::Kind::Pruned}) {
    EXPECT_EQ(tally.count(kind),
              static_cast<size_t>(std::count_if(quick.begin(), quick.end(), [&](const auto& r) {
                return r.status.kind == kind;
              })));
  }
  int oom = 0;
  int ok = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    expect_inputs_if_it_fits(quick[i], full[i], i);
    if (cut_by_bound(full[i], quick[i])) continue;
    EXPECT_EQ(quick[i].status.kind, full[i].status.kind) << "row " << i;
    if (quick[i].metrics.peak_memory_max || full[i].ok()) {
      EXPECT_EQ(quick[i].metrics.peak_memory_max, full[i].metrics.peak_memory_max) << "row " << i;
    }
    if (full[i].ok()) {
      ++ok;
      EXPECT_EQ(quick[i].metrics.throughput, full[i].metrics.throughput) << "row " << i;
      EXPECT_EQ(quick[i].metrics.iteration_time, full[i].metrics.iteration_time) << "row " << i;
      // Every configuration trains the mini-batch asked for (Chimera's backward halving too:
      // its ops run at B/2, so search gives it twice the B).
      EXPECT_NEAR(*full[i].metrics.throughput * *full[i].metrics.iteration_time, 64.0, 1e-6)
          << "row " << i;
    }
    if (full[i].status.kind == scenario::Status::Kind::Oom) {
      ++oom;
      EXPECT_TRUE(full[i].metrics.throughput.has_value());  // --all keeps it
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(oom, 0);                               // the skip was exercised
  EXPECT_GT(expect_same_winners(full, quick), 0);  // branch and bound was exercised
}

// A mixture-of-experts search over every registered schedule, where most runs that do not fit
// are screened out before costing: the same statuses, inputs, fitting rows and winners as the
// exhaustive rows, and a screened row (no peak) is one whose simulated peak is above capacity.
TEST(SearchRows, ScreenedRowsAreExactlyOutOfMemoryRowsOfTheExhaustiveSearch) {
  SearchArgs args;
  args.model = "mixtral-8x7b";
  args.hardware = "h100-dgx";
  args.gpus = "16";
  args.mini_batch = "32";
  args.recompute = "none,full";
  args.tensor_parallel = "1,2";
  args.expert_parallel = "1,8";
  SearchRequest request = make_search_request(args);
  SearchRequest again = request;
  scenario::SpecCache specs;
  const auto full = run_search(request, specs, 2, {}, {}, nullptr, RowDetail::Full);
  const auto quick = run_search(again, specs, 2, {}, {}, nullptr, RowDetail::FittingOnly);
  ASSERT_EQ(full.size(), quick.size());
  const double capacity = specs.hardware("h100-dgx")->gpu.memory_bytes;
  int screened = 0;
  int ok = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    expect_inputs_if_it_fits(quick[i], full[i], i);
    if (cut_by_bound(full[i], quick[i])) continue;
    EXPECT_EQ(quick[i].status.kind, full[i].status.kind) << "row " << i;
    EXPECT_EQ(quick[i].status.reason, full[i].status.reason) << "row " << i;
    if (full[i].ok()) {
      ++ok;
      EXPECT_EQ(quick[i].metrics.throughput, full[i].metrics.throughput) << "row " << i;
      EXPECT_EQ(quick[i].metrics.peak_memory_max, full[i].metrics.peak_memory_max) << "row " << i;
    }
    if (quick[i].status.kind == scenario::Status::Kind::Oom && !quick[i].metrics.peak_memory_max) {
      ++screened;
      ASSERT_TRUE(full[i].metrics.peak_memory_max.has_value()) << "row " << i;
      EXPECT_GT(*full[i].metrics.peak_memory_max, capacity) << "row " << i;
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(screened, 0);
  expect_same_winners(full, quick);
}

}  // namespace
}  // namespace pipesim::search
