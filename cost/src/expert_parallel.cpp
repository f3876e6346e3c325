#include "pipesim/cost/expert_parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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
      et_(setup.expert_tensor_parallel),
      dispatcher_(dispatcher_of(setup)) {
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

ExpertLayout::ExpertLayout(const models::ModelSpec& model, const hardware::HardwareProfile& job_hw,
                           const TrainingSetup& setup, int workers)
    : ExpertLayout(model, job_placement(job_hw, setup, workers), setup) {
  if (moe_ && dispatcher_ != MoeDispatcher::AllToAll && ep_nodes_ > 1 && !job_hw.rdma_nics) {
    fail("moe_dispatcher",
         fmt::format("{} sends between NVLink domains over RDMA (NVSHMEM, GPUDirect RDMA), which "
                     "{}'s inter-node NICs do not do, and the expert-parallel group of {} spans "
                     "{} domains; use alltoall or an expert group within one domain",
                     dispatcher_ == MoeDispatcher::DeepEP ? "deepep" : "hybridep", job_hw.name,
                     e_ * et_, ep_nodes_));
  }
}

bool ExpertLayout::straddles() const {
  const int gpn = placement_.gpus_per_node;
  return moe_ && ep_nodes_ > (e_ * et_ + gpn - 1) / gpn;
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

std::vector<OpCollective> ExpertLayout::layer_collectives(const hardware::HardwareProfile& hw,
                                                          const models::ModelSpec& model,
                                                          const models::LayerConfig& cfg,
                                                          double layers) const {
  std::vector<OpCollective> out;
  if (!moe_ || layers <= 0) return out;
  if (e_ > 1) {
    const TokenExchange x = token_exchange(hw, model, cfg, dispatcher_, ep_nodes_);
    if (dispatcher_ == MoeDispatcher::AllToAll) {
      // Dispatch and combine: two exchanges of the same size.
      out.push_back(x.dispatch);
      out.back().calls = 2 * layers;
    } else {
      out.push_back(x.dispatch);
      out.back().calls = layers;
      out.push_back(x.combine);
      out.back().calls = layers;
    }
  }
  if (et_ > 1) {
    // The e_t ranks' received tokens gathered before the experts, their outputs
    // reduce-scattered after (n: the buffer each rank ends with / starts with).
    const core::Bytes gathered = dispatch_bytes(model, cfg) * static_cast<double>(et_);
    out.push_back({hardware::Collective::AllGather, et_, 1, gathered, layers});
    out.push_back({hardware::Collective::ReduceScatter, et_, 1, gathered, layers});
  }
  return out;
}

TokenExchange token_exchange(const hardware::HardwareProfile& hw, const models::ModelSpec& model,
                             const models::LayerConfig& cfg, MoeDispatcher dispatcher,
                             int ep_nodes) {
  const int e = cfg.expert_parallel;
  const core::Bytes n = dispatch_bytes(model, cfg);
  if (dispatcher == MoeDispatcher::AllToAll) {
    const OpCollective a2a{hardware::Collective::AllToAll, e, ep_nodes, n, 1.0};
    return {a2a, a2a};
  }
  const int k = model.moe.top_k;
  const double h = model.hidden;
  // Routed tokens per rank, the busiest rank's (dispatch_bytes without the copies' bytes).
  const double tokens = n.value / (k * h * models::activation_element_bytes(model.precision));
  const int nodes = std::max(ep_nodes, 1);
  const double reached =
      model.moe.router_groups > 0
          ? std::min<double>(
                nodes, model.moe.router_group_topk *
                           std::max(1.0, static_cast<double>(nodes) / model.moe.router_groups))
          : nodes;
  const double distinct = reached * (1.0 - std::pow(1.0 - 1.0 / reached, k));
  const double remote = distinct * (nodes - 1) / nodes;
  const double per_node = std::ceil(static_cast<double>(e) / nodes);
  // Each rank's share of its node's NICs.
  const double nic_share =
      std::min(1.0, static_cast<double>(hw.nics_per_node) / std::max(hw.gpus_per_node, 1));
  const auto exchange = [&](double element_bytes) {
    const double rdma = tokens * remote * h * element_bytes;
    const double nvlink = tokens * k * h * element_bytes * (per_node - 1) / per_node;
    const double rdma_s = nodes > 1 ? rdma / (hw.inter_node.effective_beta() * nic_share) : 0.0;
    const double nvlink_s = nvlink / hw.intra_node.effective_beta();
    OpCollective c{hardware::Collective::AllToAll, e, nodes, core::Bytes(rdma + nvlink), 1.0};
    hardware::CommTime t;
    t.latency = core::Seconds(hw.intra_node.alpha + (nodes > 1 ? hw.inter_node.alpha : 0.0));
    t.inter = core::Seconds(rdma_s);
    t.intra = core::Seconds(std::max(0.0, nvlink_s - rdma_s));
    c.priced = t;
    return c;
  };
  // FP8 with a scale per 1×128 tile (DeepSeek-V3 §3.3.2), the MX and NV formats with theirs.
  const double dispatch_element = models::low_precision_gemms(model.precision)
                                      ? (model.precision == models::Precision::FP8
                                             ? 1.0 + 4.0 / 128
                                             : models::quantized_element_bytes(model.precision))
                                      : models::activation_element_bytes(model.precision);
  return {exchange(dispatch_element), exchange(models::activation_element_bytes(model.precision))};
}

}  // namespace pipesim::cost
