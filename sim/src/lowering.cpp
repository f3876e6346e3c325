#include "pipesim/sim/lowering.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <span>

#include "pipesim/core/assert.hpp"

namespace pipesim::sim {
namespace {

constexpr TaskId kNoTask = std::numeric_limits<TaskId>::max();

bool kind_allowed(const Schedule& s, OpKind kind);

// Dense table over compute ops: a micro-batch determines its pipeline, so (stage, micro-batch,
// kind) identifies an op. Only the kinds the schedule allows get a column (F and B for most:
// two of five). Micro-batch major: lowering's data edges and check_structure's final check
// walk one micro-batch through every stage, and read a contiguous row that way (stage major,
// every step was another cache line).
template <class Slot>
class OpTable {
 public:
  OpTable(const Schedule& s, int micro_batches, Slot empty) : stages_(s.virtual_stages) {
    for (int k = 0; k < kNumComputeKinds; ++k) {
      column_[static_cast<size_t>(k)] =
          kind_allowed(s, static_cast<OpKind>(k)) ? static_cast<std::uint8_t>(kinds_++) : 0xff;
    }
    slots_.assign(
        static_cast<size_t>(s.virtual_stages) * static_cast<size_t>(micro_batches) * kinds_, empty);
  }

  //! Requires a kind the schedule allows.
  Slot& at(int stage, int micro_batch, OpKind kind) {
    return slots_[(static_cast<size_t>(micro_batch) * static_cast<size_t>(stages_) +
                   static_cast<size_t>(stage)) *
                      kinds_ +
                  column_[static_cast<size_t>(kind)]];
  }

 private:
  int stages_;
  size_t kinds_ = 0;
  std::array<std::uint8_t, kNumComputeKinds> column_{};
  std::vector<Slot> slots_;
};

// check_structure: which ops were seen.
using SeenOps = OpTable<std::uint8_t>;

// Lowering: the task of each compute op, and its chunk (a transfer carries its producer's: read
// here, beside the task, rather than from the producer's record far back in the task array).
struct OpSlot {
  TaskId task;
  std::int16_t chunk;  // as Task::chunk holds it
};

class OpIndex {
 public:
  explicit OpIndex(const Schedule& s) : table_(s, s.total_micro_batches(), OpSlot{kNoTask, 0}) {}
  //! Requires a kind the schedule allows.
  OpSlot& slot(int stage, int micro_batch, OpKind kind) {
    return table_.at(stage, micro_batch, kind);
  }
  TaskId at(int stage, int micro_batch, OpKind kind) {
    return table_.at(stage, micro_batch, kind).task;
  }

 private:
  OpTable<OpSlot> table_;
};

// First pass of lowering: counts each task's out-edges (what TaskGraphBuilder::
// expect_out_degrees takes), the same calls the second pass makes on the builder.
class DegreeCount {
 public:
  //! The first pass fills the op index; the second numbers the tasks alike and reads it.
  static constexpr bool kFillsIndex = true;
  explicit DegreeCount(size_t tasks) { degrees_.reserve(tasks + 1); }  // + 1: see below
  // Lowering's loops call a sink once per task and per edge, through up to four instantiations
  // (two passes, with and without collectives): always inlined, as GCC's unit-growth limit
  // would otherwise keep these small calls out of line (a fifth of lowering's time).
  [[gnu::always_inline]] TaskId add_task(const Task&) {
    degrees_.push_back(0);
    return static_cast<TaskId>(degrees_.size() - 1);
  }
  [[gnu::always_inline]] void add_edge(TaskId from, TaskId, EdgeKind) { ++degrees_[from]; }
  int add_group(const std::vector<int>&) { return groups_++; }
  void add_release(const StartRelease&) {}
  void declare_collectives(bool) {}
  size_t tasks() const { return degrees_.size(); }
  //! Moved out, to become the graph's offsets (one element longer: reserved).
  std::vector<TaskId> take_degrees() { return std::move(degrees_); }

 private:
  std::vector<TaskId> degrees_;
  int groups_ = 0;
};

// The second pass: the builder itself.
class GraphSink {
 public:
  static constexpr bool kFillsIndex = false;
  explicit GraphSink(TaskGraphBuilder& graph) : graph_(graph) {}
  [[gnu::always_inline]] TaskId add_task(const Task& t) { return graph_.add_task(t); }
  [[gnu::always_inline]] void add_edge(TaskId from, TaskId to, EdgeKind kind) {
    graph_.add_edge(from, to, kind);
  }
  int add_group(std::vector<int> workers) { return graph_.add_group(std::move(workers)); }
  void add_release(const StartRelease& r) { graph_.add_release(r); }
  void declare_collectives(bool overlap) { graph_.declare_collectives(overlap); }

