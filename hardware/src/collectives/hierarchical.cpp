#include "pipesim/hardware/collectives/hierarchical.hpp"

#include "pipesim/core/assert.hpp"
#include "pipesim/hardware/collectives/ring.hpp"

namespace pipesim::hardware {

bool Hierarchical::supports(Collective c) const {
  return c != Collective::AllToAll;
}

CommTime Hierarchical::time(Collective c, const CollectiveGroup& g, core::Bytes n) const {
  PIPESIM_ASSERT(supports(c) && g.ranks >= 1 && g.nodes >= 1, "hierarchical: unsupported call");
  if (g.ranks <= 1) return {};
  if (!g.spans_nodes()) return Ring().time(c, g, n);
  // Phases: per node g ranks (intra), then one rank per node on k nodes (inter) on n/g.
  const double per_node = g.per_node();
  const bool all_reduce = c == Collective::AllReduce;
  const double intra_phases = all_reduce ? 2 : 1;  // reduce-scatter (and all-gather)
  CommTime t;
  if (g.per_node() > 1) {
    const double phase_latency = (per_node - 1) * g.intra.alpha;
    const double phase_bandwidth = (per_node - 1) / per_node * n.value / g.intra.effective_beta();
    t.latency = core::Seconds(intra_phases * phase_latency);
    t.intra = core::Seconds(intra_phases * phase_bandwidth);
  }
  CollectiveGroup across = g;
  across.ranks = g.nodes;
  const CommTime inter = Ring().time(c, across, n / per_node);
  t.latency += inter.latency;
  t.inter = inter.inter;
  return t;
}

}  // namespace pipesim::hardware
