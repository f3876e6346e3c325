// ZB-V (Qi et al., "Pipeline Parallelism with Controllable Memory", NeurIPS 2024, arXiv
// 2405.15362, §4 and Fig. 5; first in the zero-bubble repo as ZB-V): 2 chunks per worker in a V
// shape: virtual stage k < D on worker k, stage k >= D on worker 2D-1-k, so the first and the
// last stage share worker 0. Backward split into I and W. Each worker holds at most 2D
// chunk activations (= 1F1B's D full-stage activations). Order: greedy over equal-cost slots,
// I first, then F (the later chunk first), then W. Zero bubble when t_F = t_I = t_W.

#include "builders.hpp"
#include "pipesim/schedules/generators.hpp"
#include "pipesim/schedules/params_check.hpp"

namespace pipesim::schedules {

sim::Schedule make_zb_v(const ScheduleParams& params) {
  require_basic("zb-v", params);
  sim::Schedule s = sim::make_linear_schedule("zb-v", params.stages, params.micro_batches);
  s.stages = 2 * s.workers;
  s.stage_worker[0] = detail::v_shape_map(s.workers);
  s.split_backward = true;
  detail::ListPolicy policy;
  policy.forward_later_chunk_first = true;
  policy.max_in_flight.assign(static_cast<size_t>(s.workers), 2 * s.workers);
  detail::list_schedule(s, policy);
  return s;
}

}  // namespace pipesim::schedules
