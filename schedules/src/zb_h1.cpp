// ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, arXiv 2401.10241, §3.1 and
// Fig. 3): the backward is split into I (input gradient, "B" in the paper) and W (weight
// gradient). Same warm-up and memory as 1F1B (at most D-s micro-batches held on stage s), but
// stage s postpones the W of its first s micro-batches to the end of the iteration, so the
// input gradients reach the first stage sooner and the cool-down bubbles are filled with W.
// Idle per stage (D-1)(t_F + t_I - t_W). Order as in PaddlePaddle's pipeline_scheduler_ZBH1.

#include <algorithm>

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

sim::Schedule make_zb_h1(const ScheduleParams& params) {
  sim::Schedule s = sim::make_linear_schedule("zb-h1", params.stages, params.micro_batches);
  s.split_backward = true;
  const int n = s.micro_batches;
  for (int st = 0; st < s.virtual_stages; ++st) {
    auto& ops = s.program[static_cast<size_t>(st)];
    const int warmup = std::min(s.virtual_stages - st, n);
    int f = 0;
    while (f < warmup)
      ops.push_back(detail::fwd(0, st, f++));
    for (int b = 0; b < n; ++b) {
      ops.push_back(detail::bwd_input(0, st, b));
      if (b >= st) ops.push_back(detail::bwd_weight(0, st, b));
      if (f < n) ops.push_back(detail::fwd(0, st, f++));
    }
    for (int b = 0; b < std::min(st, n); ++b)
      ops.push_back(detail::bwd_weight(0, st, b));
  }
  return s;
}

}  // namespace

const ScheduleEntry& zb_h1_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "zb-h1";
    e.description = "zero bubble, 1F1B memory, backward split into I and W";
    e.citation = "Qi et al., Zero Bubble PP, ICLR 2024";
    e.traits.split_backward = true;
    e.make = &make_zb_h1;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
