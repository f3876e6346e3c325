#include "pipesim/sim/network.hpp"

#include <algorithm>
#include <limits>

#include "pipesim/core/assert.hpp"

namespace pipesim::sim {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr double kSaturated = 1e-12;  // residual capacity treated as zero

enum class EventKind : std::uint8_t { Finish, LatencyDone };

struct Event {
  double time;
  std::uint64_t sequence;
  TaskId task;
  std::uint32_t version;  // events of an older version were superseded by a rate change
  EventKind kind;
};

struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
  }
};

bool is_comm(OpKind k) {
  return k == OpKind::Transfer || k == OpKind::AllReduce;
}

class NetworkEngine {
 public:
  NetworkEngine(const TaskGraph& graph, const CostModel& compute, const NetworkModel& network,
                const EngineOptions& options)
      : graph_(graph),
        options_(options),
        n_(graph.num_tasks()),
        workers_(static_cast<size_t>(graph.workers())),
        offset_(graph.successor_offsets()),
        succ_(graph.successors()),
        indegree_(graph.in_degrees()),
        stream_(n_, -1),
        remaining_(n_, 0.0),
        rate_(n_, 0.0),
        updated_(n_, 0.0),
        version_(n_, 0),
        flows_(n_),
        active_index_(n_, kNone),
        busy_(workers_, false),
        running_(workers_, kNone),
        head_(workers_, kNone),
        tail_(workers_, kNone),
        next_(n_, kNone),
        collectives_(workers_, 0),
        compute_left_(workers_, 0),
        load_(static_cast<size_t>(network.num_resources()), 0.0),
        residual_(static_cast<size_t>(network.num_resources()), 0.0) {
    PIPESIM_ASSERT(options.interference >= 0.0 && options.interference < 1.0,
                   "interference outside [0, 1)");
    for (TaskId v = 0; v < n_; ++v) {
      const Task& t = graph.task(v);
      if (is_compute(t.kind)) ++compute_left_[static_cast<size_t>(t.worker)];
      if (is_comm(t.kind)) {
        flows_[v] = network.flow(graph, v);
        PIPESIM_ASSERT(flows_[v].latency >= 0.0 && flows_[v].work >= 0.0, "negative flow");
        for (const ResourceUse& u : flows_[v].uses) {
          PIPESIM_ASSERT(u.resource >= 0 && u.resource < network.num_resources() && u.share > 0,
                         "bad resource use");
        }
      } else {
        remaining_[v] = compute.duration(graph, v);
        PIPESIM_ASSERT(remaining_[v] >= 0.0, "cost model returned a negative duration");
      }
      const bool on_stream = is_compute(t.kind) || t.kind == OpKind::Optimizer ||
                             (t.kind == OpKind::Transfer && !options.overlap_p2p);
      stream_[v] = on_stream ? t.worker : -1;
    }
    trace_.timing.resize(n_);
  }

  Trace run() {
    for (TaskId t = 0; t < n_; ++t) {
      if (indegree_[t] == 0) make_ready(t, 0.0);
    }
    size_t finished = 0;
    while (!events_.empty()) {
      std::pop_heap(events_.begin(), events_.end(), Later{});
      const Event ev = events_.back();
      events_.pop_back();
      if (ev.version != version_[ev.task]) continue;
      if (ev.kind == EventKind::LatencyDone) {
        activate(ev.task, ev.time);
      } else {
        finish(ev.task, ev.time);
        ++finished;
      }
    }
    trace_.completed = finished == n_;
    return std::move(trace_);
  }

 private:
  void push(TaskId t, double time, EventKind kind) {
    events_.push_back(Event{time, sequence_++, t, version_[t], kind});
    std::push_heap(events_.begin(), events_.end(), Later{});
  }

  double worker_rate(int w) const {
    return collectives_[static_cast<size_t>(w)] > 0 ? 1.0 - options_.interference : 1.0;
  }

  bool holders_done(TaskId t) const {
    for (int w : graph_.group_workers()[static_cast<size_t>(graph_.task(t).group)]) {
      if (compute_left_[static_cast<size_t>(w)] > 0) return false;
    }
    return true;
  }

