#pragma once
// The compute side of a training run (docs/architecture.md §4, cost/README.md): what every
// compute op of every virtual stage costs on one GPU, and each worker's optimizer step.
//
// An op is the model's kernel lists (models/transformer.hpp, one layer =
// models/layer_kernels.hpp) priced by cost::kernel_time — the formula the layer check uses —
// per layer × the stage's layers, plus the embedding/head kernels on the first/last stage, plus
// the profile's per-launch framework overhead: that is what it holds its stream for. The
// collectives inside its layers (tensor parallelism's, op_collective.hpp) are a list of their
// own, run by the simulator as the op's Collective task.

#include <array>
#include <vector>

#include "pipesim/cost/expert_parallel.hpp"
#include "pipesim/cost/op_collective.hpp"
#include "pipesim/cost/sharded_data_parallel.hpp"
#include "pipesim/cost/static_memory.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/layer_kernels.hpp"
#include "pipesim/models/partition.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim::cost {

//! Per-stage op times, for reports and tests: each op alone, its collectives included — after
//! its kernels, or with tp_comm_overlap beside them (the longer of the two); with the MoE
//! overlap the exchange beside the rest (StageCompute::alone).
struct StageTimes {
  double forward = 0, backward_input = 0, backward_weight = 0, recompute = 0;
};

class StageCompute {
 public:
  //! `model` as trained, `setup` at the ops' micro-batch size, `recompute` what the ops
  //! recompute (a schedule with R ops recomputes whatever it stored). `params` and `shards`
  //! per virtual stage (stage_memory.hpp) size the optimizer steps; `experts` the
  //! expert-parallel collectives of mixture-of-experts layers; `groups` per virtual stage the
  //! groups sharded data parallelism gathers and reduce-scatters each unit over
  //! (sharded_data_parallel.hpp; none without gradient or parameter sharding).
  StageCompute(const models::ModelSpec& model, const hardware::HardwareProfile& hw,
               const TrainingSetup& setup, const sim::Schedule& schedule,
               const std::vector<models::StageLayers>& partition, models::Recompute recompute,
               const std::vector<double>& params, const std::vector<double>& shards,
               const ParamBytes& bytes, const ExpertLayout& experts = {},
               const std::vector<ShardGroup>& groups = {});

  //! Seconds compute op `kind` of virtual stage `stage` holds its stream: its kernels (a whole
  //! or input-gradient backward of a schedule without R ops recomputes first).
  double kernels(int stage, sim::OpKind kind) const { return at(kernels_, stage, kind); }
  //! The collectives inside that op.
  const std::vector<OpCollective>& collectives(int stage, sim::OpKind kind) const {
    return at(collectives_, stage, kind);
  }
  //! Their time alone.
  const hardware::CommTime& collective_time(int stage, sim::OpKind kind) const {
    return at(collective_time_, stage, kind);
  }
  //! Of those, the expert-parallel exchange (dispatch and combine): the part another
  //! micro-batch's compute can hide (the MoE overlap; DualPipe's overlapped F&B chunks).
  const hardware::CommTime& exchange_time(int stage, sim::OpKind kind) const {
    return at(exchange_time_, stage, kind);
  }
  //! The op's kernels with the collectives no other micro-batch hides (tensor and context
  //! parallelism's): after them, or with tp_comm_overlap beside them (the longer).
  double with_own_collectives(int stage, sim::OpKind kind) const;
  //! Whether every op's exchange runs beside it and the rest with its kernels
  //! (with_own_collectives): the MoE overlap.
  bool exchange_apart() const { return exchange_apart_; }
  //! The op alone, its collectives included (StageTimes).
  double alone(int stage, sim::OpKind kind) const;
  //! Which ops carry collectives, for sim::build_task_graph; empty `carries` when none does.
  sim::OpCollectives lowering() const;
  const std::vector<StageTimes>& stage_times() const { return times_; }
  //! Seconds of worker w's optimizer step.
  double optimizer(int worker) const { return optimizer_[static_cast<size_t>(worker)]; }
  //! kernel_time of the kernels in the training precision with the profile's host overhead.
  double compute_time(const models::KernelList& kernels) const;

 private:
  template <class T>
  using PerKind = std::array<T, sim::kNumComputeKinds>;
  template <class T>
  static const T& at(const std::vector<PerKind<T>>& v, int stage, sim::OpKind kind) {
    return v[static_cast<size_t>(stage)][static_cast<size_t>(kind)];
  }

  models::ModelSpec model_;
  hardware::HardwareProfile hw_;
  bool tp_overlap_ = false;      // tp_comm_overlap
  bool exchange_apart_ = false;  // moe_overlap
  // The Collective task runs beside its op (either overlap), else after it.
  bool overlap() const { return tp_overlap_ || exchange_apart_; }
  // The kernels with the op's own collectives (after them, or beside them with the TP overlap).
  double with_own(double kernels, double own) const;
  // The op alone from its kernels and collective seconds: all of them, its own, its exchange.
  double alone_of(double kernels, double all, double own, double exchange) const;
  // Time factor of the linear layers' GEMMs: 1 / (1 − the profile's tp_overlap_sm_fraction)
  // when their tensor-parallel collectives run beside them (t > 1 with tp_comm_overlap), else 1.
  double linear_slowdown_ = 1.0;
  std::vector<PerKind<double>> kernels_;
  std::vector<PerKind<std::vector<OpCollective>>> collectives_;
  std::vector<PerKind<hardware::CommTime>> collective_time_;
  std::vector<PerKind<hardware::CommTime>> exchange_time_, own_time_;
  std::vector<StageTimes> times_;
  std::vector<double> optimizer_;  // per worker
};

//! The quantizing casts a Transformer Engine low-precision recipe adds to `kernels`
//! (cost/README.md, "Precision"): one memory-bound cast per linear GEMM that is not a weight
//! gradient, of its non-weight operand (the input in the forward, the output gradient in the
//! data-gradient GEMM, m·k elements): read in bf16 (2 bytes), write a row-wise and a column-wise
//! quantized copy (2q bytes, static_memory.hpp's q), amax taken in the same pass. Empty for
//! 16/32-bit precisions.
models::KernelList low_precision_casts(const models::KernelList& kernels, models::Precision p);

//! Seconds one op's `kernels` hold their stream when the run trains in `precision`: plain
//! kernel_time in that precision, or for a Transformer Engine low-precision recipe the linear
//! GEMMs in it and everything else in bf16, plus (`with_casts`) the recipe's quantizing casts.
//! `linear_slowdown` scales the linear GEMMs (their SMs shared with overlapped collectives);
//! `host_overhead` is the framework's dispatch per launch (kernel_time).
double op_kernel_time(const models::KernelList& kernels, const hardware::GpuSpec& gpu,
                      models::Precision precision, double host_overhead,
                      double linear_slowdown = 1.0, bool with_casts = true);

}  // namespace pipesim::cost
