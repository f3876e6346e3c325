// Hugging Face config.json import: the published parameter counts of six official configs
// (tests/data/hf/, values copied from the hub), each also checked against its closed form; the
// name / YAML / JSON dispatch of load_model; every problem of a file in one error line.

#include "pipesim/models/hf_config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::models {
namespace {

std::string fixture(const std::string& name) {
  const char* dir = std::getenv("PIPESIM_SOURCE_DIR");
  const std::filesystem::path root = dir ? dir : PIPESIM_TEST_SOURCE_DIR;
  return (root / "tests" / "data" / "hf" / name).string();
}

// The error message of `load`, or a test failure when it does not throw.
template <typename F>
std::string error_of(F load) {
  try {
    load();
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted; expected a ConfigError";
  return {};
}

// A GPT layer: QKV 3h² + 3h, projection h² + h, MLP 2hf + f + h, two LayerNorms 4h.
double gpt_layer(double h, double f) {
  return 4 * h * h + 2 * h * f + 9 * h + f;
}

TEST(HfConfig, Llama2_7bHas6738415616ParametersLikeTheShippedYaml) {
  const ModelSpec m = load_model(fixture("llama-2-7b.json"));
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
  EXPECT_EQ(m.sequence, 1024);
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
  EXPECT_EQ(m.sequence, 512);
}

TEST(HfConfig, Mistral7bWithGroupedQueryAttentionHas7241732096) {
  const ModelSpec m = load_model(fixture("mistral-7b-v0.1.json"));
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.kv_hidden(), 1024);
  const double h = 4096, kv = 1024, f = 14336, V = 32000;
  const double layer = h * (h + 2 * kv) + h * h + 3 * h * f + 2 * h;  // no biases, RMSNorm
  EXPECT_DOUBLE_EQ(model_params(m), 32 * layer + 2 * V * h + h);
  EXPECT_DOUBLE_EQ(model_params(m), 7241732096.0);
  EXPECT_EQ(m.sequence, 32768);
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

TEST(HfConfig, GptNeox20bHas20554567680WithAnUntiedHead) {
  const ModelSpec m = load_model(fixture("gpt-neox-20b.json"));
  const double h = 6144, V = 50432;
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_EQ(m.position_embeddings, 0);  // rotary
  EXPECT_DOUBLE_EQ(model_params(m), 44 * (12 * h * h + 13 * h) + 2 * V * h + 2 * h);
  EXPECT_DOUBLE_EQ(model_params(m), 20554567680.0);
}

TEST(HfConfig, MixtureOfExpertsIsRefusedNamingTheExpertFields) {
  const std::string what = error_of([] { load_model(fixture("mixtral-8x7b-v0.1.json")); });
  EXPECT_EQ(what, fixture("mixtral-8x7b-v0.1.json") +
                      ": num_experts_per_tok: mixture-of-experts (MoE) models are not supported "
                      "yet; pipesim models dense transformers (expert fields: "
                      "num_experts_per_tok, num_local_experts, router_aux_loss_coef)");
  // An expert field in an otherwise supported family is refused the same way.
  EXPECT_NE(error_of([] {
              parse_hf_config(R"({"model_type": "qwen2", "moe_intermediate_size": 1408})", "q.json",
                              "q");
            }).find("q.json: moe_intermediate_size: mixture-of-experts"),
            std::string::npos);
}

TEST(HfConfig, UnknownOrMissingModelTypeListsTheSupportedOnes) {
  EXPECT_EQ(error_of([] { parse_hf_config(R"({"model_type": "falcon"})", "f.json", "f"); }),
            "f.json: model_type: unsupported 'falcon' (supported: bert, gpt2, gpt_neox, llama, "
            "mistral, qwen2)");
  EXPECT_EQ(error_of([] { parse_hf_config(R"({"hidden_size": 8})", "f.json", "f"); }),
            "f.json: model_type: required (supported: bert, gpt2, gpt_neox, llama, mistral, "
            "qwen2)");
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
  EXPECT_EQ(error_of([&] { parse_hf_config(base + R"(, "head_dim": 32})", "l.json", "l"); }),
            "l.json: head_dim: must be hidden_size / num_attention_heads = 16 (pipesim derives "
            "it), got 32");
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
  for (const char* file : {"llama-2-7b.json", "gpt2.json", "bert-base-uncased.json",
                           "qwen2-0.5b.json", "gpt-neox-20b.json"}) {
    std::ifstream in(fixture(file));
    const nlohmann::json config = nlohmann::json::parse(in);
    for (const auto& [key, original] : config.items()) {
      for (const auto& value : values) {
        nlohmann::json changed = config;
        changed[key] = value;
        try {
          const ModelSpec m = parse_hf_config(changed.dump(), "f.json", "f");
          EXPECT_GT(m.layers, 0);
          EXPECT_GT(m.hidden % m.heads == 0 ? m.heads : 0, 0) << key << " = " << value;
          EXPECT_EQ(m.heads % m.kv_heads, 0) << key << " = " << value;
          EXPECT_GT(model_params(m), 0.0) << key << " = " << value;
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
