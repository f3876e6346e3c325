#pragma once
// Replays without the event loop, where that gives the event loop's answer exactly.
//
// In unit-cost mode the only shared resources are the compute streams. If no stream task ever
// becomes ready while another task holds its stream, every task starts when its last
// predecessor ends, and the replay is the longest-path (critical-path) recurrence
//   start(v) = max over predecessors u of end(u)   (0 without one),   end(v) = start(v) + d(v),
// computed here in one pass over the DAG in topological order, with the same additions and
// maxima as the event loop (so the same bits). Lowering chains each worker's compute ops in
// program order, so they never contend; only other stream tasks could (an asynchronous
// schedule's optimizer step, which runs between compute ops). Afterwards each stream's tasks,
// in id order, must occupy disjoint intervals in that order; if they do, no task waited for its
// stream and the result stands. Otherwise, or when the graph has a cycle, the caller replays
// with events.

#include <optional>

#include "flow_table.hpp"
#include "pipesim/sim/cost_model.hpp"
#include "pipesim/sim/network.hpp"
#include "pipesim/sim/simulator.hpp"

namespace pipesim::sim::detail {

//! The event loop's trace when no stream task waits for its stream; nullopt when one might
//! (or some task never runs).
std::optional<Trace> replay_uncontended(const TaskGraph& graph, const CostModel& costs);

//! The event loop itself (engine.cpp): simulate() without the shortcut, for tests.
Trace replay_events(const TaskGraph& graph, const CostModel& costs);

//! Real cost: the same pass where the event loop would run every task at full speed, up to
//! some instant. It needs p2p overlapping compute and eager gradient sync (nothing waits but for
//! its predecessors), every stream's tasks one after the other, and no compute op meeting a
//! collective on its worker when there is interference; a resource may then still be loaded
//! beyond its capacity from `cut` on (a stage's sync meeting its last gradient's transfer, with
//! data parallelism), which ends every flow's max-min share of 1. Up to `cut` (excluded) the
//! trace is the event loop's; engine.cpp resumes the event loop there. `cut` is +inf when the
//! whole trace stands (trace.completed). nullopt when the pass does not apply.
struct NetworkPrefix {
  Trace trace;
  double cut = 0.0;
};
std::optional<NetworkPrefix> replay_network_prefix(const TaskGraph& graph, const CostModel& compute,
                                                   const FlowTable& flows,
                                                   const EngineOptions& options);

//! The real-cost event loop (engine.cpp): simulate_network() without the shortcut, for tests.
Trace replay_network_events(const TaskGraph& graph, const CostModel& compute,
                            const NetworkModel& network, const EngineOptions& options);

}  // namespace pipesim::sim::detail
