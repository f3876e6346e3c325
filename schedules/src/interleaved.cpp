// Interleaved 1F1B, Megatron-LM's virtual pipeline (Narayanan et al., "Efficient Large-Scale
// Language Model Training on GPU Clusters Using Megatron-LM", SC'21, §2.2.2; order as in
// Megatron-LM's forward_backward_pipelining_with_interleaving). Each worker holds v model
// chunks: virtual stage c·D + w runs on worker w. Micro-batches go in groups of D; the k-th
// forward on a worker is chunk (k mod vD)/D of micro-batch (k / vD)·D + k mod D, backwards
// mirror the chunks. Worker w runs 2(D-w-1) + (v-1)D warm-up forwards (all of them when N = D),
// then 1F1B, then the remaining backwards. Needs N % D == 0. Bubble (D-1)/(vN+D-1).

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

sim::Schedule make_interleaved(const ScheduleParams& params) {
  const int d = params.stages, n = params.micro_batches;
  const int v = detail::chunks_of(params);
  sim::Schedule s = detail::looped_schedule("interleaved", params);
  const int total = n * v;
  for (int w = 0; w < d; ++w) {
    auto op = [&](int k, bool forward) {
      const int in_group = k % (d * v);
      int chunk = in_group / d;
      if (!forward) chunk = v - 1 - chunk;
      const int mb = (k / (d * v)) * d + in_group % d;
      const int stage = chunk * d + w;
      return forward ? detail::fwd(0, stage, mb, chunk) : detail::bwd(0, stage, mb, chunk);
    };
    const int warmup = n == d ? total : std::min(2 * (d - w - 1) + (v - 1) * d, total);
    auto& prog = s.program[static_cast<size_t>(w)];
    for (int k = 0; k < warmup; ++k)
      prog.push_back(op(k, true));
    for (int k = 0; k < total - warmup; ++k) {
      prog.push_back(op(warmup + k, true));
      prog.push_back(op(k, false));
    }
    for (int k = total - warmup; k < total; ++k)
      prog.push_back(op(k, false));
  }
  return s;
}

constexpr std::array kConstraints{
    Constraint{"micro_batches",
               [](const ScheduleParams& p) { return p.micro_batches % p.stages == 0; },
               [](const ScheduleParams& p) {
                 return fmt::format(
                     "must be a multiple of D = {} (Megatron groups micro-batches by D), got {}",
                     p.stages, p.micro_batches);
               }},
};

}  // namespace

const ScheduleEntry& interleaved_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "interleaved";
    e.description = "Megatron virtual pipeline, v chunks per worker (chunks)";
    e.citation = "Narayanan et al., Megatron-LM, SC 2021";
    e.aliases = {"ScheduleInterleaved1F1B"};  // torch.distributed.pipelining
    e.options = {detail::chunks_option()};
    e.constraints = {kConstraints.begin(), kConstraints.end()};
    e.make = &make_interleaved;
    e.shape = &detail::listed_chunks;
    e.variants = &detail::chunk_variants;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
