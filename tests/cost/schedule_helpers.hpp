#pragma once
// The 1F1B schedule the cost tests price (any valid schedule would do; 1F1B is the common one).

#include "pipesim/schedules/registry.hpp"

namespace pipesim::cost::testing {

inline sim::Schedule one_f_one_b(int stages, int micro_batches) {
  schedules::ScheduleParams p;
  p.stages = stages;
  p.micro_batches = micro_batches;
  return schedules::make_schedule("1f1b", p);
}

}  // namespace pipesim::cost::testing
