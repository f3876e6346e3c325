// The one event engine behind simulate() (unit-cost mode) and simulate_network() (real-cost
// mode). Both replay the task DAG the same way: a task becomes ready when its predecessors have
// finished; compute ops and the optimizer step queue FIFO on their worker's stream; events are
// ordered by (time, insertion sequence). What differs is the network model, a template
// parameter so the unit-cost loop carries none of the contention bookkeeping:
//  - ConstantNetwork (unit cost, like SimGrid's network_constant): a Transfer or AllReduce is a
//    pure delay of its CostModel duration, holding no resource;
//  - SharedNetwork (real cost): a Transfer or AllReduce is a flow (latency, then data movement
//    at a max-min fair share of the resources it uses), see network.hpp.
// A replay that ends with unfinished tasks names the cycle that blocked them (Trace::deadlock).

#include <algorithm>
#include <limits>
#include <type_traits>

#include "cycle.hpp"
#include "pipesim/core/assert.hpp"
#include "pipesim/sim/network.hpp"
#include "pipesim/sim/simulator.hpp"

namespace pipesim::sim {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr double kSaturated = 1e-12;  // residual capacity treated as zero

bool is_comm(OpKind k) {
  return k == OpKind::Transfer || k == OpKind::AllReduce;
}

// Unit cost: at most one event per task, so a 32-bit sequence suffices; 16-byte events.
struct DelayEvent {
  double time;
  std::uint32_t sequence;
  TaskId task;
};

enum class EventKind : std::uint8_t { Finish, LatencyDone };

// Real cost: a rate change supersedes a task's pending finish (older `version`).
struct FlowEvent {
  double time;
  std::uint64_t sequence;
  TaskId task;
  std::uint32_t version;
  EventKind kind;
};

// std heap algorithms build a max-heap; "greater" puts the earliest (time, sequence) on top.
struct Later {
  template <class E>
  bool operator()(const E& a, const E& b) const {
    return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
  }
};

// What the event loop reads of each task, together in one 16-byte record (one cache line
// visit per task rather than three); successors come straight from the graph's CSR arrays.
struct HotTask {
  double remaining;    // seconds of work left (unit cost: the duration)
  TaskId waiting_for;  // predecessors not yet finished
  int stream;          // compute stream (= worker) or −1 for a task that holds none
};

struct ConstantNetwork {};

// Real-cost state: flows and their rates, collectives in progress, parked all-reduces.
struct SharedNetwork {
  const NetworkModel* model = nullptr;
  EngineOptions options;
  std::vector<double> rate, updated;
  std::vector<std::uint32_t> version;
  std::vector<Flow> flows;
  std::vector<std::uint32_t> active_index;
  std::vector<TaskId> active;
  std::vector<TaskId> running;  // per stream
  std::vector<int> collectives, compute_left;
  std::vector<TaskId> parked;
  std::vector<std::uint8_t> flushed;  // per task: an all-reduce that waits for the flush
  std::vector<double> load, residual, new_rate;
  std::vector<bool> frozen;
  std::vector<size_t> touched;
};

template <class Network>
class Engine {
  static constexpr bool kShared = std::is_same_v<Network, SharedNetwork>;
  using Event = std::conditional_t<kShared, FlowEvent, DelayEvent>;

 public:
  Engine(const TaskGraph& graph, const CostModel& costs, Network network)
      : graph_(graph),
        offset_(graph.successor_offsets()),
        succ_(graph.successors()),
        hot_(graph.num_tasks()),
        busy_(static_cast<size_t>(graph.workers()), 0),
        head_(static_cast<size_t>(graph.workers()), kNone),
        tail_(static_cast<size_t>(graph.workers()), kNone),
        next_(graph.num_tasks(), kNone),
        net_(std::move(network)) {
    const size_t n = graph.num_tasks();
    if constexpr (kShared) init_network(graph, costs);
    for (TaskId v = 0; v < n; ++v) {
      const Task& t = graph.task(v);
      double d = 0.0;
      if (!kShared || !is_comm(t.kind)) {
        d = costs.duration(graph, v);
        PIPESIM_ASSERT(d >= 0.0, "cost model returned a negative duration");
      }
      hot_[v] = HotTask{d, 0, on_stream(t) ? t.worker : -1};
    }
    for (TaskId target : succ_)
      ++hot_[target].waiting_for;
    events_.reserve(n);
    trace_.timing.resize(n);
  }

