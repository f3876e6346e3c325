// GEMS (Jain et al., "GEMS: GPU-Enabled Memory-Aware Model-Parallelism System for Distributed
// DNN Training", SC'20, §IV "MAST"): two model replicas, the second mirrored (its stage k on
// worker D-1-k). Micro-batches alternate between them (even ids down, odd ids up) and at most
// two are in flight: the down micro-batch's forward runs to the last worker, its backward comes
// back while the up micro-batch's forward starts from that last worker; the next pair starts
// after both backwards. Order: each worker's ops sorted by their start in that ideal timeline
// (t_B = 2t_F, as in Chimera's Fig. 3), period 4D+2 slots per pair.

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

sim::Schedule make_gems(const ScheduleParams& params) {
  const int d = params.stages, n = params.micro_batches;
  sim::Schedule s;
  s.name = "gems";
  s.workers = d;
  s.virtual_stages = d;
  s.pipelines = 2;
  s.micro_batches = n;
  s.stage_worker.assign(2, std::vector<int>(static_cast<size_t>(d)));
  for (int k = 0; k < d; ++k) {
    s.stage_worker[0][static_cast<size_t>(k)] = k;
    s.stage_worker[1][static_cast<size_t>(k)] = d - 1 - k;
  }
  s.micro_batch_pipeline.resize(static_cast<size_t>(n));
  std::vector<detail::SlottedOp> ops;
  for (int m = 0; m < n; ++m) {
    const int p = m % 2;
    s.micro_batch_pipeline[static_cast<size_t>(m)] = p;
    const long base = static_cast<long>(m / 2) * (4L * d + 2);
    for (int k = 0; k < d; ++k) {
      if (p == 0) {
        ops.push_back({base + k, 1, detail::fwd(0, k, m)});
        ops.push_back({base + d + 2L * (d - 1 - k), 0, detail::bwd(0, k, m)});
      } else {
        ops.push_back({base + d + 2 + k, 1, detail::fwd(1, k, m)});
        ops.push_back({base + 2L * d + 2 + 2L * (d - 1 - k), 0, detail::bwd(1, k, m)});
      }
    }
  }
  detail::assign_by_slot(s, std::move(ops));
  return s;
}

}  // namespace

const ScheduleEntry& gems_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "gems";
    e.description = "two mirrored replicas, at most two micro-batches in flight";
    e.citation = "Jain et al., GEMS, SC 2020";
    e.make = &make_gems;
    e.shape = &detail::two_pipelines;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
