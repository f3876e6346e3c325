// Tensor and sequence parallelism against closed forms: per-GPU weights ÷ t (Shoeybi et al.),
// activations per Korthikanti et al. Table 2 (with/without sequence parallelism, selective and
// full recomputation), the TP collectives' traffic and time per layer, the placement rules.

#include "pipesim/cost/tensor_parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "bare_profile.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/kernel_time.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "schedule_helpers.hpp"

namespace pipesim::cost {
namespace {

using models::LayerConfig;
using models::Recompute;

LayerConfig config(int b, int t, bool sp) {
  LayerConfig c;
  c.micro_batch_size = b;
  c.tensor_parallel = t;
  c.sequence_parallel = sp;
  return c;
}

using testing::one_f_one_b;

TEST(TensorParallel, PerGpuWeightsDivideByT) {
  const models::ModelSpec gpt = models::load_model("gpt3-175b");
  const models::ModelSpec llama = models::load_model("llama3-70b");
  const double h = gpt.hidden, V = gpt.vocabulary;
  for (int t : {1, 2, 4, 8}) {
    // GPT layer: 12h² GEMM weights and the QKV/fc1 biases 3h + 4h split; proj/fc2 biases 2h and
    // two LayerNorms 4h replicated. t = 1 gives 12h² + 13h [N21].
    EXPECT_DOUBLE_EQ(models::layer_params_per_gpu(gpt, t), (12 * h * h + 7 * h) / t + 6 * h);
    // Llama: no biases, RMSNorm weights h each (replicated).
    EXPECT_DOUBLE_EQ(models::layer_params_per_gpu(llama, t),
                     models::layer_matmul_params(llama) / t + 2.0 * llama.hidden);
    EXPECT_DOUBLE_EQ(models::embedding_params_per_gpu(gpt, t), V * h / t + 2048 * h);
  }
  // Through the cost model: a middle stage's weight bytes per GPU.
  const hardware::HardwareProfile hw = bare_profile("a100-dgx");
  const sim::Schedule s = one_f_one_b(4, 8);
  for (int t : {1, 2, 4, 8}) {
    TrainingSetup setup;
    setup.tensor_parallel = t;
    const TrainingCostModel costs(gpt, hw, s, setup);
    const double layers = costs.partition()[1].layers;
    EXPECT_DOUBLE_EQ(costs.stage_memory()[1].weights,
                     layers * ((12 * h * h + 7 * h) / t + 6 * h) * 2.0);  // bf16 weights
  }
}

TEST(TensorParallel, ActivationsFollowKorthikantiTable2) {
  const models::ModelSpec m = models::load_model("gpt3-175b");  // 16-bit, dropout, MHA, 4h
  const double s = m.sequence, h = m.hidden, a = m.heads;
  for (int t : {1, 2, 4, 8}) {
    for (int b : {1, 2}) {
      const double sbh = s * b * h;
      auto bytes = [&](bool sp, Recompute r) {
        return models::layer_activation_bytes(m, config(b, t, sp), r).value;
      };
      EXPECT_DOUBLE_EQ(bytes(false, Recompute::None), sbh * (10 + 24.0 / t + 5 * a * s / (h * t)));
      EXPECT_DOUBLE_EQ(bytes(false, Recompute::Selective), sbh * (10 + 24.0 / t));
      EXPECT_DOUBLE_EQ(bytes(false, Recompute::Full), 2 * sbh);
      if (t > 1) {
        EXPECT_DOUBLE_EQ(bytes(true, Recompute::None), sbh / t * (34 + 5 * a * s / h));
        EXPECT_DOUBLE_EQ(bytes(true, Recompute::Selective), 34 * sbh / t);
        EXPECT_DOUBLE_EQ(bytes(true, Recompute::Full), 2 * sbh / t);
      }
    }
  }
}

TEST(TensorParallel, LayerTrafficAndTimeMatchTheRingClosedForm) {
  // Per layer fwd + bwd: 4 all-reduces (or AG + RS pairs) of b·s·h 16-bit elements, each
  // 2(t−1)/t·n on the wire per GPU; time 2(t−1)α + 2(t−1)/t·n/β on NVLink (one node).
  const models::ModelSpec m = models::load_model("gpt3-175b");
  const hardware::HardwareProfile hw = bare_profile("a100-dgx");
  for (int t : {1, 2, 4, 8}) {
    for (bool sp : {false, true}) {
      if (sp && t == 1) continue;
      const LayerConfig c = config(2, t, sp);
      const double n = 2.0 * m.sequence * m.hidden * 2;
      EXPECT_DOUBLE_EQ(tp_layer_traffic(m, c).value, 4 * 2.0 * (t - 1) / t * n);
      const double expected =
          t == 1 ? 0.0
                 : 2.0 * (t - 1) * hw.intra_node.alpha + 2.0 * (t - 1) / t * n / hw.intra_node.beta;
      EXPECT_NEAR(tp_collective_time(hw, m, c), expected, 1e-12 * expected + 1e-18);
    }
  }
}

TEST(TensorParallel, EachOpCarriesItsLayersCollectives) {
  // An op holds its stream for its kernels (L × the layer's on a middle stage); its collectives
  // are a list of their own: 2L points in the forward and in the input gradient, each an
  // all-gather and a reduce-scatter of b·s·h elements over the t GPUs of one node (sequence
  // parallelism), none in the weight gradient. Alone, an op lasts kernels + collectives.
  const models::ModelSpec m = models::load_model("gpt3-175b");
  const hardware::HardwareProfile hw = bare_profile("a100-dgx");
  TrainingSetup setup;
  setup.tensor_parallel = 8;
  setup.sequence_parallel = true;
  const sim::Schedule s = one_f_one_b(8, 16);
  const TrainingCostModel costs(m, hw, s, setup);
  const LayerConfig c = layer_config(setup);
  const StageCompute& compute = costs.compute();
  const double L = costs.partition()[3].layers, tp = tp_collective_time(hw, m, c);
  using sim::OpKind;
  EXPECT_DOUBLE_EQ(compute.kernels(3, OpKind::Forward),
                   L * kernel_time(models::layer_forward(m, c), hw.gpu, "bf16"));
  EXPECT_DOUBLE_EQ(compute.kernels(3, OpKind::Backward),
                   L * kernel_time(models::layer_backward_input(m, c), hw.gpu, "bf16") +
                       L * kernel_time(models::layer_backward_weight(m, c), hw.gpu, "bf16"));
  const std::vector<OpCollective>& f = compute.collectives(3, OpKind::Forward);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].kind, hardware::Collective::AllGather);
  EXPECT_EQ(f[1].kind, hardware::Collective::ReduceScatter);
  for (const OpCollective& one : f) {
    EXPECT_EQ(one.ranks, 8);
    EXPECT_EQ(one.nodes, 1);
    EXPECT_EQ(one.calls, 2 * L);
    EXPECT_DOUBLE_EQ(one.bytes.value, tp_buffer_bytes(m, c).value);
  }
  EXPECT_NEAR(compute.collective_time(3, OpKind::Forward).total().value, 2 * L * tp, 1e-12);
  EXPECT_NEAR(compute.collective_time(3, OpKind::Backward).total().value, 2 * L * tp, 1e-12);
  EXPECT_TRUE(compute.collectives(3, OpKind::BackwardWeight).empty());
  // The embedding's and the head's one collective each, on the first and last stages.
  EXPECT_EQ(compute.collectives(0, OpKind::Forward)[0].calls, 2 * costs.partition()[0].layers + 1);
  EXPECT_EQ(compute.collectives(7, OpKind::Backward)[0].calls, 2 * costs.partition()[7].layers + 1);
  const StageTimes& st = costs.stage_times()[3];
  EXPECT_NEAR(st.forward, compute.kernels(3, OpKind::Forward) + 2 * L * tp, 1e-12);
  EXPECT_DOUBLE_EQ(st.backward_weight, compute.kernels(3, OpKind::BackwardWeight));
  // The forward GEMM FLOPs per GPU are 1/8 of the whole layer's.
  EXPECT_DOUBLE_EQ(models::kernel_flops(models::layer_forward(m, c)).value * 8,
                   models::kernel_flops(models::layer_forward(m, LayerConfig{})).value);
  EXPECT_EQ(costs.gpus(), 64);
  // Lowering: F and B carry collectives, after their op; with tp_comm_overlap beside it, and an
  // op alone lasts the longer of the two.
  const sim::OpCollectives serial = costs.lowering();
  EXPECT_FALSE(serial.overlap);
  EXPECT_TRUE(serial.carried(3, OpKind::Forward));
  EXPECT_TRUE(serial.carried(3, OpKind::Backward));
  EXPECT_FALSE(serial.carried(3, OpKind::BackwardWeight));
  setup.tp_comm_overlap = true;
  const TrainingCostModel overlapped(m, hw, s, setup);
  EXPECT_TRUE(overlapped.lowering().overlap);
  EXPECT_EQ(overlapped.compute().alone(3, OpKind::Forward),
            std::max(compute.kernels(3, OpKind::Forward),
                     compute.collective_time(3, OpKind::Forward).total().value));
  // t = 1: no collectives, nothing to lower.
  EXPECT_TRUE(TrainingCostModel(m, hw, s, TrainingSetup{}).lowering().carries.empty());
}

