// Metrics on a hand-made schedule, checked against values worked out by hand.

#include "pipesim/sim/metrics.hpp"

#include <gtest/gtest.h>

#include "pipesim/sim/lowering.hpp"

namespace pipesim::sim {
namespace {

TEST(Metrics, TwoStageTwoMicroBatchByHand) {
  // Worker 0: F0 F1 B0 B1; worker 1: F0 B0 F1 B1. t_F = 1, t_B = 2.
  Schedule s = make_linear_schedule("hand", 2, 2);
  using K = OpKind;
  s.program[0] = {{K::Forward, 0, 0, 0, 0},
                  {K::Forward, 0, 0, 0, 1},
                  {K::Backward, 0, 0, 0, 0},
                  {K::Backward, 0, 0, 0, 1}};
  s.program[1] = {{K::Forward, 0, 1, 0, 0},
                  {K::Backward, 0, 1, 0, 0},
                  {K::Forward, 0, 1, 0, 1},
                  {K::Backward, 0, 1, 0, 1}};
  ASSERT_TRUE(validate(s).ok());
  const TaskGraph g = build_task_graph(s);
  const Trace t = simulate(g, UnitCostModel({1, 2, 0, 0}));
  const Metrics m = compute_metrics(s, g, t);
  // w1: F0 [1,2] B0 [2,4] F1 [4,5] B1 [5,7]; w0: F0 [0,1] F1 [1,2] B0 [4,6] B1 [7,9].
  EXPECT_DOUBLE_EQ(m.iteration_time, 9);
  EXPECT_DOUBLE_EQ(m.workers[0].first_start, 0);
  EXPECT_DOUBLE_EQ(m.workers[0].last_end, 9);
  EXPECT_DOUBLE_EQ(m.workers[1].first_start, 1);
  EXPECT_DOUBLE_EQ(m.workers[1].last_end, 7);
  EXPECT_EQ(m.workers[0].peak_activations, 2);
  EXPECT_EQ(m.workers[1].peak_activations, 1);
  EXPECT_DOUBLE_EQ(m.bubble_ratio, 1.0 - 12.0 / 18.0);
}

}  // namespace
}  // namespace pipesim::sim
