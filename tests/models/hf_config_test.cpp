// Hugging Face config.json import: the published parameter counts of the official configs
// (tests/data/hf/, values from the hub), each also checked against its closed form; the
// mixture-of-experts, latent-attention, head_dim and squared-ReLU families, the same model read
// from its YAML and from its config.json; the name / YAML / JSON dispatch of load_model; every
// problem of a file in one error line.

#include "pipesim/models/hf_config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "model_test_support.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::models {
namespace {

using test_support::error_of;
using test_support::fixture;
using test_support::fixture_json;

// A GPT layer: QKV 3h² + 3h, projection h² + h, MLP 2hf + f + h, two LayerNorms 4h.
double gpt_layer(double h, double f) {
  return 4 * h * h + 2 * h * f + 9 * h + f;
}

TEST(HfConfig, Llama2_7bHas6738415616ParametersLikeTheShippedYaml) {
  ModelSpec m = load_model(fixture("llama-2-7b.json"));
  // A config.json gives the context its positions serve, not a training sequence.
  EXPECT_EQ(m.sequence, 0);
  EXPECT_EQ(m.context, 4096);
  m.sequence = m.context;
  EXPECT_DOUBLE_EQ(model_params(m), 6738415616.0);
  const ModelSpec yaml = load_model("llama2-7b");
  EXPECT_DOUBLE_EQ(model_params(m), model_params(yaml));
  EXPECT_EQ(m.layers, yaml.layers);
  EXPECT_EQ(m.hidden, yaml.hidden);
  EXPECT_EQ(m.heads, yaml.heads);
  EXPECT_EQ(m.kv_heads, yaml.kv_heads);
  EXPECT_EQ(m.sequence, yaml.sequence);
  EXPECT_EQ(m.ffn_hidden, yaml.ffn_hidden);
  EXPECT_EQ(m.gated_mlp, yaml.gated_mlp);
  EXPECT_EQ(m.bias, yaml.bias);
  EXPECT_EQ(m.norm, yaml.norm);
  EXPECT_EQ(m.tied_embeddings, yaml.tied_embeddings);
  EXPECT_EQ(m.position_embeddings, 0);
  EXPECT_EQ(m.precision, Precision::FP16);  // torch_dtype float16
  EXPECT_EQ(m.name, "llama-2-7b");
  EXPECT_EQ(m.source, fixture("llama-2-7b.json"));
  ASSERT_EQ(m.references.size(), 2u);
  EXPECT_EQ(m.references[1], "huggingface.co/meta-llama/Llama-2-7b-hf");
  // The same FLOPs: the cost model sees one model.
  EXPECT_DOUBLE_EQ(model_flops_per_iteration(m, 8).value, model_flops_per_iteration(yaml, 8).value);
}

TEST(HfConfig, Gpt2SmallHas124439808ParametersWithTiedEmbeddings) {
  const ModelSpec m = load_model(fixture("gpt2.json"));
  const double h = 768, V = 50257, P = 1024;
  EXPECT_EQ(m.ffn_hidden, 3072);  // n_inner absent → 4h
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.context, 1024);
  EXPECT_EQ(m.sequence, 0);
  EXPECT_EQ(m.attention, Attention::Standard);
  EXPECT_EQ(m.precision, Precision::BF16);  // no torch_dtype
  EXPECT_DOUBLE_EQ(model_params(m), 12 * (12 * h * h + 13 * h) + V * h + P * h + 2 * h);
  EXPECT_DOUBLE_EQ(model_params(m), 124439808.0);
}

TEST(HfConfig, BertBaseCountsTheEncoderWithPooler109482240) {
  // HF BertModel: embeddings (word, position, token type, LayerNorm), 12 layers, pooler.
  const ModelSpec m = load_model(fixture("bert-base-uncased.json"));
  const double h = 768, V = 30522, P = 512;
  const double expected = V * h + P * h + 2 * h + 2 * h + 12 * gpt_layer(h, 3072) + h * h + h;
  EXPECT_DOUBLE_EQ(model_params(m), expected);
  EXPECT_DOUBLE_EQ(model_params(m), 109482240.0);
  EXPECT_EQ(m.context, 512);
}

