#pragma once
// The task DAG a schedule lowers to. Vertices are tasks; edges are data dependencies, program
// order on a worker's stream, and gradient synchronisation.
//
// The graph is compressed sparse rows: immutable once built, one contiguous array of successors,
// no allocation per vertex or edge. (An adjacency_list allocates an edge list per vertex and made
// lowering 5x slower than simulating; see bench/simulate_bench.cpp.) TaskGraphBuilder collects
// tasks and edges (inline: lowering adds hundreds of thousands), then build() freezes them with
// one stable counting sort by source.

#include <cstdint>
#include <span>
#include <vector>

#include "pipesim/core/assert.hpp"
#include "pipesim/sim/op.hpp"

namespace pipesim::sim {

using TaskId = std::uint32_t;

//! Which part of a stage's data-parallel synchronisation an AllReduce task is (lowering.hpp,
//! GradBuckets).
enum class SyncPart : std::uint8_t {
  Whole,       //!< the whole sync of the stage's gradients (and parameters) in one task
  Gradients,   //!< bucket `micro_batch` of the gradients' all-reduce or reduce-scatter
  Parameters,  //!< bucket `micro_batch` of the updated parameters' all-gather
};

//! A worker, pipeline or chunk number as a Task stores it, in 16 bits: workers and pipelines
//! number at most schedules::kMaxStages (4096), chunks at most 64.
inline std::int16_t task_small(int v) {
  PIPESIM_ASSERT(v >= -1 && v <= 0x7fff, "a worker, pipeline or chunk beyond 16 bits");
  return static_cast<std::int16_t>(v);
}

struct Task {
  OpKind kind = OpKind::Forward;
  //! Collective: the kind of the compute op whose collectives it runs
  OpKind carrier = OpKind::Forward;
  //! Compute op: Op::join.
  Join join = Join::None;
  //! A compute op of an overlapped unit (Op::join), or the Collective of one: such a collective
  //! runs beside the other half's compute and holds no stream, whatever the graph's mode.
  bool paired = false;
  SyncPart part = SyncPart::Whole;  //!< AllReduce: which part of the sync
  std::int16_t worker = 0;          //!< executing worker; the sender for a Transfer
  std::int16_t peer = -1;           //!< receiver of a Transfer, otherwise −1
  std::int16_t pipeline = 0;        //!< for Transfer: of the op that produced the message
  int stage = 0;                    //!< for AllReduce: the stage whose gradients are reduced
  std::int16_t chunk = 0;
  int micro_batch = -1;  //!< −1 for Optimizer and a whole AllReduce; a bucket's index
  int group = -1;        //!< AllReduce: index into TaskGraph::group_workers()

  Op op() const { return Op{kind, pipeline, stage, chunk, micro_batch, join}; }
};
// Five one-byte fields, worker, peer and pipeline in 16 bits (task_small), the stage, the chunk
// in 16 bits, two ints: 28 bytes (in declaration order, which designated initialisers follow).
// Lowering writes one record per task and the replay's passes read them, so the record's size is
// much of their time (it was 36 bytes with seven ints; virtual stages and micro-batches can exceed
// 16 bits, workers, pipelines and chunks cannot). (An enum bit field would save more, but g++
// 12 then refuses copy-list-initialisation of a Task.)
static_assert(sizeof(Task) == 28, "a task record stays 28 bytes");

enum class EdgeKind : std::uint8_t {
  Data,          //!< the consumer needs the producer's output
  ProgramOrder,  //!< consecutive ops of one worker's compute stream
  Sync,          //!< gradient synchronisation and optimizer step
};

struct Edge {
  EdgeKind kind = EdgeKind::Data;
};

//! A start that no edge expresses: `task` may start only once `anchor` has run `fraction` of
//! its duration (a gradient bucket is final partway through the backward that computes it,
//! lowering.hpp, GradBuckets). The replay counts each release as one more predecessor of
//! `task`; the DAG also holds an edge from the op before the anchor, so the order analyses
//! (acyclicity, critical path) see the task after what precedes its anchor.
struct StartRelease {
  TaskId task = 0, anchor = 0;
  double fraction = 0.0;  //!< in [0, 1)
};

class TaskGraph {
 public:
  TaskGraph() = default;

