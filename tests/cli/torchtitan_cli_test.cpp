// torchtitan job configs on the command line (--torchtitan): the test configs in
// tests/data/torchtitan/ (in the shape of torchtitan's Llama 3 8B and 70B presets, and one with
// an interleaved pipeline) simulated, the layout they set, their published parameter counts,
// the key lists in the output, the refusals, and sweep and search reading them.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../support/cli_invoke.hpp"
#include "pipesim/report/csv.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::cli {
namespace {

using testing::invoke_cli;

std::string config(const std::string& name) {
  return (std::filesystem::path(PIPESIM_TEST_SOURCE_DIR) / "tests/data/torchtitan" / name).string();
}

struct Outcome {
  testing::CliResult result;
  nlohmann::json json;
  std::string warnings;
};

Outcome simulate(std::vector<std::string> args) {
  args.insert(args.begin(), {"simulate", "--hardware", "h100-dgx"});
  args.insert(args.end(), {"--format", "json"});
  ::testing::internal::CaptureStderr();
  Outcome run{invoke_cli(args), {}, {}};
  run.warnings = ::testing::internal::GetCapturedStderr();
  if (run.result.code == 0 || run.result.code == 4)
    run.json = nlohmann::json::parse(run.result.out);
  return run;
}

bool lists(const nlohmann::json& names, const std::string& key) {
  return std::any_of(names.begin(), names.end(), [&](const auto& n) { return n == key; });
}

// A config written to a temporary file, for the refusals.
struct TomlFile {
  explicit TomlFile(const std::string& text) { std::ofstream(path) << text; }
  ~TomlFile() { std::filesystem::remove(path); }
  std::string path = (std::filesystem::temp_directory_path() /
                      ("pipesim-torchtitan-" + std::to_string(::getpid()) + "-" +
                       std::to_string(counter++) + ".toml"))
                         .string();
  static inline int counter = 0;
};

TEST(TorchtitanCli, Llama38BPresetOn8Gpus) {
  const Outcome r = simulate({"--torchtitan", config("llama3_8b.toml"), "--gpus", "8"});
  ASSERT_TRUE(r.result.code == 0 || r.result.code == 4) << r.result.err;
  const auto& j = r.json;
  EXPECT_NEAR(j.at("model_params").get<double>() / 8.03e9, 1.0, 0.03);
  EXPECT_EQ(j.at("model"), "llama3-8b");
  EXPECT_EQ(j.at("tensor_parallel"), 1);
  EXPECT_EQ(j.at("stages"), 1);
  EXPECT_EQ(j.at("data_parallel"), 8);  // shard degree -1: all 8 GPUs
  EXPECT_EQ(j.at("gpus"), 8);
  EXPECT_EQ(j.at("schedule"), "1f1b");
  EXPECT_EQ(j.at("micro_batch_size"), 1);
  EXPECT_EQ(j.at("micro_batches"), 1);
  EXPECT_EQ(j.at("model_sequence"), 8192);
  EXPECT_EQ(j.at("precision"), "bf16");
  EXPECT_EQ(j.at("recompute"), "selective");
  const auto& k = j.at("torchtitan_args");
  EXPECT_EQ(k.at("source"), config("llama3_8b.toml"));
  EXPECT_TRUE(lists(k.at("used"), "parallelism.data_parallel_shard_degree"));
  EXPECT_TRUE(lists(k.at("used"), "activation_checkpoint.selective_ac_option"));
  EXPECT_TRUE(lists(k.at("ignored"), "optimizer.lr"));
  EXPECT_TRUE(lists(k.at("ignored"), "checkpoint.folder"));
  EXPECT_TRUE(lists(k.at("ignored"), "quantize.linear.float8.filter_fqns"));  // no converter
  EXPECT_TRUE(k.at("unknown").empty()) << k.dump();
}

TEST(TorchtitanCli, Llama370BPresetOn64Gpus) {
  const Outcome r = simulate({"--torchtitan", config("llama3_70b.toml"), "--gpus", "64"});
  ASSERT_TRUE(r.result.code == 0 || r.result.code == 4) << r.result.err;
  const auto& j = r.json;
  EXPECT_NEAR(j.at("model_params").get<double>() / 70.55e9, 1.0, 0.03);
  EXPECT_EQ(j.at("tensor_parallel"), 8);
  EXPECT_EQ(j.at("sequence_parallel"), true);
  EXPECT_EQ(j.at("stages"), 1);
  EXPECT_EQ(j.at("data_parallel"), 8);  // 64 / T 8
  EXPECT_EQ(j.at("micro_batch_size"), 8);
  EXPECT_EQ(j.at("recompute"), "full");
}

// FSDP's sharded parameters are what let both presets fit an 80 GB GPU, as torchtitan trains
// them on 8 and 64 H100s.
TEST(TorchtitanCli, PresetsFitWithShardedDataParallel) {
  for (const auto& [file, gpus] : {std::pair{"llama3_8b.toml", "8"}, {"llama3_70b.toml", "64"}}) {
    const Outcome r = simulate({"--torchtitan", config(file), "--gpus", gpus});
    ASSERT_EQ(r.result.code, 0) << file << ": " << r.result.err;
    EXPECT_EQ(r.json.at("fits_memory"), true) << file;
    EXPECT_EQ(r.warnings.find("data_parallel_sharding"), std::string::npos) << r.warnings;
  }
}

TEST(TorchtitanCli, InterleavedPipelineWithLessLayersAtTheEnds) {
  const Outcome r =
      simulate({"--torchtitan", config("llama3_8b_interleaved.toml"), "--gpus", "16"});
  ASSERT_TRUE(r.result.code == 0 || r.result.code == 4) << r.result.err;
  const auto& j = r.json;
  EXPECT_EQ(j.at("schedule"), "interleaved");
  EXPECT_EQ(j.at("stages"), 4);
  EXPECT_EQ(j.at("tensor_parallel"), 2);
  EXPECT_EQ(j.at("data_parallel"), 2);      // 16 / (T 2 · D 4)
  const int stages = (32 + 1 + 1 + 2) / 3;  // ceil((L + 1 + 1) / 3)
  EXPECT_EQ(j.at("chunks"), stages / 4);
  EXPECT_EQ(j.at("micro_batch_size"), 1);
  // 16 micro-batches a step, global 64 / (16 · W 2) = 2 steps.
  EXPECT_EQ(j.at("micro_batches"), 16 * 64 / (16 * 2));
  EXPECT_EQ(j.at("tp_comm_overlap"), true);  // async TP on the compiled model
  // The layers per virtual stage as torchtitan splits them: 34 effective layers over 12
  // stages, the first 10 of 3 and the last 2 of 2, the ends one layer lighter.
  const auto& costs = j.at("stage_costs");
  ASSERT_EQ(static_cast<int>(costs.size()), stages);
  std::vector<int> layers;
  for (const auto& s : costs)
    layers.push_back(s.at("layers").get<int>());
  EXPECT_EQ(layers, (std::vector<int>{2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 1}));
  EXPECT_EQ(costs.front().at("embedding"), true);
  EXPECT_EQ(costs.back().at("head"), true);
  EXPECT_TRUE(
      lists(j.at("torchtitan_args").at("used"), "parallelism.pipeline_parallel_layers_per_stage"));
  EXPECT_TRUE(lists(j.at("torchtitan_args").at("used"), "compile.enable"));
}

TEST(TorchtitanCli, TextOutputEndsWithTheKeyLists) {
  ::testing::internal::CaptureStderr();
  const auto text = invoke_cli({"simulate", "--hardware", "h100-dgx", "--torchtitan",
                                config("llama3_8b.toml"), "--gpus", "8"});
  ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(text.code == 0 || text.code == 4) << text.err;
  EXPECT_NE(text.out.find("torchtitan config (" + config("llama3_8b.toml") + ")"),
            std::string::npos);
  EXPECT_NE(text.out.find("model.flavor"), std::string::npos);
}

TEST(TorchtitanCli, OptionsHereMustAgreeWithTheConfig) {
  const std::string c = config("llama3_70b.toml");
  const Outcome same = simulate({"--torchtitan", c, "--gpus", "64", "-T", "8"});
  EXPECT_TRUE(same.result.code == 0 || same.result.code == 4) << same.result.err;
  const Outcome other = simulate({"--torchtitan", c, "--gpus", "64", "-T", "4"});
  EXPECT_EQ(other.result.code, 2);
  EXPECT_NE(other.result.err.find("parallelism.tensor_parallel_degree"), std::string::npos)
      << other.result.err;
  // --model replaces the config's model; name and flavor are then ignored.
  const Outcome model =
      simulate({"--torchtitan", config("llama3_8b.toml"), "--gpus", "8", "--model", "qwen3-8b"});
  ASSERT_TRUE(model.result.code == 0 || model.result.code == 4) << model.result.err;
  EXPECT_EQ(model.json.at("model"), "qwen3-8b");
  EXPECT_TRUE(lists(model.json.at("torchtitan_args").at("ignored"), "model.flavor"));
  // And a Megatron-LM script beside it is refused.
  EXPECT_EQ(simulate({"--torchtitan", c, "--megatron-args=--num-layers 2"}).result.code, 2);
}

TEST(TorchtitanCli, BadConfigsAreOneLineErrors) {
  const auto refused = [](const std::string& text, const std::vector<std::string>& words) {
    const TomlFile file(text);
    const Outcome r = simulate({"--torchtitan", file.path, "--gpus", "8"});
    EXPECT_EQ(r.result.code, 2) << text;
    EXPECT_EQ(std::count(r.result.err.begin(), r.result.err.end(), '\n'), 1) << r.result.err;
    EXPECT_NE(r.result.err.find(file.path), std::string::npos) << r.result.err;
    for (const std::string& w : words)
      EXPECT_NE(r.result.err.find(w), std::string::npos) << w << " in " << r.result.err;
  };
  const std::string model = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n";
  refused(model + "[training\nseq_len = 8192\n", {":4:"});  // the line of the bad header
  refused(model + "[parallelism]\npipeline_parallel_degree = \"2\"\n",
          {":5", "parallelism.pipeline_parallel_degree", "integer"});
  refused(model +
              "[parallelism]\npipeline_parallel_degree = 2\n"
              "pipeline_parallel_schedule = \"ZeroBubbleH3\"\n",
          {"parallelism.pipeline_parallel_schedule", "GPipe", "1F1B", "Interleaved1F1B",
           "LoopedBFS", "ZBVZeroBubble", "DualPipeV", "InterleavedZeroBubble"});
  refused("[model]\nname = \"llama3\"\nflavor = \"1T\"\n", {"model.flavor", "70B"});
  const Outcome missing = simulate({"--torchtitan", "no-such.toml", "--gpus", "8"});
  EXPECT_EQ(missing.result.code, 2);
  EXPECT_NE(missing.result.err.find("no-such.toml"), std::string::npos);
}

TEST(TorchtitanCli, UnknownKeysAreWarnedOrRefused) {
  const TomlFile file(
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nseq_len = 1024\n"
      "[parallelism]\nfrobnicate_degree = 3\n");
  const Outcome warned = simulate({"--torchtitan", file.path, "--gpus", "8"});
  ASSERT_TRUE(warned.result.code == 0 || warned.result.code == 4) << warned.result.err;
  EXPECT_NE(warned.warnings.find("parallelism.frobnicate_degree"), std::string::npos);
  EXPECT_TRUE(
      lists(warned.json.at("torchtitan_args").at("unknown"), "parallelism.frobnicate_degree"));
  const Outcome strict = simulate({"--torchtitan", file.path, "--gpus", "8", "--strict"});
  EXPECT_EQ(strict.result.code, 2);
  EXPECT_NE(strict.result.err.find("parallelism.frobnicate_degree"), std::string::npos);
}

TEST(TorchtitanCli, SweepAndSearchReadTheConfig) {
  ::testing::internal::CaptureStderr();
  const auto sweep = invoke_cli({"sweep", "--hardware", "h100-dgx", "--torchtitan",
                                 config("llama3_8b_interleaved.toml"), "--gpus", "16",
                                 "--overlap-p2p", "on,off", "-j", "1"});
  const std::string sweep_err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(sweep.code, 0) << sweep.err;
  const report::CsvTable t = report::parse_csv("t", sweep.out);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].at(t.column("t", "schedule")), "interleaved");
  EXPECT_EQ(t.rows[0].at(t.column("t", "data_parallel")), "2");
  EXPECT_NE(sweep_err.find("torchtitan config"), std::string::npos);
  ::testing::internal::CaptureStderr();
  const auto search =
      invoke_cli({"search", "--hardware", "h100-dgx", "--torchtitan", config("llama3_8b.toml"),
                  "--gpus", "8", "--schedule", "1f1b", "-j", "1"});
  const std::string search_err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(search.code, 0) << search.err;
  EXPECT_NE(search_err.find("torchtitan config"), std::string::npos);
}

}  // namespace
}  // namespace pipesim::cli
