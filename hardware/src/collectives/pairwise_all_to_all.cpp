#include "pipesim/hardware/collectives/pairwise_all_to_all.hpp"

#include <algorithm>

#include "pipesim/core/assert.hpp"

namespace pipesim::hardware {

bool PairwiseAllToAll::supports(Collective c) const {
  return c == Collective::AllToAll;
}

CommTime PairwiseAllToAll::time(Collective c, const CollectiveGroup& g, core::Bytes n) const {
  PIPESIM_ASSERT(supports(c) && g.ranks >= 1 && g.nodes >= 1, "pairwise: unsupported call");
  if (g.ranks <= 1) return {};
  const double r = g.ranks;
  const double near = std::min(g.per_node(), g.ranks) - 1;  // partners on the rank's node
  const double far = r - 1 - near;                          // partners on other nodes
  CommTime t;
  t.latency = core::Seconds(near * g.intra.alpha + far * g.inter.alpha);
  t.intra = core::Seconds(near / r * n.value / g.intra.effective_beta());
  t.inter = core::Seconds(far / r * n.value / g.inter.effective_beta());
  return t;
}

}  // namespace pipesim::hardware
