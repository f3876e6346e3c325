#pragma once
// A model built from Megatron-LM's model-shape arguments (megatron/training/arguments.py), the
// way a Hugging Face config.json is read (hf_config.hpp): a launch script then needs no model
// file. The arguments are given by their argparse names (`num_layers`, `hidden_size`, ...), a
// switch with an empty value. Megatron's defaults apply to what is left out: the FFN 4h (SwiGLU:
// 8h/3 rounded down to a multiple of 64), kv_channels h/a, LayerNorm, learned absolute
// positions, tied embeddings, biases, dropout 0.1, the vocabulary padded to a multiple of
// make_vocab_size_divisible_by (128) × T as Megatron pads it.

#include <map>
#include <string>
#include <vector>

#include "pipesim/models/model_spec.hpp"

namespace pipesim::models {

//! The argparse names megatron_model() reads, sorted.
const std::vector<std::string>& megatron_shape_arguments();

//! Megatron's argument values by argparse name (a switch: ""), only those given.
using MegatronValues = std::map<std::string, std::string>;

//! The model the shape arguments in `args` describe, named `name`; `tensor_parallel` pads the
//! vocabulary as Megatron does. Arguments of megatron_shape_arguments() that `args` lacks take
//! Megatron's defaults; num_layers, hidden_size and num_attention_heads are required, and the
//! vocabulary must be known (vocab_size, or a tokenizer whose size is fixed: GPT-2 BPE 50257,
//! Llama 2 32000). Every problem is reported in one core::ConfigError:
//! "SOURCE: argument: problem; argument: problem".
ModelSpec megatron_model(const MegatronValues& args, const std::string& source,
                         const std::string& name, int tensor_parallel);

}  // namespace pipesim::models
