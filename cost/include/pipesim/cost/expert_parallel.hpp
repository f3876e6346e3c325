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
// forward and again in the input-gradient backward: two all-to-alls each, priced by pairwise
// exchange (hardware/collectives/pairwise_all_to_all.hpp) over the nodes the group spans. With
// e_t > 1 the received tokens are all-gathered over the e_t group before the experts and
// reduce-scattered after them (Megatron-Core's alltoall token dispatcher). The busiest rank
// sets the time: its buffer is load × the balanced one (load = the routing imbalance, capped
// by a capacity factor). Expert weights' gradients are reduced over the expert data-parallel
// group of T·C·W/(e·e_t) ranks.

#include <span>
#include <vector>

#include "pipesim/cost/op_collective.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::cost {

class ExpertLayout {
 public:
  ExpertLayout() = default;
  //! Throws core::ConfigError("command line", field, ...) when the groups cannot be formed:
  //! e·e_t must divide T·C·W (the folding), e_t must divide gpus_per_node and its group lie in one
  //! node under the placement (the expert-tensor-parallel group shares an NVLink domain, as the
  //! tensor-parallel group does).
  ExpertLayout(const models::ModelSpec& model, const hardware::Placement& placement,
               const TrainingSetup& setup);

  bool active() const { return moe_; }
  int expert_parallel() const { return e_; }
  int expert_tensor_parallel() const { return et_; }
  //! T·C·W / (e·e_t): the ranks each expert shard's gradient is reduced over, per stage copy.
  int expert_data_parallel() const { return edp_; }
  //! Nodes an expert-parallel group spans (the most over the workers).
  int ep_nodes() const { return ep_nodes_; }
  //! Nodes the expert data-parallel groups of `workers` span together.
  int edp_nodes(std::span<const int> workers) const;

  //! The collectives of `layers` MoE layers in one direction (dispatch + combine; with e_t > 1
  //! the all-gather and reduce-scatter over the e_t group). Empty when e = e_t = 1 or none.
  std::vector<OpCollective> layer_collectives(const models::ModelSpec& model,
                                              const models::LayerConfig& cfg, double layers) const;

 private:
  // GPU of expert rank x of worker w's stage (x in [0, T·C·W)).
  int gpu(int worker, int x) const;

  hardware::Placement placement_;
  bool moe_ = false;
  int group_ = 1;  // t·c: the GPUs of one worker (tensor- × context-parallel ranks)
  int e_ = 1, et_ = 1, edp_ = 1, ep_nodes_ = 1;
};

//! Bytes one GPU's dispatch sends per MoE layer at its busiest: k · tokens · load · h elements
//! (tokens = the b·s/T a GPU holds with sequence parallelism, else b·s).
core::Bytes dispatch_bytes(const models::ModelSpec& model, const models::LayerConfig& cfg);

}  // namespace pipesim::cost
