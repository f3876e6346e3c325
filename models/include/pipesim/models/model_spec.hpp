#pragma once
// A transformer model as pipesim sees it: the shape that fixes parameters, FLOPs and
// activation bytes (docs/architecture.md §4). Loaded from models/<name>.yaml or from a path.

#include <string>
#include <vector>

namespace pipesim::models {

//! Training precisions. FP8, MXFP8 and NVFP4 are Transformer Engine's low-precision recipes:
//! the linear layers' GEMMs in that format (per-tensor scaled E4M3/E5M2; MX block-scaled E4M3
//! with one E8M0 scale per 32 elements; NVFP4 E2M1 with one E4M3 scale per 16 elements and a
//! per-tensor fp32 scale), activations, attention and master weights in bf16.
enum class Precision { FP16, BF16, FP32, FP8, MXFP8, NVFP4 };

//! "fp16", "bf16", "fp32", "fp8", "mxfp8", "nvfp4": the key of the hardware profile's
//! peak_flops map.
const char* precision_name(Precision p);
//! Parses one of those names; throws core::ConfigError(source, field) otherwise.
Precision parse_precision(const std::string& name, const std::string& source,
                          const std::string& field);
//! Bytes per element of the GEMM operands (weights) in this precision: 4, 2, 2, 1 (fp8, mxfp8),
//! 0.5 (nvfp4); block scales not included (cost/static_memory.hpp adds them).
double precision_bytes(Precision p);
//! A Transformer Engine low-precision recipe (fp8, mxfp8, nvfp4): low-precision linear GEMMs,
//! bf16 everything else.
bool low_precision_gemms(Precision p);

enum class Norm { LayerNorm, RMSNorm };

//! The attention kernels: the unfused core (QKᵀ, softmax, dropout, AV) or one FlashAttention
//! kernel (Dao et al. 2022).
enum class Attention { Standard, Flash };

//! The mixture-of-experts FFN of a model's MoE layers, with Megatron-Core's meaning of each size
//! (models/README.md, "Mixture of experts"). `experts == 0`: every layer is dense.
struct MoeSpec {
  int experts = 0;            //!< E routed experts per MoE layer (num_experts)
  int top_k = 0;              //!< k routed experts per token (moe_router_topk)
  int ffn_hidden = 0;         //!< FFN size of one routed expert (moe_ffn_hidden_size)
  int shared_experts = 0;     //!< experts every token passes through (DeepSeekMoE), run as one
                              //!< FFN of shared_experts · shared_ffn_hidden
  int shared_ffn_hidden = 0;  //!< FFN size of one shared expert
  bool shared_expert_gate = false;  //!< a sigmoid gate h → 1 on the shared output (Qwen2-MoE)
  //! Layers 0 .. first_dense_layers − 1 keep a dense FFN of ffn_hidden (DeepSeek's
  //! first_k_dense_replace); after them layer i is MoE when i % layer_frequency == layer_phase
  //! (Megatron's moe_layer_freq and DeepSeek: phase 0; Qwen's decoder_sparse_step and Llama 4's
  //! interleave step k: phase k − 1).
  int first_dense_layers = 0;
  int layer_frequency = 1;
  int layer_phase = 0;
  double capacity_factor = 0.0;  //!< 0: dropless; else an expert takes at most this × its
                                 //!< average tokens (moe_expert_capacity_factor)
  //! Aux-loss-free balancing (DeepSeek-V3 §2.1.2): E bias values added to the routing scores.
  bool expert_bias = false;
  //! Group-limited routing (DeepSeek-V3 §2.1.2, node-limited: "each token is sent to at most M
  //! nodes"; Megatron's moe_router_num_groups / moe_router_group_topk, Hugging Face's
  //! n_group / topk_group): the experts form `router_groups` equal groups and a token's top-k
  //! come from its `router_group_topk` best groups. 0: no limit.
  int router_groups = 0;
  int router_group_topk = 0;

  bool operator==(const MoeSpec&) const = default;
};

//! Multi-head latent attention (DeepSeek-V2 §2.1): keys and values are projected up from a
//! kv_lora_rank latent, queries from a q_lora_rank latent (or directly from h when 0); each head
//! scores with qk_nope_head_dim + qk_rope_head_dim dimensions and returns v_head_dim values.
//! `kv_lora_rank == 0`: standard attention.
struct MlaSpec {
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;

