// Shards, the reorder window and the streamed sweep: shard i/K parsed strictly and sized
// exactly; rows reach the writer in position order whatever order they finish in, with never
// more than the window's capacity held; a streamed sweep writes what the in-memory one does.

#include "pipesim/sweep/sweep_stream.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <random>
#include <stdexcept>
#include <thread>

#include "pipesim/core/config_error.hpp"
#include "pipesim/report/rows_csv.hpp"
#include "pipesim/sweep/thread_pool.hpp"

namespace pipesim::sweep {
namespace {

std::string shard_error(const std::string& text) {
  try {
    parse_shard("command line", "--shard", text);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Shard, ParsesIOfKStrictly) {
  EXPECT_EQ(parse_shard("s", "f", "0/1"), (Shard{0, 1}));
  EXPECT_EQ(parse_shard("s", "f", "6/7"), (Shard{6, 7}));
  EXPECT_EQ(shard_error("3/3"), "command line: --shard: i must be in [0, 2] for K = 3, got '3/3'");
  EXPECT_EQ(shard_error("0/0"), "command line: --shard: K must be in [1, 10000000], got '0/0'");
  EXPECT_EQ(shard_error("0/10000001"),
            "command line: --shard: K must be in [1, 10000000], got '0/10000001'");
  for (const char* bad :
       {"", "1", "1/", "/3", "-1/3", "+1/3", "1/3/4", " 1/3", "1/3 ", "a/b", "0x1/3", "1.0/3"}) {
    EXPECT_EQ(shard_error(bad),
              std::string("command line: --shard: must be i/K, shard i of K with 0 <= i < K "
                          "(e.g. 0/4), got '") +
                  bad + "'")
        << bad;
  }
}

TEST(Shard, InterleavedShardsCoverTheGridOnceWithSizesOneApart) {
  for (size_t points : {0u, 1u, 5u, 10u, 24u, 97u}) {
    for (size_t k : {1u, 2u, 3u, 7u}) {
      std::vector<int> hits(points);
      size_t smallest = points, largest = 0;
      for (size_t i = 0; i < k; ++i) {
        const Shard shard{i, k};
        for (size_t p = 0; p < shard.size(points); ++p) {
          ASSERT_LT(shard.grid_index(p), points);
          EXPECT_EQ(shard.grid_index(p) % k, i);
          ++hits[shard.grid_index(p)];
        }
        smallest = std::min(smallest, shard.size(points));
        largest = std::max(largest, shard.size(points));
      }
      for (size_t j = 0; j < points; ++j)
        EXPECT_EQ(hits[j], 1) << j << " of " << points << ", K = " << k;
      EXPECT_LE(largest - smallest, 1u) << "shards cost the same";
    }
  }
  EXPECT_EQ((Shard{6, 7}.size(5)), 0u) << "more shards than points: some are empty";
}

TEST(ReorderWindow, WritesRunsOfConsecutiveRowsInOrder) {
  std::vector<std::string> writes;
  ReorderWindow window(10, 3, [&](std::string_view t) { writes.emplace_back(t); });
  window.put(12, "c");
  window.put(11, "b");
  EXPECT_TRUE(writes.empty()) << "10 is not done: nothing can be written";
  window.put(10, "a");
  window.put(13, "d");
  EXPECT_EQ(writes, (std::vector<std::string>{"abc", "d"}));
  EXPECT_EQ(window.next(), 14u);
  EXPECT_EQ(window.peak_held(), 3u);
}

TEST(ReorderWindow, APositionBeyondTheWindowWaitsUntilTheHeadIsWritten) {
  ReorderWindow window(0, 2, [](std::string_view) {});
  window.put(1, "b");
  auto waiting = std::async(std::launch::async, [&] { return window.wait_for(2); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout)
      << "0 and 1 fill the window";
  window.put(0, "a");
  EXPECT_TRUE(waiting.get());
}

TEST(ReorderWindow, AbortWakesWaitersWithFalse) {
  ReorderWindow window(0, 1, [](std::string_view) {});
  auto waiting = std::async(std::launch::async, [&] { return window.wait_for(5); });
  window.abort();
  EXPECT_FALSE(waiting.get());
  EXPECT_FALSE(window.wait_for(0));
}

TEST(ReorderWindow, ASinkErrorAbortsAndComesBack) {
  ReorderWindow window(0, 4, [](std::string_view) { throw std::runtime_error("disk full"); });
  EXPECT_THROW(window.put(0, "a"), std::runtime_error);
  EXPECT_FALSE(window.wait_for(1));
}

// Many threads finishing in random order: the text is in order and the window never holds
// more than its capacity, however far a fast thread would run ahead of a slow one.
TEST(ReorderWindow, BoundedAndOrderedUnderThreads) {
  for (size_t capacity : {1u, 3u, 8u}) {
    std::string written;
    ReorderWindow window(0, capacity, [&](std::string_view t) { written += t; });
    std::string expected;
    constexpr size_t n = 600;
    for (size_t p = 0; p < n; ++p)
      expected += std::to_string(p) + ";";
    parallel_for(n, 8, [&](size_t p) {
      ASSERT_TRUE(window.wait_for(p));
      thread_local std::mt19937 rng(std::hash<std::thread::id>{}(std::this_thread::get_id()));
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % 300));
      window.put(p, std::to_string(p) + ";");
    });
    EXPECT_EQ(written, expected);
    EXPECT_LE(window.peak_held(), capacity);
    EXPECT_GE(window.peak_held(), 1u);
  }
}

SweepGrid test_grid() {
  // 2 × 4 × 6 = 48 points, a few of them invalid (chimera needs an even D).
  return make_grid(
      {{"schedule", "1f1b,chimera"}, {"stages", "2,3,4,6"}, {"micro_batches", "4:24:+4"}}, "");
}

TEST(SweepStream, ShardStreamMatchesTheInMemorySweepWithASmallWindow) {
  const SweepGrid grid = test_grid();
  scenario::SpecCache specs;
  const auto rows = evaluate_all(
      grid.size(), [&](size_t i) { return evaluate(grid.point(i), specs, {}, grid.given()); }, 3);
  const std::string in_memory = report::rows_to_csv(rows);
  EXPECT_NE(in_memory.find("invalid: "), std::string::npos);
  for (int jobs : {1, 4}) {
    StreamOptions options;
    options.jobs = jobs;
    options.window = 3;
    std::string streamed;
    sweep_to_stream(grid, {}, SweepOutput::Csv, options,
                    [&](std::string_view t) { streamed += t; });
    EXPECT_EQ(streamed, in_memory) << jobs << " jobs";
    std::string text;
    const size_t peak = stream_shard(
        grid, {}, 0, options,
        [](size_t, const scenario::SweepRow& row) {
          return report::csv_line(report::row_fields(row));
        },
        [&](std::string_view t) { text += t; });
    EXPECT_LE(peak, 3u) << "never all " << grid.size() << " rows";
    EXPECT_EQ(report::csv_line(scenario::csv_columns()) + text, in_memory);
  }
}

TEST(SweepStream, ResumedPositionsAreSkippedAndProgressCountsThem) {
  const SweepGrid grid = test_grid();
  const Shard shard{1, 3};
  StreamOptions options;
  options.jobs = 2;
  size_t last_done = 0, last_total = 0;
  options.on_progress = [&](size_t done, size_t total) {
    EXPECT_GE(done, 10u);
    last_done = done;
    last_total = total;
  };
  std::vector<size_t> indices;
  stream_shard(
      grid, shard, 10, options,
      [](size_t index, const scenario::SweepRow&) { return std::to_string(index) + "\n"; },
      [&](std::string_view t) {
        for (size_t at = 0; at < t.size();) {
          const size_t end = t.find('\n', at);
          indices.push_back(std::stoul(std::string(t.substr(at, end - at))));
          at = end + 1;
        }
      });
  ASSERT_EQ(indices.size(), shard.size(grid.size()) - 10);
  for (size_t p = 0; p < indices.size(); ++p)
    EXPECT_EQ(indices[p], 1 + 3 * (p + 10));
  EXPECT_EQ(last_done, shard.size(grid.size()));
  EXPECT_EQ(last_total, shard.size(grid.size()));
}

}  // namespace
}  // namespace pipesim::sweep
