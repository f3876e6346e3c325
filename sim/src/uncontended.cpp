#include "uncontended.hpp"

#include <algorithm>
#include <limits>

#include "pipesim/core/assert.hpp"
#include "pipesim/core/huge_pages.hpp"
#include "ring_queue.hpp"

namespace pipesim::sim::detail {
namespace {

bool on_stream(OpKind kind) {
  return is_compute(kind) || kind == OpKind::Optimizer;
}

}  // namespace

std::optional<Trace> replay_uncontended(const TaskGraph& graph, const CostModel& costs) {
  const size_t n = graph.num_tasks();
  const auto offset = graph.successor_offsets();
  const auto succ = graph.successors();
  Trace trace;
  std::vector<TaskTiming>& timing = trace.timing;
  core::reserve_huge(timing, n);
  timing.resize(n);
  std::vector<TaskId> waiting(n, 0);
  for (TaskId target : succ)
    ++waiting[target];
  // Until v runs, timing[v].start is the latest end of its finished predecessors and
  // timing[v].end its duration.
  // Ready tasks in the order they became ready: a queue, not a stack, since the tasks of one
  // wave lie closer together in memory.
  RingQueue<TaskId> ready;
  for (TaskId v = 0; v < n; ++v) {
    const Task& t = graph.task(v);
    const double d = costs.duration(graph, v);
    PIPESIM_ASSERT(d >= 0.0, "cost model returned a negative duration");
    timing[v].end = d;
    // A stream task other than a compute op that gates a compute op runs between compute ops
    // (an asynchronous schedule's optimizer step): its stream is contended, leave it to events.
    if (on_stream(t.kind) && !is_compute(t.kind)) {
      for (TaskId i = offset[v]; i < offset[v + 1]; ++i) {
        if (is_compute(graph.task(succ[i]).kind)) return std::nullopt;
      }
    }
    if (waiting[v] == 0) ready.push(v);
  }
  size_t done = 0;
  for (; !ready.empty(); ++done) {
    const TaskId v = ready.pop();
    TaskTiming& tv = timing[v];
    const double end = tv.start + tv.end;
    tv.end = end;
    for (TaskId i = offset[v]; i < offset[v + 1]; ++i) {
      const TaskId s = succ[i];
      timing[s].start = std::max(timing[s].start, end);
      if (--waiting[s] == 0) ready.push(s);
    }
  }
  if (done != n) return std::nullopt;  // a cycle: the event loop names it
  // Each stream's tasks, in id order, one after the other: then none waited for its stream.
  std::vector<double> free_at(static_cast<size_t>(graph.workers()),
                              -std::numeric_limits<double>::infinity());
  for (TaskId v = 0; v < n; ++v) {
    const Task& t = graph.task(v);
    if (!on_stream(t.kind)) continue;
    double& free = free_at[static_cast<size_t>(t.worker)];
    if (timing[v].start < free) return std::nullopt;
    free = timing[v].end;
  }
  trace.completed = true;
  return trace;
}

}  // namespace pipesim::sim::detail
