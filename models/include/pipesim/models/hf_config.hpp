#pragma once
// A Hugging Face transformers `config.json` read as a pipesim model (models/README.md, "Hugging
// Face config.json"). The file's `model_type` picks the family and with it the field names:
//   llama, mistral, qwen2,  hidden_size, intermediate_size, num_hidden_layers,
//   qwen3                   num_attention_heads, num_key_value_heads, head_dim, vocab_size,
//                           max_position_embeddings, tie_word_embeddings; gated (SwiGLU) MLP,
//                           RMSNorm, rotary positions; attention_bias/mlp_bias (Llama), Q/K/V
//                           biases (Qwen2, always), per-head q/k norms (Qwen3)
//   gpt2                    n_embd, n_layer, n_head, n_inner, n_positions, vocab_size; GeLU MLP,
//                           LayerNorm, biases, learned positions, tied head
//   gpt_neox                hidden_size, ..., max_position_embeddings; LayerNorm, biases, rotary,
//                           untied head (tie_word_embeddings false by default)
//   bert                    hidden_size, ..., type_vocab_size, max_position_embeddings; the
//                           encoder with its pooler (BertModel), tied MLM logits
//   nemotron                as llama; squared-ReLU MLP without a gate, LayerNorm1P
//   mixtral, qwen2_moe,     the family's attention plus the experts (count, top-k, FFN size),
//   qwen3_moe, gpt_oss,     shared experts and the layer pattern under each family's names;
//   llama4_text,            DeepSeek's multi-head latent attention and MTP modules; a config
//   deepseek_v2/_v3         whose architectures is DeepseekV3ForCausalLM (Kimi K2) as deepseek_v3
// The sequence is the family's context length (max_position_embeddings, n_positions); the
// precision comes from torch_dtype (bf16 when absent). Expert fields in a dense family's file are
// refused, as are other model types (named with their architecture).
// Every problem in a file is collected and reported in one core::ConfigError:
// "FILE: field: problem; field: problem".

#include <string>
#include <vector>

#include "pipesim/models/model_spec.hpp"

namespace pipesim::models {

//! The `model_type` values read, sorted.
const std::vector<std::string>& hf_model_types();

//! Parses the JSON text of a config.json; `source` names it in errors and is the spec's source.
//! The model is named `name` (a file name: `_name_or_path`, when present, is cited instead, as it
//! may contain a '/').
ModelSpec parse_hf_config(const std::string& json_text, const std::string& source,
                          const std::string& name);

//! Reads a config.json from `path` (ConfigError "PATH: file: no such file" when absent). The
//! model's name is the file's stem, or its folder's name for a file called config.json.
ModelSpec load_hf_config(const std::string& path);

}  // namespace pipesim::models