  Trace run() {
    const size_t n = hot_.size();
    for (size_t t = 0; t < n; ++t) {
      if (hot_[t].waiting_for == 0) make_ready(static_cast<TaskId>(t), 0.0);
    }
    size_t finished = 0;
    while (!events_.empty()) {
      std::pop_heap(events_.begin(), events_.end(), Later{});
      const Event ev = events_.back();
      events_.pop_back();
      if constexpr (kShared) {
        if (ev.version != net_.version[ev.task]) continue;
        if (ev.kind == EventKind::LatencyDone) {
          activate(ev.task, ev.time);
          continue;
        }
      }
      finish(ev.task, ev.time);
      ++finished;
    }
    trace_.completed = finished == n;
    if (!trace_.completed) {
      std::vector<TaskId> waiting(n);
      for (size_t t = 0; t < n; ++t)
        waiting[t] = hot_[t].waiting_for;
      trace_.deadlock = detail::name_cycle(graph_, waiting);
    }
    return std::move(trace_);
  }

 private:
  bool on_stream(const Task& t) const {
    if (is_compute(t.kind) || t.kind == OpKind::Optimizer) return true;
    if constexpr (kShared) return t.kind == OpKind::Transfer && !net_.options.overlap_p2p;
    return false;
  }

  void push(TaskId t, double time, [[maybe_unused]] EventKind kind = EventKind::Finish) {
    if constexpr (kShared) {
      events_.push_back(Event{time, sequence_++, t, net_.version[t], kind});
    } else {
      events_.push_back(Event{time, static_cast<std::uint32_t>(sequence_++), t});
    }
    std::push_heap(events_.begin(), events_.end(), Later{});
  }

  void make_ready(TaskId t, double now) {
    if constexpr (kShared) {
      if (graph_.task(t).kind == OpKind::AllReduce && net_.flushed[t] && !holders_done(t)) {
        net_.parked.push_back(t);  // released when its holders' last compute op ends
        return;
      }
    }
    const int s = hot_[t].stream;
    if (s < 0 || !busy_[static_cast<size_t>(s)]) {
      start(t, now);
      return;
    }
    // Stream busy: queue behind the tasks already waiting (intrusive FIFO, no allocation).
    const auto si = static_cast<size_t>(s);
    if (tail_[si] == kNone) {
      head_[si] = t;
    } else {
      next_[tail_[si]] = t;
    }
    tail_[si] = t;
  }

  void start(TaskId t, double now) {
    const HotTask& task = hot_[t];
    if (task.stream >= 0) {
      busy_[static_cast<size_t>(task.stream)] = 1;
      if constexpr (kShared) net_.running[static_cast<size_t>(task.stream)] = t;
    }
    trace_.timing[t].start = now;
    if constexpr (kShared) {
      start_shared(t, now);
    } else {
      push(t, now + task.remaining);
    }
  }

