#pragma once
// The figures a run reports (docs/architecture.md §6); each definition is stated where it is
// computed.

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
  //! op that releases them ends (B, or W for a split backward). Offloaded sets count: this is
  //! the schedule's count; the device's share is in the memory trace.
  int peak_activations = 0;
};

struct Metrics {
  //! First task start → last task end, synchronisation and optimizer included. For an
  //! asynchronous schedule (no flush, several iterations listed) the steady state instead: the
  //! mean time between consecutive iterations' completions over the middle iterations,
  //! (c[I-2] - c[0]) / (I-2) for I >= 3 listed iterations (c[1] - c[0] for I = 2), where c[i] is
  //! the end of the last backward (W when split) of iteration i's micro-batches. It leaves out
  //! the fill before c[0] and the drain of the last iteration. With Schedule::drains_each_run
  //! the run itself repeats: total_time / I.
  double iteration_time = 0.0;
  //! First task start → last task end of everything listed (= iteration_time when synchronous).
  double total_time = 0.0;
  //! c[i] above, one per listed iteration.
  std::vector<double> iteration_completion;
  //! Pipeline span: earliest compute start → latest compute end over all workers.
  double span = 0.0;
  //! 1 − Σ busy / (workers × span): the GPipe/Chimera convention. Asynchronous: 1 − (Σ busy /
  //! iterations) / (workers × iteration_time), the idle share of a steady-state iteration
  //! (with drains_each_run, of the whole run: the first formula).
  double bubble_ratio = 0.0;
  std::vector<WorkerMetrics> workers;
};

Metrics compute_metrics(const Schedule& schedule, const TaskGraph& graph, const Trace& trace);

}  // namespace pipesim::sim
