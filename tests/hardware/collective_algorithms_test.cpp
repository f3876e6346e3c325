// Each collective algorithm alone against its closed form, within one node (intra tier) and
// across nodes: ring and Rabenseifner (Thakur, Rabenseifner & Gropp 2005), NCCL's double binary
// tree (Sanders, Speck & Träff 2009; NCCL's tuning model), hierarchical (Jia et al. 2018),
// pairwise all-to-all (Thakur et al. 2005). The expected values are written out from the
// formulas in hardware/README.md, term by term.

#include <gtest/gtest.h>

#include <cmath>

#include "pipesim/hardware/collectives/double_binary_tree.hpp"
#include "pipesim/hardware/collectives/hierarchical.hpp"
#include "pipesim/hardware/collectives/pairwise_all_to_all.hpp"
#include "pipesim/hardware/collectives/rabenseifner.hpp"
#include "pipesim/hardware/collectives/ring.hpp"

namespace pipesim::hardware {
namespace {

using core::Bytes;

// NVLink-like and InfiniBand-like tiers; the inter-node one at 80% library efficiency, so every
// inter-node bandwidth term below divides by β' = 0.8 · 25e9.
const Hockney kIntra{2e-6, 300e9};
const Hockney kInter{5e-6, 25e9, 0.8};
constexpr double kBi = 300e9, kBe = 0.8 * 25e9, kAi = 2e-6, kAe = 5e-6;
const Bytes kN(3.2e8);

CollectiveGroup group(int ranks, int nodes) {
  return {ranks, nodes, kIntra, kInter};
}

void expect_terms(const CommTime& t, double latency, double intra, double inter) {
  EXPECT_DOUBLE_EQ(t.latency.value, latency);
  EXPECT_DOUBLE_EQ(t.intra.value, intra);
  EXPECT_DOUBLE_EQ(t.inter.value, inter);
}

TEST(CollectiveAlgorithms, RingWithinANodeAndAcrossNodes) {
  const Ring ring;
  const double n = kN.value;
  for (int r : {2, 3, 8}) {
    SCOPED_TRACE(r);
    expect_terms(ring.time(Collective::AllReduce, group(r, 1), kN), 2.0 * (r - 1) * kAi,
                 2.0 * (r - 1) / r * n / kBi, 0);
    for (Collective half : {Collective::ReduceScatter, Collective::AllGather}) {
      expect_terms(ring.time(half, group(r, 1), kN), (r - 1) * kAi, (r - 1.0) / r * n / kBi, 0);
    }
  }
  // 32 ranks on 4 nodes: one flat ring at the inter-node tier (its slowest hop).
  expect_terms(ring.time(Collective::AllReduce, group(32, 4), kN), 62 * kAe, 0,
               62.0 / 32 * n / kBe);
  expect_terms(ring.time(Collective::ReduceScatter, group(32, 4), kN), 31 * kAe, 0,
               31.0 / 32 * n / kBe);
  EXPECT_FALSE(ring.supports(Collective::AllToAll));
}

TEST(CollectiveAlgorithms, RabenseifnerTakesLog2RSteps) {
  const Rabenseifner rab;
  const double n = kN.value;
  for (auto [r, steps] : {std::pair{2, 1}, std::pair{8, 3}, std::pair{6, 3}, std::pair{16, 4}}) {
    SCOPED_TRACE(r);
    expect_terms(rab.time(Collective::AllReduce, group(r, 1), kN), 2.0 * steps * kAi,
                 2.0 * (r - 1) / r * n / kBi, 0);
    expect_terms(rab.time(Collective::AllGather, group(r, 1), kN), steps * kAi,
                 (r - 1.0) / r * n / kBi, 0);
  }
  expect_terms(rab.time(Collective::AllReduce, group(64, 8), kN), 2 * 6 * kAe, 0,
               2 * 63.0 / 64 * n / kBe);
  EXPECT_FALSE(rab.supports(Collective::AllToAll));
}

TEST(CollectiveAlgorithms, DoubleBinaryTreeMovesTwiceTheBufferWithLogDepth) {
  const DoubleBinaryTree tree;
  const double n = kN.value;
  // One node: a chain of g ranks, 2(g−1) α_i, 2n/β'_i.
  expect_terms(tree.time(Collective::AllReduce, group(8, 1), kN), 2 * 7 * kAi, 2 * n / kBi, 0);
  // 8 per node on 4 nodes: chain of 8, trees of depth ⌊log₂4⌋ = 2 over the nodes.
  expect_terms(tree.time(Collective::AllReduce, group(32, 4), kN), 2 * (7 * kAi + 2 * kAe), 0,
               2 * n / kBe);
  // One GPU per node on 12 nodes: depth ⌊log₂12⌋ = 3, no chain.
  expect_terms(tree.time(Collective::AllReduce, group(12, 12), kN), 2 * 3 * kAe, 0, 2 * n / kBe);
  // Its latency grows with log₂ of the nodes, the ring's linearly: the tree wins on small
  // messages over many nodes.
  const Bytes small(1e3);
  EXPECT_LT(tree.time(Collective::AllReduce, group(256, 256), small).total().value,
            Ring().time(Collective::AllReduce, group(256, 256), small).total().value);
  EXPECT_TRUE(tree.supports(Collective::AllReduce));
  for (Collective c : {Collective::ReduceScatter, Collective::AllGather, Collective::AllToAll})
    EXPECT_FALSE(tree.supports(c));
}

TEST(CollectiveAlgorithms, HierarchicalIsIntraRingsAroundAnInterRing) {
  const Hierarchical h;
  const double n = kN.value, g = 8, k = 4;
  // All-reduce: intra reduce-scatter, inter ring all-reduce of n/g, intra all-gather.
  expect_terms(h.time(Collective::AllReduce, group(32, 4), kN),
               2 * (g - 1) * kAi + 2 * (k - 1) * kAe, 2 * (g - 1) / g * n / kBi,
               2 * (k - 1) / k * (n / g) / kBe);
  // Reduce-scatter, all-gather: one intra ring half, one inter ring half on n/g.
  for (Collective half : {Collective::ReduceScatter, Collective::AllGather}) {
    expect_terms(h.time(half, group(32, 4), kN), (g - 1) * kAi + (k - 1) * kAe,
                 (g - 1) / g * n / kBi, (k - 1) / k * (n / g) / kBe);
  }
  // Within one node it is the intra-node ring.
  const CommTime one = h.time(Collective::AllReduce, group(8, 1), kN);
  const CommTime ring = Ring().time(Collective::AllReduce, group(8, 1), kN);
  EXPECT_EQ(one.latency.value, ring.latency.value);
  EXPECT_EQ(one.intra.value, ring.intra.value);
  EXPECT_EQ(one.inter.value, 0.0);
  // One rank per node: no intra phase, the inter ring on the whole buffer.
  expect_terms(h.time(Collective::AllReduce, group(4, 4), kN), 2 * 3 * kAe, 0,
               2 * 3.0 / 4 * n / kBe);
}

TEST(CollectiveAlgorithms, PairwiseAllToAllSplitsPartnersByTier) {
  const PairwiseAllToAll a2a;
  const double n = kN.value;
  // Within a node: r − 1 steps of n/r.
  expect_terms(a2a.time(Collective::AllToAll, group(8, 1), kN), 7 * kAi, 7.0 / 8 * n / kBi, 0);
  // 8 per node on 4 nodes: 7 partners on the node, 24 on others.
  expect_terms(a2a.time(Collective::AllToAll, group(32, 4), kN), 7 * kAi + 24 * kAe,
               7.0 / 32 * n / kBi, 24.0 / 32 * n / kBe);
  // One rank per node: every partner across.
  expect_terms(a2a.time(Collective::AllToAll, group(4, 4), kN), 3 * kAe, 0, 3.0 / 4 * n / kBe);
  EXPECT_TRUE(a2a.supports(Collective::AllToAll));
  EXPECT_FALSE(a2a.supports(Collective::AllReduce));
}

TEST(CollectiveAlgorithms, OneRankCostsNothing) {
  const Ring ring;
  const Rabenseifner rab;
  const DoubleBinaryTree tree;
  const Hierarchical h;
  const PairwiseAllToAll a2a;
  for (const CollectiveAlgorithm* a :
       std::initializer_list<const CollectiveAlgorithm*>{&ring, &rab, &tree, &h}) {
    EXPECT_EQ(a->time(Collective::AllReduce, group(1, 1), kN).total().value, 0.0) << a->name();
  }
  EXPECT_EQ(a2a.time(Collective::AllToAll, group(1, 1), kN).total().value, 0.0);
}

TEST(CollectiveAlgorithms, TermsAddAndScale) {
  const CommTime a{core::Seconds(1.0), core::Seconds(2.0), core::Seconds(3.0)};
  const CommTime b{core::Seconds(0.5), core::Seconds(0.25), core::Seconds(0.125)};
  expect_terms(a + b, 1.5, 2.25, 3.125);
  expect_terms(3.0 * a, 3.0, 6.0, 9.0);
  EXPECT_STREQ(collective_name(Collective::AllToAll), "all-to-all");
}

}  // namespace
}  // namespace pipesim::hardware
