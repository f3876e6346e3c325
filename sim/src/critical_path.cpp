#include "pipesim/sim/critical_path.hpp"

#include <algorithm>
#include <boost/graph/topological_sort.hpp>
#include <iterator>
#include <numeric>
#include <tuple>
#include <utility>

#include "bgl_view.hpp"
#include "pipesim/core/assert.hpp"

namespace pipesim::sim {
namespace {

using detail::kNoTask;

// The walk's preference among predecessors that ended at one instant (lower first).
int preference(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::ProgramOrder:
      return 0;
    case EdgeKind::Data:
      return 1;
    case EdgeKind::Sync:
      return 2;
  }
  return 3;
}

Release release_of(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::Data:
      return Release::Data;
    case EdgeKind::ProgramOrder:
      return Release::ProgramOrder;
    case EdgeKind::Sync:
      return Release::Sync;
  }
  return Release::Data;
}

// Per task, the DAG predecessor that ended last (ties: preference(), then the lowest id), and
// the kind of the edge from it; kNoTask for a task without predecessors.
struct Releasers {
  std::vector<TaskId> task;
  std::vector<EdgeKind> kind;
};

Releasers last_predecessors(const TaskGraph& graph, const Trace& trace) {
  const auto offset = graph.successor_offsets();
  const auto succ = graph.successors();
  const auto kinds = graph.edge_kinds();
  Releasers r{std::vector<TaskId>(graph.num_tasks(), kNoTask),
              std::vector<EdgeKind>(graph.num_tasks(), EdgeKind::Data)};
  for (TaskId u = 0; u < graph.num_tasks(); ++u) {
    for (TaskId i = offset[u]; i < offset[u + 1]; ++i) {
      const TaskId v = succ[i];
      const EdgeKind k = kinds[i].kind;
      const TaskId best = r.task[v];
      // Sources are visited in id order: an equal (end, preference) keeps the lower id.
      if (best == kNoTask || trace.timing[u].end > trace.timing[best].end ||
          (trace.timing[u].end == trace.timing[best].end &&
           preference(k) < preference(r.kind[v]))) {
        r.task[v] = u;
        r.kind[v] = k;
      }
    }
  }
  return r;
}

// Per task, the next task on its stream (kNoTask for the last, and for tasks holding none),
// streams ordered by (start, end, rank): tasks that start and end at one instant (zero
// durations) are taken in topological order, so these edges add no cycle to the DAG.
std::vector<TaskId> stream_successors(const TaskGraph& graph, const Trace& trace, StreamRule rule,
                                      const std::vector<TaskId>& rank) {
  std::vector<std::vector<TaskId>> streams(static_cast<size_t>(graph.workers()));
  for (TaskId v = 0; v < graph.num_tasks(); ++v) {
    const Task& t = graph.task(v);
    if (holds_stream(t.kind, rule)) streams[static_cast<size_t>(t.worker)].push_back(v);
  }
  std::vector<TaskId> next(graph.num_tasks(), kNoTask);
  for (std::vector<TaskId>& stream : streams) {
    std::sort(stream.begin(), stream.end(), [&](TaskId a, TaskId b) {
      return std::tie(trace.timing[a].start, trace.timing[a].end, rank[a]) <
             std::tie(trace.timing[b].start, trace.timing[b].end, rank[b]);
    });
    for (size_t i = 1; i < stream.size(); ++i)
      next[stream[i - 1]] = stream[i];
  }
  return next;
}

// Every task, each after all its successors: Boost.Graph's topological_sort writes them in
// this reverse topological order.
std::vector<TaskId> reverse_topological_order(const detail::OrderView& view) {
  std::vector<TaskId> order;
  order.reserve(boost::num_vertices(view));
  boost::topological_sort(view, std::back_inserter(order));  // throws not_a_dag on a cycle
  return order;
}

// A task held back past its predecessors and its stream (real-cost mode: a flushed gradient
// sync waits for every compute op of its holders) was released by a task that ended when it
// started. For the slack, each task that ended at that instant, having started before it, is
// taken to have released it (an edge u → t): delaying u would have delayed t. Such an edge
// always goes to a later start, so it adds no cycle.
void add_hold_releases(const Trace& trace, const Releasers& releasers,
                       const std::vector<TaskId>& stream_prev, double run_start,
                       std::vector<std::pair<TaskId, TaskId>>& extra) {
  const std::vector<TaskTiming>& timing = trace.timing;
  std::vector<TaskId> held;
  for (TaskId t = 0; t < timing.size(); ++t) {
    double released = run_start;
    if (releasers.task[t] != kNoTask) released = timing[releasers.task[t]].end;
    if (stream_prev[t] != kNoTask) released = std::max(released, timing[stream_prev[t]].end);
    if (timing[t].start > released) held.push_back(t);
  }
  if (held.empty()) return;
  std::vector<TaskId> by_end(timing.size());
  std::iota(by_end.begin(), by_end.end(), TaskId{0});
  std::sort(by_end.begin(), by_end.end(), [&](TaskId a, TaskId b) {
    return std::tie(timing[a].end, a) < std::tie(timing[b].end, b);
  });
  for (TaskId t : held) {
    const double at = timing[t].start;
    auto u = std::lower_bound(by_end.begin(), by_end.end(), at,
                              [&](TaskId v, double x) { return timing[v].end < x; });
    for (; u != by_end.end() && timing[*u].end == at; ++u) {
      if (timing[*u].start < at) extra.emplace_back(*u, t);
    }
  }
}

