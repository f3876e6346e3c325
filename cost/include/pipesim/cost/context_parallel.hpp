#pragma once
// Context-parallel communication of one layer (Megatron-Core context parallelism, Transformer
// Engine's default "p2p" ring attention: NVIDIA Megatron-LM docs/source/api-guide/
// context_parallel.rst; Transformer Engine attention.py, AttnFuncWithCPAndKVP2P; Liu et al.,
// "Ring Attention with Blockwise Transformers", arXiv 2310.01889, §3).
//
// The c GPUs of a context-parallel group each hold 1/c of the sequence; a causal model's
// sequence is cut into 2c chunks and rank i holds chunks i and 2c−1−i, so every rank's
// attention does the same work (total/c). Each attention layer's forward passes the K and V
// blocks around the ring in c − 1 steps, each step's transfer running beside the attention of
// the block already there; the backward passes the K, V blocks and the accumulated dK, dV
// (twice the bytes) the same way. A step hides behind one block's attention compute (the
// rank's attention kernel time / c, the work being even); what does not hide is exposed:
//   forward, per layer:  (c − 1) · max(0, α + n_kv/β − t_attn_fwd/c)
//   backward, per layer: (c − 1) · max(0, α + 2·n_kv/β − t_attn_bwd/c)
// n_kv = b · (s/c) · 2 · (a_kv · d / t) elements of the activation dtype: the rank's K and V of
// its t-th share of the key/value heads. The tier is intra-node when the t·c GPUs of a worker
// lie in one node, inter-node otherwise (the ring's steps run in lockstep at its slowest hop).
// Recomputing a layer (full or selective) re-runs its attention forward, and its ring.
// Everything else of the layer (GEMMs, norms, activations, p2p messages, the logits) works on
// the rank's s/c tokens (TrainingSetup's rank_model).

#include <vector>

#include "pipesim/core/units.hpp"
#include "pipesim/cost/op_collective.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::cost {

//! n_kv: bytes of the K and V one rank sends per forward ring step (`rank` is the model with
//! the rank's s/c sequence).
core::Bytes cp_kv_block_bytes(const models::ModelSpec& rank, const models::LayerConfig& c);

//! Nodes the c GPUs of a context-parallel group span: ⌈t·c / gpus_per_node⌉.
int cp_group_nodes(const hardware::HardwareProfile& hw, const models::LayerConfig& c);

//! The ring exchanges of one layer, forward (`backward` false) or backward, run `calls` times,
//! each step hiding behind `attention_seconds` / c (the rank's attention kernel time of that
//! direction). Empty for c = 1 or no calls.
std::vector<OpCollective> cp_ring(const hardware::HardwareProfile& hw,
                                  const models::ModelSpec& rank, const models::LayerConfig& c,
                                  bool backward, double attention_seconds, double calls);

}  // namespace pipesim::cost
