// scenario::run_bounds against the replay it bounds: for every registered schedule, dense and
// mixture-of-experts runs, serialised and overlapped collectives, with and without
// recomputation, the iteration-time bound never exceeds the simulated iteration time (for an
// asynchronous schedule, its steady-state period), it is close to it where a run is nothing but
// compute, and the memory verdict is the replay's on either side of the simulated peak.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "moe_scenario.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::scenario {
namespace {

Scenario dense(const std::string& schedule, bool tp_overlap) {
  Scenario s;
  s.schedule = schedule;
  s.params.stages = 4;
  s.params.micro_batches = 8;
  s.perf.model = "gpt2-1.3b";
  s.perf.hardware = "a100-dgx";
  s.perf.setup.tensor_parallel = 2;
  s.perf.setup.data_parallel = 2;
  s.perf.setup.tp_comm_overlap = tp_overlap;
  return s;
}

struct Checked {
  int runs = 0;     // simulated and bounded
  int bounded = 0;  // with a bound above 0 (synchronous schedules)
};

void check(const Scenario& spec, Checked& checked) {
  Result r;
  try {
    r = simulate(spec);
  } catch (const core::ConfigError&) {
    return;  // a scheme's own rule (N, D) refuses this run
  }
  const sim::Schedule generated = schedules::make_schedule(spec.schedule, spec.params);
  const double bound = iteration_time_lower_bound(spec, generated);
  const double time = r.metrics.iteration_time;
  SCOPED_TRACE(spec.schedule);
  EXPECT_LE(bound, time * (1 + 1e-9));
  EXPECT_GT(bound, 0.0);
  if (bound > 0.0) ++checked.bounded;
  // The streams' bound (search orders by it) is weaker than the paths' and still positive.
  const double streams = run_bounds(spec, generated, nullptr, BoundDepth::Streams).iteration_time;
  EXPECT_LE(streams, bound * (1 + 1e-12));
  EXPECT_GT(streams, 0.0);
  ++checked.runs;
  // The memory verdict, with the GPU just below and just above the replay's peak.
  const double peak = r.perf->peak_memory;
  for (const double capacity : {peak * (1 - 1e-9), peak * (1 + 1e-9)}) {
    Scenario s = spec;
    auto hardware = std::make_shared<hardware::HardwareProfile>(
        s.perf.hardware_profile ? *s.perf.hardware_profile
                                : hardware::load_profile(s.perf.hardware));
    hardware->gpu.memory_bytes = capacity;
    s.perf.hardware_profile = hardware;
    s.skip_replay_when_oom = true;
    EXPECT_EQ(run_bounds(s, generated).out_of_memory, capacity < peak) << capacity;
    s.skip_replay_when_oom = false;  // the replay runs: no verdict
    EXPECT_FALSE(run_bounds(s, generated).out_of_memory);
  }
}

// Each scheme's own variants as search tries them (Chimera's strategies, pipelines, chunks ...).
std::vector<core::OptionValues> variants(const schedules::ScheduleEntry& entry) {
  std::vector<core::OptionValues> out{core::OptionValues{}};
  if (entry.variants == nullptr) return out;
  for (const schedules::SearchVariant& v : entry.variants({4, 8, 8})) {
    if (v.pruned.empty()) out.push_back(v.options);
  }
  return out;
}

TEST(IterationBound, NeverAboveTheReplayForAnyScheduleOrCollectiveMode) {
  Checked checked;
  for (const schedules::ScheduleEntry& entry : schedules::all_schedules()) {
    if (entry.name == "toy") continue;
    for (const core::OptionValues& options : variants(entry)) {
      for (const bool overlap : {false, true}) {
        for (const auto recompute : {models::Recompute::None, models::Recompute::Full}) {
          Scenario s = dense(entry.name, overlap);
          s.params.options = options;
          s.perf.setup.recompute = recompute;
          check(s, checked);
        }
      }
      Scenario moe = testing::cross_node_moe(entry.name);
      moe.params.options = options;
      check(moe, checked);
    }
  }
  // Most schemes accept these runs; a refused one is skipped, not counted.
  EXPECT_GE(checked.runs, 65);
  EXPECT_EQ(checked.bounded, checked.runs);
}

// A single-replica run without tensor parallelism: almost nothing but compute.
Scenario compute_only(const std::string& schedule) {
  Scenario s = dense(schedule, false);
  s.perf.setup.tensor_parallel = 1;
  s.perf.setup.data_parallel = 1;
  return s;
}

// A run's bound, its replayed iteration time and its busiest worker's busy time.
struct Bounded {
  double bound = 0;
  double time = 0;
  double busiest = 0;
};

Bounded bound_and_replay(const Scenario& s) {
  const Result r = simulate(s);
  Bounded b;
  b.bound = iteration_time_lower_bound(s, schedules::make_schedule(s.schedule, s.params));
  b.time = r.metrics.iteration_time;
  for (const sim::WorkerMetrics& w : r.metrics.workers)
    b.busiest = std::max(b.busiest, w.busy);
  return b;
}

// GEMS runs one pair of micro-batches through the whole pipeline after another: the chains of
// the pairs pass through every worker in turn, which only a path through several workers' ops
// holds (any one worker is idle most of the time).
TEST(IterationBound, HoldsGemsChainOfPipelinePasses) {
  const Bounded b = bound_and_replay(compute_only("gems"));
  EXPECT_GT(b.bound, 2 * b.busiest);
  EXPECT_GT(b.bound, 0.9 * b.time);
  EXPECT_LE(b.bound, b.time);
}

// PipeDream's steady state: between the completions the period is measured over, the pipeline
// runs a whole iteration per period, which the path from iteration 0's last release holds.
TEST(IterationBound, HoldsAnAsynchronousSteadyStatePeriod) {
  for (const std::string schedule : {"pipedream", "pipedream-2bw"}) {
    const Bounded b = bound_and_replay(compute_only(schedule));
    SCOPED_TRACE(schedule);
    EXPECT_GT(b.bound, 0.9 * b.time);
    EXPECT_LE(b.bound, b.time * (1 + 1e-9));
  }
}

TEST(IterationBound, EqualsTheComputeOfASingleStageWithoutCommunication) {
  Scenario s = dense("1f1b", false);
  s.params.stages = 1;
  s.perf.setup.tensor_parallel = 1;
  s.perf.setup.data_parallel = 1;
  const Result r = simulate(s);
  const double bound =
      iteration_time_lower_bound(s, schedules::make_schedule(s.schedule, s.params));
  EXPECT_NEAR(bound, r.metrics.iteration_time, 1e-9 * r.metrics.iteration_time);
}

// 1F1B's fill and drain: the last stage's first forward waits for D - 1 forwards, the first
// stage's last backward for D - 1 backwards, so the bound holds the bubble, not only the busy
// time, and comes within the little communication of a single-replica pipeline.
TEST(IterationBound, HoldsOneFOneBsFillAndDrain) {
  const Bounded b = bound_and_replay(compute_only("1f1b"));
  EXPECT_GT(b.bound, b.busiest * 1.2);  // N = 2D: the bubble is about (D - 1) / (N + D - 1)
  EXPECT_GT(b.bound, 0.95 * b.time);
  EXPECT_LE(b.bound, b.time);
}

TEST(IterationBound, IsZeroInUnitCostMode) {
  Scenario s;
  s.schedule = "1f1b";
  s.params.stages = 4;
  s.params.micro_batches = 8;
  EXPECT_EQ(iteration_time_lower_bound(s, schedules::make_schedule(s.schedule, s.params)), 0.0);
}

}  // namespace
}  // namespace pipesim::scenario
