// Engine invariants over random valid parameters: dependencies, stream exclusivity, program
// order, durations; byte-identical reruns; the event-free shortcut gives the event loop's trace.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "../../sim/src/uncontended.hpp"
#include "../support/random_params.hpp"
#include "../support/run_helpers.hpp"
#include "pipesim/cost/training_cost_model.hpp"

namespace pipesim {
namespace {

using testing::expect_same_trace;

TEST(SimulatorInvariants, HoldForRandomParameters) {
  std::mt19937 rng(20261130);
  for (int trial = 0; trial < 60; ++trial) {
    for (const auto& entry : schedules::all_schedules()) {
      const schedules::ScheduleParams p = testing::draw_valid(entry.name, rng);
      const sim::UnitCosts c = testing::draw_costs(rng);
      SCOPED_TRACE(::testing::Message() << entry.name << " D=" << p.stages << " N="
                                        << p.micro_batches << " " << testing::describe_params(p));
      const testing::UnitRun r = testing::run_unit(std::string(entry.name), p, c);
      testing::expect_engine_invariants(r,
                                        sim::UnitCostModel(scenario::op_unit_costs(c, r.schedule)));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// simulate() skips the event loop when no stream can be contended (sim/src/uncontended.hpp):
// wherever it does, the trace must be the event loop's, bit for bit, and both paths must occur
// (asynchronous schedules' optimizer steps contend).
TEST(SimulatorInvariants, ShortcutGivesTheEventLoopsTrace) {
  std::mt19937 rng(20261202);
  int taken = 0, declined = 0;
  for (int trial = 0; trial < 20; ++trial) {
    for (const auto& entry : schedules::all_schedules()) {
      const schedules::ScheduleParams p = testing::draw_valid(entry.name, rng);
      sim::UnitCosts c = testing::draw_costs(rng);
      c.comm *= 0.8;  // and 0.1-slot delays, whose sums round
      c.all_reduce = c.forward * 0.7;
      SCOPED_TRACE(::testing::Message()
                   << entry.name << " D=" << p.stages << " N=" << p.micro_batches);
      const sim::Schedule s = schedules::make_schedule(std::string(entry.name), p);
      const sim::TaskGraph g = sim::build_task_graph(s);
      const sim::UnitCostModel costs(c);
      const sim::Trace events = sim::detail::replay_events(g, costs);
      const std::optional<sim::Trace> shortcut = sim::detail::replay_uncontended(g, costs);
      if (!shortcut) {
        ++declined;
        continue;
      }
      ++taken;
      expect_same_trace(*shortcut, events);
    }
  }
  EXPECT_GT(taken, 0);
  EXPECT_GT(declined, 0);
}

// The same for real cost: the event-free pass stands alone with one replica; with several, a
// stage's sync meets its last gradient's transfer and the event loop takes over from that
// instant (engine.cpp, Engine::seed); asynchronous schedules are the loop's from the start.
// Whichever way, simulate_network() gives the event loop's trace bit for bit. Two profiles: one
// GPU per node (every transfer on its own NICs), and eight per node (stages share NVLink ports
// and replicas share NICs, so flows meet on a resource from more records).
TEST(SimulatorInvariants, NetworkShortcutGivesTheEventLoopsTrace) {
  const models::ModelSpec model = models::load_model("gpt2-1.3b");
  for (const char* hardware : {"p100-daint", "h100-dgx"}) {
    int whole = 0, resumed = 0, declined = 0;
    const hardware::HardwareProfile profile = hardware::load_profile(hardware);
    for (const auto& entry : schedules::all_schedules()) {
      for (int w : {1, 2, 8}) {
        std::mt19937 rng(20261203);
        const schedules::ScheduleParams p = testing::draw_valid(entry.name, rng);
        const sim::Schedule s = schedules::make_schedule(std::string(entry.name), p);
        cost::TrainingSetup setup;
        setup.data_parallel = w;
        if (s.virtual_stages > model.layers) continue;
        SCOPED_TRACE(::testing::Message()
                     << hardware << " " << entry.name << " D=" << p.stages << " W=" << w);
        const sim::TaskGraph g = sim::build_task_graph(s);
        const cost::TrainingCostModel costs(model, profile, s, setup);
        const sim::detail::FlowTable flows(g, costs);
        const auto prefix = sim::detail::replay_network_prefix(g, costs, flows, {});
        ++(!prefix ? declined : prefix->trace.completed ? whole : resumed);
        expect_same_trace(sim::simulate_network(g, costs, costs, {}),
                          sim::detail::replay_network_events(g, costs, costs, {}));
      }
    }
    EXPECT_GT(whole, 0) << hardware;
    EXPECT_GT(resumed, 0) << hardware;
    EXPECT_GT(declined, 0) << hardware;
  }
}

// The same with tensor parallelism's collectives as tasks of their own (a Collective per F, B
// and I; serialised ones hold the stream after their op, overlapped ones run beside it), whose
// flows share the workers' NVLink ports with the transfers (t = 2: four workers per node).
TEST(SimulatorInvariants, NetworkShortcutGivesTheEventLoopsTraceWithCollectives) {
  const models::ModelSpec model = models::load_model("llama3-8b");
  const hardware::HardwareProfile profile = hardware::load_profile("h100-dgx");
  int whole = 0, resumed = 0, declined = 0, collectives = 0;
  for (const auto& entry : schedules::all_schedules()) {
    for (bool overlap : {false, true}) {
      for (int w : {1, 2}) {
        std::mt19937 rng(20261204);
        const schedules::ScheduleParams p = testing::draw_valid(entry.name, rng);
        const sim::Schedule s = schedules::make_schedule(std::string(entry.name), p);
        if (s.virtual_stages > model.layers) continue;
        cost::TrainingSetup setup;
        setup.micro_batch_size = 2 * s.micro_batch_divisor;  // backward halving runs at B/2
        setup.data_parallel = w;
        setup.tensor_parallel = 2;
        setup.sequence_parallel = overlap;
        setup.tp_comm_overlap = overlap;
        SCOPED_TRACE(::testing::Message() << entry.name << " D=" << p.stages << " W=" << w
                                          << (overlap ? " overlapped" : " serialised"));
        const cost::TrainingCostModel costs(model, profile, s, setup);
        const sim::TaskGraph g = sim::build_task_graph(s, costs.lowering());
        ASSERT_TRUE(g.has_collectives());
        ASSERT_EQ(g.collectives_overlap(), overlap);
        collectives += static_cast<int>(
            std::count_if(g.tasks().begin(), g.tasks().end(),
                          [](const sim::Task& t) { return t.kind == sim::OpKind::Collective; }));
        const sim::detail::FlowTable flows(g, costs);
        const auto prefix = sim::detail::replay_network_prefix(g, costs, flows, {});
        ++(!prefix ? declined : prefix->trace.completed ? whole : resumed);
        expect_same_trace(sim::simulate_network(g, costs, costs, {}),
                          sim::detail::replay_network_events(g, costs, costs, {}));
      }
    }
  }
  EXPECT_GT(collectives, 0);
  EXPECT_GT(whole, 0);     // the event-free pass alone
  EXPECT_GT(resumed, 0);   // the event loop from where a port or NIC could be overloaded
  EXPECT_GT(declined, 0);  // the event loop throughout
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
