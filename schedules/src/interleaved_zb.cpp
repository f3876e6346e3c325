// Interleaved zero bubble ("ZB1P"): interleaved 1F1B with the backward split into I and W (Qi et
// al., "Zero Bubble Pipeline Parallelism", ICLR 2024, arXiv 2401.10241), in the order of
// PyTorch's ScheduleInterleavedZeroBubble (torch.distributed.pipelining,
// _calculate_single_rank_operations with enable_zero_bubble). The stage map is the interleaved
// one: v chunks per worker, virtual stage c·D + w on worker w.
//
// Micro-batches go in rounds of m = N / max(1, ⌊N/D⌋) (N must be a multiple of the number of
// rounds). The k-th forward on a worker is chunk ⌊k/m⌋ mod v, the k-th input-gradient backward
// chunk v−1−(⌊k/m⌋ mod v), each chunk's micro-batches in order. Worker w runs (v−1)·m + D−1−w
// warm-up forwards (one more per hop from the last worker where interleaved 1F1B runs two: W's
// fill that bubble instead), at most vN; then forward, I pairs; then the remaining I's. Worker
// w holds back w W's: its k-th I is followed by the W of its (k−w)-th, and the last w W's end
// the iteration. With one chunk the forwards and I's are zb-h1's; zb-h1 keeps the first w W's
// for the end instead. At unit costs every worker idles (D−1)(t_F + t_I − t_W)/v and holds
// (v−1)m + D chunk activation sets.

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

int rounds_of(const ScheduleParams& p) {
  return std::max(1, p.micro_batches / p.stages);
}

sim::Schedule make_interleaved_zb(const ScheduleParams& params) {
  const int d = params.stages, n = params.micro_batches;
  const int v = detail::chunks_of(params);
  const int round = n / rounds_of(params);
  sim::Schedule s = detail::looped_schedule("interleaved-zb", params);
  s.split_backward = true;
  const int total = n * v;
  for (int w = 0; w < d; ++w) {
    // Each chunk's passes take its micro-batches in order.
    std::vector<int> next_forward(static_cast<size_t>(v)), next_input(static_cast<size_t>(v)),
        next_weight(static_cast<size_t>(v));
    auto& prog = s.program[static_cast<size_t>(w)];
    // The chunk of the k-th forward, and of the k-th I (and so of the W that follows it).
    auto forward_chunk = [&](int k) { return (k / round) % v; };
    auto backward_chunk = [&](int k) { return v - 1 - (k / round) % v; };
    auto forward = [&](int k) {
      const int chunk = forward_chunk(k);
      prog.push_back(detail::fwd(0, chunk * d + w, next_forward[chunk]++, chunk));
    };
    auto weight = [&](int j) {
      const int chunk = backward_chunk(j);
      prog.push_back(detail::bwd_weight(0, chunk * d + w, next_weight[chunk]++, chunk));
    };
    auto input = [&](int k) {
      const int chunk = backward_chunk(k);
      prog.push_back(detail::bwd_input(0, chunk * d + w, next_input[chunk]++, chunk));
      if (k >= w) weight(k - w);
    };
    const int warmup = std::min((v - 1) * round + d - 1 - w, total);
    for (int k = 0; k < warmup; ++k)
      forward(k);
    for (int k = 0; k < total - warmup; ++k) {
      forward(warmup + k);
      input(k);
    }
    for (int k = total - warmup; k < total; ++k)
      input(k);
    for (int j = std::max(0, total - w); j < total; ++j)
      weight(j);
  }
  return s;
}

constexpr std::array kConstraints{
    Constraint{"micro_batches",
               [](const ScheduleParams& p) { return p.micro_batches % rounds_of(p) == 0; },
               [](const ScheduleParams& p) {
                 return fmt::format(
                     "must be a multiple of its rounds max(1, N / D) = {} (micro-batches go in "
                     "rounds of at least D), got {}",
                     rounds_of(p), p.micro_batches);
               }},
};

}  // namespace

const ScheduleEntry& interleaved_zb_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "interleaved-zb";
    e.description = "interleaved 1F1B, backward split into I and W filling the bubbles (chunks)";
    e.citation = "Qi et al., Zero Bubble PP, ICLR 2024 (PyTorch's ZB1P order)";
    e.aliases = {"ScheduleInterleavedZeroBubble"};  // torch.distributed.pipelining
    e.traits.split_backward = true;
    e.options = {detail::chunks_option()};
    e.constraints = {kConstraints.begin(), kConstraints.end()};
    e.make = &make_interleaved_zb;
    e.shape = &detail::listed_chunks;
    e.variants = &detail::chunk_variants;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
