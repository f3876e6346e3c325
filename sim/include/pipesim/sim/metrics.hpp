#pragma once
// The figures a run reports (DESIGN.md §6); each definition is stated where it is computed.

#include <vector>

#include "pipesim/sim/schedule.hpp"
#include "pipesim/sim/simulator.hpp"

namespace pipesim::sim {

struct WorkerMetrics {
  int worker = 0;
  double busy = 0.0;         //!< Σ duration of the worker's compute ops (F, B, I, W, R)
  double first_start = 0.0;  //!< start of its first compute op
  double last_end = 0.0;     //!< end of its last compute op
  //! Most micro-batch-stage activation sets held at once: +1 when an F starts, −1 when the
  //! op that releases them ends (B, or W for a split backward).
  int peak_activations = 0;
};

struct Metrics {
  //! First task start → last task end, synchronisation and optimizer included.
  double iteration_time = 0.0;
  //! Pipeline span: earliest compute start → latest compute end over all workers.
  double span = 0.0;
  //! 1 − Σ busy / (workers × span): the GPipe/Chimera convention.
  double bubble_ratio = 0.0;
  std::vector<WorkerMetrics> workers;
};

Metrics compute_metrics(const Schedule& schedule, const TaskGraph& graph, const Trace& trace);

}  // namespace pipesim::sim
