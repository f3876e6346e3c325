// DualPipe (DeepSeek-AI, DeepSeek-V3 Technical Report, arXiv 2412.19437, §3.2.1 and Fig. 5;
// code github.com/deepseek-ai/DualPipe, dualpipe.py): bidirectional like Chimera. Rank r holds
// stage r of the down pipeline and stage D-1-r of the up pipeline (2·M_θ); micro-batches
// 0..N/2-1 enter at rank 0, N/2..N-1 at rank D-1. Backward split into I and W. Per-rank order:
// the reference implementation's eight steps (warm-up forwards, zero-bubble B/W/F, the main
// loop of overlapped F&B pairs, cool-down backwards whose W's are deferred), see
// detail::dualpipe_order. Needs even D and even N >= 2D. Each overlapped "F&B" chunk (a forward
// and another micro-batch's whole backward, hiding each one's all-to-all behind the other's
// compute) is one overlapped unit (sim::Join): t_F&B = t_F + t_B, both results released at its
// end, each half's collectives beside the other half's compute (sim/README.md).

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

using P = ScheduleParams;

constexpr std::array kConstraints{
    Constraint{"stages", [](const P& p) { return p.stages % 2 == 0; },
               [](const P& p) { return fmt::format("must be even, got {}", p.stages); }},
    Constraint{
        "micro_batches",
        [](const P& p) { return p.micro_batches % 2 == 0 && p.micro_batches >= 2 * p.stages; },
        [](const P& p) {
          return fmt::format("must be even and at least 2D = {} (half enter from each end), got {}",
                             2 * p.stages, p.micro_batches);
        }},
};

sim::Schedule make_dualpipe(const ScheduleParams& params) {
  const int d = params.stages, n = params.micro_batches;
  sim::Schedule s;
  s.name = "dualpipe";
  s.workers = d;
  s.virtual_stages = d;
  s.pipelines = 2;
  s.micro_batches = n;
  s.split_backward = true;
  s.stage_worker.assign(2, std::vector<int>(static_cast<size_t>(d)));
  for (int k = 0; k < d; ++k) {
    s.stage_worker[0][static_cast<size_t>(k)] = k;
    s.stage_worker[1][static_cast<size_t>(k)] = d - 1 - k;
  }
  s.micro_batch_pipeline.resize(static_cast<size_t>(n));
  std::vector<int> down, up;
  for (int m = 0; m < n; ++m) {
    s.micro_batch_pipeline[static_cast<size_t>(m)] = m < n / 2 ? 0 : 1;
    (m < n / 2 ? down : up).push_back(m);
  }
  s.program.resize(static_cast<size_t>(d));
  for (int r = 0; r < d; ++r) {
    const detail::DualPipePhase down_part{0, r, 0, down}, up_part{1, d - 1 - r, 0, up};
    // Phase 0 is the direction whose micro-batches enter nearer to this rank.
    const detail::DualPipePhase phases[2] = {r < d / 2 ? down_part : up_part,
                                             r < d / 2 ? up_part : down_part};
    s.program[static_cast<size_t>(r)] =
        detail::dualpipe_order(d / 2, std::min(r, d - 1 - r), phases);
  }
  return s;
}

}  // namespace

const ScheduleEntry& dualpipe_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "dualpipe";
    e.description = "bidirectional, split backward, micro-batches from both ends";
    e.citation = "DeepSeek-AI, DeepSeek-V3 report 2024";
    e.traits.split_backward = true;
    e.constraints = {kConstraints.begin(), kConstraints.end()};
    e.make = &make_dualpipe;
    e.shape = &detail::two_pipelines;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
