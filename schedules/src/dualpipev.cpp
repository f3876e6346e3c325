// DualPipeV (DeepSeek-AI, github.com/deepseek-ai/DualPipe, dualpipev.py; the "cut-in-half"
// DualPipe proposed by Sea AI Lab): DualPipe folded onto D workers in a V shape. Each worker r
// holds two chunks, virtual stage r (phase 0) and stage 2D-1-r (phase 1); every micro-batch
// enters at worker 0, goes down chunk 0 and back up chunk 1. Backward split into I and W. The
// per-rank order is DualPipe's eight steps with H = D ranks and h = r (detail::dualpipe_order);
// needs N >= 2D. F&B chunks are overlapped units, as in dualpipe.cpp.

#include <fmt/format.h>

#include <array>
#include <numeric>

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

constexpr std::array kConstraints{
    Constraint{
        "micro_batches", [](const ScheduleParams& p) { return p.micro_batches >= 2 * p.stages; },
        [](const ScheduleParams& p) {
          return fmt::format("must be at least 2D = {}, got {}", 2 * p.stages, p.micro_batches);
        }},
};

sim::Schedule make_dualpipev(const ScheduleParams& params) {
  const int d = params.stages, n = params.micro_batches;
  sim::Schedule s = sim::make_linear_schedule("dualpipev", d, n);
  s.virtual_stages = 2 * d;
  s.stage_worker[0] = detail::v_shape_map(d);
  s.split_backward = true;
  std::vector<int> all(static_cast<size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  for (int r = 0; r < d; ++r) {
    const detail::DualPipePhase phases[2] = {{0, r, 0, all}, {0, 2 * d - 1 - r, 1, all}};
    s.program[static_cast<size_t>(r)] = detail::dualpipe_order(d, r, phases);
  }
  return s;
}

}  // namespace

const ScheduleEntry& dualpipev_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "dualpipev";
    e.description = "DualPipe folded into a V shape on D workers";
    e.citation = "DeepSeek-AI, github.com/deepseek-ai/DualPipe";
    e.aliases = {"ScheduleDualPipeV"};  // torch.distributed.pipelining
    e.traits.split_backward = true;
    e.constraints = {kConstraints.begin(), kConstraints.end()};
    e.make = &make_dualpipev;
    e.shape = &detail::two_chunks;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