 private:
  TaskGraphBuilder& graph_;
};

bool kind_allowed(const Schedule& s, OpKind kind) {
  switch (kind) {
    case OpKind::Forward:
      return true;
    case OpKind::Backward:
      return !s.split_backward;
    case OpKind::BackwardInput:
    case OpKind::BackwardWeight:
      return s.split_backward;
    case OpKind::Recompute:
      return s.recompute;
    default:
      return false;
  }
}

std::vector<OpKind> required_kinds(const Schedule& s) {
  std::vector<OpKind> kinds{OpKind::Forward};
  if (s.recompute) kinds.push_back(OpKind::Recompute);
  if (s.split_backward) {
    kinds.push_back(OpKind::BackwardInput);
    kinds.push_back(OpKind::BackwardWeight);
  } else {
    kinds.push_back(OpKind::Backward);
  }
  return kinds;
}

std::string check_dimensions(const Schedule& s) {
  if (s.workers < 1) return fmt::format("workers must be at least 1, got {}", s.workers);
  if (s.virtual_stages < 1)
    return fmt::format("stages must be at least 1, got {}", s.virtual_stages);
  if (s.pipelines < 1) return fmt::format("pipelines must be at least 1, got {}", s.pipelines);
  if (static_cast<int>(s.stage_worker.size()) != s.pipelines) {
    return fmt::format("stage map lists {} pipelines, expected {}", s.stage_worker.size(),
                       s.pipelines);
  }
  for (int p = 0; p < s.pipelines; ++p) {
    const auto& map = s.stage_worker[static_cast<size_t>(p)];
    if (static_cast<int>(map.size()) != s.virtual_stages) {
      return fmt::format("pipeline {} maps {} stages, expected {}", p, map.size(),
                         s.virtual_stages);
    }
    for (int st = 0; st < s.virtual_stages; ++st) {
      const int w = map[static_cast<size_t>(st)];
      if (w < 0 || w >= s.workers) {
        return fmt::format("pipeline {} stage {} is mapped to worker {}, outside [0, {}]", p, st, w,
                           s.workers - 1);
      }
    }
  }
  if (static_cast<int>(s.program.size()) != s.workers) {
    return fmt::format("program lists {} workers, expected {}", s.program.size(), s.workers);
  }
  for (size_t m = 0; m < s.micro_batch_pipeline.size(); ++m) {
    const int p = s.micro_batch_pipeline[m];
    if (p < 0 || p >= s.pipelines) {
      return fmt::format("micro-batch {} is assigned to pipeline {}, outside [0, {}]", m, p,
                         s.pipelines - 1);
    }
  }
  return {};
}

// The gradient-producing ops of one stage on one worker in one iteration (update).
struct StageGrads {
  int iteration, stage, worker;
  TaskId first, last;  // in program order
  TaskId after_last;   // the worker's op after `last`, kNoTask if none
  TaskId before_last;  // the worker's op before `last`, kNoTask if none
};

// The sync tasks of one stage in one update (GradBuckets), after its holders' gradient ops
// grads[from, to): k gradient buckets, each released partway through every holder's last
// gradient op and after the bucket before it, the last one after those ops' end; then, with
// the distributed optimizer and no gather overlap, the parameters' all-gather. Returns the
// tasks the optimizer step waits for.
template <class Sink>
std::vector<TaskId> add_bucketed_sync(const std::vector<StageGrads>& grads, size_t from, size_t to,
                                      int group, const GradBuckets& buckets, Sink& graph) {
  const int stage = grads[from].stage;
  const int k = buckets.of(stage);
  Task bucket{.kind = OpKind::AllReduce,
              .part = SyncPart::Gradients,
              .worker = task_small(grads[from].worker),
              .stage = stage,
              .group = group};
  TaskId previous = kNoTask;
  for (int j = 0; j < k; ++j) {
    bucket.micro_batch = j;
    const TaskId id = graph.add_task(bucket);
    if (previous != kNoTask) graph.add_edge(previous, id, EdgeKind::Sync);
    for (size_t h = from; h < to; ++h) {
      if (j + 1 == k) {
        graph.add_edge(grads[h].last, id, EdgeKind::Sync);
        continue;
      }
      if (grads[h].before_last != kNoTask) graph.add_edge(grads[h].before_last, id, EdgeKind::Sync);
      graph.add_release(StartRelease{id, grads[h].last, static_cast<double>(j + 1) / k});
    }
    previous = id;
  }
  if (buckets.gather_apart && !buckets.overlap_gather) {
    bucket.part = SyncPart::Parameters;
    bucket.micro_batch = -1;  // every bucket's gather, one after another
    const TaskId id = graph.add_task(bucket);
    graph.add_edge(previous, id, EdgeKind::Sync);
    previous = id;
  }
  return {previous};
}

// GradBuckets with overlap_gather: per stage, k parameter buckets gathered over the stage's
// holders, the first at the iteration's start gating each holder's first forward of the stage,
// the second released when that forward starts, each after the one before; the worker's op
// after that forward waits for the last.
template <class Sink>
void add_param_gather(const Schedule& s, const GradBuckets& buckets, OpIndex& index, Sink& graph) {
  struct FirstForward {
    int worker;
    TaskId op, before, after;
  };
  std::vector<std::vector<FirstForward>> by_stage(static_cast<size_t>(s.virtual_stages));
  for (int w = 0; w < s.workers; ++w) {
    const std::vector<Op>& program = s.program[static_cast<size_t>(w)];
    std::vector<std::uint8_t> seen(static_cast<size_t>(s.virtual_stages), 0);
    for (size_t p = 0; p < program.size(); ++p) {
      const Op& op = program[p];
      if (op.kind != OpKind::Forward || seen[static_cast<size_t>(op.stage)]) continue;
      seen[static_cast<size_t>(op.stage)] = 1;
      const auto id_at = [&](size_t at) {
        const Op& o = program[at];
        return index.at(o.stage, o.micro_batch, o.kind);
      };
      by_stage[static_cast<size_t>(op.stage)].push_back(
          {w, id_at(p), p > 0 ? id_at(p - 1) : kNoTask,
           p + 1 < program.size() ? id_at(p + 1) : kNoTask});
    }
  }
  for (int st = 0; st < s.virtual_stages; ++st) {
    const auto& holders = by_stage[static_cast<size_t>(st)];
    if (holders.empty()) continue;
    std::vector<int> workers;
    for (const FirstForward& f : holders)
      workers.push_back(f.worker);
    Task gather{.kind = OpKind::AllReduce,
                .part = SyncPart::Parameters,
                .worker = task_small(workers.front()),
                .stage = st,
                .group = graph.add_group(workers)};
    const int k = buckets.of(st);
    TaskId previous = kNoTask;
    for (int j = 0; j < k; ++j) {
      gather.micro_batch = j;
      const TaskId id = graph.add_task(gather);
      for (const FirstForward& f : holders) {
        if (j == 0) graph.add_edge(id, f.op, EdgeKind::Sync);
        if (j == 1) {
          if (f.before != kNoTask) graph.add_edge(f.before, id, EdgeKind::Sync);
          graph.add_release(StartRelease{id, f.op, 0.0});
        }
        if (j + 1 == k && f.after != kNoTask) graph.add_edge(id, f.after, EdgeKind::Sync);
      }
      if (previous != kNoTask) graph.add_edge(previous, id, EdgeKind::Sync);
      previous = id;
    }
  }
}

// Gradient synchronisation and the optimizer step, one round per weight update.
//  - Flushing schedules update once per run: per stage one AllReduce after its last backward on
//    every worker holding it (eager synchronisation), then one Optimizer per worker after all of
//    its stages' all-reduces (with Schedule::global_step_sync, after every stage's).
//  - Asynchronous schedules (PipeDream, 2BW) update once per iteration of N micro-batches: the
//    same round per iteration k (A(s,k) after the stage's last backward of k, O(w,k) after the
//    worker's A(·,k)), and O(w,k) gates an op of iteration k+1 (Schedule::update_gate):
//      * PipeDream (Narayanan et al., SOSP'19, §3.3; a replicated stage all-reduces its
//        gradients like data parallelism, §3.2): the update of k is applied before the stage
//        computes its next gradient, so O(w,k) → the stage's first backward of k+1; the sync
//        can hide only behind the one forward that 1F1B runs in between;
//      * PipeDream-2BW (Narayanan et al., ICML'21, §3.1): W(k+1) = W(k) − ν·∇f(W(k−1)), one
//        version of delay; gradients of a batch are coalesced and the new version is needed
//        once the next batch's gradient is complete, so the all-reduce of k overlaps batch k+1
//        and O(w,k) → the stage's last backward of k+1 (at most one update outstanding: the
//        two buffered versions suffice).
//
// Compute tasks are numbered first, worker by worker in program order (lower_into), so an op's
// task is its position counted over the programs: the entries come from the schedule alone,
// once for both lowering passes.
int updates_of(const Schedule& s) {
  return s.asynchronous ? std::max(1, s.iterations) : 1;
}

std::vector<StageGrads> stage_grads(const Schedule& s) {
  const OpKind grad = s.split_backward ? OpKind::BackwardWeight : OpKind::Backward;
  const int per_update = s.asynchronous ? std::max(1, s.micro_batches) : 0;
  const int updates = updates_of(s);
  auto update_of = [&](int micro_batch) {
    return per_update == 0 ? 0 : std::min(micro_batch / per_update, updates - 1);
  };
  // One entry per (worker, stage, update), found in one pass over each program.
  std::vector<StageGrads> grads;
  std::vector<int> slot(static_cast<size_t>(s.virtual_stages) * static_cast<size_t>(updates), -1);
  TaskId id = 0;
  for (int w = 0; w < s.workers; ++w) {
    const size_t begin = grads.size();
    int just_ended = -1;  // the entry whose `last` is the previous op
    TaskId previous = kNoTask;
    for (const Op& op : s.program[static_cast<size_t>(w)]) {
      const TaskId task = id++;
      const TaskId before = previous;
      previous = task;
      if (just_ended >= 0) grads[static_cast<size_t>(just_ended)].after_last = task;
      just_ended = -1;
      if (op.kind != grad) continue;
      const int k = update_of(op.micro_batch);
      int& e = slot[static_cast<size_t>(k) * static_cast<size_t>(s.virtual_stages) +
                    static_cast<size_t>(op.stage)];
      if (e < 0) {
        e = static_cast<int>(grads.size());
        grads.push_back({k, op.stage, w, task, task, kNoTask, kNoTask});
      }
      grads[static_cast<size_t>(e)].last = task;
      grads[static_cast<size_t>(e)].after_last = kNoTask;
      grads[static_cast<size_t>(e)].before_last = before;
      just_ended = e;
    }
    for (size_t i = begin; i < grads.size(); ++i) {
      slot[static_cast<size_t>(grads[i].iteration) * static_cast<size_t>(s.virtual_stages) +
           static_cast<size_t>(grads[i].stage)] = -1;
    }
  }
  // Rounds in update order, stages in order, holders in worker order (stable).
  std::stable_sort(grads.begin(), grads.end(), [](const StageGrads& a, const StageGrads& b) {
    return a.iteration != b.iteration ? a.iteration < b.iteration : a.stage < b.stage;
  });
  return grads;
}

// The rounds themselves, from stage_grads()'s entries.
template <class Sink>
void add_gradient_sync(const Schedule& s, const GradBuckets& buckets,
                       const std::vector<StageGrads>& grads, OpIndex& index, Sink& graph) {
  PIPESIM_ASSERT(!buckets.overlap_gather || (buckets.gather_apart && !s.asynchronous),
                 "parameter gather overlap needs a separate gather and a flushing schedule");
  const int updates = updates_of(s);
  std::vector<TaskId> previous_step(static_cast<size_t>(s.workers), kNoTask);
  size_t i = 0;
  for (int k = 0; k < updates; ++k) {
    std::vector<std::vector<TaskId>> worker_reductions(static_cast<size_t>(s.workers));
    std::vector<TaskId> round_reductions;
    const size_t round = i;
    while (i < grads.size() && grads[i].iteration == k) {
      size_t j = i;
      std::vector<int> holders;
      while (j < grads.size() && grads[j].iteration == k && grads[j].stage == grads[i].stage) {
        holders.push_back(grads[j++].worker);
      }
      const int group = graph.add_group(holders);
      if (buckets.enabled()) {
        for (TaskId id : add_bucketed_sync(grads, i, j, group, buckets, graph)) {
          round_reductions.push_back(id);
          for (size_t h = i; h < j; ++h)
            worker_reductions[static_cast<size_t>(grads[h].worker)].push_back(id);
        }
        i = j;
        continue;
      }
      Task reduce{.kind = OpKind::AllReduce,
                  .worker = task_small(holders.front()),
                  .stage = grads[i].stage};
      reduce.group = group;
      const TaskId id = graph.add_task(reduce);
      round_reductions.push_back(id);
      for (size_t h = i; h < j; ++h) {
        graph.add_edge(grads[h].last, id, EdgeKind::Sync);
        worker_reductions[static_cast<size_t>(grads[h].worker)].push_back(id);
      }
      i = j;
    }
    std::vector<TaskId> step(static_cast<size_t>(s.workers), kNoTask);
    for (int w = 0; w < s.workers; ++w) {
      // A flushing schedule gives every worker its step; an asynchronous one only the workers
      // that produced gradients in this update.
      const auto& reductions = worker_reductions[static_cast<size_t>(w)];
      if (s.asynchronous && reductions.empty()) continue;
      step[static_cast<size_t>(w)] =
          graph.add_task(Task{.kind = OpKind::Optimizer, .worker = task_small(w)});
      for (TaskId from : reductions)
        graph.add_edge(from, step[static_cast<size_t>(w)], EdgeKind::Sync);
    }
    // A synchronous global check: every step also waits for the all-reduces of stages it
    // does not hold.
    for (int w = 0; s.global_step_sync && !s.asynchronous && w < s.workers; ++w) {
      const auto& own = worker_reductions[static_cast<size_t>(w)];
      for (TaskId from : round_reductions) {
        if (std::find(own.begin(), own.end(), from) == own.end())
          graph.add_edge(from, step[static_cast<size_t>(w)], EdgeKind::Sync);
      }
    }
    // A blocking sync holds the worker until its step is done.
    for (size_t h = round; s.blocking_sync && h < i; ++h) {
      const TaskId own = step[static_cast<size_t>(grads[h].worker)];
      if (own != kNoTask && grads[h].after_last != kNoTask) {
        graph.add_edge(own, grads[h].after_last, EdgeKind::Sync);
      }
    }
    // The previous update's step gates this update's first (PipeDream) or last (2BW) backward.
    for (size_t h = round; h < i; ++h) {
      const TaskId gate = previous_step[static_cast<size_t>(grads[h].worker)];
      if (gate == kNoTask) continue;
      graph.add_edge(gate,
                     s.update_gate == UpdateGate::NextBackward ? grads[h].first : grads[h].last,
                     EdgeKind::Sync);
    }
    previous_step = std::move(step);
  }
  if (buckets.overlap_gather) add_param_gather(s, buckets, index, graph);
}

// Overlapped units (Op::join) on one worker: none opens the program, each has exactly one Pair.
std::string unit_problem(const std::vector<Op>& program, int w) {
  int pairs = -1;  // Pair joins in the current unit; -1: the current op is alone
  for (size_t i = 0; i <= program.size(); ++i) {
    const Join join = i < program.size() ? program[i].join : Join::None;
    if (join == Join::None) {
      if (pairs == 0) {
        return fmt::format(
            "worker {} joins ops into an overlapped unit without a second half "
            "before {} (one op of the unit must join as Pair)",
            w, describe(program[i - 1]));
      }
      pairs = -1;
      continue;
    }
    if (i == 0) {
      return fmt::format("worker {} opens its program with {} joined to a previous op", w,
                         describe(program[i]));
    }
    pairs = std::max(pairs, 0) + (join == Join::Pair ? 1 : 0);
    if (pairs > 1) {
      return fmt::format(
          "worker {}: {} opens a third half in an overlapped unit (a unit has "
          "two halves)",
          w, describe(program[i]));
    }
  }
  return {};
}

// The first structural problem, in words; empty when none.
std::string structure_problem(const Schedule& s) {
  if (std::string why = check_dimensions(s); !why.empty()) return why;
  const int micro_batches = s.total_micro_batches();
  SeenOps seen(s, micro_batches, 0);
  for (int w = 0; w < s.workers; ++w) {
    for (const Op& op : s.program[static_cast<size_t>(w)]) {
      if (!is_compute(op.kind) || !kind_allowed(s, op.kind)) {
        return fmt::format("worker {} lists {}, which this schedule does not allow{}", w,
                           describe(op),
                           s.split_backward ? " (backward is split into I and W)" : "");
      }
      if (op.stage < 0 || op.stage >= s.virtual_stages || op.micro_batch < 0 ||
          op.micro_batch >= micro_batches || op.pipeline < 0 || op.pipeline >= s.pipelines) {
        return fmt::format("worker {} lists {}, outside stages [0, {}], micro-batches [0, {}]", w,
                           describe(op), s.virtual_stages - 1, micro_batches - 1);
      }
      if (s.micro_batch_pipeline[static_cast<size_t>(op.micro_batch)] != op.pipeline) {
        return fmt::format("worker {} lists {}, but micro-batch {} belongs to pipeline {}", w,
                           describe(op), op.micro_batch,
                           s.micro_batch_pipeline[static_cast<size_t>(op.micro_batch)]);
      }
      if (s.worker_of(op) != w) {
        return fmt::format("worker {} lists {}, but that stage runs on worker {}", w, describe(op),
                           s.worker_of(op));
      }
      std::uint8_t& slot = seen.at(op.stage, op.micro_batch, op.kind);
      if (slot) return fmt::format("duplicate {} on worker {}", describe(op), w);
      slot = 1;
    }
    if (std::string why = unit_problem(s.program[static_cast<size_t>(w)], w); !why.empty())
      return why;
  }
  const std::vector<OpKind> kinds = required_kinds(s);
  // Every op listed is distinct and of a required kind (the kinds allowed are the kinds
  // required), so as many ops as required means none is missing; only otherwise is the first
  // missing one looked for.
  size_t listed = 0;
  for (const auto& program : s.program)
    listed += program.size();
  if (listed ==
      static_cast<size_t>(micro_batches) * static_cast<size_t>(s.virtual_stages) * kinds.size()) {
    return {};
  }
  for (int m = 0; m < micro_batches; ++m) {
    const int p = s.micro_batch_pipeline[static_cast<size_t>(m)];
    for (int st = 0; st < s.virtual_stages; ++st) {
      for (OpKind kind : kinds) {
        if (!seen.at(st, m, kind)) {
          const Op op{kind, p, st, 0, m};
          return fmt::format("missing {} (expected on worker {})", describe(op), s.worker_of(op));
        }
      }
    }
  }
  return {};
}

}  // namespace

core::Check check_structure(const Schedule& s, std::string_view source, std::string_view field) {
  std::string why = structure_problem(s);
  if (why.empty()) return {};
  return core::ConfigError(source, field, why);
}

namespace {

// Collective tasks (OpCollectives) and overlapped units (Op::join) in front of a sink.
//  - An edge from an op that carries collectives leaves from its collective instead
//    (serialised) or from both (overlapped), and an edge into an op with an overlapped
//    collective also enters the collective.
//  - An edge into an op of a unit from outside it enters the unit's first op instead (the unit
//    starts once every input of every op in it is there) and the collectives of its second
//    half (which run beside the first half's compute); an edge out of an op of a unit to
//    outside it leaves from the unit's last op and from the collectives of its first half
//    (which run beside the second half's compute): every result leaves at the unit's end.
//    Edges inside a unit stay as they are.
// Ops are the first tasks, so `collective_of` and `unit_of` (by op task id) end where they do.
template <class Sink>
class OpEdges {
 public:
  static constexpr bool kFillsIndex = Sink::kFillsIndex;
  //! `ops`: how many compute tasks there are (they come first).
  OpEdges(Sink& sink, bool overlap, size_t ops)
      : sink_(sink), overlap_(overlap), collective_of_(ops, kNoTask) {}

