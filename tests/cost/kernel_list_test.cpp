// One layer, one formula: the simulator's cost model and the calibration layer check price the
// same kernel list (models/layer_kernels.hpp) with the same function (cost::kernel_time).

#include <gtest/gtest.h>

#include "bare_profile.hpp"
#include "pipesim/calibrate/layer_check.hpp"
#include "pipesim/cost/kernel_time.hpp"
#include "pipesim/cost/tensor_parallel.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::cost {
namespace {

models::KernelList concat(models::KernelList a, const models::KernelList& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

models::KernelList only(const models::KernelList& ks, bool weight_gradient) {
  models::KernelList out;
  for (const auto& k : ks)
    if (k.weight_gradient == weight_gradient) out.push_back(k);
  return out;
}

TEST(KernelList, LayerCheckRowAndSimulatorSeeTheSameGpt2Layer) {
  // A layer-benchmark row for gpt2-1.3b's shape (fp32, as Chimera trained it) parses into the
  // shape whose kernels the simulator prices for that model.
  const models::ModelSpec m = models::load_model("gpt2-1.3b");
  const auto rows = calibrate::parse_layer_times(
      "b,s,h,heads,dtype,direction,kernel,seconds\n"
      "2,632,1280,20,fp32,forward,total,0.01\n"
      "2,632,1280,20,fp32,backward,total,0.02\n",
      "rows.csv");
  models::LayerConfig c;
  c.micro_batch_size = 2;
  const models::KernelList fwd = models::layer_kernels(rows[0].shape, rows[0].direction);
  const models::KernelList bwd = models::layer_kernels(rows[1].shape, rows[1].direction);
  EXPECT_EQ(fwd, models::layer_forward(m, c));
  EXPECT_EQ(only(bwd, false), models::layer_backward_input(m, c));
  EXPECT_EQ(only(bwd, true), models::layer_backward_weight(m, c));
  EXPECT_EQ(fwd.size(), 13u);
  EXPECT_EQ(bwd.size(), 19u);

  // And the same seconds: the cost model's stage of L layers = L × the layer check's forward.
  const hardware::HardwareProfile hw = bare_profile("p100-daint");
  schedules::ScheduleParams p;
  p.stages = 4;
  p.micro_batches = 4;
  TrainingSetup setup;
  setup.micro_batch_size = 2;
  const TrainingCostModel costs(m, hw, schedules::make_schedule("1f1b", p), setup);
  const double L = costs.partition()[1].layers;
  EXPECT_DOUBLE_EQ(
      costs.stage_times()[1].forward,
      L * calibrate::predict_layer_seconds(hw.gpu, rows[0].shape, rows[0].direction, "fp32"));
  const auto check = calibrate::check_layers(hw.gpu, rows);
  EXPECT_DOUBLE_EQ(check.rows[0].predicted * L, costs.stage_times()[1].forward);
}

TEST(KernelList, LlamaLayerIsOneListForTheSimulatorAndTheLayerCheck) {
  const models::ModelSpec m = models::load_model("llama3-8b");
  const hardware::HardwareProfile hw = bare_profile("h100-dgx");
  for (int t : {1, 4}) {
    TrainingSetup setup;
    setup.tensor_parallel = t;
    setup.attention = models::Attention::Flash;
    const models::LayerConfig c = layer_config(setup);
    const models::LayerShape shape = models::layer_shape(m, c);
    const models::KernelList bwd = models::layer_kernels(shape, models::LayerDirection::backward);
    EXPECT_EQ(models::layer_kernels(shape, models::LayerDirection::forward),
              models::layer_forward(m, c));
    EXPECT_EQ(concat(only(bwd, false), only(bwd, true)),
              concat(models::layer_backward_input(m, c), models::layer_backward_weight(m, c)));
    schedules::ScheduleParams p;
    p.stages = 4;
    p.micro_batches = 4;
    const TrainingCostModel costs(m, hw, schedules::make_schedule("1f1b", p), setup);
    const double L = costs.partition()[1].layers;
    const double tp = 2 * tp_collective_time(hw, m, c);
    EXPECT_DOUBLE_EQ(costs.stage_times()[1].forward,
                     L * (calibrate::predict_layer_seconds(
                              hw.gpu, shape, models::LayerDirection::forward, "bf16") +
                          tp));
  }
}

TEST(KernelList, Fp8RunsOnlyTheLinearLayersGemmsInFp8) {
  // Transformer Engine: QKV, projection and MLP GEMMs in fp8; attention, the LM head and the
  // memory-bound kernels in bf16, plus one cast per GEMM input (fp8_test.cpp checks its bytes).
  const models::ModelSpec m = models::load_model("llama3-8b");
  const hardware::HardwareProfile hw = bare_profile("h100-dgx");
  TrainingSetup setup;
  setup.precision = models::Precision::FP8;
  schedules::ScheduleParams p;
  p.stages = 4;
  p.micro_batches = 4;
  const TrainingCostModel costs(m, hw, schedules::make_schedule("1f1b", p), setup);
  models::ModelSpec as_trained = m;
  as_trained.precision = models::Precision::FP8;
  // The kernels the model trains with: its file's attention (flash for llama3-8b).
  const models::KernelList fwd =
      models::layer_forward(as_trained, layer_config(resolved_setup(setup, m)));
  models::KernelList linear, rest;
  for (const auto& k : fwd)
    (k.linear ? linear : rest).push_back(k);
  EXPECT_EQ(linear.size(), 4u);  // qkv, proj, fc1, fc2
  const double L = costs.partition()[1].layers;
  // Each cast reads the bf16 input (2 bytes) and writes fp8 and its transpose (2 bytes).
  for (const auto& k : linear) {
    models::LayerKernel cast;
    cast.op = models::MemoryOp::other;
    cast.bytes = k.m * k.k * 4;
    rest.push_back(cast);
  }
  EXPECT_DOUBLE_EQ(costs.stage_times()[1].forward,
                   L * (kernel_time(linear, hw.gpu, "fp8") + kernel_time(rest, hw.gpu, "bf16")));
  EXPECT_DOUBLE_EQ(costs.peak_flops(), hw.gpu.peak_flops.at("fp8"));
  for (const auto& k : models::head_forward(as_trained, layer_config(setup)))
    EXPECT_FALSE(k.linear) << k.name;
}

}  // namespace
}  // namespace pipesim::cost
