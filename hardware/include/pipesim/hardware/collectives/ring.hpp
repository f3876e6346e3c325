#pragma once
// Ring all-reduce, reduce-scatter and all-gather (Thakur, Rabenseifner & Gropp, "Optimization of
// Collective Communication Operations in MPICH", IJHPCA 19(1), 2005, §4; Patarasuk & Yuan,
// JPDC 69(2), 2009, for its bandwidth optimality). Over r ranks on one tier (α, β'):
//   reduce-scatter, all-gather: r − 1 steps of n/r bytes: (r−1)α + (r−1)/r · n/β';
//   all-reduce: a reduce-scatter then an all-gather: 2(r−1)α + 2(r−1)/r · n/β'.
// One flat ring: within a node on the intra tier, across nodes at the inter-node tier.

#include "pipesim/hardware/collectives/collective_algorithm.hpp"

namespace pipesim::hardware {

class Ring final : public CollectiveAlgorithm {
 public:
  const char* name() const override { return "ring"; }
  //! All-reduce, reduce-scatter, all-gather (not all-to-all).
  bool supports(Collective c) const override;
  CommTime time(Collective c, const CollectiveGroup& group, core::Bytes n) const override;
};

}  // namespace pipesim::hardware
