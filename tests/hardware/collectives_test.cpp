// The profile-level communication times: Hockney (1994) p2p; each collective by the profile's
// algorithm, tier and fitted curve, against the closed forms (collective_algorithms_test.cpp
// tests each algorithm alone); and placement.

#include "pipesim/hardware/collectives.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>

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

TEST(Collectives, AllReduceTimePicksTierAlgorithmAndFittedCurve) {
  HardwareProfile p;
  p.intra_node = {2e-6, 300e9};
  p.inter_node = {5e-6, 25e9};
  p.all_reduce = AllReduceAlgorithm::Ring;
  const double n = 1e8;
  // Ring within a node on NVLink, across 8 nodes at the inter-node tier (one flat ring).
  EXPECT_DOUBLE_EQ(all_reduce_time(p, 8, 1, Bytes(n)).total().value,
                   14 * 2e-6 + 14.0 / 8 * n / 300e9);
  EXPECT_DOUBLE_EQ(all_reduce_time(p, 8, 8, Bytes(n)).total().value,
                   14 * 5e-6 + 14.0 / 8 * n / 25e9);
  p.all_reduce = AllReduceAlgorithm::Hierarchical;  // 8 per node on 4 nodes
  EXPECT_DOUBLE_EQ(all_reduce_time(p, 32, 4, Bytes(n)).total().value,
                   2 * 7 * 2e-6 + 2 * 3 * 5e-6 + 14.0 / 8 * n / 300e9 + 6.0 / 4 * n / 8 / 25e9);
  p.all_reduce = AllReduceAlgorithm::Tree;  // chain of 8, trees over 4 nodes: depth 2
  EXPECT_DOUBLE_EQ(all_reduce_time(p, 32, 4, Bytes(n)).total().value,
                   2 * (7 * 2e-6 + 2 * 5e-6) + 2 * n / 25e9);
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

TEST(Collectives, ReduceScatterAndAllGatherAreTheHalvesOfTheAllReduce) {
  // Ring: (r−1)α + (r−1)/r·n/β each [T05]; the same split for Rabenseifner and hierarchical.
  HardwareProfile p;
  p.gpus_per_node = 8;
  p.intra_node = {3e-6, 300e9};
  p.inter_node = {5e-6, 25e9};
  const Bytes n(4e8);
  for (AllReduceAlgorithm a : {AllReduceAlgorithm::Ring, AllReduceAlgorithm::Rabenseifner,
                               AllReduceAlgorithm::Hierarchical}) {
    p.all_reduce = a;
    for (auto [ranks, nodes] : {std::pair{8, 1}, std::pair{32, 4}}) {
      const CommTime ar = all_reduce_time(p, ranks, nodes, n);
      for (const CommTime& half :
           {reduce_scatter_time(p, ranks, nodes, n), all_gather_time(p, ranks, nodes, n)}) {
        EXPECT_DOUBLE_EQ(2 * half.latency.value, ar.latency.value);
        EXPECT_DOUBLE_EQ(2 * half.intra.value, ar.intra.value);
        EXPECT_DOUBLE_EQ(2 * half.inter.value, ar.inter.value);
      }
    }
  }
  p.all_reduce = AllReduceAlgorithm::Ring;
  const double r = 8;
  EXPECT_DOUBLE_EQ(reduce_scatter_time(p, 8, 1, n).total().value,
                   (r - 1) * 3e-6 + (r - 1) / r * n.value / 300e9);
  p.fitted["all_gather"]["intra_node"] = {1e-5, 1e11};  // a measured curve wins
  EXPECT_DOUBLE_EQ(all_gather_time(p, 8, 1, n).total().value, 1e-5 + n.value / 1e11);
  EXPECT_EQ(reduce_scatter_time(p, 1, 1, n).total().value, 0.0);
  // A fitted all-reduce without fits of its halves: each half is half the fitted curve.
  p.fitted.clear();
  p.fitted["all_reduce"]["inter_node"] = {2e-4, 5e9};
  EXPECT_DOUBLE_EQ(reduce_scatter_time(p, 32, 4, n).total().value, (2e-4 + n.value / 5e9) / 2);
}

TEST(Collectives, TreeProfilesRunReduceScatterAllGatherAsRingsAndAllToAllPairwise) {
  // NCCL implements only the all-reduce as a tree; an all-to-all is a pairwise exchange
  // whatever the all-reduce algorithm.
  HardwareProfile p;
  p.intra_node = {3e-6, 300e9};
  p.inter_node = {5e-6, 25e9};
  const Bytes n(4e8);
  p.all_reduce = AllReduceAlgorithm::Ring;
  const CommTime ring_rs = reduce_scatter_time(p, 16, 2, n);
  const CommTime ring_a2a = all_to_all_time(p, 16, 2, n);
  p.all_reduce = AllReduceAlgorithm::Tree;
  EXPECT_EQ(reduce_scatter_time(p, 16, 2, n).total().value, ring_rs.total().value);
  EXPECT_EQ(all_gather_time(p, 16, 2, n).total().value, ring_rs.total().value);
  EXPECT_EQ(all_to_all_time(p, 16, 2, n).total().value, ring_a2a.total().value);
  EXPECT_NE(all_reduce_time(p, 16, 2, n).total().value,
            2 * ring_rs.total().value);  // the tree itself
  // 8 per node on 2 nodes: 7 partners over NVLink, 8 across.
  EXPECT_DOUBLE_EQ(ring_a2a.latency.value, 7 * 3e-6 + 8 * 5e-6);
  EXPECT_DOUBLE_EQ(ring_a2a.intra.value, 7.0 / 16 * n.value / 300e9);
  EXPECT_DOUBLE_EQ(ring_a2a.inter.value, 8.0 / 16 * n.value / 25e9);
}

TEST(Collectives, LibraryEfficiencyScalesEveryBandwidthTerm) {
  Hockney slow = kLink;
  slow.efficiency = 0.25;  // e.g. GLOO over TCP on the same wire
  const Bytes n(1e8);
  EXPECT_DOUBLE_EQ(p2p_time(slow, n, true).inter.value, 4 * p2p_time(kLink, n, true).inter.value);
  for (const CollectiveAlgorithm* a : std::initializer_list<const CollectiveAlgorithm*>{
           &algorithm(AllReduceAlgorithm::Ring), &algorithm(AllReduceAlgorithm::Rabenseifner),
           &algorithm(AllReduceAlgorithm::Tree)}) {
    const CommTime fast = a->time(Collective::AllReduce, {8, 8, kLink, kLink}, n);
    const CommTime gloo = a->time(Collective::AllReduce, {8, 8, slow, slow}, n);
    EXPECT_DOUBLE_EQ(gloo.inter.value, 4 * fast.inter.value) << a->name();
    EXPECT_DOUBLE_EQ(gloo.latency.value, fast.latency.value) << a->name();
  }
}

TEST(Placement, TensorParallelGroupsAreInnermostOnANode) {
  // t = 4 on 8-GPU nodes: two workers per node, each on 4 consecutive GPUs.
  const Placement pl{4, 2, 8, 8, PlacementMode::PipelineMajor, 4};
  EXPECT_EQ(pl.gpu(0, 0), 0);
  EXPECT_EQ(pl.gpu(0, 1), 4);
  EXPECT_EQ(pl.node(0, 1), 0);
  EXPECT_EQ(pl.node(0, 2), 1);
  EXPECT_EQ(pl.node(1, 0), 2);  // replica 1 starts after t·D = 16 GPUs
  const Placement t8{4, 1, 8, 8, PlacementMode::PipelineMajor, 8};
  for (int w = 0; w < 4; ++w)
    EXPECT_EQ(t8.node(0, w), w);  // one worker (a full node) per node
}

}  // namespace
}  // namespace pipesim::hardware
