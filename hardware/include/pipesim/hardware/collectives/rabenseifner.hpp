#pragma once
// Rabenseifner's all-reduce: a reduce-scatter by recursive halving, then an all-gather by
// recursive doubling (Thakur, Rabenseifner & Gropp, IJHPCA 19(1), 2005, §4.4 and §4.1;
// Rabenseifner, "Optimization of Collective Reduction Operations", ICCS 2004). Over r ranks on one
// tier:
//   reduce-scatter, all-gather: ⌈log₂r⌉ steps, (r−1)/r of the buffer in all:
//     ⌈log₂r⌉α + (r−1)/r · n/β';
//   all-reduce: both: 2⌈log₂r⌉α + 2(r−1)/r · n/β'.
// ⌈⌉ for r not a power of two (MPICH pairs the surplus ranks off first: one more step). One flat
// exchange: within a node on the intra tier, across nodes at the inter-node tier.

#include "pipesim/hardware/collectives/collective_algorithm.hpp"

namespace pipesim::hardware {

class Rabenseifner final : public CollectiveAlgorithm {
 public:
  const char* name() const override { return "rabenseifner"; }
  //! All-reduce, reduce-scatter, all-gather (not all-to-all).
  bool supports(Collective c) const override;
  CommTime time(Collective c, const CollectiveGroup& group, core::Bytes n) const override;
};

}  // namespace pipesim::hardware
