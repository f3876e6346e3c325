#include "pipesim/sim/memory.hpp"

#include <algorithm>
#include <array>
#include <utility>

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

// Every (pipeline, stage) copy a worker holds, its weights in as many versions as the
// schedule keeps (weight stashing, double buffering).
std::vector<WorkerMemory> static_memory(const Schedule& schedule,
                                        const std::vector<StageMemory>& stages) {
  PIPESIM_ASSERT(static_cast<int>(stages.size()) == schedule.virtual_stages, "one entry per stage");
  std::vector<WorkerMemory> out(static_cast<size_t>(schedule.workers));
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
  return out;
}

// What a compute op of kind `kind` on a stage with memory `m` allocates when it starts
// (`at_end` false), or frees when it ends (true), each event passed to `add`.
template <class Add>
void op_events(const Schedule& schedule, OpKind kind, const StageMemory& m, bool at_end,
               double time, const Add& add) {
  const OpKind release = schedule.split_backward ? OpKind::BackwardWeight : OpKind::Backward;
  const OpKind backward = schedule.split_backward ? OpKind::BackwardInput : OpKind::Backward;
  if (!at_end) {
    const bool recomputes = m.recompute > 0.0 && (kind == OpKind::Recompute ||
                                                  (kind == backward && !schedule.recompute));
    if (kind == OpKind::Forward) add(MemoryEvent{time, m.activations, 0.0});
    if (recomputes) add(MemoryEvent{time, m.recompute, 0.0});
    if (m.workspace > 0.0) add(MemoryEvent{time, 0.0, m.workspace});
    return;
  }
  if (kind == release) add(MemoryEvent{time, -m.activations, 0.0});
  if (m.recompute > 0.0 && kind == backward) add(MemoryEvent{time, -m.recompute, 0.0});
  if (m.workspace > 0.0) add(MemoryEvent{time, 0.0, -m.workspace});
}

// One worker's memory as its events come, in time order: peak (with the breakdown at it),
// minimum over instants, final value, and optionally the timeline.
struct MemoryState {
  WorkerMemory& wm;
  bool record_timeline;
  MemoryBreakdown now;

  MemoryState(WorkerMemory& memory, bool timeline)
      : wm(memory), record_timeline(timeline), now(memory.static_memory) {
    const double base = wm.static_memory.total();
    wm.at_peak = now;
    wm.peak = wm.minimum = base;
    if (record_timeline) wm.timeline.push_back({0.0, base});
  }
  // Releases come first within an instant, so the instant's highest total is reached at its
  // end or before it starts: peak over every event equals peak over instants.
  void apply(const MemoryEvent& e) {
    now.activations += e.activations;
    now.other += e.other;
    const double total = now.total();
    if (total > wm.peak) {
      wm.peak = total;
      wm.peak_time = e.time;
      wm.at_peak = now;
    }
  }
  void end_instant(double time) {
    const double total = now.total();
    wm.minimum = std::min(wm.minimum, total);
    if (record_timeline && total != wm.timeline.back().bytes) wm.timeline.push_back({time, total});
  }
  void finish() { wm.final = now.total(); }
};

// Each worker's peak, minimum, final value and (optionally) timeline from its events.
void accumulate(std::vector<WorkerMemory>& out, std::vector<std::vector<MemoryEvent>>& events,
                bool record_timeline) {
  for (size_t w = 0; w < out.size(); ++w) {
    auto& ev = events[w];
    sort_events(ev);
    MemoryState state(out[w], record_timeline);
    for (size_t i = 0; i < ev.size(); ++i) {
      state.apply(ev[i]);
      if (i + 1 < ev.size() && ev[i + 1].time == ev[i].time) continue;  // instant not over yet
      state.end_instant(ev[i].time);
    }
    state.finish();
  }
}

}  // namespace

std::vector<WorkerMemory> track_memory(const Schedule& schedule, const TaskGraph& graph,
                                       const Trace& trace, const std::vector<StageMemory>& stages,
                                       bool record_timeline) {
  PIPESIM_ASSERT(trace.completed, "memory of an incomplete run");
  std::vector<WorkerMemory> out = static_memory(schedule, stages);
  std::vector<std::vector<MemoryEvent>> events(out.size());
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
    const auto add = [&ev](const MemoryEvent& e) { ev.push_back(e); };
    op_events(schedule, task.kind, m, false, tt.start, add);
    op_events(schedule, task.kind, m, true, tt.end, add);
  }
  accumulate(out, events, record_timeline);
  return out;
}

std::vector<WorkerMemory> track_memory_untimed(const Schedule& schedule,
                                               const std::vector<StageMemory>& stages) {
  // Op k of a worker spans [k, k + 1]: each op ends as the next starts, as in a run without
  // gaps; a gap would change no peak, since an op's end events are all releases. So instant k
  // holds op k - 1's releases and op k's allocations, sorted as track_memory sorts an instant.
  std::vector<WorkerMemory> out = static_memory(schedule, stages);
  for (size_t w = 0; w < schedule.program.size() && w < out.size(); ++w) {
    MemoryState state(out[w], false);
    std::array<MemoryEvent, 6> instant{};  // at most three ends and three starts
    size_t count = 0;
    const auto add = [&](const MemoryEvent& e) { instant[count++] = e; };
    const auto close = [&](double time) {
      // Insertion sort: at most six events (events equal under < change no sum).
      for (size_t i = 1; i < count; ++i) {
        for (size_t j = i; j > 0 && instant[j] < instant[j - 1]; --j)
          std::swap(instant[j], instant[j - 1]);
      }
      for (size_t i = 0; i < count; ++i)
        state.apply(instant[i]);
      if (count > 0) state.end_instant(time);
      count = 0;
    };
    const std::vector<Op>& program = schedule.program[w];
    for (size_t k = 0; k <= program.size(); ++k) {
      const auto time = static_cast<double>(k);
      if (k > 0) {
        const Op& previous = program[k - 1];
        op_events(schedule, previous.kind, stages[static_cast<size_t>(previous.stage)], true, time,
                  add);
      }
      if (k < program.size()) {
        op_events(schedule, program[k].kind, stages[static_cast<size_t>(program[k].stage)], false,
                  time, add);
      }
      close(time);
    }
    state.finish();
  }
  return out;
}

}  // namespace pipesim::sim
