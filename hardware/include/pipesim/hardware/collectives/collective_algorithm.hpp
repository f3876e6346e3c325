#pragma once
// One interface for the collective algorithms, one algorithm per file beside it (ASTRA-sim's
// system/collective/ is the model: Ring, DoubleBinaryTree, HalvingDoubling, AllToAll behind one
// base). An algorithm prices the collectives it implements from the α-β (Hockney) tiers of the
// group's links, keeping latency, intra-node and inter-node bandwidth terms apart: the
// simulator slows the bandwidth terms where links are shared (sim/network.hpp).
//
// Every bandwidth term uses the tier's β' = β · efficiency (profile links.<tier>.efficiency).
// Formulas and citations: hardware/README.md, "Formulas", and each algorithm's header.

#include <cstdint>

#include "pipesim/core/units.hpp"
#include "pipesim/hardware/profile.hpp"

namespace pipesim::hardware {

struct CommTime {
  core::Seconds latency{0.0};  //!< α terms: not slowed by sharing
  core::Seconds intra{0.0};    //!< bandwidth term on intra-node links, alone
  core::Seconds inter{0.0};    //!< bandwidth term on inter-node links, alone
  core::Seconds total() const { return latency + intra + inter; }
};

//! `a` + `b`, term by term: collectives one after the other.
CommTime operator+(CommTime a, const CommTime& b);
//! Every term times k: k collectives one after the other.
CommTime operator*(double k, CommTime t);

//! The collectives priced, on n bytes: the whole buffer each rank starts with (all-reduce,
//! reduce-scatter, all-to-all: n/r of it goes to each rank) or ends with (all-gather).
enum class Collective : std::uint8_t { AllReduce, ReduceScatter, AllGather, AllToAll };
const char* collective_name(Collective c);

//! The ranks of one collective and the links between them: `ranks` GPUs on `nodes` nodes,
//! per_node() of them on each; two ranks on one node talk over `intra`, others over `inter`.
struct CollectiveGroup {
  int ranks = 1;
  int nodes = 1;
  Hockney intra, inter;

  //! g = ⌈ranks / nodes⌉.
  int per_node() const { return (ranks + nodes - 1) / nodes; }
  bool spans_nodes() const { return nodes > 1; }
  //! The tier a flat algorithm (one ring, one tree, one recursive exchange over all ranks)
  //! runs at: intra within one node, inter across nodes (its slowest hop).
  const Hockney& flat_link() const { return spans_nodes() ? inter : intra; }
};

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  //! The name a profile gives it (collectives.all_reduce.algorithm), or its own.
  virtual const char* name() const = 0;
  //! Whether it implements `c`; time() is legal only then.
  virtual bool supports(Collective c) const = 0;
  //! The time of collective `c` of n bytes over the group (≥ 1 rank and node, asserted); zero
  //! for one rank.
  virtual CommTime time(Collective c, const CollectiveGroup& group, core::Bytes n) const = 0;
};

//! latency + a bandwidth term on one tier: the intra-node one, or the inter-node one when
//! `inter`.
CommTime comm_time(double latency, double bandwidth, bool inter);

}  // namespace pipesim::hardware
