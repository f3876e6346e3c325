#pragma once
// What the replays (engine.cpp, uncontended.cpp) read of a task's kind.

#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim::detail {

//! Communication: a flow in real-cost mode (network.hpp), a pure delay in unit-cost mode.
constexpr bool is_comm(OpKind k) {
  return k == OpKind::Transfer || k == OpKind::AllReduce || k == OpKind::Collective;
}

//! A collective that follows its op on the worker's stream (not one beside it).
inline bool is_serial_collective(const TaskGraph& g, OpKind k) {
  return k == OpKind::Collective && !g.collectives_overlap();
}

//! Runs on its worker's stream in either mode: compute ops, the optimizer step, serialised
//! collectives (real cost adds blocking sends, EngineOptions::overlap_p2p).
inline bool holds_stream(const TaskGraph& g, OpKind k) {
  return is_compute(k) || k == OpKind::Optimizer || is_serial_collective(g, k);
}

//! The work a worker's results wait for: its compute ops and their serialised collectives. A
//! flushed gradient sync starts once a holder has none of it left (GradSync::Flush).
inline bool is_worker_work(const TaskGraph& g, OpKind k) {
  return is_compute(k) || is_serial_collective(g, k);
}

}  // namespace pipesim::sim::detail
