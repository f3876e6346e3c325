#pragma once
// What the models/ tests share: the Hugging Face fixtures (tests/data/hf/), the error message of
// a call that must throw, and a tiny decoder's YAML to add experts or latent attention to.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "pipesim/core/config_error.hpp"

namespace pipesim::models::test_support {

//! The path of tests/data/hf/<name> ($PIPESIM_SOURCE_DIR, else the source tree built from).
inline std::string fixture(const std::string& name) {
  const char* dir = std::getenv("PIPESIM_SOURCE_DIR");
  const std::filesystem::path root = dir ? dir : PIPESIM_TEST_SOURCE_DIR;
  return (root / "tests" / "data" / "hf" / name).string();
}

//! A fixture's JSON, to edit into another config.
inline nlohmann::json fixture_json(const std::string& name) {
  std::ifstream in(fixture(name));
  return nlohmann::json::parse(in);
}

//! The error message of `call`, or a test failure when it does not throw.
template <typename F>
std::string error_of(F call) {
  try {
    call();
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted; expected a ConfigError";
  return {};
}

//! A tiny decoder (4 layers, h 64, 4 heads, s 32, V 100, SwiGLU FFN 256, RMSNorm, no biases, no
//! dropout) with `extra` YAML appended: an `moe` or `mla` mapping, more keys.
inline std::string tiny_yaml(const std::string& extra) {
  return R"(name: tiny
layers: 4
hidden: 64
heads: 4
sequence: 32
vocabulary: 100
ffn_hidden: 256
gated_mlp: true
bias: false
norm: rmsnorm
tied_embeddings: false
precision: bf16
dropout: false
)" + extra;
}

//! Latent attention for tiny_yaml: query latent 24, key/value latent 16, per head 8 + 4 rotary
//! query/key and 8 value dimensions.
inline const char* const kTinyMla = R"(mla:
  q_lora_rank: 24
  kv_lora_rank: 16
  qk_nope_head_dim: 8
  qk_rope_head_dim: 4
  v_head_dim: 8
)";

}  // namespace pipesim::models::test_support
