#pragma once
// Parameters, kernels and activation bytes of a transformer, per layer and for the embedding
// and LM head, as one GPU of a tensor-parallel group sees them (docs/architecture.md §4). The layer's
// kernels are layer_kernels.hpp's list, the one definition the simulator, the layer check and
// the CUDA layer benchmark share. Every formula cites its source; all are pure functions.
//
// Sources:
//  [N21] Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
//        Megatron-LM", SC'21, §5.1 / Appendix: parameters 12Lh²(1 + 13/12h + (V+s)/12Lh) and
//        iteration FLOPs 72BsLh²(1 + s/6h + V/12Lh) (96… with full recomputation); §4.1 the
//        scatter/gather optimisation of inter-stage messages (b·s·h/t per GPU).
//  [K22] Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
//        arXiv 2205.05198, §4, Table 2: activations per layer sbh(34 + 5as/h) bytes (16-bit);
//        tensor parallel sbh(10 + 24/t + 5as/(ht)); with sequence parallelism sbh/t·(34 +
//        5as/h); selective recomputation drops the 5as²b attention core; full keeps 2sbh.
//  [S19] Shoeybi et al., "Megatron-LM", arXiv 1909.08053, §3: column/row-parallel split,
//        vocabulary-parallel embedding and head, norms replicated.
//  [Q23] Qi et al., "Zero Bubble Pipeline Parallelism", arXiv 2401.10241, Table 1: per layer
//        F = sbh(24h + 4s), B (input gradient, "I" here) = sbh(24h + 8s), W = 24sbh².
//  [D23] Dao, "FlashAttention-2", arXiv 2307.08691: stores the output and the fp32 log-sum-exp
//        per row only; backward recomputes the scores.

#include "pipesim/core/units.hpp"
#include "pipesim/models/layer_kernels.hpp"
#include "pipesim/models/model_spec.hpp"

namespace pipesim::models {

enum class Recompute { None, Selective, Full };
enum class Attention { Standard, Flash };

//! How one GPU runs the model's layers: micro-batch, tensor-parallel group, attention kernel.
struct LayerConfig {
  int micro_batch_size = 1;        //!< b
  int tensor_parallel = 1;         //!< t
  bool sequence_parallel = false;  //!< [K22 §4.2.2]; needs t > 1
  Attention attention = Attention::Standard;
};

//! The layer's shape for layer_kernels(): the model's dimensions, precision and config.
LayerShape layer_shape(const ModelSpec& m, const LayerConfig& c);

//! Sum of FLOPs of the compute-bound kernels (GEMMs and fused attention).
core::Flops kernel_flops(const KernelList& ks);
//! Sum of bytes of the memory-bound kernels.
core::Bytes kernel_memory_bytes(const KernelList& ks);

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

//! Parameters one GPU of a t-way tensor-parallel group holds [S19]: GEMM weights and the
//! biases of column-parallel GEMMs (QKV, fc1) / t; row-parallel biases (proj, fc2) and the
//! norms replicated (sequence parallelism keeps them replicated too; their gradients are
//! all-reduced over the group).
double layer_params_per_gpu(const ModelSpec& m, int t);
//! Vocabulary-parallel embedding V·h/t; learned positions replicated.
double embedding_params_per_gpu(const ModelSpec& m, int t);
//! Final norm (replicated), an untied vocabulary-parallel head V·h/t, extra parameters.
double head_params_per_gpu(const ModelSpec& m, int t);

//! One layer on one GPU (layer_kernels of layer_shape): the forward; the backward's
//! input-gradient part (every kernel but the weight-gradient GEMMs); its weight-gradient part.
//! For GPT at t = 1: F = sbh(24h + 4s), I = sbh(24h + 8s), W = 24sbh² FLOPs [Q23].
KernelList layer_forward(const ModelSpec& m, const LayerConfig& c);
KernelList layer_backward_input(const ModelSpec& m, const LayerConfig& c);
KernelList layer_backward_weight(const ModelSpec& m, const LayerConfig& c);
//! The forward part recomputed before a backward: the whole layer forward (full), or the
//! attention core (selective [K22 §5]); nothing for none.
KernelList layer_recompute(const ModelSpec& m, const LayerConfig& c, Recompute r);

//! Last stage: final norm, logits 2bshV/t [N21] and the fp32 softmax cross-entropy (Megatron's
//! vocabulary-parallel loss); backward: loss gradient, logits input gradient 2bshV/t, norm;
//! weight gradient 2bshV/t.
KernelList head_forward(const ModelSpec& m, const LayerConfig& c);
KernelList head_backward_input(const ModelSpec& m, const LayerConfig& c);
KernelList head_backward_weight(const ModelSpec& m, const LayerConfig& c);
//! First stage: embedding lookup (+ positions), memory-bound; its weight gradient is the
//! scatter-add of the output gradient.
KernelList embedding_forward(const ModelSpec& m, const LayerConfig& c);
KernelList embedding_backward_weight(const ModelSpec& m, const LayerConfig& c);

//! Activation bytes one layer keeps from its forward to its backward for one micro-batch on one
//! GPU [K22 Table 2], itemised (grouped-query attention, gated MLPs, other FFN sizes, no
//! dropout, element sizes other than 2, 1-byte masks): for a 16-bit GPT layer none
//! sbh(10 + 24/t + 5as/(ht)), with SP sbh/t·(34 + 5as/h); selective drops the 5as²b/t
//! attention core; full keeps the layer input 2sbh (/t with SP). FlashAttention stores no
//! s² term, only its fp32 log-sum-exp 4·a·s·b/t [D23].
core::Bytes layer_activation_bytes(const ModelSpec& m, const LayerConfig& c, Recompute r);
//! First stage: the embedding dropout mask (sbh bytes, /t with SP) [K22 §4.3]; last stage:
//! final norm and head inputs (2·e·sbh, /t with SP) and fp32 logits 4sbV/t.
core::Bytes embedding_activation_bytes(const ModelSpec& m, const LayerConfig& c);
core::Bytes head_activation_bytes(const ModelSpec& m, const LayerConfig& c);

//! The p2p message between stages, per GPU: b·s·h elements, / t with tensor parallelism (each
//! GPU of the group sends its 1/t slice and the receivers all-gather it over NVLink: the
//! scatter/gather optimisation [N21 §4.1]; the all-gather is not priced).
core::Bytes p2p_message_bytes(const ModelSpec& m, const LayerConfig& c);

//! Element bytes of activations in the model's precision: fp32 4; fp16, bf16 2; fp8 2 (Transformer
//! Engine keeps activations in bf16 between its fp8 GEMMs).
double activation_element_bytes(Precision p);

//! Model FLOPs of one iteration over `samples` samples, without recomputation: 3 × forward
//! (72·B̂·s·L·h²(1 + s/6h + V/12Lh) for GPT [N21]). The MFU numerator: standard attention, no
//! tensor parallelism, whatever kernels run.
core::Flops model_flops_per_iteration(const ModelSpec& m, double samples);

}  // namespace pipesim::models
