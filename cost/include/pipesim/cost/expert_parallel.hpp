#pragma once
// Expert parallelism with Megatron-Core's MoE parallel folding (cost/README.md, "Mixture of
// experts"; Liu et al., "MoE Parallel Folding", arXiv 2504.14960; Megatron-Core
// megatron/core/parallel_state.py, order "tp-ep-dp" for the expert ranks).
//
// A stage's attention runs over its T·C·W GPUs (T tensor-parallel × C context-parallel × W
// replicas). Its expert layers fold the same GPUs into e_t × e × (T·C·W / (e·e_t)):
// expert-tensor-parallel groups of e_t consecutive ranks, innermost, then expert-parallel groups
// of e such blocks, then the expert data-parallel groups over the rest. Rank x of a stage's
// T·C·W ranks is GPU x mod T·C of the worker of replica ⌊x/(T·C)⌋ (Megatron-Core's attention
// order "tp-cp-dp" read as the experts' "tp-ep-dp"), on the GPU the placement gives it: so
// groups fill the NVLink domain (the node) first, and span nodes only when they must. With
// context parallelism the MoE layers route the tokens of the rank's 1/C of the sequence (the
// rank model's), so the all-to-alls carry 1/C of the tokens; attention keeps its ring
// (context_parallel.hpp).
//
// Per MoE layer and micro-batch each GPU sends its k·tokens·load token copies of h elements
// to the e ranks of its expert-parallel group (dispatch) and gets them back (combine), in the
// forward and again in the input-gradient backward. How depends on the token dispatcher
// (TokenExchange): Megatron-Core's alltoall sends every copy in the activations' precision, two
// all-to-alls priced by pairwise exchange (hardware/collectives/pairwise_all_to_all.hpp) over
// the nodes the group spans; DeepEP and HybridEP send a token once to each other node that holds
// one of its experts and forward it over NVLink there. With
// e_t > 1 the received tokens are all-gathered over the e_t group before the experts and
// reduce-scattered after them (Megatron-Core's alltoall token dispatcher). The busiest rank
// sets the time: its buffer is load × the balanced one (load = the routing imbalance, capped
// by a capacity factor). Expert weights' gradients are reduced over the expert data-parallel
// group of T·C·W/(e·e_t) ranks.

#include <span>
#include <vector>

#include "pipesim/cost/domain_slice.hpp"
#include "pipesim/cost/op_collective.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::cost {

//! One MoE layer's dispatch and combine in one direction, each one call.
struct TokenExchange {
  OpCollective dispatch, combine;
};

//! The token exchange of `dispatcher` over an expert-parallel group of cfg.expert_parallel ranks
//! on `ep_nodes` NVLink domains (nodes), for T = tokens · load routed tokens per rank:
//!  - alltoall: two all-to-alls of dispatch_bytes each (Megatron-Core's alltoall dispatcher);
//!  - deepep, hybridep (Megatron-Core's flex dispatcher; DeepEP's normal kernels, NVIDIA's
//!    HybridEP): a token goes once over RDMA to each other node that holds one of its k experts
//!    and is forwarded over NVLink there (DeepSeek-V3 §3.2.2). With group-limited routing a
//!    token reaches L = min(N, topk_group · max(1, N / groups)) of the N nodes, else L = N; its k
//!    copies land on D = L·(1 − (1 − 1/L)^k) distinct nodes when routing is balanced, D·(N−1)/N
//!    of them remote. Per rank: RDMA T·D·(N−1)/N·h·q bytes on its share of a NIC, NVLink
//!    T·k·h·q·(g−1)/g bytes (g = e/N ranks a node), the two pipelined: the time is the longer
//!    plus one latency of each tier. q: the dispatch in the low-precision format (fp8 with a
//!    scale per 128 channels, 1 + 4/128 bytes; DeepSeek-V3 §3.3.2), the combine in bf16 (the
//!    activations' bytes).
TokenExchange token_exchange(const hardware::HardwareProfile& hw, const models::ModelSpec& model,
                             const models::LayerConfig& cfg, MoeDispatcher dispatcher,
                             int ep_nodes);

class ExpertLayout {
 public:
  ExpertLayout() = default;
  //! Throws core::ConfigError("command line", field, ...) when the groups cannot be formed:
  //! e·e_t must divide T·C·W (the folding), e_t must divide gpus_per_node and its group lie in one
  //! node under the placement (the expert-tensor-parallel group shares an NVLink domain, as the
  //! tensor-parallel group does).
  ExpertLayout(const models::ModelSpec& model, const hardware::Placement& placement,
               const TrainingSetup& setup);
  //! The layout of a job of D = `workers` on `job_hw` (domain_slice.hpp's job_hardware); also
  //! throws for a flex dispatcher (DeepEP, HybridEP) whose group spans domains that have no
  //! RDMA NICs.
  ExpertLayout(const models::ModelSpec& model, const hardware::HardwareProfile& job_hw,
               const TrainingSetup& setup, int workers);

  bool active() const { return moe_; }
  int expert_parallel() const { return e_; }
  int expert_tensor_parallel() const { return et_; }
  //! T·C·W / (e·e_t): the ranks each expert shard's gradient is reduced over, per stage copy.
  int expert_data_parallel() const { return edp_; }
  //! Nodes an expert-parallel group spans (the most over the workers).
  int ep_nodes() const { return ep_nodes_; }
  //! An expert-parallel group spans more NVLink domains than its size needs (it would fit one,
  //! or fewer): its exchange crosses NICs that a placement along the domains would avoid.
  bool straddles() const;
  //! Nodes the expert data-parallel groups of `workers` span together.
  int edp_nodes(std::span<const int> workers) const;

  //! The collectives of `layers` MoE layers in one direction (dispatch + combine as the
  //! dispatcher runs them, TokenExchange; with e_t > 1 the all-gather and reduce-scatter over
  //! the e_t group). Empty when e = e_t = 1 or none.
  std::vector<OpCollective> layer_collectives(const hardware::HardwareProfile& hw,
                                              const models::ModelSpec& model,
                                              const models::LayerConfig& cfg, double layers) const;

 private:
  // GPU of expert rank x of worker w's stage (x in [0, T·C·W)).
  int gpu(int worker, int x) const;

  hardware::Placement placement_;
  bool moe_ = false;
  int group_ = 1;  // t·c: the GPUs of one worker (tensor- × context-parallel ranks)
  int e_ = 1, et_ = 1, edp_ = 1, ep_nodes_ = 1;
  MoeDispatcher dispatcher_ = MoeDispatcher::AllToAll;
};

//! Bytes one GPU's dispatch sends per MoE layer at its busiest: k · tokens · load · h elements
//! (tokens = the b·s/T a GPU holds with sequence parallelism, else b·s).
core::Bytes dispatch_bytes(const models::ModelSpec& model, const models::LayerConfig& cfg);

}  // namespace pipesim::cost
