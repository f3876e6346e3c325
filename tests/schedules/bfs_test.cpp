// The breadth-first looped schedule (bfs) against PyTorch's ScheduleLoopedBFS order, its closed
// forms in unit-cost mode (span, bubble and peak activations, with and without a transfer
// delay), and against Megatron's interleaved schedule at the same v and N.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "../support/run_helpers.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim {
namespace {

using schedules::ScheduleParams;

ScheduleParams params(int d, int n, int v) {
  return testing::chunked_params(d, n, v);
}

// Unit-cost span of bfs, derived by hand (schedules/README.md): a chunk op takes f = t_F/v,
// b = t_B/v; worker 0 starts loop k+1 of a pass when it has run the N ops of loop k and the
// first micro-batch has come round the D workers (D ops and D transfers), so each of the v−1
// wraps costs max(N·f, D(f + c)) forward and max(N·b, D(b + c)) backward; then the fill and
// drain of D−1 workers and the last loop's N ops. On one worker no edge crosses workers (c = 0).
double bfs_span(int d, int n, int v, const sim::UnitCosts& u) {
  const double f = u.forward / v, b = u.backward / v, c = d > 1 ? u.comm : 0.0;
  return (v - 1) * (std::max(n * f, d * (f + c)) + std::max(n * b, d * (b + c))) +
         (d - 1) * (f + b + 2 * c) + n * (f + b);
}

// PyTorch's _calculate_single_rank_operations for D = 2, N = 2, v = 2 (its no-op padding left
// out): each rank runs its stages' forwards stage by stage, micro-batches ascending, then the
// backwards stage by stage in reverse, micro-batches descending.
TEST(Bfs, OrderIsPyTorchsLoopedBfs) {
  const sim::Schedule s = schedules::make_schedule("bfs", params(2, 2, 2));
  auto f = [](int stage, int mb) { return sim::Op{sim::OpKind::Forward, 0, stage, stage / 2, mb}; };
  auto b = [](int stage, int mb) {
    return sim::Op{sim::OpKind::Backward, 0, stage, stage / 2, mb};
  };
  EXPECT_EQ(s.stage_worker[0], (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(s.program[0], (std::vector<sim::Op>{f(0, 0), f(0, 1), f(2, 0), f(2, 1), b(2, 1),
                                                b(2, 0), b(0, 1), b(0, 0)}));
  EXPECT_EQ(s.program[1], (std::vector<sim::Op>{f(1, 0), f(1, 1), f(3, 0), f(3, 1), b(3, 1),
                                                b(3, 0), b(1, 1), b(1, 0)}));
}

// Breadth-first at every size: on each worker the chunks' forwards come in chunk order, all of
// them before any backward, and the backwards in reverse chunk order.
TEST(Bfs, EveryWorkerRunsChunkByChunk) {
  for (int d : {1, 3, 4}) {
    for (int n : {1, 5, 8}) {
      for (int v : {1, 2, 3}) {
        SCOPED_TRACE(::testing::Message() << "D=" << d << " N=" << n << " v=" << v);
        const sim::Schedule s = schedules::make_schedule("bfs", params(d, n, v));
        for (const auto& prog : s.program) {
          ASSERT_EQ(prog.size(), static_cast<size_t>(2 * n * v));
          for (size_t i = 0; i < prog.size(); ++i) {
            const bool forward = i < prog.size() / 2;
            const int k = static_cast<int>(forward ? i : i - prog.size() / 2) / n;
            EXPECT_EQ(prog[i].kind, forward ? sim::OpKind::Forward : sim::OpKind::Backward);
            EXPECT_EQ(prog[i].chunk, forward ? k : v - 1 - k);
          }
        }
      }
    }
  }
}

// Span, bubble and activations against the closed forms, for N below, at and above D (any N
// is allowed), several cost ratios and transfer delays. Without a delay the bubble is
// (D−1)/(vN+D−1) for N ≥ D and (v(D−N) + N − 1)/(vD + N − 1) below; every worker holds all vN
// chunk activation sets at the end of its forwards.
TEST(Bfs, SpanBubbleAndActivationsMatchTheClosedForms) {
  for (int d : {1, 2, 3, 4, 5, 8}) {
    for (int n : {1, 2, 3, 5, 8, 13, 16}) {
      for (int v : {1, 2, 3, 4}) {
        for (sim::UnitCosts u : {sim::UnitCosts{1, 1, {}, 0}, sim::UnitCosts{1, 2, {}, 0},
                                 sim::UnitCosts{0.5, 1.25, {}, 0}, sim::UnitCosts{1, 2, {}, 0.25},
                                 sim::UnitCosts{1, 2, {}, 1}}) {
          SCOPED_TRACE(::testing::Message()
                       << "D=" << d << " N=" << n << " v=" << v << " t_F=" << u.forward
                       << " t_B=" << u.backward << " t_comm=" << u.comm);
          const auto r = testing::run_unit("bfs", params(d, n, v), u);
          const double span = bfs_span(d, n, v, u);
          EXPECT_NEAR(r.metrics.iteration_time, span, 1e-9 * span);
          EXPECT_NEAR(r.metrics.bubble_ratio, 1 - n * (u.forward + u.backward) / span, 1e-9);
          if (u.comm == 0) {
            const double bubble = n >= d ? (d - 1.0) / (v * n + d - 1.0)
                                         : (v * (d - n) + n - 1.0) / (v * d + n - 1.0);
            EXPECT_NEAR(r.metrics.bubble_ratio, bubble, 1e-9);
          }
          for (const auto& w : r.metrics.workers)
            EXPECT_EQ(w.peak_activations, v * n);
        }
      }
    }
  }
}

// Against Megatron's interleaved (depth-first) schedule at the same D, v and N = kD:
// - without transfer delay both bubbles are (D−1)/(vN+D−1): fill and drain are D−1 chunk slots
//   each way whatever the order inside;
// - with a delay bfs's is smaller once N > D: interleaved hands micro-batch 0 from worker D−1
//   back to worker 0 exactly when worker 0 ends a group of D forwards, so every wrap of the
//   loop exposes the transfers, where bfs's worker 0 still has N − D ops of the loop to run
//   (at N = D both orders have no slack and the same span);
// - bfs holds more activations: vN chunk sets on every worker, against interleaved's warm-up
//   + 1 (the same at N = D, where interleaved warms up with every forward).
TEST(Bfs, SameBubbleAsInterleavedWithoutDelaySmallerWithMoreActivations) {
  for (int d : {2, 3, 4, 8}) {
    for (int k : {1, 2, 4}) {
      for (int v : {2, 3, 4}) {
        const int n = k * d;
        SCOPED_TRACE(::testing::Message() << "D=" << d << " N=" << n << " v=" << v);
        const sim::UnitCosts no_delay{1, 2, {}, 0}, delayed{1, 2, {}, 0.5};
        const auto bfs = testing::run_unit("bfs", params(d, n, v), no_delay);
        const auto megatron = testing::run_unit("interleaved", params(d, n, v), no_delay);
        EXPECT_NEAR(bfs.metrics.bubble_ratio, megatron.metrics.bubble_ratio, 1e-12);
        EXPECT_NEAR(bfs.metrics.bubble_ratio, (d - 1.0) / (v * n + d - 1.0), 1e-12);

        const double bfs_bubble =
            testing::run_unit("bfs", params(d, n, v), delayed).metrics.bubble_ratio;
        const double megatron_bubble =
            testing::run_unit("interleaved", params(d, n, v), delayed).metrics.bubble_ratio;
        if (k == 1) {
          EXPECT_NEAR(bfs_bubble, megatron_bubble, 1e-12);
        } else {
          EXPECT_LT(bfs_bubble, megatron_bubble - 0.01);
        }

        for (size_t w = 0; w < static_cast<size_t>(d); ++w) {
          const int ours = bfs.metrics.workers[w].peak_activations;
          const int theirs = megatron.metrics.workers[w].peak_activations;
          if (k == 1) {
            EXPECT_EQ(ours, theirs);
          } else {
            EXPECT_GT(ours, theirs);
          }
        }
      }
    }
  }
}

// The two looped schemes share the `chunks` option (one declaration) and search explores the
// same chunk counts for both.
TEST(Bfs, SharesInterleavedsChunksOptionAndSearchVariants) {
  const schedules::ScheduleEntry* bfs = schedules::find_schedule("bfs");
  const schedules::ScheduleEntry* megatron = schedules::find_schedule("interleaved");
  ASSERT_NE(bfs, nullptr);
  ASSERT_EQ(bfs->options.size(), 1U);
  EXPECT_EQ(bfs->options[0].name, "chunks");
  EXPECT_EQ(bfs->options[0].kind, megatron->options[0].kind);
  EXPECT_EQ(bfs->options[0].default_text, "2");
  EXPECT_EQ(bfs->options[0].lo, megatron->options[0].lo);
  EXPECT_EQ(bfs->options[0].hi, megatron->options[0].hi);
  for (const schedules::SearchContext c :
       {schedules::SearchContext{4, 16, 16}, schedules::SearchContext{2, 8, 0},
        schedules::SearchContext{4, 8, 6}}) {
    const auto ours = bfs->variants(c), theirs = megatron->variants(c);
    ASSERT_EQ(ours.size(), theirs.size());
    for (size_t i = 0; i < ours.size(); ++i) {
      EXPECT_EQ(ours[i].options, theirs[i].options);
      EXPECT_EQ(ours[i].pruned, theirs[i].pruned);
    }
  }
  // Unlike interleaved, any N runs.
  EXPECT_TRUE(schedules::check_params("bfs", params(4, 6, 2)).ok());
  EXPECT_FALSE(schedules::check_params("interleaved", params(4, 6, 2)).ok());
}

}  // namespace
}  // namespace pipesim