  void finish(TaskId t, double now) {
    trace_.timing[t].end = now;
    if constexpr (kShared) finish_flows(t, now);
    const int s = hot_[t].stream;
    if (s >= 0) {
      const auto si = static_cast<size_t>(s);
      busy_[si] = 0;
      if constexpr (kShared) net_.running[si] = kNone;
      if (head_[si] != kNone) {  // the longest-waiting task takes the stream first
        const TaskId waiting = head_[si];
        head_[si] = next_[waiting];
        if (head_[si] == kNone) tail_[si] = kNone;
        start(waiting, now);
      }
    }
    if constexpr (kShared) {
      release_parked(t, now);
      // A blocking send is issued right after the op that produced its message, before the
      // worker's next op: with overlap off, transfers are made ready first.
      if (!net_.options.overlap_p2p) {
        for (TaskId i = offset_[t]; i < offset_[t + 1]; ++i) {
          const TaskId next = succ_[i];
          if (graph_.task(next).kind == OpKind::Transfer && --hot_[next].waiting_for == 0) {
            make_ready(next, now);
          }
        }
        for (TaskId i = offset_[t]; i < offset_[t + 1]; ++i) {
          const TaskId next = succ_[i];
          if (graph_.task(next).kind == OpKind::Transfer) continue;
          if (--hot_[next].waiting_for == 0) make_ready(next, now);
        }
        return;
      }
    }
    for (TaskId i = offset_[t]; i < offset_[t + 1]; ++i) {
      const TaskId next = succ_[i];
      if (--hot_[next].waiting_for == 0) make_ready(next, now);
    }
  }

  // ---- real cost only ----

  void init_network(const TaskGraph& graph, const CostModel&) {
    const size_t n = graph.num_tasks();
    if (net_.flushed.empty()) {
      net_.flushed.assign(n, net_.options.grad_sync == GradSync::Flush ? 1 : 0);
    }
    PIPESIM_ASSERT(net_.flushed.size() == n, "one flush flag per task");
    const auto workers = static_cast<size_t>(graph.workers());
    const auto resources = static_cast<size_t>(net_.model->num_resources());
    PIPESIM_ASSERT(net_.options.interference >= 0.0 && net_.options.interference < 1.0,
                   "interference outside [0, 1)");
    net_.rate.assign(n, 0.0);
    net_.updated.assign(n, 0.0);
    net_.version.assign(n, 0);
    net_.flows.assign(n, Flow{});
    net_.active_index.assign(n, kNone);
    net_.running.assign(workers, kNone);
    net_.collectives.assign(workers, 0);
    net_.compute_left.assign(workers, 0);
    net_.load.assign(resources, 0.0);
    net_.residual.assign(resources, 0.0);
    for (TaskId v = 0; v < n; ++v) {
      const Task& t = graph.task(v);
      if (is_compute(t.kind)) ++net_.compute_left[static_cast<size_t>(t.worker)];
      if (!is_comm(t.kind)) continue;
      Flow& f = net_.flows[v];
      f = net_.model->flow(graph, v);
      PIPESIM_ASSERT(f.latency >= 0.0 && f.work >= 0.0, "negative flow");
      for (const ResourceUse& u : f.uses) {
        PIPESIM_ASSERT(u.resource >= 0 && u.resource < net_.model->num_resources() && u.share > 0,
                       "bad resource use");
      }
    }
  }

  double worker_rate(int w) const {
    return net_.collectives[static_cast<size_t>(w)] > 0 ? 1.0 - net_.options.interference : 1.0;
  }

  bool holders_done(TaskId t) const {
    for (int w : graph_.group_workers()[static_cast<size_t>(graph_.task(t).group)]) {
      if (net_.compute_left[static_cast<size_t>(w)] > 0) return false;
    }
    return true;
  }

  void start_shared(TaskId t, double now) {
    const Task& task = graph_.task(t);
    if (!is_comm(task.kind)) {
      net_.rate[t] = worker_rate(task.worker);
      net_.updated[t] = now;
      push(t, now + hot_[t].remaining / net_.rate[t]);
      return;
    }
    if (task.kind == OpKind::AllReduce) {
      for (int w : graph_.group_workers()[static_cast<size_t>(task.group)]) {
        if (net_.collectives[static_cast<size_t>(w)]++ == 0) retime(w, now);
      }
    }
    if (net_.flows[t].latency > 0.0) {
      push(t, now + net_.flows[t].latency, EventKind::LatencyDone);
    } else {
      activate(t, now);
    }
  }

  // Latency over: the flow starts moving data and takes its fair share.
  void activate(TaskId t, double now) {
    hot_[t].remaining = net_.flows[t].work;
    if (hot_[t].remaining <= 0.0) {
      push(t, now);
      return;
    }
    net_.updated[t] = now;
    net_.rate[t] = 0.0;
    net_.active_index[t] = static_cast<std::uint32_t>(net_.active.size());
    net_.active.push_back(t);
    reallocate(now);
  }

