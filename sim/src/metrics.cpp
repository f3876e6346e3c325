#include "pipesim/sim/metrics.hpp"

#include <algorithm>
#include <limits>

#include "pipesim/core/assert.hpp"

namespace pipesim::sim {
namespace {

// Activation sets held by one worker. Its compute ops run one at a time in program order, so
// visiting them in that order sees allocations (F starts) and releases (B or W ends) in time
// order, releases first at equal times: a running count gives the peak without sorting.
struct ActivationCounter {
  int held = 0;
  int peak = 0;
  void add(int delta) {
    held += delta;
    peak = std::max(peak, held);
  }
};

}  // namespace

Metrics compute_metrics(const Schedule& schedule, const TaskGraph& graph, const Trace& trace) {
  PIPESIM_ASSERT(trace.completed, "metrics of an incomplete run");
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const auto workers = static_cast<size_t>(graph.workers());
  Metrics m;
  m.workers.resize(workers);
  std::vector<ActivationCounter> activations(workers);
  const OpKind release = schedule.split_backward ? OpKind::BackwardWeight : OpKind::Backward;
  for (size_t w = 0; w < workers; ++w) {
    m.workers[w].worker = static_cast<int>(w);
    m.workers[w].first_start = kInf;
    m.workers[w].last_end = -kInf;
  }
  const int iterations = std::max(1, schedule.iterations);
  const int per_iteration = schedule.micro_batches;
  m.iteration_completion.assign(static_cast<size_t>(iterations), 0.0);
  double first = kInf, last = -kInf;
  // The kinds first: the records of the other tasks (half of them transfers) are not read.
  const auto kinds = graph.kinds();
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    const TaskTiming& tt = trace.timing[t];
    first = std::min(first, tt.start);
    last = std::max(last, tt.end);
    if (!is_compute(kinds[t])) continue;
    const Task& task = graph.task(t);
    WorkerMetrics& wm = m.workers[static_cast<size_t>(task.worker)];
    // Lowering numbers each worker's compute ops in program order, and its stream runs them in
    // that order: ActivationCounter relies on it.
    PIPESIM_ASSERT(wm.last_end <= tt.start, "compute ops not visited in execution order");
    wm.busy += tt.end - tt.start;
    wm.first_start = std::min(wm.first_start, tt.start);
    wm.last_end = std::max(wm.last_end, tt.end);
    auto& counter = activations[static_cast<size_t>(task.worker)];
    if (task.kind == OpKind::Forward) counter.add(+1);
    if (task.kind != release) continue;
    counter.add(-1);
    if (per_iteration > 0) {
      const auto i =
          static_cast<size_t>(std::min(task.micro_batch / per_iteration, iterations - 1));
      m.iteration_completion[i] = std::max(m.iteration_completion[i], tt.end);
    }
  }
  double compute_first = kInf, compute_last = -kInf, busy = 0.0;
  for (size_t w = 0; w < workers; ++w) {
    WorkerMetrics& wm = m.workers[w];
    wm.peak_activations = activations[w].peak;
    if (wm.last_end < wm.first_start) {  // a worker with no compute op
      wm.first_start = wm.last_end = 0.0;
      continue;
    }
    compute_first = std::min(compute_first, wm.first_start);
    compute_last = std::max(compute_last, wm.last_end);
    busy += wm.busy;
  }
  m.iteration_time = graph.num_tasks() == 0 ? 0.0 : last - first;
  m.total_time = m.iteration_time;
  m.span = compute_last > compute_first ? compute_last - compute_first : 0.0;
  m.bubble_ratio = m.span > 0.0 ? 1.0 - busy / (static_cast<double>(workers) * m.span) : 0.0;

  if (schedule.asynchronous && iterations >= 2 && schedule.drains_each_run) {
    // The whole run (fill, the listed updates, drain) is the period that repeats; the bubble
    // ratio above already covers it.
    m.iteration_time = m.total_time / iterations;
  } else if (schedule.asynchronous && iterations >= 2) {
    const auto& c = m.iteration_completion;
    const int last_middle = iterations >= 3 ? iterations - 2 : 1;
    m.iteration_time = (c[static_cast<size_t>(last_middle)] - c[0]) / last_middle;
    m.bubble_ratio =
        m.iteration_time > 0.0
            ? 1.0 - busy / iterations / (static_cast<double>(workers) * m.iteration_time)
            : 0.0;
  }
  return m;
}

}  // namespace pipesim::sim
