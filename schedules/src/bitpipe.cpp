// BitPipe (Wu, Chen & Yu, "BitPipe: Bidirectional Interleaved Pipeline Parallelism for
// Accelerating Large Models Training", arXiv 2410.19367; github.com/wuhouming/BitPipe, whose
// README figure BitPipe-v.svg draws D = 4). Two V-shaped interleaved pipelines in opposite
// directions: each pipeline is cut into 2D chunk stages; the down pipeline puts stage k < D on
// worker k and stage k >= D on worker 2D-1-k (so stages D-1 and D meet on worker D-1 and pass
// by local copy), the up pipeline mirrors it (k < D on worker D-1-k, k >= D on worker k-D).
// Every worker holds two chunks of each pipeline: 2M_θ of weights, like Chimera with two
// pipelines, and a chunk's ops cost t/2.
//
// Order rule: Chimera's slot rule on the 2D-stage V pipelines. Micro-batches go in basic units
// of D; unit u gives the down pipeline ids uD + x and the up pipeline uD + D/2 + x, x < D/2
// (docs/architecture.md §7's numbering). In chunk slots (one per chunk op), micro-batch x of a
// unit runs stage k forward at slot 4Du + k + 2x and backward at 4Du + 4D-1-k + 2x; a worker's
// order is its ops sorted by slot. Units are concatenated (N = kD, the repository's
// scale-moreb.svg), unit u shifted by one unit's work per worker (4D chunk slots), so a unit's
// tail backwards interleave with the next unit's head forwards. For D = 4, N = 4 this is the
// figure's order on all four workers (asserted). For even D no two ops of a worker share a
// slot: on worker w, down F of chunk 0, up F of chunk 1, down B of chunk 1 and up B of chunk 0
// take the slots of w's parity in consecutive runs [w, 4D+w-2], and the other four the other
// parity in [D-1-w, 5D-3-w] (schedules/README.md). Hence, at t_B = t_F, the span is
// (4N + D - 2) chunk slots for 4N of work: bubble (D-2)/(4N+D-2), Chimera's (D-2)/(2N+D-2)
// with every op half as long. Departure: the paper's text (its bubble and memory table) was not
// reachable here; the closed forms are derived from this rule and asserted, and they reproduce
// the figure (D = 4, N = 4, t_B = 2t_F: 28 chunk slots, bubble 1/7).

#include <fmt/format.h>

#include <array>

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

using P = ScheduleParams;

sim::Schedule make_bitpipe(const P& params) {
  const int d = params.stages, n = params.micro_batches, half = d / 2;
  sim::Schedule s;
  s.name = "bitpipe";
  s.workers = d;
  s.virtual_stages = 2 * d;
  s.pipelines = 2;
  s.micro_batches = n;
  s.stage_worker = {detail::v_shape_map(d), std::vector<int>(static_cast<size_t>(2 * d))};
  for (int k = 0; k < 2 * d; ++k)
    s.stage_worker[1][static_cast<size_t>(k)] = k < d ? d - 1 - k : k - d;
  s.micro_batch_pipeline.resize(static_cast<size_t>(n));
  std::vector<detail::SlottedOp> ops;
  for (int m = 0; m < n; ++m) {
    const int r = m % d, p = r < half ? 0 : 1, x = r % half;
    s.micro_batch_pipeline[static_cast<size_t>(m)] = p;
    const long base = 4L * d * (m / d) + 2L * x;
    for (int k = 0; k < 2 * d; ++k) {
      const int chunk = k / d;
      ops.push_back({base + k, 0, detail::fwd(p, k, m, chunk)});
      ops.push_back({base + 4L * d - 1 - k, 0, detail::bwd(p, k, m, chunk)});
    }
  }
  detail::assign_by_slot(s, std::move(ops));
  return s;
}

constexpr std::array kConstraints{
    Constraint{"stages", [](const P& p) { return p.stages % 2 == 0; },
               [](const P& p) {
                 return fmt::format(
                     "must be even (a down and an up pipeline share the workers), got {}",
                     p.stages);
               }},
    Constraint{"micro_batches", [](const P& p) { return p.micro_batches % p.stages == 0; },
               [](const P& p) {
                 return fmt::format("must be a multiple of D = {} (basic units of D), got {}",
                                    p.stages, p.micro_batches);
               }},
};

core::OptionValues bidirectional_v_shape(const P&) {
  core::OptionValues shape;
  shape.set("chunks", std::int64_t{2});
  shape.set("pipelines", std::int64_t{2});
  return shape;
}

}  // namespace

const ScheduleEntry& bitpipe_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "bitpipe";
    e.description = "bidirectional interleaved: two V-shaped 2-chunk pipelines, 2 weight copies";
    e.citation = "Wu, Chen & Yu, BitPipe, arXiv 2410.19367";
    e.constraints = {kConstraints.begin(), kConstraints.end()};
    e.make = &make_bitpipe;
    e.shape = &bidirectional_v_shape;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
