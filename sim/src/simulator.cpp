#include "pipesim/sim/simulator.hpp"

#include <algorithm>
#include <limits>

#include "pipesim/core/assert.hpp"

namespace pipesim::sim {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

struct Event {
  double time;
  std::uint32_t sequence;  // at most one event per task, so 32 bits suffice; 16-byte events
  TaskId task;
};

// std heap algorithms build a max-heap; "greater" puts the earliest (time, sequence) on top.
struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
  }
};

int stream_of(const Task& task) {
  return is_compute(task.kind) || task.kind == OpKind::Optimizer ? task.worker : -1;
}

// What the event loop reads of each task, together in one 16-byte record (one cache line
// visit per task rather than three); successors come straight from the graph's CSR arrays.
struct HotTask {
  double duration;
  TaskId waiting_for;  // predecessors not yet finished
  int stream;          // compute stream (= worker) or −1 for a pure delay
};

struct FlatGraph {
  std::span<const TaskId> offset;
  std::span<const TaskId> succ;
  std::vector<HotTask> hot;

  FlatGraph(const TaskGraph& graph, const CostModel& costs)
      : offset(graph.successor_offsets()), succ(graph.successors()), hot(graph.num_tasks()) {
    for (TaskId v = 0; v < graph.num_tasks(); ++v) {
      const double d = costs.duration(graph, v);
      PIPESIM_ASSERT(d >= 0.0, "cost model returned a negative duration");
      hot[v] = HotTask{d, 0, stream_of(graph.task(v))};
    }
    for (TaskId target : succ) ++hot[target].waiting_for;
  }
};

class Engine {
 public:
  Engine(const TaskGraph& graph, const CostModel& costs)
      : flat_(graph, costs),
        busy_(static_cast<size_t>(graph.workers()), 0),
        head_(static_cast<size_t>(graph.workers()), kNone),
        tail_(static_cast<size_t>(graph.workers()), kNone),
        next_(graph.num_tasks(), kNone) {
    events_.reserve(graph.num_tasks());
    trace_.timing.resize(graph.num_tasks());
  }

  Trace run() {
    const size_t n = flat_.hot.size();
    for (size_t t = 0; t < n; ++t) {
      if (flat_.hot[t].waiting_for == 0) make_ready(static_cast<TaskId>(t), 0.0);
    }
    size_t finished = 0;
    while (!events_.empty()) {
      std::pop_heap(events_.begin(), events_.end(), Later{});
      const Event ev = events_.back();
      events_.pop_back();
      finish(ev.task, ev.time);
      ++finished;
    }
    trace_.completed = finished == n;
    return std::move(trace_);
  }

 private:
  void make_ready(TaskId t, double now) {
    const int s = flat_.hot[t].stream;
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
    const HotTask& task = flat_.hot[t];
    if (task.stream >= 0) busy_[static_cast<size_t>(task.stream)] = 1;
    trace_.timing[t].start = now;
    events_.push_back(Event{now + task.duration, sequence_++, t});
    std::push_heap(events_.begin(), events_.end(), Later{});
  }

  void finish(TaskId t, double now) {
    trace_.timing[t].end = now;
    const int s = flat_.hot[t].stream;
    if (s >= 0) {
      const auto si = static_cast<size_t>(s);
      busy_[si] = 0;
      if (head_[si] != kNone) {  // the longest-waiting task takes the stream first
        const TaskId waiting = head_[si];
        head_[si] = next_[waiting];
        if (head_[si] == kNone) tail_[si] = kNone;
        start(waiting, now);
      }
    }
    for (TaskId i = flat_.offset[t]; i < flat_.offset[t + 1]; ++i) {
      const TaskId succ = flat_.succ[i];
      if (--flat_.hot[succ].waiting_for == 0) make_ready(succ, now);
    }
  }

  FlatGraph flat_;
  std::vector<std::uint8_t> busy_;  // per stream; bytes, not vector<bool>'s bit packing
  std::vector<TaskId> head_, tail_, next_;
  std::vector<Event> events_;
  std::uint32_t sequence_ = 0;
  Trace trace_;
};

}  // namespace

Trace simulate(const TaskGraph& graph, const CostModel& costs) {
  return Engine(graph, costs).run();
}

}  // namespace pipesim::sim
