// Communication formulas against their closed forms: Hockney (1994), ring and Rabenseifner
// (Thakur, Rabenseifner & Gropp 2005), hierarchical (Jia et al. 2018); and placement.

#include "pipesim/hardware/collectives.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "pipesim/hardware/placement.hpp"

namespace pipesim::hardware {
namespace {

using core::Bytes;

const Hockney kLink{5e-6, 10e9};

TEST(Collectives, HockneyIsAlphaPlusNOverBeta) {
  for (double n : {0.0, 1.0, 1e6, 3.3e8}) {
    const CommTime t = p2p_time(kLink, Bytes(n), true);
    EXPECT_DOUBLE_EQ(t.total().value, 5e-6 + n / 10e9);
    EXPECT_DOUBLE_EQ(t.latency.value, 5e-6);
    EXPECT_DOUBLE_EQ(t.inter.value, n / 10e9);
  }
}

TEST(Collectives, RingIs2RMinus1AlphaPlus2RMinus1OverRNBeta) {
  for (int r : {2, 3, 8, 32}) {
    const double n = 2.5e8;
    const CommTime t = ring_all_reduce(kLink, r, Bytes(n), true);
    EXPECT_DOUBLE_EQ(t.latency.value, 2.0 * (r - 1) * 5e-6);
    EXPECT_DOUBLE_EQ(t.inter.value, 2.0 * (r - 1) / r * n / 10e9);
  }
  EXPECT_EQ(ring_all_reduce(kLink, 1, Bytes(1e9), true).total().value, 0.0);
}

TEST(Collectives, RabenseifnerIs2Log2RAlphaPlus2RMinus1OverRNBeta) {
  for (int r : {2, 4, 16, 32}) {
    const double n = 2.5e8;
    const CommTime t = rabenseifner_all_reduce(kLink, r, Bytes(n), true);
    EXPECT_DOUBLE_EQ(t.latency.value, 2.0 * std::log2(r) * 5e-6);
    EXPECT_DOUBLE_EQ(t.inter.value, 2.0 * (r - 1) / r * n / 10e9);
  }
}

TEST(Collectives, HierarchicalIsReduceScatterRingAllGather) {
  const Hockney intra{2e-6, 300e9}, inter{5e-6, 25e9};
  const double n = 1e9, g = 8, k = 4;
  const CommTime t = hierarchical_all_reduce(intra, inter, 8, 4, Bytes(n));
  EXPECT_DOUBLE_EQ(t.latency.value, 2 * (g - 1) * 2e-6 + 2 * (k - 1) * 5e-6);
  EXPECT_DOUBLE_EQ(t.intra.value, 2 * (g - 1) / g * n / 300e9);
  EXPECT_DOUBLE_EQ(t.inter.value, 2 * (k - 1) / k * (n / g) / 25e9);
}

TEST(Collectives, AllReduceTimePicksTierAlgorithmAndFittedCurve) {
  HardwareProfile p;
  p.intra_node = {2e-6, 300e9};
  p.inter_node = {5e-6, 25e9};
  p.all_reduce = AllReduceAlgorithm::Ring;
  const double n = 1e8;
  EXPECT_DOUBLE_EQ(all_reduce_time(p, 8, 1, Bytes(n)).total().value,
                   ring_all_reduce(p.intra_node, 8, Bytes(n), false).total().value);
  EXPECT_DOUBLE_EQ(all_reduce_time(p, 8, 8, Bytes(n)).total().value,
                   ring_all_reduce(p.inter_node, 8, Bytes(n), true).total().value);
  p.all_reduce = AllReduceAlgorithm::Hierarchical;
  EXPECT_DOUBLE_EQ(
      all_reduce_time(p, 32, 4, Bytes(n)).total().value,
      hierarchical_all_reduce(p.intra_node, p.inter_node, 8, 4, Bytes(n)).total().value);
  p.fitted["all_reduce"]["inter_node"] = {1e-4, 1e10};
  EXPECT_DOUBLE_EQ(all_reduce_time(p, 32, 4, Bytes(n)).total().value, 1e-4 + n / 1e10);
}

TEST(Placement, PipelineMajorAndDataMajor) {
  Placement pm{4, 4, 8, 8, PlacementMode::PipelineMajor};
  EXPECT_EQ(pm.gpu(1, 2), 6);
  EXPECT_EQ(pm.node(1, 2), 0);
  EXPECT_EQ(pm.node(2, 0), 1);
  EXPECT_EQ(pm.replicas_on_nic(0), 1);  // one NIC per GPU
  Placement dm{4, 4, 8, 1, PlacementMode::DataMajor};
  EXPECT_EQ(dm.gpu(1, 2), 9);
  EXPECT_EQ(dm.node(3, 1), 0);
  EXPECT_EQ(dm.node(0, 2), 1);
  EXPECT_EQ(dm.replicas_on_nic(1), 4);  // the four replicas of worker 1 share node 0's NIC
}

}  // namespace
}  // namespace pipesim::hardware
