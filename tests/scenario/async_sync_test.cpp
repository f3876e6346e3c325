// Steady-state data-parallel sync of the asynchronous schedules (sim/lowering.cpp): one
// all-reduce per stage and weight update, gated by the PipeDream / PipeDream-2BW rules.
//
// Closed forms, unit costs t_F, t_B, a stage all-reduce t_AR (optimizer free), no p2p delay,
// N micro-batches per update. After warm-up every stage alternates F and B.
//  - PipeDream: O(k) gates the first backward of k+1. Between the last backward of k and the
//    first of k+1 the stream runs one forward, the sync runs t_AR; then N backwards and N−1
//    forwards up to the last backward of k+1:
//        T = (N−1)(t_F + t_B) + t_B + max(t_F, t_AR).
//  - PipeDream-2BW: O(k) gates the last backward of k+1. Between the last backwards of k and
//    k+1 the stream runs N forwards and N−1 backwards, the sync t_AR; then that backward:
//        T = t_B + max(N·t_F + (N−1)·t_B, t_AR).
// Both reduce to N(t_F + t_B) while the sync hides and grow one for one with t_AR after.

#include <gtest/gtest.h>

#include <algorithm>

#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/sim/lowering.hpp"

namespace pipesim::scenario {
namespace {

Scenario unit(const std::string& schedule, int d, int n, double tf, double tb, double tar) {
  Scenario s;
  s.schedule = schedule;
  s.params.stages = d;
  s.params.micro_batches = n;
  s.params.iterations = 12;
  s.unit.forward = tf;
  s.unit.backward = tb;
  s.unit.all_reduce = tar;
  return s;
}

double pipedream_period(int n, double tf, double tb, double tar) {
  return (n - 1) * (tf + tb) + tb + std::max(tf, tar);
}

double two_bw_period(int n, double tf, double tb, double tar) {
  return tb + std::max(n * tf + (n - 1) * tb, tar);
}

struct Point {
  int d, n;
  double tf, tb, tar;
};

// Hidden (t_AR below the slack) and sync-bound points for both schemes.
constexpr Point kPoints[] = {
    {4, 1, 1, 2, 0},  {4, 1, 1, 2, 0.5}, {4, 1, 1, 2, 3},  {4, 1, 1, 2, 20}, {4, 4, 1, 2, 1},
    {4, 4, 1, 2, 3},  {4, 4, 1, 2, 8},   {4, 4, 1, 2, 20}, {8, 8, 1, 1, 5},  {8, 8, 1, 1, 15},
    {8, 8, 1, 1, 40}, {6, 3, 2, 3, 1},   {6, 3, 2, 3, 13}, {6, 3, 2, 3, 30},
};

TEST(AsyncSync, PipeDreamPeriodMatchesTheClosedForm) {
  for (const Point& p : kPoints) {
    const Result r = simulate(unit("pipedream", p.d, p.n, p.tf, p.tb, p.tar));
    EXPECT_NEAR(r.metrics.iteration_time, pipedream_period(p.n, p.tf, p.tb, p.tar), 1e-9)
        << "D=" << p.d << " N=" << p.n << " t_F=" << p.tf << " t_B=" << p.tb << " t_AR=" << p.tar;
  }
}

TEST(AsyncSync, TwoBwPeriodMatchesTheClosedForm) {
  for (const Point& p : kPoints) {
    const Result r = simulate(unit("pipedream-2bw", p.d, p.n, p.tf, p.tb, p.tar));
    EXPECT_NEAR(r.metrics.iteration_time, two_bw_period(p.n, p.tf, p.tb, p.tar), 1e-9)
        << "D=" << p.d << " N=" << p.n << " t_F=" << p.tf << " t_B=" << p.tb << " t_AR=" << p.tar;
  }
}

TEST(AsyncSync, BothRegimesAreExercised) {
  // Hidden: the period is the compute N(t_F + t_B); sync-bound: it grows with t_AR.
  EXPECT_DOUBLE_EQ(pipedream_period(4, 1, 2, 1), 12);
  EXPECT_DOUBLE_EQ(pipedream_period(4, 1, 2, 8), 19);
  EXPECT_DOUBLE_EQ(two_bw_period(4, 1, 2, 8), 12);  // 2BW hides what PipeDream cannot
  EXPECT_DOUBLE_EQ(two_bw_period(4, 1, 2, 20), 22);
}

TEST(AsyncSync, OneAllReducePerStageAndUpdateAndOneStepPerWorkerAndUpdate) {
  for (const char* name : {"pipedream", "pipedream-2bw"}) {
    const Result r = simulate(unit(name, 4, 2, 1, 2, 1));
    size_t reduces = 0, steps = 0;
    for (const sim::Task& t : r.graph.tasks()) {
      reduces += t.kind == sim::OpKind::AllReduce;
      steps += t.kind == sim::OpKind::Optimizer;
    }
    EXPECT_EQ(reduces, 4u * 12u) << name;
    EXPECT_EQ(steps, 4u * 12u) << name;
  }
}

TEST(AsyncSync, FlushingSchedulesKeepOneRoundPerRun) {
  const Result r = simulate(unit("1f1b", 4, 8, 1, 2, 5));
  size_t reduces = 0;
  for (const sim::Task& t : r.graph.tasks())
    reduces += t.kind == sim::OpKind::AllReduce;
  EXPECT_EQ(reduces, 4u);
  // The round is after the flush: (N+D−1)(t_F+t_B) + t_AR.
  EXPECT_DOUBLE_EQ(r.metrics.iteration_time, 33 + 5);
}

Scenario real(int w) {
  Scenario s;
  s.schedule = "pipedream";
  s.params.stages = 8;
  s.params.micro_batches = 1;
  s.params.iterations = 16;
  s.perf.model = "gpt2-1.3b";
  s.perf.hardware = "p100-daint";
  s.perf.setup.micro_batch_size = 2;
  s.perf.setup.data_parallel = w;
  return s;
}

TEST(AsyncSync, PipeDreamPaysTheDataParallelSyncInSteadyState) {
  const Result one = simulate(real(1));
  const Result many = simulate(real(256));
  ASSERT_TRUE(one.perf && many.perf);
  // Per replica, 256 replicas are slower by (at least part of) the gradient all-reduce.
  EXPECT_GT(many.metrics.iteration_time, one.metrics.iteration_time * 1.2);
  EXPECT_LT(many.perf->throughput / 256, one.perf->throughput);
}

TEST(AsyncSync, FlushIsRefusedForAsynchronousSchedules) {
  Scenario s = real(2);
  s.perf.grad_sync = sim::GradSync::Flush;
  try {
    (void)simulate(s);
    FAIL() << "flush accepted";
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("grad_sync"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("eager"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pipesim::scenario
