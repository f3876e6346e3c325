#pragma once
// Communication times in closed form (docs/architecture.md §4): point-to-point, and each
// collective by the profile's algorithm (collectives/, one algorithm per file behind
// CollectiveAlgorithm) or by its measured fit. Each result keeps its latency and bandwidth parts
// apart, so the simulator can slow the bandwidth part when links are shared.
//
//  [H94] Hockney, "The communication challenge for MPP", Parallel Computing 20(3), 1994.
// The algorithms cite theirs (hardware/README.md, "Formulas").

#include "pipesim/core/units.hpp"
#include "pipesim/hardware/collectives/collective_algorithm.hpp"
#include "pipesim/hardware/profile.hpp"

namespace pipesim::hardware {

//! [H94]: α + n/β', on the given tier (`inter` selects which bandwidth field it fills).
CommTime p2p_time(const Hockney& link, core::Bytes n, bool inter);

//! The algorithm a profile names (collectives.all_reduce.algorithm).
const CollectiveAlgorithm& algorithm(AllReduceAlgorithm a);

//! Collective `c` of n bytes over `ranks` GPUs spread over `nodes` nodes (⌈ranks/nodes⌉ each),
//! on the profile's links:
//!  - a measured fit for `c` on the tier it spans (collectives.fitted, all-reduce, reduce-scatter,
//!    all-gather) is α + n/β; without one, a reduce-scatter or all-gather is half a fitted
//!    all-reduce when there is that;
//!  - otherwise the profile's algorithm when it implements `c`: all-reduce always; reduce-scatter
//!    and all-gather by ring for `tree` (NCCL runs them as rings); all-to-all by pairwise
//!    exchange.
//! Zero for one rank. Within one node the intra tier is used; a flat algorithm across nodes runs
//! at the inter-node tier (its slowest hop).
CommTime collective_time(const HardwareProfile& p, Collective c, int ranks, int nodes,
                         core::Bytes n);

//! collective_time for each collective.
CommTime all_reduce_time(const HardwareProfile& p, int ranks, int nodes, core::Bytes n);
CommTime reduce_scatter_time(const HardwareProfile& p, int ranks, int nodes, core::Bytes n);
CommTime all_gather_time(const HardwareProfile& p, int ranks, int nodes, core::Bytes n);
CommTime all_to_all_time(const HardwareProfile& p, int ranks, int nodes, core::Bytes n);

}  // namespace pipesim::hardware
