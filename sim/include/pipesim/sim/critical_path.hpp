#pragma once
// Why a replay takes as long as it does: the chain of tasks that sets its length (the critical
// path), and how far each task could slip without lengthening it (its slack).
//
// The replay (simulator.hpp, network.hpp) starts a task once its predecessors have ended and,
// when it holds its worker's stream, once the stream's previous task has ended. So a task starts
// when a predecessor or its stream's previous task ends, or later when something else held it
// back (a shared resource: real-cost mode's flushed gradient sync waits for its holders'
// compute). Walking back from the last task to end, at each step to whichever of those ended
// last, gives a chain whose durations and gaps ("waits") add up to the run: first task start
// to last task end.
//
// Slack: with the replay's durations and its order fixed, the latest a task may end without
// moving the run's end, minus when it ended: a backward pass in reverse topological order
// (Boost.Graph topological_sort) over the DAG plus the order the replay added (an edge from
// each stream task to the next on its stream; to a task held back by a resource, an edge from
// each task that ended as it started). Steps of the path have slack 0 where no wait follows
// them; no task has less.

#include <cstdint>
#include <string_view>
#include <vector>

#include "pipesim/sim/simulator.hpp"
#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim {

//! Which tasks hold their worker's compute stream, as the replay runs them: compute ops and
//! the optimizer step always; transfers too when sends block the sender (real-cost mode,
//! EngineOptions::overlap_p2p off).
struct StreamRule {
  bool transfers_hold_stream = false;
};
bool holds_stream(OpKind kind, StreamRule rule);

//! What a critical-path step waited for: the run's start (the first step), the end of the
//! previous step through a DAG edge of that kind, or the previous step holding the stream (the
//! task was ready earlier: it waited for its stream).
enum class Release : std::uint8_t { RunStart, Data, ProgramOrder, Sync, Stream };
//! "start", "data", "program_order", "sync", "stream".
std::string_view release_name(Release release);

struct CriticalStep {
  TaskId task = 0;
  double start = 0.0;
  double end = 0.0;
  //! start − the end of the previous step (the first step: − the run's start). Nonzero only
  //! where something other than a predecessor or the stream held the task back.
  double wait = 0.0;
  //! When its last DAG predecessor ended (the run's start when it has none): start − ready is
  //! how long it was held back, by its stream (via Stream) or a shared resource.
  double ready = 0.0;
  double slack = 0.0;  //!< how long it could be delayed without delaying the run's end
  Release via = Release::RunStart;

  double duration() const { return end - start; }
};

struct CriticalPath {
  std::vector<CriticalStep> steps;  //!< first to last; the last ends at run_end
  std::vector<double> slack;        //!< by task id, every task
  double run_start = 0.0;           //!< first task start
  double run_end = 0.0;             //!< last task end
  //! Σ durations of the steps that compute (F B I W R and the optimizer step), of the other
  //! steps (communication: transfers, collectives), and Σ waits: together run_end − run_start.
  double compute = 0.0;
  double communication = 0.0;
  double waiting = 0.0;
};

//! The critical path and every task's slack of a completed replay of `graph`. Among tasks that
//! ended at the same instant the walk prefers the worker's previous op (program order), so a
//! worker that ran back to back keeps the path, then data, then sync edges, then the lowest
//! task id: the same inputs give the same path.
CriticalPath critical_path(const TaskGraph& graph, const Trace& trace, StreamRule rule);

}  // namespace pipesim::sim
