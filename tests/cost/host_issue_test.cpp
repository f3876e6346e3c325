// The host side of an op (cost/host_issue.hpp): the GPU waits on the host's dispatch only where
// the host falls behind. Closed forms of the recurrence on hand-made kernel runs, the CUDA-graph
// scopes on the real layer lists, and the cost model's ops with and without dispatch cost.

#include "pipesim/cost/host_issue.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::cost {
namespace {

std::vector<IssuedKernel> run(std::initializer_list<double> seconds) {
  std::vector<IssuedKernel> out;
  for (double s : seconds)
    out.push_back({s, 1.0, false});
  return out;
}

TEST(HostIssue, NoDispatchCostNoStall) {
  EXPECT_EQ(host_stall(run({1e-3, 1e-6}), 10, 0.0), 0.0);
  EXPECT_EQ(host_stall({}, 10, 1e-5), 0.0);
  EXPECT_EQ(host_stall(run({1e-3}), 0, 1e-5), 0.0);
}

TEST(HostIssue, KernelsLongerThanTheirDispatchHideAllButTheFirst) {
  // Every kernel outlasts a dispatch: the host runs ahead after the first one, whatever the
  // number of layers.
  const double h = 10e-6;
  for (int layers : {1, 3, 97})
    EXPECT_NEAR(host_stall(run({50e-6, 20e-6, 11e-6}), layers, h), h, 1e-15) << layers;
}

TEST(HostIssue, KernelsShorterThanTheirDispatchRunAtTheHostsPace) {
  // n kernels of k < h per layer: each starts when dispatched, the last ends h·n·L + k after
  // the start, the kernels themselves took n·L·k.
  const double h = 20e-6, k = 5e-6;
  for (int layers : {1, 2, 64}) {
    const double n = 3;
    EXPECT_NEAR(host_stall(run({k, k, k}), layers, h), n * layers * (h - k) + k, 1e-12) << layers;
  }
}

TEST(HostIssue, AWaitDrainsTheQueueEveryLayer) {
  // A long kernel a, then one of b < h the host must wait for the GPU to reach: per layer the
  // host dispatches a, waits until a ends, dispatches b; the GPU idles h before each, so each
  // layer takes 2h + a and the stall is L·(2h − b) + b.
  const double h = 30e-6, a = 400e-6, b = 8e-6;
  std::vector<IssuedKernel> layer = run({a, b});
  layer[1].waits = true;
  for (int layers : {1, 2, 50}) {
    EXPECT_NEAR(host_stall(layer, layers, h), layers * (2 * h - b) + b, 1e-12) << layers;
  }
  // Without the wait the host runs ahead of a: one dispatch shows.
  layer[1].waits = false;
  EXPECT_NEAR(host_stall(layer, 50, h), h, 1e-12);
}

TEST(HostIssue, ScopesParseAsMegatronNamesThem) {
  EXPECT_EQ(parse_cuda_graph_scopes("none", "cuda_graphs"), CudaGraphScopes{});
  const CudaGraphScopes partial = parse_cuda_graph_scopes("partial", "cuda_graphs");
  EXPECT_TRUE(partial.attn && partial.mlp && partial.moe_router && partial.moe_preprocess);
  EXPECT_FALSE(partial.moe || partial.full_iteration);
  EXPECT_TRUE(parse_cuda_graph_scopes("full", "cuda_graphs").full_iteration);
  const CudaGraphScopes listed = parse_cuda_graph_scopes("attn,moe_router", "cuda_graphs");
  EXPECT_TRUE(listed.attn && listed.moe_router);
  EXPECT_FALSE(listed.mlp || listed.moe || listed.moe_preprocess || listed.full_iteration);
  try {
    parse_cuda_graph_scopes("attn,everything", "cuda_graphs");
    FAIL() << "an unknown scope was accepted";
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.field(), "cuda_graphs");
    EXPECT_NE(e.problem().find("'everything'"), std::string::npos) << e.problem();
    EXPECT_NE(e.problem().find("full_iteration"), std::string::npos) << e.problem();
  }
}

// The dispatches and waits of one layer's kernel list under `scopes`.
struct Issued {
  double dispatches = 0;
  int waits = 0;
};
Issued issue(const models::KernelList& ks, const std::string& scopes) {
  const std::vector<double> seconds(ks.size(), 1e-6);
  Issued out;
  hardware::FrameworkOverhead framework;
  framework.attention_launches = 3;
  framework.mlp_launches = 2;
  for (const IssuedKernel& k : issued_kernels(
           ks, seconds, framework, parse_cuda_graph_scopes(scopes, "cuda_graphs"), true)) {
    out.dispatches += k.dispatches;
    out.waits += k.waits ? 1 : 0;
  }
  return out;
}

