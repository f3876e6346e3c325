#pragma once
// NCCL's tree all-reduce: a reduce up and a broadcast down, pipelined, over two binary trees
// that each carry half of the buffer, so that every rank is an inner node of one and a leaf of
// the other and sends and receives about 2n in all (Sanders, Speck & Träff, "Two-tree
// algorithms for full bandwidth broadcast, reduction and scan", Parallel Computing 35(12),
// 2009; Jeaugey, "Massively Scale Your Deep Learning Training with NCCL 2.4", NVIDIA technical
// blog, 2019). Within a node NCCL chains the g ranks; across k nodes the trees span the nodes.
// Cost as NCCL's own tuning model has it (src/graph/tuning.cc: tree latency
// 2((g−1)·intra + ⌊log₂k⌋·inter), algorithm bandwidth half the bus bandwidth), per tier:
//   one node:  2(g−1)α_i + 2n/β'_i;
//   k nodes:   2((g−1)α_i + ⌊log₂k⌋α_e) + 2n/β'_e (the pipeline runs at its slower, inter-node
//              hop; the intra-node chain is not a term of its own).
// NCCL implements only the all-reduce as a tree (reduce-scatter and all-gather are rings).

#include "pipesim/hardware/collectives/collective_algorithm.hpp"

namespace pipesim::hardware {

class DoubleBinaryTree final : public CollectiveAlgorithm {
 public:
  const char* name() const override { return "tree"; }
  //! All-reduce only.
  bool supports(Collective c) const override;
  CommTime time(Collective c, const CollectiveGroup& group, core::Bytes n) const override;
};

}  // namespace pipesim::hardware
