#pragma once
// Real-cost mode's cost model: a model spec, a hardware profile and a placement turn every task
// of a schedule's TaskGraph into a duration (compute, optimizer) or a flow (transfers,
// all-reduces, op collectives), and every stage into bytes of memory (docs/architecture.md §4,
// §5). It puts three parts together:
//  - compute (stage_compute.hpp): each op's kernels, the collectives inside its layers, each
//    worker's optimizer step;
//  - memory (stage_memory.hpp): each stage's parameters, optimizer shards and bytes;
//  - topology (topology.hpp): placement, the resources flows share, and the flows of transfers
//    (Hockney on the tier the two GPUs share, n = b·s·h·e/t per GPU: scatter/gather), gradient
//    syncs (gradient_sync.hpp, over a stage's holders in one replica × W replicas), op
//    collectives (the TP group's, on the worker's link ports) and activation offload's copies
//    (the offloaded bytes of one GPU over its host link, one resource per direction).

#include <cstdint>
#include <vector>

#include "pipesim/cost/stage_compute.hpp"
#include "pipesim/cost/stage_memory.hpp"
#include "pipesim/cost/static_memory.hpp"
#include "pipesim/cost/topology.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/partition.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/memory.hpp"
#include "pipesim/sim/network.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim::cost {

class TrainingCostModel final : public sim::CostModel, public sim::NetworkModel {
 public:
  //! Throws core::ConfigError when the model does not fit the schedule (stages > layers), the
  //! setup is inconsistent (validate_setup) or the profile lacks the precision, or B is not a
  //! multiple of the schedule's micro_batch_divisor.
  TrainingCostModel(const models::ModelSpec& model, const hardware::HardwareProfile& hardware,
                    const sim::Schedule& schedule, const TrainingSetup& setup);

  //! What to lower the schedule with (sim::build_task_graph): which ops carry collectives (with
  //! t > 1), and whether they overlap the ops (tp_comm_overlap).
  sim::OpCollectives lowering() const { return compute_.lowering(); }
  //! Whether to lower with activation offload's copies (offload > 0), and which.
  sim::OffloadOps offload_ops() const { return {setup_.offload > 0.0, setup_.offload_selective}; }
  //! With overlap_grad_reduce, each stage's gradient buckets (gradient_buckets) and whether the
  //! parameters' all-gather is apart (distributed optimizer) and overlapped
  //! (overlap_param_gather); otherwise none (one sync task per stage).
  sim::GradBuckets grad_buckets() const;

  //! Compute ops and the optimizer: their time; transfers, all-reduces and collectives: their
  //! time alone. A compute op holds its stream for its kernels; its collectives are its
  //! Collective task. In a graph lowered without them (no Collective task) each op's
  //! collectives are folded into its duration: added, or with tp_comm_overlap the longer of
  //! the two.
  double duration(const sim::TaskGraph& graph, sim::TaskId id) const override;
  int num_resources() const override { return topology_.num_resources(); }
  sim::Flow flow(const sim::TaskGraph& graph, sim::TaskId id) const override;
  //! A transfer's flow depends on its two workers only (one message size, one placement); a
  //! collective's on its worker, stage and carrier kind; an offload copy's on its direction,
  //! stage and worker.
  std::uint64_t flow_key(const sim::TaskGraph& graph, sim::TaskId id) const override;

  //! Memory of every virtual stage on one GPU, for sim::track_memory.
  const std::vector<sim::StageMemory>& stage_memory() const { return memory_; }
  const std::vector<models::StageLayers>& partition() const { return partition_; }
  const std::vector<StageTimes>& stage_times() const { return compute_.stage_times(); }
  const StageCompute& compute() const { return compute_; }
  const hardware::Placement& placement() const { return topology_.placement(); }
  //! The expert-parallel groups (mixture-of-experts models).
  const ExpertLayout& experts() const { return experts_; }
  //! The model as trained (precision override applied).
  const models::ModelSpec& model() const { return model_; }
  //! Dense peak FLOP/s of one GPU in the training precision (MFU denominator).
  double peak_flops() const { return peak_; }
  //! Samples in one micro-batch as the ops run it: B, or B / Schedule::micro_batch_divisor
  //! (Chimera's backward halving runs at B/2).
  int micro_batch_size() const { return setup_.micro_batch_size; }
  //! GPUs of the whole run, t · c · D · W (gpu_count).
  int gpus() const { return gpus_; }

  //! kernel_time of the kernels in the training precision with the profile's host overhead.
  double compute_time(const models::KernelList& kernels) const {
    return compute_.compute_time(kernels);
  }

 private:
  // Whether task t (a compute op or its Collective) runs its expert exchange apart from its
  // other collectives: in an overlapped unit (sim::Join) or with the MoE overlap.
  bool exchange_apart(const sim::Task& t) const;

  models::ModelSpec model_;
  hardware::HardwareProfile hw_;
  TrainingSetup setup_;
  ParamBytes param_bytes_;
  models::ModelSpec rank_;  //!< what one context-parallel rank computes (rank_model)
  double peak_ = 0;
  int gpus_ = 0;
  std::vector<models::StageLayers> partition_;
  ExpertLayout experts_;
  std::vector<double> stage_params_;   //!< parameters of each virtual stage on one GPU
  std::vector<double> expert_params_;  //!< the routed experts' part of them
  std::vector<double> shards_;         //!< optimizer shards of each virtual stage
  std::vector<sim::StageMemory> memory_;
  Topology topology_;
  StageCompute compute_;
  double message_bytes_ = 0;
  double step_sync_ = 0;  //!< the global check's all-reduce before each step (global_step_sync)
};

}  // namespace pipesim::cost
