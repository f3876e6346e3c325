#pragma once
// Parameters, kernels and activation bytes of a transformer, per layer and for the embedding
// and LM head, as one GPU of a tensor-parallel group sees them (docs/architecture.md §4). The
// layer's kernels are layer_kernels.hpp's list, the one definition the simulator, the layer check
// and the CUDA layer benchmark share. Every formula cites its source; all are pure functions.
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
//  [MC]  Megatron-Core MoE (NVIDIA Megatron-LM, megatron/core/transformer/moe, README "Megatron
//        Core MoE"): router weight E×h, top-k, experts as grouped GEMMs over E/e local experts
//        each split over the expert-tensor-parallel size e_t (default t), shared experts as one
//        tensor-parallel MLP of the summed shared size; capacity factor drops tokens beyond
//        capacity·(average tokens per expert).
//  [DS2] DeepSeek-AI, "DeepSeek-V2", arXiv 2405.04434, §2.1: multi-head latent attention.
//  [DS3] DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv 2412.19437, §2.1.2 aux-loss-free
//        balancing (a bias per expert), §2.2 multi-token prediction (per depth: two RMSNorms,
//        a 2h → h projection, one transformer layer; embedding and output head shared);
//        §3.2.3 recomputation of RMSNorm and the MLA up-projections; §3.3.3 activations cached
//        in FP8 for the Linear backward, the MoE SwiGLU input in FP8 and its output recomputed.
//  [MCR] NVIDIA Megatron-LM, megatron/core/transformer/transformer_config.py recompute_modules
//        and moe/README.md ("Fine-grained recomputation", v0.13; "moving the probs
//        multiplication from unpermutation to activation function of GroupedMLP", v0.13).
//  [TE]  NVIDIA Transformer Engine, docs "Performance Considerations" (tensor usages: the
//        weight gradient reads its input column-wise) and pytorch/module/linear.py: a Linear
//        under a low-precision recipe saves the quantized column-wise input for the backward.

#include <string>

#include "pipesim/core/units.hpp"
#include "pipesim/models/layer_kernels.hpp"
#include "pipesim/models/model_spec.hpp"

