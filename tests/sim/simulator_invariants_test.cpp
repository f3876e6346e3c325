// Engine invariants over random valid parameters: dependencies, stream exclusivity, program
// order, durations; and byte-identical reruns.

#include <gtest/gtest.h>

#include <random>

#include "../support/run_helpers.hpp"

namespace pipesim {
namespace {

TEST(SimulatorInvariants, HoldForRandomParameters) {
  std::mt19937 rng(20261130);
  std::uniform_int_distribution<int> stages(1, 24), micro(1, 48), ticks(1, 8), comm(0, 4);
  for (int trial = 0; trial < 60; ++trial) {
    for (const auto& entry : schedules::all_schedules()) {
      schedules::ScheduleParams p;
      p.stages = stages(rng);
      p.micro_batches = micro(rng);
      sim::UnitCosts c;
      c.forward = ticks(rng) * 0.25;
      c.backward = ticks(rng) * 0.5;
      c.comm = comm(rng) * 0.125;
      SCOPED_TRACE(::testing::Message() << entry.name << " D=" << p.stages
                                        << " N=" << p.micro_batches);
      const testing::UnitRun r = testing::run_unit(std::string(entry.name), p, c);
      testing::expect_engine_invariants(r, sim::UnitCostModel(c));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(SimulatorInvariants, CommDelayStretchesTheCriticalPath) {
  // 1F1B with a delay δ per cross-worker edge: the first forward reaches the last stage after
  // (D−1)(t_F+δ) and its gradient returns after (D−1)(t_B+δ), so the span grows by 2(D−1)δ
  // at least.
  schedules::ScheduleParams p;
  p.stages = 6;
  p.micro_batches = 12;
  const auto base = testing::run_unit("1f1b", p, {1, 2, 0, 0});
  const auto slow = testing::run_unit("1f1b", p, {1, 2, 0, 0.5});
  EXPECT_GE(slow.metrics.span, base.metrics.span + 2 * 5 * 0.5);
}

TEST(SimulatorInvariants, RerunIsIdentical) {
  schedules::ScheduleParams p;
  p.stages = 7;
  p.micro_batches = 19;
  const auto a = testing::run_unit("1f1b", p, {0.75, 1.5, 0, 0.25});
  const auto b = testing::run_unit("1f1b", p, {0.75, 1.5, 0, 0.25});
  ASSERT_EQ(a.trace.timing.size(), b.trace.timing.size());
  for (size_t i = 0; i < a.trace.timing.size(); ++i) {
    EXPECT_EQ(a.trace.timing[i].start, b.trace.timing[i].start);
    EXPECT_EQ(a.trace.timing[i].end, b.trace.timing[i].end);
  }
}

}  // namespace
}  // namespace pipesim
