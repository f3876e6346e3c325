#pragma once
// All-to-all by pairwise exchange (Thakur, Rabenseifner & Gropp, IJHPCA 19(1), 2005, §4.5, the
// long-message algorithm): in r − 1 steps each rank exchanges its n/r-byte block with one
// other rank, (r−1)α + (r−1)/r · n/β' on one tier. With g ranks per node on k nodes a rank's
// g − 1 node-mates are reached over the intra tier and its r − g other partners over the
// inter-node tier, each step one after the other:
//   (g−1)α_i + (r−g)α_e + (g−1)/r · n/β'_i + (r−g)/r · n/β'_e.
// (Expert parallelism's token dispatch and combine are such exchanges.)

#include "pipesim/hardware/collectives/collective_algorithm.hpp"

namespace pipesim::hardware {

class PairwiseAllToAll final : public CollectiveAlgorithm {
 public:
  const char* name() const override { return "pairwise"; }
  //! All-to-all only.
  bool supports(Collective c) const override;
  CommTime time(Collective c, const CollectiveGroup& group, core::Bytes n) const override;
};

}  // namespace pipesim::hardware