bool computes(OpKind kind) {
  return is_compute(kind) || kind == OpKind::Optimizer;
}

}  // namespace

bool holds_stream(OpKind kind, StreamRule rule) {
  return computes(kind) || (rule.transfers_hold_stream && kind == OpKind::Transfer);
}

std::string_view release_name(Release release) {
  switch (release) {
    case Release::RunStart:
      return "start";
    case Release::Data:
      return "data";
    case Release::ProgramOrder:
      return "program_order";
    case Release::Sync:
      return "sync";
    case Release::Stream:
      return "stream";
  }
  return "?";
}

CriticalPath critical_path(const TaskGraph& graph, const Trace& trace, StreamRule rule) {
  const size_t n = graph.num_tasks();
  PIPESIM_ASSERT(trace.completed && trace.timing.size() == n,
                 "critical path of an incomplete replay");
  CriticalPath path;
  if (n == 0) return path;
  const std::vector<TaskTiming>& timing = trace.timing;
  path.run_start = timing[0].start;
  path.run_end = timing[0].end;
  for (const TaskTiming& t : timing) {
    path.run_start = std::min(path.run_start, t.start);
    path.run_end = std::max(path.run_end, t.end);
  }

  std::vector<TaskId> rank(n);  // position in a topological order of the DAG
  std::vector<TaskId> order = reverse_topological_order(detail::order_view(graph, {}));
  for (size_t i = 0; i < n; ++i)
    rank[order[i]] = static_cast<TaskId>(n - 1 - i);
  const std::vector<TaskId> stream_next = stream_successors(graph, trace, rule, rank);
  std::vector<TaskId> stream_prev(n, kNoTask);
  std::vector<std::pair<TaskId, TaskId>> extra;  // the replay's order beyond the DAG
  for (TaskId v = 0; v < n; ++v) {
    if (stream_next[v] == kNoTask) continue;
    stream_prev[stream_next[v]] = v;
    extra.emplace_back(v, stream_next[v]);
  }
  const Releasers releasers = last_predecessors(graph, trace);
  add_hold_releases(trace, releasers, stream_prev, path.run_start, extra);

  // Backward pass over the replay's order, every task after its successors: the latest end
  // that keeps each successor within its own slack, minus the actual end.
  const detail::OrderView replay = detail::order_view(graph, extra);
  order = reverse_topological_order(replay);
  path.slack.assign(n, 0.0);
  for (TaskId v : order) {
    double latest_end = path.run_end;
    for (auto [e, last] = boost::out_edges(v, replay); e != last; ++e) {
      const TaskId s = boost::target(*e, replay);
      latest_end = std::min(latest_end, timing[s].start + path.slack[s]);
    }
    path.slack[v] = latest_end - timing[v].end;
  }

  // The walk back, from the last task to end (of those ending last, one no other one follows:
  // the first in `order`).
  TaskId t = *std::find_if(order.begin(), order.end(),
                           [&](TaskId v) { return timing[v].end == path.run_end; });
  while (t != kNoTask) {
    CriticalStep step;
    step.task = t;
    step.start = timing[t].start;
    step.end = timing[t].end;
    step.slack = path.slack[t];
    TaskId previous = releasers.task[t];
    step.ready = previous == kNoTask ? path.run_start : timing[previous].end;
    step.via = previous == kNoTask ? Release::RunStart : release_of(releasers.kind[t]);
    if (const TaskId holder = stream_prev[t];
        holder != kNoTask && (previous == kNoTask || timing[holder].end > step.ready)) {
      previous = holder;
      step.via = Release::Stream;
    }
    step.wait = step.start - (previous == kNoTask ? path.run_start : timing[previous].end);
    PIPESIM_ASSERT(step.wait >= 0.0, "a task started before what released it ended");
    (computes(graph.task(t).kind) ? path.compute : path.communication) += step.duration();
    path.waiting += step.wait;
    path.steps.push_back(step);
    t = previous;
  }
  std::reverse(path.steps.begin(), path.steps.end());
  return path;
}

}  // namespace pipesim::sim
