// Memory over time against closed forms: static bytes per held stage copy and weight version,
// 1F1B's min(N, D−s) live activation sets, and the invariants (never below the static level,
// back to it at the end of a synchronous iteration).

#include "pipesim/sim/memory.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "../support/hand_chimera.hpp"
#include "../support/run_helpers.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::sim {
namespace {

std::vector<StageMemory> stages(int d, double workspace = 0.0) {
  std::vector<StageMemory> out(static_cast<size_t>(d));
  for (int s = 0; s < d; ++s) {
    out[static_cast<size_t>(s)] = {100.0, 100.0, 600.0, 10.0 + s, 0.0, workspace};
  }
  return out;
}

std::vector<WorkerMemory> run(const Schedule& s, const std::vector<StageMemory>& m) {
  const TaskGraph g = build_task_graph(s);
  const Trace t = simulate(g, UnitCostModel({1, 2, 0, 0.25}));
  return track_memory(s, g, t, m);
}

TEST(Memory, OneFOneBHoldsMinNDMinusSActivationSets) {
  for (int d : {1, 2, 4, 7}) {
    for (int n : {1, 3, 8, 16}) {
      schedules::ScheduleParams p;
      p.stages = d;
      p.micro_batches = n;
      const Schedule s = schedules::make_schedule("1f1b", p);
      const auto m = stages(d);
      const auto mem = run(s, m);
      for (int w = 0; w < d; ++w) {
        const auto& wm = mem[static_cast<size_t>(w)];
        const StageMemory& st = m[static_cast<size_t>(w)];
        EXPECT_DOUBLE_EQ(wm.static_memory.total(), 800.0);
        EXPECT_DOUBLE_EQ(wm.peak, 800.0 + std::min(n, d - w) * st.activations)
            << "D=" << d << " N=" << n << " w=" << w;
        EXPECT_DOUBLE_EQ(wm.at_peak.activations, std::min(n, d - w) * st.activations);
      }
    }
  }
}

TEST(Memory, NeverBelowStaticAndBackToItAfterTheIteration) {
  for (const char* name : {"gpipe", "1f1b"}) {
    for (int d : {2, 5, 8}) {
      schedules::ScheduleParams p;
      p.stages = d;
      p.micro_batches = 2 * d + 1;
      const Schedule s = schedules::make_schedule(name, p);
      for (const WorkerMemory& wm : run(s, stages(d, 7.0))) {
        EXPECT_GE(wm.minimum, 0.0);
        EXPECT_GE(wm.minimum, wm.static_memory.total() - 1e-9);
        EXPECT_NEAR(wm.final, wm.static_memory.total(), 1e-9);
        EXPECT_GE(wm.peak, wm.static_memory.total() + 7.0);  // workspace while computing
      }
    }
  }
  const Schedule c = testing::hand_chimera(8);
  for (const WorkerMemory& wm : run(c, stages(8, 7.0))) {
    EXPECT_GE(wm.minimum, wm.static_memory.total() - 1e-9);
    EXPECT_NEAR(wm.final, wm.static_memory.total(), 1e-9);
  }
}

TEST(Memory, ChimeraHoldsTwiceOneFOneBsWeights) {
  for (int d : {2, 4, 8, 16}) {
    schedules::ScheduleParams p;
    p.stages = d;
    p.micro_batches = d;
    const auto one = run(schedules::make_schedule("1f1b", p), stages(d));
    const auto chimera = run(testing::hand_chimera(d), stages(d));
    for (int w = 0; w < d; ++w) {
      const auto i = static_cast<size_t>(w);
      EXPECT_DOUBLE_EQ(chimera[i].static_memory.weights, 2 * one[i].static_memory.weights);
      EXPECT_DOUBLE_EQ(chimera[i].static_memory.gradients, 2 * one[i].static_memory.gradients);
      EXPECT_DOUBLE_EQ(chimera[i].static_memory.optimizer, 2 * one[i].static_memory.optimizer);
    }
  }
}

TEST(Memory, WeightVersionsMultiplyOnlyTheWeights) {
  schedules::ScheduleParams p;
  p.stages = 4;
  p.micro_batches = 4;
  Schedule s = schedules::make_schedule("1f1b", p);
  s.weight_versions = {4, 3, 2, 1};  // PipeDream-style stashing: D − s versions
  const auto mem = run(s, stages(4));
  for (int w = 0; w < 4; ++w) {
    EXPECT_DOUBLE_EQ(mem[static_cast<size_t>(w)].static_memory.weights, 100.0 * (4 - w));
    EXPECT_DOUBLE_EQ(mem[static_cast<size_t>(w)].static_memory.gradients, 100.0);
  }
}

TEST(Memory, RecomputeBufferIsHeldDuringTheBackward) {
  schedules::ScheduleParams p;
  p.stages = 1;
  p.micro_batches = 1;
  const Schedule s = schedules::make_schedule("1f1b", p);
  std::vector<StageMemory> m(1, StageMemory{0, 0, 0, 2.0, 30.0, 0});
  const auto mem = run(s, m);
  EXPECT_DOUBLE_EQ(mem[0].peak, 32.0);
  EXPECT_DOUBLE_EQ(mem[0].final, 0.0);
}

std::vector<WorkerMemory> run_timeline(const Schedule& s, const std::vector<StageMemory>& m) {
  const TaskGraph g = build_task_graph(s);
  const Trace t = simulate(g, UnitCostModel({1, 2, 0, 0.25}));
  return track_memory(s, g, t, m, /*record_timeline=*/true);
}

void expect_timeline_matches_summary(const WorkerMemory& wm, bool synchronous) {
  ASSERT_FALSE(wm.timeline.empty());
  const double base = wm.static_memory.total();
  EXPECT_EQ(wm.timeline.front().time, 0.0);
  EXPECT_EQ(wm.timeline.front().bytes, base) << "starts at the static level";
  double hi = wm.timeline.front().bytes, lo = hi;
  for (size_t i = 1; i < wm.timeline.size(); ++i) {
    EXPECT_GE(wm.timeline[i].time, wm.timeline[i - 1].time) << "times never go back";
    EXPECT_NE(wm.timeline[i].bytes, wm.timeline[i - 1].bytes) << "a sample per change only";
    if (i >= 2) {
      EXPECT_GT(wm.timeline[i].time, wm.timeline[i - 1].time) << "instants coalesced";
    }
    hi = std::max(hi, wm.timeline[i].bytes);
    lo = std::min(lo, wm.timeline[i].bytes);
  }
  EXPECT_EQ(hi, wm.peak);
  EXPECT_EQ(lo, wm.minimum);
  EXPECT_EQ(wm.timeline.back().bytes, wm.final);
  if (synchronous) {
    EXPECT_NEAR(wm.timeline.back().bytes, base, 1e-9) << "ends at static level";
  }
}

TEST(MemoryTimeline, MaxIsPeakMinIsMinimumLastIsFinal) {
  for (const char* name : {"gpipe", "1f1b", "zb-h1", "interleaved"}) {
    for (int d : {2, 4}) {
      schedules::ScheduleParams p;
      p.stages = d;
      p.micro_batches = 2 * d;
      if (schedules::find_schedule(name) == nullptr) continue;
      const Schedule s = schedules::make_schedule(name, p);
      const auto mem = run_timeline(s, stages(s.virtual_stages, 7.0));
      for (const WorkerMemory& wm : mem)
        expect_timeline_matches_summary(wm, !s.asynchronous);
    }
  }
  for (const WorkerMemory& wm : run_timeline(testing::hand_chimera(4), stages(4, 7.0))) {
    expect_timeline_matches_summary(wm, true);
  }
}

TEST(MemoryTimeline, OffByDefaultAndSummaryUnchanged) {
  schedules::ScheduleParams p;
  p.stages = 4;
  p.micro_batches = 8;
  const Schedule s = schedules::make_schedule("1f1b", p);
  const auto without = run(s, stages(4, 7.0));
  const auto with = run_timeline(s, stages(4, 7.0));
  for (size_t w = 0; w < without.size(); ++w) {
    EXPECT_TRUE(without[w].timeline.empty());
    EXPECT_EQ(without[w].peak, with[w].peak);
    EXPECT_EQ(without[w].peak_time, with[w].peak_time);
    EXPECT_EQ(without[w].minimum, with[w].minimum);
    EXPECT_EQ(without[w].final, with[w].final);
  }
}

TEST(MemoryTimeline, OneStageOneMicroBatchByHand) {
  // F [0,1), B [1,3): activations 2 from 0 to 3, workspace 5 while either runs; the B start
  // frees F's workspace and takes its own at the same instant, so t = 1 is no change.
  schedules::ScheduleParams p;
  p.stages = 1;
  p.micro_batches = 1;
  const Schedule s = schedules::make_schedule("1f1b", p);
  std::vector<StageMemory> m(1, StageMemory{10, 0, 0, 2.0, 0, 5.0});
  const auto mem = run_timeline(s, m);
  ASSERT_EQ(mem[0].timeline.size(), 3u);
  EXPECT_EQ(mem[0].timeline[0].time, 0.0);
  EXPECT_EQ(mem[0].timeline[0].bytes, 10.0);
  EXPECT_EQ(mem[0].timeline[1].time, 0.0);
  EXPECT_EQ(mem[0].timeline[1].bytes, 17.0);
  EXPECT_EQ(mem[0].timeline[2].bytes, 10.0);
  EXPECT_EQ(mem[0].minimum, 10.0);
}

// The peaks without a replay are the replay's to the bit, for every scheme, with activations,
// a recompute buffer and a workspace that differ by stage (so no two deltas tie by accident),
// and with costs where ops end as others start and where they leave gaps.
TEST(MemoryUntimed, EqualsTheReplayBitForBitOnEverySchedule) {
  for (const schedules::ScheduleEntry& entry : schedules::all_schedules()) {
    int compared = 0;
    for (int d : {2, 4, 6}) {
      for (int n : {1, 4, 9, 16}) {
        schedules::ScheduleParams p;
        p.stages = d;
        p.micro_batches = n;
        Schedule s;
        try {
          s = schedules::make_schedule(entry.name, p);
        } catch (const core::ConfigError&) {
          continue;  // a shape the scheme refuses
        }
        std::vector<StageMemory> m(static_cast<size_t>(s.virtual_stages));
        for (int st = 0; st < s.virtual_stages; ++st) {
          m[static_cast<size_t>(st)] = {100.0 + st,    90.0,     600.0,
                                        10.0 + 3 * st, 4.5 + st, 0.75 * st};
        }
        const TaskGraph g = build_task_graph(s);
        const std::vector<WorkerMemory> untimed = track_memory_untimed(s, m);
        for (const UnitCosts& costs : {UnitCosts{1, 2, 1, 0.0}, UnitCosts{1.5, 2.5, 1, 0.3}}) {
          const Trace t = simulate(g, UnitCostModel(costs));
          ASSERT_TRUE(t.completed) << entry.name;
          const std::vector<WorkerMemory> timed = track_memory(s, g, t, m);
          ASSERT_EQ(timed.size(), untimed.size());
          for (size_t w = 0; w < timed.size(); ++w) {
            const std::string where = fmt::format("{} D={} N={} worker {}", entry.name, d, n, w);
            EXPECT_EQ(untimed[w].peak, timed[w].peak) << where;
            EXPECT_EQ(untimed[w].at_peak.activations, timed[w].at_peak.activations) << where;
            EXPECT_EQ(untimed[w].at_peak.other, timed[w].at_peak.other) << where;
            EXPECT_EQ(untimed[w].static_memory.total(), timed[w].static_memory.total()) << where;
          }
          ++compared;
        }
      }
    }
    EXPECT_GT(compared, 0) << entry.name << ": no shape compared";
  }
}

}  // namespace
}  // namespace pipesim::sim
