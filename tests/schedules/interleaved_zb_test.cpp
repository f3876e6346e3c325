// Interleaved zero bubble (interleaved-zb, PyTorch's ScheduleInterleavedZeroBubble) against the
// order PyTorch's rank-ops builder gives by hand, against zb-h1 (its one-chunk case), its idle
// time and peak activations in closed form, and against Megatron's interleaved schedule.

#include <gtest/gtest.h>

#include <algorithm>

#include "../support/run_helpers.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim {
namespace {

using schedules::ScheduleParams;

ScheduleParams params(int d, int n, int v) {
  return testing::chunked_params(d, n, v);
}

sim::Op op(sim::OpKind kind, int stage, int mb) {
  return {kind, 0, stage, stage / 2, mb};
}
sim::Op f(int stage, int mb) {
  return op(sim::OpKind::Forward, stage, mb);
}
sim::Op i(int stage, int mb) {
  return op(sim::OpKind::BackwardInput, stage, mb);
}
sim::Op w(int stage, int mb) {
  return op(sim::OpKind::BackwardWeight, stage, mb);
}

// PyTorch's _calculate_single_rank_operations for D = 2, N = 2, v = 2, worked by hand (no-op
// padding left out): rounds of m = 2, warm-up (v−1)m + D−1−rank forwards, then forward/I pairs,
// then the last I's; rank 1 holds back the W of its first backward.
TEST(InterleavedZb, OrderIsPyTorchsInterleavedZeroBubble) {
  const sim::Schedule s = schedules::make_schedule("interleaved-zb", params(2, 2, 2));
  EXPECT_TRUE(s.split_backward);
  EXPECT_EQ(s.stage_worker[0], (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(s.program[0],
            (std::vector<sim::Op>{f(0, 0), f(0, 1), f(2, 0), f(2, 1), i(2, 0), w(2, 0), i(2, 1),
                                  w(2, 1), i(0, 0), w(0, 0), i(0, 1), w(0, 1)}));
  EXPECT_EQ(s.program[1],
            (std::vector<sim::Op>{f(1, 0), f(1, 1), f(3, 0), i(3, 0), f(3, 1), i(3, 1), w(3, 0),
                                  i(1, 0), w(3, 1), i(1, 1), w(1, 0), w(1, 1)}));
}

// With one chunk per worker the forwards and input gradients come in zb-h1's order (warm-up
// D−1−w forwards and the first pair's); the W's differ in order only: PyTorch's trail the I's by
// w backwards, first in first out, where zb-h1 keeps the first w W's for the end.
TEST(InterleavedZb, OneChunkRunsZbH1sForwardsAndInputsWeightsFirstInFirstOut) {
  const auto without_weights = [](std::vector<sim::Op> ops) {
    std::erase_if(ops, [](const sim::Op& o) { return o.kind == sim::OpKind::BackwardWeight; });
    return ops;
  };
  for (int d : {1, 2, 3, 4, 8}) {
    for (int n : {1, 2, d, 2 * d, 3 * d}) {
      SCOPED_TRACE(::testing::Message() << "D=" << d << " N=" << n);
      const sim::Schedule ours = schedules::make_schedule("interleaved-zb", params(d, n, 1));
      ScheduleParams h1;
      h1.stages = d;
      h1.micro_batches = n;
      const sim::Schedule theirs = schedules::make_schedule("zb-h1", h1);
      for (size_t w = 0; w < static_cast<size_t>(d); ++w) {
        EXPECT_EQ(without_weights(ours.program[w]), without_weights(theirs.program[w]));
        int next = 0, inputs = 0;
        for (const sim::Op& o : ours.program[w]) {
          if (o.kind == sim::OpKind::BackwardInput) ++inputs;
          if (o.kind != sim::OpKind::BackwardWeight) continue;
          EXPECT_EQ(o.micro_batch, next++);
          // Its I came w backwards earlier, or the I's have all run.
          EXPECT_TRUE(inputs - o.micro_batch - 1 == static_cast<int>(w) || inputs == n);
        }
      }
    }
  }
}

// Unit costs (a chunk's pass takes t/v): every worker idles (D−1)(t_F + t_I − t_W)/v, zb-h1's
// idle (Qi et al., Table 2) over v chunks as interleaving divides the bubble, with the paper's
// convention (cost = the longest per-worker span, idle = cost − busy).
TEST(InterleavedZb, IdlePerWorkerIsZbH1sOverTheChunks) {
  struct Costs {
    double f, i, w;
  };
  for (int d : {2, 3, 4, 6, 8}) {
    for (int n : {d, 2 * d, 3 * d}) {
      for (int v : {1, 2, 3, 4}) {
        for (Costs c : {Costs{1, 1, 1}, Costs{2, 2, 1}, Costs{1, 2, 1}, Costs{2, 1, 1},
                        Costs{3, 3, 2}, Costs{1, 1, 0.5}}) {
          SCOPED_TRACE(::testing::Message() << "D=" << d << " N=" << n << " v=" << v << " F=" << c.f
                                            << " I=" << c.i << " W=" << c.w);
          const auto r =
              testing::run_unit("interleaved-zb", params(d, n, v), {c.f, c.i + c.w, c.w, 0});
          double cost = 0.0;
          for (const auto& worker : r.metrics.workers)
            cost = std::max(cost, worker.last_end - worker.first_start);
          for (const auto& worker : r.metrics.workers)
            EXPECT_NEAR(cost - worker.busy, (d - 1) * (c.f + c.i - c.w) / v, 1e-9 * cost);
        }
      }
    }
  }
}

// Every chunk's passes run in micro-batch order, each W after its own I, and each worker's
// forwards and I's step through the chunks in rounds of m = N / max(1, N/D).
TEST(InterleavedZb, ChunksGoInRoundsEachPassInOrder) {
  for (int d : {2, 3, 4}) {
    for (int n : {1, 3, d, 2 * d, 10, 12}) {
      for (int v : {2, 3}) {
        const ScheduleParams p = params(d, n, v);
        if (!schedules::check_params("interleaved-zb", p).ok()) continue;
        SCOPED_TRACE(::testing::Message() << "D=" << d << " N=" << n << " v=" << v);
        const int round = n / std::max(1, n / d);
        const sim::Schedule s = schedules::make_schedule("interleaved-zb", p);
        for (const auto& prog : s.program) {
          ASSERT_EQ(prog.size(), static_cast<size_t>(3 * n * v));
          std::vector<int> next(static_cast<size_t>(3 * v));
          int forwards = 0, inputs = 0;
          for (const sim::Op& o : prog) {
            const int kind = o.kind == sim::OpKind::Forward         ? 0
                             : o.kind == sim::OpKind::BackwardInput ? 1
                                                                    : 2;
            EXPECT_EQ(o.micro_batch, next[static_cast<size_t>(kind * v + o.chunk)]++);
            if (kind == 0) {
              EXPECT_EQ(o.chunk, (forwards++ / round) % v);
            } else if (kind == 1) {
              EXPECT_EQ(o.chunk, v - 1 - (inputs++ / round) % v);
            } else {  // a W after its own I
              EXPECT_LT(o.micro_batch, next[static_cast<size_t>(v + o.chunk)]);
            }
          }
        }
      }
    }
  }
}

// Worker w holds (v−1)m + D−1−w warm-up sets, one more per forward and one less per W once its
// w deferred W's are past: (v−1)m + D chunk activation sets on every worker, at most all vN.
// Megatron's interleaved holds (v−1)D + 2(D−1−w) + 1 on worker w (N ≥ 2D, below it warms up
// with more): D−1 more on the first worker, D−1 fewer on the last.
TEST(InterleavedZb, PeakActivationsAreTheClosedForm) {
  for (int d : {2, 3, 4, 8}) {
    for (int n : {1, d - 1, d, 2 * d, 3 * d}) {
      for (int v : {1, 2, 3, 4}) {
        SCOPED_TRACE(::testing::Message() << "D=" << d << " N=" << n << " v=" << v);
        const int round = n / std::max(1, n / d);
        const auto r = testing::run_unit("interleaved-zb", params(d, n, v), {1, 2, 1, 0});
        for (const auto& worker : r.metrics.workers)
          EXPECT_EQ(worker.peak_activations, std::min(v * n, (v - 1) * round + d));
        if (n < 2 * d) continue;
        const auto megatron = testing::run_unit("interleaved", params(d, n, v), {1, 2, 1, 0});
        for (size_t w = 0; w < static_cast<size_t>(d); ++w) {
          EXPECT_EQ(
              r.metrics.workers[w].peak_activations - megatron.metrics.workers[w].peak_activations,
              2 * static_cast<int>(w) - d + 1);
        }
      }
    }
  }
}

// PyTorch's rule on N: a multiple of its number of rounds max(1, N/D), so any N below 2D and
// any multiple of D, but not 7 on 2 workers (3 rounds).
TEST(InterleavedZb, MicroBatchesMustFillTheirRounds) {
  EXPECT_TRUE(schedules::check_params("interleaved-zb", params(4, 3, 2)).ok());
  EXPECT_TRUE(schedules::check_params("interleaved-zb", params(4, 6, 2)).ok());
  EXPECT_TRUE(schedules::check_params("interleaved-zb", params(8, 20, 2)).ok());
  const auto refused = schedules::check_params("interleaved-zb", params(2, 7, 2));
  ASSERT_FALSE(refused.ok());
  const std::string message = refused.problem().what();
  EXPECT_NE(message.find("micro_batches"), std::string::npos) << message;
  EXPECT_NE(message.find("= 3"), std::string::npos) << message;
}

}  // namespace
}  // namespace pipesim
