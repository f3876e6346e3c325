#include "pipesim/sim/memory.hpp"

#include <algorithm>

#include "pipesim/core/assert.hpp"

namespace pipesim::sim {
namespace {

struct MemoryEvent {
  double time;
  double activations;  // delta
  double other;        // delta
  // Releases sort before allocations at the same instant (as in compute_metrics).
  bool operator<(const MemoryEvent& o) const {
    if (time != o.time) return time < o.time;
    return activations + other < o.activations + o.other;
  }
};

// A worker's compute ops run one after another in task order, so its events usually come
// sorted by time already, with ties only where one op ends as the next starts: sorting each run
// of equal times then gives what one sort of all gives (elements the order cannot tell apart
// have the same time and the same total change, and no result below depends on their order).
void sort_events(std::vector<MemoryEvent>& ev) {
  const auto by_time = [](const MemoryEvent& a, const MemoryEvent& b) { return a.time < b.time; };
  if (!std::is_sorted(ev.begin(), ev.end(), by_time)) {
    std::sort(ev.begin(), ev.end());
    return;
  }
  for (auto first = ev.begin(); first != ev.end();) {
    auto last = first + 1;
    while (last != ev.end() && last->time == first->time)
      ++last;
    if (last - first > 1) std::sort(first, last);
    first = last;
  }
}

}  // namespace

std::vector<WorkerMemory> track_memory(const Schedule& schedule, const TaskGraph& graph,
                                       const Trace& trace, const std::vector<StageMemory>& stages,
                                       bool record_timeline) {
  PIPESIM_ASSERT(trace.completed, "memory of an incomplete run");
  PIPESIM_ASSERT(static_cast<int>(stages.size()) == schedule.virtual_stages, "one entry per stage");
  const auto workers = static_cast<size_t>(schedule.workers);
  std::vector<WorkerMemory> out(workers);

  // Static: every (pipeline, stage) copy a worker holds, its weights in as many versions as the
  // schedule keeps (weight stashing, double buffering).
  for (int p = 0; p < schedule.pipelines; ++p) {
    for (int s = 0; s < schedule.virtual_stages; ++s) {
      const auto w = static_cast<size_t>(
          schedule.stage_worker[static_cast<size_t>(p)][static_cast<size_t>(s)]);
      const int versions = schedule.weight_versions.empty() ? 1 : schedule.weight_versions[w];
      const StageMemory& m = stages[static_cast<size_t>(s)];
      out[w].static_memory.weights += m.weights * versions;
      out[w].static_memory.gradients += m.gradients;
      out[w].static_memory.optimizer += m.optimizer;
    }
  }

  const OpKind release = schedule.split_backward ? OpKind::BackwardWeight : OpKind::Backward;
  const OpKind backward = schedule.split_backward ? OpKind::BackwardInput : OpKind::Backward;
  std::vector<std::vector<MemoryEvent>> events(workers);
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    const Task& task = graph.task(t);
    const bool copy = task.kind == OpKind::Offload || task.kind == OpKind::Reload;
    if (!is_compute(task.kind) && !copy) continue;
    const StageMemory& m = stages[static_cast<size_t>(task.stage)];
    auto& ev = events[static_cast<size_t>(task.worker)];
    const TaskTiming& tt = trace.timing[t];
    if (task.kind == OpKind::Offload) ev.push_back({tt.end, -m.offloaded, 0.0});
    if (task.kind == OpKind::Reload) ev.push_back({tt.start, m.offloaded, 0.0});
    if (copy) continue;
    // What the op allocates when it starts, then what it frees when it ends.
    const bool recomputes = m.recompute > 0.0 && (task.kind == OpKind::Recompute ||
                                                  (task.kind == backward && !schedule.recompute));
    if (task.kind == OpKind::Forward) ev.push_back({tt.start, m.activations, 0.0});
    if (recomputes) ev.push_back({tt.start, m.recompute, 0.0});
    if (m.workspace > 0.0) ev.push_back({tt.start, 0.0, m.workspace});
    if (task.kind == release) ev.push_back({tt.end, -m.activations, 0.0});
    if (m.recompute > 0.0 && task.kind == backward) ev.push_back({tt.end, -m.recompute, 0.0});
    if (m.workspace > 0.0) ev.push_back({tt.end, 0.0, -m.workspace});
  }
  for (size_t w = 0; w < workers; ++w) {
    WorkerMemory& wm = out[w];
    auto& ev = events[w];
    sort_events(ev);
    const double base = wm.static_memory.total();
    MemoryBreakdown now = wm.static_memory;
    wm.at_peak = now;
    wm.peak = wm.minimum = base;
    if (record_timeline) wm.timeline.push_back({0.0, base});
    for (size_t i = 0; i < ev.size(); ++i) {
      const MemoryEvent& e = ev[i];
      now.activations += e.activations;
      now.other += e.other;
      const double total = now.total();
      // Releases come first within an instant, so the instant's highest total is reached at
      // its end or before it starts: peak over every event equals peak over instants.
      if (total > wm.peak) {
        wm.peak = total;
        wm.peak_time = e.time;
        wm.at_peak = now;
      }
      if (i + 1 < ev.size() && ev[i + 1].time == e.time) continue;  // instant not over yet
      wm.minimum = std::min(wm.minimum, total);
      if (record_timeline && total != wm.timeline.back().bytes) {
        wm.timeline.push_back({e.time, total});
      }
    }
    wm.final = now.total();
  }
  return out;
}

std::vector<WorkerMemory> track_memory_untimed(const Schedule& schedule, const TaskGraph& graph,
                                               const std::vector<StageMemory>& stages) {
  // Op k of a worker spans [k, k + 1]: each op ends as the next starts, as in a run without
  // gaps; a gap would change no peak, since an op's end events are all releases.
  Trace trace;
  trace.completed = true;
  trace.timing.resize(graph.num_tasks());
  std::vector<double> next(static_cast<size_t>(schedule.workers), 0.0);
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    const Task& task = graph.task(t);
    PIPESIM_ASSERT(task.kind != OpKind::Offload && task.kind != OpKind::Reload,
                   "offload copies take the replay's times");
    if (!is_compute(task.kind)) continue;
    double& k = next[static_cast<size_t>(task.worker)];
    trace.timing[t] = {k, k + 1.0};
    k += 1.0;
  }
  return track_memory(schedule, graph, trace, stages);
}

}  // namespace pipesim::sim
