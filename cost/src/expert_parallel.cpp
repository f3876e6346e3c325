#include "pipesim/cost/expert_parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/distinct.hpp"

namespace pipesim::cost {
namespace {

[[noreturn]] void fail(const std::string& field, const std::string& problem) {
  throw core::ConfigError::option(field, problem);
}

const char* placement_name(hardware::PlacementMode m) {
  return m == hardware::PlacementMode::PipelineMajor ? "pipeline-major" : "data-major";
}

}  // namespace

ExpertLayout::ExpertLayout(const models::ModelSpec& model, const hardware::Placement& placement,
                           const TrainingSetup& setup)
    : placement_(placement),
      moe_(model.is_moe()),
      group_(placement.gpus_per_worker()),
      e_(setup.expert_parallel),
      et_(setup.expert_tensor_parallel) {
  if (!moe_) return;
  const int gpn = placement.gpus_per_node;
  if (et_ < 1 || et_ > gpn || gpn % et_ != 0) {
    fail("expert_tensor_parallel",
         fmt::format("{} must divide the {} GPUs per node (an expert-tensor-parallel group "
                     "stays within one NVLink domain)",
                     et_, gpn));
  }
  const int stage_gpus = group_ * placement.replicas;
  if (e_ < 1 || stage_gpus % (e_ * et_) != 0) {
    fail("expert_parallel",
         fmt::format("expert_parallel × expert_tensor_parallel = {} × {} must divide the "
                     "tensor_parallel × context_parallel × data_parallel = {} × {} × {} = {} "
                     "GPUs of a stage (MoE parallel folding: the expert layers use the "
                     "attention's GPUs)",
                     e_, et_, placement.tensor_parallel, placement.context_parallel,
                     placement.replicas, stage_gpus));
  }
  edp_ = stage_gpus / (e_ * et_);
  std::vector<int> nodes;
  for (int w = 0; w < placement.workers; ++w) {
    nodes.clear();
    for (int x = 0; x < et_; ++x)
      nodes.push_back(gpu(w, x) / gpn);
    if (const int etp_nodes = core::count_distinct(nodes); etp_nodes > 1) {
      fail(
          "expert_tensor_parallel",
          fmt::format("the {} GPUs of an expert-tensor-parallel group (ranks of {} "
                      "consecutive replicas) span {} nodes with {} placement; use "
                      "expert_tensor_parallel <= tensor_parallel × context_parallel or "
                      "placement data-major",
                      et_, (et_ + group_ - 1) / group_, etp_nodes, placement_name(placement.mode)));
    }
    nodes.clear();
    for (int i = 0; i < e_; ++i)
      nodes.push_back(gpu(w, i * et_) / gpn);
    ep_nodes_ = std::max(ep_nodes_, core::count_distinct(nodes));
  }
}

int ExpertLayout::gpu(int worker, int x) const {
  return placement_.gpu(x / group_, worker) + x % group_;
}

int ExpertLayout::edp_nodes(std::span<const int> workers) const {
  std::vector<int> nodes;
  for (int w : workers) {
    for (int k = 0; k < edp_; ++k)
      nodes.push_back(gpu(w, k * e_ * et_) / placement_.gpus_per_node);
  }
  return std::max(1, core::count_distinct(nodes));
}

core::Bytes dispatch_bytes(const models::ModelSpec& model, const models::LayerConfig& cfg) {
  const double tokens = static_cast<double>(cfg.micro_batch_size) * model.sequence /
                        (cfg.sequence_parallel ? cfg.tensor_parallel : 1);
  // Tokens beyond capacity · average are dropped (Megatron-Core's capacity factor).
  const double load = model.moe.capacity_factor > 0
                          ? std::min(cfg.expert_imbalance, model.moe.capacity_factor)
                          : cfg.expert_imbalance;
  return core::Bytes(model.moe.top_k * tokens * load * model.hidden *
                     models::activation_element_bytes(model.precision));
}

std::vector<OpCollective> ExpertLayout::layer_collectives(const models::ModelSpec& model,
                                                          const models::LayerConfig& cfg,
                                                          double layers) const {
  std::vector<OpCollective> out;
  if (!moe_ || layers <= 0) return out;
  const core::Bytes n = dispatch_bytes(model, cfg);
  if (e_ > 1) {
    // Dispatch and combine: two exchanges of the same size.
    out.push_back({hardware::Collective::AllToAll, e_, ep_nodes_, n, 2 * layers});
  }
  if (et_ > 1) {
    // The e_t ranks' received tokens gathered before the experts, their outputs
    // reduce-scattered after (n: the buffer each rank ends with / starts with).
    const core::Bytes gathered = n * static_cast<double>(et_);
    out.push_back({hardware::Collective::AllGather, et_, 1, gathered, layers});
    out.push_back({hardware::Collective::ReduceScatter, et_, 1, gathered, layers});
  }
  return out;
}

}  // namespace pipesim::cost