  void make_ready(TaskId t, double now) {
    if (options_.flush_grad_sync && graph_.task(t).kind == OpKind::AllReduce && !holders_done(t)) {
      parked_.push_back(t);  // released when its holders' last compute op ends
      return;
    }
    const int s = stream_[t];
    if (s < 0 || !busy_[static_cast<size_t>(s)]) {
      start(t, now);
      return;
    }
    const auto si = static_cast<size_t>(s);
    if (tail_[si] == kNone) {
      head_[si] = t;
    } else {
      next_[tail_[si]] = t;
    }
    tail_[si] = t;
  }

  void start(TaskId t, double now) {
    const int s = stream_[t];
    if (s >= 0) {
      busy_[static_cast<size_t>(s)] = true;
      running_[static_cast<size_t>(s)] = t;
    }
    trace_.timing[t].start = now;
    const Task& task = graph_.task(t);
    if (!is_comm(task.kind)) {
      rate_[t] = worker_rate(task.worker);
      updated_[t] = now;
      push(t, now + remaining_[t] / rate_[t], EventKind::Finish);
      return;
    }
    if (task.kind == OpKind::AllReduce) {
      for (int w : graph_.group_workers()[static_cast<size_t>(task.group)]) {
        if (collectives_[static_cast<size_t>(w)]++ == 0) retime(w, now);
      }
    }
    if (flows_[t].latency > 0.0) {
      push(t, now + flows_[t].latency, EventKind::LatencyDone);
    } else {
      activate(t, now);
    }
  }

  // Latency over: the flow starts moving data and takes its fair share.
  void activate(TaskId t, double now) {
    remaining_[t] = flows_[t].work;
    if (remaining_[t] <= 0.0) {
      push(t, now, EventKind::Finish);
      return;
    }
    updated_[t] = now;
    rate_[t] = 0.0;
    active_index_[t] = static_cast<std::uint32_t>(active_.size());
    active_.push_back(t);
    reallocate(now);
  }

  // A compute task's speed changes when a collective starts or ends on its worker.
  void retime(int w, double now) {
    if (options_.interference == 0.0) return;
    const TaskId t = running_[static_cast<size_t>(w)];
    if (t == kNone || is_comm(graph_.task(t).kind)) return;
    remaining_[t] = std::max(0.0, remaining_[t] - rate_[t] * (now - updated_[t]));
    updated_[t] = now;
    rate_[t] = worker_rate(w);
    ++version_[t];
    push(t, now + remaining_[t] / rate_[t], EventKind::Finish);
  }

  // Max-min fair rates by progressive filling: all unfrozen flows speed up together until a
  // resource saturates (its flows freeze) or they reach full speed.
  void reallocate(double now) {
    touched_.clear();
    for (TaskId f : active_) {
      remaining_[f] = std::max(0.0, remaining_[f] - rate_[f] * (now - updated_[f]));
      updated_[f] = now;
      for (const ResourceUse& u : flows_[f].uses) {
        const auto r = static_cast<size_t>(u.resource);
        if (residual_[r] != 1.0 || load_[r] != -1.0) {
          residual_[r] = 1.0;
          load_[r] = -1.0;  // marks "touched in this call"
          touched_.push_back(r);
        }
      }
    }
    new_rate_.assign(active_.size(), 0.0);
    frozen_.assign(active_.size(), false);
    double level = 0.0;
    size_t unfrozen = active_.size();
    while (unfrozen > 0) {
      for (size_t r : touched_)
        load_[r] = 0.0;
      for (size_t i = 0; i < active_.size(); ++i) {
        if (frozen_[i]) continue;
        for (const ResourceUse& u : flows_[active_[i]].uses) {
          load_[static_cast<size_t>(u.resource)] += u.share;
        }
      }
      double step = 1.0 - level;
      for (size_t r : touched_) {
        if (load_[r] > 0.0) step = std::min(step, residual_[r] / load_[r]);
      }
      level += step;
      for (size_t r : touched_)
        residual_[r] -= load_[r] * step;
      const bool full = level >= 1.0 - kSaturated;
      for (size_t i = 0; i < active_.size(); ++i) {
        if (frozen_[i]) continue;
        new_rate_[i] = level;
        bool freeze = full;
        for (const ResourceUse& u : flows_[active_[i]].uses) {
          freeze = freeze || residual_[static_cast<size_t>(u.resource)] <= kSaturated;
        }
        if (freeze) {
          frozen_[i] = true;
          --unfrozen;
        }
      }
    }
    for (size_t r : touched_) {
      residual_[r] = 0.0;
      load_[r] = 0.0;
    }
    for (size_t i = 0; i < active_.size(); ++i) {
      const TaskId f = active_[i];
      if (new_rate_[i] == rate_[f]) continue;  // its pending finish event still holds
      PIPESIM_ASSERT(new_rate_[i] > 0.0, "a flow got no bandwidth");
      rate_[f] = new_rate_[i];
      ++version_[f];
      push(f, now + remaining_[f] / rate_[f], EventKind::Finish);
    }
  }

