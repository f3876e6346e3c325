// Model specs: shipped YAML files load, parameter counts match the papers, bad YAML is named.

#include "pipesim/models/model_spec.hpp"

#include <gtest/gtest.h>

#include "model_test_support.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::models {
namespace {

TEST(ModelSpec, EveryShippedModelLoadsAndCitesASource) {
  const auto names = shipped_models();
  for (const char* expected :
       {"bert-48", "gpt2-1.3b", "gpt2-32l", "gpt3-175b", "llama2-7b", "llama2-70b", "mixtral-8x7b",
        "mixtral-8x22b", "deepseek-v3", "qwen3-30b-a3b", "qwen3-235b-a22b", "qwen3-8b"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  for (const auto& name : names) {
    const ModelSpec m = load_model(name);
    EXPECT_EQ(m.name, name);
    EXPECT_FALSE(m.references.empty()) << name;
  }
}

TEST(ModelSpec, Gpt3HasWithinOnePercentOf175BParameters) {
  const double p = model_params(load_model("gpt3-175b"));
  EXPECT_NEAR(p / 175e9, 1.0, 0.01) << p;
}

TEST(ModelSpec, LayerParametersAre12hSquaredPlus13h) {
  const ModelSpec m = load_model("gpt3-175b");
  const double h = m.hidden;
  EXPECT_DOUBLE_EQ(layer_params(m), 12 * h * h + 13 * h);  // Narayanan et al. SC'21
}

TEST(ModelSpec, ChimeraPaperParameterCountsExactly) {
  // Li & Hoefler SC'21 §5: GPT-2 1,389,327,360 and Bert-48 669,790,012 parameters.
  EXPECT_DOUBLE_EQ(model_params(load_model("gpt2-1.3b")), 1389327360.0);
  EXPECT_DOUBLE_EQ(model_params(load_model("bert-48")), 669790012.0);
}

TEST(ModelSpec, LlamaParameterCounts) {
  EXPECT_DOUBLE_EQ(model_params(load_model("llama2-7b")), 6738415616.0);    // HF config
  EXPECT_DOUBLE_EQ(model_params(load_model("llama2-70b")), 68976648192.0);  // HF config
  EXPECT_DOUBLE_EQ(model_params(load_model("llama3-8b")), 8030261248.0);    // HF config
  EXPECT_DOUBLE_EQ(model_params(load_model("llama3-70b")), 70553706496.0);  // HF config
}

TEST(ModelSpec, ValidationModelsHaveThePublishedSizes) {
  // The papers name their models by parameter count (rounded): each file's shape reproduces it.
  struct Named {
    const char* file;
    double billions;
    double tolerance;  // relative; the papers round to 2–4 digits
  };
  for (const Named& n : {Named{"megatron-gpt-1.7b", 1.7, 0.03},
                         {"megatron-gpt-3.6b", 3.6, 0.02},
                         {"megatron-gpt-7.5b", 7.5, 0.01},
                         {"megatron-gpt-18.4b", 18.4, 0.005},
                         {"megatron-gpt-39.1b", 39.1, 0.005},
                         {"megatron-gpt-76.1b", 76.1, 0.005},
                         {"megatron-gpt-145.6b", 145.6, 0.005},
                         {"megatron-gpt-310.1b", 310.1, 0.005},
                         {"megatron-gpt-529.6b", 529.6, 0.005},
                         {"megatron-gpt-1008b", 1008.0, 0.005},
                         {"megatron-gpt-22b", 22, 0.03},
                         {"megatron-gpt-175b", 175, 0.01},
                         {"zb-1.5b", 1.5, 0.03},
                         {"zb-6.2b", 6.2, 0.03},
                         {"zb-14.6b", 14.6, 0.03},
                         {"zb-28.3b", 28.3, 0.03},
                         {"mcore-gpt-1.7b", 1.7, 0.03},
                         {"mcore-gpt-7.1b", 7.1, 0.01},
                         {"mcore-gpt-177b", 177, 0.01},
                         {"mcore-gpt-462b", 462, 0.01}}) {
    EXPECT_NEAR(model_params(load_model(n.file)) / 1e9 / n.billions, 1.0, n.tolerance) << n.file;
  }
}

const char* kValid = R"(name: tiny
layers: 4
hidden: 64
heads: 4
sequence: 32
vocabulary: 100
ffn_hidden: 256
tied_embeddings: true
precision: bf16
)";

std::string replace(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

void expect_error(const std::string& yaml, const std::string& field) {
  try {
    parse_model(yaml, "tiny.yaml");
    ADD_FAILURE() << "accepted; expected an error naming " << field;
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("tiny.yaml: " + field + ": ", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(ModelSpec, ParsesAMinimalDocumentWithDefaults) {
  const ModelSpec m = parse_model(kValid, "tiny.yaml");
  EXPECT_EQ(m.layers, 4);
  EXPECT_EQ(m.kv_heads, 4);
  EXPECT_TRUE(m.bias);
  EXPECT_EQ(m.position_embeddings, 0);
}

TEST(ModelSpec, BadDocumentsNameTheField) {
  expect_error(replace(kValid, "hidden: 64\n", ""), "hidden");                 // missing
  expect_error(replace(kValid, "hidden: 64", "hidden: wide"), "hidden");       // wrong type
  expect_error(replace(kValid, "layers: 4", "layers: 0"), "layers");           // zero
  expect_error(replace(kValid, "sequence: 32", "sequence: -32"), "sequence");  // negative
  expect_error(replace(kValid, "layers: 4", "layers: 4\nlayer: 5"), "layer");  // unknown key
  expect_error(replace(kValid, "precision: bf16", "precision: fp4"), "precision");
  expect_error(replace(kValid, "heads: 4", "heads: 5"), "heads");  // 64 % 5 ≠ 0
  expect_error(replace(kValid, "tied_embeddings: true", "tied_embeddings: 3"), "tied_embeddings");
  expect_error(replace(kValid, "layers: 4", "layers: 4\nattention_window: 0"), "attention_window");
  expect_error(replace(kValid, "layers: 4", "layers: 4\nwindow_layers: 2"), "window_layers");
  expect_error(replace(kValid, "layers: 4", "layers: 4\nattention_window: 8\nwindow_layers: 5"),
               "window_layers");
}

TEST(ModelSpec, AnAttentionWindowCoversEveryLayerUnlessTold) {
  const ModelSpec all =
      parse_model(replace(kValid, "layers: 4", "layers: 4\nattention_window: 8"), "tiny.yaml");
  EXPECT_EQ(all.attention_window, 8);
  EXPECT_EQ(all.window_layers, 4);
  const ModelSpec half =
      parse_model(replace(kValid, "layers: 4", "layers: 4\nattention_window: 8\nwindow_layers: 2"),
                  "tiny.yaml");
  EXPECT_EQ(half.window_layers, 2);
}

using test_support::error_of;
using test_support::tiny_yaml;

const std::string kMoe = tiny_yaml(R"(moe:
  experts: 8
  top_k: 2
  ffn_hidden: 32
)");
const std::string kMla = tiny_yaml(test_support::kTinyMla);

// The error of parsing `yaml` as tiny.yaml.
std::string error_text(const std::string& yaml) {
  return error_of([&] { parse_model(yaml, "tiny.yaml"); });
}

TEST(ModelSpec, ParsesExpertsLatentAttentionAndMtp) {
  const ModelSpec m = parse_model(kMoe + R"(  shared_experts: 2
  shared_expert_gate: true
  first_dense_layers: 1
  layer_frequency: 2
  layer_phase: 1
  capacity_factor: 1.25
  expert_bias: true
mtp_layers: 1
head_dim: 32
qk_norm: true
)",
                                  "tiny.yaml");
  EXPECT_EQ(m.moe.experts, 8);
  EXPECT_EQ(m.moe.top_k, 2);
  EXPECT_EQ(m.moe.ffn_hidden, 32);
  EXPECT_EQ(m.moe.shared_experts, 2);
  EXPECT_EQ(m.moe.shared_ffn_hidden, 32);  // defaults to the routed experts' size
  EXPECT_TRUE(m.moe.shared_expert_gate);
  EXPECT_EQ(m.moe.capacity_factor, 1.25);
  EXPECT_TRUE(m.moe.expert_bias);
  EXPECT_EQ(moe_layer_count(m), 2);  // layers 1 and 3
  EXPECT_EQ(m.mtp_layers, 1);
  EXPECT_EQ(m.head_dim(), 32);
  EXPECT_EQ(m.q_hidden(), 128);
  EXPECT_TRUE(m.qk_norm);
  const ModelSpec mla = parse_model(kMla, "tiny.yaml");
  EXPECT_TRUE(mla.is_mla());
  EXPECT_EQ(mla.mla.q_lora_rank, 24);
  EXPECT_EQ(mla.mla.qk_rope_head_dim, 4);
  // Heads need not divide hidden when head_dim says the width, or with latent attention.
  EXPECT_EQ(parse_model(replace(kValid, "heads: 4", "heads: 3\nhead_dim: 16"), "t.yaml").q_hidden(),
            48);
  EXPECT_EQ(parse_model(replace(kMla, "heads: 4", "heads: 3"), "t.yaml").heads, 3);
}

TEST(ModelSpec, BadExpertAndLatentFieldsNameTheField) {
  const std::string& moe = kMoe;
  const std::string& mla = kMla;
  expect_error(replace(moe, "experts: 8", "experts: 0"), "moe.experts");
  expect_error(replace(moe, "experts: 8", "experts: -2"), "moe.experts");
  expect_error(replace(moe, "  top_k: 2\n", ""), "moe.top_k");  // missing
  EXPECT_EQ(error_text(replace(moe, "top_k: 2", "top_k: 9")),
            "tiny.yaml: moe.top_k: must be at most experts = 8 (the routed experts a token can "
            "be sent to), got 9");
  EXPECT_EQ(error_text(moe + "  shared_ffn_hidden: 16\n"),
            "tiny.yaml: moe.shared_ffn_hidden: needs shared_experts >= 1 (there is no shared "
            "expert)");
  expect_error(moe + "  first_dense_layers: 4\n", "moe.first_dense_layers");
  expect_error(moe + "  layer_frequency: 2\n  layer_phase: 2\n", "moe.layer_phase");
  EXPECT_EQ(error_text(moe + "  first_dense_layers: 3\n  layer_frequency: 2\n"),
            "tiny.yaml: moe.layer_frequency: leaves no mixture-of-experts layer among the 4 "
            "layers");
  expect_error(moe + "  capacity_factor: 0\n", "moe.capacity_factor");
  expect_error(moe + "  expert: 3\n", "moe.expert");  // unknown key
  expect_error(moe + "mtp_layers: -1\n", "mtp_layers");
  EXPECT_EQ(error_text(mla + "head_dim: 16\n"),
            "tiny.yaml: head_dim: must not be given with mla (latent attention takes its head "
            "dimensions from mla.qk_nope_head_dim, mla.qk_rope_head_dim and mla.v_head_dim)");
  expect_error(replace(mla, "bias: false\n", ""), "bias");  // bias defaults to true
  expect_error(replace(mla, "heads: 4", "heads: 4\nkv_heads: 2"), "kv_heads");
  EXPECT_EQ(error_text(replace(mla, "kv_lora_rank: 16", "kv_lora_rank: 64")),
            "tiny.yaml: mla.kv_lora_rank: must be below heads · (qk_nope_head_dim + v_head_dim) = "
            "64 (the keys and values it is projected to), got 64");
  expect_error(replace(mla, "  v_head_dim: 8\n", ""), "mla.v_head_dim");
  expect_error(mla + "qk_norm: true\n", "qk_norm");
}

TEST(ModelSpec, UnknownNameListsTheShippedOnes) {
  try {
    load_model("gpt-5");
    ADD_FAILURE();
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown model 'gpt-5'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("gpt2-1.3b"), std::string::npos);
  }
}

}  // namespace
}  // namespace pipesim::models
