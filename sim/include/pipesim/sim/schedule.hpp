#pragma once
// A Schedule is what a generator returns: for each worker of one pipeline replica, the ordered
// list of compute ops it runs, plus where every (pipeline, stage) lives. It is a plain value;
// build_task_graph() lowers it to a TaskGraph and validate() proves it sound.

#include <cstdint>
#include <string>
#include <vector>

#include "pipesim/sim/op.hpp"

namespace pipesim::sim {

//! Asynchronous schedules synchronise gradients once per weight update (one update per
//! iteration of N micro-batches). The lowering adds, per iteration k, each stage's all-reduce
//! A(s,k) after the stage's last backward of k and each worker's optimizer step O(w,k) after
//! its stages' all-reduces; UpdateGate says which op of iteration k+1 waits for O(w,k).
enum class UpdateGate : std::uint8_t {
  //! PipeDream (SOSP'19): the stage's first backward of iteration k+1 (the next gradient is
  //! computed only after update k is applied).
  NextBackward,
  //! PipeDream-2BW (ICML'21): the stage's last backward of iteration k+1 (update k overlaps the
  //! next batch; at most one update is outstanding, so two weight versions suffice).
  LastBackwardOfNext,
};

struct Schedule {
  std::string name;             //!< registry name, e.g. "1f1b"
  int workers = 0;              //!< D: workers (GPUs) in one pipeline replica
  int virtual_stages = 0;       //!< stages per pipeline counting each chunk: D · chunks
  int pipelines = 1;            //!< model copies with their own stage→worker map (Chimera: 2f)
  int micro_batches = 0;        //!< N: micro-batches per iteration (over all pipelines)
  int iterations = 1;           //!< iterations listed; asynchronous schedules list several
  bool split_backward = false;  //!< backward as I + W instead of B
  bool recompute = false;       //!< an R op precedes every backward (activation checkpointing)
  //! No flush between iterations (PipeDream, 2BW): metrics report the steady state.
  bool asynchronous = false;
  //! Asynchronous schedules: the op of iteration k+1 that waits for weight update k.
  UpdateGate update_gate = UpdateGate::NextBackward;
  //! Asynchronous schedules: the worker's next op after its last backward of update k waits for
  //! its step O(w,k), as with a blocking all-reduce (PyTorch DDP: backward returns only once
  //! the gradient all-reduce is done, and the loop then steps the optimizer).
  bool blocking_sync = false;
  //! Asynchronous schedules: the listed iterations repeat, each run filling and draining the
  //! pipeline (a training loop that flushes at every epoch's end), so the period the metrics
  //! report is the whole run per iteration, not the steady state.
  bool drains_each_run = false;
  //! Flushing schedules: every worker's optimizer step waits for every stage's all-reduce, the
  //! barrier of a synchronous global check before the step (gradient-norm clipping, NaN/Inf);
  //! false: each worker steps once its own stages are reduced (Zero Bubble's post-validation,
  //! Qi et al., ICLR 2024, §4, which checks the global state during the next iteration).
  bool global_step_sync = false;
  //! Ops run at micro-batch size B / micro_batch_divisor (Chimera's backward halving: 2).
  int micro_batch_divisor = 1;
  //! weight_versions[w]: copies of its stages' weights worker w keeps (weight stashing,
  //! double buffering). Empty means one version everywhere.
  std::vector<int> weight_versions;
  //! stage_worker[p][s]: the worker that runs stage s of pipeline p.
  std::vector<std::vector<int>> stage_worker;
  //! micro_batch_pipeline[m]: the pipeline micro-batch m flows through (m < N · iterations).
  std::vector<int> micro_batch_pipeline;
  //! program[w]: worker w's compute ops in execution order.
  std::vector<std::vector<Op>> program;

  int total_micro_batches() const { return static_cast<int>(micro_batch_pipeline.size()); }
  int worker_of(const Op& op) const { return stage_worker[op.pipeline][op.stage]; }
};

//! A schedule with one pipeline whose stage s runs on worker s, and every micro-batch in it:
//! the common start of single-direction generators (GPipe, 1F1B, ...).
Schedule make_linear_schedule(std::string name, int workers, int micro_batches);

}  // namespace pipesim::sim
