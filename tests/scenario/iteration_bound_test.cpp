// scenario::iteration_time_lower_bound against the replay it bounds: for every registered
// schedule, dense and mixture-of-experts runs, serialised and overlapped collectives, with and
// without recomputation, the bound never exceeds the simulated iteration time, and it is close
// to it where a run is nothing but compute.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "moe_scenario.hpp"
#include "pipesim/core/config_error.hpp"
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
  EXPECT_GE(bound, 0.0);
  if (r.schedule.asynchronous) {
    EXPECT_EQ(bound, 0.0);
  } else {
    EXPECT_GT(bound, 0.0);
    ++checked.bounded;
  }
  ++checked.runs;
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
  EXPECT_GE(checked.bounded, 55);
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
  Scenario s = dense("1f1b", false);
  s.perf.setup.tensor_parallel = 1;
  s.perf.setup.data_parallel = 1;
  const Result r = simulate(s);
  const double bound =
      iteration_time_lower_bound(s, schedules::make_schedule(s.schedule, s.params));
  double busiest = 0;
  for (const sim::WorkerMetrics& w : r.metrics.workers)
    busiest = std::max(busiest, w.busy);
  EXPECT_GT(bound, busiest * 1.2);  // N = 2D: the bubble is about (D - 1) / (N + D - 1)
  EXPECT_GT(bound, 0.95 * r.metrics.iteration_time);
  EXPECT_LE(bound, r.metrics.iteration_time);
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