  [[gnu::always_inline]] TaskId add_task(const Task& t) { return sink_.add_task(t); }
  int add_group(std::vector<int> workers) { return sink_.add_group(std::move(workers)); }
  void add_release(const StartRelease& r) { sink_.add_release(r); }
  void declare_collectives() { sink_.declare_collectives(overlap_); }
  //! `collective` runs the collectives of op `op`; serialised, it is the op's only successor.
  //! The collective of an op in a unit is placed by add_unit instead.
  void set_collective(TaskId op, TaskId collective, bool paired) {
    collective_of_[op] = collective;
    if (!overlap_ && !paired) sink_.add_edge(op, collective, EdgeKind::Data);
  }
  //! One unit: its ops' tasks in program order, the second half from `pair` on. After every
  //! set_collective, before any edge into or out of these ops. Phase one runs the first half's
  //! compute beside the second half's collectives, phase two the second half's compute beside
  //! the first half's collectives: each phase ends when both are done, so only the part of a
  //! half's communication longer than the other half's compute is exposed.
  void add_unit(std::span<const TaskId> ops, size_t pair) {
    if (unit_of_.empty()) unit_of_.assign(collective_of_.size(), kNoUnit);
    Unit u{ops.front(), ops.back(), static_cast<std::uint32_t>(halves_.size()), 0, 0};
    for (size_t i = 0; i < pair; ++i) {
      if (collective_of_[ops[i]] != kNoTask) halves_.push_back(collective_of_[ops[i]]);
    }
    u.second = static_cast<std::uint32_t>(halves_.size());
    for (size_t i = pair; i < ops.size(); ++i) {
      if (collective_of_[ops[i]] != kNoTask) halves_.push_back(collective_of_[ops[i]]);
    }
    u.end = static_cast<std::uint32_t>(halves_.size());
    for (TaskId op : ops)
      unit_of_[op] = static_cast<std::uint32_t>(units_.size());
    for (std::uint32_t c = u.second; c < u.end; ++c)
      sink_.add_edge(halves_[c], ops[pair], EdgeKind::Data);
    for (std::uint32_t c = u.first; c < u.second; ++c) {
      sink_.add_edge(ops[pair - 1], halves_[c], EdgeKind::Data);
      for (std::uint32_t d = u.second; d < u.end; ++d)
        sink_.add_edge(halves_[d], halves_[c], EdgeKind::Data);
    }
    units_.push_back(u);
  }
  [[gnu::always_inline]] void add_edge(TaskId from, TaskId to, EdgeKind kind) {
    const std::uint32_t uf = unit(from), ut = unit(to);
    if (uf != kNoUnit && uf == ut) {
      sink_.add_edge(from, to, kind);
      return;
    }
    // Targets outer, sources inner: the order the graph's successor lists keep.
    for_each_target(to, ut, [&](TaskId target) {
      for_each_source(from, uf, [&](TaskId source) { sink_.add_edge(source, target, kind); });
    });
  }

