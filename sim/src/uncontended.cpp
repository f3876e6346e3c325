#include "uncontended.hpp"

#include <algorithm>
#include <limits>
#include <span>
#include <tuple>

#include "pipesim/core/assert.hpp"
#include "pipesim/core/huge_pages.hpp"
#include "ring_queue.hpp"
#include "task_kinds.hpp"

namespace pipesim::sim::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One pass over the tasks' kinds: which kinds occur (bit k for OpKind k), and whether an
// optimizer step gates a compute op: then it runs between compute ops (an asynchronous
// schedule's), so its stream is contended. (A serialised collective gates the op after its
// own, on a stream its op hands to it.)
struct KindScan {
  unsigned present = 0;
  bool optimizer_gates_compute = false;
};

KindScan scan_kinds(const TaskGraph& graph) {
  const auto offset = graph.successor_offsets();
  const auto succ = graph.successors();
  const auto kinds = graph.kinds();
  KindScan scan;
  for (TaskId v = 0; v < kinds.size(); ++v) {
    scan.present |= 1u << static_cast<unsigned>(kinds[v]);
    if (kinds[v] != OpKind::Optimizer) continue;
    for (TaskId i = offset[v]; i < offset[v + 1]; ++i) {
      if (is_compute(kinds[succ[i]])) scan.optimizer_gates_compute = true;
    }
  }
  return scan;
}

// A trace of every task with start 0 and end its duration (0 for communication when `network`,
// whose time comes from its flow), written in one pass (not zeroed first). A model whose
// durations go by kind alone (unit cost) is read from its table, not asked task by task.
// (Looking the table up as each task runs instead was measured slower: this pass streams, the
// longest-path pass waits on every load it adds.)
void load_durations(const TaskGraph& graph, const CostModel& costs, bool network,
                    const KindScan& scan, std::vector<TaskTiming>& timing) {
  const auto kinds = graph.kinds();
  timing.clear();
  core::reserve_huge(timing, kinds.size());
  if (const auto* by_kind = costs.durations_by_kind(); by_kind && !network) {
    for (size_t k = 0; k < by_kind->size(); ++k) {
      PIPESIM_ASSERT(!(scan.present >> k & 1u) || (*by_kind)[k] >= 0.0,
                     "cost model returned a negative duration");
    }
    for (const OpKind kind : kinds)
      timing.push_back({0.0, (*by_kind)[static_cast<size_t>(kind)]});
    return;
  }
  for (TaskId v = 0; v < kinds.size(); ++v) {
    double d = 0.0;
    if (!network || !is_comm(kinds[v])) {
      d = costs.duration(graph, v);
      PIPESIM_ASSERT(d >= 0.0, "cost model returned a negative duration");
    }
    timing.push_back({0.0, d});
  }
}

// The longest-path recurrence in topological order. Until v runs, timing[v].start is the latest
// end of its finished predecessors and timing[v].end what end_of(v, start) reads; then they
// are v's start and end. False when some task never becomes ready (a cycle).
template <class EndOf>
bool longest_paths(const TaskGraph& graph, std::vector<TaskTiming>& timing, const EndOf& end_of) {
  const size_t n = graph.num_tasks();
  const auto offset = graph.successor_offsets();
  const auto succ = graph.successors();
  std::vector<TaskId> waiting(n, 0);
  for (TaskId target : succ)
    ++waiting[target];
  // Any topological order gives the same bits (a maximum does not depend on the order of its
  // terms). This one follows chains: a task's first successor that becomes ready runs next,
  // the others queue. The first successor of a compute op is the worker's next op, whose
  // records are adjacent to its own, so most steps touch memory just touched.
  RingQueue<TaskId> ready;
  for (TaskId v = 0; v < n; ++v) {
    if (waiting[v] == 0) ready.push(v);
  }
  constexpr TaskId kNoTask = std::numeric_limits<TaskId>::max();
  size_t done = 0;
  for (TaskId next = kNoTask; next != kNoTask || !ready.empty(); ++done) {
    const TaskId v = next != kNoTask ? next : ready.pop();
    next = kNoTask;
    const double end = end_of(v, timing[v].start);
    timing[v].end = end;
    for (TaskId i = offset[v]; i < offset[v + 1]; ++i) {
      const TaskId s = succ[i];
      timing[s].start = std::max(timing[s].start, end);
      if (--waiting[s] != 0) continue;
      if (next == kNoTask) {
        next = s;
      } else {
        ready.push(s);
      }
    }
  }
  return done == n;
}