TEST(HfConfig, Mistral7bWithGroupedQueryAttentionHas7241732096) {
  const ModelSpec m = load_model(fixture("mistral-7b-v0.1.json"));
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.kv_hidden(), 1024);
  const double h = 4096, kv = 1024, f = 14336, V = 32000;
  const double layer = h * (h + 2 * kv) + h * h + 3 * h * f + 2 * h;  // no biases, RMSNorm
  EXPECT_DOUBLE_EQ(model_params(m), 32 * layer + 2 * V * h + h);
  EXPECT_DOUBLE_EQ(model_params(m), 7241732096.0);
  EXPECT_EQ(m.context, 32768);
  EXPECT_EQ(m.attention, Attention::Flash);
  EXPECT_EQ(m.precision, Precision::BF16);
}

TEST(HfConfig, Qwen2HalfBillionCountsItsQkvBiases494032768) {
  const ModelSpec m = load_model(fixture("qwen2-0.5b.json"));
  EXPECT_FALSE(m.bias);
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_DOUBLE_EQ(model_params(m), 494032768.0);
  ModelSpec no_bias = m;
  no_bias.qkv_bias = false;
  EXPECT_DOUBLE_EQ(model_params(m) - model_params(no_bias), 24.0 * (896 + 2 * 128));
}

TEST(HfConfig, SlidingWindowsAreReadPerLayerPattern) {
  // Mistral 7B v0.1: a 4096 window on every layer.
  const ModelSpec mistral = load_model(fixture("mistral-7b-v0.1.json"));
  EXPECT_EQ(mistral.attention_window, 4096);
  EXPECT_EQ(mistral.window_layers, 32);
  // gpt-oss-120b: layer_types alternates sliding (128) and full attention.
  const ModelSpec oss = load_model(fixture("gpt-oss-120b.json"));
  EXPECT_EQ(oss.attention_window, 128);
  EXPECT_EQ(oss.window_layers, 18);
  // Qwen2 names a window but turns it off; Mixtral's is null.
  EXPECT_EQ(load_model(fixture("qwen2-0.5b.json")).attention_window, 0);
  EXPECT_EQ(load_model(fixture("mixtral-8x7b-v0.1.json")).attention_window, 0);
  // Turned on, Qwen's window covers the layers from max_window_layers on.
  nlohmann::json qwen = fixture_json("qwen2-0.5b.json");
  qwen["use_sliding_window"] = true;
  qwen["sliding_window"] = 4096;
  qwen["max_window_layers"] = 16;
  const ModelSpec on = parse_hf_config(qwen.dump(), "x.json", "x");
  EXPECT_EQ(on.attention_window, 4096);
  EXPECT_EQ(on.window_layers, 24 - 16);
}

TEST(HfConfig, BadLayerTypesAreNamed) {
  nlohmann::json oss = fixture_json("gpt-oss-120b.json");
  oss["layer_types"] = {"full_attention", "chunked_attention"};
  EXPECT_EQ(error_of([&] { parse_hf_config(oss.dump(), "x.json", "x"); }),
            "x.json: layer_types: must list num_hidden_layers = 36 entries, each "
            "'full_attention' or 'sliding_attention'");
  oss = fixture_json("gpt-oss-120b.json");
  oss.erase("sliding_window");
  EXPECT_EQ(error_of([&] { parse_hf_config(oss.dump(), "x.json", "x"); }),
            "x.json: sliding_window: required by layer_types' sliding_attention layers: an "
            "integer >= 1");
}

TEST(HfConfig, GptNeox20bHas20554567680WithAnUntiedHead) {
  const ModelSpec m = load_model(fixture("gpt-neox-20b.json"));
  const double h = 6144, V = 50432;
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_EQ(m.position_embeddings, 0);  // rotary
  EXPECT_DOUBLE_EQ(model_params(m), 44 * (12 * h * h + 13 * h) + 2 * V * h + 2 * h);
  EXPECT_DOUBLE_EQ(model_params(m), 20554567680.0);
}

