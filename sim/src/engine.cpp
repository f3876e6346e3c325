// The one event engine behind simulate() (unit-cost mode) and simulate_network() (real-cost
// mode). Both replay the task DAG the same way: a task becomes ready when its predecessors have
// finished; compute ops, the optimizer step and serialised collectives queue FIFO on their
// worker's stream (an op hands its stream straight to its serialised collective); events are
// ordered by (time, insertion sequence). What differs is the network model, a template
// parameter so the unit-cost loop carries none of the contention bookkeeping:
//  - ConstantNetwork (unit cost, like SimGrid's network_constant): a Transfer, AllReduce or
//    Collective is a pure delay of its CostModel duration;
//  - SharedNetwork (real cost): each is a flow (latency, then data movement at a max-min fair
//    share of the resources it uses, max_min.hpp), see network.hpp.
// A replay that ends with unfinished tasks names the cycle that blocked them (Trace::deadlock).
//
// Speed (bench/engine_bench.cpp): where no task can wait for a shared resource, simulate() and
// simulate_network() skip this loop for the longest-path pass of uncontended.hpp, which gives
// the same bits. The loop itself is bound by memory, not arithmetic, so what it reads of a task
// sits in one record (HotTask; real cost: NetTask), flows are interned (flow_table.hpp),
// events go through DelayQueues, reallocation is lazy (reallocate()), and a task's successors'
// records are prefetched before it finishes.

#include <algorithm>
#include <limits>
#include <type_traits>

#include "event_queue.hpp"
#include "flow_table.hpp"
#include "pipesim/core/assert.hpp"
#include "pipesim/core/huge_pages.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/max_min.hpp"
#include "pipesim/sim/network.hpp"
#include "pipesim/sim/simulator.hpp"
#include "ring_queue.hpp"
#include "task_kinds.hpp"
#include "uncontended.hpp"

namespace pipesim::sim {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
// Most reallocation times kept for flows not yet brought up to date (reallocate()).
constexpr size_t kLazySteps = 1024;

using detail::is_comm;

// Unit cost: at most one event per task, so a 32-bit sequence suffices; 16-byte events.
struct DelayEvent {
  double time;
  std::uint32_t sequence;
  TaskId task;
};

// Released: a start release (StartRelease) of the task has come due.
enum class EventKind : std::uint8_t { Finish, LatencyDone, Released };

// Real cost: a rate change supersedes a task's pending finish (older `version`).
struct FlowEvent {
  double time;
  std::uint64_t sequence;
  TaskId task;
  std::uint32_t version;
  EventKind kind;
};

// What the event loop reads of each task, together in one 16-byte record; successors come
// straight from the graph's CSR arrays.
struct HotTask {
  double remaining = 0.0;  // seconds of work left (unit cost: the duration)
  TaskId waiting_for = 0;  // predecessors not yet finished
  int stream = -1;         // compute stream (= worker) or −1 for a task that holds none
};

struct ConstantNetwork {};

// Real cost, per task: what the network loop reads of it, in the same record (one cache line
// visit for a task whose predecessor just finished).
struct NetTask : HotTask {
  double rate = 0.0;                   // current speed, full speed = 1
  double updated = 0.0;                // when `remaining` was last brought up to date
  std::uint32_t version = 0;           // bumped when a rate change supersedes the pending finish
  std::uint32_t flow = kNone;          // Transfer, AllReduce: index of its interned flow
  std::uint32_t active_index = kNone;  // position in SharedNetwork::active while data moves
  OpKind kind = OpKind::Forward;
  std::uint8_t flushed = 0;  // an all-reduce that waits for the flush
  std::uint8_t anchors = 0;  // its start releases other tasks (TaskGraph::releases)
};

// Real-cost state: flows and their rates, collectives in progress, parked all-reduces.
struct SharedNetwork {
  const detail::FlowTable* flows = nullptr;
  EngineOptions options;
  std::vector<std::uint8_t> flushed;  // per task, from the caller (GradSync::EagerOpt)
  std::vector<TaskId> active;         // flows moving data, in activation order
  // Lazy progress (reallocate): the times of the reallocations since `times` was cleared, and
  // for each active flow the first of them its `remaining` has not been brought up to yet.
  std::vector<double> times;
  std::vector<std::uint32_t> active_from;
  std::vector<std::uint32_t> users;  // per resource: active flows using it
  bool all_full = true;              // the last reallocation left every flow at full speed
  std::vector<TaskId> running;       // per stream
  std::vector<int> collectives, compute_left;
  std::vector<TaskId> parked;
  std::vector<StartRelease> releases;  // by anchor (stable: as added)
  // reallocate()'s solver and its rates, kept between calls.
  MaxMinSolver solver;
  std::vector<double> new_rate;
};

template <class Network>
class Engine {
  static constexpr bool kShared = std::is_same_v<Network, SharedNetwork>;
  using Event = std::conditional_t<kShared, FlowEvent, DelayEvent>;
  using Queues = detail::DelayQueues<Event>;
  using Record = std::conditional_t<kShared, NetTask, HotTask>;