// The SMs the overlap kernels hold (framework.tp_overlap_sm_fraction f) slow exactly the linear
// layers' GEMMs by 1 / (1 − f), and only when the collectives run beside them (t > 1 with
// tp_comm_overlap): the middle stage's forward = L·(linear / (1 − f) + the rest).
TEST(TensorParallel, OverlapSmShareSlowsOnlyTheLinearGemmsItRunsBeside) {
  const models::ModelSpec m = models::load_model("gpt3-175b");
  hardware::HardwareProfile hw = bare_profile("a100-dgx");
  hw.framework.tp_overlap_sm_fraction = 0.2;
  const sim::Schedule s = one_f_one_b(8, 16);
  TrainingSetup setup;
  setup.tensor_parallel = 8;
  setup.sequence_parallel = true;
  setup.tp_comm_overlap = true;
  const LayerConfig c = layer_config(setup);
  models::KernelList linear, other;
  for (const models::LayerKernel& k : models::layer_forward(m, c))
    (k.linear ? linear : other).push_back(k);
  ASSERT_EQ(linear.size(), 4u);  // qkv, proj, fc1, fc2
  const double L = TrainingCostModel(m, hw, s, setup).partition()[3].layers;
  const double expected =
      L * (kernel_time(linear, hw.gpu, "bf16") / 0.8 + kernel_time(other, hw.gpu, "bf16"));
  EXPECT_NEAR(TrainingCostModel(m, hw, s, setup).compute().kernels(3, sim::OpKind::Forward),
              expected, 1e-12 * expected);
  // Collectives after the op (no overlap): the GEMMs have every SM.
  setup.tp_comm_overlap = false;
  EXPECT_DOUBLE_EQ(TrainingCostModel(m, hw, s, setup).compute().kernels(3, sim::OpKind::Forward),
                   L * kernel_time(models::layer_forward(m, c), hw.gpu, "bf16"));
  // t = 1 (no overlap possible: it needs sequence parallelism, hence t > 1): no slowdown.
  const TrainingSetup single;
  const double L1 = TrainingCostModel(m, hw, s, single).partition()[3].layers;
  EXPECT_DOUBLE_EQ(
      TrainingCostModel(m, hw, s, single).compute().kernels(3, sim::OpKind::Forward),
      L1 * kernel_time(models::layer_forward(m, layer_config(single)), hw.gpu, "bf16"));
}

