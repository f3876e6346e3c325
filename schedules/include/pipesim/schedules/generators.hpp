#pragma once
// One generator per scheme, each in its own file (schedules/src/<name>.cpp).

#include "pipesim/schedules/registry.hpp"

namespace pipesim::schedules {

sim::Schedule make_gpipe(const ScheduleParams& params);
sim::Schedule make_1f1b(const ScheduleParams& params);

}  // namespace pipesim::schedules
