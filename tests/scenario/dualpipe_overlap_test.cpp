// DualPipe's overlapped forward-and-backward units in real-cost mode: with an MoE model whose
// expert all-to-alls cross nodes, running each pair as one unit (each half's collectives beside
// the other half's compute) exposes less communication than the same op order run unfused, and
// less than 1F1B, whose collectives follow their op.

#include <gtest/gtest.h>

#include <memory>
#include <numeric>

#include "moe_scenario.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/sim/op.hpp"

namespace pipesim::scenario {
namespace {

double exposed(const Result& r) {
  return std::accumulate(
      r.perf->time.begin(), r.perf->time.end(), 0.0,
      [](double sum, const sim::WorkerTime& w) { return sum + w.exposed_communication; });
}

int units(const sim::Schedule& s) {
  int n = 0;
  for (const auto& program : s.program) {
    for (const sim::Op& op : program)
      n += op.join == sim::Join::Pair ? 1 : 0;
  }
  return n;
}

TEST(DualPipeOverlap, FusedPairsHideExpertAllToAllsThatUnfusedAndOneFOneBExpose) {
  const Scenario spec = testing::cross_node_moe("dualpipe");
  const Result fused = simulate(spec);
  ASSERT_GT(units(fused.schedule), 0);

  sim::Schedule plain = fused.schedule;
  for (auto& program : plain.program) {
    for (sim::Op& op : program)
      op.join = sim::Join::None;
  }
  const Result unfused = simulate_schedule(spec, plain, "dualpipe without units");
  const Result one_f_one_b = simulate(testing::cross_node_moe("1f1b"));

  ASSERT_TRUE(fused.perf && unfused.perf && one_f_one_b.perf);
  EXPECT_GT(exposed(unfused), 0.0);
  EXPECT_LT(exposed(fused), exposed(unfused));
  EXPECT_LT(exposed(fused), exposed(one_f_one_b));
  // The units run the same compute: every worker's busy time is the op order's, fused or not.
  for (size_t w = 0; w < fused.perf->time.size(); ++w) {
    EXPECT_NEAR(fused.perf->time[w].compute, unfused.perf->time[w].compute,
                1e-9 * unfused.perf->time[w].compute)
        << "worker " << w;
  }
}

}  // namespace
}  // namespace pipesim::scenario
