// DualPipe (DeepSeek-AI, DeepSeek-V3 Technical Report, arXiv 2412.19437, §3.2.1; code
// github.com/deepseek-ai/DualPipe): bidirectional like Chimera (down pipeline stage k on worker
// k, up pipeline mirrored, each worker holds two stages: 2·M_θ), backward split into I and W,
// micro-batches 0..N/2-1 enter from worker 0 and N/2..N-1 from worker D-1. Needs even D and
// even N. Order: greedy over equal-cost slots, I first, then F, then W, at most D+1
// activation sets per worker. pipesim runs ops one at a time per worker: DualPipe's overlap of
// one forward with another micro-batch's backward ("F&B" chunk) is modelled as t_F + t_B.

#include <fmt/format.h>

#include "builders.hpp"
#include "pipesim/schedules/generators.hpp"
#include "pipesim/schedules/params_check.hpp"

namespace pipesim::schedules {

sim::Schedule make_dualpipe(const ScheduleParams& params) {
  require_basic("dualpipe", params);
  const int d = params.stages, n = params.micro_batches;
  if (d % 2 != 0) reject("dualpipe", "--stages", fmt::format("must be even, got {}", d));
  if (n % 2 != 0) {
    reject("dualpipe", "--micro-batches",
           fmt::format("must be even (half enter from each end), got {}", n));
  }
  sim::Schedule s;
  s.name = "dualpipe";
  s.workers = d;
  s.stages = d;
  s.pipelines = 2;
  s.micro_batches = n;
  s.split_backward = true;
  s.stage_worker.assign(2, std::vector<int>(static_cast<size_t>(d)));
  for (int k = 0; k < d; ++k) {
    s.stage_worker[0][static_cast<size_t>(k)] = k;
    s.stage_worker[1][static_cast<size_t>(k)] = d - 1 - k;
  }
  s.micro_batch_pipeline.resize(static_cast<size_t>(n));
  for (int m = 0; m < n; ++m) s.micro_batch_pipeline[static_cast<size_t>(m)] = m < n / 2 ? 0 : 1;
  detail::ListPolicy policy;
  policy.max_in_flight.assign(static_cast<size_t>(d), d + 1);
  detail::list_schedule(s, policy);
  return s;
}

}  // namespace pipesim::schedules
