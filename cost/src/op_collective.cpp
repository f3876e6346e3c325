#include "pipesim/cost/op_collective.hpp"

#include <algorithm>

namespace pipesim::cost {

hardware::CommTime exposed_beyond(const hardware::CommTime& time, double hidden) {
  const double alone = time.total().value;
  if (alone <= 0) return {};
  if (hidden <= 0) return time;
  return (std::max(0.0, alone - hidden) / alone) * time;
}

hardware::CommTime ring_exposed_time(const hardware::HardwareProfile& hw, const OpCollective& c) {
  if (c.ranks <= 1) return {};
  const bool inter = c.nodes > 1;
  const hardware::CommTime step =
      hardware::p2p_time(inter ? hw.inter_node : hw.intra_node, c.bytes, inter);
  return static_cast<double>(c.ranks - 1) * exposed_beyond(step, c.hidden);
}

hardware::CommTime collectives_time(const hardware::HardwareProfile& hw,
                                    const std::vector<OpCollective>& collectives) {
  hardware::CommTime t;
  for (const OpCollective& c : collectives) {
    if (c.priced) {
      t = t + c.calls * exposed_beyond(*c.priced, c.hidden);
    } else if (c.ring_exchange) {
      t = t + c.calls * ring_exposed_time(hw, c);
    } else {
      t = t + c.calls * hardware::collective_time(hw, c.kind, c.ranks, c.nodes, c.bytes);
    }
  }
  return t;
}

}  // namespace pipesim::cost
