// GPipe (Huang et al., NeurIPS 2019, Fig. 2c): every worker runs all N forwards, then all N
// backwards; one flush per iteration. Backwards run in micro-batch order, as PyTorch's
// ScheduleGPipe does (the paper's figure reverses them; the timing is the same).

#include "entries.hpp"

namespace pipesim::schedules {
namespace {

sim::Schedule make_gpipe(const ScheduleParams& params) {
  sim::Schedule s = sim::make_linear_schedule("gpipe", params.stages, params.micro_batches);
  for (int stage = 0; stage < s.virtual_stages; ++stage) {
    auto& ops = s.program[static_cast<size_t>(stage)];
    for (int m = 0; m < s.micro_batches; ++m)
      ops.push_back({sim::OpKind::Forward, 0, stage, 0, m});
    for (int m = 0; m < s.micro_batches; ++m)
      ops.push_back({sim::OpKind::Backward, 0, stage, 0, m});
  }
  return s;
}

}  // namespace

const ScheduleEntry& gpipe_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "gpipe";
    e.description = "all forwards, then all backwards; flush every iteration";
    e.citation = "Huang et al., GPipe, NeurIPS 2019";
    e.aliases = {"ScheduleGPipe"};  // torch.distributed.pipelining
    e.make = &make_gpipe;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
