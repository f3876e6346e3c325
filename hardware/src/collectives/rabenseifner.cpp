#include "pipesim/hardware/collectives/rabenseifner.hpp"

#include <cmath>

#include "pipesim/core/assert.hpp"

namespace pipesim::hardware {

bool Rabenseifner::supports(Collective c) const {
  return c != Collective::AllToAll;
}

CommTime Rabenseifner::time(Collective c, const CollectiveGroup& g, core::Bytes n) const {
  PIPESIM_ASSERT(supports(c) && g.ranks >= 1 && g.nodes >= 1, "rabenseifner: unsupported call");
  if (g.ranks <= 1) return {};
  const double r = g.ranks;
  const Hockney& link = g.flat_link();
  const double steps = std::ceil(std::log2(r));
  if (c == Collective::AllReduce) {
    return comm_time(2 * steps * link.alpha, 2 * (r - 1) / r * n.value / link.effective_beta(),
                     g.spans_nodes());
  }
  return comm_time(steps * link.alpha, (r - 1) / r * n.value / link.effective_beta(),
                   g.spans_nodes());
}

}  // namespace pipesim::hardware
