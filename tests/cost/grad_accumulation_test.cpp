// Unfused gradient accumulation (Megatron-LM's 2021 local DDP hook): one memory-bound pass per
// micro-batch over the stage's weight gradients, priced in the weight-gradient part of the
// backward, against hand computation.

#include <gtest/gtest.h>

#include "pipesim/cost/static_memory.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "schedule_helpers.hpp"

namespace pipesim::cost {
namespace {

using testing::one_f_one_b;

TEST(GradAccumulation, AddsOnePassOverTheStageGradientsToEachBackward) {
  const models::ModelSpec m = models::load_model("megatron-gpt-1.7b");
  const hardware::HardwareProfile hw = testing::at_hbm_bandwidth("a100-dgx");
  const sim::Schedule sched = one_f_one_b(4, 8);
  TrainingSetup fused, unfused;
  fused.precision = unfused.precision = models::Precision::FP16;
  fused.tensor_parallel = unfused.tensor_parallel = 2;
  unfused.unfused_grad_accumulation = true;
  const TrainingCostModel a(m, hw, sched, fused), b(m, hw, sched, unfused);
  const double grad = param_bytes(models::Precision::FP16).gradients;
  ASSERT_EQ(grad, 2.0);  // the runs keep the buffer in the gradients' fp16
  for (int s = 0; s < 4; ++s) {
    // Read the gradient and the buffer, write the buffer: 3 x 2 bytes per parameter.
    const double params = a.stage_memory()[static_cast<size_t>(s)].gradients / grad;
    const double pass = 3 * grad * params / hw.gpu.hbm_bandwidth;
    for (const auto kind : {sim::OpKind::Backward, sim::OpKind::BackwardWeight}) {
      EXPECT_NEAR(b.compute().kernels(s, kind) - a.compute().kernels(s, kind), pass, 1e-12) << s;
    }
    for (const auto kind : {sim::OpKind::Forward, sim::OpKind::BackwardInput}) {
      EXPECT_EQ(b.compute().kernels(s, kind), a.compute().kernels(s, kind)) << s;
    }
    EXPECT_EQ(b.compute().optimizer(s), a.compute().optimizer(s)) << s;
  }
}

}  // namespace
}  // namespace pipesim::cost
