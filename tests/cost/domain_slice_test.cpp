// How a job's GPUs land on NVLink domains (cost/domain_slice.hpp): the slice of each NVL72 rack
// a scheduler gives (Megatron-Bridge's Slurm segment: the largest divisor of the job's trays up
// to 18), tiled by the job's groups; an expert group that straddles two domains is reported and
// priced on the NICs; the flex dispatchers need RDMA NICs between domains; Megatron's
// dispatcher names.

#include "pipesim/cost/domain_slice.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/cli_invoke.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/expert_parallel.hpp"
#include "pipesim/hardware/profile.hpp"

namespace pipesim::cost {
namespace {

using pipesim::testing::CliResult;
using pipesim::testing::invoke_cli;

TrainingSetup job(int t, int w, int e) {
  TrainingSetup s;
  s.tensor_parallel = t;
  s.data_parallel = w;
  s.expert_parallel = e;
  return s;
}

TEST(DomainSlice, TheSchedulersSliceIsTheLargestDivisorOfTheTraysUpToARack) {
  const hardware::HardwareProfile nvl = hardware::load_profile("gb200-nvl72");
  ASSERT_EQ(nvl.host_gpus(), 4);
  // 256 GPUs = 64 trays: 18 and 17 do not divide 64, 16 does → 64 GPUs a rack.
  EXPECT_EQ(gpus_per_domain(nvl, job(1, 64, 64), 256), 64);
  // 144 GPUs = 36 trays: two full racks.
  EXPECT_EQ(gpus_per_domain(nvl, job(1, 36, 1), 144), 72);
  // A job inside one rack: the rack.
  EXPECT_EQ(gpus_per_domain(nvl, job(1, 8, 8), 8), 72);
  // 192 GPUs = 48 trays: 16 trays (64 GPUs) divide 48 but do not tile 48-GPU expert groups;
  // 12 trays (48 GPUs) do.
  EXPECT_EQ(gpus_per_domain(nvl, job(1, 48, 1), 192), 64);
  EXPECT_EQ(gpus_per_domain(nvl, job(1, 48, 48), 192), 48);
  // A DGX is its own domain whatever the job.
  const hardware::HardwareProfile dgx = hardware::load_profile("h100-dgx");
  EXPECT_EQ(gpus_per_domain(dgx, job(8, 32, 1), 1024), 8);
}

TEST(DomainSlice, AGivenSliceIsWholeHostsWithinTheDomain) {
  const hardware::HardwareProfile nvl = hardware::load_profile("gb200-nvl72");
  TrainingSetup s = job(1, 64, 64);
  s.gpus_per_domain = 72;
  EXPECT_EQ(gpus_per_domain(nvl, s, 256), 72);
  const hardware::HardwareProfile sliced = job_hardware(nvl, s, 256);
  EXPECT_EQ(sliced.gpus_per_node, 72);
  s.gpus_per_domain = 32;
  const hardware::HardwareProfile small = job_hardware(nvl, s, 256);
  EXPECT_EQ(small.gpus_per_node, 32);
  EXPECT_EQ(small.nics_per_node, 32);  // one NIC per GPU, as the rack
  for (int bad : {70, 76}) {
    s.gpus_per_domain = bad;
    try {
      (void)gpus_per_domain(nvl, s, 256);
      ADD_FAILURE() << bad << " accepted";
    } catch (const core::ConfigError& e) {
      EXPECT_EQ(e.field(), "gpus_per_domain");
      EXPECT_NE(e.problem().find("multiple of"), std::string::npos) << e.problem();
    }
  }
}

TEST(DomainSlice, ProfileFieldsAreCheckedAndRoundTrip) {
  hardware::HardwareProfile nvl = hardware::load_profile("gb200-nvl72");
  const hardware::HardwareProfile back = hardware::parse_profile(hardware::to_yaml(nvl), "x");
  EXPECT_EQ(back.gpus_per_host, 4);
  EXPECT_TRUE(back.rdma_nics);
  EXPECT_FALSE(hardware::load_profile("p100-daint").rdma_nics);
  std::string text = hardware::to_yaml(nvl);
  const std::string host = "gpus_per_host: 4";
  text.replace(text.find(host), host.size(), "gpus_per_host: 5");
  try {
    (void)hardware::parse_profile(text, "bad.yaml");
    ADD_FAILURE() << "gpus_per_host 5 of 72 accepted";
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("gpus_per_host"), std::string::npos) << e.what();
  }
}

// DeepSeek-V3 on 256 GB200s, 64-way expert parallelism, data-major (Megatron's order).
std::vector<std::string> deepseek_gb200(std::vector<std::string> extra) {
  std::vector<std::string> args = {
      "simulate",    "--model",  "deepseek-v3", "--hardware", "gb200-nvl72", "--schedule",
      "interleaved", "-D",       "4",           "--chunks",   "4",           "-N",
      "8",           "-W",       "64",          "-E",         "64",          "--precision",
      "mxfp8",       "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

nlohmann::json run_json(const std::vector<std::string>& args) {
  const CliResult r = invoke_cli(args);
  EXPECT_TRUE(r.code == 0 || r.code == 4) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(DomainSlice, AnExpertGroupThatStraddlesTwoRacksIsReportedAndCrossesTheNics) {
  const nlohmann::json sliced = run_json(deepseek_gb200({}));
  EXPECT_EQ(sliced.at("gpus_per_domain_used"), 64);
  EXPECT_EQ(sliced.at("expert_group_domains"), 1);
  EXPECT_FALSE(sliced.at("expert_group_straddles").get<bool>());
  // Packed densely into full racks, the second expert group takes GPUs 64..127: 8 on the first
  // rack, 56 on the second.
  const nlohmann::json packed = run_json(deepseek_gb200({"--gpus-per-domain", "72"}));
  EXPECT_EQ(packed.at("gpus_per_domain_used"), 72);
  EXPECT_EQ(packed.at("expert_group_domains"), 2);
  EXPECT_TRUE(packed.at("expert_group_straddles").get<bool>());
  EXPECT_GT(packed.at("iteration_time").get<double>(), sliced.at("iteration_time").get<double>());
  const CliResult text = invoke_cli({"simulate", "--model", "deepseek-v3", "--hardware",
                                     "gb200-nvl72", "-D", "4", "-N", "8", "-W", "64", "-E", "64",
                                     "--precision", "mxfp8", "--gpus-per-domain", "72"});
  EXPECT_NE(text.out.find("spans 2 domains (more than its size needs"), std::string::npos)
      << text.out;
}

TEST(DomainSlice, FlexDispatchersNeedRdmaBetweenDomains) {
  const std::vector<std::string> base = {
      "simulate", "--model",  "mixtral-8x7b", "--hardware", "p100-daint", "--precision", "fp16",
      "-D",       "2",        "-N",           "4",          "-W",         "2",           "-E",
      "2",        "--format", "json"};
  for (const char* d : {"deepep", "hybridep"}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--moe-dispatcher", d});
    const CliResult r = invoke_cli(args);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.err.find("RDMA"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--moe-dispatcher"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // The all-to-all dispatcher runs over any NIC.
  const CliResult plain = invoke_cli(base);
  EXPECT_TRUE(plain.code == 0 || plain.code == 4) << plain.err;
}

TEST(DomainSlice, MegatronsDispatcherTypeSelectsTheFlexBackend) {
  const auto time = [](std::vector<std::string> extra) {
    return run_json(deepseek_gb200(extra)).at("iteration_time").get<double>();
  };
  const double deepep = time({"--moe-dispatcher", "deepep"});
  const double hybridep = time({"--moe-dispatcher", "hybridep"});
  EXPECT_EQ(time({"--moe-token-dispatcher-type", "flex"}), deepep);  // Megatron's default backend
  EXPECT_EQ(
      time({"--moe-token-dispatcher-type", "flex", "--moe-flex-dispatcher-backend", "hybridep"}),
      hybridep);
  EXPECT_EQ(time({"--moe-token-dispatcher-type", "alltoall"}), time({}));
  for (const auto& [extra, says] :
       {std::pair<std::vector<std::string>, std::string>{
            {"--moe-token-dispatcher-type", "alltoall", "--moe-dispatcher", "deepep"},
            "contradicts"},
        {{"--moe-token-dispatcher-type", "allgather"}, "not modelled"}}) {
    const CliResult r = invoke_cli(deepseek_gb200(extra));
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace pipesim::cost
