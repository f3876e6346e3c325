#pragma once
// Internal helpers shared by the generators: op constructors, "sort by slot" merging (Chimera,
// GEMS), and a greedy list scheduler for the schemes whose published order is produced by a
// simulation with priorities (zero-bubble H2 and V-shape, DualPipe).

#include <string>
#include <vector>

#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim::schedules::detail {

inline sim::Op fwd(int pipeline, int stage, int mb, int chunk = 0) {
  return {sim::OpKind::Forward, pipeline, stage, chunk, mb};
}
inline sim::Op bwd(int pipeline, int stage, int mb, int chunk = 0) {
  return {sim::OpKind::Backward, pipeline, stage, chunk, mb};
}
inline sim::Op bwd_input(int pipeline, int stage, int mb, int chunk = 0) {
  return {sim::OpKind::BackwardInput, pipeline, stage, chunk, mb};
}
inline sim::Op bwd_weight(int pipeline, int stage, int mb, int chunk = 0) {
  return {sim::OpKind::BackwardWeight, pipeline, stage, chunk, mb};
}

//! An op placed at an integer slot; a worker's program is its ops sorted by (slot, tie).
struct SlottedOp {
  long slot;
  int tie;  //!< breaks equal slots deterministically (lower first)
  sim::Op op;
};

//! Fills s.program from slotted ops: each op goes to the worker holding its stage, sorted.
void assign_by_slot(sim::Schedule& s, std::vector<SlottedOp> ops);

//! Policy of the greedy list scheduler. When a worker is free it starts, among its ready ops,
//! the one with the smallest (rank(kind), micro-batch order, stage); a forward only while fewer
//! than max_in_flight[w] activation sets are held (released by W, or B when not split).
struct ListPolicy {
  int rank_forward = 1;
  int rank_backward = 0;  //!< B or I
  int rank_weight = 2;    //!< W
  //! Prefer the later chunk among ready forwards (V-shape schedules finish micro-batches first).
  bool forward_later_chunk_first = false;
  std::vector<int> max_in_flight;  //!< per worker; empty or 0 = unlimited
  //! Nominal durations used to decide the order (the papers' equal-cost figures by default).
  double t_forward = 1.0, t_backward = 1.0, t_weight = 1.0;
};

//! Orders every op of `s` (stage maps and micro-batches already set; program ignored) by a
//! deterministic greedy simulation under `policy`; writes s.program.
void list_schedule(sim::Schedule& s, const ListPolicy& policy);

//! Worker of each virtual stage in a V shape over D workers: stage k < D on worker k, stage
//! k >= D on worker 2D-1-k (zero-bubble V, DualPipeV).
std::vector<int> v_shape_map(int workers);

//! One of the two model parts a DualPipe rank holds: its stage and, in FIFO order, the
//! micro-batches that pass through it.
struct DualPipePhase {
  int pipeline = 0;
  int stage = 0;
  int chunk = 0;
  std::vector<int> micro_batches;
};

//! A looped pipeline (interleaved, breadth-first) without its programs: D·v virtual stages for
//! v = the `chunks` option, stage c·D + w on worker w, so each micro-batch loops v times
//! through the workers.
sim::Schedule looped_schedule(std::string name, const ScheduleParams& params);

//! The `chunks` option of the looped schemes (model chunks v per worker), declared once so they
//! share its kind, range and default; its value on resolved params.
core::OptionSpec chunks_option();
int chunks_of(const ScheduleParams& params);

//! Search variants of a `chunks` option: 2, 4, 8 chunks per worker while chunks · D ≤ layers
//! (all when the layers are unknown); when not even 2 fit, one pruned variant saying why.
std::vector<SearchVariant> chunk_variants(const SearchContext& context);

//! Shapes shared by several schemes (ScheduleEntry::shape): two model chunks per worker (V
//! shapes), the `chunks` option's value (looped schemes), two pipelines (bidirectional schemes),
//! the listed iterations (asynchronous ones).
core::OptionValues two_chunks(const ScheduleParams& params);
core::OptionValues listed_chunks(const ScheduleParams& params);
core::OptionValues two_pipelines(const ScheduleParams& params);
core::OptionValues listed_iterations(const ScheduleParams& params);

//! The options of the asynchronous schemes: `iterations` listed (steady state needs 3) and
//! `epoch_drain`.
std::vector<core::OptionSpec> async_options();

//! Asynchronous 1F1B over `iterations` × `micro_batches` micro-batches, no flush (PipeDream and
//! PipeDream-2BW share this order; they differ in weight versions).
sim::Schedule make_async_1f1b(std::string name, int stages, int micro_batches, int iterations);

//! DualPipe's eight-step per-rank order (github.com/deepseek-ai/DualPipe, dualpipe.py step()):
//! H = half the ranks (DualPipe) or all of them (DualPipeV), h = the rank's distance from the
//! nearer end, phase 0 = the part whose micro-batches enter nearer to it. A zero-bubble backward
//! (enable_zb) is I with its W queued; a weight step pops the queue; otherwise B = I then W;
//! an overlapped "F&B" chunk (steps 4 and 5, but the middle rank's first pair) is one unit: F,
//! then I and W joined as its second half (sim::Join). Each phase needs >= 2H micro-batches.
std::vector<sim::Op> dualpipe_order(int H, int h, const DualPipePhase phases[2]);

}  // namespace pipesim::schedules::detail
