// ZB-H2 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §3.1 and Fig. 4): more
// memory, no bubble. Every stage may hold up to 2D-1 micro-batches' activations, so stage s
// fills the start-up bubble with 2(D-s)-1 warm-up forwards, and W passes are deferred to the
// tail, making the schedule a parallelogram. Idle per stage (D-1)(t_F + t_I - 2t_W), zero when
// t_F = t_I = t_W. pipesim derives the order as the paper's handcrafted schedules are drawn:
// a greedy pass over equal-cost slots, I first, then F while under the memory limit, then W.

#include "builders.hpp"
#include "pipesim/schedules/generators.hpp"
#include "pipesim/schedules/params_check.hpp"

namespace pipesim::schedules {

sim::Schedule make_zb_h2(const ScheduleParams& params) {
  require_valid("zb-h2", params);
  sim::Schedule s = sim::make_linear_schedule("zb-h2", params.stages, params.micro_batches);
  s.split_backward = true;
  detail::ListPolicy policy;
  policy.max_in_flight.assign(static_cast<size_t>(s.workers), 2 * s.workers - 1);
  detail::list_schedule(s, policy);
  return s;
}

}  // namespace pipesim::schedules