  void finish(TaskId t, double now) {
    trace_.timing[t].end = now;
    const Task& task = graph_.task(t);
    if (active_index_[t] != kNone) {  // stable removal keeps the allocation deterministic
      active_.erase(active_.begin() + active_index_[t]);
      for (size_t i = active_index_[t]; i < active_.size(); ++i) {
        active_index_[active_[i]] = static_cast<std::uint32_t>(i);
      }
      active_index_[t] = kNone;
      rate_[t] = 0.0;
      reallocate(now);
    }
    if (task.kind == OpKind::AllReduce) {
      for (int w : graph_.group_workers()[static_cast<size_t>(task.group)]) {
        if (--collectives_[static_cast<size_t>(w)] == 0) retime(w, now);
      }
    }
    const int s = stream_[t];
    if (s >= 0) {
      const auto si = static_cast<size_t>(s);
      busy_[si] = false;
      running_[si] = kNone;
      if (head_[si] != kNone) {
        const TaskId waiting = head_[si];
        head_[si] = next_[waiting];
        if (head_[si] == kNone) tail_[si] = kNone;
        start(waiting, now);
      }
    }
    if (is_compute(task.kind) && --compute_left_[static_cast<size_t>(task.worker)] == 0 &&
        !parked_.empty()) {
      std::vector<TaskId> still;
      std::vector<TaskId> release;
      for (TaskId p : parked_)
        (holders_done(p) ? release : still).push_back(p);
      parked_ = std::move(still);
      for (TaskId p : release)
        start(p, now);
    }
    // A blocking send is issued right after the op that produced its message, before the
    // worker's next op: with overlap off, transfers are made ready first.
    if (!options_.overlap_p2p) {
      for (TaskId i = offset_[t]; i < offset_[t + 1]; ++i) {
        const TaskId next = succ_[i];
        if (graph_.task(next).kind == OpKind::Transfer && --indegree_[next] == 0) {
          make_ready(next, now);
        }
      }
    }
    for (TaskId i = offset_[t]; i < offset_[t + 1]; ++i) {
      const TaskId next = succ_[i];
      if (!options_.overlap_p2p && graph_.task(next).kind == OpKind::Transfer) continue;
      if (--indegree_[next] == 0) make_ready(next, now);
    }
  }

  const TaskGraph& graph_;
  EngineOptions options_;
  size_t n_;
  size_t workers_;
  std::span<const TaskId> offset_, succ_;
  std::vector<TaskId> indegree_;
  std::vector<int> stream_;
  std::vector<double> remaining_, rate_, updated_;
  std::vector<std::uint32_t> version_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> active_index_;
  std::vector<TaskId> active_;
  std::vector<bool> busy_;
  std::vector<TaskId> running_, head_, tail_, next_;
  std::vector<int> collectives_, compute_left_;
  std::vector<TaskId> parked_;
  std::vector<double> load_, residual_, new_rate_;
  std::vector<bool> frozen_;
  std::vector<size_t> touched_;
  std::vector<Event> events_;
  std::uint64_t sequence_ = 0;
  Trace trace_;
};

}  // namespace

Trace simulate_network(const TaskGraph& graph, const CostModel& compute,
                       const NetworkModel& network, const EngineOptions& options) {
  return NetworkEngine(graph, compute, network, options).run();
}

}  // namespace pipesim::sim