TEST(HostIssue, GraphsReplayEachCapturedPartForOneDispatch) {
  const models::ModelSpec dense = models::load_model("llama3-8b");
  const models::KernelList f = models::layer_forward(dense, {});
  // Eager, each listed kernel costs its part's launches: 3 in the attention, 2 in the MLP.
  const auto mlp = static_cast<double>(std::count_if(f.begin(), f.end(), [](const auto& k) {
    for (const char* p : {"ln2", "fc1", "fc2", "swiglu", "gelu", "mlp_"}) {
      if (k.name.rfind(p, 0) == 0) return true;
    }
    return false;
  }));
  EXPECT_GT(mlp, 0);
  EXPECT_EQ(issue(f, "none").dispatches, 3 * (static_cast<double>(f.size()) - mlp) + 2 * mlp);
  // The attention's graph and the MLP's graph: one replay each.
  EXPECT_EQ(issue(f, "partial").dispatches, 2);
  EXPECT_EQ(issue(f, "full").dispatches, 0);
  EXPECT_EQ(issue(f, "none").waits, 0);  // a dense layer never waits

  const models::ModelSpec moe = models::load_model("qwen3-30b-a3b");
  models::LayerConfig c;
  c.expert_parallel = 8;
  const models::KernelList mf = models::layer_forward(moe, c, models::LayerKind::Moe);
  const models::KernelList mb = models::layer_backward_input(moe, c, models::LayerKind::Moe);
  // The dispatcher's token counts: one wait per forward, none in the backward, none when the
  // whole layer is captured with fixed-shape buffers.
  EXPECT_EQ(issue(mf, "none").waits, 1);
  EXPECT_EQ(issue(mb, "none").waits, 0);
  EXPECT_EQ(issue(mf, "moe").waits, 0);
  EXPECT_EQ(issue(mf, "full").waits, 0);
  // Partial graphs leave the routed experts eager: the expert kernels keep their dispatches,
  // the attention and the router are one replay each.
  const auto experts = static_cast<double>(std::count_if(mf.begin(), mf.end(), [](const auto& k) {
    return k.name.rfind("expert_", 0) == 0 || k.name.rfind("moe_", 0) == 0 ||
           k.name.rfind("shared_", 0) == 0 || k.name.rfind("mlp_", 0) == 0;
  }));
  EXPECT_EQ(issue(mf, "partial").dispatches, 2 * experts + 2);
  EXPECT_EQ(issue(mf, "partial").waits, 1);
}

// Transformer Engine's GroupedLinear issues each local expert's GEMM apart: the grouped kernel
// costs its part's launches once per expert, eager; captured, its part is still one replay.
TEST(HostIssue, AGroupedGemmIssuedPerExpertCostsItsDispatchesPerExpert) {
  const models::ModelSpec moe = models::load_model("qwen3-30b-a3b");
  models::LayerConfig c;
  c.expert_parallel = 8;  // 16 local experts
  const models::KernelList mf = models::layer_forward(moe, c, models::LayerKind::Moe);
  double grouped = 0, local = 0;
  for (const models::LayerKernel& k : mf) {
    if (k.grouped_gemm()) {
      grouped += 1;
      local = static_cast<double>(k.batch);
    }
  }
  ASSERT_EQ(grouped, 2);  // fc1 and fc2
  ASSERT_EQ(local, 16);
  const std::vector<double> seconds(mf.size(), 1e-6);
  hardware::FrameworkOverhead framework;
  framework.mlp_launches = 2;
  const auto dispatches = [&](bool per_expert, const std::string& scopes) {
    framework.grouped_gemm_per_expert = per_expert;
    double d = 0;
    for (const IssuedKernel& k : issued_kernels(
             mf, seconds, framework, parse_cuda_graph_scopes(scopes, "cuda_graphs"), true))
      d += k.dispatches;
    return d;
  };
  EXPECT_EQ(dispatches(true, "none") - dispatches(false, "none"), grouped * 2 * (local - 1));
  EXPECT_EQ(dispatches(true, "moe"), dispatches(false, "moe"));
  EXPECT_EQ(dispatches(true, "full"), 0);
}

TEST(HostIssue, TheCostModelPaysOnlyWhereTheHostFallsBehind) {
  const auto forward = [](const std::string& model, double dispatch, const std::string& graphs) {
    hardware::HardwareProfile hw = hardware::load_profile("h100-dgx");
    hw.framework.op_overhead = dispatch;
    schedules::ScheduleParams p;
    p.stages = 2;
    p.micro_batches = 2;
    TrainingSetup setup;
    setup.cuda_graphs = graphs;
    setup.sequence = 256;
    const TrainingCostModel costs(models::load_model(model), hw,
                                  schedules::make_schedule("1f1b", p), setup);
    return costs.stage_times()[0].forward;
  };
  // Llama 3 8B at 256 tokens: kernels of tens of microseconds, so a dispatch of 1 ms per
  // kernel sets the pace (at least L·n·(h − the longest kernel)); with every layer in one
  // graph it is gone again.
  const double bare = forward("llama3-8b", 0, "none");
  const double slow = forward("llama3-8b", 1e-3, "none");
  const models::ModelSpec m = models::load_model("llama3-8b");
  const double n = static_cast<double>(models::layer_forward(m, {}).size());
  EXPECT_GT(slow - bare, 16 * n * (1e-3 - 0.5e-3));
  EXPECT_NEAR(forward("llama3-8b", 1e-3, "full"), bare, 1e-12);
  // A dispatch far below the kernels' times shows only at the start.
  EXPECT_LT(forward("llama3-8b", 1e-9, "none") - bare, 1e-6);
}

}  // namespace
}  // namespace pipesim::cost
