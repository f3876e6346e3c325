#pragma once
// Sharded data parallelism (TrainingSetup::data_parallel_sharding): what it adds to a stage's
// memory and to its compute ops' communication.
//
// Memory per GPU, P parameters of a stage on one GPU, d = its data-parallel group (the
// optimizer shards, stage_memory.hpp), bytes per parameter w + g + o (static_memory.hpp):
//   none       P·(w + g + o)
//   optimizer  P·(w + g) + P·o/d                                         ZeRO-1 [R20 §5.1]
//   gradients  P·w + P·(g + o)/d + one unit's gradient g·U                ZeRO-2 [R20 §5.2]
//   params     P·(w + g + o)/d + 2 units' parameters + one unit's gradient ZeRO-3 [R20 §5.3]
// (fp16 Adam, w + g + o = 2 + 2 + 12: 16, 4 + 12/d, 2 + 14/d, 16/d). A unit is the largest
// layer of the stage (the embedding and the head are units of their own): FSDP2 all-gathers a
// unit's parameters before its forward and again before its backward, keeps the unit being
// computed and the next one, prefetched, unsharded [FSDP2], and frees them after (reshard after
// forward, its default); the unit's unsharded gradient lives until it is reduce-scattered
// [Z23 §3.2–3.3]. These transient bytes are held while a compute op of the stage runs
// (StageMemory::workspace).
//
// Time: each op moves its units in order (the forward first to last, a backward last to
// first) and runs the collectives of the next and the previous unit beside the current one's
// compute (forward and backward prefetch [FSDP2][Z23 §3.4]): the first unit's gather is
// exposed, then per unit max(0, comm − compute), then the last unit's reduce-scatter.
// `params`: each forward (F) gathers every unit; each backward (B, or I of a split backward)
// gathers it again; each backward (B, or W) reduce-scatters its gradient. `gradients`: each
// backward reduce-scatters, nothing is gathered per unit (the updated parameters' all-gather
// after the step stays, as with the distributed optimizer). With pipeline parallelism every
// micro-batch's forward and backward does this (torch FSDP2's reshard_after_forward=True and
// Megatron-FSDP per micro-batch). torchtitan's default with PP does not reshard after the
// forward (reshard_after_forward_policy "default": reshard_after_forward = not pp_enabled,
// "to avoid per-microbatch all-gathers"), so a stage's backward does not gather again and
// its parameters stay unsharded while micro-batches are in flight: not modelled.
//
//  [R20]   Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
//          Models", SC'20, §5 (Pos, Pos+g, Pos+g+p: 4Ψ + 12Ψ/Nd, 2Ψ + 14Ψ/Nd, 16Ψ/Nd).
//  [Z23]   Zhao et al., "PyTorch FSDP: Experiences on Scaling Fully Sharded Data Parallel",
//          VLDB 2023, §3.2 (units, all-gather before forward and backward, reduce-scatter after
//          backward), §3.4 (backward and forward prefetching).
//  [FSDP2] PyTorch docs, torch.distributed.fsdp.fully_shard: reshard_after_forward, implicit
//          forward/backward prefetch of the next module's all-gather.

#include <vector>

#include "pipesim/cost/op_collective.hpp"
#include "pipesim/cost/static_memory.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/profile.hpp"

namespace pipesim::cost {

//! The groups a stage's parameters are sharded over: the dense part over its data-parallel
//! group (holders × W × C), the routed experts over the expert data-parallel one.
struct ShardGroup {
  int ranks = 1, nodes = 1;
  int expert_ranks = 1, expert_nodes = 1;
};

//! One unit an op computes: its parameters on one GPU (dense part and routed experts) and the
//! seconds the op spends on it.
struct ShardUnit {
  double params = 0.0, expert_params = 0.0;
  double compute = 0.0;
};

//! Whether each backward reduce-scatters its gradients (gradients, params) and whether each op
//! gathers its units' parameters (params).
bool reduces_per_backward(DataParallelSharding s);
bool gathers_per_op(DataParallelSharding s);

//! Bytes one GPU holds unsharded for the unit being computed beyond the sharded state (the
//! table above): `unit` the largest unit's parameters on one GPU.
double transient_unit_bytes(DataParallelSharding s, double unit, const ParamBytes& bytes);

//! The exposed collectives of one op over `units`, in the order it computes them, as priced
//! OpCollectives (each `hidden` by the compute beside it): with `gather` each unit's parameters
//! all-gathered before it, with `reduce` its gradient reduce-scattered after it, each
//! prefetched beside the neighbouring unit's compute. Equal windows in a row are merged.
std::vector<OpCollective> unit_collectives(const hardware::HardwareProfile& hw,
                                           const ParamBytes& bytes, const ShardGroup& group,
                                           const std::vector<ShardUnit>& units, bool gather,
                                           bool reduce);

}  // namespace pipesim::cost
