// Static memory by precision (fp32 16 B/param without a master copy; mixed precision with fp32
// master + Adam), the distributed optimizer's sharding and its reduce-scatter + all-gather.

#include "pipesim/cost/static_memory.hpp"

#include <gtest/gtest.h>

#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/sim/lowering.hpp"
#include "schedule_helpers.hpp"

namespace pipesim::cost {
namespace {

using models::Precision;

using testing::one_f_one_b;

TEST(StaticMemory, BytesPerParameterByPrecision) {
  const ParamBytes fp32 = param_bytes(Precision::FP32);
  EXPECT_EQ(fp32.weights, 4);
  EXPECT_EQ(fp32.gradients, 4);
  EXPECT_EQ(fp32.optimizer, 8);  // Adam m, v; the fp32 weights are the master copy
  EXPECT_EQ(param_bytes(Precision::FP16).total(), 16);  // 2 + 2 + 12 (ZeRO §3.1)
  EXPECT_EQ(param_bytes(Precision::BF16).total(), 18);  // 2 + 4 fp32 grads + 12 (Megatron)
  EXPECT_EQ(param_bytes(Precision::FP8).total(), 20);   // bf16's + fp8 weight and its transpose
  // Block scales: one byte per 32 (mxfp8), per 16 (nvfp4) elements, on both copies.
  EXPECT_DOUBLE_EQ(param_bytes(Precision::MXFP8).total(), 18 + 2 * (1 + 1.0 / 32));
  EXPECT_DOUBLE_EQ(param_bytes(Precision::NVFP4).total(), 18 + 2 * (0.5 + 1.0 / 16));
  const ParamBytes user = param_bytes(Precision::FP16, 20);  // explicit override
  EXPECT_EQ(user.weights, 2);
  EXPECT_EQ(user.gradients, 2);
  EXPECT_EQ(user.optimizer, 16);
}

TEST(StaticMemory, OptimizerStepBytesCountEveryPassOverTheParameters) {
  // fp32, no master copy: Adam reads and writes m and v (2 x 8), reads the gradient (4) and
  // writes the weight (4).
  EXPECT_EQ(optimizer_step_bytes(Precision::FP32, param_bytes(Precision::FP32)), 24);
  // fp16: cast the gradients (2 + 4), unscale in place (4 + 4), the norm (4), Adam on master,
  // m, v with the fp32 gradient (24 + 4), cast the master copy back (4 + 2).
  EXPECT_EQ(optimizer_step_bytes(Precision::FP16, param_bytes(Precision::FP16)),
            6 + 8 + 4 + 28 + 6);
  // bf16: the main gradients already are fp32 and there is no loss scale.
  EXPECT_EQ(optimizer_step_bytes(Precision::BF16, param_bytes(Precision::BF16)), 4 + 28 + 6);
  // fp8 keeps bf16's optimizer: the cached fp8 weight is not part of the step.
  EXPECT_EQ(optimizer_step_bytes(Precision::FP8, param_bytes(Precision::FP8)),
            optimizer_step_bytes(Precision::BF16, param_bytes(Precision::BF16)));
  // Mixed precision moves more than the Adam update alone (2 x opt + g + w).
  const ParamBytes fp16 = param_bytes(Precision::FP16);
  EXPECT_GT(optimizer_step_bytes(Precision::FP16, fp16),
            2 * fp16.optimizer + fp16.gradients + fp16.weights);
}

TEST(StaticMemory, ChimeraModelsTrainInFp32AndThePrecisionCanBeOverridden) {
  const models::ModelSpec m = models::load_model("gpt2-32l");
  ASSERT_EQ(m.precision, Precision::FP32);
  const hardware::HardwareProfile hw = hardware::load_profile("p100-daint");
  const sim::Schedule s = one_f_one_b(4, 4);
  TrainingSetup setup;
  const TrainingCostModel fp32(m, hw, s, setup);
  const sim::StageMemory& a = fp32.stage_memory()[1];
  EXPECT_DOUBLE_EQ(a.gradients, a.weights);
  EXPECT_DOUBLE_EQ(a.optimizer, 2 * a.weights);
  EXPECT_DOUBLE_EQ(fp32.peak_flops(), hw.gpu.peak_flops.at("fp32"));
  setup.precision = Precision::FP16;
  const TrainingCostModel fp16(m, hw, s, setup);
  const sim::StageMemory& b = fp16.stage_memory()[1];
  EXPECT_DOUBLE_EQ(b.weights, a.weights / 2);
  EXPECT_DOUBLE_EQ(b.optimizer, 6 * b.weights);
  EXPECT_DOUBLE_EQ(fp16.peak_flops(), hw.gpu.peak_flops.at("fp16"));
  EXPECT_LT(b.activations, a.activations);
}

TEST(StaticMemory, DistributedOptimizerShardsTheStateAndSplitsTheSync) {
  const models::ModelSpec m = models::load_model("gpt3-175b");  // bf16
  const hardware::HardwareProfile hw = hardware::load_profile("a100-dgx");
  const sim::Schedule s = one_f_one_b(8, 16);
  TrainingSetup setup;
  setup.data_parallel = 4;
  setup.tensor_parallel = 8;
  const TrainingCostModel plain(m, hw, s, setup);
  setup.distributed_optimizer = true;
  const TrainingCostModel sharded(m, hw, s, setup);
  for (size_t st = 0; st < plain.stage_memory().size(); ++st) {
    const sim::StageMemory &a = plain.stage_memory()[st], &b = sharded.stage_memory()[st];
    EXPECT_DOUBLE_EQ(b.weights, a.weights);
    EXPECT_DOUBLE_EQ(b.gradients, a.gradients);
    EXPECT_DOUBLE_EQ(b.optimizer, a.optimizer / 4);  // 12 B/param over W = 4
    EXPECT_DOUBLE_EQ(a.optimizer, 6 * a.weights);
  }
  // Sync: reduce-scatter of fp32 gradients (4 B) + all-gather of bf16 parameters (2 B) = half of
  // an all-reduce of 6 B = 0.75 × the all-reduce of the 4-byte gradients.
  const sim::TaskGraph g = sim::build_task_graph(s);
  int seen = 0;
  for (sim::TaskId t = 0; t < g.num_tasks(); ++t) {
    if (g.task(t).kind != sim::OpKind::AllReduce) continue;
    const sim::Flow fa = plain.flow(g, t), fb = sharded.flow(g, t);
    EXPECT_NEAR(fb.work, 0.75 * fa.work, 1e-12 * fa.work);
    EXPECT_NEAR(fb.latency, fa.latency, 1e-15);  // two halves of the same algorithm
    ++seen;
  }
  EXPECT_EQ(seen, 8);
}

TEST(StaticMemory, ProfileMemoryOverheadsRaiseEveryTotal) {
  sim::WorkerMemory w;
  w.static_memory.weights = 10;
  w.peak = 40;
  w.at_peak.activations = 30;
  w.at_peak.weights = 10;
  w.minimum = w.final = 10;
  w.timeline = {{0, 10}, {1, 40}};
  std::vector<sim::WorkerMemory> ws{w};
  apply_memory_overheads(ws, hardware::MemoryOverhead{5, 0.5});
  EXPECT_DOUBLE_EQ(ws[0].peak, 40 + 5 + 20);
  EXPECT_DOUBLE_EQ(ws[0].at_peak.total(), ws[0].peak);
  EXPECT_DOUBLE_EQ(ws[0].static_memory.total(), 10 + 5 + 5);
  EXPECT_DOUBLE_EQ(ws[0].final, ws[0].static_memory.total());
  EXPECT_DOUBLE_EQ(ws[0].timeline[1].bytes, ws[0].peak);
}

}  // namespace
}  // namespace pipesim::cost
