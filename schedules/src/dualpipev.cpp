// DualPipeV (DeepSeek-AI, github.com/deepseek-ai/DualPipe, "DualPipeV"; the "cut-in-half"
// variant described by Sea AI Lab): DualPipe folded onto D workers in a V shape, 2 chunks per
// worker (virtual stage k < D on worker k, k >= D on worker 2D-1-k), all micro-batches enter at
// worker 0, backward split into I and W, at most D+1 full-stage (2D+2 chunk) activation sets per
// worker. Order: greedy over equal-cost slots, I first, then F (earlier chunk first, which
// front-loads chunk-0 warm-up forwards as DualPipeV does), then W. F&B overlap is modelled as
// serial ops (see dualpipe.cpp).

#include "builders.hpp"
#include "pipesim/schedules/generators.hpp"
#include "pipesim/schedules/params_check.hpp"

namespace pipesim::schedules {

sim::Schedule make_dualpipev(const ScheduleParams& params) {
  require_basic("dualpipev", params);
  sim::Schedule s = sim::make_linear_schedule("dualpipev", params.stages, params.micro_batches);
  s.stages = 2 * s.workers;
  s.stage_worker[0] = detail::v_shape_map(s.workers);
  s.split_backward = true;
  detail::ListPolicy policy;
  policy.max_in_flight.assign(static_cast<size_t>(s.workers), 2 * s.workers + 2);
  detail::list_schedule(s, policy);
  return s;
}

}  // namespace pipesim::schedules
