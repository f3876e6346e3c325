// The max-min solver on closed cases (rates worked out by hand, Bertsekas & Gallager §6.5.2),
// and on random systems against the definition of max-min fairness: every flow is at full
// speed or has a bottleneck, a saturated resource on which no flow runs faster than it.

#include "pipesim/sim/max_min.hpp"

#include <gtest/gtest.h>

#include <random>

namespace pipesim::sim {
namespace {

using Flows = std::vector<std::vector<ResourceUse>>;

TEST(MaxMin, FlowsOnOneResourceShareItEqually) {
  for (int k : {1, 2, 3, 7}) {
    const Flows flows(static_cast<size_t>(k), {{0, 1.0}});
    const std::vector<double> rates = max_min_rates(flows, {1.0});
    ASSERT_EQ(rates.size(), static_cast<size_t>(k));
    for (double r : rates)
      EXPECT_DOUBLE_EQ(r, 1.0 / k);
  }
  // A resource of capacity 2 carries two flows at full speed, three at 2/3 each.
  EXPECT_EQ(max_min_rates(Flows(2, {{0, 1.0}}), {2.0}), std::vector<double>(2, 1.0));
  for (double r : max_min_rates(Flows(3, {{0, 1.0}}), {2.0}))
    EXPECT_DOUBLE_EQ(r, 2.0 / 3);
}

TEST(MaxMin, ABottleneckFlowLeavesCapacityToTheOthers) {
  // r0 (capacity 1): f0, f1. r1 (capacity 0.2): f1, f2. r1 saturates first at 0.1, freezing f1
  // and f2 there; f0 then rises alone on r0 to 1 − 0.1 = 0.9.
  const Flows flows{{{0, 1.0}}, {{0, 1.0}, {1, 1.0}}, {{1, 1.0}}};
  const std::vector<double> rates = max_min_rates(flows, {1.0, 0.2});
  EXPECT_DOUBLE_EQ(rates[1], 0.1);
  EXPECT_DOUBLE_EQ(rates[2], 0.1);
  EXPECT_DOUBLE_EQ(rates[0], 0.9);
}

TEST(MaxMin, ProgressiveFillingThroughSeveralSaturationLevels) {
  // Three levels. r0 (capacity 0.3) carries f0, f1, f2: saturates at 0.1. r1 (capacity 1)
  // carries f2, f3, f4: after f2 freezes at 0.1, f3 and f4 rise to (1 − 0.1)/2 = 0.45. r2
  // (capacity 1.2) carries f4 and f5: f5 rises to 1.2 − 0.45 = 0.75. f6 on r3 alone (capacity
  // 5) reaches full speed.
  const Flows flows{{{0, 1.0}}, {{0, 1.0}}, {{0, 1.0}, {1, 1.0}}, {{1, 1.0}}, {{1, 1.0}, {2, 1.0}},
                    {{2, 1.0}}, {{3, 1.0}}};
  const std::vector<double> rates = max_min_rates(flows, {0.3, 1.0, 1.2, 5.0});
  const std::vector<double> expected{0.1, 0.1, 0.1, 0.45, 0.45, 0.75, 1.0};
  for (size_t i = 0; i < flows.size(); ++i)
    EXPECT_NEAR(rates[i], expected[i], 1e-15) << "flow " << i;
}

TEST(MaxMin, SharesWeighTheLoadAFlowPutsOnAResource) {
  // r0 (capacity 1): f0 with share 1, f1 with share 3 (it needs three times the bandwidth to
  // run at the same rate). Equal rates x: x + 3x = 1, x = ¼.
  const std::vector<double> rates = max_min_rates({{{0, 1.0}}, {{0, 3.0}}}, {1.0});
  EXPECT_DOUBLE_EQ(rates[0], 0.25);
  EXPECT_DOUBLE_EQ(rates[1], 0.25);
  // Shares below 1: two flows of share ½ fit at full speed; three rise to x with 1.5x = 1.
  EXPECT_EQ(max_min_rates(Flows(2, {{0, 0.5}}), {1.0}), std::vector<double>(2, 1.0));
  for (double r : max_min_rates(Flows(3, {{0, 0.5}}), {1.0}))
    EXPECT_DOUBLE_EQ(r, 1.0 / 1.5);
  // One flow over two resources with different shares: the heavier use binds, 2x = 1.
  EXPECT_DOUBLE_EQ(max_min_rates({{{0, 0.25}, {1, 2.0}}}, {1.0, 1.0})[0], 0.5);
}

TEST(MaxMin, AFlowOnNoSaturatedResourceRunsAtFullSpeed) {
  // f0 and f1 saturate r0; f2 shares r1 with f1 only, which r0 holds at ½: r1 carries 1.5
  // of capacity 2 and never saturates, so f2 runs at full speed; so does f3, without uses.
  MaxMinSolver solver(std::vector<double>{1.0, 2.0});
  const std::vector<ResourceUse> f0{{0, 1.0}}, f1{{0, 1.0}, {1, 1.0}}, f2{{1, 1.0}}, f3{};
  for (const auto* f : {&f0, &f1, &f2, &f3})
    solver.add(*f);
  std::vector<double> rates;
  EXPECT_FALSE(solver.solve(rates));
  EXPECT_EQ(rates, (std::vector<double>{0.5, 0.5, 1.0, 1.0}));
}

TEST(MaxMin, SolveTellsWhenEveryFlowRunsAtFullSpeedAndClearStartsAgain) {
  MaxMinSolver solver(3);
  const std::vector<ResourceUse> a{{0, 1.0}, {1, 0.5}}, b{{1, 0.5}, {2, 1.0}}, c{{1, 0.5}};
  solver.add(a);
  solver.add(b);
  std::vector<double> rates;
  EXPECT_TRUE(solver.solve(rates));  // r1 carries ½ + ½ = its capacity exactly
  EXPECT_EQ(rates, std::vector<double>(2, 1.0));
  solver.add(c);  // a third flow overloads r1 (1.5): all three rise to 1/1.5 on it
  EXPECT_FALSE(solver.solve(rates));
  for (double r : rates)
    EXPECT_DOUBLE_EQ(r, 1.0 / 1.5);
  solver.clear();
  EXPECT_EQ(solver.flows(), 0u);
  solver.add(b);
  EXPECT_TRUE(solver.solve(rates));
  EXPECT_EQ(rates, std::vector<double>(1, 1.0));
}

// The definition (Bertsekas & Gallager, §6.5.2): an allocation is max-min fair iff every flow
// either runs at full speed or has a bottleneck — a resource that is saturated and on which no
// flow runs faster than it. Random systems, checked to a tolerance for the filling's roundings.
TEST(MaxMin, RandomSystemsAreMaxMinFair) {
  std::mt19937 rng(20261207);
  std::uniform_int_distribution<int> count(1, 12), resources(1, 6);
  std::uniform_real_distribution<double> capacity(0.2, 3.0), share(0.1, 2.5);
  constexpr double kTol = 1e-9;
  for (int trial = 0; trial < 500; ++trial) {
    const int m = resources(rng);
    std::vector<double> caps(static_cast<size_t>(m));
    for (double& c : caps)
      c = capacity(rng);
    Flows flows(static_cast<size_t>(count(rng)));
    for (auto& uses : flows) {
      for (int r = 0; r < m; ++r) {
        if (rng() % 3 == 0) uses.push_back({r, share(rng)});
      }
    }
    const std::vector<double> rates = max_min_rates(flows, caps);
    std::vector<double> load(caps.size(), 0.0);
    for (size_t i = 0; i < flows.size(); ++i) {
      ASSERT_GT(rates[i], 0.0);
      ASSERT_LE(rates[i], 1.0);
      for (const ResourceUse& u : flows[i])
        load[static_cast<size_t>(u.resource)] += u.share * rates[i];
    }
    for (size_t r = 0; r < caps.size(); ++r)
      ASSERT_LE(load[r], caps[r] * (1 + kTol)) << "trial " << trial << " resource " << r;
    for (size_t i = 0; i < flows.size(); ++i) {
      if (rates[i] >= 1.0 - kTol) continue;
      bool bottleneck = false;
      for (const ResourceUse& u : flows[i]) {
        const auto r = static_cast<size_t>(u.resource);
        if (load[r] < caps[r] * (1 - kTol)) continue;  // not saturated
        bool fastest = true;
        for (size_t j = 0; j < flows.size(); ++j) {
          for (const ResourceUse& v : flows[j]) {
            fastest = fastest && !(v.resource == u.resource && rates[j] > rates[i] + kTol);
          }
        }
        bottleneck = bottleneck || fastest;
      }
      EXPECT_TRUE(bottleneck) << "trial " << trial << ": flow " << i << " at " << rates[i]
                              << " has no bottleneck";
    }
  }
}

}  // namespace
}  // namespace pipesim::sim
