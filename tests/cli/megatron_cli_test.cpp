// Megatron-LM launch scripts and argument lists on the command line (--megatron-script,
// --megatron-args): the three test scripts in tests/data/megatron/ (in the shape of Megatron-LM's
// GPT-3 175B, Mixtral 8x7B and Llama 3 8B FP8 examples) simulated with no model file, their
// published parameter counts, the settings they make, the argument lists in the output, and the
// refusals.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../support/cli_invoke.hpp"
#include "pipesim/report/csv.hpp"

namespace pipesim::cli {
namespace {

using testing::invoke_cli;

std::string script(const std::string& name) {
  return (std::filesystem::path(PIPESIM_TEST_SOURCE_DIR) / "tests/data/megatron" / name).string();
}

struct Outcome {
  testing::CliResult result;
  nlohmann::json json;
  std::string warnings;  // stderr's warnings (written by the command, not the error line)
};

Outcome simulate(std::vector<std::string> args) {
  const bool csv = std::find(args.begin(), args.end(), "csv") != args.end();
  args.insert(args.begin(), {"simulate", "--hardware", "h100-dgx"});
  if (!csv) args.insert(args.end(), {"--format", "json"});
  ::testing::internal::CaptureStderr();
  Outcome run{invoke_cli(args), {}, {}};
  run.warnings = ::testing::internal::GetCapturedStderr();
  if (!csv && (run.result.code == 0 || run.result.code == 4)) {
    run.json = nlohmann::json::parse(run.result.out);
  }
  return run;
}

bool lists(const nlohmann::json& names, const std::string& flag) {
  for (const auto& n : names)
    if (n == flag) return true;
  return false;
}

void expect_params(const nlohmann::json& j, double published) {
  const double params = j.at("model_params").get<double>();
  EXPECT_NEAR(params / published, 1.0, 0.03) << params << " against " << published;
}

TEST(MegatronCli, Gpt3175BScriptNeedsNoModelFile) {
  const Outcome r = simulate({"--megatron-script", script("gpt3_175b.sh"), "--gpus", "128"});
  ASSERT_TRUE(r.result.code == 0 || r.result.code == 4) << r.result.err;
  const auto& j = r.json;
  expect_params(j, 175e9);
  EXPECT_EQ(j.at("tensor_parallel"), 8);
  EXPECT_EQ(j.at("stages"), 16);
  EXPECT_EQ(j.at("data_parallel"), 1);     // 128 / (8 · 16)
  EXPECT_EQ(j.at("micro_batches"), 1536);  // G / (B · W)
  EXPECT_EQ(j.at("precision"), "fp16");
  EXPECT_EQ(j.at("model_layers"), 96);
  EXPECT_EQ(j.at("model_sequence"), 2048);
  EXPECT_EQ(j.at("model"), "megatron-gpt3_175b");
  const auto& m = j.at("megatron_args");
  EXPECT_TRUE(lists(m.at("used"), "--num-layers"));
  EXPECT_TRUE(lists(m.at("used"), "--fp16"));
  EXPECT_TRUE(lists(m.at("used"), "--global-batch-size"));
  EXPECT_TRUE(lists(m.at("ignored"), "--lr"));
  EXPECT_TRUE(lists(m.at("ignored"), "--data-path"));
  EXPECT_TRUE(m.at("unknown").empty()) << m.dump();
  // The script's own world size (16 nodes of 8) is the default.
  const Outcome own = simulate({"--megatron-script", script("gpt3_175b.sh")});
  ASSERT_TRUE(own.result.code == 0 || own.result.code == 4) << own.result.err;
  EXPECT_EQ(own.json.at("gpus"), 128);
}

TEST(MegatronCli, Mixtral8x7BScriptIsAMixtureOfExperts) {
  const Outcome r =
      simulate({"--megatron-script", script("mixtral_8x7b.sh"), "--gpus", "32", "--format", "csv"});
  ASSERT_TRUE(r.result.code == 0 || r.result.code == 4) << r.result.err;
  const report::CsvTable t = report::parse_csv("t", r.result.out);
  const auto cell = [&](const std::string& c) { return t.rows.at(0).at(t.column("t", c)); };
  EXPECT_NEAR(std::stod(cell("model_params")) / 46.7e9, 1.0, 0.03);
  EXPECT_EQ(cell("expert_parallel"), "8");
  EXPECT_EQ(cell("tensor_parallel"), "1");
  EXPECT_EQ(cell("stages"), "4");
  EXPECT_EQ(cell("precision"), "bf16");
  EXPECT_EQ(cell("model_experts"), "8");
  EXPECT_EQ(cell("model_kv_heads"), "8");
  EXPECT_EQ(cell("distributed_optimizer"), "on");
  // --sequence-parallel at T = 1: warned about and turned off, as Megatron does.
  EXPECT_EQ(cell("sequence_parallel"), "off");
  EXPECT_NE(r.warnings.find("sequence_parallel"), std::string::npos) << r.warnings;
}

TEST(MegatronCli, Llama38BFp8ScriptFollowsItsConditionals) {
  const Outcome r = simulate({"--megatron-script", script("llama3_8b_fp8.sh"), "--gpus", "8"});
  // NVIDIA trains it so on 8 H100s: it fits 80 GB (the fp8 GEMM inputs kept quantized).
  ASSERT_EQ(r.result.code, 0) << r.result.err;
  const auto& j = r.json;
  EXPECT_EQ(j.at("fits_memory"), true);
  expect_params(j, 8.03e9);
  EXPECT_EQ(j.at("precision"), "fp8");  // --bf16 with --fp8-format hybrid
  EXPECT_EQ(j.at("tensor_parallel"), 1);
  EXPECT_EQ(j.at("stages"), 1);  // Megatron's default, not pipesim's
  EXPECT_EQ(j.at("data_parallel"), 8);
  EXPECT_EQ(j.at("micro_batches"), 16);  // 128 / (1 · 8)
  EXPECT_EQ(j.at("model_vocabulary"), 128256);
  EXPECT_EQ(j.at("fp8_param_gather"), true);
  EXPECT_EQ(j.at("distributed_optimizer"), true);
  const auto& m = j.at("megatron_args");
  EXPECT_TRUE(lists(m.at("used"), "--fp8-format"));
  EXPECT_TRUE(lists(m.at("used"), "--vocab-size"));
  EXPECT_TRUE(lists(m.at("ignored"), "--fp8-amax-history-len"));
  EXPECT_TRUE(lists(m.at("ignored"), "--mock-data"));
  EXPECT_FALSE(lists(m.at("ignored"), "--data-path"));  // the else branch is not taken
}

TEST(MegatronCli, APastedListAndTextOutput) {
  const std::string args =
      "--num-layers 4 --hidden-size 256 --num-attention-heads 8 --vocab-size 1000 "
      "--seq-length 256 --bf16 --pipeline-model-parallel-size 2 "
      "--virtual-pipeline-model-parallel-size 2 --global-batch-size 8 --lr 1e-4";
  const auto text =
      invoke_cli({"simulate", "--hardware", "h100-dgx", "--megatron-args=" + args, "--gpus", "2"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("Megatron-LM arguments"), std::string::npos);
  EXPECT_NE(text.out.find("--num-layers"), std::string::npos);
  const Outcome r = simulate({"--megatron-args", args, "--gpus", "2"});
  ASSERT_EQ(r.result.code, 0) << r.result.err;
  // A virtual pipeline selects the interleaved schedule, as in Megatron.
  EXPECT_EQ(r.json.at("schedule"), "interleaved");
  EXPECT_EQ(r.json.at("chunks"), 2);
  EXPECT_EQ(r.json.at("megatron_args").at("source"), "megatron arguments");
}

TEST(MegatronCli, OptionsHereMustAgreeWithTheScript) {
  const std::string s = script("gpt3_175b.sh");
  const Outcome same = simulate({"--megatron-script", s, "-T", "8", "--precision", "fp16"});
  EXPECT_TRUE(same.result.code == 0 || same.result.code == 4) << same.result.err;
  const Outcome other = simulate({"--megatron-script", s, "-T", "4"});
  EXPECT_EQ(other.result.code, 2);
  EXPECT_NE(other.result.err.find("--tensor-parallel"), std::string::npos) << other.result.err;
  EXPECT_NE(other.result.err.find("tensor_model_parallel_size"), std::string::npos)
      << other.result.err;
  // Within the Megatron arguments: the same value twice is fine, two values are not.
  const std::string base =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --vocab-size 100 --seq-length 128 ";
  EXPECT_EQ(simulate({"--megatron-args", base + "--pipeline-model-parallel-size 2 "
                                                "--pipeline-model-parallel-size 2"})
                .result.code,
            0);
  const Outcome twice = simulate({"--megatron-args", base + "--pipeline-model-parallel-size 2 "
                                                            "--pipeline-model-parallel-size 4"});
  EXPECT_EQ(twice.result.code, 2);
  EXPECT_NE(twice.result.err.find("--pipeline-model-parallel-size"), std::string::npos)
      << twice.result.err;
  EXPECT_EQ(simulate({"--megatron-args", base + "--bf16 --fp16"}).result.code, 2);
}

TEST(MegatronCli, UnknownArgumentsAreWarnedOrRefused) {
  const std::string args =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --vocab-size 100 --seq-length 128 "
      "--frobnicate 3";
  const Outcome warned = simulate({"--megatron-args", args});
  ASSERT_EQ(warned.result.code, 0) << warned.result.err;
  EXPECT_NE(warned.warnings.find("--frobnicate"), std::string::npos) << warned.warnings;
  EXPECT_TRUE(lists(warned.json.at("megatron_args").at("unknown"), "--frobnicate"));
  const Outcome strict = simulate({"--megatron-args", args, "--strict"});
  EXPECT_EQ(strict.result.code, 2);
  EXPECT_NE(strict.result.err.find("--frobnicate"), std::string::npos) << strict.result.err;
  // One line, naming the file, for a script that is not there.
  const Outcome missing = simulate({"--megatron-script", "no-such.sh"});
  EXPECT_EQ(missing.result.code, 2);
  EXPECT_NE(missing.result.err.find("no-such.sh"), std::string::npos);
  EXPECT_EQ(simulate({"--gpus", "8", "--model", "gpt2-1.3b"}).result.code, 2);
}

TEST(MegatronCli, PipesimsOwnFlagsTwiceAndMegatronWordsOnTheirOwn) {
  // One option under two of its names, one value: fine; two values: refused naming both.
  const std::vector<std::string> base = {"simulate", "--model", "gpt2-1.3b", "--hardware",
                                         "a100-dgx", "-N",      "16"};
  auto same = base;
  same.insert(same.end(), {"-D", "16", "--pipeline-model-parallel-size", "16"});
  const auto ok = invoke_cli(same);
  EXPECT_TRUE(ok.code == 0 || ok.code == 4) << ok.err;
  auto other = base;
  other.insert(other.end(), {"-D", "16", "--pipeline-model-parallel-size", "8"});
  const auto refused = invoke_cli(other);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("'16' and '8'"), std::string::npos) << refused.err;
  // A Megatron argument given as a flag of pipesim's is pointed to --megatron-args.
  auto megatron = base;
  megatron.insert(megatron.end(), {"--fp8-format", "hybrid"});
  const auto pointed = invoke_cli(megatron);
  EXPECT_EQ(pointed.code, 2);
  EXPECT_NE(pointed.err.find("--megatron-args"), std::string::npos) << pointed.err;
}

TEST(MegatronCli, SweepAndSearchReadTheScript) {
  const std::string args =
      "--num-layers 4 --hidden-size 256 --num-attention-heads 8 --vocab-size 1000 "
      "--seq-length 256 --bf16 --global-batch-size 16";
  ::testing::internal::CaptureStderr();
  const auto sweep = invoke_cli({"sweep", "--hardware", "h100-dgx", "--megatron-args", args,
                                 "--gpus", "4", "--schedule", "1f1b,gpipe", "-j", "1"});
  const std::string sweep_err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(sweep.code, 0) << sweep.err;
  const report::CsvTable t = report::parse_csv("t", sweep.out);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].at(t.column("t", "model")), "megatron-args");
  EXPECT_EQ(t.rows[0].at(t.column("t", "data_parallel")), "4");
  EXPECT_NE(sweep_err.find("--num-layers"), std::string::npos);
  ::testing::internal::CaptureStderr();
  const auto search = invoke_cli({"search", "--hardware", "h100-dgx", "--megatron-args", args,
                                  "--gpus", "4", "--schedule", "1f1b", "-j", "1"});
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(search.code, 0) << search.err;
}

}  // namespace
}  // namespace pipesim::cli
