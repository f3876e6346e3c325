#pragma once
// Schedule → TaskGraph, the one shared builder (docs/architecture.md §3), and the validator that
// proves a schedule sound before it is simulated.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipesim/core/check.hpp"
#include "pipesim/sim/schedule.hpp"
#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim {

//! Passes when the schedule is complete and consistent: dimensions agree, every op is on the
//! worker that holds its stage, each required op appears exactly once, no foreign kinds.
//! Otherwise the first problem found, as a ConfigError at `source`: `field` (a schedule file
//! and "schedule", a generator's output and "generated order", ...).
core::Check check_structure(const Schedule& schedule, std::string_view source = "schedule",
                            std::string_view field = "order");

//! Which compute ops run collectives inside their layers (tensor parallelism's all-reduces, or
//! reduce-scatter/all-gather pairs), told by the cost model. Each such op gets one Collective
//! task for all of them (its carrier kind, stage, micro-batch and worker are the op's):
//!  - serialised (`overlap` false, Megatron without TP-communication overlap): the collective
//!    follows the op on the worker's stream, which the op hands straight to it, and every edge
//!    out of the op leaves from the collective instead: the op's result exists only once its
//!    collectives are done;
//!  - overlapped (`overlap` true, Megatron-Core --tp-comm-overlap): the collective runs beside
//!    the op, holding no stream; it has the op's predecessors (program order included), so it
//!    starts when the op does, and every successor of the op waits for both.
struct OpCollectives {
  //! Per virtual stage and compute kind (stage · kNumComputeKinds + kind): whether that op
  //! carries collectives. Empty: none does.
  std::vector<std::uint8_t> carries;
  bool overlap = false;

  bool any() const {
    return std::any_of(carries.begin(), carries.end(), [](std::uint8_t c) { return c != 0; });
  }
  bool carried(int stage, OpKind kind) const {
    const size_t at = static_cast<size_t>(stage) * kNumComputeKinds + static_cast<size_t>(kind);
    return at < carries.size() && carries[at] != 0;
  }
};

//! Activation offload (PipeOffload, Wan et al. 2025, arXiv 2503.01328): the saved activations of
//! each (stage, micro-batch) go to host memory after the forward and come back before the
//! backward, on the worker's host link, beside compute. Each offloaded activation gets two
//! tasks, numbered after everything else, worker by worker in program order of the consumer:
//!  - Offload (D2H) after the forward: F → D;
//!  - Reload (H2D) after the offload, and not before its prefetch point: when the worker's
//!    previous backward can start (after the op before that backward), or, for the worker's
//!    first backward, when the op just before it can start; the consumer (R with
//!    recomputation, else B, or I for a split backward) waits for it: D → H → consumer.
//! Every edge is a data edge. With `selective` (the paper's rule: offload only what is not
//! reused soon) an activation whose reload would be issued no later than its forward ends (no
//! other backward between its forward and its backward: the last stage, the last warm-up
//! micro-batch of 1F1B) stays resident and gets no tasks.
struct OffloadOps {
  bool enabled = false;
  bool selective = false;
};

//! The data-parallel sync overlapped as Megatron-Core does it (--overlap-grad-reduce,
//! --overlap-param-gather): the gradient buffer is split into buckets, each bucket's collective
//! is launched as soon as its gradients are final, and the buckets' collectives run one after
//! another on the data-parallel group. Per stage and update, with k = buckets(stage):
//!  - gradient bucket j (AllReduce, SyncPart::Gradients, micro_batch j) is final once the
//!    stage's last gradient op (B, or W of a split backward) on every holder has run (j+1)/k
//!    of its duration (a StartRelease on that op; the layers' gradients come out in reverse
//!    layer order at an even pace), and after bucket j−1; the last bucket follows the op's
//!    end;
//!  - with `gather_apart` (distributed optimizer: the buckets reduce-scatter), the updated
//!    parameters' all-gather (SyncPart::Parameters): without `overlap_gather`, one task after
//!    the last gradient bucket, before the step; with it, k buckets overlapping the stage's
//!    first forward of the iteration on each holder. One iteration is simulated in steady
//!    state, so that forward stands for the next iteration's: the previous step's gather of
//!    bucket 0 is issued at the iteration's start (Megatron issues it in zero_grad) and gates
//!    the forward; bucket 1 is issued when the forward starts (its pre-hook) and bucket j after
//!    bucket j−1; the worker's next op waits for the last bucket (an approximation: the forward
//!    itself is not split at bucket boundaries, and its output leaves without waiting).
//! The optimizer step waits for every sync task of its stages. Empty `buckets`: one AllReduce
//! per stage (SyncPart::Whole), as without these options.
struct GradBuckets {
  std::vector<int> buckets;  //!< per virtual stage, k ≥ 1; empty: no bucketed overlap
  bool gather_apart = false;
  bool overlap_gather = false;

  bool enabled() const { return !buckets.empty(); }
  int of(int stage) const {
    const auto at = static_cast<size_t>(stage);
    return at < buckets.size() ? std::max(1, buckets[at]) : 1;
  }
};

//! Lowers a structurally valid schedule (asserted) to its task DAG:
//!  - data edges F(s,m)→F(s+1,m), F(last,m)→B(last,m), B(s+1,m)→B(s,m) (I likewise), I→W,
//!    F→R→B; an edge between two workers goes through a Transfer task;
//!  - program-order edges between consecutive ops of each worker; compute tasks are numbered
//!    worker by worker in program order (metrics rely on it);
//!  - one AllReduce per stage after that stage's last backward on every worker that holds it,
//!    then one Optimizer per worker after all of its stages' all-reduces (with
//!    Schedule::global_step_sync, after every stage's: a synchronous global check);
//!  - one Collective per op that carries collectives (OpCollectives), numbered after the
//!    compute tasks, worker by worker in program order (transfers and the rest follow);
//!  - with `offload`, the offload and reload tasks of OffloadOps (after the transfers);
//!  - with `buckets`, the sync as GradBuckets says instead of one AllReduce per stage.
TaskGraph build_task_graph(const Schedule& schedule, const OpCollectives& collectives = {},
                           const OffloadOps& offload = {}, const GradBuckets& buckets = {});

//! Passes when the graph (program order included) is acyclic; otherwise the problem names a
//! worker and the op it is stuck at (such a schedule would deadlock), located as above.
core::Check check_acyclic(const TaskGraph& graph, std::string_view source = "schedule",
                          std::string_view field = "order");

//! check_structure, then build and check_acyclic.
core::Check validate(const Schedule& schedule, std::string_view source = "schedule",
                     std::string_view field = "order");

}  // namespace pipesim::sim
