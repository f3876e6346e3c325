// The MoE token dispatchers (cost/expert_parallel.hpp, TokenExchange) against hand-computed
// bytes and tiers: Megatron-Core's alltoall is the pairwise all-to-all of every routed copy;
// DeepEP and HybridEP send a token once to each other node that holds one of its experts (never
// over a NIC inside one NVLink domain), fp8 dispatch and bf16 combine, and group-limited routing
// bounds the nodes a token reaches.

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "../support/cli_invoke.hpp"
#include "pipesim/cost/expert_parallel.hpp"
#include "pipesim/cost/op_collective.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"

namespace pipesim::cost {
namespace {

// DeepSeek-V3 at its 4K sequence, fp8, one micro-batch of one sequence per rank.
models::ModelSpec deepseek() {
  models::ModelSpec m = models::load_model("deepseek-v3");
  m.precision = models::Precision::FP8;
  return m;
}

models::LayerConfig ep(int e) {
  models::LayerConfig c;
  c.expert_parallel = e;
  return c;
}

// Round link figures, so the closed forms read plainly.
hardware::HardwareProfile round_links(const std::string& name) {
  hardware::HardwareProfile hw = hardware::load_profile(name);
  hw.intra_node = {1e-5, 1e11, 1.0};
  hw.inter_node = {2e-5, 4e10, 1.0};
  return hw;
}

double seconds(const hardware::HardwareProfile& hw, const OpCollective& c) {
  return collectives_time(hw, {c}).total().value;
}

constexpr double kTokens = 4096, kHidden = 7168, kTopK = 8;
constexpr double kFp8 = 1.0 + 4.0 / 128;  // a value and an fp32 scale per 128 channels
constexpr double kBf16 = 2.0;

TEST(TokenExchange, AllToAllIsThePairwiseExchangeOfEveryCopy) {
  const hardware::HardwareProfile hw = round_links("h800-dgx");
  const models::ModelSpec m = deepseek();
  const TokenExchange x = token_exchange(hw, m, ep(64), MoeDispatcher::AllToAll, 8);
  EXPECT_FALSE(x.dispatch.priced);
  EXPECT_EQ(x.dispatch.kind, hardware::Collective::AllToAll);
  EXPECT_EQ(x.dispatch.ranks, 64);
  EXPECT_EQ(x.dispatch.nodes, 8);
  // k · tokens · h elements in the activations' 16 bits, both ways.
  EXPECT_DOUBLE_EQ(x.dispatch.bytes.value, kTopK * kTokens * kHidden * kBf16);
  EXPECT_DOUBLE_EQ(x.combine.bytes.value, x.dispatch.bytes.value);
}

TEST(TokenExchange, DeepEpSendsATokenOncePerRemoteNodeItReaches) {
  const hardware::HardwareProfile hw = round_links("h800-dgx");
  models::ModelSpec m = deepseek();
  ASSERT_EQ(m.moe.router_groups, 8);
  ASSERT_EQ(m.moe.router_group_topk, 4);
  // 64 ranks on 8 nodes of 8; a token's 8 copies among the 4 nodes of its best groups.
  const double reached = 4 * (1 - std::pow(0.75, 8));
  const double remote = reached * 7.0 / 8.0;
  const TokenExchange x = token_exchange(hw, m, ep(64), MoeDispatcher::DeepEP, 8);
  ASSERT_TRUE(x.dispatch.priced && x.combine.priced);
  const double rdma = kTokens * remote * kHidden * kFp8;
  const double nvlink = kTokens * kTopK * kHidden * kFp8 * 7.0 / 8.0;
  EXPECT_NEAR(x.dispatch.priced->inter.value, rdma / 4e10, 1e-12);
  // NVLink forwarding runs under the longer RDMA phase: only its excess would show.
  EXPECT_NEAR(x.dispatch.priced->intra.value, std::max(0.0, nvlink / 1e11 - rdma / 4e10), 1e-12);
  EXPECT_NEAR(x.dispatch.priced->latency.value, 1e-5 + 2e-5, 1e-15);
  // The combine returns the same tokens in bf16.
  EXPECT_NEAR(x.combine.priced->inter.value / x.dispatch.priced->inter.value, kBf16 / kFp8, 1e-12);
  // Far less than every copy over the pairwise all-to-all (7/8 of 8 bf16 copies per token).
  const TokenExchange a2a = token_exchange(hw, m, ep(64), MoeDispatcher::AllToAll, 8);
  EXPECT_LT(seconds(hw, x.dispatch), 0.3 * seconds(hw, a2a.dispatch));

  // Without the group limit a token's copies spread over all 8 nodes.
  m.moe.router_groups = m.moe.router_group_topk = 0;
  const TokenExchange free = token_exchange(hw, m, ep(64), MoeDispatcher::DeepEP, 8);
  const double spread = 8 * (1 - std::pow(7.0 / 8.0, 8)) * 7.0 / 8.0;
  EXPECT_NEAR(free.dispatch.priced->inter.value, kTokens * spread * kHidden * kFp8 / 4e10, 1e-12);
  // One expert per token: it reaches one node, remote 7 times in 8.
  m.moe.top_k = 1;
  const TokenExchange one = token_exchange(hw, m, ep(64), MoeDispatcher::DeepEP, 8);
  EXPECT_NEAR(one.dispatch.priced->inter.value, kTokens * (7.0 / 8.0) * kHidden * kFp8 / 4e10,
              1e-12);
}

TEST(TokenExchange, InsideOneNvlinkDomainNothingCrossesANic) {
  const hardware::HardwareProfile hw = round_links("gb200-nvl72");
  ASSERT_EQ(hw.gpus_per_node, 72);
  const models::ModelSpec m = deepseek();
  for (const MoeDispatcher d : {MoeDispatcher::DeepEP, MoeDispatcher::HybridEP}) {
    const TokenExchange x = token_exchange(hw, m, ep(64), d, 1);
    EXPECT_EQ(x.dispatch.priced->inter.value, 0.0);
    EXPECT_EQ(x.combine.priced->inter.value, 0.0);
    EXPECT_NEAR(x.dispatch.priced->latency.value, 1e-5, 1e-15);
    // Every copy but the 1 in 64 that lands on its own rank, over NVLink.
    EXPECT_NEAR(x.dispatch.priced->intra.value,
                kTokens * kTopK * kHidden * kFp8 * 63.0 / 64.0 / 1e11, 1e-12);
  }
}

TEST(TokenExchange, TheStageChargesADispatchAndACombinePerLayerAndDirection) {
  const hardware::HardwareProfile hw = round_links("h800-dgx");
  const models::ModelSpec m = deepseek();
  TrainingSetup setup;
  setup.expert_parallel = 64;
  setup.data_parallel = 64;
  setup.moe_dispatcher = MoeDispatcher::DeepEP;
  setup.placement = hardware::PlacementMode::DataMajor;
  const ExpertLayout layout(m, {2, 64, 8, 8, hardware::PlacementMode::DataMajor, 1}, setup);
  EXPECT_EQ(layout.ep_nodes(), 8);
  const std::vector<OpCollective> list = layout.layer_collectives(hw, m, ep(64), 3);
  ASSERT_EQ(list.size(), 2u);
  const TokenExchange x = token_exchange(hw, m, ep(64), MoeDispatcher::DeepEP, 8);
  EXPECT_NEAR(collectives_time(hw, list).total().value,
              3 * (seconds(hw, x.dispatch) + seconds(hw, x.combine)), 1e-12);
}

TEST(TokenExchange, CommandLineNamesTheDispatcherAsMegatronDoes) {
  const std::vector<std::string> run = {
      "simulate", "--model", "deepseek-v3", "--hardware", "h800-dgx", "--schedule",
      "1f1b",     "-D",      "16",          "-N",         "32",       "-W",
      "64",       "-E",      "64",          "--format",   "json"};
  const auto time = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = run;
    args.insert(args.end(), extra.begin(), extra.end());
    const pipesim::testing::CliResult r = pipesim::testing::invoke_cli(args);
    EXPECT_TRUE(r.code == 0 || r.code == 4) << r.err;
    return nlohmann::json::parse(r.out).at("iteration_time").get<double>();
  };
  const double alltoall = time({});
  const double deepep = time({"--moe-dispatcher", "deepep"});
  EXPECT_LT(deepep, alltoall);
  EXPECT_EQ(time({"--moe-flex-dispatcher-backend", "deepep"}), deepep);
  const pipesim::testing::CliResult dense =
      pipesim::testing::invoke_cli({"simulate", "--model", "llama3-8b", "--hardware", "h100-dgx",
                                    "-D", "4", "-N", "8", "--moe-dispatcher", "deepep"});
  EXPECT_EQ(dense.code, 2);
  EXPECT_NE(dense.err.find("--moe-dispatcher"), std::string::npos) << dense.err;
}

}  // namespace
}  // namespace pipesim::cost
