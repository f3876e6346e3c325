// ZB-V (Qi et al., "Pipeline Parallelism with Controllable Memory", NeurIPS 2024, arXiv
// 2405.15362, §4 and Fig. 5; zero-bubble repo's ZB-V): 2 chunks per worker in a V shape:
// virtual stage k < D on worker k, stage k >= D on worker 2D-1-k, so the first and the last
// stage share worker 0. Backward split into I and W. Worker r: 2(D-r)-1 chunk-0 forwards, r
// pairs (chunk-1 F, chunk-0 F), D-r chunk-1 (F, I, W), then the steady (F0 I0 W0 F1 I1 W1)
// cycle, and a cool-down of I's whose W's fill the tail. Order as PyTorch's
// ScheduleZBVZeroBubble; for N < 2D-1 the ops of the missing micro-batches are dropped. Zero
// bubble when t_F = t_I = t_W; at most 2D chunk activations (1F1B's D full stages).

#include <algorithm>

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

sim::Schedule make_zb_v(const ScheduleParams& params) {
  sim::Schedule s = sim::make_linear_schedule("zb-v", params.stages, params.micro_batches);
  const int p = s.workers, n = s.micro_batches, padded = std::max(2 * p - 1, n);
  s.virtual_stages = 2 * p;
  s.stage_worker[0] = detail::v_shape_map(p);
  s.split_backward = true;
  for (int r = 0; r < p; ++r) {
    auto& ops = s.program[static_cast<size_t>(r)];
    const int s0 = r, s1 = 2 * p - 1 - r;
    int f0 = 0, f1 = 0, b0 = 0, b1 = 0;
    auto emit = [&](sim::Op op) {
      if (op.micro_batch < n) ops.push_back(op);
    };
    auto f = [&](int chunk) {
      emit(chunk == 0 ? detail::fwd(0, s0, f0++, 0) : detail::fwd(0, s1, f1++, 1));
    };
    auto i_only = [&](int chunk) {
      emit(chunk == 0 ? detail::bwd_input(0, s0, b0++, 0) : detail::bwd_input(0, s1, b1++, 1));
    };
    auto i_w = [&](int chunk) {
      const int m = chunk == 0 ? b0 : b1;
      i_only(chunk);
      emit(detail::bwd_weight(0, chunk == 0 ? s0 : s1, m, chunk));
    };
    for (int k = 0; k < 2 * (p - r) - 1; ++k)
      f(0);
    for (int k = 0; k < r; ++k) {
      f(1);
      f(0);
    }
    for (int k = 0; k < p - r; ++k) {
      f(1);
      i_w(1);
    }
    while (f1 < f0 || f0 < padded) {
      if (f0 < padded) f(0);
      i_w(0);
      f(1);
      i_w(1);
    }
    int w0 = b0, w1 = b1;
    for (int k = 0; k < r; ++k) {
      i_only(0);
      i_only(1);
    }
    for (int k = 0; k < p - r; ++k) {
      i_only(0);
      emit(detail::bwd_weight(0, s0, w0++, 0));
    }
    while (w1 < b1)
      emit(detail::bwd_weight(0, s1, w1++, 1));
    while (w0 < b0)
      emit(detail::bwd_weight(0, s0, w0++, 0));
  }
  return s;
}

}  // namespace

const ScheduleEntry& zb_v_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "zb-v";
    e.description = "zero bubble V-shape, 2 chunks per worker, 1F1B memory";
    e.citation = "Qi et al., Controllable Memory PP, NeurIPS 2024";
    e.aliases = {"ScheduleZBVZeroBubble"};  // torch.distributed.pipelining
    e.traits.split_backward = true;
    e.make = &make_zb_v;
    e.shape = &detail::two_chunks;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
