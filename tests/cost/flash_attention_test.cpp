// FlashAttention: no s² activations (only the fp32 log-sum-exp), FLOPs as FlashAttention-2's
// kernels do them (backward 2.5× the forward's attention FLOPs; causal masks skip half).

#include <gtest/gtest.h>

#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/transformer.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::models {
namespace {

LayerConfig flash(int b, int t = 1) {
  LayerConfig c;
  c.micro_batch_size = b;
  c.tensor_parallel = t;
  c.attention = Attention::Flash;
  return c;
}

TEST(FlashAttention, Llama3At8kStoresNoScores) {
  const ModelSpec m = load_model("llama3-8b");
  ASSERT_EQ(m.sequence, 8192);
  const double s = m.sequence, h = m.hidden, a = m.heads, f = m.ffn_hidden, kv = m.kv_hidden();
  // Korthikanti's inventory without dropout (bf16): norms and block inputs 8sbh, Q and the
  // projection input 4sbh, K and V 4sb·h_kv, SwiGLU 6sbf; the flash kernel keeps 4·a·s·b.
  const double linear = 12 * s * h + 4 * s * kv + 6 * s * f;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, flash(1), Recompute::None).value, linear + 4 * a * s);
  // Standard attention stores the softmax output 2·a·s²·b on top: 4.3 GB per layer here.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, LayerConfig{}, Recompute::None).value,
                   linear + 2 * a * s * s);
  // Whole model, no recomputation: the s² term was ~137 GB of the total.
  const double standard =
      m.layers * layer_activation_bytes(m, LayerConfig{}, Recompute::None).value;
  const double fused = m.layers * layer_activation_bytes(m, flash(1), Recompute::None).value;
  EXPECT_GT(standard - fused, 130e9);
  EXPECT_LT(fused, 40e9);
}

TEST(FlashAttention, FlopsAreTheKernelsFlops) {
  ModelSpec m = load_model("llama3-8b");
  const double s = m.sequence, h = m.hidden;
  const double gemm = 2.0 * s * layer_matmul_params(m);  // b = 1
  const double core = 4.0 * s * s * h;                   // QKᵀ + AV, full square
  for (bool causal : {true, false}) {
    m.causal = causal;
    const double k = causal ? 0.5 : 1.0;
    EXPECT_DOUBLE_EQ(kernel_flops(layer_forward(m, flash(1))).value, gemm + k * core);
    // Backward recomputes QKᵀ: dV, dP, S, dQ, dK = 2.5 × the forward's attention FLOPs.
    EXPECT_DOUBLE_EQ(kernel_flops(layer_backward_input(m, flash(1))).value, gemm + 2.5 * k * core);
    // Selective recomputation of a flash layer re-runs the fused forward kernel.
    EXPECT_DOUBLE_EQ(kernel_flops(layer_recompute(m, flash(1), Recompute::Selective)).value,
                     k * core);
    // Standard attention does the full square regardless of the mask.
    EXPECT_DOUBLE_EQ(kernel_flops(layer_forward(m, LayerConfig{})).value, gemm + core);
  }
  // The MFU numerator does not change with the kernels.
  const ModelSpec plain = load_model("llama3-8b");
  EXPECT_DOUBLE_EQ(model_flops_per_iteration(plain, 4).value,
                   model_flops_per_iteration(m, 4).value);
}

TEST(FlashAttention, ASlidingWindowComputesOnlyThePairsInsideIt) {
  ModelSpec m = load_model("llama3-8b");  // s = 8192
  const double s = m.sequence, h = m.hidden;
  const double gemm = 2.0 * s * layer_matmul_params(m);
  const double core = 4.0 * s * s * h;
  // A window at least the sequence changes nothing: causal, s²/2 pairs.
  m.attention_window = 8192;
  m.window_layers = m.layers;
  EXPECT_DOUBLE_EQ(kernel_flops(layer_forward(m, flash(1))).value, gemm + 0.5 * core);
  // w = s/4 on every layer: s·w − w²/2 pairs of s², 1/4 − 1/32.
  m.attention_window = 2048;
  const double share = 0.25 - 0.25 * 0.25 / 2;
  EXPECT_DOUBLE_EQ(kernel_flops(layer_forward(m, flash(1))).value, gemm + share * core);
  EXPECT_DOUBLE_EQ(kernel_flops(layer_backward_input(m, flash(1))).value,
                   gemm + 2.5 * share * core);
  // On half the layers (gpt-oss's alternation): the mean of the two kinds.
  m.window_layers = m.layers / 2;
  EXPECT_DOUBLE_EQ(kernel_flops(layer_forward(m, flash(1))).value,
                   gemm + (0.5 * share + 0.5 * 0.5) * core);
  // Unfused attention computes the whole square and masks it.
  EXPECT_DOUBLE_EQ(kernel_flops(layer_forward(m, LayerConfig{})).value, gemm + core);
}

TEST(FlashAttention, TheFusedKernelsSplitOverTheTensorParallelGroup) {
  const ModelSpec m = load_model("llama3-70b");
  for (int t : {1, 2, 4, 8}) {
    EXPECT_DOUBLE_EQ(kernel_flops(layer_forward(m, flash(2, t))).value * t,
                     kernel_flops(layer_forward(m, flash(2, 1))).value);
    EXPECT_DOUBLE_EQ(layer_activation_bytes(m, flash(2, t), Recompute::Selective).value,
                     layer_activation_bytes(m, flash(2, t), Recompute::None).value -
                         4.0 * m.heads * m.sequence * 2 / t);
  }
}

TEST(FlashAttention, MakesLlama3At8kFitOnH100) {
  // 1F1B, 8 stages, no recomputation, b = 1: standard attention keeps 8 micro-batches of
  // 4 layers' scores on the first stage (> 80 GB); flash does not.
  const ModelSpec m = load_model("llama3-8b");
  const hardware::HardwareProfile hw = hardware::load_profile("h100-dgx");
  schedules::ScheduleParams p;
  p.stages = 8;
  p.micro_batches = 16;
  const sim::Schedule s = schedules::make_schedule("1f1b", p);
  cost::TrainingSetup setup;
  setup.attention = Attention::Standard;  // the model file's default is flash
  const cost::TrainingCostModel standard(m, hw, s, setup);
  setup.attention = Attention::Flash;
  const cost::TrainingCostModel fused(m, hw, s, setup);
  EXPECT_GT(8 * standard.stage_memory()[0].activations, hw.gpu.memory_bytes);
  EXPECT_LT(8 * fused.stage_memory()[0].activations + fused.stage_memory()[0].weights * 9,
            hw.gpu.memory_bytes);
}

}  // namespace
}  // namespace pipesim::models
