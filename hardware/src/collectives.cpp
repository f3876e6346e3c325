#include "pipesim/hardware/collectives.hpp"

#include "pipesim/core/assert.hpp"
#include "pipesim/hardware/collectives/double_binary_tree.hpp"
#include "pipesim/hardware/collectives/hierarchical.hpp"
#include "pipesim/hardware/collectives/pairwise_all_to_all.hpp"
#include "pipesim/hardware/collectives/rabenseifner.hpp"
#include "pipesim/hardware/collectives/ring.hpp"

namespace pipesim::hardware {
namespace {

// The algorithms hold no state: one immutable instance of each.
const Ring kRing{};
const Rabenseifner kRabenseifner{};
const Hierarchical kHierarchical{};
const DoubleBinaryTree kTree{};
const PairwiseAllToAll kPairwise{};

// A measured α + n/β for this collective on the tier it spans, if the profile has one.
const Hockney* fitted_curve(const HardwareProfile& p, const char* collective, bool inter) {
  if (const auto it = p.fitted.find(collective); it != p.fitted.end()) {
    if (const auto fit = it->second.find(inter ? "inter_node" : "intra_node");
        fit != it->second.end()) {
      return &fit->second;
    }
  }
  return nullptr;
}

const char* fitted_name(Collective c) {
  switch (c) {
    case Collective::AllReduce:
      return "all_reduce";
    case Collective::ReduceScatter:
      return "reduce_scatter";
    case Collective::AllGather:
      return "all_gather";
    case Collective::AllToAll:
      return "all_to_all";
  }
  return "";
}

CommTime halve(CommTime t) {
  t.latency = t.latency / 2;
  t.intra = t.intra / 2;
  t.inter = t.inter / 2;
  return t;
}

}  // namespace

CommTime p2p_time(const Hockney& link, core::Bytes n, bool inter) {
  return comm_time(link.alpha, n.value / link.effective_beta(), inter);  // [H94]
}

const CollectiveAlgorithm& algorithm(AllReduceAlgorithm a) {
  switch (a) {
    case AllReduceAlgorithm::Ring:
      return kRing;
    case AllReduceAlgorithm::Rabenseifner:
      return kRabenseifner;
    case AllReduceAlgorithm::Hierarchical:
      return kHierarchical;
    case AllReduceAlgorithm::Tree:
      return kTree;
  }
  return kRing;
}

CommTime collective_time(const HardwareProfile& p, Collective c, int ranks, int nodes,
                         core::Bytes n) {
  PIPESIM_ASSERT(ranks >= 1 && nodes >= 1, "a collective needs ranks and nodes");
  if (ranks <= 1) return {};
  const bool inter = nodes > 1;
  if (const Hockney* fit = fitted_curve(p, fitted_name(c), inter)) return p2p_time(*fit, n, inter);
  const bool half = c == Collective::ReduceScatter || c == Collective::AllGather;
  if (half && fitted_curve(p, "all_reduce", inter)) {
    return halve(collective_time(p, Collective::AllReduce, ranks, nodes, n));
  }
  const CollectiveGroup group{ranks, nodes, p.intra_node, p.inter_node};
  if (c == Collective::AllToAll) return kPairwise.time(c, group, n);
  const CollectiveAlgorithm& a = algorithm(p.all_reduce);
  return (a.supports(c) ? a : kRing).time(c, group, n);
}

CommTime all_reduce_time(const HardwareProfile& p, int ranks, int nodes, core::Bytes n) {
  return collective_time(p, Collective::AllReduce, ranks, nodes, n);
}

CommTime reduce_scatter_time(const HardwareProfile& p, int ranks, int nodes, core::Bytes n) {
  return collective_time(p, Collective::ReduceScatter, ranks, nodes, n);
}

CommTime all_gather_time(const HardwareProfile& p, int ranks, int nodes, core::Bytes n) {
  return collective_time(p, Collective::AllGather, ranks, nodes, n);
}

CommTime all_to_all_time(const HardwareProfile& p, int ranks, int nodes, core::Bytes n) {
  return collective_time(p, Collective::AllToAll, ranks, nodes, n);
}

}  // namespace pipesim::hardware
