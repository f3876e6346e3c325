// The bytes of the MPI messages (sweep/mpi/wire.hpp): a row arrives as it left, every field and
// every double to the bit, so the rows rank 0 writes are the rows one process computes.

#include "pipesim/sweep/mpi/wire.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "pipesim/report/rows_csv.hpp"

namespace pipesim::sweep::mpi {
namespace {

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

scenario::SweepRow full_row() {
  scenario::SweepRow row;
  row.inputs = scenario::input_columns();  // any texts, one per option
  row.inputs[0] = "a, \"quoted\"\nline";
  row.status = {scenario::Status::Kind::Oom, ""};
  scenario::RowMetrics& m = row.metrics;
  m.workers = 64;
  m.iteration_time = 0.1 + 0.2;  // not 0.3: the last bit must survive
  m.time_unit.emplace(1, 's');   // = "s" trips a false GCC 12 -Wrestrict
  m.throughput = std::numeric_limits<double>::denorm_min();
  m.tokens_per_second = 1e300;
  m.mfu = -0.0;
  m.bubble_ratio = 1.0 / 3.0;
  m.exposed_comm_ratio = 0;
  m.peak_memory_max = 80e9 + 0.5;
  m.peak_memory_min = 1;
  m.memory_headroom = -0.25;
  m.peak_activations_max = 17;
  m.peak_activations_min = -3;
  m.fits_memory = false;
  return row;
}

TEST(Wire, ARowArrivesAsItLeft) {
  const scenario::SweepRow row = full_row();
  WireWriter out;
  out.u64(42);
  out.row(row);
  out.row(scenario::SweepRow{});  // every field empty
  WireReader in(out.bytes());
  EXPECT_EQ(in.u64(), 42u);
  const scenario::SweepRow back = in.row();
  const scenario::SweepRow empty = in.row();
  EXPECT_TRUE(in.at_end());
  EXPECT_EQ(report::row_fields(back), report::row_fields(row));
  EXPECT_EQ(report::row_fields(empty), report::row_fields(scenario::SweepRow{}));
  EXPECT_EQ(back.status.kind, row.status.kind);
  for (const scenario::Metric& metric : scenario::metrics()) {
    const auto a = metric.value(row.metrics);
    const auto b = metric.value(back.metrics);
    ASSERT_EQ(a.has_value(), b.has_value()) << metric.name;
    if (a) {
      EXPECT_TRUE(same_bits(*a, *b)) << metric.name;
    }
  }
  EXPECT_EQ(back.metrics.fits_memory, std::optional<bool>(false));
  EXPECT_TRUE(std::signbit(*back.metrics.mfu));
}

TEST(Wire, StatusReasonsTravel) {
  scenario::SweepRow row;
  row.inputs = {"gpipe"};
  row.status = {scenario::Status::Kind::Invalid, "command line: --stages: too many"};
  WireWriter out;
  out.row(row);
  const scenario::SweepRow back = WireReader(out.bytes()).row();
  EXPECT_EQ(back.status.text(), "invalid: command line: --stages: too many");
  EXPECT_EQ(back.inputs, row.inputs);
}

TEST(Wire, ATruncatedMessageIsAnError) {
  WireWriter out;
  out.row(full_row());
  std::string cut = out.bytes();
  cut.pop_back();
  WireReader in(cut);
  EXPECT_THROW(in.row(), std::logic_error);
  WireReader tiny("ab");
  EXPECT_THROW(tiny.i32(), std::logic_error);
}

}  // namespace
}  // namespace pipesim::sweep::mpi
