// The cost model reads a hand-written layout (models/layout.hpp): each virtual stage's time and
// memory follow the layers the layout gives it; an empty stage costs nothing.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "bare_profile.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::cost {
namespace {

struct Fixture {
  models::ModelSpec m = models::load_model("gpt2-32l");
  hardware::HardwareProfile hw = bare_profile("a100-dgx");
  sim::Schedule schedule = [] {
    schedules::ScheduleParams p;
    p.stages = 4;
    p.micro_batches = 4;
    return schedules::make_schedule("1f1b", p);
  }();
  TrainingCostModel costs(const std::string& layout) const {
    TrainingSetup setup;
    setup.layout = layout;
    return TrainingCostModel(m, hw, schedule, setup);
  }
};

TEST(LayoutCost, MiddleStagesScaleWithTheirLayerCount) {
  const Fixture f;
  const TrainingCostModel uniform = f.costs("");  // 8 layers per stage
  const TrainingCostModel custom = f.costs("Et*10|t*6|t*4|t*12L");
  ASSERT_EQ(uniform.partition()[1].layers, 8);
  // Stages 1 and 2 hold layers only, so time and memory are per layer × count.
  for (int s : {1, 2}) {
    const double ratio = custom.partition()[static_cast<size_t>(s)].layers / 8.0;
    const auto& u = uniform.stage_times()[static_cast<size_t>(s)];
    const auto& c = custom.stage_times()[static_cast<size_t>(s)];
    EXPECT_NEAR(c.forward, ratio * u.forward, 1e-12 * u.forward) << s;
    EXPECT_NEAR(c.backward_input, ratio * u.backward_input, 1e-12 * u.backward_input) << s;
    EXPECT_NEAR(c.backward_weight, ratio * u.backward_weight, 1e-12 * u.backward_weight) << s;
    const auto& um = uniform.stage_memory()[static_cast<size_t>(s)];
    const auto& cm = custom.stage_memory()[static_cast<size_t>(s)];
    EXPECT_NEAR(cm.weights, ratio * um.weights, 1e-9 * um.weights) << s;
    EXPECT_NEAR(cm.activations, ratio * um.activations, 1e-9 * um.activations) << s;
  }
  // The end stages keep the embedding and the head: (their time − the layers') is the same.
  const double per_layer = uniform.stage_times()[1].forward / 8;
  EXPECT_NEAR(custom.stage_times()[0].forward - 10 * per_layer,
              uniform.stage_times()[0].forward - 8 * per_layer, 1e-9);
  EXPECT_NEAR(custom.stage_times()[3].forward - 12 * per_layer,
              uniform.stage_times()[3].forward - 8 * per_layer, 1e-9);
}

TEST(LayoutCost, EmptyStagesCostNothing) {
  const Fixture f;
  const TrainingCostModel c = f.costs("Et*16||,|t*16L");
  for (size_t s : {1u, 2u}) {
    EXPECT_EQ(c.partition()[s].layers, 0);
    EXPECT_EQ(c.stage_times()[s].forward, 0.0);
    EXPECT_EQ(c.stage_times()[s].backward_input, 0.0);
    EXPECT_EQ(c.stage_memory()[s].weights, 0.0);
    EXPECT_EQ(c.stage_memory()[s].activations, 0.0);
  }
  EXPECT_GT(c.stage_times()[0].forward, 0.0);
}

TEST(LayoutCost, LayoutAndANonUniformPartitionAreExclusive) {
  const Fixture f;
  TrainingSetup setup;
  setup.layout = "Et*8|t*8|t*8|t*8L";
  setup.partition = models::PartitionMode::Balanced;
  try {
    TrainingCostModel(f.m, f.hw, f.schedule, setup);
    FAIL() << "no error";
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.field(), "layout");
  }
}

// A layout places DeepSeek-V3's multi-token prediction module (`m`) where it says: on the last
// stage it prices as the partition does (the module after the last layer, one more head pass);
// on a stage of its own it carries its layer, and the stages' times add up to the same.
TEST(LayoutCost, MtpModulesArePricedOnTheStageTheLayoutGivesThem) {
  const models::ModelSpec m = models::load_model("deepseek-v3");
  ASSERT_EQ(m.mtp_layers, 1);
  const hardware::HardwareProfile hw = bare_profile("h800-dgx");
  const auto costs = [&](int stages, const std::string& layout) {
    schedules::ScheduleParams p;
    p.stages = stages;
    p.micro_batches = stages;
    TrainingSetup setup;
    setup.layout = layout;
    return TrainingCostModel(m, hw, schedules::make_schedule("1f1b", p), setup);
  };
  const TrainingCostModel split = costs(2, "");
  const int first = split.partition()[0].layers;
  const int rest = m.layers - first;
  ASSERT_EQ(split.partition()[1].layers, rest + 1);  // the module after the last layer
  const TrainingCostModel last = costs(2, fmt::format("Et*{}|t*{}mL", first, rest));
  for (size_t s : {0u, 1u}) {
    EXPECT_EQ(last.partition()[s].first_layer, split.partition()[s].first_layer) << s;
    EXPECT_EQ(last.partition()[s].layers, split.partition()[s].layers) << s;
    EXPECT_DOUBLE_EQ(last.stage_times()[s].forward, split.stage_times()[s].forward) << s;
    EXPECT_DOUBLE_EQ(last.stage_times()[s].backward_input, split.stage_times()[s].backward_input)
        << s;
    EXPECT_DOUBLE_EQ(last.stage_memory()[s].weights, split.stage_memory()[s].weights) << s;
  }
  const TrainingCostModel apart = costs(3, fmt::format("Et*{}|t*{}|mL", first, rest));
  EXPECT_EQ(apart.partition()[1].layers, rest);
  EXPECT_EQ(apart.partition()[2].first_layer, m.layers);
  EXPECT_EQ(apart.partition()[2].layers, 1);
  const double together = last.stage_times()[1].forward;
  EXPECT_NEAR(apart.stage_times()[1].forward + apart.stage_times()[2].forward, together,
              1e-9 * together);
  EXPECT_NEAR(apart.stage_memory()[1].weights + apart.stage_memory()[2].weights,
              last.stage_memory()[1].weights, 1e-9 * last.stage_memory()[1].weights);
}

}  // namespace
}  // namespace pipesim::cost
