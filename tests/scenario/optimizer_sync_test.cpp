// optimizer_sync: Zero Bubble's post-validation (each worker steps once its own stages are
// reduced) against a synchronous global all-reduce before every step (Qi et al., ICLR 2024, §4).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "pipesim/core/config_error.hpp"
#include "pipesim/hardware/collectives.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/scenario/scenario.hpp"

namespace pipesim::scenario {
namespace {

Scenario zb(bool all_reduce, const std::string& schedule = "zb-h1") {
  Scenario s;
  s.schedule = schedule;
  s.params.stages = 4;
  s.params.micro_batches = 8;
  s.perf.model = "gpt2-32l";
  s.perf.hardware = "a100-dgx";
  s.perf.setup.data_parallel = 2;  // every stage's all-reduce takes time
  s.perf.optimizer_sync_all_reduce = all_reduce;
  return s;
}

struct Steps {
  double last_reduce = 0;  // latest all-reduce end
  double first_step = 1e300;
  double last_step = 0;
  double step_duration = 0;  // of worker 0
};

Steps steps_of(const Result& r) {
  Steps st;
  for (sim::TaskId id = 0; id < static_cast<sim::TaskId>(r.graph.num_tasks()); ++id) {
    const sim::Task& t = r.graph.task(id);
    const auto& time = r.trace.timing[static_cast<size_t>(id)];
    if (t.kind == sim::OpKind::AllReduce) st.last_reduce = std::max(st.last_reduce, time.end);
    if (t.kind == sim::OpKind::Optimizer) {
      st.first_step = std::min(st.first_step, time.start);
      st.last_step = std::max(st.last_step, time.end);
      if (t.worker == 0) st.step_duration = time.end - time.start;
    }
  }
  return st;
}

TEST(OptimizerSync, AllReduceHoldsEveryStepUntilEveryStageIsReduced) {
  const Result post = simulate(zb(false));
  const Result sync = simulate(zb(true));
  const Steps p = steps_of(post), s = steps_of(sync);
  // Post-validation: some worker steps before the last stage's gradients are reduced (so the
  // barrier below is a real constraint here).
  EXPECT_LT(p.first_step, p.last_reduce);
  // Synchronous: no step starts before every all-reduce has ended.
  EXPECT_GE(s.first_step, s.last_reduce);
  // The compute and the gradient all-reduces are unchanged: the last one ends at the same time.
  EXPECT_DOUBLE_EQ(s.last_reduce, p.last_reduce);
  // Each step also carries the global check: an all-reduce of 8 bytes over all t·D·W GPUs.
  const hardware::HardwareProfile hw = hardware::load_profile("a100-dgx");
  const double check = hardware::all_reduce_time(hw, 8, 1, core::Bytes(8.0)).total().value;
  EXPECT_GT(check, 0.0);
  EXPECT_NEAR(s.step_duration - p.step_duration, check, 1e-12);
  EXPECT_GE(sync.metrics.iteration_time, post.metrics.iteration_time + check - 1e-12);
}

TEST(OptimizerSync, OnlySplitBackwardSchedulesAcceptAllReduce) {
  try {
    simulate(zb(true, "1f1b"));
    FAIL() << "no error";
  } catch (const core::ConfigError& e) {
    EXPECT_EQ(e.field(), "optimizer_sync");
    // The list comes from the registry's split-backward trait.
    EXPECT_NE(e.problem().find("zb-h1"), std::string::npos) << e.problem();
    EXPECT_NE(e.problem().find("not 1f1b"), std::string::npos) << e.problem();
  }
  EXPECT_NO_THROW(simulate(zb(true, "zb-v")));
  EXPECT_NO_THROW(simulate(zb(false, "1f1b")));
}

}  // namespace
}  // namespace pipesim::scenario
