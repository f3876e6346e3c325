#include "pipesim/cost/op_collective.hpp"

namespace pipesim::cost {

hardware::CommTime collectives_time(const hardware::HardwareProfile& hw,
                                    const std::vector<OpCollective>& collectives) {
  hardware::CommTime t;
  for (const OpCollective& c : collectives) {
    t = t + c.calls * hardware::collective_time(hw, c.kind, c.ranks, c.nodes, c.bytes);
  }
  return t;
}

}  // namespace pipesim::cost
