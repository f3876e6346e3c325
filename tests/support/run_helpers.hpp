#pragma once
// Shared by the tests: run a schedule in unit-cost mode (through scenario::simulate, the one
// chain schedule → graph → engine → metrics) and check the engine's invariants.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/sim/lowering.hpp"

namespace pipesim::testing {

//! D stages, N micro-batches and v model chunks per worker (the looped schemes' `chunks`).
inline schedules::ScheduleParams chunked_params(int stages, int micro_batches, int chunks) {
  schedules::ScheduleParams p;
  p.stages = stages;
  p.micro_batches = micro_batches;
  p.options.set("chunks", std::int64_t{chunks});
  return p;
}

//! schedule, graph, trace and metrics of one unit-cost run.
using UnitRun = scenario::Result;

//! Simulates `name` with `params` and `costs`; a schedule the validator rejects (simulate()
//! throws) is a test failure with the reason.
inline UnitRun run_unit(const std::string& name, const schedules::ScheduleParams& params,
                        const sim::UnitCosts& costs) {
  scenario::Scenario s;
  s.schedule = name;
  s.params = params;
  s.unit = costs;
  // Tests spell costs as {t_F, t_B, t_W, t_comm}: t_W only means something with a split
  // backward (elsewhere simulate() refuses it).
  const schedules::ScheduleEntry* entry = schedules::find_schedule(name);
  if (entry != nullptr && !entry->traits.split_backward) s.unit.weight.reset();
  UnitRun r;
  try {
    r = scenario::simulate(s);
  } catch (const core::ConfigError& e) {
    ADD_FAILURE() << name << ": " << e.what();
    return r;
  }
  EXPECT_TRUE(r.trace.completed);
  return r;
}

//! Every edge is respected, every task lasts what the cost model says, and each worker's
//! compute stream runs one op at a time in program order.
inline void expect_engine_invariants(const UnitRun& r, const sim::CostModel& costs) {
  const auto offset = r.graph.successor_offsets();
  for (sim::TaskId from = 0; from < r.graph.num_tasks(); ++from) {
    for (sim::TaskId i = offset[from]; i < offset[from + 1]; ++i) {
      const sim::TaskId to = r.graph.successors()[i];
      ASSERT_LE(r.trace.timing[from].end, r.trace.timing[to].start)
          << "edge " << from << " -> " << to << " violated";
    }
  }
  std::vector<std::vector<sim::TaskId>> stream(static_cast<size_t>(r.graph.workers()));
  for (sim::TaskId t = 0; t < r.graph.num_tasks(); ++t) {
    // The replay adds durations to times; a duration that is not a binary fraction (a chunk's
    // share of a stage's cost) comes back from end − start within rounding of the end.
    ASSERT_NEAR(r.trace.timing[t].end - r.trace.timing[t].start, costs.duration(r.graph, t),
                1e-12 * std::max(1.0, r.trace.timing[t].end));
    if (sim::is_compute(r.graph.task(t).kind)) {
      stream[static_cast<size_t>(r.graph.task(t).worker)].push_back(t);
    }
  }
  for (size_t w = 0; w < stream.size(); ++w) {
    auto ops = stream[w];
    std::stable_sort(ops.begin(), ops.end(), [&](sim::TaskId a, sim::TaskId b) {
      return r.trace.timing[a].start < r.trace.timing[b].start;
    });
    ASSERT_EQ(ops.size(), r.schedule.program[w].size());
    for (size_t i = 0; i < ops.size(); ++i) {
      // Execution order is the program order.
      ASSERT_EQ(r.graph.task(ops[i]).op(), r.schedule.program[w][i]) << "worker " << w;
      if (i > 0) {
        ASSERT_LE(r.trace.timing[ops[i - 1]].end, r.trace.timing[ops[i]].start);
      }
    }
  }
}

//! Two replays gave the same trace, bit for bit.
inline void expect_same_trace(const sim::Trace& a, const sim::Trace& b) {
  ASSERT_EQ(a.completed, b.completed);
  ASSERT_EQ(a.timing.size(), b.timing.size());
  for (size_t i = 0; i < a.timing.size(); ++i) {
    ASSERT_EQ(a.timing[i].start, b.timing[i].start) << "task " << i;
    ASSERT_EQ(a.timing[i].end, b.timing[i].end) << "task " << i;
  }
}

}  // namespace pipesim::testing