// Every field that fixes the shape (not the name, source, description or references).
void expect_same_shape(const ModelSpec& a, const ModelSpec& b) {
  EXPECT_EQ(a.layers, b.layers);
  EXPECT_EQ(a.hidden, b.hidden);
  EXPECT_EQ(a.heads, b.heads);
  EXPECT_EQ(a.kv_heads, b.kv_heads);
  EXPECT_EQ(a.sequence, b.sequence);
  EXPECT_EQ(a.vocabulary, b.vocabulary);
  EXPECT_EQ(a.ffn_hidden, b.ffn_hidden);
  EXPECT_EQ(a.gated_mlp, b.gated_mlp);
  EXPECT_EQ(a.bias, b.bias);
  EXPECT_EQ(a.qkv_bias, b.qkv_bias);
  EXPECT_EQ(a.norm, b.norm);
  EXPECT_EQ(a.position_embeddings, b.position_embeddings);
  EXPECT_EQ(a.tied_embeddings, b.tied_embeddings);
  EXPECT_EQ(a.precision, b.precision);
  EXPECT_EQ(a.dropout, b.dropout);
  EXPECT_EQ(a.causal, b.causal);
  EXPECT_EQ(a.extra_parameters, b.extra_parameters);
  EXPECT_EQ(a.head_dim(), b.head_dim());
  EXPECT_EQ(a.qk_norm, b.qk_norm);
  EXPECT_EQ(a.attention, b.attention);
  EXPECT_TRUE(a.moe == b.moe);
  EXPECT_TRUE(a.mla == b.mla);
  EXPECT_EQ(a.mtp_layers, b.mtp_layers);
}

TEST(HfConfig, MixtralIsReadAsEightExpertsTopTwoLikeTheShippedYaml) {
  ModelSpec m = load_model(fixture("mixtral-8x7b-v0.1.json"));
  m.sequence = m.context;  // the shipped YAML trains at the full 32k context
  EXPECT_EQ(m.moe.experts, 8);
  EXPECT_EQ(m.moe.top_k, 2);
  EXPECT_EQ(m.moe.ffn_hidden, 14336);
  EXPECT_EQ(moe_layer_count(m), 32);
  expect_same_shape(m, load_model("mixtral-8x7b"));
  // Mistral's attention (Q, K, V, O without biases, 8 KV heads of 128), 8 SwiGLU experts and
  // the router per layer.
  const double h = 4096, kv = 1024, f = 14336, V = 32000;
  const double attention = 2 * h * h + 2 * h * kv;
  EXPECT_DOUBLE_EQ(model_params(m),
                   32 * (attention + 2 * h + 8 * h + 8 * 3 * h * f) + 2 * V * h + h);
  EXPECT_DOUBLE_EQ(active_params(m),
                   32 * (attention + 2 * h + 8 * h + 2 * 3 * h * f) + 2 * V * h + h);
  EXPECT_EQ(m.description,
            "mixtral from a Hugging Face config (32 layers, h 4096, 32 heads, context 32768, 8 "
            "experts, "
            "top-2)");
}

TEST(HfConfig, Qwen3MoeYamlAndJsonDescribeTheSameModel) {
  ModelSpec json = load_model(fixture("qwen3-30b-a3b.json"));
  EXPECT_EQ(json.context, 40960);  // the YAML trains at 4096
  json.sequence = 4096;
  const ModelSpec yaml = load_model("qwen3-30b-a3b");
  expect_same_shape(json, yaml);
  EXPECT_DOUBLE_EQ(model_params(json), model_params(yaml));
  EXPECT_DOUBLE_EQ(active_params(json), active_params(yaml));
  for (LayerKind kind : {LayerKind::Dense, LayerKind::Moe}) {
    EXPECT_EQ(layer_forward(json, LayerConfig{}, kind), layer_forward(yaml, LayerConfig{}, kind));
  }
  EXPECT_DOUBLE_EQ(model_flops_per_iteration(json, 4).value,
                   model_flops_per_iteration(yaml, 4).value);
}

