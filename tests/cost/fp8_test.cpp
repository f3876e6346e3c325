// Transformer Engine low-precision recipes (fp8 per-tensor, mxfp8, nvfp4) against hand
// computation: which GEMMs run at the low-precision peak, the bytes of the quantizing casts in
// front of them, the per-iteration weight cast, and the bytes per parameter held.

#include <gtest/gtest.h>

#include "bare_profile.hpp"
#include "pipesim/cost/kernel_time.hpp"
#include "pipesim/cost/stage_compute.hpp"
#include "pipesim/cost/static_memory.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "schedule_helpers.hpp"

namespace pipesim::cost {
namespace {

using models::Precision;
using testing::one_f_one_b;

double cast_bytes(const models::KernelList& casts) {
  double total = 0;
  for (const auto& k : casts)
    total += static_cast<double>(k.bytes);
  return total;
}

TEST(LowPrecision, CastsReadBf16AndWriteBothQuantizedCopiesOfEachGemmInput) {
  const models::ModelSpec m = models::load_model("llama3-8b");  // h 4096, f 14336, a_kv 8
  const double bs = m.sequence, h = m.hidden, f = m.ffn_hidden, qkv = h + 2 * 8 * 128;
  const models::LayerConfig c;
  // Forward inputs of qkv, proj, fc1, fc2; data-gradient inputs dY of fc2, fc1 ([gate|up]),
  // proj, qkv. Weight-gradient GEMMs reuse the column-wise copies.
  const double fwd = bs * (h + h + h + f), bwd = bs * (h + 2 * f + h + qkv);
  for (const auto& [p, q] : {std::pair{Precision::FP8, 1.0},
                             {Precision::MXFP8, 1.0 + 1.0 / 32},
                             {Precision::NVFP4, 0.5 + 1.0 / 16}}) {
    const double per = 2.0 + 2.0 * q;
    EXPECT_NEAR(cast_bytes(low_precision_casts(models::layer_forward(m, c), p)), per * fwd, 8.0);
    EXPECT_NEAR(cast_bytes(low_precision_casts(models::layer_backward_input(m, c), p)), per * bwd,
                8.0);
    EXPECT_TRUE(low_precision_casts(models::layer_backward_weight(m, c), p).empty());
  }
  EXPECT_TRUE(low_precision_casts(models::layer_forward(m, c), Precision::BF16).empty());
}

TEST(LowPrecision, BlackwellFormatsRunTheLinearGemmsAtTheirOwnPeak) {
  const models::ModelSpec m = models::load_model("llama3-8b");
  const hardware::HardwareProfile hw = bare_profile("gb200-nvl72");
  const sim::Schedule sched = one_f_one_b(4, 4);
  for (const auto& [p, name, q] : {std::tuple{Precision::MXFP8, "mxfp8", 1.0 + 1.0 / 32},
                                   {Precision::NVFP4, "nvfp4", 0.5 + 1.0 / 16},
                                   {Precision::FP8, "fp8", 1.0}}) {
    TrainingSetup setup;
    setup.precision = p;
    const TrainingCostModel costs(m, hw, sched, setup);
    EXPECT_DOUBLE_EQ(costs.peak_flops(), hw.gpu.peak_flops.at(name));
    models::ModelSpec trained = m;
    trained.precision = p;
    // The model file's attention (flash for llama3-8b), as the cost model resolves it.
    const models::KernelList fwd =
        models::layer_forward(trained, layer_config(resolved_setup(setup, m)));
    models::KernelList low, rest;
    for (const auto& k : fwd)
      (k.linear ? low : rest).push_back(k);
    for (const auto& k : low) {
      models::LayerKernel cast;
      cast.op = models::MemoryOp::other;
      cast.bytes = static_cast<std::int64_t>(static_cast<double>(k.m * k.k) * (2 + 2 * q));
      rest.push_back(cast);
    }
    const double L = costs.partition()[1].layers;
    EXPECT_NEAR(costs.stage_times()[1].forward,
                L * (kernel_time(low, hw.gpu, name) + kernel_time(rest, hw.gpu, "bf16")), 1e-12);
    // Weights: bf16 + two quantized copies; gradients fp32; optimizer fp32 master + Adam.
    const double params = costs.stage_memory()[1].gradients / 4;
    EXPECT_NEAR(costs.stage_memory()[1].weights, params * (2 + 2 * q), 1e-6 * params);
    EXPECT_DOUBLE_EQ(costs.stage_memory()[1].optimizer, params * 12);
  }
}

TEST(LowPrecision, TheOptimizerStepQuantizesTheWeightsOncePerIteration) {
  const models::ModelSpec m = models::load_model("llama3-8b");
  const hardware::HardwareProfile hw = testing::at_hbm_bandwidth("h100-dgx");
  const sim::Schedule sched = one_f_one_b(4, 4);
  TrainingSetup bf16, fp8;
  bf16.precision = Precision::BF16;
  fp8.precision = Precision::FP8;
  const TrainingCostModel a(m, hw, sched, bf16), b(m, hw, sched, fp8);
  const double params = a.stage_memory()[1].gradients / 4;
  // The step's passes (optimizer_step_bytes: the same for bf16 and fp8), and for fp8 the cast
  // of the updated weights: read bf16 (2), write two fp8 copies (2q = 2) per parameter.
  const double bw = hw.gpu.hbm_bandwidth;
  const double step = optimizer_step_bytes(Precision::BF16, param_bytes(Precision::BF16));
  EXPECT_EQ(optimizer_step_bytes(Precision::FP8, param_bytes(Precision::FP8)), step);
  EXPECT_NEAR(a.compute().optimizer(1), params * step / bw, 1e-9);
  EXPECT_NEAR(b.compute().optimizer(1), params * (step + 2 + 2) / bw, 1e-9);
}

// Delayed scaling: every forward and every backward of a model chunk ends in a synchronous
// all-reduce of its amaxes over the stage's t·c·d ranks, a message of bytes priced at the fastest
// algorithm: for 16 ranks on two 8-GPU nodes, Rabenseifner's 2·log2(16) inter-node latencies
// (the tree's 2·(7 intra + 1 inter) and the rings are slower). Not for bf16; nothing for one rank.
TEST(LowPrecision, DelayedScalingAllReducesTheAmaxesOncePerChunkForwardAndBackward) {
  const models::ModelSpec m = models::load_model("llama3-8b");
  const hardware::HardwareProfile hw = bare_profile("h100-dgx");
  ASSERT_EQ(hw.gpus_per_node, 8);
  const sim::Schedule sched = one_f_one_b(4, 4);
  for (const Precision p : {Precision::FP8, Precision::BF16}) {
    TrainingSetup one, sixteen;
    one.precision = sixteen.precision = p;
    sixteen.data_parallel = 16;
    const TrainingCostModel a(m, hw, sched, one), b(m, hw, sched, sixteen);
    const double L = a.partition()[1].layers;
    // Four GEMMs a layer (QKV, projection, FC1, FC2), fp32 amaxes: 3 each forward, 2 backward.
    for (const auto& [kind, amaxes] :
         {std::pair{sim::OpKind::Forward, 3.0}, {sim::OpKind::Backward, 2.0}}) {
      const double bytes = 4 * amaxes * 4 * L;
      const double rabenseifner =
          2 * 4 * hw.inter_node.alpha + 2 * 15.0 / 16 * bytes / hw.inter_node.effective_beta();
      EXPECT_NEAR(b.compute().kernels(1, kind) - a.compute().kernels(1, kind),
                  p == Precision::FP8 ? rabenseifner : 0.0, 1e-12)
          << models::precision_name(p);
    }
  }
}

}  // namespace
}  // namespace pipesim::cost