// Each stream's tasks, in id order, one after the other: then none waited for its stream. A
// serialised collective sits right after its op (the op hands it the stream; it is numbered
// later). `per_worker`, when given, gets each worker's stream tasks but those collectives in
// that (time) order. (Two instantiations: graphs without serialised collectives pay nothing
// for them.)
template <bool kSerialCollectives>
bool streams_in_order(const TaskGraph& graph, const std::vector<TaskTiming>& timing,
                      std::vector<std::vector<TaskId>>* per_worker) {
  std::vector<double> free_at(static_cast<size_t>(graph.workers()), -kInf);
  if (per_worker) per_worker->assign(free_at.size(), {});
  const std::span<const Task> tasks = graph.tasks();  // not reloaded after each store below
  const auto kinds = graph.kinds();                   // read first: most tasks are skipped
  for (TaskId v = 0; v < tasks.size(); ++v) {
    if (!is_compute(kinds[v]) && kinds[v] != OpKind::Optimizer) continue;
    double& free = free_at[static_cast<size_t>(tasks[v].worker)];
    if (timing[v].start < free) return false;
    free = timing[v].end;
    if (per_worker) (*per_worker)[static_cast<size_t>(tasks[v].worker)].push_back(v);
    if (kSerialCollectives && graph.hands_stream_over(v)) {
      const TaskId c = graph.successors()[graph.successor_offsets()[v]];
      if (timing[c].start < free) return false;
      free = timing[c].end;
    }
  }
  return true;
}

bool streams_in_order(const TaskGraph& graph, const std::vector<TaskTiming>& timing,
                      std::vector<std::vector<TaskId>>* per_worker) {
  if (serial_collectives(graph)) return streams_in_order<true>(graph, timing, per_worker);
  return streams_in_order<false>(graph, timing, per_worker);
}

// When data moves: from the end of its latency to its end.
struct Moving {
  double from, to;
};

// A flow on one resource: until when it moves data, and its share of the resource.
struct Load {
  double to, share;
};

// The first instant at which flows could need more than a resource's capacity: before it, every
// flow runs at full speed, as the event loop's reallocation finds (over closed intervals, so that
// flows that meet at an instant count as together; in its arithmetic: sums of two are exact,
// beyond, a margin covers the order of summation). +inf when never. Each record's flows, in
// time order, make one sorted run; a resource's flows are a merge of its records' runs.
double first_overload(const TaskGraph& graph, const FlowTable& flows,
                      const std::vector<TaskTiming>& timing) {
  const size_t records = flows.num_flows();
  const auto moves_data = [&](std::uint32_t f) {
    return f != FlowTable::kNone && flows.shape(f).work > 0.0;
  };
  // Where each record's flows move data, by task id: one pass over the trace, in its order
  // (the merges below then read these runs, not the trace).
  std::vector<std::uint32_t> first(records + 1, 0);
  for (TaskId v = 0; v < graph.num_tasks(); ++v) {
    if (const std::uint32_t f = flows.flow_of(v); moves_data(f)) ++first[f + 1];
  }
  for (size_t f = 1; f <= records; ++f)
    first[f] += first[f - 1];
  std::vector<Moving> moving(first[records]);
  {
    std::vector<std::uint32_t> next(first.begin(), first.end() - 1);
    for (TaskId v = 0; v < graph.num_tasks(); ++v) {
      const std::uint32_t f = flows.flow_of(v);
      if (!moves_data(f)) continue;
      moving[next[f]++] = Moving{timing[v].start + flows.shape(f).latency, timing[v].end};
    }
  }
  // Each record's flows in time order (mostly they come so: one record is one pair of workers,
  // and a worker's ops run in program order), and the records using each resource.
  std::vector<std::vector<std::pair<std::uint32_t, double>>> users(
      static_cast<size_t>(flows.num_resources()));
  const auto earlier = [](const Moving& a, const Moving& b) { return a.from < b.from; };
  for (std::uint32_t f = 0; f < records; ++f) {
    const auto begin = moving.begin() + first[f], end = moving.begin() + first[f + 1];
    if (begin == end) continue;
    if (!std::is_sorted(begin, end, earlier)) std::sort(begin, end, earlier);
    for (const ResourceUse& u : flows.uses(f))
      users[static_cast<size_t>(u.resource)].emplace_back(f, u.share);
  }
  // Per resource, its flows by start, and the load at each start from the flows still moving.
  // A few records (the usual: the pairs of workers on a link) are merged by scanning their
  // heads; many (a model without flow keys: one record per flow) are sorted.
  constexpr size_t kMergeAtMost = 8;
  std::vector<std::uint32_t> at, end;  // merge: each record's next flow and the end of its run
  std::vector<std::pair<Moving, double>> sorted;
  std::vector<Load> together;
  double overload = kInf;
  // The next flow on the resource and its share, or false when none is left (ties: the first
  // record listed).
  const auto take = [&](const auto& list, Moving& m, double& share) {
    size_t best = list.size();
    double from = kInf;
    for (size_t u = 0; u < list.size(); ++u) {
      if (at[u] == end[u]) continue;
      if (best == list.size() || moving[at[u]].from < from) {
        best = u;
        from = moving[at[u]].from;
      }
    }
    if (best == list.size()) return false;
    m = moving[at[best]++];
    share = list[best].second;
    return true;
  };
  for (const auto& list : users) {
    const bool merge = list.size() <= kMergeAtMost;
    if (merge) {
      at.clear();
      end.clear();
      for (const auto& [f, share] : list) {
        at.push_back(first[f]);
        end.push_back(first[f + 1]);
      }
    } else {
      sorted.clear();
      for (const auto& [f, share] : list) {
        for (std::uint32_t i = first[f]; i < first[f + 1]; ++i)
          sorted.emplace_back(moving[i], share);
      }
      std::sort(sorted.begin(), sorted.end(),
                [](const auto& a, const auto& b) { return a.first.from < b.first.from; });
    }
    together.clear();
    size_t next = 0;
    Moving m{};
    double share = 0.0;
    while (merge ? take(list, m, share) : next < sorted.size()) {
      if (!merge) std::tie(m, share) = sorted[next++];
      if (!(m.from < overload)) break;  // later than a known overload: cannot be the first
      // Drop the flows that ended before this one starts and add up the others' load, in
      // the order they came.
      size_t kept = 0;
      double load = 0.0;
      for (const Load& o : together) {
        if (o.to < m.from) continue;
        together[kept++] = o;
        load += o.share;
      }
      together.resize(kept);
      together.push_back({m.to, share});
      load += share;
      const double capacity = together.size() <= 2 ? 1.0 : 1.0 - 1e-9;
      if (!(load <= capacity)) overload = m.from;  // this resource's first; later ones cannot win
    }
  }
  return overload;
}

