// The model's shape in every output (text, JSON, CSV), the sequence a Hugging Face config.json
// needs, the attention kernels a model file trains with by default, and search taking every
// other simulate option. Shapes are checked against the model files read independently
// (models::load_model, models::model_params), never against numbers copied from an output.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "../models/model_test_support.hpp"
#include "../support/cli_invoke.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"
#include "pipesim/report/csv.hpp"

namespace pipesim::cli {
namespace {

using models::test_support::fixture;
using models::test_support::fixture_json;
using report::CsvTable;
using report::parse_csv;
using testing::invoke_cli;
using testing::ScratchDir;

std::vector<std::string> simulate(const std::string& model, std::vector<std::string> extra) {
  std::vector<std::string> args{"simulate", "--model", model, "--hardware", "h100-dgx",
                                "-D",       "4",       "-N",  "8"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string cell(const CsvTable& t, size_t row, const std::string& column) {
  return t.rows.at(row).at(t.column("t", column));
}

TEST(ModelShape, CsvJsonAndTextCarryTheShapeOfTheModelFile) {
  const models::ModelSpec m = models::load_model("qwen3-30b-a3b");
  // 30 B parameters on 4 GPUs do not fit (exit 4): the report, shape included, is written anyway.
  const auto csv = invoke_cli(simulate("qwen3-30b-a3b", {"--format", "csv"}));
  ASSERT_EQ(csv.code, 4) << csv.err;
  const CsvTable t = parse_csv("t", csv.out);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(cell(t, 0, "model_layers"), std::to_string(m.layers));
  EXPECT_EQ(cell(t, 0, "model_hidden"), std::to_string(m.hidden));
  EXPECT_EQ(cell(t, 0, "model_heads"), std::to_string(m.heads));
  EXPECT_EQ(cell(t, 0, "model_kv_heads"), std::to_string(m.kv_heads));
  EXPECT_EQ(cell(t, 0, "model_ffn_hidden"), std::to_string(m.ffn_hidden));
  EXPECT_EQ(cell(t, 0, "model_vocabulary"), std::to_string(m.vocabulary));
  EXPECT_EQ(cell(t, 0, "model_sequence"), std::to_string(m.sequence));
  EXPECT_EQ(cell(t, 0, "model_experts"), std::to_string(m.moe.experts));
  EXPECT_DOUBLE_EQ(std::stod(cell(t, 0, "model_params")), models::model_params(m));

  const auto json = invoke_cli(simulate("qwen3-30b-a3b", {"--format", "json"}));
  ASSERT_EQ(json.code, 4) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j.at("model_layers"), m.layers);
  EXPECT_EQ(j.at("model_kv_heads"), m.kv_heads);
  EXPECT_EQ(j.at("model_sequence"), m.sequence);
  EXPECT_EQ(j.at("model_experts"), m.moe.experts);

  const auto text = invoke_cli(simulate("qwen3-30b-a3b", {}));
  ASSERT_EQ(text.code, 4) << text.err;
  // Every layer is MoE: no dense FFN is shown, the experts' own FFN is.
  EXPECT_NE(
      text.out.find(fmt::format("L {}, h {}, heads {} (kv {}), {} MoE layers: experts {} "
                                "top-{}, expert ffn {}, V {}, s {}",
                                m.layers, m.hidden, m.heads, m.kv_heads, m.layers, m.moe.experts,
                                m.moe.top_k, m.moe.ffn_hidden, m.vocabulary, m.sequence)),
      std::string::npos)
      << text.out;
}

TEST(ModelShape, AModelWithDenseAndMoeLayersShowsBothFfnsAndItsSharedExpert) {
  const auto text = invoke_cli({"simulate", "--model", "deepseek-v3", "--hardware", "h800-dgx",
                                "-D", "16", "-E", "8", "-W", "8", "-N", "16"});
  EXPECT_NE(text.out.find("ffn 18432, 58 MoE layers: experts 256 top-8, expert ffn 2048 + 1 "
                          "shared of ffn 2048"),
            std::string::npos)
      << text.out;
}

TEST(ModelShape, TheTextNamesASlidingWindow) {
  const auto text = invoke_cli(
      {"simulate", "--model", PIPESIM_TEST_SOURCE_DIR "/tests/data/hf/mistral-7b-v0.1.json",
       "--hardware", "h100-dgx", "--sequence", "8192", "-D", "2", "-N", "4"});
  EXPECT_NE(text.out.find("window 4096 on 32 layers"), std::string::npos) << text.out;
}

TEST(ModelShape, TheSequenceOptionIsTheShapeReported) {
  const auto r = invoke_cli(simulate("llama3-8b", {"--sequence", "2048", "--format", "json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("model_sequence"), 2048);
}

// Qwen2's config says 131072 positions; training at that length was the silent default.
TEST(ModelShape, HuggingFaceConfigNeedsTheSequenceAndSaysSo) {
  const std::string config = fixture("qwen2-0.5b.json");
  const int context = fixture_json("qwen2-0.5b.json").at("max_position_embeddings");
  const auto refused = invoke_cli(simulate(config, {}));
  EXPECT_EQ(refused.code, 2);
  EXPECT_EQ(testing::count_lines(refused.err), 1u) << refused.err;
  EXPECT_NE(refused.err.find("--sequence"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find(std::to_string(context)), std::string::npos) << refused.err;

  const auto ok = invoke_cli(simulate(config, {"--sequence", "4096", "--format", "json"}));
  ASSERT_EQ(ok.code, 0) << ok.err;
  const auto j = nlohmann::json::parse(ok.out);
  EXPECT_EQ(j.at("model_sequence"), 4096);
  // The sequence prices the run: twice the sequence, twice the tokens per sample.
  const auto twice = invoke_cli(simulate(config, {"--sequence", "8192", "--format", "json"}));
  ASSERT_EQ(twice.code, 0) << twice.err;
  const auto k = nlohmann::json::parse(twice.out);
  EXPECT_DOUBLE_EQ(k.at("tokens_per_second").get<double>() / k.at("throughput").get<double>(),
                   2 * j.at("tokens_per_second").get<double>() / j.at("throughput").get<double>());

  // search refuses it the same way, before enumerating anything.
  const auto search = invoke_cli({"search", "--model", config, "--hardware", "h100-dgx", "--gpus",
                                  "8", "--mini-batch", "16", "--schedule", "1f1b"});
  EXPECT_EQ(search.code, 2);
  EXPECT_NE(search.err.find("--sequence"), std::string::npos) << search.err;
}

TEST(ModelShape, SeqLengthInTheConfigFixesTheSequence) {
  const ScratchDir dir;
  auto config = fixture_json("qwen2-0.5b.json");
  config["seq_length"] = 1024;
  const std::string path = dir.file("qwen-seq.json");
  std::ofstream(path) << config.dump();
  const auto r = invoke_cli(simulate(path, {"--format", "json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("model_sequence"), 1024);
}

double peak_memory(const std::string& model, std::vector<std::string> extra) {
  extra.insert(extra.end(), {"--format", "json"});
  const auto r = invoke_cli(simulate(model, extra));
  EXPECT_TRUE(r.code == 0 || r.code == 4) << r.err;
  return nlohmann::json::parse(r.out).at("peak_memory").get<double>();
}

TEST(ModelShape, ModernModelsTrainWithFlashAttentionByDefault) {
  EXPECT_EQ(models::load_model("llama3-8b").attention, models::Attention::Flash);
  EXPECT_EQ(models::load_model("gpt3-175b").attention, models::Attention::Standard);
  const auto r = invoke_cli(simulate("llama3-8b", {"--format", "json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("attention"), "flash");
  // The default is the model's, not a label: the run is the flash one, and the option
  // overrides it (standard attention keeps the s² score matrices).
  const double by_default = peak_memory("llama3-8b", {});
  EXPECT_EQ(by_default, peak_memory("llama3-8b", {"--attention", "flash"}));
  EXPECT_LT(by_default, peak_memory("llama3-8b", {"--attention", "standard"}));
  // The CSV's attention column is the input: empty, the model file's.
  const auto csv = invoke_cli(simulate("llama3-8b", {"--format", "csv"}));
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(cell(parse_csv("t", csv.out), 0, "attention"), "");
}

TEST(ModelShape, ModelYamlMaySetItsAttention) {
  const ScratchDir dir;
  const std::string yaml = models::test_support::tiny_yaml("attention: flash\n");
  EXPECT_EQ(models::parse_model(yaml, "tiny.yaml").attention, models::Attention::Flash);
  const std::string bad = models::test_support::error_of([] {
    (void)models::parse_model(models::test_support::tiny_yaml("attention: fast\n"), "tiny.yaml");
  });
  EXPECT_NE(bad.find("tiny.yaml: attention"), std::string::npos) << bad;
}

// search takes every simulate option from the table: each row carries the given value, and the
// ones search varies itself or that do not apply in real-cost mode are refused by name.
TEST(ModelShape, SearchTakesEveryOtherSimulateOption) {
  const ScratchDir dir;
  const std::string csv = dir.file("all.csv");
  const auto r = invoke_cli(
      {"search", "--model",      "llama3-8b", "--hardware", "h100-dgx", "--gpus",
       "8",      "--mini-batch", "16",        "--schedule", "1f1b",     "--recompute",
       "none",   "--attention",  "standard",  "--sequence", "2048",     "--distributed-optimizer",
       "--all",  "-o",           csv});
  ASSERT_EQ(r.code, 0) << r.err;
  const CsvTable t = parse_csv("t", ScratchDir::read(csv));
  ASSERT_FALSE(t.rows.empty());
  std::set<std::string> degrees;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    EXPECT_EQ(cell(t, i, "attention"), "standard");
    EXPECT_EQ(cell(t, i, "sequence"), "2048");
    EXPECT_EQ(cell(t, i, "distributed_optimizer"), "on");
    if (cell(t, i, "status") == "ok") {
      EXPECT_EQ(cell(t, i, "model_sequence"), "2048");
    }
    degrees.insert(cell(t, i, "tensor_parallel"));
  }
  // T explored by default: every power of two up to a node (8 GPUs) that splits the heads.
  EXPECT_EQ(degrees, (std::set<std::string>{"1", "2", "4", "8"}));

  const std::vector<std::string> base{"search", "--model", "llama3-8b",    "--hardware", "h100-dgx",
                                      "--gpus", "8",       "--mini-batch", "16"};
  for (const auto& [flag, value, words] : {std::tuple{"--stages", "2", "search chooses it"},
                                           std::tuple{"--chunks", "2", "search chooses it"},
                                           std::tuple{"--t-forward", "2", "unit-cost"}}) {
    auto args = base;
    args.insert(args.end(), {flag, value});
    const auto refused = invoke_cli(args);
    EXPECT_EQ(refused.code, 2) << flag;
    EXPECT_NE(refused.err.find(flag), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find(words), std::string::npos) << refused.err;
  }
}

}  // namespace
}  // namespace pipesim::cli
