// with_recomputation: an R right before every backward (B, or I when split), valid schedules,
// and each R costs one forward.

#include "pipesim/schedules/recompute.hpp"

#include <gtest/gtest.h>

#include "../support/run_helpers.hpp"

namespace pipesim {
namespace {

TEST(Recompute, InsertsOneRBeforeEachBackwardAndStaysValid) {
  for (const char* name : {"gpipe", "1f1b", "zb-h1", "interleaved", "chimera"}) {
    schedules::ScheduleParams p;
    p.stages = 4;
    p.micro_batches = 8;
    const sim::Schedule base = schedules::make_schedule(name, p);
    const sim::Schedule s = schedules::with_recomputation(base);
    EXPECT_TRUE(s.recompute);
    const sim::OpKind backward =
        s.split_backward ? sim::OpKind::BackwardInput : sim::OpKind::Backward;
    for (size_t w = 0; w < s.program.size(); ++w) {
      const auto& ops = s.program[w];
      size_t backwards = 0, recomputes = 0;
      for (size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].kind == sim::OpKind::Recompute) {
          ++recomputes;
          ASSERT_LT(i + 1, ops.size());
          EXPECT_EQ(ops[i + 1].kind, backward);
          EXPECT_EQ(ops[i + 1].micro_batch, ops[i].micro_batch);
          EXPECT_EQ(ops[i + 1].stage, ops[i].stage);
        }
        if (ops[i].kind == backward) ++backwards;
      }
      EXPECT_EQ(recomputes, backwards);
      EXPECT_EQ(ops.size(), base.program[w].size() + recomputes);
    }
    const core::Check v = sim::validate(s);
    EXPECT_TRUE(v.ok()) << name << ": " << (v.ok() ? "" : v.problem().what());
    // Applying it twice changes nothing.
    EXPECT_EQ(schedules::with_recomputation(s).program, s.program);
  }
}

TEST(Recompute, AddsOneForwardPerBackwardToBusyTime) {
  schedules::ScheduleParams p;
  p.stages = 4;
  p.micro_batches = 8;
  const sim::Schedule s = schedules::with_recomputation(schedules::make_schedule("1f1b", p));
  const sim::TaskGraph g = sim::build_task_graph(s);
  const sim::UnitCostModel costs({1, 2, 0, 0});
  const sim::Trace t = sim::simulate(g, costs);
  const sim::Metrics m = sim::compute_metrics(s, g, t);
  for (const auto& w : m.workers)
    EXPECT_DOUBLE_EQ(w.busy, 8 * (1 + 1 + 2));
}

}  // namespace
}  // namespace pipesim
