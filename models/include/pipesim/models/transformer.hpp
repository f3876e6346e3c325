#pragma once
// Parameters, FLOPs and activation bytes of a transformer, per layer and for the embedding and LM
// head (docs/architecture.md §4). Every formula cites its source; all are pure functions of the
// spec.
//
// Sources:
//  [N21] Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
//        Megatron-LM", SC'21, §5.1 / Appendix: parameters 12Lh²(1 + 13/12h + (V+s)/12Lh) and
//        iteration FLOPs 72BsLh²(1 + s/6h + V/12Lh) (96… with full recomputation).
//  [K22] Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
//        arXiv 2205.05198, §4: activations per layer sbh(34 + 5as/h) bytes (16-bit);
//        selective recomputation 34sbh; full recomputation 2sbh (the layer input).
//  [Q23] Qi et al., "Zero Bubble Pipeline Parallelism", arXiv 2401.10241, Table 1: per layer
//        F = sbh(24h + 4s), B (input gradient, "I" here) = sbh(24h + 8s), W = 24sbh².

#include <vector>

#include "pipesim/core/units.hpp"
#include "pipesim/models/model_spec.hpp"

namespace pipesim::models {

enum class Recompute { None, Selective, Full };

//! A group of identical GEMMs: `flops` each (2mnk), `count` of them.
struct Gemm {
  double flops = 0.0;
  double count = 0.0;
};

//! What one compute op costs before hardware is applied.
struct OpWork {
  std::vector<Gemm> gemms;  //!< matrix multiplications (time = FLOPs / (peak · eff))
  core::Bytes memory{0.0};  //!< bytes moved by memory-bound kernels
  double launches = 0.0;    //!< kernel launches

  core::Flops gemm_flops() const;
  OpWork& operator+=(const OpWork& o);
  OpWork scaled(double k) const;  //!< k times the op (k layers)
};

//! Parameters of one transformer layer: attention (Q, K, V, output projection), MLP, two
//! norms. For a GPT layer (FFN 4h, biases, LayerNorm) this is 12h² + 13h [N21].
double layer_params(const ModelSpec& m);
//! Weights of the layer's GEMMs only (12h² for GPT): 2·b·s times this is the GEMM work of F.
double layer_matmul_params(const ModelSpec& m);
//! Input embedding V·h plus learned positions (first stage).
double embedding_params(const ModelSpec& m);
//! Final norm, an untied LM head V·h, and extra head parameters (last stage).
double head_params(const ModelSpec& m);
//! Whole model, each parameter once (a tied head is not counted twice).
double model_params(const ModelSpec& m);

//! Per layer and micro-batch of b samples: F = 2bs·P_mm + 4bs²h (sbh(24h+4s) for GPT [Q23]);
//! I = 2bs·P_mm + 8bs²h; W = 2bs·P_mm (so I + W = 2F, the usual "backward is twice forward").
OpWork layer_forward(const ModelSpec& m, int b);
OpWork layer_backward_input(const ModelSpec& m, int b);
OpWork layer_backward_weight(const ModelSpec& m, int b);
//! The forward part recomputed before a backward: the whole layer forward (full), or the
//! attention core QKᵀ/softmax/AV (selective [K22 §5]); nothing for none.
OpWork layer_recompute(const ModelSpec& m, int b, Recompute r);

//! Logits 2bshV forward on the last stage [N21]; backward 2bshV for the input gradient and
//! 2bshV for the weight gradient.
OpWork head_forward(const ModelSpec& m, int b);
OpWork head_backward_input(const ModelSpec& m, int b);
OpWork head_backward_weight(const ModelSpec& m, int b);
//! Embedding lookup: memory-bound, b·s·h elements written.
OpWork embedding_forward(const ModelSpec& m, int b);

//! Activation bytes one layer keeps from its forward to its backward for one micro-batch [K22]:
//! none sbh(34 + 5as/h); selective 34sbh; full 2sbh for a GPT layer (itemised in the source
//! for grouped-query attention, gated MLPs and other FFN sizes). Scaled by bytes/2 for fp32.
core::Bytes layer_activation_bytes(const ModelSpec& m, int b, Recompute r);
//! Extra activations of the first stage (embedding dropout mask, sbh bytes) and of the last
//! (final norm and head inputs 4sbh, fp32 logits for the loss 4sbV) [K22 §4.3].
core::Bytes embedding_activation_bytes(const ModelSpec& m, int b);
core::Bytes head_activation_bytes(const ModelSpec& m, int b);

//! The p2p message between stages: b·s·h elements [N21 §2.2].
core::Bytes p2p_message_bytes(const ModelSpec& m, int b);

//! Model FLOPs of one iteration over `samples` samples, without recomputation: 3 × forward
//! (72·B̂·s·L·h²(1 + s/6h + V/12Lh) for GPT [N21]). The MFU numerator.
core::Flops model_flops_per_iteration(const ModelSpec& m, double samples);

}  // namespace pipesim::models
