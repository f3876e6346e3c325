// Megatron-Core's data-parallel overlap end to end (scenario::simulate): one bucket per stage
// reproduces the eager sync exactly, more buckets hide part of it behind the last backward,
// the gather overlap hides more, and the options are refused where they cannot apply.

#include <gtest/gtest.h>

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/scenario.hpp"

namespace pipesim::scenario {
namespace {

Scenario run(bool reduce, bool gather, double bucket_bytes) {
  Scenario s;
  s.schedule = "1f1b";
  s.params.stages = 4;
  s.params.micro_batches = 8;
  s.perf.model = "gpt2-1.3b";
  s.perf.hardware = "a100-dgx";
  s.perf.setup.data_parallel = 16;
  s.perf.setup.distributed_optimizer = gather;
  s.perf.setup.overlap_grad_reduce = reduce;
  s.perf.setup.overlap_param_gather = gather;
  s.perf.setup.grad_bucket_bytes = bucket_bytes;
  return s;
}

TEST(OverlapSync, OneBucketPerStageIsTheEagerSync) {
  // A bucket as large as the stage: its only bucket follows the last backward's end, one call
  // on all the gradients, as the eager sync (no distributed optimizer: nothing else moves).
  const Result off = simulate(run(false, false, 2e9));
  const Result on = simulate(run(true, false, 2e9));
  EXPECT_EQ(on.metrics.iteration_time, off.metrics.iteration_time);
}

TEST(OverlapSync, BucketsHidePartOfTheSyncAndNeverCostTime) {
  const Result off = simulate(run(false, false, 0));
  const Result on = simulate(run(true, false, 32e6));
  EXPECT_LT(on.metrics.iteration_time, off.metrics.iteration_time);
  Scenario zero = run(false, false, 0);
  zero.perf.setup.data_parallel = 1;  // no data-parallel sync at all: the bound below
  const Result none = simulate(zero);
  EXPECT_GT(on.metrics.iteration_time, none.metrics.iteration_time);
}

TEST(OverlapSync, GatherOverlapHidesTheAllGatherBehindTheFirstForward) {
  Scenario apart = run(true, false, 32e6);
  apart.perf.setup.distributed_optimizer = true;
  const Result a = simulate(apart);
  const Result g = simulate(run(true, true, 32e6));
  EXPECT_LT(g.metrics.iteration_time, a.metrics.iteration_time);
}

TEST(OverlapSync, RefusedWhereItCannotApply) {
  Scenario no_dist = run(true, true, 0);
  no_dist.perf.setup.distributed_optimizer = false;
  EXPECT_THROW(simulate(no_dist), core::ConfigError);
  Scenario flushed = run(true, false, 0);
  flushed.perf.grad_sync = sim::GradSync::Flush;
  EXPECT_THROW(simulate(flushed), core::ConfigError);
  Scenario async = run(true, true, 0);
  async.schedule = "pipedream";
  EXPECT_THROW(simulate(async), core::ConfigError);
}

}  // namespace
}  // namespace pipesim::scenario
