// Context parallelism against closed forms: the ring attention's exposed time per layer on a
// profile whose attention kernel time is a closed form (intra- and inter-node tiers),
// activations ÷ c, the data × context gradient group, placement on 8- and 72-GPU NVLink
// domains, and one clear error for each bad combination.

#include "pipesim/cost/context_parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "../support/cli_invoke.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/gradient_sync.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "schedule_helpers.hpp"

namespace pipesim::cost {
namespace {

using sim::OpKind;
using testing::one_f_one_b;

// An H100 node whose fused attention runs at a fixed half of the bf16 peak with free launches,
// so one layer's attention time is FLOPs / (peak / 2), and whose links are given.
hardware::HardwareProfile uniform(hardware::Hockney intra, hardware::Hockney inter) {
  hardware::HardwareProfile hw = hardware::load_profile("h100-dgx");
  hw.gpu.attention_efficiency = 0.5;
  hw.gpu.kernel_launch = 0;
  hw.framework.op_overhead = 0;
  hw.intra_node = intra;
  hw.inter_node = inter;
  hw.fitted.clear();
  return hw;
}

TrainingSetup cp_setup(int t, int c) {
  TrainingSetup s;
  s.tensor_parallel = t;
  s.context_parallel = c;
  s.attention = models::Attention::Flash;
  return s;
}

// The exposed ring time of one op: L layers × (c − 1) steps × what the step does not hide.
double exposed(double L, int c, double alpha, double beta, double bytes, double attention) {
  return L * (c - 1) * std::max(0.0, alpha + bytes / beta - attention / c);
}

void expect_ring_closed_form(int t, int c, const hardware::Hockney& tier, bool inter) {
  const models::ModelSpec m = models::load_model("llama3-8b");  // s 8192, a 32, a_kv 8, d 128
  const hardware::Hockney other{1e-6, 1e9};
  const hardware::HardwareProfile hw = inter ? uniform(other, tier) : uniform(tier, other);
  const sim::Schedule sched = one_f_one_b(4, 8);
  const TrainingCostModel costs(m, hw, sched, cp_setup(t, c));
  const double s = m.sequence, a = m.heads, d = 128, kv = m.kv_heads, b = 1;
  // Per rank: s/c queries against all s keys, half masked, a/t heads: 4·b·(s/c)·s·a·d/t / 2.
  const double flops_f = 0.5 * 4 * b * (s / c) * s * a * d / t;
  const double peak = hw.gpu.peak_flops.at("bf16") * 0.5;
  const double attn_f = flops_f / peak, attn_b = 2.5 * flops_f / peak;
  const double n_kv = b * (s / c) * 2 * kv * d / t * 2;  // K and V, bf16
  const double L = costs.partition()[1].layers;
  const double fwd = exposed(L, c, tier.alpha, tier.beta, n_kv, attn_f);
  const double bwd = exposed(L, c, tier.alpha, tier.beta, 2 * n_kv, attn_b);
  const StageCompute& compute = costs.compute();
  // The TP collectives (tensor_parallel_test.cpp checks them) come first in the op's list.
  const auto tp_part = [&](OpKind kind) {
    const std::vector<OpCollective>& list = compute.collectives(1, kind);
    return collectives_time(hw, {list.begin(), list.end() - 1}).total().value;
  };
  EXPECT_NEAR(compute.collective_time(1, OpKind::Forward).total().value - tp_part(OpKind::Forward),
              fwd, 1e-12 + 1e-9 * fwd);
  EXPECT_NEAR(
      compute.collective_time(1, OpKind::Backward).total().value - tp_part(OpKind::Backward), bwd,
      1e-12 + 1e-9 * bwd);
  EXPECT_TRUE(compute.collectives(1, OpKind::BackwardWeight).empty());
  const std::vector<OpCollective>& f = compute.collectives(1, OpKind::Forward);
  ASSERT_EQ(f.size(), t > 1 ? 2u : 1u);  // TP all-reduce first when t > 1
  EXPECT_TRUE(f.back().ring_exchange);
  EXPECT_EQ(f.back().ranks, c);
  EXPECT_EQ(f.back().nodes, inter ? t * c / hw.gpus_per_node : 1);
  EXPECT_DOUBLE_EQ(f.back().bytes.value, n_kv);
}

TEST(ContextParallel, RingExposesWhatTheAttentionBlockDoesNotHideIntraNode) {
  for (int c : {2, 4, 8}) {
    // A fast link hides every step (exposed 0), a slow one does not.
    expect_ring_closed_form(1, c, {2e-6, 400e9}, false);
    expect_ring_closed_form(1, c, {2e-6, 2e9}, false);
  }
  expect_ring_closed_form(2, 4, {5e-6, 1e9}, false);
}

TEST(ContextParallel, RingAcrossNodesRunsAtTheInterNodeTier) {
  // t·c = 16 > 8 GPUs per node: the ring crosses nodes.
  expect_ring_closed_form(8, 2, {5e-6, 0.5e9}, true);
  expect_ring_closed_form(4, 4, {5e-6, 25e9}, true);
  expect_ring_closed_form(1, 16, {5e-6, 1e9}, true);
}

TEST(ContextParallel, ComputeAndActivationsSplitBySequence) {
  const models::ModelSpec m = models::load_model("llama3-8b");
  const hardware::HardwareProfile hw = hardware::load_profile("h100-dgx");
  const sim::Schedule sched = one_f_one_b(4, 8);
  const TrainingCostModel one(m, hw, sched, cp_setup(1, 1));
  for (int c : {2, 4, 8}) {
    const TrainingCostModel split(m, hw, sched, cp_setup(1, c));
    for (size_t st = 0; st < 4; ++st) {
      const sim::StageMemory &a = one.stage_memory()[st], &b = split.stage_memory()[st];
      EXPECT_DOUBLE_EQ(b.activations * c, a.activations) << c;
      EXPECT_DOUBLE_EQ(b.weights, a.weights);
    }
    EXPECT_EQ(split.gpus(), 4 * c);
    // Each rank's layer FLOPs: the GEMMs on s/c tokens, attention over all s keys (causal).
    const models::LayerConfig cfg = layer_config(cp_setup(1, c));
    const models::ModelSpec rank = rank_model(m, cp_setup(1, c));
    EXPECT_EQ(rank.sequence, m.sequence / c);
    const double s = m.sequence, h = m.hidden;
    EXPECT_DOUBLE_EQ(models::kernel_flops(models::layer_forward(rank, cfg)).value,
                     2.0 * (s / c) * models::layer_matmul_params(m) + 0.5 * 4 * (s / c) * s * h);
    // The model's FLOPs per iteration (MFU) are the whole sequence's.
    EXPECT_EQ(split.model().sequence, m.sequence);
  }
}

TEST(ContextParallel, GradientsReduceOverDataTimesContextRanks) {
  const models::ModelSpec m = models::load_model("llama3-8b");
  const hardware::HardwareProfile hw = hardware::load_profile("h100-dgx");
  const sim::Schedule sched = one_f_one_b(2, 4);
  for (bool zero : {false, true}) {
    TrainingSetup setup = cp_setup(2, 2);
    setup.data_parallel = 3;
    setup.distributed_optimizer = zero;
    setup.placement = hardware::PlacementMode::PipelineMajor;
    const TrainingCostModel costs(m, hw, sched, setup);
    EXPECT_EQ(costs.gpus(), 2 * 2 * 2 * 3);
    const sim::TaskGraph graph = sim::build_task_graph(sched, costs.lowering());
    int seen = 0;
    for (sim::TaskId id = 0; id < static_cast<sim::TaskId>(graph.num_tasks()); ++id) {
      const sim::Task& task = graph.task(id);
      if (task.kind != OpKind::AllReduce) continue;
      ++seen;
      // 6 ranks: W = 3 replicas × c = 2; each worker is 4 GPUs, 2 per node, so the 3 replicas'
      // copies of one stage lie on 3 nodes (pipeline-major: replica r, worker w on GPU 8r+4w).
      const double params = costs.stage_memory()[static_cast<size_t>(task.stage)].weights / 2;
      const ParamBytes bytes = param_bytes(models::Precision::BF16);
      const hardware::CommTime c = gradient_sync_time(hw, setup, bytes, params, 6, 3);
      const sim::Flow f = costs.flow(graph, id);
      EXPECT_NEAR(f.latency + f.work, c.total().value, 1e-15 + 1e-12 * c.total().value);
    }
    EXPECT_EQ(seen, 2);
    if (zero) {
      // The distributed optimizer shards over the same 6 ranks.
      const double params = costs.stage_memory()[1].weights / 2;
      EXPECT_DOUBLE_EQ(costs.stage_memory()[1].optimizer, params * 12 / 6);
    }
  }
}

TEST(ContextParallel, GroupsArePlacedInnermostTensorThenContext) {
  const models::ModelSpec m = models::load_model("llama3-8b");
  const sim::Schedule sched = one_f_one_b(4, 8);
  auto placed = [&](const char* profile, int t, int c) {
    TrainingSetup setup = cp_setup(t, c);
    setup.sequence = 18432;  // 2^11 · 9: 2c divides it for every c here
    return TrainingCostModel(m, hardware::load_profile(profile), sched, setup).placement();
  };
  // 8-GPU nodes: t·c = 8 fills a node per worker; 4 makes two workers per node; 32 spans four.
  const hardware::Placement p8 = placed("h100-dgx", 4, 2);
  EXPECT_EQ(p8.gpu(0, 1), 8);
  EXPECT_EQ(p8.node(0, 3), 3);
  const hardware::Placement p4 = placed("h100-dgx", 2, 2);
  EXPECT_EQ(p4.node(0, 1), 0);
  EXPECT_EQ(p4.node(0, 2), 1);
  const hardware::Placement p32 = placed("h100-dgx", 8, 4);
  EXPECT_EQ(p32.node(0, 1), 4);
  EXPECT_EQ(p32.last_node(0, 1), 7);
  // A 72-GPU NVLink domain: t·c = 8 puts nine workers in it; 72 exactly one.
  const hardware::Placement n8 = placed("gb200-nvl72", 4, 2);
  EXPECT_EQ(n8.node(0, 3), 0);
  const hardware::Placement n72 = placed("gb200-nvl72", 8, 9);
  EXPECT_EQ(n72.node(0, 1), 1);
  EXPECT_EQ(n72.last_node(0, 0), 0);
}

TEST(ContextParallel, BadCombinationsAreClearErrors) {
  const sim::Schedule sched = one_f_one_b(4, 8);
  auto message = [&](const char* model, const char* profile, TrainingSetup setup) {
    try {
      TrainingCostModel(models::load_model(model), hardware::load_profile(profile), sched, setup);
    } catch (const core::ConfigError& e) {
      EXPECT_TRUE(e.is_option()) << e.what();
      EXPECT_EQ(e.field(), "context_parallel") << e.what();
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  // llama3-8b: s = 8192, causal: 2c must divide it.
  EXPECT_NE(message("llama3-8b", "h100-dgx", cp_setup(1, 3)).find("sequence"), std::string::npos);
  TrainingSetup standard = cp_setup(1, 2);
  standard.attention = models::Attention::Standard;
  EXPECT_NE(message("llama3-8b", "h100-dgx", standard).find("flash"), std::string::npos);
  // t·c = 12 neither divides 8 nor is a multiple of it; 16 does not tile a 72-GPU domain.
  TrainingSetup twelve = cp_setup(4, 3);
  twelve.sequence = 18432;  // 2c = 6 divides it; the placement is what fails
  EXPECT_NE(message("llama3-8b", "h100-dgx", twelve).find("per node"), std::string::npos);
  EXPECT_NE(message("llama3-8b", "gb200-nvl72", cp_setup(8, 2)).find("72"), std::string::npos);
  EXPECT_EQ(message("llama3-8b", "gb200-nvl72", cp_setup(4, 2)), "accepted");
}

TEST(ContextParallel, CliCountsTheGpusAndRefusesBadInputWithExit2) {
  using pipesim::testing::invoke_cli;
  const std::vector<std::string> base{
      "simulate", "--format",  "json",       "-D",       "2",           "-N",   "4",
      "--model",  "llama3-8b", "--hardware", "h100-dgx", "--attention", "flash"};
  auto with = base;
  with.insert(with.end(), {"-T", "2", "-C", "2", "-W", "2"});
  const auto ok = invoke_cli(with);
  ASSERT_TRUE(ok.code == 0 || ok.code == 4) << ok.err;
  EXPECT_NE(ok.out.find("\"gpus\": 16"), std::string::npos) << ok.out.substr(0, 400);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"-C", "3"}, std::vector<std::string>{"-T", "4", "-C", "3"},
        std::vector<std::string>{"-C", "0"}}) {
    auto a = base;
    a.insert(a.end(), bad.begin(), bad.end());
    const auto r = invoke_cli(a);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("context-parallel"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace pipesim::cost