TEST(HfConfig, DeepSeekV3YamlAndJsonDescribeTheSameModel) {
  ModelSpec json = load_model(fixture("deepseek-v3.json"));
  EXPECT_EQ(json.context, 163840);
  EXPECT_EQ(json.precision, Precision::BF16);  // torch_dtype; the YAML trains in fp8
  EXPECT_TRUE(json.moe.expert_bias);           // topk_method noaux_tc
  json.sequence = 4096;
  json.precision = Precision::FP8;
  expect_same_shape(json, load_model("deepseek-v3"));
  // Configs that reuse DeepseekV3ForCausalLM under their own model_type (Kimi K2) are read by
  // the same reader.
  nlohmann::json config = fixture_json("deepseek-v3.json");
  config["model_type"] = "kimi_k2";
  config["n_routed_experts"] = 384;
  config["num_attention_heads"] = 64;
  config["num_key_value_heads"] = 64;
  const ModelSpec kimi = parse_hf_config(config.dump(), "k.json", "k");
  EXPECT_EQ(kimi.moe.experts, 384);
  EXPECT_EQ(kimi.heads, 64);
  EXPECT_TRUE(kimi.mla == json.mla);
  config["architectures"] = {"KimiForCausalLM"};
  EXPECT_NE(error_of([&] { parse_hf_config(config.dump(), "k.json", "k"); })
                .find("k.json: model_type: unsupported 'kimi_k2', architecture KimiForCausalLM "
                      "(supported: "),
            std::string::npos);
}

TEST(HfConfig, DeepSeekV2LiteHasNoQueryLatentAndCounts15_7B) {
  // DeepSeek-V2 §2.1 without W^DQ (q_lora_rank null: queries projected from h); 2 shared
  // experts; the first layer dense. Published: 15.7B parameters (DeepSeek-V2 paper, Appendix B).
  const ModelSpec m = parse_hf_config(R"({"model_type": "deepseek_v2", "hidden_size": 2048,
      "intermediate_size": 10944, "moe_intermediate_size": 1408, "num_hidden_layers": 27,
      "num_attention_heads": 16, "num_key_value_heads": 16, "n_shared_experts": 2,
      "n_routed_experts": 64, "num_experts_per_tok": 6, "first_k_dense_replace": 1,
      "moe_layer_freq": 1, "q_lora_rank": null, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
      "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 102400,
      "max_position_embeddings": 163840, "topk_method": "greedy", "torch_dtype": "bfloat16"})",
                                      "lite.json", "lite");
  EXPECT_EQ(m.mla.q_lora_rank, 0);
  EXPECT_FALSE(m.moe.expert_bias);
  const double h = 2048, a = 16, expert = 3 * h * 1408;
  const double attention = h * a * 192 + h * 576 + 512 + 512 * a * 256 + a * 128 * h;
  const double dense = attention + 2 * h + 3 * h * 10944;
  const double moe = attention + 2 * h + 64 * h + 64 * expert + 2 * expert;
  EXPECT_DOUBLE_EQ(model_params(m), dense + 26 * moe + 2 * 102400 * h + h);
  EXPECT_NEAR(model_params(m) / 15.7e9, 1.0, 0.01);
}

TEST(HfConfig, Llama4ScoutAndMaverickHave17BActive) {
  // Llama 4 text: 16 (Scout) or 128 (Maverick, on every second layer) routed experts and one
  // shared expert of intermediate_size, top-1; Maverick's dense layers of intermediate_size_mlp.
  // Meta: Scout 17B active (109B total with the vision encoder, not modelled), Maverick 17B
  // active of 400B; "17B" to two digits (17.17B and 17.18B counted, with the embedding).
  const ModelSpec scout = load_model(fixture("llama-4-scout-17b-16e-text.json"));
  EXPECT_EQ(moe_layer_count(scout), 48);
  EXPECT_EQ(scout.moe.shared_experts, 1);
  EXPECT_NEAR(active_params(scout) / 17e9, 1.0, 0.02);
  EXPECT_LT(model_params(scout), 109e9);
  nlohmann::json config = fixture_json("llama-4-scout-17b-16e-text.json");
  config["num_local_experts"] = 128;
  config["interleave_moe_layer_step"] = 2;
  config.erase("moe_layers");
  const ModelSpec maverick = parse_hf_config(config.dump(), "m.json", "m");
  EXPECT_EQ(moe_layer_count(maverick), 24);
  EXPECT_EQ(layer_kind(maverick, 0), LayerKind::Dense);
  EXPECT_EQ(layer_kind(maverick, 1), LayerKind::Moe);
  EXPECT_NEAR(model_params(maverick) / 400e9, 1.0, 0.01);
  EXPECT_NEAR(active_params(maverick) / 17e9, 1.0, 0.02);
  // A listed moe_layers that is not the step's pattern is refused.
  config["moe_layers"] = {0, 2};
  EXPECT_EQ(error_of([&] { parse_hf_config(config.dump(), "m.json", "m"); }),
            "m.json: moe_layers: must list every interleave_moe_layer_step-th layer (24 of 48 "
            "layers, from layer 1), as pipesim places them");
  // The multimodal wrapper is refused with the way out.
  EXPECT_EQ(error_of([] { parse_hf_config(R"({"model_type": "llama4"})", "l.json", "l"); }),
            "l.json: model_type: 'llama4' is the multimodal Llama4ForConditionalGeneration; give "
            "its text_config (model_type llama4_text) as the config.json (the vision encoder is "
            "not modelled)");
}