  bool operator==(const MlaSpec&) const = default;
};

struct ModelSpec {
  std::string name;  //!< e.g. "gpt2-1.3b"
  std::string description;
  std::vector<std::string> references;  //!< where the shape comes from
  std::string source;                   //!< the YAML file it was read from
  int layers = 0;                       //!< L transformer layers
  int hidden = 0;                       //!< h
  int heads = 0;                        //!< a attention heads
  int kv_heads = 0;                     //!< key/value heads (grouped-query attention); = a if MHA
  int sequence = 0;                     //!< s tokens per sample; 0: not fixed (a config.json)
  //! The longest sequence the model's positions serve (a config.json's max_position_embeddings);
  //! 0 when the file does not say. Information only: the sequence trained at is `sequence`.
  int context = 0;
  int vocabulary = 0;      //!< V
  int ffn_hidden = 0;      //!< FFN inner size (4h for GPT)
  bool gated_mlp = false;  //!< SwiGLU-style MLP with three matrices (LLaMA)
  bool bias = true;        //!< linear layers carry biases
  bool qkv_bias = false;   //!< only the Q, K, V projections carry biases (Qwen2); bias = false
  Norm norm = Norm::LayerNorm;
  int position_embeddings = 0;            //!< rows of a learned position table; 0 for rotary
  bool tied_embeddings = true;            //!< LM head shares the input embedding matrix
  Precision precision = Precision::BF16;  //!< trained in; the `precision` option overrides it
  //! Attention kernels the model is trained with by default (the `attention` option overrides it):
  //! FlashAttention for the shipped modern models, whose reference recipes use it.
  Attention attention = Attention::Standard;
  bool dropout = true;  //!< dropout layers present (GPT, BERT); false for Llama (no masks)
  bool causal = true;   //!< causal self-attention (decoders); false for BERT
  //! Head parameters outside the generic formula (BERT pooler, MLM transform, NSP head);
  //! counted on the last stage.
  double extra_parameters = 0.0;
  //! A head dimension other than hidden / heads (Qwen3, gpt-oss, Nemotron); 0: hidden / heads.
  int explicit_head_dim = 0;
  bool qk_norm = false;  //!< a norm over each head's query and key (Qwen3): 2·head_dim weights
  //! Sliding-window attention (Mistral's sliding_window, gpt-oss's sliding_attention layers): on
  //! `window_layers` of the layers a query attends to at most `attention_window` positions,
  //! itself included; 0: full causal attention on every layer.
  int attention_window = 0;
  int window_layers = 0;
  MoeSpec moe;  //!< experts > 0: a mixture-of-experts model
  MlaSpec mla;  //!< kv_lora_rank > 0: multi-head latent attention
  //! Multi-token prediction modules (DeepSeek-V3 §2.2), each one more layer after the last;
  //! counted apart from the model (mtp_params), as the report counts them.
  int mtp_layers = 0;

  int head_dim() const { return explicit_head_dim > 0 ? explicit_head_dim : hidden / heads; }
  int kv_hidden() const { return kv_heads * head_dim(); }
  //! Width of the queries and of the attention output in standard attention: heads · head_dim
  //! (h unless head_dim is explicit).
  int q_hidden() const { return heads * head_dim(); }
  bool is_moe() const { return moe.experts > 0; }
  bool is_mla() const { return mla.kv_lora_rank > 0; }
};

//! Parses a model YAML document; `source` names it in errors. Strict: unknown keys, missing
//! required fields, wrong types and non-positive sizes raise core::ConfigError(source, field).
ModelSpec parse_model(const std::string& yaml_text, const std::string& source);

//! `name_or_path`, told apart by its form alone: ending in .json, a Hugging Face config.json
//! (hf_config.hpp); ending in .yaml or .yml, a model YAML file; any other argument with a '/'
//! is refused (not a model file); anything else is a shipped model name (models/<name>.yaml).
//! A path that does not exist raises ConfigError(path, "file", "no such file").
ModelSpec load_model(const std::string& name_or_path);

//! Names of the shipped models, sorted.
std::vector<std::string> shipped_models();

}  // namespace pipesim::models
