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
//  - Blocking sync (Schedule::blocking_sync, PyTorch DDP): every stage waits t_AR after its
//    last backward of an update, the same shift on every stage, so for both schemes
//        T = N(t_F + t_B) + t_AR.
//  - Epoch drain (Schedule::drains_each_run): I updates of N micro-batches without a flush
//    are one 1F1B over I·N micro-batches, (I·N + D − 1)(t_F + t_B) with t_AR = 0, reported
//    per update.

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>

#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/lowering.hpp"

namespace pipesim::scenario {
namespace {

Scenario unit(const std::string& schedule, int d, int n, double tf, double tb, double tar) {
  Scenario s;
  s.schedule = schedule;
  s.params.stages = d;
  s.params.micro_batches = n;
  if (schedules::accepts(schedule, "iterations")) {
    s.params.options.set("iterations", std::int64_t{12});
  }
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

double blocking_period(int n, double tf, double tb, double tar) {
  return n * (tf + tb) + tar;
}

Result simulate_blocking(const Scenario& s) {
  sim::Schedule schedule = schedules::make_schedule(s.schedule, s.params);
  schedule.blocking_sync = true;
  return simulate_schedule(s, std::move(schedule), "test");
}

TEST(AsyncSync, BlockingSyncPeriodMatchesTheClosedForm) {
  for (const char* name : {"pipedream", "pipedream-2bw"}) {
    for (const Point& p : kPoints) {
      const Result r = simulate_blocking(unit(name, p.d, p.n, p.tf, p.tb, p.tar));
      EXPECT_NEAR(r.metrics.iteration_time, blocking_period(p.n, p.tf, p.tb, p.tar), 1e-9)
          << name << " D=" << p.d << " N=" << p.n << " t_F=" << p.tf << " t_B=" << p.tb
          << " t_AR=" << p.tar;
    }
  }
  // Blocking never beats the overlapped sync, and costs 2BW its whole overlap.
  EXPECT_GT(blocking_period(4, 1, 2, 8), two_bw_period(4, 1, 2, 8));
}

TEST(AsyncSync, EpochDrainReportsTheWholeRunPerUpdate) {
  for (const char* name : {"pipedream", "pipedream-2bw"}) {
    for (const Point& p : kPoints) {  // t_AR = 0: the closed form is the compute alone
      Scenario s = unit(name, p.d, p.n, p.tf, p.tb, 0);
      s.params.options.set("epoch_drain", true);
      const Result r = simulate(s);
      const auto iterations = static_cast<int>(s.params.options.integer("iterations"));
      const double run = (iterations * p.n + p.d - 1) * (p.tf + p.tb);
      EXPECT_NEAR(r.metrics.total_time, run, 1e-9) << name;
      EXPECT_NEAR(r.metrics.iteration_time, run / iterations, 1e-9) << name;
      EXPECT_NEAR(r.metrics.bubble_ratio, 1.0 - iterations * p.n / (iterations * p.n + p.d - 1.0),
                  1e-12)
          << name;
      s.params.options.set("epoch_drain", false);
      EXPECT_LT(simulate(s).metrics.iteration_time, r.metrics.iteration_time) << name;
    }
  }
}

Scenario real(int w) {
  Scenario s;
  s.schedule = "pipedream";
  s.params.stages = 8;
  s.params.micro_batches = 1;
  s.params.options.set("iterations", std::int64_t{16});
  s.perf.model = "gpt2-1.3b";
  s.perf.hardware = "p100-daint";
  s.perf.setup.micro_batch_size = 2;
  s.perf.setup.data_parallel = w;
  return s;
}

// `s` is refused with an option error whose message contains every one of `words`.
void expect_refused(const Scenario& s, std::initializer_list<const char*> words) {
  try {
    (void)simulate(s);
    ADD_FAILURE() << "accepted";
  } catch (const core::ConfigError& e) {
    EXPECT_TRUE(e.is_option()) << e.what();
    for (const char* w : words)
      EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what();
  }
}

TEST(AsyncSync, PipeDreamPaysTheDataParallelSyncInSteadyState) {
  const Result one = simulate(real(1));
  const Result many = simulate(real(256));
  ASSERT_TRUE(one.perf && many.perf);
  // Per replica, 256 replicas are slower by (at least part of) the gradient all-reduce.
  EXPECT_GT(many.metrics.iteration_time, one.metrics.iteration_time * 1.2);
  EXPECT_LT(many.perf->throughput / 256, one.perf->throughput);
}

TEST(AsyncSync, BlockingSyncIsSlowerPerUpdateAndOnlyForAsynchronousSchedules) {
  for (const char* name : {"pipedream", "pipedream-2bw"}) {
    Scenario s = real(64);
    s.schedule = name;
    s.params.micro_batches = 4;
    const double eager = simulate(s).metrics.iteration_time;
    s.perf.grad_sync = sim::GradSync::Blocking;
    const Result blocking = simulate(s);
    EXPECT_TRUE(blocking.schedule.blocking_sync);
    EXPECT_GT(blocking.metrics.iteration_time, eager) << name;
  }
  Scenario flushing = real(2);
  flushing.schedule = "1f1b";
  flushing.params.options = {};
  flushing.perf.grad_sync = sim::GradSync::Blocking;
  expect_refused(flushing, {"grad_sync", "asynchronous"});
}

TEST(AsyncSync, FlushIsRefusedForAsynchronousSchedules) {
  Scenario s = real(2);
  s.perf.grad_sync = sim::GradSync::Flush;
  expect_refused(s, {"grad_sync", "eager"});
}

}  // namespace
}  // namespace pipesim::scenario
