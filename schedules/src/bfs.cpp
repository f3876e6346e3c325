// Breadth-first looped pipeline (Lamy-Poirier, "Breadth-First Pipeline Parallelism", MLSys
// 2023, arXiv 2211.05953; order of PyTorch's ScheduleLoopedBFS,
// _calculate_single_rank_operations). The stage map is the interleaved one: v chunks per worker,
// virtual stage c·D + w on worker w. The order is breadth-first over chunks: worker w runs the
// forwards of chunk 0 for micro-batches 0..N-1, then chunk 1's, ..., chunk v-1's; then the
// backwards chunk by chunk in reverse, v-1 down to 0, each from micro-batch N-1 down to 0 (the
// last forward's activations are the first ones freed); one flush per iteration. Any N.
//
// Unit costs (a chunk runs t/v): span ((v-1)·max(N, D) + N + D - 1)(t_F + t_B)/v, so the bubble
// is (D-1)/(vN+D-1) for N >= D (interleaved's: fill and drain are D-1 chunk slots each) and
// (v(D-N) + N - 1)/(vD + N - 1) for N < D (each loop waits for the first micro-batch to come
// round). Every worker holds all vN chunk activation sets when its forwards end (N·M_a, GPipe's).

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

sim::Schedule make_bfs(const ScheduleParams& params) {
  const int d = params.stages, n = params.micro_batches;
  const int v = detail::chunks_of(params);
  sim::Schedule s = detail::looped_schedule("bfs", params);
  for (int w = 0; w < d; ++w) {
    auto& prog = s.program[static_cast<size_t>(w)];
    for (int chunk = 0; chunk < v; ++chunk) {
      for (int mb = 0; mb < n; ++mb)
        prog.push_back(detail::fwd(0, chunk * d + w, mb, chunk));
    }
    for (int chunk = v - 1; chunk >= 0; --chunk) {
      for (int mb = n - 1; mb >= 0; --mb)
        prog.push_back(detail::bwd(0, chunk * d + w, mb, chunk));
    }
  }
  return s;
}

}  // namespace

const ScheduleEntry& bfs_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "bfs";
    e.description = "breadth-first looped pipeline, v chunks per worker (chunks)";
    e.citation = "Lamy-Poirier, Breadth-First Pipeline Parallelism, MLSys 2023";
    e.aliases = {"ScheduleLoopedBFS"};  // torch.distributed.pipelining
    e.options = {detail::chunks_option()};
    e.make = &make_bfs;
    e.shape = &detail::listed_chunks;
    e.variants = &detail::chunk_variants;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
