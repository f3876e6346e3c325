#pragma once
// The discrete-event engine: replays a TaskGraph against a CostModel. Unit-cost mode; the
// real-cost mode (network.hpp) is the same engine with flows that contend for resources.
//
// A task becomes ready when all its predecessors have finished. Compute ops and the optimizer
// step run on their worker's compute stream, one at a time, in the order they became ready
// (program-order edges make that the schedule's order). Transfers and all-reduces hold no
// stream: they are pure delays (a constant network model, as SimGrid's network_constant). Events
// are ordered by (time, insertion sequence), so a run is deterministic. Memory is flat arrays
// indexed by task id; nothing is allocated per event.

#include <string>
#include <vector>

#include "pipesim/sim/cost_model.hpp"
#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim {

struct TaskTiming {
  double start = 0.0;
  double end = 0.0;
};

struct Trace {
  std::vector<TaskTiming> timing;  //!< by task id
  bool completed = false;          //!< false only for a cyclic graph
  //! When !completed: the cycle that blocked the unfinished tasks, in check_acyclic()'s words
  //! ("cyclic order (deadlock): worker W can never run OP"), so a replay doubles as the
  //! deadlock check.
  std::string deadlock;
};

//! Runs every task of `graph` and returns when each started and ended.
Trace simulate(const TaskGraph& graph, const CostModel& costs);

}  // namespace pipesim::sim
