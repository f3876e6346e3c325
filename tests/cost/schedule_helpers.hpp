#pragma once
// What the cost tests share: the 1F1B schedule they price (any valid schedule would do; 1F1B is
// the common one), and a shipped profile whose memory-bound passes cost exactly bytes over the
// HBM bandwidth.

#include <string>

#include "pipesim/hardware/profile.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::cost::testing {

inline sim::Schedule one_f_one_b(int stages, int micro_batches) {
  schedules::ScheduleParams p;
  p.stages = stages;
  p.micro_batches = micro_batches;
  return schedules::make_schedule("1f1b", p);
}

//! Profile `name` with free launches and host overhead and a flat HBM efficiency of 1, so a
//! memory-bound pass of n bytes takes n / hbm_bandwidth.
inline hardware::HardwareProfile at_hbm_bandwidth(const std::string& name) {
  hardware::HardwareProfile hw = hardware::load_profile(name);
  hw.gpu.kernel_launch = 0;
  hw.framework.op_overhead = 0;
  hw.gpu.hbm_efficiency = hardware::EfficiencyCurve{{{1.0, 1.0}}};
  return hw;
}

}  // namespace pipesim::cost::testing
