#pragma once
// Naming the deadlock of a schedule whose task graph has a cycle; shared by the validator
// (check_acyclic) and the replay (a Trace that ends with unfinished tasks).

#include <span>
#include <string>

#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim::detail {

//! `waiting[t]`: predecessors of task t that never finished (Kahn's leftover in-degree, or the
//! replay's). At least one task must be waiting. Names a worker and the first compute op, in
//! program order, of a cycle among the waiting tasks: where the schedule deadlocks.
std::string name_cycle(const TaskGraph& graph, std::span<const TaskId> waiting);

}  // namespace pipesim::sim::detail
