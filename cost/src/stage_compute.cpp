#include "pipesim/cost/stage_compute.hpp"

#include <algorithm>

#include "pipesim/cost/kernel_time.hpp"
#include "pipesim/cost/tensor_parallel.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::cost {
namespace {

using sim::OpKind;

constexpr auto kF = static_cast<size_t>(OpKind::Forward);
constexpr auto kB = static_cast<size_t>(OpKind::Backward);
constexpr auto kI = static_cast<size_t>(OpKind::BackwardInput);
constexpr auto kW = static_cast<size_t>(OpKind::BackwardWeight);
constexpr auto kR = static_cast<size_t>(OpKind::Recompute);

}  // namespace

StageCompute::StageCompute(const models::ModelSpec& model, const hardware::HardwareProfile& hw,
                           const TrainingSetup& setup, const sim::Schedule& schedule,
                           const std::vector<models::StageLayers>& partition,
                           models::Recompute recompute, const std::vector<double>& params,
                           const std::vector<double>& shards, const ParamBytes& bytes)
    : model_(model), hw_(hw), overlap_(setup.tp_comm_overlap) {
  const models::LayerConfig cfg = layer_config(setup);
  // One layer on one GPU: its kernels, and its tensor-parallel collective points
  // (tensor_parallel.hpp): two in the forward, two in the input gradient, the forward's again
  // in a full recomputation.
  const double layer_f = compute_time(models::layer_forward(model_, cfg));
  const double layer_i = compute_time(models::layer_backward_input(model_, cfg));
  const double layer_w = compute_time(models::layer_backward_weight(model_, cfg));
  const double layer_r = compute_time(models::layer_recompute(model_, cfg, recompute));
  const double points_r = recompute == models::Recompute::Full ? kTpCollectivesForward : 0;
  const size_t stages = partition.size();
  kernels_.resize(stages);
  collectives_.resize(stages);
  collective_time_.resize(stages);
  times_.resize(stages);
  for (size_t s = 0; s < stages; ++s) {
    const models::StageLayers& part = partition[s];
    const double L = part.layers;
    // The four parts of a stage's work (F, I, W, R): kernels and collective points.
    PerKind<double> k{}, points{};
    k[kF] = L * layer_f;
    k[kI] = L * layer_i;
    k[kW] = L * layer_w;
    k[kR] = L * layer_r;
    points[kF] = L * kTpCollectivesForward;
    points[kI] = L * kTpCollectivesBackward;
    points[kR] = L * points_r;
    if (part.embedding) {
      // The vocabulary-parallel embedding sums its t partial lookups: one collective.
      k[kF] += compute_time(models::embedding_forward(model_, cfg));
      k[kW] += compute_time(models::embedding_backward_weight(model_, cfg));
      points[kF] += 1;
    }
    if (part.head) {
      k[kF] += compute_time(models::head_forward(model_, cfg));
      // The head's input gradient sums over the t vocabulary slices: one collective.
      k[kI] += compute_time(models::head_backward_input(model_, cfg));
      k[kW] += compute_time(models::head_backward_weight(model_, cfg));
      points[kI] += 1;
    }
    const auto part_alone = [&](size_t p) {
      const double comm =
          collectives_time(hw_, tp_collectives(model_, cfg, points[p])).total().value;
      return overlap_ ? std::max(k[p], comm) : k[p] + comm;
    };
    times_[s] = {part_alone(kF), part_alone(kI), part_alone(kW), part_alone(kR)};
    // The ops: a backward of a schedule without R ops recomputes its forward first.
    const bool folds_recompute = !schedule.recompute;
    PerKind<double> op_points = points;
    op_points[kI] += folds_recompute ? points[kR] : 0;
    op_points[kB] = op_points[kI];
    const double extra = folds_recompute ? k[kR] : 0.0;
    PerKind<double>& ops = kernels_[s];
    ops = k;
    ops[kB] = k[kI] + k[kW] + extra;
    ops[kI] = k[kI] + extra;
    for (size_t kind = 0; kind < sim::kNumComputeKinds; ++kind) {
      collectives_[s][kind] = tp_collectives(model_, cfg, op_points[kind]);
      collective_time_[s][kind] = collectives_time(hw_, collectives_[s][kind]);
    }
  }

  // Optimizer step: memory-bound passes over the parameters (or, sharded, the slice) the
  // worker updates, optimizer_step_bytes per parameter (static_memory.hpp: Adam, and with mixed
  // precision Megatron-LM's gradient cast, unscale, norm and weight cast around it). Fused
  // multi-tensor kernels: 2 launches per stage copy (Apex FusedAdam).
  const double adam_bytes = optimizer_step_bytes(model_.precision, bytes);
  std::vector<models::KernelList> adam(static_cast<size_t>(schedule.workers));
  for (int p = 0; p < schedule.pipelines; ++p) {
    for (size_t s = 0; s < stages; ++s) {
      const auto w = static_cast<size_t>(schedule.stage_worker[static_cast<size_t>(p)][s]);
      models::LayerKernel kernel;
      kernel.name = "adam";
      kernel.op = models::MemoryOp::other;
      kernel.bytes = static_cast<std::int64_t>(0.5 * params[s] * adam_bytes / shards[s]);
      adam[w].push_back(kernel);
      adam[w].push_back(kernel);
    }
  }
  optimizer_.assign(adam.size(), 0.0);
  for (size_t w = 0; w < adam.size(); ++w)
    optimizer_[w] = compute_time(adam[w]);
}

double StageCompute::alone(int stage, sim::OpKind kind) const {
  const double k = kernels(stage, kind);
  const double comm = collective_time(stage, kind).total().value;
  return overlap_ ? std::max(k, comm) : k + comm;
}

sim::OpCollectives StageCompute::lowering() const {
  sim::OpCollectives out;
  out.overlap = overlap_;
  bool any = false;
  for (const auto& stage : collectives_) {
    for (const auto& list : stage) {
      out.carries.push_back(list.empty() ? 0 : 1);
      any = any || !list.empty();
    }
  }
  if (!any) out.carries.clear();
  return out;
}

double StageCompute::compute_time(const models::KernelList& kernels) const {
  if (model_.precision != models::Precision::FP8) {
    return kernel_time(kernels, hw_.gpu, models::precision_name(model_.precision),
                       hw_.framework.op_overhead);
  }
  // fp8 training (Transformer Engine): the linear layers' GEMMs run in fp8, everything else
  // (attention, LM head, memory-bound kernels) in bf16.
  models::KernelList fp8, bf16;
  for (const models::LayerKernel& k : kernels)
    (k.linear ? fp8 : bf16).push_back(k);
  return kernel_time(fp8, hw_.gpu, "fp8", hw_.framework.op_overhead) +
         kernel_time(bf16, hw_.gpu, "bf16", hw_.framework.op_overhead);
}

}  // namespace pipesim::cost
