#include "pipesim/hardware/collectives/double_binary_tree.hpp"

#include <cmath>

#include "pipesim/core/assert.hpp"

namespace pipesim::hardware {

bool DoubleBinaryTree::supports(Collective c) const {
  return c == Collective::AllReduce;
}

CommTime DoubleBinaryTree::time(Collective c, const CollectiveGroup& g, core::Bytes n) const {
  PIPESIM_ASSERT(supports(c) && g.ranks >= 1 && g.nodes >= 1, "tree: unsupported call");
  if (g.ranks <= 1) return {};
  const double chain = g.per_node() - 1;  // intra-node hops of the chain
  const double depth = std::floor(std::log2(static_cast<double>(g.nodes)));
  const Hockney& link = g.flat_link();
  return comm_time(2 * (chain * g.intra.alpha + depth * g.inter.alpha),
                   2 * n.value / link.effective_beta(), g.spans_nodes());
}

}  // namespace pipesim::hardware
