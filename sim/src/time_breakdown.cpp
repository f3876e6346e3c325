#include "pipesim/sim/time_breakdown.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "pipesim/core/intervals.hpp"

namespace pipesim::sim {
namespace {

using core::Intervals;
using core::measure;
using core::merged;
using core::overlap;

// A worker's communication intervals, kept in runs that each come in time order or nearly
// (a transfer pair's messages in micro-batch order; the syncs): merging the runs gives the
// sorted list that one sort of everything would, in less time.
class Runs {
 public:
  void add(std::uint64_t run, const std::pair<double, double>& span) {
    for (auto& [key, spans] : runs_) {
      if (key == run) {
        spans.push_back(span);
        return;
      }
    }
    runs_.push_back({run, {span}});
  }
  //! Every interval, sorted.
  Intervals sorted() && {
    Intervals out;
    for (auto& [key, spans] : runs_) {
      if (!std::is_sorted(spans.begin(), spans.end())) std::sort(spans.begin(), spans.end());
      Intervals both(out.size() + spans.size());
      std::merge(out.begin(), out.end(), spans.begin(), spans.end(), both.begin());
      out = std::move(both);
    }
    return out;
  }

 private:
  std::vector<std::pair<std::uint64_t, Intervals>> runs_;
};

}  // namespace

std::vector<WorkerTime> time_breakdown(const TaskGraph& graph, const Trace& trace) {
  const auto workers = static_cast<size_t>(graph.workers());
  std::vector<Intervals> compute(workers);
  std::vector<Runs> comm(workers);
  // A run: messages sent to one worker, received from one, syncs, or op collectives.
  const auto run = [](std::uint64_t kind, int worker) {
    return kind << 32 | static_cast<std::uint32_t>(worker);
  };
  double first = std::numeric_limits<double>::infinity(), last = -first;
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    const Task& task = graph.task(t);
    const TaskTiming& tt = trace.timing[t];
    first = std::min(first, tt.start);
    last = std::max(last, tt.end);
    const std::pair<double, double> span{tt.start, tt.end};
    if (is_compute(task.kind) || task.kind == OpKind::Optimizer) {
      compute[static_cast<size_t>(task.worker)].push_back(span);
    } else if (task.kind == OpKind::Transfer) {
      comm[static_cast<size_t>(task.worker)].add(run(1, task.peer), span);
      comm[static_cast<size_t>(task.peer)].add(run(2, task.worker), span);
    } else if (task.kind == OpKind::AllReduce) {
      for (int w : graph.group_workers()[static_cast<size_t>(task.group)]) {
        comm[static_cast<size_t>(w)].add(run(3, 0), span);
      }
    } else if (task.kind == OpKind::Collective) {
      comm[static_cast<size_t>(task.worker)].add(run(4, 0), span);
    } else if (task.kind == OpKind::Offload || task.kind == OpKind::Reload) {
      // Host-link copies: exposed where the worker computes nothing meanwhile (a backward
      // waiting for its reload).
      comm[static_cast<size_t>(task.worker)].add(run(task.kind == OpKind::Offload ? 5 : 6, 0),
                                                 span);
    }
  }
  const double window = graph.num_tasks() == 0 ? 0.0 : last - first;
  std::vector<WorkerTime> out(workers);
  for (size_t w = 0; w < workers; ++w) {
    const Intervals busy = merged(std::move(compute[w]));
    const Intervals talk = merged(std::move(comm[w]).sorted());
    out[w].compute = measure(busy);
    out[w].exposed_communication = measure(talk) - overlap(talk, busy);
    out[w].idle = std::max(0.0, window - out[w].compute - out[w].exposed_communication);
  }
  return out;
}

}  // namespace pipesim::sim
