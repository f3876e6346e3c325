#pragma once
// Where each worker's iteration goes: computing, waiting on communication it cannot hide
// (exposed), or idle (bubbles).

#include <vector>

#include "pipesim/sim/simulator.hpp"
#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim {

struct WorkerTime {
  double compute = 0.0;  //!< its compute stream runs a compute op or the optimizer step
  //! Not computing while a transfer it sends or receives, an all-reduce it takes part in, or
  //! the collectives of one of its ops (a serialised one always: its op has ended) is in
  //! progress: |∪ comm intervals \ ∪ compute intervals|.
  double exposed_communication = 0.0;
  double idle = 0.0;  //!< the rest of the iteration window (first task start → last task end)
};

std::vector<WorkerTime> time_breakdown(const TaskGraph& graph, const Trace& trace);

}  // namespace pipesim::sim
