// Hanayo and BitPipe against their closed forms: BitPipe's D = 4 orders as the authors' figure
// draws them (github.com/wuhouming/BitPipe, docs/BitPipe_images/BitPipe-v.svg, transcribed to
// 0-based ids and stages), its bubble (D-2)/(4N+D-2) at t_B = t_F, N(t_F+t_B) + (D-2)t_B/2 at
// N = D, 2M_θ of weights and 3D/2 + 1 + min(w, D-1-w) chunk activations; Hanayo's zig-zag map,
// the wave bound N(t_F+t_B) + (D-1)(t_F+t_B)/(2W) met at t_B = t_F, one weight copy and at most
// 1F1B's D stages of activations; and one clear error for each invalid parameter.

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "../support/run_helpers.hpp"
#include "pipesim/core/config_error.hpp"

namespace pipesim {
namespace {

using schedules::ScheduleParams;

ScheduleParams params(int d, int n, int waves = 0) {
  ScheduleParams p;
  p.stages = d;
  p.micro_batches = n;
  if (waves > 0) p.options.set("waves", std::int64_t{waves});
  return p;
}

testing::UnitRun run(const std::string& name, const ScheduleParams& p, double tf, double tb) {
  sim::UnitCosts c;
  c.forward = tf;
  c.backward = tb;
  return testing::run_unit(name, p, c);
}

// "F0.3 B1.7 ...": kind, micro-batch and stage of each op of one worker.
std::string order(const sim::Schedule& s, int worker) {
  std::ostringstream out;
  for (const sim::Op& op : s.program[static_cast<size_t>(worker)]) {
    if (out.tellp() > 0) out << ' ';
    out << sim::op_letter(op.kind) << op.micro_batch << '.' << op.stage;
  }
  return out.str();
}

// Weights a worker holds, in M_θ (one stage of a D-stage split of the model): its (pipeline,
// stage) copies, each 1/virtual_stages of the model.
std::vector<double> weights_in_stages(const sim::Schedule& s) {
  std::vector<double> w(static_cast<size_t>(s.workers), 0.0);
  for (const auto& map : s.stage_worker) {
    for (int worker : map)
      w[static_cast<size_t>(worker)] += static_cast<double>(s.workers) / s.virtual_stages;
  }
  return w;
}

TEST(BitPipe, BasicUnitOrdersAreTheAuthorsFigure) {
  const sim::Schedule s = schedules::make_schedule("bitpipe", params(4, 4));
  EXPECT_EQ(order(s, 0),
            "F0.0 F1.0 F2.3 F2.4 F3.3 F3.4 F0.7 B0.7 F1.7 B1.7 B2.4 B2.3 B3.4 B3.3 B0.0 B1.0");
  EXPECT_EQ(order(s, 1),
            "F0.1 F2.2 F1.1 F3.2 F2.5 F0.6 F3.5 F1.6 B0.6 B2.5 B1.6 B3.5 B2.2 B0.1 B3.2 B1.1");
  EXPECT_EQ(order(s, 2),
            "F2.1 F0.2 F3.1 F1.2 F0.5 F2.6 F1.5 F3.6 B2.6 B0.5 B3.6 B1.5 B0.2 B2.1 B1.2 B3.1");
  EXPECT_EQ(order(s, 3),
            "F2.0 F3.0 F0.3 F0.4 F1.3 F1.4 F2.7 B2.7 F3.7 B3.7 B0.4 B0.3 B1.4 B1.3 B2.0 B3.0");
  // Micro-batches 0, 1 go down (stage 0 on worker 0), 2, 3 up (stage 0 on worker 3).
  EXPECT_EQ(s.micro_batch_pipeline, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(s.stage_worker[0], (std::vector<int>{0, 1, 2, 3, 3, 2, 1, 0}));
  EXPECT_EQ(s.stage_worker[1], (std::vector<int>{3, 2, 1, 0, 0, 1, 2, 3}));
}

TEST(BitPipe, FigureTimingIsTwentyEightChunkSlots) {
  // The figure draws a chunk forward as one slot and a chunk backward as two: t_F = 2, t_B = 4
  // for a stage, 28 slots for 24 of work per worker.
  const auto r = run("bitpipe", params(4, 4), 2.0, 4.0);
  EXPECT_DOUBLE_EQ(r.metrics.iteration_time, 28.0);
  EXPECT_DOUBLE_EQ(r.metrics.bubble_ratio, 1.0 / 7.0);
}

TEST(BitPipe, BubbleAtEqualCostsIsChimerasWithHalfLengthOps) {
  for (int d : {2, 4, 6, 8, 10}) {
    for (int k : {1, 2, 3, 4}) {
      const int n = k * d;
      SCOPED_TRACE(::testing::Message() << "D=" << d << " N=" << n);
      const auto r = run("bitpipe", params(d, n), 1.0, 1.0);
      sim::UnitCosts chunk;  // a chunk's share of a stage's costs
      chunk.forward = 0.5;
      chunk.backward = 0.5;
      testing::expect_engine_invariants(r, sim::UnitCostModel(chunk));
      EXPECT_DOUBLE_EQ(r.metrics.iteration_time, (4.0 * n + d - 2) / 2);
      EXPECT_NEAR(r.metrics.bubble_ratio, (d - 2.0) / (4.0 * n + d - 2), 1e-12);
    }
  }
}

TEST(BitPipe, OneUnitIdlesHalfABackwardPerPairOfStages) {
  // N = D, t_B >= t_F: iteration N(t_F + t_B) + (D - 2) t_B / 2.
  const std::pair<double, double> costs[] = {{1, 1}, {1, 2}, {1, 3}, {2, 3}};
  for (int d : {2, 4, 6, 8, 12}) {
    for (const auto& [tf, tb] : costs) {
      SCOPED_TRACE(::testing::Message() << "D=" << d << " t_F=" << tf << " t_B=" << tb);
      const auto r = run("bitpipe", params(d, d), tf, tb);
      EXPECT_DOUBLE_EQ(r.metrics.iteration_time, d * (tf + tb) + (d - 2) * tb / 2);
    }
  }
}

TEST(BitPipe, TwoWeightCopiesAndActivationsPerWorker) {
  for (int d : {2, 4, 6, 8}) {
    for (int k : {1, 3}) {
      SCOPED_TRACE(::testing::Message() << "D=" << d << " k=" << k);
      const auto r = run("bitpipe", params(d, k * d), 1.0, 2.0);
      for (double w : weights_in_stages(r.schedule))
        EXPECT_DOUBLE_EQ(w, 2.0);
      // Chunk activations (M_a / 2 each): 3D/2 + 1 at both ends up to 2D (D M_a) in the middle.
      for (int w = 0; w < d; ++w) {
        EXPECT_EQ(r.metrics.workers[static_cast<size_t>(w)].peak_activations,
                  3 * d / 2 + 1 + std::min(w, d - 1 - w));
      }
    }
  }
}

TEST(BitPipe, InvalidParametersAreRefusedWithTheRule) {
  auto message = [](const ScheduleParams& p) {
    try {
      (void)schedules::make_schedule("bitpipe", p);
    } catch (const core::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message(params(3, 6)).find("stages"), std::string::npos);
  EXPECT_NE(message(params(3, 6)).find("even"), std::string::npos);
  EXPECT_NE(message(params(4, 6)).find("micro_batches"), std::string::npos);
  EXPECT_NE(message(params(4, 6)).find("multiple of D = 4"), std::string::npos);
}

TEST(Hanayo, WavesZigZagOverTheWorkers) {
  for (int d : {1, 2, 4, 5}) {
    for (int waves : {1, 2, 3}) {
      const sim::Schedule s = schedules::make_schedule("hanayo", params(d, 2 * d, waves));
      ASSERT_EQ(s.virtual_stages, 2 * waves * d);
      for (int k = 0; k < s.virtual_stages; ++k) {
        const int pass = k / d, pos = k % d;  // even passes go down, odd ones come back up
        EXPECT_EQ(s.stage_worker[0][static_cast<size_t>(k)], pass % 2 == 0 ? pos : d - 1 - pos);
      }
      for (double w : weights_in_stages(s))
        EXPECT_DOUBLE_EQ(w, 1.0);  // no replica: M_θ per worker
    }
  }
  // One wave is the V shape of zb-v.
  const sim::Schedule v = schedules::make_schedule("hanayo", params(4, 8, 1));
  EXPECT_EQ(v.stage_worker[0], schedules::make_schedule("zb-v", params(4, 8)).stage_worker[0]);
}

TEST(Hanayo, MeetsTheWaveBoundAtEqualCosts) {
  for (int d : {1, 2, 3, 4, 6, 8}) {
    for (int waves : {1, 2, 3}) {
      for (int k : {1, 2, 3}) {
        const int n = k * d;
        SCOPED_TRACE(::testing::Message() << "D=" << d << " W=" << waves << " N=" << n);
        const auto r = run("hanayo", params(d, n, waves), 1.0, 1.0);
        EXPECT_NEAR(r.metrics.iteration_time, 2.0 * n + 2.0 * (d - 1) / (2 * waves), 1e-9);
        EXPECT_NEAR(r.metrics.bubble_ratio, (d - 1.0) / (2.0 * waves * n + d - 1), 1e-12);
      }
    }
  }
}

TEST(Hanayo, NeverBeatsTheWaveBoundAndHoldsAtMostOneF1BsActivations) {
  const std::pair<double, double> costs[] = {{1, 2}, {2, 3}, {1, 1}};
  for (int d : {2, 4, 6}) {
    for (int waves : {1, 2}) {
      for (int n : {d, 2 * d + 1, 3 * d}) {
        for (const auto& [tf, tb] : costs) {
          SCOPED_TRACE(::testing::Message()
                       << "D=" << d << " W=" << waves << " N=" << n << " t_B=" << tb);
          const auto r = run("hanayo", params(d, n, waves), tf, tb);
          const double bound = (n + (d - 1.0) / (2 * waves)) * (tf + tb);
          EXPECT_GE(r.metrics.iteration_time, bound - 1e-9);
          for (const auto& w : r.metrics.workers)
            EXPECT_LE(w.peak_activations, 2 * waves * d);  // 2W·D chunks = D stages
        }
      }
    }
  }
}

TEST(Hanayo, WavesOutOfRangeAreRefused) {
  try {
    (void)schedules::make_schedule("hanayo", params(4, 8, 17));
    FAIL() << "17 waves accepted";
  } catch (const core::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("waves"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pipesim