  // A compute task's speed changes when a collective starts or ends on its worker.
  void retime(int w, double now) {
    if (net_.options.interference == 0.0) return;
    const TaskId t = net_.running[static_cast<size_t>(w)];
    if (t == kNone || is_comm(graph_.task(t).kind)) return;
    double& remaining = hot_[t].remaining;
    remaining = std::max(0.0, remaining - net_.rate[t] * (now - net_.updated[t]));
    net_.updated[t] = now;
    net_.rate[t] = worker_rate(w);
    ++net_.version[t];
    push(t, now + remaining / net_.rate[t]);
  }

  // Max-min fair rates by progressive filling: all unfrozen flows speed up together until a
  // resource saturates (its flows freeze) or they reach full speed.
  void reallocate(double now) {
    SharedNetwork& n = net_;
    n.touched.clear();
    for (TaskId f : n.active) {
      double& remaining = hot_[f].remaining;
      remaining = std::max(0.0, remaining - n.rate[f] * (now - n.updated[f]));
      n.updated[f] = now;
      for (const ResourceUse& u : n.flows[f].uses) {
        const auto r = static_cast<size_t>(u.resource);
        if (n.residual[r] != 1.0 || n.load[r] != -1.0) {
          n.residual[r] = 1.0;
          n.load[r] = -1.0;  // marks "touched in this call"
          n.touched.push_back(r);
        }
      }
    }
    n.new_rate.assign(n.active.size(), 0.0);
    n.frozen.assign(n.active.size(), false);
    double level = 0.0;
    size_t unfrozen = n.active.size();
    while (unfrozen > 0) {
      for (size_t r : n.touched)
        n.load[r] = 0.0;
      for (size_t i = 0; i < n.active.size(); ++i) {
        if (n.frozen[i]) continue;
        for (const ResourceUse& u : n.flows[n.active[i]].uses) {
          n.load[static_cast<size_t>(u.resource)] += u.share;
        }
      }
      double step = 1.0 - level;
      for (size_t r : n.touched) {
        if (n.load[r] > 0.0) step = std::min(step, n.residual[r] / n.load[r]);
      }
      level += step;
      for (size_t r : n.touched)
        n.residual[r] -= n.load[r] * step;
      const bool full = level >= 1.0 - kSaturated;
      for (size_t i = 0; i < n.active.size(); ++i) {
        if (n.frozen[i]) continue;
        n.new_rate[i] = level;
        bool freeze = full;
        for (const ResourceUse& u : n.flows[n.active[i]].uses) {
          freeze = freeze || n.residual[static_cast<size_t>(u.resource)] <= kSaturated;
        }
        if (freeze) {
          n.frozen[i] = true;
          --unfrozen;
        }
      }
    }
    for (size_t r : n.touched) {
      n.residual[r] = 0.0;
      n.load[r] = 0.0;
    }
    for (size_t i = 0; i < n.active.size(); ++i) {
      const TaskId f = n.active[i];
      if (n.new_rate[i] == n.rate[f]) continue;  // its pending finish event still holds
      PIPESIM_ASSERT(n.new_rate[i] > 0.0, "a flow got no bandwidth");
      n.rate[f] = n.new_rate[i];
      ++n.version[f];
      push(f, now + hot_[f].remaining / n.rate[f]);
    }
  }

  // A finished flow gives its bandwidth back; a finished all-reduce its workers' speed.
  void finish_flows(TaskId t, double now) {
    SharedNetwork& n = net_;
    if (n.active_index[t] != kNone) {  // stable removal keeps the allocation deterministic
      n.active.erase(n.active.begin() + n.active_index[t]);
      for (size_t i = n.active_index[t]; i < n.active.size(); ++i) {
        n.active_index[n.active[i]] = static_cast<std::uint32_t>(i);
      }
      n.active_index[t] = kNone;
      n.rate[t] = 0.0;
      reallocate(now);
    }
    const Task& task = graph_.task(t);
    if (task.kind == OpKind::AllReduce) {
      for (int w : graph_.group_workers()[static_cast<size_t>(task.group)]) {
        if (--n.collectives[static_cast<size_t>(w)] == 0) retime(w, now);
      }
    }
  }

