#pragma once
// A shipped profile without the framework's host dispatch (framework.op_overhead = 0): for the
// tests that check an op's time against the kernel formula alone; cost/host_issue.hpp's tests
// check the dispatch.

#include <string>

#include "pipesim/hardware/profile.hpp"

namespace pipesim::cost {

inline hardware::HardwareProfile bare_profile(const std::string& name) {
  hardware::HardwareProfile hw = hardware::load_profile(name);
  hw.framework.op_overhead = 0;
  return hw;
}

}  // namespace pipesim::cost