 private:
  static constexpr std::uint32_t kNoUnit = std::numeric_limits<std::uint32_t>::max();
  struct Unit {
    TaskId entry, exit;
    std::uint32_t first, second, end;  // halves_[first, second): first half's collectives
  };

  std::uint32_t unit(TaskId t) const { return t < unit_of_.size() ? unit_of_[t] : kNoUnit; }

  template <class F>
  [[gnu::always_inline]] void for_each_source(TaskId from, std::uint32_t u, F&& f) const {
    if (u != kNoUnit) {
      const Unit& unit = units_[u];
      f(unit.exit);
      for (std::uint32_t c = unit.first; c < unit.second; ++c)
        f(halves_[c]);
      return;
    }
    const TaskId from_c = from < collective_of_.size() ? collective_of_[from] : kNoTask;
    if (from_c == kNoTask || overlap_) f(from);
    if (from_c != kNoTask) f(from_c);
  }

  template <class F>
  [[gnu::always_inline]] void for_each_target(TaskId to, std::uint32_t u, F&& f) const {
    if (u != kNoUnit) {
      const Unit& unit = units_[u];
      f(unit.entry);
      for (std::uint32_t c = unit.second; c < unit.end; ++c)
        f(halves_[c]);
      return;
    }
    f(to);
    const TaskId to_c = overlap_ && to < collective_of_.size() ? collective_of_[to] : kNoTask;
    if (to_c != kNoTask) f(to_c);
  }

