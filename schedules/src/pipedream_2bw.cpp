// PipeDream-2BW (Narayanan et al., "Memory-Efficient Pipeline-Parallel DNN Training", ICML 2021,
// §3.1): the same asynchronous 1F1B order as PipeDream, but weights are double-buffered: a new
// version is produced every N micro-batches (gradient coalescing) and only two versions are
// ever kept, whatever the depth (weights 2·M_θ on every worker). The all-reduce of update k
// overlaps batch k+1 and must end before that batch's gradient completes, i.e. before the
// stage's last backward of iteration k+1 (sim/lowering.cpp).

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

sim::Schedule make_pipedream_2bw(const ScheduleParams& params) {
  const int iterations = static_cast<int>(params.options.integer("iterations"));
  sim::Schedule s =
      detail::make_async_1f1b("pipedream-2bw", params.stages, params.micro_batches, iterations);
  s.weight_versions.assign(static_cast<size_t>(s.workers), 2);
  s.update_gate = sim::UpdateGate::LastBackwardOfNext;
  s.drains_each_run = params.options.on("epoch_drain");
  return s;
}

}  // namespace

const ScheduleEntry& pipedream_2bw_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "pipedream-2bw";
    e.description = "asynchronous 1F1B, double-buffered weights, no flush";
    e.citation = "Narayanan et al., PipeDream-2BW, ICML 2021";
    e.traits.asynchronous = true;
    e.options = detail::async_options();
    e.make = &make_pipedream_2bw;
    e.shape = &detail::listed_iterations;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
