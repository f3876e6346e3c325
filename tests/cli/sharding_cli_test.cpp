// --data-parallel-sharding on the command line: its column and key, one clear error for a bad
// value or a contradiction with --distributed-optimizer, and what it does to two published
// setups: Llama 3 70B on 64 H100s as torchtitan trains it (TP 8 × FSDP 8, local batch 8,
// sequence 8192, bf16, full activation checkpointing) and Megatron-LM's FSDP arguments.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/cli_invoke.hpp"

namespace pipesim {
namespace {

using testing::invoke_cli;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::vector<std::string> llama3_70b(const std::string& sharding) {
  std::vector<std::string> args{"simulate", "--model",     "llama3-70b", "--hardware",
                                "h100-dgx", "-D",          "1",          "-N",
                                "1",        "-B",          "8",          "-T",
                                "8",        "-W",          "8",          "--sequence-parallel",
                                "on",       "--recompute", "full",       "--format",
                                "json"};
  if (!sharding.empty()) args.insert(args.end(), {"--data-parallel-sharding", sharding});
  return args;
}

double peak_gib(const testing::CliResult& r) {
  return nlohmann::json::parse(r.out).at("peak_memory").get<double>() / kGiB;
}

TEST(ShardingCli, Llama370BFitsAnH100OnlyWithItsParametersSharded) {
  const auto replicated = invoke_cli(llama3_70b(""));
  const auto optimizer = invoke_cli(llama3_70b("optimizer"));
  const auto params = invoke_cli(llama3_70b("params"));
  ASSERT_EQ(params.code, 0) << params.err;
  EXPECT_EQ(replicated.code, 4);  // 18 bytes per parameter replicated: out of memory
  EXPECT_EQ(optimizer.code, 4);
  const nlohmann::json j = nlohmann::json::parse(params.out);
  EXPECT_EQ(j.at("data_parallel_sharding"), "params");
  EXPECT_EQ(j.at("distributed_optimizer"), false);  // as given; the level is what counts
  EXPECT_LT(peak_gib(params), 80.0);
  EXPECT_GT(peak_gib(optimizer), 80.0);
}

TEST(ShardingCli, BadValuesAndContradictionsAreRefusedNamingTheField) {
  const auto bad = invoke_cli({"simulate", "--model", "llama3-8b", "--hardware", "h100-dgx",
                               "--data-parallel-sharding", "zero3"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--data-parallel-sharding"), std::string::npos) << bad.err;
  for (const char* allowed : {"none", "optimizer", "gradients", "params"})
    EXPECT_NE(bad.err.find(allowed), std::string::npos) << bad.err;
  const auto both =
      invoke_cli({"simulate", "--model", "llama3-8b", "--hardware", "h100-dgx", "-W", "2",
                  "--data-parallel-sharding", "none", "--distributed-optimizer", "on"});
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("--data-parallel-sharding"), std::string::npos) << both.err;
  EXPECT_NE(both.err.find("distributed_optimizer"), std::string::npos) << both.err;
  // Unit-cost mode has no data parallelism to shard.
  EXPECT_EQ(invoke_cli({"simulate", "--data-parallel-sharding", "params"}).code, 2);
}

TEST(ShardingCli, TheCsvHasItsColumnAndTheTextItsOption) {
  const auto csv =
      invoke_cli({"simulate", "--model", "llama3-8b", "--hardware", "h100-dgx", "-D", "2", "-W",
                  "4", "--data-parallel-sharding", "gradients", "--format", "csv"});
  ASSERT_TRUE(csv.code == 0 || csv.code == 4) << csv.err;
  const std::string header = csv.out.substr(0, csv.out.find('\n'));
  EXPECT_NE(header.find(",distributed_optimizer,data_parallel_sharding,"), std::string::npos);
  EXPECT_NE(csv.out.find(",gradients,"), std::string::npos);
  const auto text = invoke_cli({"simulate", "--model", "llama3-8b", "--hardware", "h100-dgx", "-D",
                                "2", "-W", "4", "--data-parallel-sharding", "gradients"});
  EXPECT_NE(text.out.find(" data-parallel-sharding=gradients\n"), std::string::npos) << text.out;
}

TEST(ShardingCli, MegatronFsdpArgumentsShardAndAreListedAsUsed) {
  const std::string args =
      "--num-layers 4 --hidden-size 1024 --num-attention-heads 16 --vocab-size 32000 "
      "--seq-length 2048 --bf16 --micro-batch-size 1 --global-batch-size 8 "
      "--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params";
  const auto r = invoke_cli({"simulate", "--hardware", "h100-dgx", "--megatron-args=" + args,
                             "--gpus", "8", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("data_parallel_sharding"), "params");
  const auto& used = j.at("megatron_args").at("used");
  for (const char* flag : {"--use-megatron-fsdp", "--data-parallel-sharding-strategy"}) {
    EXPECT_NE(std::find(used.begin(), used.end(), flag), used.end()) << flag;
  }
}

}  // namespace
}  // namespace pipesim