  int workers() const { return workers_; }
  size_t num_tasks() const { return tasks_.size(); }
  size_t num_edges() const { return successors_.size(); }
  const Task& task(TaskId id) const { return tasks_[id]; }
  const std::vector<Task>& tasks() const { return tasks_; }
  //! Each task's kind, by id: the same as task(id).kind, in one byte a task apart from the
  //! 28-byte records, for the passes that read the kind of every task (a replay's durations,
  //! metrics) and would otherwise pull each record through the cache for one byte.
  std::span<const OpKind> kinds() const { return kinds_; }
  //! Number of edges into each task (the CSR graph stores out-edges only).
  std::vector<TaskId> in_degrees() const;
  const std::vector<std::vector<int>>& group_workers() const { return groups_; }
  //! Starts released partway through another task (StartRelease), in the order added.
  const std::vector<StartRelease>& releases() const { return releases_; }
  //! Whether the graph has Collective tasks, and whether they run beside their op (no stream)
  //! rather than after it on the op's stream (lowering.hpp, OpCollectives).
  bool has_collectives() const { return collectives_ != Collectives::None; }
  bool collectives_overlap() const { return collectives_ == Collectives::Beside; }
  //! A serialised collective holds its worker's stream: with one, is this task the compute op
  //! that hands its stream to its collective? Lowering makes the collective such an op's only
  //! successor (every edge out of the op leaves from its collective instead).
  bool hands_stream_over(TaskId t) const {
    return collectives_ == Collectives::After && offsets_[t + 1] - offsets_[t] == 1 &&
           tasks_[successors_[offsets_[t]]].kind == OpKind::Collective &&
           !tasks_[successors_[offsets_[t]]].paired;
  }
  //! The CSR arrays: the successors of task t are
  //! successors()[successor_offsets()[t] .. successor_offsets()[t + 1]), in the order their
  //! edges were added; edge_kinds()[i] is the kind of the edge to successors()[i].
  std::span<const TaskId> successor_offsets() const { return offsets_; }
  std::span<const TaskId> successors() const { return successors_; }
  std::span<const Edge> edge_kinds() const { return edges_; }

 private:
  friend class TaskGraphBuilder;
  enum class Collectives : std::uint8_t { None, After, Beside };
  int workers_ = 0;
  Collectives collectives_ = Collectives::None;
  std::vector<Task> tasks_;
  std::vector<OpKind> kinds_;
  std::vector<TaskId> offsets_, successors_;
  std::vector<Edge> edges_;
  std::vector<std::vector<int>> groups_;
  std::vector<StartRelease> releases_;
};

class TaskGraphBuilder {
 public:
  explicit TaskGraphBuilder(int workers) : workers_(workers) {}

  // Both are called once per task and edge from lowering's loops: always inlined there (GCC's
  // unit-growth limit would otherwise keep them out of line in some of its instantiations).
  [[gnu::always_inline]] TaskId add_task(const Task& task) {
    PIPESIM_ASSERT(task.worker >= 0 && task.worker < workers_, "task on a worker out of range");
    PIPESIM_ASSERT(task.kind != OpKind::Collective || collectives_,
                   "a Collective task before declare_collectives()");
    tasks_.push_back(task);
    op_kinds_.push_back(task.kind);
    return static_cast<TaskId>(tasks_.size() - 1);
  }
  [[gnu::always_inline]] void add_edge(TaskId from, TaskId to, EdgeKind kind) {
    PIPESIM_ASSERT(from < tasks_.size() && to < tasks_.size() && from != to, "bad edge");
    if (direct_) {
      const TaskId at = next_[from]++;
      successors_[at] = to;
      kinds_[at] = Edge{kind};
    } else {
      edges_.push_back(Added{from, to, kind});
    }
  }
  //! Optional, before any edge is added: the number of out-edges of every task that will be
  //! added (by task id), so that each edge goes straight to its place in the graph instead of
  //! into a list sorted by build(). Lowering counts them in a first pass. The vector becomes
  //! the graph's offsets (one more element is appended: reserve room for it).
  void expect_out_degrees(std::vector<TaskId> degrees);
  //! Registers the workers taking part in an all-reduce; returns the group index.
  int add_group(std::vector<int> workers);
  //! Before adding Collective tasks: there will be some, running beside their op (`overlap`)
  //! or after it, on its stream.
  void declare_collectives(bool overlap) {
    collectives_ = true;
    collectives_overlap_ = overlap;
  }
  //! `r.task` may start only once `r.anchor` has run r.fraction of its duration.
  void add_release(const StartRelease& r) {
    PIPESIM_ASSERT(
        r.task < tasks_.size() && r.anchor < tasks_.size() && r.fraction >= 0.0 && r.fraction < 1.0,
        "bad start release");
    releases_.push_back(r);
  }
  void reserve(size_t tasks, size_t edges);
  const Task& task(TaskId id) const { return tasks_[id]; }
  size_t num_tasks() const { return tasks_.size(); }

  //! Freezes what was added into a TaskGraph; the builder is left empty.
  TaskGraph build() &&;

 private:
  struct Added {
    TaskId from, to;
    EdgeKind kind;
  };
  int workers_;
  bool collectives_ = false;  // declare_collectives() was called
  bool collectives_overlap_ = false;
  std::vector<Task> tasks_;
  std::vector<OpKind> op_kinds_;  // TaskGraph::kinds()
  std::vector<Added> edges_;      // in the order added
  std::vector<std::vector<int>> groups_;
  std::vector<StartRelease> releases_;
  // expect_out_degrees(): where each task's next edge goes, and the graph's CSR arrays.
  bool direct_ = false;
  std::vector<TaskId> next_, successors_;
  std::vector<Edge> kinds_;
};

}  // namespace pipesim::sim
