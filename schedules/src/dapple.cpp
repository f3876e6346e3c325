// DAPPLE (Fan et al., PPoPP 2021, §3.2 "early backward scheduling"): each stage injects D-s-1
// warm-up forwards, then strictly alternates one forward and one backward, then drains. The op
// order is exactly PipeDream-Flush's 1F1B (make_1f1b); DAPPLE's contribution is the planner
// and the early release of activations, which the metrics already model. Listed separately
// so that catalogue comparisons (Chimera Table 2) name it.

#include "pipesim/schedules/generators.hpp"
#include "pipesim/schedules/params_check.hpp"

namespace pipesim::schedules {

sim::Schedule make_dapple(const ScheduleParams& params) {
  require_valid("dapple", params);
  sim::Schedule s = make_1f1b(params);
  s.name = "dapple";
  return s;
}

}  // namespace pipesim::schedules
