#include "pipesim/hardware/collectives/ring.hpp"

#include "pipesim/core/assert.hpp"

namespace pipesim::hardware {

bool Ring::supports(Collective c) const {
  return c != Collective::AllToAll;
}

CommTime Ring::time(Collective c, const CollectiveGroup& g, core::Bytes n) const {
  PIPESIM_ASSERT(supports(c) && g.ranks >= 1 && g.nodes >= 1, "ring: unsupported call");
  if (g.ranks <= 1) return {};
  const double r = g.ranks;
  const Hockney& link = g.flat_link();
  if (c == Collective::AllReduce) {
    return comm_time(2 * (r - 1) * link.alpha, 2 * (r - 1) / r * n.value / link.effective_beta(),
                     g.spans_nodes());
  }
  return comm_time((r - 1) * link.alpha, (r - 1) / r * n.value / link.effective_beta(),
                   g.spans_nodes());
}

}  // namespace pipesim::hardware
