// Expert parallelism (cost/expert_parallel.hpp) against closed forms: the dispatch/combine
// all-to-alls of a stage (pairwise exchange, intra- and inter-node), expert memory ÷ (e·e_t),
// the groups' placement on 8- and 72-GPU NVLink domains, max-min sharing of a NIC between an
// all-to-all and a p2p transfer, and one clear error per bad layout.

#include "pipesim/cost/expert_parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../support/cli_invoke.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/collectives.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/sim/max_min.hpp"
#include "schedule_helpers.hpp"

namespace pipesim::cost {
namespace {

using testing::one_f_one_b;

// Mixtral 8x7B at a 4096-token sequence: every layer is MoE (8 SwiGLU experts, top-2, no bias).
models::ModelSpec mixtral() {
  models::ModelSpec m = models::load_model("mixtral-8x7b");
  m.sequence = 4096;
  return m;
}

// h100-dgx with round α-β figures and the flat ring, so the closed forms are easy to write.
hardware::HardwareProfile uniform() {
  hardware::HardwareProfile hw = hardware::load_profile("h100-dgx");
  hw.intra_node = {1e-5, 1e11, 1.0};
  hw.inter_node = {2e-5, 1e10, 1.0};
  hw.fitted.clear();
  return hw;
}

TEST(ExpertParallel, AllToAllTimeIsThePairwiseClosedForm) {
  const models::ModelSpec m = mixtral();
  ASSERT_EQ(moe_layer_count(m), m.layers);
  const hardware::HardwareProfile hw = uniform();
  const sim::Schedule s = one_f_one_b(8, 8);  // 4 layers per stage
  const double layers = 4;
  // n per rank: k · b·s tokens · h elements · 2 bytes.
  const double n = 2.0 * 4096 * m.hidden * 2.0;
  const double e = 8;
  for (const bool across_nodes : {false, true}) {
    TrainingSetup setup;
    setup.data_parallel = 8;
    setup.expert_parallel = 8;
    // Data-major: a stage's 8 replicas fill one node; pipeline-major with D = 8: each replica
    // of a worker is on its own node, so every exchange partner is across a NIC.
    setup.placement =
        across_nodes ? hardware::PlacementMode::PipelineMajor : hardware::PlacementMode::DataMajor;
    const TrainingCostModel costs(m, hw, s, setup);
    EXPECT_EQ(costs.experts().ep_nodes(), across_nodes ? 8 : 1);
    const hardware::Hockney& link = across_nodes ? hw.inter_node : hw.intra_node;
    // Dispatch + combine per layer: 2 · ((e−1)α + (e−1)/e · n/β).
    const double one = (e - 1) * link.alpha + (e - 1) / e * n / link.beta;
    const hardware::CommTime f = costs.compute().collective_time(1, sim::OpKind::Forward);
    EXPECT_NEAR(f.total().value, 2 * layers * one, 1e-12);
    EXPECT_NEAR((across_nodes ? f.inter : f.intra).value, 2 * layers * (e - 1) / e * n / link.beta,
                1e-12);
    // The backward's input gradient runs them again; the weight gradient has none.
    EXPECT_NEAR(costs.compute().collective_time(1, sim::OpKind::Backward).total().value,
                2 * layers * one, 1e-12);
    EXPECT_TRUE(costs.compute().collectives(1, sim::OpKind::BackwardWeight).empty());
  }
}

TEST(ExpertParallel, ImbalanceScalesTheBusiestRanksExchange) {
  const models::ModelSpec m = mixtral();
  const hardware::HardwareProfile hw = uniform();
  const sim::Schedule s = one_f_one_b(8, 8);
  TrainingSetup setup;
  setup.data_parallel = 8;
  setup.expert_parallel = 8;
  setup.placement = hardware::PlacementMode::DataMajor;
  const TrainingCostModel balanced(m, hw, s, setup);
  setup.moe_imbalance = 1.5;
  const TrainingCostModel skewed(m, hw, s, setup);
  const auto f = [](const TrainingCostModel& c) {
    return c.compute().collective_time(1, sim::OpKind::Forward);
  };
  EXPECT_DOUBLE_EQ(f(skewed).intra.value, 1.5 * f(balanced).intra.value);
  EXPECT_DOUBLE_EQ(f(skewed).latency.value, f(balanced).latency.value);
  // The busiest rank's grouped GEMMs take 1.5× the rows: its forward kernels are slower.
  EXPECT_GT(skewed.compute().kernels(1, sim::OpKind::Forward),
            balanced.compute().kernels(1, sim::OpKind::Forward));
}

TEST(ExpertParallel, ExpertMemoryDividesByEAndEt) {
  const models::ModelSpec m = mixtral();
  ASSERT_FALSE(m.bias);
  const hardware::HardwareProfile hw = hardware::load_profile("h100-dgx");
  const sim::Schedule s = one_f_one_b(8, 8);
  const double h = m.hidden, f = m.moe.ffn_hidden, layers = 4;
  // Routed experts of a middle stage: E experts × 3·h·f (SwiGLU, no bias) per layer.
  const double experts = layers * m.moe.experts * 3 * h * f;
  TrainingSetup base;
  base.data_parallel = 8;
  base.distributed_optimizer = true;
  base.placement = hardware::PlacementMode::DataMajor;
  const TrainingCostModel one(m, hw, s, base);
  for (const auto& [e, et] : std::vector<std::pair<int, int>>{{2, 1}, {4, 2}, {8, 1}, {2, 4}}) {
    TrainingSetup setup = base;
    setup.expert_parallel = e;
    setup.expert_tensor_parallel = et;
    const TrainingCostModel split(m, hw, s, setup);
    const double kept = 1.0 / (e * et);
    const sim::StageMemory& a = one.stage_memory()[1];
    const sim::StageMemory& b = split.stage_memory()[1];
    // bf16: weights 2 bytes, gradients 4 (fp32 main grads) per parameter.
    EXPECT_NEAR(a.weights - b.weights, experts * (1 - kept) * 2, 1e-6 * a.weights);
    EXPECT_NEAR(a.gradients - b.gradients, experts * (1 - kept) * 4, 1e-6 * a.gradients);
    // Optimizer (12 bytes) sharded: the rest over W = 8, the experts' e·e_t-th over the
    // expert data-parallel group T·W/(e·e_t): 8 · kept · 12 / (8 · kept) = the same per GPU.
    EXPECT_NEAR(a.optimizer - b.optimizer, 0.0, 1e-6 * a.optimizer);
    EXPECT_EQ(split.experts().expert_data_parallel(), 8 / (e * et));
  }
}

TEST(ExpertParallel, GroupsFillTheNvlinkDomainFirst) {
  const models::ModelSpec m = models::load_model("deepseek-v3");
  struct Case {
    const char* profile;
    hardware::PlacementMode mode;
    int ep_nodes;
  };
  // 4 stages, W = 64 replicas, t = 1, e = 64: data-major puts worker w's 64 replicas on GPUs
  // 64w … 64w + 63 (8 DGX nodes; one NVL72 domain for worker 0, but worker 1's GPUs 64–127
  // straddle the domains at 72: the most, 2); pipeline-major strides them by D = 4 (GPUs w,
  // w + 4, …, w + 252: 32 DGX nodes, 4 NVL72 domains).
  for (const Case& c : {Case{"h100-dgx", hardware::PlacementMode::DataMajor, 8},
                        Case{"gb200-nvl72", hardware::PlacementMode::DataMajor, 2},
                        Case{"h100-dgx", hardware::PlacementMode::PipelineMajor, 32},
                        Case{"gb200-nvl72", hardware::PlacementMode::PipelineMajor, 4}}) {
    const hardware::HardwareProfile hw = hardware::load_profile(c.profile);
    const hardware::Placement p{4, 64, hw.gpus_per_node, hw.nics_per_node, c.mode, 1};
    TrainingSetup setup;
    setup.data_parallel = 64;
    setup.expert_parallel = 64;
    const ExpertLayout layout(m, p, setup);
    EXPECT_EQ(layout.ep_nodes(), c.ep_nodes) << c.profile;
    EXPECT_EQ(layout.expert_data_parallel(), 1);
  }
  // e_t = 2 with t = 1: two replicas' GPUs. Pipeline-major with D = 4 keeps them in one DGX node
  // (GPUs 0 and 4); with D = 8 they are GPUs 0 and 8, two nodes: refused.
  const hardware::HardwareProfile dgx = hardware::load_profile("h100-dgx");
  TrainingSetup setup;
  setup.data_parallel = 16;
  setup.expert_parallel = 8;
  setup.expert_tensor_parallel = 2;
  const auto layout = [&](int stages) {
    return ExpertLayout(m, {stages, 16, 8, 8, hardware::PlacementMode::PipelineMajor, 1}, setup);
  };
  EXPECT_NO_THROW(layout(4));
  try {
    layout(8);
    ADD_FAILURE() << "an expert-tensor-parallel group across two nodes was accepted";
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.field(), "expert_tensor_parallel");
    EXPECT_NE(e.problem().find("span 2 nodes"), std::string::npos) << e.problem();
  }
  // On an NVL72 domain the same group stays inside it (GPUs 0 and 8 of 72).
  const hardware::HardwareProfile nvl = hardware::load_profile("gb200-nvl72");
  EXPECT_NO_THROW(
      ExpertLayout(m, {8, 16, 72, 72, hardware::PlacementMode::PipelineMajor, 1}, setup));
}

// Context parallelism with experts (Megatron-Core's folding over the attention's T·C·W GPUs):
// t = 4, c = 2, W = 8 folds the same 64 GPUs of a stage as t = 4, c = 1, W = 16, so e = 8,
// e_t = 4 give the same groups (expert data-parallel 64 / 32 = 2; the e group's ranks 0, 4, ..,
// 28 on 4 nodes of 8), while each rank routes only its 1/c of the sequence's tokens.
TEST(ExpertParallel, ContextParallelRanksJoinTheExpertFolding) {
  const models::ModelSpec m = mixtral();
  const hardware::HardwareProfile hw = uniform();
  const sim::Schedule s = one_f_one_b(2, 4);
  TrainingSetup setup;
  setup.tensor_parallel = 4;
  setup.sequence_parallel = true;
  setup.attention = models::Attention::Flash;
  setup.expert_parallel = 8;
  setup.expert_tensor_parallel = 4;
  setup.placement = hardware::PlacementMode::DataMajor;
  TrainingSetup cp = setup;
  cp.context_parallel = 2;
  cp.data_parallel = 8;
  TrainingSetup flat = setup;
  flat.data_parallel = 16;
  EXPECT_NO_THROW(validate_setup(m, hw, cp));
  const TrainingCostModel with_cp(m, hw, s, cp), without(m, hw, s, flat);
  for (const TrainingCostModel* c : {&with_cp, &without}) {
    EXPECT_EQ(c->experts().expert_data_parallel(), 2);
    EXPECT_EQ(c->experts().ep_nodes(), 4);
    EXPECT_EQ(c->gpus(), 128);
  }
  // The dispatch of one layer: k · b·s/(c·t) tokens · h · 2 bytes per GPU, over e ranks.
  const auto all_to_all = [&](const TrainingSetup& x) {
    const models::ModelSpec rank = rank_model(m, x);
    for (const OpCollective& o :
         ExpertLayout(rank, {2, x.data_parallel, 8, 8, x.placement, 4, x.context_parallel}, x)
             .layer_collectives(hw, rank, layer_config(x), 1)) {
      if (o.kind == hardware::Collective::AllToAll) return o;
    }
    ADD_FAILURE() << "no all-to-all";
    return OpCollective{};
  };
  const OpCollective a = all_to_all(cp), b = all_to_all(flat);
  EXPECT_EQ(a.ranks, 8);
  EXPECT_EQ(a.nodes, 4);
  EXPECT_DOUBLE_EQ(a.bytes.value, 2.0 * (4096.0 / 8) * m.hidden * 2.0);
  EXPECT_DOUBLE_EQ(b.bytes.value, 2 * a.bytes.value);
}

// DeepSeek-V3's search winner on 1,024 H100s (results/bench/moe-search.txt: T 1, C 4, E 32,
// e_t 2, D 16, W 16, B 1) against the hand closed form on the shipped h100-dgx links: per GPU
// and MoE layer, each of dispatch and combine moves k · b·s/c · h · 2 = 8 · 1024 · 7168 · 2
// bytes (bf16, every routed copy sent on its own: no node-limited deduplication), n/e of it to
// each of the e ranks; then the e_t pair's all-gather and reduce-scatter of 2n over NVLink.
// Pipeline-major, a worker's replicas are 16 workers · 4 GPUs = 8 nodes apart: the 32 ranks
// (two per replica) sit on 16 nodes, 30 of 31 partners across a NIC; data-major packs two
// replicas per node, 8 nodes, 28 partners across.
TEST(ExpertParallel, DeepSeekV3SearchWinnersExchangesAreTheHandClosedForm) {
  const models::ModelSpec m = models::load_model("deepseek-v3");
  const hardware::HardwareProfile hw = hardware::load_profile("h100-dgx");
  ASSERT_TRUE(hw.fitted.empty());
  TrainingSetup setup;
  setup.context_parallel = 4;
  setup.data_parallel = 16;
  setup.expert_parallel = 32;
  setup.expert_tensor_parallel = 2;
  setup.attention = models::Attention::Flash;
  const models::ModelSpec rank = rank_model(m, setup);
  ASSERT_EQ(rank.sequence, 1024);
  const double n = 8.0 * 1024 * 7168 * 2;
  const hardware::Hockney& nv = hw.intra_node;
  const hardware::Hockney& ib = hw.inter_node;
  struct Case {
    hardware::PlacementMode mode;
    int nodes;
  };
  for (const Case& c : {Case{hardware::PlacementMode::PipelineMajor, 16},
                        Case{hardware::PlacementMode::DataMajor, 8}}) {
    setup.placement = c.mode;
    const ExpertLayout layout(rank, {16, 16, 8, 8, c.mode, 1, 4}, setup);
    EXPECT_EQ(layout.ep_nodes(), c.nodes);
    EXPECT_EQ(layout.expert_data_parallel(), 1);
    const std::vector<OpCollective> ops =
        layout.layer_collectives(hw, rank, layer_config(setup), 1);
    ASSERT_EQ(ops.size(), 3u);
    EXPECT_EQ(ops[0].kind, hardware::Collective::AllToAll);
    EXPECT_EQ(ops[0].ranks, 32);
    EXPECT_EQ(ops[0].nodes, c.nodes);
    EXPECT_DOUBLE_EQ(ops[0].bytes.value, n);
    EXPECT_DOUBLE_EQ(ops[0].calls, 2);
    const double near = 32 / c.nodes - 1, far = 31 - near;
    const double a2a = near * nv.alpha + far * ib.alpha + near / 32 * n / nv.effective_beta() +
                       far / 32 * n / ib.effective_beta();
    EXPECT_NEAR(hardware::collective_time(hw, ops[0].kind, 32, c.nodes, ops[0].bytes).total().value,
                a2a, 1e-12);
    // 2.61 ms and 2.46 ms per exchange: the NIC's 45 GB/s carries 94% and 88% of the bytes.
    EXPECT_NEAR(a2a, c.nodes == 16 ? 2.610e-3 : 2.462e-3, 1e-6);
    for (size_t i : {1, 2}) {
      EXPECT_EQ(ops[i].ranks, 2);
      EXPECT_EQ(ops[i].nodes, 1);
      EXPECT_DOUBLE_EQ(ops[i].bytes.value, 2 * n);
      EXPECT_NEAR(hardware::collective_time(hw, ops[i].kind, 2, 1, ops[i].bytes).total().value,
                  nv.alpha + n / nv.effective_beta(), 1e-12);
    }
  }
}

// A mixture-of-experts layer replaces the MLP, and Megatron-Core's token dispatchers gather and
// scatter the routed tokens themselves (the expert-tensor-parallel collectives), so with
// sequence parallelism the layer keeps only the attention's all-gather and reduce-scatter over
// the t GPUs, once each way; shared experts are a tensor-parallel MLP and keep the MLP's pair.
TEST(ExpertParallel, AMoeLayerKeepsOnlyTheAttentionsTensorParallelCollectives) {
  const hardware::HardwareProfile hw = uniform();
  const sim::Schedule s = one_f_one_b(8, 8);  // 4 layers per stage
  const double layers = 4;
  TrainingSetup setup;
  setup.tensor_parallel = 2;
  setup.sequence_parallel = true;
  setup.expert_tensor_parallel = 1;  // no expert collectives: only the TP ones are listed
  const auto tp_calls = [&](const models::ModelSpec& m, sim::OpKind kind) {
    const TrainingCostModel costs(m, hw, s, setup);
    double gathers = 0, scatters = 0;
    for (const OpCollective& o : costs.compute().collectives(1, kind)) {
      EXPECT_EQ(o.ranks, 2);
      gathers += o.kind == hardware::Collective::AllGather ? o.calls : 0.0;
      scatters += o.kind == hardware::Collective::ReduceScatter ? o.calls : 0.0;
    }
    EXPECT_EQ(gathers, scatters);
    return gathers;
  };
  models::ModelSpec shared = mixtral();
  shared.moe.shared_experts = 1;
  shared.moe.shared_ffn_hidden = shared.moe.ffn_hidden;
  for (const sim::OpKind kind : {sim::OpKind::Forward, sim::OpKind::Backward}) {
    EXPECT_EQ(tp_calls(mixtral(), kind), layers) << "routed experts only";
    EXPECT_EQ(tp_calls(shared, kind), 2 * layers) << "with a shared expert";
  }
}

TEST(ExpertParallel, AllToAllAndTransferShareANicMaxMinFairly) {
  const hardware::HardwareProfile hw = uniform();
  // One GPU (and NIC) per node, pipeline-major, D = 8, W = 8: worker 0 → worker 1 crosses nodes.
  const hardware::Placement p{8, 8, 1, 1, hardware::PlacementMode::PipelineMajor, 1};
  hardware::HardwareProfile one_per_node = hw;
  one_per_node.gpus_per_node = 1;
  one_per_node.nics_per_node = 1;
  const Topology topo(one_per_node, p);
  const double n = 1e8;
  // An all-to-all over 8 nodes (inter-node only): shares 1 on worker 0's NIC directions.
  const hardware::CommTime a2a = hardware::all_to_all_time(one_per_node, 8, 8, core::Bytes(n));
  ASSERT_GT(a2a.inter.value, 0);
  ASSERT_EQ(a2a.intra.value, 0);
  const int w0[] = {0};
  const sim::Flow a = topo.collective(a2a, w0);
  const sim::Flow t = topo.transfer(0, 1, core::Bytes(n));
  sim::MaxMinSolver solver(topo.num_resources());
  solver.add(a.uses);
  solver.add(t.uses);
  std::vector<double> rates;
  solver.solve(rates);
  // Both load NIC-out of worker 0 at share 1: max-min gives each half of it.
  EXPECT_NEAR(rates[0], 0.5, 1e-12);
  EXPECT_NEAR(rates[1], 0.5, 1e-12);

  // A mixed exchange (intra and inter terms) loads the NIC with x = inter/work of its speed:
  // equal rates r with r·x + r = 1 on the shared NIC, r = 1/(1 + x).
  const hardware::Placement p8{8, 8, 8, 8, hardware::PlacementMode::DataMajor, 1};
  const Topology topo8(hw, p8);
  const hardware::CommTime mixed = hardware::all_to_all_time(hw, 16, 2, core::Bytes(n));
  const sim::Flow am = topo8.collective(mixed, w0);
  const double x = mixed.inter.value / (mixed.inter.value + mixed.intra.value);
  const sim::Flow tm = topo8.transfer(0, 1, core::Bytes(n));  // worker 1: GPU 8, next node
  sim::MaxMinSolver solver8(topo8.num_resources());
  solver8.add(am.uses);
  solver8.add(tm.uses);
  solver8.solve(rates);
  EXPECT_NEAR(rates[0], 1 / (1 + x), 1e-12);
  EXPECT_NEAR(rates[1], 1 / (1 + x), 1e-12);
}

TEST(ExpertParallel, BadLayoutsAreOneClearErrorEach) {
  using pipesim::testing::invoke_cli;
  const std::vector<std::string> base{"simulate", "--schedule", "1f1b", "-D",
                                      "4",        "-N",         "8",    "--hardware",
                                      "h100-dgx", "--sequence", "4096"};
  struct Case {
    std::vector<std::string> extra;
    const char* says;
  };
  for (const Case& c :
       {Case{{"--model", "llama3-8b", "-E", "2"}, "model llama3-8b is dense"},
        Case{{"--model", "llama3-8b", "--moe-imbalance", "1.2"}, "--moe-imbalance"},
        Case{{"--model", "mixtral-8x7b", "-W", "3", "-E", "3"}, "must divide the 8 experts"},
        Case{{"--model", "mixtral-8x7b", "-W", "2", "-E", "4"}, "must divide the"},
        Case{{"--model", "mixtral-8x7b", "-W", "16", "-E", "2", "--expert-tensor-parallel", "4",
              "--placement", "pipeline-major"},
             "span 2 nodes"}}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const auto r = invoke_cli(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace pipesim::cost
