#pragma once
// Hierarchical (two-level) collectives (Jia et al., "Highly Scalable Deep Learning Training
// System with Mixed-Precision", arXiv 1807.11205, §3.3): g ranks per node on k nodes, rings at
// both levels (ring.hpp):
//   all-reduce: an intra-node reduce-scatter (g−1)α_i + (g−1)/g · n/β'_i, an inter-node ring
//     all-reduce of the n/g each rank holds, 2(k−1)α_e + 2(k−1)/k · (n/g)/β'_e, and an
//     intra-node all-gather (g−1)α_i + (g−1)/g · n/β'_i;
//   reduce-scatter: the intra-node reduce-scatter, then an inter-node ring reduce-scatter of
//     n/g: (g−1)α_i + (g−1)/g · n/β'_i + (k−1)α_e + (k−1)/k · (n/g)/β'_e; all-gather the same
//     in reverse (each is one half of the all-reduce).
// Within one node (k = 1) it is the intra-node ring.

#include "pipesim/hardware/collectives/collective_algorithm.hpp"

namespace pipesim::hardware {

class Hierarchical final : public CollectiveAlgorithm {
 public:
  const char* name() const override { return "hierarchical"; }
  //! All-reduce, reduce-scatter, all-gather (not all-to-all).
  bool supports(Collective c) const override;
  CommTime time(Collective c, const CollectiveGroup& group, core::Bytes n) const override;
};

}  // namespace pipesim::hardware
