#pragma once
// Communication times in closed form (docs/architecture.md §4). Each result keeps its latency and
// bandwidth parts apart, so the simulator can slow the bandwidth part when links are shared.
//
// Sources:
//  [H94] Hockney, "The communication challenge for MPP", Parallel Computing 20(3), 1994.
//  [T05] Thakur, Rabenseifner & Gropp, "Optimization of Collective Communication Operations in
//        MPICH", IJHPCA 19(1), 2005: ring all-reduce 2(r−1)α + 2(r−1)/r·nβ; Rabenseifner's
//        reduce-scatter + all-gather 2log₂r·α + 2(r−1)/r·nβ (β here as seconds per byte).
//  [J18] Jia et al., "Highly Scalable Deep Learning Training System with Mixed-Precision",
//        arXiv 1807.11205, §3.3: hierarchical all-reduce = intra-node reduce-scatter,
//        inter-node all-reduce of 1/g of the data, intra-node all-gather.

#include "pipesim/core/units.hpp"
#include "pipesim/hardware/profile.hpp"

namespace pipesim::hardware {

struct CommTime {
  core::Seconds latency{0.0};  //!< α terms: not slowed by sharing
  core::Seconds intra{0.0};    //!< bandwidth term on intra-node links, alone
  core::Seconds inter{0.0};    //!< bandwidth term on inter-node links, alone
  core::Seconds total() const { return latency + intra + inter; }
};

//! [H94]: α + n/β, on the given tier (`inter` selects which bandwidth field it fills).
CommTime p2p_time(const Hockney& link, core::Bytes n, bool inter);
//! [T05] ring: 2(r−1)α + 2(r−1)/r · n/β.
CommTime ring_all_reduce(const Hockney& link, int ranks, core::Bytes n, bool inter);
//! [T05] Rabenseifner: 2⌈log₂r⌉α + 2(r−1)/r · n/β (⌈⌉ for r not a power of two).
CommTime rabenseifner_all_reduce(const Hockney& link, int ranks, core::Bytes n, bool inter);
//! [J18] with g ranks per node on k nodes, ring phases: intra reduce-scatter
//! (g−1)α_i + (g−1)/g·n/β_i, inter ring all-reduce of n/g over k nodes, intra all-gather
//! (g−1)α_i + (g−1)/g·n/β_i.
CommTime hierarchical_all_reduce(const Hockney& intra, const Hockney& inter, int per_node,
                                 int nodes, core::Bytes n);

//! All-reduce of n bytes over `ranks` GPUs spread over `nodes` nodes with `per_node` ranks
//! each, by the profile's algorithm, or by its fitted curve (collectives.fitted.all_reduce)
//! for the tier it spans. Within one node the intra tier is used; across nodes a flat
//! algorithm runs at the inter-node link's speed (its slowest hop).
CommTime all_reduce_time(const HardwareProfile& p, int ranks, int nodes, core::Bytes n);

}  // namespace pipesim::hardware
