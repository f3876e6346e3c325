// 1F1B, PipeDream-Flush (Narayanan et al., "Memory-Efficient Pipeline-Parallel DNN Training",
// ICML 2021, Fig. 3): stage s runs D−s−1 warm-up forwards, then alternates one forward and one
// backward, then drains the remaining backwards; one flush per iteration. At most D−s
// micro-batches' activations are live on stage s.

#include <algorithm>

#include "entries.hpp"

namespace pipesim::schedules {
namespace {

sim::Schedule make_1f1b(const ScheduleParams& params) {
  sim::Schedule s = sim::make_linear_schedule("1f1b", params.stages, params.micro_batches);
  const int n = s.micro_batches;
  for (int stage = 0; stage < s.virtual_stages; ++stage) {
    auto& ops = s.program[static_cast<size_t>(stage)];
    ops.reserve(2 * static_cast<size_t>(n));
    auto forward = [&](int m) { ops.push_back({sim::OpKind::Forward, 0, stage, 0, m}); };
    auto backward = [&](int m) { ops.push_back({sim::OpKind::Backward, 0, stage, 0, m}); };
    const int warmup = std::min(s.virtual_stages - stage - 1, n);
    int f = 0, b = 0;
    while (f < warmup)
      forward(f++);
    while (f < n) {
      forward(f++);
      backward(b++);
    }
    while (b < n)
      backward(b++);
  }
  return s;
}

}  // namespace

const ScheduleEntry& one_f_one_b_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "1f1b";
    e.description = "PipeDream-Flush: D-s-1 warm-up forwards, one-forward-one-backward";
    e.citation = "Narayanan et al., PipeDream-2BW/Flush, ICML 2021";
    e.aliases = {"Schedule1F1B"};  // torch.distributed.pipelining
    e.make = &make_1f1b;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