namespace pipesim::models {

enum class Recompute { None, Selective, Full };

//! What selective recomputation re-runs: Megatron-Core's fine-grained recomputation
//! (--recompute-granularity selective --recompute-modules; TransformerConfig.recompute_modules,
//! MCore v0.13). Each module stores less and re-runs its forward before the backward [MCR]:
//!  core_attn       the attention core (its scores, or flash's log-sum-exp) [K22 §5]
//!  moe_act         the routed experts' activation function: its output (the fc2 input) is
//!                  recomputed from its input (output-discarding checkpoint)
//!  layernorm       the two norms before attention and the FFN: their outputs (output-discarding)
//!  mla_up_proj     latent attention's up-projections: Q, K, V recomputed from the latents
//!  mlp             a dense layer's whole MLP: only its input is kept
//!  moe             a mixture-of-experts layer's whole FFN (router, experts, shared experts and
//!                  their all-to-alls): only its input is kept
//!  shared_experts  the shared experts' MLP: only its input is kept
//! The default, core_attn alone, is Megatron's selective recomputation [K22 §5].
struct RecomputeModules {
  bool core_attn = true;
  bool moe_act = false;
  bool layernorm = false;
  bool mla_up_proj = false;
  bool mlp = false;
  bool moe = false;
  bool shared_experts = false;
  bool operator==(const RecomputeModules&) const = default;
};

//! Parses a comma- (or space-) separated list of the module names above, e.g.
//! "core_attn,moe_act"; an empty text is no module. Throws core::ConfigError::option(`field`)
//! naming the unknown module and the allowed names, or a repeated one.
RecomputeModules parse_recompute_modules(const std::string& text, const std::string& field);

//! How one GPU runs the model's layers: micro-batch, tensor-parallel group, attention kernel, and
//! for mixture-of-experts layers the expert-parallel layout [MC]. The defaults are Megatron's
//! (e = 1, e_t = t, balanced routing); dense layers ignore the expert fields.
struct LayerConfig {
  int micro_batch_size = 1;        //!< b
  int tensor_parallel = 1;         //!< t
  bool sequence_parallel = false;  //!< [K22 §4.2.2]; needs t > 1
  Attention attention = Attention::Standard;
  //! c: the model's sequence is this GPU's 1/c share and attention reads the keys and values of
  //! all c shares (context parallelism; cost/context_parallel.hpp).
  int context_parallel = 1;
  int expert_parallel = 1;         //!< e: the routed experts spread over e GPUs, E/e on each
  int expert_tensor_parallel = 0;  //!< e_t: each expert's FFN split over e_t GPUs; 0 = t
  //! Tokens the busiest GPU's experts receive relative to the balanced k·tokens/e (>= 1); a
  //! capacity factor caps it (tokens beyond capacity are dropped).
  double expert_imbalance = 1.0;
  //! The local experts' GEMMs grouped (GroupedMLP) or one expert after another (SequentialMLP).
  bool expert_grouped_gemm = true;
  //! What the framework's autograd keeps for the backward beyond [K22]'s count (which assumes
  //! fused kernels: a GeLU that keeps its input, a softmax that keeps its output). Eager:
  //! PyTorch <= 1.10 eager mode, whose softmax and log_softmax backward nodes also keep their
  //! input (pytorch/pytorch issue 64000, fixed by PR 65242 for 1.11), running a tanh GeLU
  //! written in Python (Hugging Face GPT-2's gelu_new), whose autograd keeps tanh(·), 0.5x and
  //! 1 + tanh(·) besides x: three more FFN-wide tensors.
  bool eager_autograd = false;
  //! The loss as Megatron-LM's unfused `vocab_parallel_cross_entropy` on `logits.float()`: one
  //! elementwise kernel per step over the b·s·V/t logits (cast, max, subtract, exp, sum,
  //! divide; backward: multiply, cast back). Off: a fused loss, 3·4 forward and 2·4 backward
  //! bytes per logit.
  bool unfused_cross_entropy = false;
  //! What Recompute::Selective re-runs (layer_activation_bytes, layer_recompute).
  RecomputeModules recompute_modules{};
  //! DeepSeek-V3's low-precision storage (§3.3.3) on top of what Transformer Engine already
  //! does under a low-precision recipe. Transformer Engine stores every `linear` GEMM's input
  //! as the quantized copy its cast made (q bytes per element, quantized_element_bytes), the
  //! attention projection's beside the 16-bit attention output the attention backward reads.
  //! DeepSeek's storage also keeps the routed experts' activation input quantized and holds one
  //! copy of the attention output. The router's input and every norm's input stay 16-bit. No
  //! effect in fp32/fp16/bf16.
  bool quantized_activations = false;
};

//! Throws core::ConfigError("command line", field, ...) when the expert layout does not fit the
//! model: e must divide E, e_t the expert FFN size, the imbalance be in [1, E/k]... (fields named
//! neutrally: expert_parallel, expert_tensor_parallel, expert_imbalance). Dense models accept the
//! defaults only.
void validate_expert_layout(const ModelSpec& m, const LayerConfig& c);

//! What a layer's FFN is: a dense MLP, or a mixture of experts.
enum class LayerKind { Dense, Moe };

//! The kind of layer `layer` (0-based; layers .. layers + mtp_layers − 1 are the MTP modules'
//! layers, DeepSeek's numbering): MoE from moe.first_dense_layers on, on every
//! moe.layer_frequency-th layer at moe.layer_phase.
LayerKind layer_kind(const ModelSpec& m, int layer);
//! The mixture-of-experts layers among the model's `layers` (0 for a dense model).
int moe_layer_count(const ModelSpec& m);

//! The layer's shape for layer_kernels(): the model's dimensions, precision and config. The
//! overload without a kind is the one layer of a dense model; for a model with mixture-of-experts
//! layers or MTP modules it throws core::ConfigError (the cost model, which prices one uniform
//! layer, refuses such models until it prices each kind).
LayerShape layer_shape(const ModelSpec& m, const LayerConfig& c);
LayerShape layer_shape(const ModelSpec& m, const LayerConfig& c, LayerKind kind);

//! Sum of FLOPs of the compute-bound kernels (GEMMs and fused attention).
core::Flops kernel_flops(const KernelList& ks);

//! One layer's parameters by part, each counted once (whole, not per GPU).
struct LayerParameters {
  //! Q, K, V (or the latent projections and their norms [DS2]), the output projection, their
  //! biases, per-head query/key norms.
  double attention = 0.0;
  double norms = 0.0;   //!< the two norms, before attention and before the FFN
  double mlp = 0.0;     //!< a dense layer's FFN
  double router = 0.0;  //!< E·h routing weights (+ E biases with bias, + E expert biases [DS3])
  double shared = 0.0;  //!< the shared experts (and their gate)
  double expert = 0.0;  //!< one routed expert's FFN
  int experts = 0;      //!< routed experts E (0 in a dense layer)
  int top_k = 0;        //!< routed experts a token uses