// With interference, a compute task slows down while a collective runs on its worker: no
// stream task of a holder may meet an all-reduce (closed intervals).
bool collectives_alone(const TaskGraph& graph, const std::vector<TaskTiming>& timing,
                       const std::vector<std::vector<TaskId>>& per_worker) {
  for (TaskId a = 0; a < graph.num_tasks(); ++a) {
    const Task& t = graph.task(a);
    if (t.kind != OpKind::AllReduce) continue;
    for (int w : graph.group_workers()[static_cast<size_t>(t.group)]) {
      const auto& on = per_worker[static_cast<size_t>(w)];
      // The first stream task of w that has not ended before the all-reduce starts.
      const auto it = std::partition_point(
          on.begin(), on.end(), [&](TaskId v) { return timing[v].end < timing[a].start; });
      if (it != on.end() && timing[*it].start <= timing[a].end) return false;
    }
  }
  return true;
}

}  // namespace

std::optional<Trace> replay_uncontended(const TaskGraph& graph, const CostModel& costs) {
  const KindScan scan = scan_kinds(graph);
  if (scan.optimizer_gates_compute) return std::nullopt;
  Trace trace;
  std::vector<TaskTiming>& timing = trace.timing;
  load_durations(graph, costs, false, scan, timing);
  const auto end_of = [&](TaskId v, double start) { return start + timing[v].end; };
  if (!longest_paths(graph, timing, end_of)) return std::nullopt;  // the event loop names it
  if (!streams_in_order(graph, timing, nullptr)) return std::nullopt;
  trace.completed = true;
  return trace;
}

std::optional<NetworkPrefix> replay_network_prefix(const TaskGraph& graph, const CostModel& compute,
                                                   const FlowTable& flows,
                                                   const EngineOptions& options) {
  // Blocking sends hold the sender's stream; a flushed sync waits for more than its
  // predecessors: both are the event loop's.
  // Start releases (bucketed gradient sync) too.
  if (!options.overlap_p2p || options.grad_sync != GradSync::Eager || !graph.releases().empty())
    return std::nullopt;
  const KindScan scan = scan_kinds(graph);
  if (scan.optimizer_gates_compute) return std::nullopt;
  NetworkPrefix prefix;
  Trace& trace = prefix.trace;
  std::vector<TaskTiming>& timing = trace.timing;
  load_durations(graph, compute, true, scan, timing);
  // The event loop's arithmetic at full speed: compute ends at start + d / 1; a flow's data
  // starts moving after its latency and ends work / 1 later.
  const auto end_of = [&](TaskId v, double start) {
    const std::uint32_t f = flows.flow_of(v);
    if (f == FlowTable::kNone) return start + timing[v].end;
    const FlowShape& s = flows.shape(f);
    return (start + s.latency) + s.work;
  };
  if (!longest_paths(graph, timing, end_of)) return std::nullopt;
  std::vector<std::vector<TaskId>> per_worker;
  const bool interference = options.interference > 0.0;
  if (!streams_in_order(graph, timing, interference ? &per_worker : nullptr)) return std::nullopt;
  if (interference && !collectives_alone(graph, timing, per_worker)) return std::nullopt;
  prefix.cut = first_overload(graph, flows, timing);
  if (!(prefix.cut > 0.0)) return std::nullopt;  // nothing known to be the event loop's
  trace.completed = prefix.cut == kInf;
  return prefix;
}

}  // namespace pipesim::sim::detail
