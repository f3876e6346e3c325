#include "pipesim/cost/op_collective.hpp"

#include <algorithm>

namespace pipesim::cost {

hardware::CommTime ring_exposed_time(const hardware::HardwareProfile& hw, const OpCollective& c) {
  if (c.ranks <= 1) return {};
  const bool inter = c.nodes > 1;
  const hardware::CommTime step =
      hardware::p2p_time(inter ? hw.inter_node : hw.intra_node, c.bytes, inter);
  const double alone = step.total().value;
  if (alone <= 0) return {};
  const double exposed = std::max(0.0, alone - c.hidden);
  return (static_cast<double>(c.ranks - 1) * exposed / alone) * step;
}

hardware::CommTime collectives_time(const hardware::HardwareProfile& hw,
                                    const std::vector<OpCollective>& collectives) {
  hardware::CommTime t;
  for (const OpCollective& c : collectives) {
    if (c.priced) {
      t = t + c.calls * *c.priced;
    } else if (c.ring_exchange) {
      t = t + c.calls * ring_exposed_time(hw, c);
    } else {
      t = t + c.calls * hardware::collective_time(hw, c.kind, c.ranks, c.nodes, c.bytes);
    }
  }
  return t;
}

}  // namespace pipesim::cost