 public:
  //! `seeding`: the loop will continue from seed()'s state, which sets what the constructor
  //! would (predecessor counts, durations, streams) only where it is still needed, and takes
  //! its trace from the prefix.
  Engine(const TaskGraph& graph, const CostModel& costs, Network network, bool seeding = false)
      : graph_(graph),
        serial_(detail::serial_collectives(graph)),
        costs_(costs),
        offset_(graph.successor_offsets()),
        succ_(graph.successors()),
        busy_(static_cast<size_t>(graph.workers()), 0),
        waiting_(static_cast<size_t>(graph.workers())),
        net_(std::move(network)) {
    const size_t n = graph.num_tasks();
    core::reserve_huge(hot_, n);
    hot_.resize(n);
    if constexpr (kShared) init_network(graph);
    if (seeding) return;
    core::reserve_huge(trace_.timing, n);
    trace_.timing.resize(n);
    for (TaskId target : succ_)
      ++hot_[target].waiting_for;
    for (TaskId v = 0; v < n; ++v) {
      const Task& t = graph.task(v);
      double d = 0.0;
      if (!kShared || !is_comm(t.kind)) {
        d = costs.duration(graph, v);
        PIPESIM_ASSERT(d >= 0.0, "cost model returned a negative duration");
      }
      HotTask& h = hot_[v];
      h.remaining = d;
      h.stream = on_stream(t) ? t.worker : -1;
      if (h.waiting_for == 0) sources_.push_back(v);
    }
  }

  Trace run() {
    const size_t n = hot_.size();
    if (!seeded_) {
      for (TaskId t : sources_)
        make_ready(t, 0.0);
    }
    size_t finished = finished_;
    while (!events_.empty()) {
      size_t fifo = Queues::kFifos;
      const Event ev = events_.take(fifo);
      if (fifo < Queues::kFifos) {
        // The event now at the head of that FIFO is due soon: fetch its successors' records.
        if (const Event* soon = events_.front(fifo)) prefetch_successors(soon->task);
      }
      if constexpr (kShared) {
        if (ev.version != hot_[ev.task].version) continue;
        if (ev.kind == EventKind::LatencyDone) {
          activate(ev.task, ev.time);
          continue;
        }
        if (ev.kind == EventKind::Released) {
          if (--hot_[ev.task].waiting_for == 0) make_ready(ev.task, ev.time);
          continue;
        }
      }
      finish(ev.task, ev.time);
      ++finished;
    }
    trace_.completed = finished == n;
    // Named as the validator names it (a parked all-reduce is not a graph predecessor, so the
    // replay's own leftovers may not show the cycle).
    if (!trace_.completed) {
      const core::Check acyclic = check_acyclic(graph_);
      trace_.deadlock = acyclic.ok() ? std::string() : acyclic.problem().problem();
    }
    return std::move(trace_);
  }

 private:
  bool on_stream(const Task& t) const {
    if (detail::holds_stream(t, serial_)) return true;
    if constexpr (kShared) return t.kind == OpKind::Transfer && !net_.options.overlap_p2p;
    return false;
  }

  OpKind kind_of(TaskId t) const {
    if constexpr (kShared) return hot_[t].kind;
    return graph_.task(t).kind;
  }

  // The event of task t at now + increment.
  void push(TaskId t, double now, double increment, bool recurring = true,
            [[maybe_unused]] EventKind kind = EventKind::Finish) {
    const double time = now + increment;
    if constexpr (kShared) {
      events_.push(Event{time, sequence_++, t, hot_[t].version, kind}, increment, recurring);
    } else {
      events_.push(Event{time, static_cast<std::uint32_t>(sequence_++), t}, increment, recurring);
    }
  }

