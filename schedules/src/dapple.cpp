// DAPPLE (Fan et al., PPoPP 2021, §3.2 "early backward scheduling"): each stage injects D-s-1
// warm-up forwards, then strictly alternates one forward and one backward, then drains. The op
// order is exactly PipeDream-Flush's 1F1B (1f1b's generator); DAPPLE's contribution is the planner
// and the early release of activations, which the metrics already model. Listed separately
// so that catalogue comparisons (Chimera Table 2) name it.

#include "entries.hpp"

namespace pipesim::schedules {
namespace {

sim::Schedule make_dapple(const ScheduleParams& params) {
  sim::Schedule s = one_f_one_b_entry().make(params);
  return s;
}

}  // namespace

const ScheduleEntry& dapple_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "dapple";
    e.description = "early-backward 1F1B (same op order as 1f1b), flush every iteration";
    e.citation = "Fan et al., DAPPLE, PPoPP 2021";
    e.make = &make_dapple;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