TEST(HfConfig, Qwen3DenseHonoursAHeadDimWiderThanHiddenOverHeads) {
  // Qwen3-0.6B: hidden 1024, 16 heads of 128 (queries 2048 wide), 8 KV heads, per-head q/k
  // RMSNorm, tied embeddings. Qwen: 0.6B parameters, 0.44B without embeddings.
  const ModelSpec m = load_model(fixture("qwen3-0.6b.json"));
  EXPECT_EQ(m.head_dim(), 128);
  EXPECT_EQ(m.q_hidden(), 2048);
  EXPECT_TRUE(m.qk_norm);
  const double h = 1024, q = 2048, kv = 1024, f = 3072, V = 151936;
  const double layer = 2 * h * q + 2 * h * kv + 2 * 128 + 2 * h + 3 * h * f;
  EXPECT_DOUBLE_EQ(model_params(m), 28 * layer + V * h + h);
  EXPECT_NEAR(model_params(m) / 0.6e9, 1.0, 0.01);
  EXPECT_NEAR(28 * layer / 0.44e9, 1.0, 0.01);
}

TEST(HfConfig, NemotronIsASquaredReluMlpWithLayerNorms) {
  // NemotronForCausalLM: up and down projections without a gate, LayerNorm1P (weight and bias),
  // no biases. Minitron-4B-Base and, with hidden 4096 and 48 heads of 128, Minitron-8B-Base.
  const ModelSpec m = load_model(fixture("minitron-4b-base.json"));
  EXPECT_FALSE(m.gated_mlp);
  EXPECT_EQ(m.norm, Norm::LayerNorm);
  const auto expected = [](double h, double q, double kv, double f, double V, double L) {
    return L * (2 * h * q + 2 * h * kv + 2 * h * f + 4 * h) + 2 * V * h + 2 * h;
  };
  EXPECT_DOUBLE_EQ(model_params(m), expected(3072, 3072, 1024, 9216, 256000, 32));
  nlohmann::json config = fixture_json("minitron-4b-base.json");
  config["hidden_size"] = 4096;
  config["num_attention_heads"] = 48;  // does not divide 4096: head_dim 128 says the width
  config["intermediate_size"] = 16384;
  const ModelSpec eight = parse_hf_config(config.dump(), "n.json", "n");
  EXPECT_EQ(eight.q_hidden(), 6144);
  EXPECT_DOUBLE_EQ(model_params(eight), expected(4096, 6144, 1024, 16384, 256000, 32));
  config.erase("head_dim");
  EXPECT_EQ(error_of([&] { parse_hf_config(config.dump(), "n.json", "n"); }),
            "n.json: num_attention_heads: must divide the hidden size 4096, got 48");
}

