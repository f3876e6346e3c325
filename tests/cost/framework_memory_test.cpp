// What the paper-era PyTorch stack keeps beyond Korthikanti et al.'s fused-kernel count, and
// stage-wide recomputation, each against a hand formula.

#include <gtest/gtest.h>

#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/transformer.hpp"
#include "schedule_helpers.hpp"

namespace pipesim::cost {
namespace {

using models::LayerConfig;
using models::Recompute;
using testing::one_f_one_b;

TEST(FrameworkMemory, EagerAutogradKeepsSoftmaxInputsAndThePythonGeluIntermediates) {
  // gpt2-1.3b trains in fp32 (e = 4): per layer the softmax input e·as²b more, and the tanh
  // GeLU's tanh(·), 0.5x and 1 + tanh(·), three FFN-wide tensors e·sb·f each.
  const models::ModelSpec m = models::load_model("gpt2-1.3b");
  ASSERT_FALSE(m.gated_mlp);
  const int b = 2;
  const double e = 4, s = m.sequence, a = m.heads, f = m.ffn_hidden, v = m.vocabulary;
  LayerConfig fused;
  fused.micro_batch_size = b;
  LayerConfig eager = fused;
  eager.eager_autograd = true;
  const double extra = e * a * s * s * b + 3 * e * s * b * f;
  EXPECT_DOUBLE_EQ(models::layer_activation_bytes(m, eager, Recompute::None).value -
                       models::layer_activation_bytes(m, fused, Recompute::None).value,
                   extra);
  // What a recomputing stage keeps (the layer input) does not change.
  EXPECT_DOUBLE_EQ(models::layer_activation_bytes(m, eager, Recompute::Full).value,
                   models::layer_activation_bytes(m, fused, Recompute::Full).value);
  // The head: the log_softmax keeps its fp32 input logits beside its output, 4sbV more.
  EXPECT_DOUBLE_EQ(
      models::head_activation_bytes(m, eager).value - models::head_activation_bytes(m, fused).value,
      4 * s * b * v);
}

TEST(FrameworkMemory, StageScopeRecomputationRestoresEveryLayerOfTheStage) {
  const models::ModelSpec m = models::load_model("gpt2-1.3b");
  const hardware::HardwareProfile hw = hardware::load_profile("p100-daint");
  const sim::Schedule sched = one_f_one_b(4, 4);  // 64 layers: 16 per stage
  TrainingSetup setup;
  setup.recompute = Recompute::Full;
  const TrainingCostModel per_layer(m, hw, sched, setup);
  setup.recompute_stage = true;
  const TrainingCostModel per_stage(m, hw, sched, setup);
  const LayerConfig c = layer_config(setup);
  const double one = models::layer_activation_bytes(m, c, Recompute::None).value -
                     models::layer_activation_bytes(m, c, Recompute::Full).value;
  for (size_t st = 0; st < per_stage.stage_memory().size(); ++st) {
    EXPECT_DOUBLE_EQ(per_layer.stage_memory()[st].recompute, one) << st;
    EXPECT_DOUBLE_EQ(per_stage.stage_memory()[st].recompute, 16 * one) << st;
    EXPECT_DOUBLE_EQ(per_stage.stage_memory()[st].activations,
                     per_layer.stage_memory()[st].activations)
        << st;
  }
  // Without recomputation nothing is restored, whatever the scope.
  setup.recompute = Recompute::None;
  const TrainingCostModel none(m, hw, sched, setup);
  for (const sim::StageMemory& sm : none.stage_memory())
    EXPECT_DOUBLE_EQ(sm.recompute, 0.0);
}

TEST(FrameworkMemory, StashWorkingCopyAddsOneWeightCopyToStashingSchedulesOnly) {
  const models::ModelSpec m = models::load_model("gpt2-1.3b");
  const hardware::HardwareProfile hw = hardware::load_profile("p100-daint");
  schedules::ScheduleParams p;
  p.stages = 4;
  p.micro_batches = 4;
  TrainingSetup setup;
  TrainingSetup stash = setup;
  stash.stash_working_copy = true;
  // PipeDream-2BW keeps two versions; its runtime clones both beside the module's weights.
  const sim::Schedule two_bw = schedules::make_schedule("pipedream-2bw", p);
  ASSERT_FALSE(two_bw.weight_versions.empty());
  const TrainingCostModel plain(m, hw, two_bw, setup);
  const TrainingCostModel cloned(m, hw, two_bw, stash);
  for (size_t st = 0; st < plain.stage_memory().size(); ++st) {
    const sim::StageMemory& a = plain.stage_memory()[st];
    const sim::StageMemory& b = cloned.stage_memory()[st];
    EXPECT_DOUBLE_EQ(b.optimizer - a.optimizer, a.weights) << st;  // fp32: 4 B per parameter
    EXPECT_DOUBLE_EQ(b.weights, a.weights) << st;
    EXPECT_DOUBLE_EQ(b.activations, a.activations) << st;
  }
  // A schedule with one version (1F1B) stashes nothing: the setting changes nothing.
  const sim::Schedule flush = one_f_one_b(4, 4);
  const TrainingCostModel one(m, hw, flush, setup);
  const TrainingCostModel one_stash(m, hw, flush, stash);
  for (size_t st = 0; st < one.stage_memory().size(); ++st)
    EXPECT_DOUBLE_EQ(one_stash.stage_memory()[st].optimizer, one.stage_memory()[st].optimizer);
}

}  // namespace
}  // namespace pipesim::cost
