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

}  // namespace

std::vector<WorkerMemory> track_memory(const Schedule& schedule, const TaskGraph& graph,
                                       const Trace& trace, const std::vector<StageMemory>& stages,
                                       bool record_timeline) {
  PIPESIM_ASSERT(trace.completed, "memory of an incomplete run");
  PIPESIM_ASSERT(static_cast<int>(stages.size()) == schedule.stages, "one entry per stage");
  const auto workers = static_cast<size_t>(schedule.workers);
  std::vector<WorkerMemory> out(workers);

  // Static: every (pipeline, stage) copy a worker holds, its weights in as many versions as the
  // schedule keeps (weight stashing, double buffering).
  for (int p = 0; p < schedule.pipelines; ++p) {
    for (int s = 0; s < schedule.stages; ++s) {
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
    if (!is_compute(task.kind)) continue;
    const StageMemory& m = stages[static_cast<size_t>(task.stage)];
    auto& ev = events[static_cast<size_t>(task.worker)];
    const TaskTiming& tt = trace.timing[t];
    if (task.kind == OpKind::Forward) ev.push_back({tt.start, m.activations, 0.0});
    if (task.kind == release) ev.push_back({tt.end, -m.activations, 0.0});
    if (m.recompute > 0.0) {
      if (task.kind == OpKind::Recompute || (task.kind == backward && !schedule.recompute)) {
        ev.push_back({tt.start, m.recompute, 0.0});
      }
      if (task.kind == backward) ev.push_back({tt.end, -m.recompute, 0.0});
    }
    if (m.workspace > 0.0) {
      ev.push_back({tt.start, 0.0, m.workspace});
      ev.push_back({tt.end, 0.0, -m.workspace});
    }
  }
  for (size_t w = 0; w < workers; ++w) {
    WorkerMemory& wm = out[w];
    auto& ev = events[w];
    std::sort(ev.begin(), ev.end());
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

}  // namespace pipesim::sim
