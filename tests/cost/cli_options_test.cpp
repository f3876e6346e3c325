// The real-run options end to end through the CLI: GPUs = t·D·W, MFU over all of them, the
// precision override, and one-line errors for impossible combinations.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/cli_invoke.hpp"

namespace pipesim::cost {
namespace {

using pipesim::testing::invoke_cli;

nlohmann::json simulate(std::vector<std::string> extra) {
  std::vector<std::string> args{"simulate",    "--format", "json", "--schedule",
                                "interleaved", "-D",       "4",    "-N",
                                "8",           "--chunks", "2"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = invoke_cli(args);
  // 4: the run does not fit in memory; its report is complete all the same.
  EXPECT_TRUE(r.code == 0 || r.code == 4) << r.code << ": " << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(CliOptions, TensorParallelRunsCountTheirGpusAndAllTermsCombine) {
  const std::vector<std::string> base{"--model", "llama3-8b", "--hardware", "h100-dgx", "-W", "2"};
  const auto plain = simulate(base);
  auto with = base;
  with.insert(with.end(), {"-T", "4", "--sequence-parallel", "on", "--attention", "flash",
                           "--distributed-optimizer", "on", "--recompute", "selective"});
  const auto tp = simulate(with);
  EXPECT_EQ(plain["gpus"], 8);
  EXPECT_EQ(tp["gpus"], 32);
  EXPECT_EQ(tp["model_flops_per_iteration"], plain["model_flops_per_iteration"]);
  // MFU = model FLOPs / (time · GPUs · peak): the same work on 4× the GPUs.
  const double ratio = tp["mfu"].get<double>() / plain["mfu"].get<double>();
  EXPECT_NEAR(ratio,
              plain["iteration_time"].get<double>() / (4 * tp["iteration_time"].get<double>()),
              1e-9);
  EXPECT_LT(tp["peak_memory"].get<double>(), plain["peak_memory"].get<double>() / 4);
}

TEST(CliOptions, PrecisionAndSequenceOverridesChangeTheRun) {
  const std::vector<std::string> base{"--model", "gpt2-32l", "--hardware", "p100-daint"};
  const auto fp32 = simulate(base);
  auto half = base;
  half.insert(half.end(), {"--precision", "fp16"});
  const auto fp16 = simulate(half);
  EXPECT_LT(fp16["peak_memory"].get<double>(), fp32["peak_memory"].get<double>());
  EXPECT_LT(fp16["iteration_time"].get<double>(), fp32["iteration_time"].get<double>());
  auto longer = base;
  longer.insert(longer.end(), {"--sequence", "1024"});
  const auto s1024 = simulate(longer);
  EXPECT_NEAR(s1024["tokens_per_second"].get<double>() / s1024["throughput"].get<double>(), 1024,
              1e-9);
}

TEST(CliOptions, ImpossibleCombinationsAreOneLineErrors) {
  for (const auto& [args, field] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"-T", "1", "--sequence-parallel", "on"}, "--sequence-parallel"},
           {{"-T", "16"}, "--tensor-parallel"},
           {{"--precision", "fp8"}, "gpu.peak_flops.fp8"},  // an A100 has no fp8 peak
           {{"--precision", "fp64"}, "--precision"},
           {{"--attention", "sparse"}, "--attention"},
           {{"--sequence", "4096"}, "--sequence"},  // 2048 learned positions
       }) {
    std::vector<std::string> a{"simulate", "--model", "gpt3-175b", "--hardware", "a100-dgx"};
    a.insert(a.end(), args.begin(), args.end());
    const auto r = invoke_cli(a);
    EXPECT_EQ(r.code, 2) << field;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(": " + field + ": "), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace pipesim::cost
