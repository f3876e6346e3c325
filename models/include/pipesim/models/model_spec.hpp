#pragma once
// A transformer model as pipesim sees it: the shape that fixes parameters, FLOPs and
// activation bytes (docs/architecture.md §4). Loaded from models/<name>.yaml or from a path.

#include <string>
#include <vector>

namespace pipesim::models {

enum class Precision { FP16, BF16, FP32 };

//! "fp16", "bf16", "fp32": the key of the hardware profile's peak_flops map.
const char* precision_name(Precision p);
//! Bytes per element of weights, activations and gradients in this precision.
double precision_bytes(Precision p);

enum class Norm { LayerNorm, RMSNorm };

struct ModelSpec {
  std::string name;  //!< e.g. "gpt2-1.3b"
  std::string description;
  std::vector<std::string> references;  //!< where the shape comes from
  std::string source;                   //!< the YAML file it was read from
  int layers = 0;                       //!< L transformer layers
  int hidden = 0;                       //!< h
  int heads = 0;                        //!< a attention heads
  int kv_heads = 0;                     //!< key/value heads (grouped-query attention); = a if MHA
  int sequence = 0;                     //!< s tokens per sample
  int vocabulary = 0;                   //!< V
  int ffn_hidden = 0;                   //!< FFN inner size (4h for GPT)
  bool gated_mlp = false;               //!< SwiGLU-style MLP with three matrices (LLaMA)
  bool bias = true;                     //!< linear layers carry biases
  bool qkv_bias = false;  //!< only the Q, K, V projections carry biases (Qwen2); bias = false
  Norm norm = Norm::LayerNorm;
  int position_embeddings = 0;  //!< rows of a learned position table; 0 for rotary
  bool tied_embeddings = true;  //!< LM head shares the input embedding matrix
  Precision precision = Precision::BF16;
  //! Head parameters outside the generic formula (BERT pooler, MLM transform, NSP head);
  //! counted on the last stage.
  double extra_parameters = 0.0;

  int head_dim() const { return hidden / heads; }
  int kv_hidden() const { return kv_heads * head_dim(); }
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
