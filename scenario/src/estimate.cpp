#include "pipesim/scenario/estimate.hpp"

#include <fmt/format.h>

#include "pipesim/core/budget.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::scenario {

RunEstimate estimate_run(const Scenario& s) {
  RunEstimate e;
  e.tasks = schedules::estimate_tasks(s.schedule, s.params);
  e.bytes = e.tasks * (s.perf.enabled() ? kRealCostBytesPerTask : kUnitCostBytesPerTask);
  return e;
}

void check_run_budget(const Scenario& s) {
  const RunEstimate e = estimate_run(s);
  core::check_task_budget(fmt::format("schedule {}", s.schedule), "run", e.tasks,
                          core::Budget{s.max_tasks});
}

}  // namespace pipesim::scenario