  // The records a finishing task touches (its successors': hot record, timing, CSR offsets).
  void prefetch_successors(TaskId t) const {
    for (TaskId i = offset_[t]; i < offset_[t + 1]; ++i) {
      const TaskId v = succ_[i];
      __builtin_prefetch(&hot_[v], 1);
      __builtin_prefetch(&trace_.timing[v], 1);
      __builtin_prefetch(&offset_[v]);
    }
  }

  void make_ready(TaskId t, double now) {
    if constexpr (kShared) {
      const NetTask& nt = hot_[t];
      if (nt.kind == OpKind::AllReduce && nt.flushed && !holders_done(t)) {
        net_.parked.push_back(t);  // released when its holders' last compute op ends
        return;
      }
    }
    const int s = hot_[t].stream;
    if (s < 0 || !busy_[static_cast<size_t>(s)]) {
      start(t, now);
      return;
    }
    waiting_[static_cast<size_t>(s)].push(t);  // stream busy: queue behind those waiting
  }

  void start(TaskId t, double now) {
    __builtin_prefetch(succ_.data() + offset_[t]);  // read when t finishes (no element: fine)
    const HotTask& task = hot_[t];
    if (task.stream >= 0) {
      busy_[static_cast<size_t>(task.stream)] = 1;
      if constexpr (kShared) net_.running[static_cast<size_t>(task.stream)] = t;
    }
    trace_.timing[t].start = now;
    if constexpr (kShared) {
      start_shared(t, now);
    } else {
      push(t, now, task.remaining);
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
      // The longest-waiting first, unless the task hands the stream to its serialised
      // collective, made ready below.
      if (!waiting_[si].empty() && !graph_.hands_stream_over(t)) start(waiting_[si].pop(), now);
    }
    if constexpr (kShared) {
      release_parked(t, now);
      // A blocking send is issued right after the op that produced its message, before the
      // worker's next op: with overlap off, transfers are made ready first.
      if (!net_.options.overlap_p2p) {
        for (TaskId i = offset_[t]; i < offset_[t + 1]; ++i) {
          const TaskId next = succ_[i];
          if (kind_of(next) == OpKind::Transfer && --hot_[next].waiting_for == 0) {
            make_ready(next, now);
          }
        }
        for (TaskId i = offset_[t]; i < offset_[t + 1]; ++i) {
          const TaskId next = succ_[i];
          if (kind_of(next) == OpKind::Transfer) continue;
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

 public:
  // The state this loop would have reached after every event before `cut`, from a trace that
  // is this loop's up to `cut` (detail::replay_network_prefix: streams uncontended, every flow
  // at full speed): tasks that ended before the cut are done, those that started run with
  // their pending events, active flows hold their remaining work as the loop's reallocations
  // up to the cut left it. False, with nothing usable, when the cut splits an instant whose
  // order only the loop knows (two pending events, or two activations, at one time). The prefix
  // becomes the loop's trace: what started before the cut keeps its start (and its end, if
  // done); every later entry is overwritten when its task starts and ends.
  bool seed(std::vector<TaskTiming>&& timing, double cut) {
    SharedNetwork& n = net_;
    PIPESIM_ASSERT(graph_.releases().empty(), "start releases are the event loop's alone");
    trace_.timing = std::move(timing);
    const std::vector<TaskTiming>& prefix = trace_.timing;
    struct Pending {
      double time, pushed;
      TaskId task;
      EventKind kind;
      std::uint32_t version;
    };
    std::vector<Pending> pending;
    std::vector<std::pair<double, TaskId>> active;  // (activation, flow)
    std::vector<TaskId> unfinished;                 // whose successors still wait for them
    for (TaskId v = 0; v < hot_.size(); ++v) {
      const TaskTiming& t = prefix[v];
      NetTask& r = hot_[v];
      const bool comm = is_comm(r.kind);
      const detail::FlowShape* shape = comm ? &n.flows->shape(r.flow) : nullptr;
      const double act = comm ? t.start + shape->latency : t.start;
      r.stream = on_stream(graph_.task(v)) ? graph_.task(v).worker : -1;
      if (!(t.end < cut)) {
        unfinished.push_back(v);
        if (!comm) {
          r.remaining = costs_.duration(graph_, v);
          PIPESIM_ASSERT(r.remaining >= 0.0, "cost model returned a negative duration");
        }
      }
      if (!(t.start < cut)) continue;  // not started
      if (r.kind == OpKind::AllReduce) {
        for (int w : graph_.group_workers()[static_cast<size_t>(graph_.task(v).group)])
          ++n.collectives[static_cast<size_t>(w)];
      }
      if (t.end < cut) {  // done
        ++finished_;
        if (detail::is_worker_work(graph_.task(v), serial_))
          --n.compute_left[static_cast<size_t>(r.stream)];
        if (r.kind == OpKind::AllReduce) {
          for (int w : graph_.group_workers()[static_cast<size_t>(graph_.task(v).group)])
            --n.collectives[static_cast<size_t>(w)];
        }
        continue;
      }
      if (r.stream >= 0) {
        busy_[static_cast<size_t>(r.stream)] = 1;
        n.running[static_cast<size_t>(r.stream)] = v;
      }
      if (!comm) {  // computing at full speed since its start
        r.rate = 1.0;
        r.updated = t.start;
        pending.push_back({t.end, t.start, v, EventKind::Finish, 0});
      } else if (!(act < cut)) {  // in its latency
        pending.push_back({act, t.start, v, EventKind::LatencyDone, 0});
      } else {  // moving data at full speed since `act`
        r.remaining = shape->work;
        r.rate = 1.0;
        r.updated = act;
        r.version = 1;
        pending.push_back({t.end, act, v, EventKind::Finish, 1});
        active.emplace_back(act, v);
      }
    }
    for (TaskId u : unfinished) {
      for (TaskId i = offset_[u]; i < offset_[u + 1]; ++i)
        ++hot_[succ_[i]].waiting_for;
    }
    // Pending events in push order, which is by push time: a tie there only the loop orders.
    std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
      return a.time != b.time ? a.time < b.time : a.pushed < b.pushed;
    });
    for (size_t i = 1; i < pending.size(); ++i) {
      if (pending[i].time == pending[i - 1].time && pending[i].pushed == pending[i - 1].pushed) {
        return false;
      }
    }
    std::sort(active.begin(), active.end());
    for (size_t i = 1; i < active.size(); ++i) {
      if (active[i].first == active[i - 1].first) return false;  // activation order unknown
    }
    // Each active flow's remaining work, in the loop's steps: one per reallocation after its
    // activation (a flow with data to move starting or ending; at full speed, and steps of
    // length 0 change nothing), so only those after the earliest activation are needed.
    std::vector<double> reallocations;
    if (!active.empty()) {
      const double since = active.front().first;
      const auto keep = [&](double time) {
        if (time > since && time < cut) reallocations.push_back(time);
      };
      for (TaskId v = 0; v < hot_.size(); ++v) {
        if (!is_comm(hot_[v].kind)) continue;
        const detail::FlowShape& shape = n.flows->shape(hot_[v].flow);
        if (!(shape.work > 0.0)) continue;
        keep(prefix[v].start + shape.latency);
        keep(prefix[v].end);
      }
      std::sort(reallocations.begin(), reallocations.end());
    }
    for (const auto& [act, f] : active) {
      NetTask& r = hot_[f];
      for (auto it = std::upper_bound(reallocations.begin(), reallocations.end(), act);
           it != reallocations.end(); ++it) {
        r.remaining = std::max(0.0, r.remaining - r.rate * (*it - r.updated));
        r.updated = *it;
      }
      r.active_index = static_cast<std::uint32_t>(n.active.size());
      n.active.push_back(f);
      n.active_from.push_back(0);
      for (const ResourceUse& u : uses_of(f))
        ++n.users[static_cast<size_t>(u.resource)];
    }
    for (const Pending& p : pending) {
      events_.push_unordered(Event{p.time, sequence_++, p.task, p.version, p.kind});
    }
    seeded_ = true;
    return true;
  }

 private:
  void init_network(const TaskGraph& graph) {
    SharedNetwork& net = net_;
    const size_t n = graph.num_tasks();
    // No flags from the caller: every all-reduce waits for the flush, or none does.
    const std::uint8_t all_flushed = net.options.grad_sync == GradSync::Flush ? 1 : 0;
    PIPESIM_ASSERT(net.flushed.empty() || net.flushed.size() == n, "one flush flag per task");
    const auto workers = static_cast<size_t>(graph.workers());
    const auto resources = static_cast<size_t>(net.flows->num_resources());
    PIPESIM_ASSERT(net.options.interference >= 0.0 && net.options.interference < 1.0,
                   "interference outside [0, 1)");
    net.running.assign(workers, kNone);
    net.collectives.assign(workers, 0);
    net.compute_left.assign(workers, 0);
    net.solver = MaxMinSolver(static_cast<int>(resources));
    net.users.assign(resources, 0);
    for (TaskId v = 0; v < n; ++v) {
      const Task& t = graph.task(v);
      NetTask& nt = hot_[v];
      nt.kind = t.kind;
      nt.flushed = net.flushed.empty() ? all_flushed : net.flushed[v];
      nt.flow = net.flows->flow_of(v);
      if (detail::is_worker_work(t, serial_)) ++net.compute_left[static_cast<size_t>(t.worker)];
    }
    // A start release is one more predecessor of its task, met partway through its anchor.
    net.releases = graph.releases();
    std::stable_sort(
        net.releases.begin(), net.releases.end(),
        [](const StartRelease& a, const StartRelease& b) { return a.anchor < b.anchor; });
    for (const StartRelease& r : net.releases) {
      PIPESIM_ASSERT(!is_comm(graph.task(r.anchor).kind), "a start release anchored on a flow");
      ++hot_[r.task].waiting_for;
      hot_[r.anchor].anchors = 1;
    }
  }

  std::span<const ResourceUse> uses_of(TaskId f) const { return net_.flows->uses(hot_[f].flow); }

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
    NetTask& nt = hot_[t];
    if (!is_comm(nt.kind)) {
      nt.rate = worker_rate(hot_[t].stream);  // compute and optimizer run on their worker's
      nt.updated = now;
      push(t, now, hot_[t].remaining / nt.rate);
      if (nt.anchors) release_from(t, now);
      return;
    }
    if (nt.kind == OpKind::AllReduce) {
      for (int w : graph_.group_workers()[static_cast<size_t>(graph_.task(t).group)]) {
        if (net_.collectives[static_cast<size_t>(w)]++ == 0) retime(w, now);
      }
    }
    const double latency = net_.flows->shape(nt.flow).latency;
    if (latency > 0.0) {
      push(t, now, latency, true, EventKind::LatencyDone);
    } else {
      activate(t, now);
    }
  }

  // Anchor t starts: each task it releases is due after its fraction of t's duration, at the
  // speed t starts with (a later change of that speed does not move the release).
  void release_from(TaskId t, double now) {
    const auto& all = net_.releases;
    auto it = std::lower_bound(all.begin(), all.end(), t,
                               [](const StartRelease& r, TaskId a) { return r.anchor < a; });
    for (; it != all.end() && it->anchor == t; ++it) {
      push(it->task, now, it->fraction * hot_[t].remaining / hot_[t].rate, false,
           EventKind::Released);
    }
  }

  // Latency over: the flow starts moving data and takes its fair share.
  void activate(TaskId t, double now) {
    NetTask& nt = hot_[t];
    hot_[t].remaining = net_.flows->shape(nt.flow).work;
    if (hot_[t].remaining <= 0.0) {
      push(t, now, 0.0);
      return;
    }
    nt.updated = now;
    nt.rate = 0.0;
    nt.active_index = static_cast<std::uint32_t>(net_.active.size());
    net_.active.push_back(t);
    net_.active_from.push_back(static_cast<std::uint32_t>(net_.times.size()));
    for (const ResourceUse& u : uses_of(t))
      ++net_.users[static_cast<size_t>(u.resource)];
    reallocate(now, t);
  }

  // A compute task's speed changes when a collective starts or ends on its worker.
  void retime(int w, double now) {
    if (net_.options.interference == 0.0) return;
    const TaskId t = net_.running[static_cast<size_t>(w)];
    if (t == kNone || is_comm(hot_[t].kind)) return;
    NetTask& nt = hot_[t];
    double& remaining = hot_[t].remaining;
    remaining = std::max(0.0, remaining - nt.rate * (now - nt.updated));
    nt.updated = now;
    nt.rate = worker_rate(w);
    ++nt.version;
    push(t, now, remaining / nt.rate, false);
  }

  // Max-min fair rates (max_min.hpp) for the active flows. `added`: the flow just activated,
  // kNone when one just finished.
  //
  // Every active flow's `remaining` is brought up to each reallocation's time, in the same
  // steps the eager loop took (so the same roundings), but only when it is needed, for a new
  // rate: `times` keeps the reallocation times in between. When the rates cannot change, no
  // flow is visited: after a flow ends while every flow runs at full speed (the loads can only
  // fall), or when a new flow shares no resource with an active one, needs no more than each
  // one's capacity and every other flow runs at full speed (the other loads stay as they were).
  void reallocate(double now, TaskId added = kNone) {
    SharedNetwork& n = net_;
    n.times.push_back(now);
    if (n.all_full && (added == kNone || fits_alone(added))) {
      if (added != kNone) set_rate(added, 1.0, now);
      if (n.times.size() >= kLazySteps) {  // bounded memory: every flow up to date
        for (size_t i = 0; i < n.active.size(); ++i)
          catch_up(i);
      }
      if (n.active_from.empty() || n.times.size() >= kLazySteps) forget_times();
      return;
    }
    n.solver.clear();
    for (size_t i = 0; i < n.active.size(); ++i) {
      catch_up(i);
      n.solver.add(uses_of(n.active[i]));
    }
    forget_times();
    n.all_full = n.solver.solve(n.new_rate);
    for (size_t i = 0; i < n.active.size(); ++i) {
      PIPESIM_ASSERT(n.new_rate[i] > 0.0, "a flow got no bandwidth");
      set_rate(n.active[i], n.new_rate[i], now);
    }
  }

  // Brings active flow i's remaining work up to the last reallocation, one step per
  // reallocation since it was last brought up to date (the eager loop's arithmetic).
  void catch_up(size_t i) {
    SharedNetwork& n = net_;
    const TaskId f = n.active[i];
    NetTask& nt = hot_[f];
    double& remaining = hot_[f].remaining;
    for (size_t k = n.active_from[i]; k < n.times.size(); ++k) {
      remaining = std::max(0.0, remaining - nt.rate * (n.times[k] - nt.updated));
      nt.updated = n.times[k];
    }
    n.active_from[i] = static_cast<std::uint32_t>(n.times.size());
  }

  // Once every active flow is up to date: the reallocation times are no longer needed.
  void forget_times() {
    net_.times.clear();
    std::fill(net_.active_from.begin(), net_.active_from.end(), 0);
  }

  // Whether a newly active flow is the only user of each of its resources and fits in it.
  bool fits_alone(TaskId f) const {
    const auto uses = uses_of(f);
    for (const ResourceUse& u : uses) {
      std::uint32_t own = 0;
      double load = 0.0;
      for (const ResourceUse& v : uses) {
        if (v.resource != u.resource) continue;
        ++own;
        load += v.share;
      }
      if (net_.users[static_cast<size_t>(u.resource)] != own || !(load <= 1.0)) return false;
    }
    return true;
  }

  // A new rate for flow f from now (its remaining work up to date); the same rate keeps its
  // pending finish event.
  void set_rate(TaskId f, double rate, double now) {
    NetTask& nt = hot_[f];
    if (rate == nt.rate) return;
    // A flow just activated (rate 0) most often runs alone at full speed: its finish is then
    // activation + work, an increment many flows share.
    const bool fresh = nt.rate == 0.0;
    nt.rate = rate;
    ++nt.version;
    push(f, now, hot_[f].remaining / nt.rate, fresh);
  }

  // A finished flow gives its bandwidth back; a finished all-reduce its workers' speed.
  void finish_flows(TaskId t, double now) {
    SharedNetwork& n = net_;
    NetTask& nt = hot_[t];
    if (nt.active_index != kNone) {  // stable removal keeps the allocation deterministic
      n.active.erase(n.active.begin() + nt.active_index);
      n.active_from.erase(n.active_from.begin() + nt.active_index);
      for (size_t i = nt.active_index; i < n.active.size(); ++i) {
        hot_[n.active[i]].active_index = static_cast<std::uint32_t>(i);
      }
      for (const ResourceUse& u : uses_of(t))
        --n.users[static_cast<size_t>(u.resource)];
      nt.active_index = kNone;
      nt.rate = 0.0;
      reallocate(now);
    }
    if (nt.kind == OpKind::AllReduce) {
      for (int w : graph_.group_workers()[static_cast<size_t>(graph_.task(t).group)]) {
        if (--n.collectives[static_cast<size_t>(w)] == 0) retime(w, now);
      }
    }
  }

  // Flushed gradient sync: all-reduces whose holders have no compute op left start now.
  void release_parked(TaskId t, double now) {
    SharedNetwork& n = net_;
    if (!detail::is_worker_work(graph_.task(t), serial_) ||
        --n.compute_left[static_cast<size_t>(hot_[t].stream)] != 0 || n.parked.empty()) {
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
  const bool serial_;  // the graph's collectives follow their op on its stream
  const CostModel& costs_;
  std::span<const TaskId> offset_, succ_;
  std::vector<Record> hot_;         // by task
  std::vector<TaskId> sources_;     // tasks with no predecessor, in id order
  std::vector<std::uint8_t> busy_;  // per stream; bytes, not vector<bool>'s bit packing
  std::vector<detail::RingQueue<TaskId>> waiting_;  // per stream, first come first served
  Queues events_;
  std::uint64_t sequence_ = 0;
  bool seeded_ = false;  // seed(): the loop continues from a state it did not reach itself
  size_t finished_ = 0;  // tasks done before the loop starts (seed)
  Trace trace_;
  [[no_unique_address]] Network net_;
};

}  // namespace

Trace detail::replay_events(const TaskGraph& graph, const CostModel& costs) {
  return Engine<ConstantNetwork>(graph, costs, {}).run();
}

Trace simulate(const TaskGraph& graph, const CostModel& costs) {
  PIPESIM_ASSERT(graph.releases().empty(), "start releases need real-cost mode");
  if (std::optional<Trace> t = detail::replay_uncontended(graph, costs)) return std::move(*t);
  return detail::replay_events(graph, costs);
}

namespace {

Trace replay(const TaskGraph& graph, const CostModel& compute, const detail::FlowTable& flows,
             const EngineOptions& options, std::vector<std::uint8_t> flushed) {
  SharedNetwork shared;
  shared.flows = &flows;
  shared.options = options;
  shared.flushed = std::move(flushed);
  return Engine<SharedNetwork>(graph, compute, std::move(shared)).run();
}

// GradSync::EagerOpt (network.hpp). From a replay with every sync flushed: each worker's tail
// bubble is the run's last compute end minus its own (a compute op ends with its serialised
// collectives). In stage order, a sync waits for the
// flush when it fits, after the syncs already put there, into the bubble of every holder (its
// time alone, CostModel::duration); the others stay eager.
std::vector<std::uint8_t> eager_opt_flushed(const TaskGraph& graph, const CostModel& costs,
                                            const Trace& probe) {
  std::vector<double> last(static_cast<size_t>(graph.workers()), 0.0);
  double end = 0.0;
  const bool serial = detail::serial_collectives(graph);
  for (TaskId t = 0; t < graph.num_tasks(); ++t) {
    if (!detail::is_worker_work(graph.task(t), serial)) continue;
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

namespace {

Trace replay_network(const TaskGraph& graph, const CostModel& compute,
                     const detail::FlowTable& flows, const EngineOptions& options) {
  if (options.grad_sync != GradSync::EagerOpt) return replay(graph, compute, flows, options, {});
  EngineOptions flush = options;
  flush.grad_sync = GradSync::Flush;
  const Trace probe = replay(graph, compute, flows, flush, {});
  if (!probe.completed) return probe;
  return replay(graph, compute, flows, options, eager_opt_flushed(graph, compute, probe));
}

}  // namespace

Trace detail::replay_network_events(const TaskGraph& graph, const CostModel& compute,
                                    const NetworkModel& network, const EngineOptions& options) {
  return replay_network(graph, compute, detail::FlowTable(graph, network), options);
}

Trace simulate_network(const TaskGraph& graph, const CostModel& compute,
                       const NetworkModel& network, const EngineOptions& options) {
  const detail::FlowTable flows(graph, network);
  std::optional<detail::NetworkPrefix> prefix =
      detail::replay_network_prefix(graph, compute, flows, options);
  if (prefix && prefix->trace.completed) return std::move(prefix->trace);
  if (prefix) {  // the event-free pass holds up to the cut: the loop takes over there
    SharedNetwork shared;
    shared.flows = &flows;
    shared.options = options;
    Engine<SharedNetwork> engine(graph, compute, std::move(shared), true);
    if (engine.seed(std::move(prefix->trace.timing), prefix->cut)) return engine.run();
  }
  return replay_network(graph, compute, flows, options);
}

}  // namespace pipesim::sim
