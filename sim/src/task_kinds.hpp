#pragma once
// What the replays (engine.cpp, uncontended.cpp) read of a task's kind.

#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim::detail {

//! Communication: a flow in real-cost mode (network.hpp), a pure delay in unit-cost mode. The
//! activation-offload copies are flows on the worker's host link, holding no compute stream.
constexpr bool is_comm(OpKind k) {
  return k == OpKind::Transfer || k == OpKind::AllReduce || k == OpKind::Collective ||
         k == OpKind::Offload || k == OpKind::Reload;
}

//! Whether the graph's Collective tasks follow their op on its stream (not beside it). Read once
//! per replay: the helpers below take it.
inline bool serial_collectives(const TaskGraph& g) {
  return g.has_collectives() && !g.collectives_overlap();
}

//! A serialised collective: on its op's stream. The collectives of an overlapped unit
//! (Task::paired) run beside the other half's compute in either mode.
constexpr bool serial_collective(const Task& t, bool serial_collectives) {
  return serial_collectives && t.kind == OpKind::Collective && !t.paired;
}

//! Runs on its worker's stream in either mode: compute ops, the optimizer step, serialised
//! collectives (real cost adds blocking sends, EngineOptions::overlap_p2p).
constexpr bool holds_stream(const Task& t, bool serial_collectives) {
  return is_compute(t.kind) || t.kind == OpKind::Optimizer ||
         serial_collective(t, serial_collectives);
}

//! The work a worker's results wait for: its compute ops and their serialised collectives. A
//! flushed gradient sync starts once a holder has none of it left (GradSync::Flush).
constexpr bool is_worker_work(const Task& t, bool serial_collectives) {
  return is_compute(t.kind) || serial_collective(t, serial_collectives);
}

}  // namespace pipesim::sim::detail
