// PipeDream (Narayanan et al., "PipeDream: Generalized Pipeline Parallelism for DNN Training",
// SOSP 2019, §3.3 "1F1B" and weight stashing): asynchronous 1F1B with no pipeline flush. Stage s
// injects D-s-1 warm-up forwards once; from then on it alternates one forward and one backward
// across iteration boundaries, so the pipeline never drains. Each in-flight micro-batch uses
// the weight version it saw in its forward (weight stashing): stage s keeps D-s versions.
// pipesim lists `iterations` (default 4) iterations of N micro-batches (ids iteration-major)
// and reports the steady state (sim/metrics.hpp). Weights are updated once per iteration (every
// N micro-batches; N = 1 is the paper's per-minibatch update); with data parallelism each
// update's gradient all-reduce must end before the stage's next backward (sim/lowering.cpp).

#include <algorithm>

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {

sim::Schedule detail::make_async_1f1b(std::string name, int stages, int micro_batches,
                                      int iterations) {
  sim::Schedule s = sim::make_linear_schedule(std::move(name), stages, micro_batches * iterations);
  s.micro_batches = micro_batches;
  s.iterations = iterations;
  s.asynchronous = true;
  const int total = micro_batches * iterations;
  for (int stage = 0; stage < stages; ++stage) {
    auto& ops = s.program[static_cast<size_t>(stage)];
    const int warmup = std::min(stages - stage - 1, total);
    int f = 0, b = 0;
    while (f < warmup)
      ops.push_back({sim::OpKind::Forward, 0, stage, 0, f++});
    while (f < total) {
      ops.push_back({sim::OpKind::Forward, 0, stage, 0, f++});
      ops.push_back({sim::OpKind::Backward, 0, stage, 0, b++});
    }
    while (b < total)
      ops.push_back({sim::OpKind::Backward, 0, stage, 0, b++});
  }
  return s;
}

namespace {

sim::Schedule make_pipedream(const ScheduleParams& params) {
  const int iterations = static_cast<int>(params.options.integer("iterations"));
  sim::Schedule s =
      detail::make_async_1f1b("pipedream", params.stages, params.micro_batches, iterations);
  s.update_gate = sim::UpdateGate::NextBackward;
  s.drains_each_run = params.options.on("epoch_drain");
  s.weight_versions.resize(static_cast<size_t>(s.workers));
  for (int w = 0; w < s.workers; ++w) {
    s.weight_versions[static_cast<size_t>(w)] =
        std::min(s.workers - w, params.micro_batches * iterations);
  }
  return s;
}

}  // namespace

const ScheduleEntry& pipedream_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "pipedream";
    e.description = "asynchronous 1F1B, weight stashing, no flush (steady state)";
    e.citation = "Narayanan et al., PipeDream, SOSP 2019";
    e.traits.asynchronous = true;
    e.options = detail::async_options();
    e.make = &make_pipedream;
    e.shape = &detail::listed_iterations;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
