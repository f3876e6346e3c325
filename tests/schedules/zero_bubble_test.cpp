// Zero-bubble schedules against Qi et al. (arXiv 2401.10241, Table 2, and 2405.15362) using the
// paper's convention: cost = the longest per-stage span (first op start → last op end on a
// stage), idle of a stage = cost − its busy time. DualPipe against its README formula.

#include <gtest/gtest.h>

#include <algorithm>

#include "../support/run_helpers.hpp"

namespace pipesim {
namespace {

struct Costs {
  double f, i, w;
};

std::vector<double> idle_per_stage(const testing::UnitRun& r) {
  double cost = 0.0;
  for (const auto& w : r.metrics.workers)
    cost = std::max(cost, w.last_end - w.first_start);
  std::vector<double> idle;
  for (const auto& w : r.metrics.workers)
    idle.push_back(cost - w.busy);
  return idle;
}

testing::UnitRun run(const std::string& name, int d, int n, Costs c) {
  schedules::ScheduleParams p;
  p.stages = d;
  p.micro_batches = n;
  return testing::run_unit(name, p, {c.f, c.i + c.w, c.w, 0});
}

const Costs kCosts[] = {{1, 1, 1}, {2, 2, 1}, {1, 2, 1}, {2, 1, 1}, {3, 3, 2}, {1, 1, 0.5}};

TEST(ZeroBubble, H1IdlePerStageIsTable2) {
  for (int d : {2, 3, 4, 6, 8}) {
    for (int n : {d, 2 * d - 1, 2 * d, 3 * d + 1}) {
      for (Costs c : kCosts) {
        SCOPED_TRACE(::testing::Message()
                     << "D=" << d << " N=" << n << " F=" << c.f << " I=" << c.i << " W=" << c.w);
        const auto r = run("zb-h1", d, n, c);
        for (double idle : idle_per_stage(r))
          EXPECT_DOUBLE_EQ(idle, (d - 1) * (c.f + c.i - c.w));
        int peak = 0;  // 1F1B's peak, D micro-batches, on the worst stage
        for (const auto& w : r.metrics.workers)
          peak = std::max(peak, w.peak_activations);
        EXPECT_EQ(peak, std::min(d, n));
      }
    }
  }
}

TEST(ZeroBubble, H2IdlePerStageIsTable2) {
  // The warm-up needs 2D-1 micro-batches; the paper's figures use N >= 2D-1.
  for (int d : {2, 3, 4, 6, 8}) {
    for (int n : {2 * d - 1, 2 * d, 3 * d + 1}) {
      for (Costs c : kCosts) {
        SCOPED_TRACE(::testing::Message()
                     << "D=" << d << " N=" << n << " F=" << c.f << " I=" << c.i << " W=" << c.w);
        const auto r = run("zb-h2", d, n, c);
        for (double idle : idle_per_stage(r)) {
          EXPECT_DOUBLE_EQ(idle, (d - 1) * (c.f + c.i - 2 * c.w));
        }
        int peak = 0;
        for (const auto& w : r.metrics.workers)
          peak = std::max(peak, w.peak_activations);
        EXPECT_EQ(peak, 2 * d - 1);
      }
    }
  }
}

TEST(ZeroBubble, VShapeHasNoBubbleAtEqualCosts) {
  for (int d : {2, 3, 4, 6, 8}) {
    for (int n : {2 * d - 1, 2 * d, 3 * d + 1}) {
      SCOPED_TRACE(::testing::Message() << "D=" << d << " N=" << n);
      const auto r = run("zb-v", d, n, {1, 1, 1});
      for (double idle : idle_per_stage(r))
        EXPECT_DOUBLE_EQ(idle, 0.0);
      for (const auto& w : r.metrics.workers) {
        EXPECT_LE(w.peak_activations, 2 * d);  // chunk units: 1F1B's D full stages
      }
    }
  }
}

TEST(DualPipe, IdleIsWithinTheReadmeFormulaWithSerialFandB) {
  // DualPipe README: idle (PP/2 − 1)(F&B + B − 3W), B the whole backward, F&B one overlapped
  // forward-and-backward chunk. pipesim runs F and B one after the other (F&B = t_F + t_B), so
  // the formula bounds the idle time; DualPipeV runs PP = 2D virtual ranks on D workers.
  for (int d : {2, 4, 6, 8}) {
    for (int n : {2 * d, 4 * d, 4 * d + 2}) {
      for (Costs c : kCosts) {
        SCOPED_TRACE(::testing::Message()
                     << "D=" << d << " N=" << n << " F=" << c.f << " I=" << c.i << " W=" << c.w);
        const double fb = c.f + c.i + c.w, b = c.i + c.w;
        const auto r = run("dualpipe", d, n, c);
        for (double idle : idle_per_stage(r))
          EXPECT_LE(idle, (d / 2 - 1) * (fb + b - 3 * c.w));
        const auto v = run("dualpipev", d, n, c);
        for (double idle : idle_per_stage(v))
          EXPECT_LE(idle, (d - 1) * (fb + b - 3 * c.w));
        // PP + 1 activations: D + 1 stages for DualPipe, 2D + 1 half-size chunks for DualPipeV.
        for (const auto& w : r.metrics.workers)
          EXPECT_LE(w.peak_activations, d + 1);
        for (const auto& w : v.metrics.workers)
          EXPECT_LE(w.peak_activations, 2 * d + 1);
      }
    }
  }
}

}  // namespace
}  // namespace pipesim