  Sink& sink_;
  bool overlap_;
  std::vector<TaskId> collective_of_;   // by compute task id
  std::vector<std::uint32_t> unit_of_;  // by compute task id; empty without units
  std::vector<Unit> units_;
  std::vector<TaskId> halves_;  // each unit's collectives, first half then second
};

// Activation offload (lowering.hpp, OffloadOps): per consumer of saved activations, in program
// order, an Offload after its forward and a Reload before it, issued at the prefetch point.
// Compute tasks are numbered worker by worker in program order, so an op's position in its
// worker's program is its id minus the id of the worker's first op.
template <class Graph>
void add_offload(const Schedule& s, const OffloadOps& offload, OpIndex& index, Graph& graph) {
  const OpKind consumer = s.recompute
                              ? OpKind::Recompute
                              : (s.split_backward ? OpKind::BackwardInput : OpKind::Backward);
  for (int w = 0; w < s.workers; ++w) {
    const std::vector<Op>& program = s.program[static_cast<size_t>(w)];
    if (program.empty()) continue;
    const TaskId first =
        index.at(program.front().stage, program.front().micro_batch, program.front().kind);
    std::ptrdiff_t previous = -1;  // position of the worker's previous consumer
    for (size_t p = 0; p < program.size(); ++p) {
      const Op& op = program[p];
      if (op.kind != consumer) continue;
      const auto at = static_cast<std::ptrdiff_t>(p);
      // The op whose end issues the reload: the one before the previous consumer, or before
      // the op before this one for the worker's first.
      const std::ptrdiff_t gate = previous >= 0 ? previous - 1 : at - 2;
      previous = at;
      const TaskId forward = index.at(op.stage, op.micro_batch, OpKind::Forward);
      const auto forward_at = static_cast<std::ptrdiff_t>(forward - first);
      if (offload.selective && gate <= forward_at) continue;  // reused soon: stays resident
      Task copy{.kind = OpKind::Offload,
                .worker = task_small(w),
                .pipeline = task_small(op.pipeline),
                .stage = op.stage,
                .chunk = task_small(op.chunk),
                .micro_batch = op.micro_batch};
      const TaskId out = graph.add_task(copy);
      copy.kind = OpKind::Reload;
      const TaskId back = graph.add_task(copy);
      graph.add_edge(forward, out, EdgeKind::Data);
      graph.add_edge(out, back, EdgeKind::Data);
      if (gate > forward_at) {
        const Op& g = program[static_cast<size_t>(gate)];
        graph.add_edge(index.at(g.stage, g.micro_batch, g.kind), back, EdgeKind::Data);
      }
      graph.add_edge(back, index.at(op.stage, op.micro_batch, op.kind), EdgeKind::Data);
    }
  }
}

// Everything lowering adds, in the order it adds it: both passes make the same calls. `Graph`
// is the sink itself, or OpEdges in front of it when some ops carry collectives or form units.
template <class Graph>
void lower_into(const Schedule& s, const OpCollectives& collectives, const OffloadOps& offload,
                const GradBuckets& buckets, const std::vector<StageGrads>& grads, OpIndex& index,
                Graph& graph) {
  constexpr bool kRewrite = requires(Graph g, TaskId t) {
    g.set_collective(t, t, false);
  };
  const int micro_batches = s.total_micro_batches();
  // Compute tasks in program order, worker by worker, chained on their worker's stream; with
  // collectives or units, the chains wait until the collectives (numbered next, in the same
  // order) and the units exist.
  for (int w = 0; w < s.workers; ++w) {
    TaskId previous = kNoTask;
    const std::vector<Op>& program = s.program[static_cast<size_t>(w)];
    for (size_t i = 0; i < program.size(); ++i) {
      const Op& op = program[i];
      [[maybe_unused]] const TaskId id =
          graph.add_task(Task{.kind = op.kind,
                              .join = op.join,
                              .paired = in_overlapped_unit(program, i),
                              .worker = task_small(w),
                              .pipeline = task_small(op.pipeline),
                              .stage = op.stage,
                              .chunk = task_small(op.chunk),
                              .micro_batch = op.micro_batch});
      if constexpr (Graph::kFillsIndex)
        index.slot(op.stage, op.micro_batch, op.kind) = {id, task_small(op.chunk)};
      if constexpr (!kRewrite) {
        if (previous != kNoTask) graph.add_edge(previous, id, EdgeKind::ProgramOrder);
        previous = id;
      }
    }
  }
  if constexpr (kRewrite) {
    if (collectives.any()) graph.declare_collectives();
    for (int w = 0; w < s.workers; ++w) {
      const std::vector<Op>& program = s.program[static_cast<size_t>(w)];
      for (size_t i = 0; i < program.size(); ++i) {
        const Op& op = program[i];
        if (!collectives.carried(op.stage, op.kind)) continue;
        const TaskId id = index.at(op.stage, op.micro_batch, op.kind);
        const bool paired = in_overlapped_unit(program, i);
        const TaskId c = graph.add_task(Task{.kind = OpKind::Collective,
                                             .carrier = op.kind,
                                             .paired = paired,
                                             .worker = task_small(w),
                                             .pipeline = task_small(op.pipeline),
                                             .stage = op.stage,
                                             .chunk = task_small(op.chunk),
                                             .micro_batch = op.micro_batch});
        graph.set_collective(id, c, paired);
      }
    }
    std::vector<TaskId> unit;
    for (int w = 0; w < s.workers; ++w) {
      const std::vector<Op>& program = s.program[static_cast<size_t>(w)];
      size_t pair = 0;
      for (size_t i = 0; i < program.size(); ++i) {
        const Op& op = program[i];
        if (op.join == Join::Pair) pair = unit.size();
        unit.push_back(index.at(op.stage, op.micro_batch, op.kind));
        if (i + 1 < program.size() && program[i + 1].join != Join::None) continue;
        if (unit.size() > 1) graph.add_unit(unit, pair);
        unit.clear();
      }
    }
    for (int w = 0; w < s.workers; ++w) {
      TaskId previous = kNoTask;
      for (const Op& op : s.program[static_cast<size_t>(w)]) {
        const TaskId id = index.at(op.stage, op.micro_batch, op.kind);
        if (previous != kNoTask) graph.add_edge(previous, id, EdgeKind::ProgramOrder);
        previous = id;
      }
    }
  }

  // Data edges; a producer on another worker sends its output through a Transfer task (the
  // producer's Task, as a message to the consumer's worker).
  const OpKind backward = s.split_backward ? OpKind::BackwardInput : OpKind::Backward;
  for (int m = 0; m < micro_batches; ++m) {
    const int p = s.micro_batch_pipeline[static_cast<size_t>(m)];
    const std::vector<int>& on = s.stage_worker[static_cast<size_t>(p)];
    // Inlined like the sinks' calls (called per data edge).
    auto connect = [&](int from_stage, OpKind from_kind, int to_stage, OpKind to_kind)
        __attribute__((always_inline)) {
      const OpSlot& producer = index.slot(from_stage, m, from_kind);
      const TaskId from = producer.task;
      const TaskId to = index.at(to_stage, m, to_kind);
      const int src = on[static_cast<size_t>(from_stage)];
      const int dst = on[static_cast<size_t>(to_stage)];
      if (src == dst) {
        graph.add_edge(from, to, EdgeKind::Data);
        return;
      }
      const TaskId transfer = graph.add_task(Task{.kind = OpKind::Transfer,
                                                  .worker = task_small(src),
                                                  .peer = task_small(dst),
                                                  .pipeline = task_small(p),
                                                  .stage = from_stage,
                                                  .chunk = producer.chunk,
                                                  .micro_batch = m});
      graph.add_edge(from, transfer, EdgeKind::Data);
      graph.add_edge(transfer, to, EdgeKind::Data);
    };
    for (int st = 0; st < s.virtual_stages; ++st) {
      if (st > 0) connect(st - 1, OpKind::Forward, st, OpKind::Forward);
      if (st + 1 < s.virtual_stages) {
        connect(st + 1, backward, st, backward);
      } else {
        connect(st, OpKind::Forward, st, backward);
      }
      if (s.split_backward) connect(st, OpKind::BackwardInput, st, OpKind::BackwardWeight);
      if (s.recompute) {
        connect(st, OpKind::Forward, st, OpKind::Recompute);
        connect(st, OpKind::Recompute, st, backward);
      }
    }
  }

  if (offload.enabled) add_offload(s, offload, index, graph);
  add_gradient_sync(s, buckets, grads, index, graph);
}

// With collectives or units: kept out of line, so that the inliner's budget goes to the common
// path.
template <class Sink>
[[gnu::noinline]] void lower_with_rewrite(const Schedule& s, const OpCollectives& collectives,
                                          const OffloadOps& offload, const GradBuckets& buckets,
                                          const std::vector<StageGrads>& grads, OpIndex& index,
                                          Sink& sink) {
  size_t ops = 0;
  for (const auto& program : s.program)
    ops += program.size();
  OpEdges<Sink> graph(sink, collectives.overlap, ops);
  lower_into(s, collectives, offload, buckets, grads, index, graph);
}

bool has_units(const Schedule& s) {
  return std::any_of(s.program.begin(), s.program.end(), [](const std::vector<Op>& ops) {
    return std::any_of(ops.begin(), ops.end(), [](const Op& op) { return op.join != Join::None; });
  });
}

template <class Sink>
void lower(const Schedule& s, const OpCollectives& collectives, const OffloadOps& offload,
           const GradBuckets& buckets, const std::vector<StageGrads>& grads, OpIndex& index,
           Sink& sink) {
  if (collectives.carries.empty() && !has_units(s)) {
    lower_into(s, collectives, offload, buckets, grads, index, sink);
  } else {
    lower_with_rewrite(s, collectives, offload, buckets, grads, index, sink);
  }
}

}  // namespace

TaskGraph build_task_graph(const Schedule& s, const OpCollectives& collectives,
                           const OffloadOps& offload, const GradBuckets& buckets) {
  // Callers run check_structure first (validate() does); only cheap checks are repeated here.
  PIPESIM_ASSERT(static_cast<int>(s.program.size()) == s.workers, "unchecked schedule");
  size_t compute_ops = 0;
  for (const auto& ops : s.program)
    compute_ops += ops.size();
  size_t tasks = (collectives.carries.empty() ? 2 : 3) * compute_ops +
                 (offload.enabled ? compute_ops : 0) +
                 2 * static_cast<size_t>(s.virtual_stages + s.workers);
  for (int st = 0; buckets.enabled() && st < s.virtual_stages; ++st)
    tasks +=
        2 * static_cast<size_t>(buckets.of(st)) * static_cast<size_t>(std::max(1, s.iterations));
  // Two passes over the same calls: the first counts each task's out-edges, so that the
  // second writes every edge straight into the graph (no edge list to sort: lowering's memory
  // is the graph's).
  OpIndex index(s);
  const std::vector<StageGrads> grads = stage_grads(s);
  DegreeCount count(tasks);
  lower(s, collectives, offload, buckets, grads, index, count);
  TaskGraphBuilder graph(s.workers);
  graph.reserve(count.tasks(), 0);
  graph.expect_out_degrees(count.take_degrees());
  GraphSink sink(graph);
  lower(s, collectives, offload, buckets, grads, index, sink);
  return std::move(graph).build();
}

namespace {

// `waiting[t]`: predecessors of task t that never finished (Kahn's leftover in-degree). At least
// one task must be waiting. Names a worker and the first compute op, in program order, of a
// cycle among the waiting tasks: where the schedule deadlocks.
std::string name_cycle(const TaskGraph& graph, std::span<const TaskId> waiting) {
  // Each waiting task has a waiting predecessor; following them back must repeat a task, which
  // lies on a cycle. Name the cycle's first compute op in program order: that is where the
  // schedule deadlocks.
  const auto offset = graph.successor_offsets();
  const auto succ = graph.successors();
  const size_t n = graph.num_tasks();
  std::vector<TaskId> blocked_pred(n, kNoTask);
  for (TaskId from = 0; from < n; ++from) {
    if (waiting[from] == 0) continue;
    for (TaskId i = offset[from]; i < offset[from + 1]; ++i) {
      if (blocked_pred[succ[i]] == kNoTask) blocked_pred[succ[i]] = from;
    }
  }
  TaskId v = 0;
  while (waiting[v] == 0)
    ++v;
  std::vector<bool> visited(n, false);
  while (!visited[v]) {
    visited[v] = true;
    v = blocked_pred[v];
  }
  TaskId culprit = kNoTask;
  TaskId u = v;
  do {
    if (is_compute(graph.task(u).kind) && (culprit == kNoTask || u < culprit)) culprit = u;
    u = blocked_pred[u];
  } while (u != v);
  if (culprit == kNoTask) return "cyclic order (deadlock)";
  const Task& t = graph.task(culprit);
  return fmt::format("cyclic order (deadlock): worker {} can never run {}", t.worker,
                     describe(t.op()));
}

}  // namespace

core::Check check_acyclic(const TaskGraph& graph, std::string_view source, std::string_view field) {
  const auto offset = graph.successor_offsets();
  const auto succ = graph.successors();
  const size_t n = graph.num_tasks();
  std::vector<TaskId> indegree = graph.in_degrees();
  std::vector<TaskId> ready;
  for (size_t v = 0; v < n; ++v) {
    if (indegree[v] == 0) ready.push_back(static_cast<TaskId>(v));
  }
  size_t done = 0;
  while (!ready.empty()) {
    const TaskId v = ready.back();
    ready.pop_back();
    ++done;
    for (TaskId i = offset[v]; i < offset[v + 1]; ++i) {
      if (--indegree[succ[i]] == 0) ready.push_back(succ[i]);
    }
  }
  if (done == n) return {};
  return core::ConfigError(source, field, name_cycle(graph, indegree));
}

core::Check validate(const Schedule& schedule, std::string_view source, std::string_view field) {
  if (core::Check c = check_structure(schedule, source, field); !c.ok()) return c;
  return check_acyclic(build_task_graph(schedule), source, field);
}

}  // namespace pipesim::sim
