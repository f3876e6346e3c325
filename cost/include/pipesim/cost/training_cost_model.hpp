#pragma once
// Real-cost mode's cost model: a model spec, a hardware profile and a placement turn every task
// of a schedule's TaskGraph into a duration (compute, optimizer) or a flow (transfers,
// all-reduces), and every stage into bytes of memory (docs/architecture.md §4, §5).
//
// Compute: each op is the model's kernel lists (models/transformer.hpp, one layer =
// models/layer_kernels.hpp) priced by cost::kernel_time — the formula the layer check uses —
// per layer × the stage's layers, plus the embedding/head kernels on the first/last stage,
// plus the tensor-parallel collectives of those layers (tensor_parallel.hpp), plus the
// profile's per-launch framework overhead.
// Transfers: Hockney α + n/β on the tier the two GPUs share (collectives.hpp); n = b·s·h·e/t
// per GPU (scatter/gather).
// Gradient sync of a stage: over its holders in one replica × W replicas (2f·W ranks for
// Chimera), by the profile's algorithm: an all-reduce of the gradients, or with the
// distributed optimizer a reduce-scatter of the gradients + an all-gather of the parameters.
// Data-parallel replicas run the same schedule at the same time, so one replica is simulated:
// a transfer leaving a node through a NIC shares it with the copies of that transfer in the
// other replicas served by the same NIC (weight = Placement::replicas_on_nic). The t GPUs of a
// worker act in lockstep, each on its own slice, so one of them stands for the group.

#include <vector>

#include "pipesim/cost/static_memory.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/collectives.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/partition.hpp"
#include "pipesim/models/transformer.hpp"
#include "pipesim/sim/memory.hpp"
#include "pipesim/sim/network.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim::cost {

//! Per-stage op times, for reports and tests.
struct StageTimes {
  double forward = 0, backward_input = 0, backward_weight = 0, recompute = 0;
};

class TrainingCostModel final : public sim::CostModel, public sim::NetworkModel {
 public:
  //! Throws core::ConfigError when the model does not fit the schedule (stages > layers), the
  //! setup is inconsistent (validate_setup) or the profile lacks the precision, or B is not a
  //! multiple of the schedule's micro_batch_divisor.
  TrainingCostModel(const models::ModelSpec& model, const hardware::HardwareProfile& hardware,
                    const sim::Schedule& schedule, const TrainingSetup& setup);

  //! Compute ops and the optimizer: their time; transfers and all-reduces: their time alone.
  double duration(const sim::TaskGraph& graph, sim::TaskId id) const override;
  int num_resources() const override { return resources_; }
  sim::Flow flow(const sim::TaskGraph& graph, sim::TaskId id) const override;
  //! A transfer's flow depends on its two workers only (one message size, one placement).
  std::uint64_t flow_key(const sim::TaskGraph& graph, sim::TaskId id) const override;

  //! Memory of every virtual stage on one GPU, for sim::track_memory.
  const std::vector<sim::StageMemory>& stage_memory() const { return memory_; }
  const std::vector<models::StageLayers>& partition() const { return partition_; }
  const std::vector<StageTimes>& stage_times() const { return times_; }
  const hardware::Placement& placement() const { return placement_; }
  //! The model as trained (precision override applied).
  const models::ModelSpec& model() const { return model_; }
  //! Dense peak FLOP/s of one GPU in the training precision (MFU denominator).
  double peak_flops() const { return peak_; }
  //! Samples in one micro-batch as the ops run it: B, or B / Schedule::micro_batch_divisor
  //! (Chimera's backward halving runs at B/2).
  int micro_batch_size() const { return setup_.micro_batch_size; }
  //! GPUs one pipeline replica uses: workers · t.
  int gpus_per_replica() const { return placement_.workers * setup_.tensor_parallel; }

  //! kernel_time of the kernels in the training precision with the profile's host overhead.
  double compute_time(const models::KernelList& kernels) const;

 private:
  hardware::CommTime gradient_sync(int ranks, int nodes, int stage) const;

  models::ModelSpec model_;
  hardware::HardwareProfile hw_;
  TrainingSetup setup_;
  ParamBytes param_bytes_;
  hardware::Placement placement_;
  double peak_ = 0;
  std::vector<models::StageLayers> partition_;
  std::vector<double> stage_params_;  //!< parameters of each virtual stage on one GPU
  std::vector<StageTimes> times_;
  std::vector<double> backward_extra_;  //!< recompute time folded into a backward (no R ops)
  std::vector<double> optimizer_time_;  //!< per worker
  std::vector<sim::StageMemory> memory_;
  double message_bytes_ = 0;
  int resources_ = 0;
  int nics_ = 0;
  std::vector<int> nic_index_;  //!< replica-0 worker → dense index of its NIC
};

//! The profile's memory overheads on top of the tracked tensors (hardware/README.md, memory:):
//! every total (peak, minimum, final, timeline, breakdowns' "other") grows by
//! reserved_bytes + fragmentation · (tensors).
void apply_memory_overheads(std::vector<sim::WorkerMemory>& workers,
                            const hardware::MemoryOverhead& overhead);

}  // namespace pipesim::cost