TEST(TensorParallel, InvalidCombinationsAreClearErrors) {
  const hardware::HardwareProfile hw = bare_profile("a100-dgx");
  const sim::Schedule s = one_f_one_b(4, 8);
  auto field_of = [&](const char* model, int t, bool sp) {
    TrainingSetup setup;
    setup.tensor_parallel = t;
    setup.sequence_parallel = sp;
    try {
      TrainingCostModel(models::load_model(model), hw, s, setup);
    } catch (const core::ConfigError& e) {
      EXPECT_TRUE(e.is_option()) << e.what();
      return e.field();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(field_of("gpt3-175b", 16, false), "tensor_parallel");  // > 8 GPUs per node
  EXPECT_EQ(field_of("gpt3-175b", 3, false), "tensor_parallel");   // does not divide 96 heads
  EXPECT_EQ(field_of("gpt2-1.3b", 8, false), "tensor_parallel");   // 20 heads
  EXPECT_EQ(field_of("llama3-8b", 8, false), "accepted");          // 8 KV heads
  EXPECT_EQ(field_of("gpt3-175b", 1, true), "sequence_parallel");  // needs t > 1
  EXPECT_EQ(field_of("gpt3-175b", 8, true), "accepted");
}

TEST(TensorParallel, P2pMessagesAreScatteredOverTheGroup) {
  const models::ModelSpec m = models::load_model("gpt3-175b");
  for (int t : {1, 2, 4, 8}) {
    EXPECT_DOUBLE_EQ(models::p2p_message_bytes(m, config(1, t, false)).value,
                     2.0 * m.sequence * m.hidden / t);
  }
}

}  // namespace
}  // namespace pipesim::cost