TEST(HfConfig, BadExpertFieldsAreNamedWithTheirRange) {
  // A fixture with one field changed (null: removed), read as x.json.
  const auto with = [](const char* file, const char* key, const nlohmann::json& value) {
    nlohmann::json config = fixture_json(file);
    if (value.is_null()) {
      config.erase(key);
    } else {
      config[key] = value;
    }
    return error_of([&] { parse_hf_config(config.dump(), "x.json", "x"); });
  };
  const char* mixtral = "mixtral-8x7b-v0.1.json";
  EXPECT_EQ(with(mixtral, "num_experts_per_tok", 9),
            "x.json: num_experts_per_tok: must be at most num_local_experts = 8 (the routed "
            "experts a token can be sent to), got 9");
  EXPECT_EQ(with(mixtral, "num_local_experts", 0),
            "x.json: num_local_experts: must be an integer in [1, 65536], got 0");
  EXPECT_EQ(with(mixtral, "num_local_experts", -1),
            "x.json: num_local_experts: must be an integer in [1, 65536], got -1");
  const char* ds = "deepseek-v3.json";
  EXPECT_EQ(with(ds, "qk_head_dim", 128),
            "x.json: qk_head_dim: must be qk_nope_head_dim + qk_rope_head_dim = 192, got 128");
  EXPECT_EQ(with(ds, "num_key_value_heads", 8),
            "x.json: num_key_value_heads: must equal num_attention_heads = 128 (latent attention "
            "gives every head its own keys and values), got 8");
  EXPECT_EQ(with(ds, "kv_lora_rank", 32768),
            "x.json: kv_lora_rank: must be below num_attention_heads · (qk_nope_head_dim + "
            "v_head_dim) = 32768, got 32768");
  EXPECT_EQ(with(ds, "first_k_dense_replace", 61),
            "x.json: first_k_dense_replace: must be an integer in [0, 60], got 61");
  EXPECT_EQ(with(ds, "attention_bias", true),
            "x.json: attention_bias: true is not supported with multi-head latent attention");
  const char* qwen = "qwen3-30b-a3b.json";
  EXPECT_EQ(with(qwen, "mlp_only_layers", {0, 1}),
            "x.json: mlp_only_layers: must be an empty list (pipesim places the dense layers by "
            "decoder_sparse_step), got [0,1]");
  EXPECT_EQ(with(qwen, "decoder_sparse_step", 49),
            "x.json: decoder_sparse_step: must be an integer in [1, 48], got 49");
  EXPECT_EQ(with("gpt-oss-120b.json", "head_dim", nullptr),
            "x.json: head_dim: required for gpt_oss: an integer >= 1");
}

TEST(HfConfig, ExpertFieldsOnADenseArchitectureAreRefused) {
  const std::string types =
      "(mixture-of-experts types: deepseek_v2, deepseek_v3, gpt_oss, llama4_text, mixtral, "
      "qwen2_moe, qwen3_moe)";
  nlohmann::json llama = fixture_json("llama-2-7b.json");
  llama["num_experts_per_tok"] = 2;
  EXPECT_EQ(error_of([&] { parse_hf_config(llama.dump(), "l.json", "l"); }),
            "l.json: num_experts_per_tok: a mixture-of-experts field, but model_type 'llama' is "
            "dense " +
                types);
  EXPECT_EQ(error_of([] {
              parse_hf_config(R"({"model_type": "qwen2", "moe_intermediate_size": 1408})", "q.json",
                              "q");
            }),
            "q.json: moe_intermediate_size: a mixture-of-experts field, but model_type 'qwen2' is "
            "dense " +
                types);
  // Unset expert fields (null, 0, false) are what dense configs write: accepted.
  llama["num_experts_per_tok"] = nullptr;
  llama["num_local_experts"] = 0;
  EXPECT_NO_THROW(parse_hf_config(llama.dump(), "l.json", "l"));
}

TEST(HfConfig, UnknownOrMissingModelTypeListsTheSupportedOnes) {
  const std::string supported =
      "(supported: bert, deepseek_v2, deepseek_v3, gpt2, gpt_neox, gpt_oss, llama, llama4_text, "
      "mistral, mixtral, nemotron, qwen2, qwen2_moe, qwen3, qwen3_moe)";
  EXPECT_EQ(error_of([] { parse_hf_config(R"({"model_type": "falcon"})", "f.json", "f"); }),
            "f.json: model_type: unsupported 'falcon' " + supported);
  EXPECT_EQ(error_of([] { parse_hf_config(R"({"hidden_size": 8})", "f.json", "f"); }),
            "f.json: model_type: required " + supported);
  // Mixture-of-experts families pipesim does not read are refused by name and architecture.
  EXPECT_EQ(error_of([] {
              parse_hf_config(R"({"model_type": "dbrx", "architectures": ["DbrxForCausalLM"],
                                  "ffn_config": {"moe_num_experts": 16}})",
                              "d.json", "d");
            }),
            "d.json: model_type: unsupported 'dbrx', architecture DbrxForCausalLM " + supported);
}

