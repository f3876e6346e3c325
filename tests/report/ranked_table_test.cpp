// Ties in ranked tables: a row whose expected range of the ranked speed metric overlaps the
// best row's is marked `tie`, ranges carried from the iteration time to rates inversely and
// to GPU-normalised figures; other metrics and rows without a range get no mark.

#include "pipesim/report/ranked_table.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pipesim/report/search_report.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::report {
namespace {

const auto column = &input_column;

// A run of `seconds` per iteration on `gpus` GPUs (D = gpus, T = C = W = 1) whose iteration
// time is expected between low·t and high·t.
SweepRow row(double seconds, double low, double high, int gpus = 8) {
  SweepRow r;
  for (const auto& o : scenario::options())
    r.inputs.push_back(o.spec.default_text);
  r.inputs[column("stages")] = std::to_string(gpus);
  const std::string one(1, '1');
  for (const char* name : {"tensor_parallel", "context_parallel", "data_parallel"})
    r.inputs[column(name)] = one;
  r.metrics.iteration_time = seconds;
  r.metrics.throughput = 1000.0 / seconds;
  r.metrics.peak_memory_max = 1e9;
  r.metrics.iteration_time_low = low * seconds;
  r.metrics.iteration_time_high = high * seconds;
  r.metrics.iteration_time_basis = "80% of dense/hopper/multi-node";
  return r;
}

TEST(RankedTable, RowsWhoseRangesOverlapTheBestsAreTies) {
  // Ranges ×[0.9, 1.2]: 10 s spans [9, 12] s; 11 s spans [9.9, 13.2] s, a tie; 14 s spans
  // [12.6, 16.8] s, apart.
  const std::vector<SweepRow> rows{row(10, 0.9, 1.2), row(11, 0.9, 1.2), row(14, 0.9, 1.2)};
  for (const std::string metric : {"iteration_time", "throughput"}) {
    EXPECT_TRUE(tied(rows[1], rows[0], metric, false)) << metric;
    EXPECT_FALSE(tied(rows[2], rows[0], metric, false)) << metric;
  }
  // Ranges that only touch are a tie (×[1, 1.25], exact in binary: [8, 10] and [10, 12.5] s).
  EXPECT_TRUE(tied(row(10, 1, 1.25), row(8, 1, 1.25), "iteration_time", false));
  EXPECT_FALSE(tied(row(10.5, 1, 1.25), row(8, 1, 1.25), "iteration_time", false));
  // Bytes are not a speed: no ties on them.
  EXPECT_FALSE(tied(rows[1], rows[0], "peak_memory_max", false));
  // A row without a range is never a tie.
  SweepRow bare = rows[1];
  bare.metrics.iteration_time_low.reset();
  EXPECT_FALSE(tied(bare, rows[0], "throughput", false));

  RankedColumns columns;
  columns.inputs = {column("schedule")};
  columns.metrics = {"throughput"};
  columns.ties_on = "throughput";
  const std::string text = render_ranked(rows, {0, 1, 2}, columns);
  EXPECT_NE(text.find("vs best"), std::string::npos) << text;
  EXPECT_NE(text.find("best"), std::string::npos) << text;
  EXPECT_EQ(text.find("tie", text.find("tie") + 1), std::string::npos) << "one tie: " << text;
  const std::string note = ties_note(rows, {0, 1, 2}, columns);
  EXPECT_NE(note.find("1 of the other 2"), std::string::npos) << note;
  EXPECT_NE(note.find("dense/hopper/multi-node"), std::string::npos) << note;
  // Without a metric to tie on the table has no such column.
  columns.ties_on.clear();
  EXPECT_EQ(render_ranked(rows, {0, 1, 2}, columns).find("vs best"), std::string::npos);
  EXPECT_EQ(ties_note(rows, {0, 1, 2}, columns), "");
}

TEST(RankedTable, TiesPerGpuCompareTheNormalisedRanges) {
  // 10 s on 8 GPUs against 6 s on 16: per GPU 12.5 and 10.4 samples/s. Within ×[0.95, 1.05]
  // the ranges [11.9, 13.2] and [9.92, 11.0] are apart; within ×[0.8, 1.25] they meet.
  const std::vector<SweepRow> narrow{row(10, 0.95, 1.05, 8), row(6, 0.95, 1.05, 16)};
  EXPECT_FALSE(tied(narrow[1], narrow[0], "throughput", true));
  const std::vector<SweepRow> wide{row(10, 0.8, 1.25, 8), row(6, 0.8, 1.25, 16)};
  EXPECT_TRUE(tied(wide[1], wide[0], "throughput", true));
  // Not per GPU the 16-GPU run is faster: 166.7 against 100 samples/s, apart even when wide.
  EXPECT_FALSE(tied(wide[1], wide[0], "throughput", false));
}

}  // namespace
}  // namespace pipesim::report
