#pragma once
// Real-cost mode's cost model: a model spec, a hardware profile and a placement turn every task
// of a schedule's TaskGraph into a duration (compute, optimizer) or a flow (transfers,
// all-reduces), and every stage into bytes of memory (docs/architecture.md §4, §5).
//
// Compute time [docs/architecture.md §4; efficiency tables as in Calculon, Isaev et al., SC'23]:
//   t = Σ_gemm FLOPs / (peak · eff_gemm(FLOPs)) + bytes / (HBM · eff_hbm(bytes)) + launches ·
//   t_launch
// Transfers: Hockney α + n/β on the tier the two GPUs share (collectives.hpp).
// Gradient all-reduce of a stage: over its holders in one replica × W replicas (2f·W ranks for
// Chimera), by the profile's algorithm.
// Data-parallel replicas run the same schedule at the same time, so one replica is simulated:
// a transfer leaving a node through a NIC shares it with the copies of that transfer in the
// other replicas served by the same NIC (weight = Placement::replicas_on_nic).

#include <vector>

#include "pipesim/hardware/collectives.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/partition.hpp"
#include "pipesim/models/transformer.hpp"
#include "pipesim/sim/memory.hpp"
#include "pipesim/sim/network.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim::hardware {

struct TrainingSetup {
  int micro_batch_size = 1;  //!< B
  int data_parallel = 1;     //!< W pipeline replicas
  models::Recompute recompute = models::Recompute::None;
  models::PartitionMode partition = models::PartitionMode::Uniform;
  PlacementMode placement = PlacementMode::PipelineMajor;
  //! Static bytes per parameter: weights + gradients + optimizer state. Mixed-precision Adam:
  //! 2 + 2 + 12 = 16 (Rajbhandari et al., ZeRO, SC'20, §3.1).
  double bytes_per_param = 16.0;
};

//! Per-stage op times, for reports and tests.
struct StageTimes {
  double forward = 0, backward_input = 0, backward_weight = 0, recompute = 0;
};

class TrainingCostModel final : public sim::CostModel, public sim::NetworkModel {
 public:
  //! Throws core::ConfigError when the model does not fit the schedule (stages > layers) or the
  //! profile lacks the model's precision.
  TrainingCostModel(const models::ModelSpec& model, const HardwareProfile& hardware,
                    const sim::Schedule& schedule, const TrainingSetup& setup);

  //! Compute ops and the optimizer: their time; transfers and all-reduces: their time alone.
  double duration(const sim::TaskGraph& graph, sim::TaskId id) const override;
  int num_resources() const override { return resources_; }
  sim::Flow flow(const sim::TaskGraph& graph, sim::TaskId id) const override;

  //! Memory of every virtual stage, for sim::track_memory.
  const std::vector<sim::StageMemory>& stage_memory() const { return memory_; }
  const std::vector<models::StageLayers>& partition() const { return partition_; }
  const std::vector<StageTimes>& stage_times() const { return times_; }
  const Placement& placement() const { return placement_; }
  //! Dense peak FLOP/s of one GPU in the model's precision (MFU denominator).
  double peak_flops() const { return peak_; }

  //! The compute-time formula above, for one op's work.
  double compute_time(const models::OpWork& work) const;

 private:
  double gradient_bytes(int stage) const;

  models::ModelSpec model_;
  HardwareProfile hw_;
  TrainingSetup setup_;
  Placement placement_;
  double peak_ = 0;
  const EfficiencyCurve* gemm_eff_ = nullptr;
  std::vector<models::StageLayers> partition_;
  std::vector<double> stage_params_;  //!< parameters of each virtual stage (one copy)
  std::vector<StageTimes> times_;
  std::vector<double> backward_extra_;  //!< recompute time folded into a backward (no R ops)
  std::vector<double> optimizer_time_;  //!< per worker
  std::vector<sim::StageMemory> memory_;
  bool schedule_recomputes_ = false;
  double message_bytes_ = 0;
  int resources_ = 0;
  int nics_ = 0;
  std::vector<int> nic_index_;  //!< replica-0 worker → dense index of its NIC
};

}  // namespace pipesim::hardware