TEST(HfConfig, EveryProblemOfAFileIsReportedAtOnceOnOneLine) {
  const std::string what = error_of([] {
    parse_hf_config(R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": "big",
                        "num_hidden_layers": 0, "num_attention_heads": 30,
                        "vocab_size": 32000, "tie_word_embeddings": "no",
                        "torch_dtype": "float8"})",
                    "bad.json", "bad");
  });
  EXPECT_EQ(what,
            "bad.json: num_hidden_layers: must be an integer in [1, 16777216], got 0; "
            "intermediate_size: must be an integer in [1, 16777216], got \"big\"; "
            "max_position_embeddings: required: an integer in [1, 16777216]; "
            "tie_word_embeddings: must be true or false, got \"no\"; "
            "num_attention_heads: must divide the hidden size 4096, got 30; "
            "torch_dtype: must be float16, bfloat16 or float32, got 'float8'");
}

TEST(HfConfig, PrecisionFollowsTorchDtypeOrDtype) {
  const std::string base = R"({"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4,
                              "n_positions": 32, "vocab_size": 100)";
  EXPECT_EQ(parse_hf_config(base + R"(, "torch_dtype": "float32"})", "g.json", "g").precision,
            Precision::FP32);
  EXPECT_EQ(parse_hf_config(base + R"(, "dtype": "float16"})", "g.json", "g").precision,
            Precision::FP16);
  EXPECT_EQ(parse_hf_config(base + "}", "g.json", "g").precision, Precision::BF16);
  // n_inner given explicitly replaces 4h; null means the default.
  EXPECT_EQ(parse_hf_config(base + R"(, "n_inner": 100})", "g.json", "g").ffn_hidden, 100);
  EXPECT_EQ(parse_hf_config(base + R"(, "n_inner": null})", "g.json", "g").ffn_hidden, 256);
}

TEST(HfConfig, LlamaBiasesAreAllOrNothing) {
  const std::string base = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
                              "num_hidden_layers": 2, "num_attention_heads": 4,
                              "num_key_value_heads": 2, "vocab_size": 100,
                              "max_position_embeddings": 32)";
  const ModelSpec plain = parse_hf_config(base + "}", "l.json", "l");
  const ModelSpec biased =
      parse_hf_config(base + R"(, "attention_bias": true, "mlp_bias": true})", "l.json", "l");
  EXPECT_TRUE(biased.bias);
  // Q (h), K and V (2·h_kv), output (h); gate and up (2f), down (h); per layer.
  EXPECT_DOUBLE_EQ(model_params(biased) - model_params(plain),
                   2.0 * (64 + 2 * 32 + 64 + 2 * 128 + 64));
  EXPECT_EQ(
      error_of([&] { parse_hf_config(base + R"(, "attention_bias": true})", "l.json", "l"); }),
      "l.json: attention_bias: true only together with the other of attention_bias and "
      "mlp_bias (pipesim models biases on every linear layer, on Q/K/V only, or on none)");
  // An explicit head_dim is honoured: queries 4·32 and keys/values 2·32 wide instead of 64, 32.
  const ModelSpec wide = parse_hf_config(base + R"(, "head_dim": 32})", "l.json", "l");
  EXPECT_EQ(wide.head_dim(), 32);
  EXPECT_DOUBLE_EQ(model_params(wide) - model_params(plain), 2.0 * (2 * 64 * 64 + 2 * 64 * 32));
  EXPECT_EQ(parse_hf_config(base + R"(, "head_dim": 16})", "l.json", "l").explicit_head_dim, 0);
}

TEST(HfConfig, MalformedJsonIsOneLineNamingTheFile) {
  const std::string what = error_of([] { parse_hf_config("{\"model_type\": ", "x.json", "x"); });
  EXPECT_EQ(what.rfind("x.json: json: ", 0), 0u) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  EXPECT_EQ(error_of([] { parse_hf_config("[1, 2]", "x.json", "x"); }),
            "x.json: document: must be a JSON object");
}