  // Flushed gradient sync: all-reduces whose holders have no compute op left start now.
  void release_parked(TaskId t, double now) {
    SharedNetwork& n = net_;
    const Task& task = graph_.task(t);
    if (!is_compute(task.kind) || --n.compute_left[static_cast<size_t>(task.worker)] != 0 ||
        n.parked.empty()) {
      return;
    }
    std::vector<TaskId> still;
    std::vector<TaskId> release;
    for (TaskId p : n.parked)
      (holders_done(p) ? release : still).push_back(p);
    n.parked = std::move(still);
    for (TaskId p : release)
      start(p, now);
  }

  const TaskGraph& graph_;
  std::span<const TaskId> offset_, succ_;
  std::vector<HotTask> hot_;
  std::vector<std::uint8_t> busy_;  // per stream; bytes, not vector<bool>'s bit packing
  std::vector<TaskId> head_, tail_, next_;
  std::vector<Event> events_;
  std::uint64_t sequence_ = 0;
  Trace trace_;
  [[no_unique_address]] Network net_;
};

}  // namespace

Trace simulate(const TaskGraph& graph, const CostModel& costs) {
  return Engine<ConstantNetwork>(graph, costs, {}).run();
}

namespace {

Trace replay(const TaskGraph& graph, const CostModel& compute, const NetworkModel& network,
             const EngineOptions& options, std::vector<std::uint8_t> flushed) {
  SharedNetwork shared;
  shared.model = &network;
  shared.options = options;
  shared.flushed = std::move(flushed);
  return Engine<SharedNetwork>(graph, compute, std::move(shared)).run();
}

// GradSync::EagerOpt (network.hpp). From a replay with every sync flushed: each worker's tail
// bubble is the run's last compute end minus its own. In stage order, a sync waits for the
// flush when it fits, after the syncs already put there, into the bubble of every holder (its
// time alone, CostModel::duration); the others stay eager.
std::vector<std::uint8_t> eager_opt_flushed(const TaskGraph& graph, const CostModel& costs,
                                            const Trace& probe) {
  std::vector<double> last(static_cast<size_t>(graph.workers()), 0.0);
  double end = 0.0;
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    if (!is_compute(graph.task(t).kind)) continue;
    double& l = last[static_cast<size_t>(graph.task(t).worker)];
    l = std::max(l, probe.timing[t].end);
    end = std::max(end, l);
  }
  std::vector<double> bubble(last.size());
  for (size_t w = 0; w < last.size(); ++w)
    bubble[w] = end - last[w];
  std::vector<std::uint8_t> flushed(graph.num_tasks(), 0);
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    const Task& task = graph.task(t);
    if (task.kind != OpKind::AllReduce) continue;
    const auto& holders = graph.group_workers()[static_cast<size_t>(task.group)];
    const double d = costs.duration(graph, t);
    const bool fits = std::all_of(holders.begin(), holders.end(),
                                  [&](int w) { return bubble[static_cast<size_t>(w)] >= d; });
    if (!fits) continue;
    flushed[t] = 1;
    for (int w : holders)
      bubble[static_cast<size_t>(w)] -= d;
  }
  return flushed;
}

}  // namespace

Trace simulate_network(const TaskGraph& graph, const CostModel& compute,
                       const NetworkModel& network, const EngineOptions& options) {
  if (options.grad_sync != GradSync::EagerOpt) return replay(graph, compute, network, options, {});
  EngineOptions flush = options;
  flush.grad_sync = GradSync::Flush;
  const Trace probe = replay(graph, compute, network, flush, {});
  if (!probe.completed) return probe;
  return replay(graph, compute, network, options, eager_opt_flushed(graph, compute, probe));
}

}  // namespace pipesim::sim
