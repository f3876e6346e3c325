// ZB-H2 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §3.1 and Fig. 4): more
// memory, no bubble. Every stage may hold up to 2D-1 micro-batches' activations, so stage s
// fills the start-up bubble with 2(D-s)-1 warm-up forwards, and W passes are deferred to the
// tail, making the schedule a parallelogram. Idle per stage (D-1)(t_F + t_I - 2t_W), zero when
// t_F = t_I = t_W. pipesim derives the order as the paper's handcrafted schedules are drawn:
// a greedy pass over equal-cost slots, I first, then F while under the memory limit, then W.

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

sim::Schedule make_zb_h2(const ScheduleParams& params) {
  sim::Schedule s = sim::make_linear_schedule("zb-h2", params.stages, params.micro_batches);
  s.split_backward = true;
  detail::ListPolicy policy;
  policy.max_in_flight.assign(static_cast<size_t>(s.workers), 2 * s.workers - 1);
  detail::list_schedule(s, policy);
  return s;
}

}  // namespace

const ScheduleEntry& zb_h2_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "zb-h2";
    e.description = "zero bubble, 2D-1 activations, W deferred to the tail";
    e.citation = "Qi et al., Zero Bubble PP, ICLR 2024";
    e.traits.split_backward = true;
    e.make = &make_zb_h2;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
