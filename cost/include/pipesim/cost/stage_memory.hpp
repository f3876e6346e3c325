#pragma once
// The memory side of a training run (docs/architecture.md §5, cost/README.md "Communication and
// memory"): each virtual stage's parameters on one GPU, how its optimizer state is sharded, the
// bytes it holds, and the profile's overheads on top of the tracked tensors.
//
// Per stage: weights, gradients and optimizer state by precision (static_memory.hpp), the
// optimizer part divided over the stage's data-parallel group with the distributed optimizer,
// the gradients and the parameters too with deeper sharding, plus the units those hold
// unsharded while the stage computes (sharded_data_parallel.hpp, in the workspace);
// activations per micro-batch (models/transformer.hpp); the recomputation buffer, one layer's
// full minus stored activations (Megatron-LM restores one layer per checkpoint); workspace, the
// send and receive buffers plus the fp32 logit gradients 4bsV/t on the last stage.

#include <vector>

#include "pipesim/cost/static_memory.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/partition.hpp"
#include "pipesim/models/transformer.hpp"
#include "pipesim/sim/memory.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim::cost {

//! Parameters of each virtual stage on one GPU of a t-way group: its layers, each of its kind
//! (a mixture-of-experts layer holds E/e routed experts, each / e_t), plus the embedding on the
//! first stage and the head on the last (a tied head on its own stage keeps a copy of the
//! embedding, as Megatron-LM does).
std::vector<double> stage_params(const models::ModelSpec& model,
                                 const std::vector<models::StageLayers>& partition,
                                 const models::LayerConfig& cfg);
//! The routed experts' part of stage_params (0 for a dense model): reduced over the expert
//! data-parallel group rather than the data-parallel one.
std::vector<double> stage_expert_params(const models::ModelSpec& model,
                                        const std::vector<models::StageLayers>& partition,
                                        const models::LayerConfig& cfg);

//! The workers of one replica holding each virtual stage (Chimera: two), in ascending order.
std::vector<std::vector<int>> stage_holders(const sim::Schedule& schedule);

//! Over how many GPUs each virtual stage's optimizer state is sharded: its holders in one
//! replica (Chimera: two) × W with the distributed optimizer (ZeRO-1), 1 without. With routed
//! experts (`expert_params` per stage, `expert_dp` = T·W/(e·e_t)) their state is sharded over
//! holders × expert_dp instead; the value returned is the one divisor that gives the stage's
//! optimizer bytes, params / (dense / shards + experts / expert shards).
std::vector<double> optimizer_shards(const sim::Schedule& schedule, const TrainingSetup& setup,
                                     const std::vector<double>& params = {},
                                     const std::vector<double>& expert_params = {},
                                     int expert_dp = 1);

//! Each virtual stage's memory on one GPU (`setup` at the ops' micro-batch size, `recompute`
//! what the ops recompute).
std::vector<sim::StageMemory> stage_memory(const models::ModelSpec& model,
                                           const TrainingSetup& setup,
                                           const std::vector<models::StageLayers>& partition,
                                           const std::vector<double>& params,
                                           const std::vector<double>& shards,
                                           const ParamBytes& bytes, models::Recompute recompute);

//! The profile's memory overheads on top of the tracked tensors (hardware/README.md, memory:):
//! every total (peak, minimum, final, timeline, breakdowns' "other") grows by
//! reserved_bytes + fragmentation · (tensors).
void apply_memory_overheads(std::vector<sim::WorkerMemory>& workers,
                            const hardware::MemoryOverhead& overhead);

}  // namespace pipesim::cost