  double total() const { return attention + norms + mlp + router + shared + experts * expert; }
  //! What one token's forward uses: its top-k routed experts, everything else.
  double active() const { return attention + norms + mlp + router + shared + top_k * expert; }
};
LayerParameters layer_parameters(const ModelSpec& m, LayerKind kind);

//! The parameters one GPU holds of a layer, split by the group that reduces their gradients.
struct GpuLayerParameters {
  //! Everything but the routed experts, over the tensor-parallel group [S19]: GEMM weights and
  //! column-parallel biases / t; norms, row-parallel biases, the router, the shared-expert gate
  //! and the latent down-projections replicated (Megatron-Core duplicates them).
  double dense = 0.0;
  //! The routed experts this GPU holds: E/e of them, each / e_t (row-parallel biases whole).
  double expert = 0.0;
  double total() const { return dense + expert; }
};
GpuLayerParameters layer_params_per_gpu(const ModelSpec& m, const LayerConfig& c, LayerKind kind);

//! Parameters of one transformer layer: attention (Q, K, V, output projection), MLP, two
//! norms. For a GPT layer (FFN 4h, biases, LayerNorm) this is 12h² + 13h [N21]. Dense models
//! only (ConfigError otherwise, as layer_shape).
double layer_params(const ModelSpec& m);
//! Weights of the layer's GEMMs only (12h² for GPT): 2·b·s times this is the GEMM work of F.
double layer_matmul_params(const ModelSpec& m);
//! The GEMM weights one token's forward multiplies by in a layer of this kind: attention
//! projections, the dense FFN, or the router, the top-k routed experts and the shared experts.
double layer_matmul_params(const ModelSpec& m, LayerKind kind);
//! Input embedding V·h plus learned positions (first stage).
double embedding_params(const ModelSpec& m);
//! Final norm, an untied LM head V·h, and extra head parameters (last stage).
double head_params(const ModelSpec& m);
//! Whole model, each parameter once (a tied head is not counted twice); the MTP modules are
//! counted apart (mtp_params), as DeepSeek-V3's 671B leaves out its 14B of MTP weights.
double model_params(const ModelSpec& m);
//! What one token's forward uses: model_params less the routed experts it is not sent to
//! (E − k per MoE layer). Counts the input embedding table, as Mistral, Qwen and Meta do;
//! DeepSeek and OpenAI leave it out (subtract embedding_params).
double active_params(const ModelSpec& m);
//! The MTP modules' own parameters [DS3 §2.2]: per depth the norms of the hidden state and of
//! the next token's embedding, the 2h → h projection, one layer and the final norm; the
//! embedding and the output head are the main model's.
double mtp_params(const ModelSpec& m);

//! Forward FLOPs per token: 2 × layer_matmul_params of every layer (active experts only),
//! attention over all s positions (2·s·a·(d_qk + d_v) per layer, no causal saving: the MFU
//! convention [N21]) and the logits 2hV. The MTP modules are apart (mtp_forward_flops_per_token).
double forward_flops_per_token(const ModelSpec& m);
//! Per MTP depth: the 2h → h projection, its layer and its logits, summed over the depths.
double mtp_forward_flops_per_token(const ModelSpec& m);

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
//! Without a kind: the layer of a dense model (ConfigError otherwise, as layer_shape).
KernelList layer_forward(const ModelSpec& m, const LayerConfig& c);
KernelList layer_backward_input(const ModelSpec& m, const LayerConfig& c);
KernelList layer_backward_weight(const ModelSpec& m, const LayerConfig& c);
KernelList layer_forward(const ModelSpec& m, const LayerConfig& c, LayerKind kind);
KernelList layer_backward_input(const ModelSpec& m, const LayerConfig& c, LayerKind kind);
KernelList layer_backward_weight(const ModelSpec& m, const LayerConfig& c, LayerKind kind);
//! The forward part recomputed before a backward: the whole layer forward (full), or the
//! attention core (selective [K22 §5]); nothing for none.
KernelList layer_recompute(const ModelSpec& m, const LayerConfig& c, Recompute r);
KernelList layer_recompute(const ModelSpec& m, const LayerConfig& c, Recompute r, LayerKind kind);

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
//! Dense models only without a kind (ConfigError otherwise, as layer_shape).
//!
//! Extended to the variants: an explicit head dimension sizes Q and the projection input by
//! a·d; query/key norms keep their inputs (e·sb·(a·d + h_kv) / t);
//! latent attention keeps the down-projection outputs and the norms' outputs (e·sb·(2·q_lora +
//! 2·kv_lora + rope), on every GPU: the down-projections are replicated) and Q, K (a·d_qk), V
//! and the projection input (a·d_v) / t. A mixture-of-experts layer keeps, instead of the
//! FFN-wide tensors: the router's fp32 scores 4·sb·E (norm region), and per routed token copy
//! on this GPU (k·tokens·load rows, the grouped GEMMs' m) its expert input and output e·h and
//! the expert's FFN-wide tensors (2, or 3 for SwiGLU) × e·f_e/e_t; the shared experts keep
//! their FFN-wide tensors / t like a dense MLP. Recomputation as for a dense layer.
core::Bytes layer_activation_bytes(const ModelSpec& m, const LayerConfig& c, Recompute r);
core::Bytes layer_activation_bytes(const ModelSpec& m, const LayerConfig& c, Recompute r,
                                   LayerKind kind);
//! First stage: the embedding dropout mask (sbh bytes, /t with SP) [K22 §4.3]; last stage:
//! final norm and head inputs (2·e·sbh, /t with SP) and fp32 logits 4sbV/t.
core::Bytes embedding_activation_bytes(const ModelSpec& m, const LayerConfig& c);
core::Bytes head_activation_bytes(const ModelSpec& m, const LayerConfig& c);

//! The p2p message between stages, per GPU: b·s·h elements, / t with tensor parallelism (each
//! GPU of the group sends its 1/t slice and the receivers all-gather it over NVLink: the
//! scatter/gather optimisation [N21 §4.1]; the all-gather is not priced).
core::Bytes p2p_message_bytes(const ModelSpec& m, const LayerConfig& c);

//! Bytes per element of a low-precision recipe's quantized tensors, scales included: fp8 1 (one
//! fp32 scale per tensor), mxfp8 1 + 1/32 (an E8M0 scale per 32), nvfp4 1/2 + 1/16 (an E4M3
//! scale per 16); 0 for the 16- and 32-bit precisions (OCP MX v1.0; Transformer Engine recipes).
double quantized_element_bytes(Precision p);

//! Element bytes of activations in the model's precision: fp32 4; fp16, bf16 2; fp8 2 (Transformer
//! Engine keeps activations in bf16 between its fp8 GEMMs).
double activation_element_bytes(Precision p);

//! Model FLOPs of one iteration over `samples` samples, without recomputation: 3 × forward
//! (72·B̂·s·L·h²(1 + s/6h + V/12Lh) for GPT [N21]). The MFU numerator: standard attention, no
//! tensor parallelism, whatever kernels run; each layer of its kind (top-k routed experts,
//! balanced), plus the MTP modules (projection, layer, logits) when the model has them.
core::Flops model_flops_per_iteration(const ModelSpec& m, double samples);

}  // namespace pipesim::models