TEST(HfConfig, AnyValueInAnyFieldIsAcceptedOrOneLineError) {
  // Every key of the official configs, each given every kind of JSON value: the parse succeeds
  // with a model whose sizes are positive, or throws one ConfigError line naming the file.
  const nlohmann::json values = nlohmann::json::parse(
      R"([null, -1, 0, 1, 3, 2.5, 1e30, 18446744073709551615, "x", "", true, false, [], {}])");
  for (const char* file :
       {"llama-2-7b.json", "gpt2.json", "bert-base-uncased.json", "qwen2-0.5b.json",
        "gpt-neox-20b.json", "mixtral-8x7b-v0.1.json", "qwen3-30b-a3b.json", "qwen2-57b-a14b.json",
        "qwen3-0.6b.json", "deepseek-v3.json", "gpt-oss-120b.json",
        "llama-4-scout-17b-16e-text.json", "minitron-4b-base.json"}) {
    const nlohmann::json config = fixture_json(file);
    for (const auto& [key, original] : config.items()) {
      for (const auto& value : values) {
        nlohmann::json changed = config;
        changed[key] = value;
        try {
          const ModelSpec m = parse_hf_config(changed.dump(), "f.json", "f");
          EXPECT_GT(m.layers, 0);
          EXPECT_GT(m.heads, 0) << key << " = " << value;
          // Heads divide the hidden size unless the head dimension is given.
          EXPECT_TRUE(m.hidden % m.heads == 0 || m.explicit_head_dim > 0 || m.is_mla())
              << key << " = " << value;
          EXPECT_EQ(m.heads % m.kv_heads, 0) << key << " = " << value;
          EXPECT_GT(model_params(m), 0.0) << key << " = " << value;
          if (m.is_moe()) {
            EXPECT_LE(m.moe.top_k, m.moe.experts) << key << " = " << value;
            EXPECT_GT(moe_layer_count(m), 0) << key << " = " << value;
            EXPECT_GT(active_params(m), 0.0) << key << " = " << value;
          }
        } catch (const core::ConfigError& e) {
          const std::string what = e.what();
          EXPECT_EQ(what.rfind("f.json: ", 0), 0u) << what;
          EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
      }
    }
  }
}

TEST(LoadModel, TellsShippedNamesYamlPathsAndJsonPathsApart) {
  // A .json argument is a config.json even without a '/': absent, it is "no such file", not an
  // unknown shipped model.
  EXPECT_EQ(error_of([] { load_model("config.json"); }), "config.json: file: no such file");
  EXPECT_EQ(error_of([] { load_model("nowhere/config.json"); }),
            "nowhere/config.json: file: no such file");
  EXPECT_EQ(error_of([] { load_model("missing.yaml"); }), "missing.yaml: file: no such file");
  EXPECT_EQ(error_of([] { load_model("models/llama2-7b.txt"); }),
            "models/llama2-7b.txt: file: a model file must end in .yaml or .yml (pipesim model) or "
            ".json (Hugging Face config.json)");
  EXPECT_NE(error_of([] { load_model("llama-2-7b"); }).find("unknown model 'llama-2-7b'"),
            std::string::npos);
  // A shipped name, and the same file by its path.
  const ModelSpec by_name = load_model("gpt2-1.3b");
  const std::string path =
      (std::filesystem::path(fixture("")) / ".." / ".." / ".." / "models" / "gpt2-1.3b.yaml")
          .lexically_normal()
          .string();
  EXPECT_DOUBLE_EQ(model_params(load_model(path)), model_params(by_name));
  // A config.json is named after its folder.
  const auto dir = std::filesystem::temp_directory_path() / "pipesim-hf-test" / "Llama-2-7b-hf";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(fixture("llama-2-7b.json"), dir / "config.json",
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(load_model((dir / "config.json").string()).name, "Llama-2-7b-hf");
}

TEST(ModelYaml, QkvBiasKeyMatchesTheJsonImport) {
  const ModelSpec json = load_model(fixture("qwen2-0.5b.json"));
  const ModelSpec yaml = parse_model(R"(name: qwen2-0.5b
layers: 24
hidden: 896
heads: 14
kv_heads: 2
sequence: 131072
vocabulary: 151936
ffn_hidden: 4864
gated_mlp: true
bias: false
qkv_bias: true
norm: rmsnorm
tied_embeddings: true
precision: bf16
)",
                                     "qwen2.yaml");
  EXPECT_DOUBLE_EQ(model_params(yaml), model_params(json));
}

}  // namespace
}  // namespace pipesim::models
