// Hanayo (Liu, Cheng, Zhou & You, "Hanayo: Harnessing Wave-like Pipeline Parallelism for Enhanced
// Large Model Training Efficiency", SC'23, arXiv 2308.15762): a bidirectional effect without
// Chimera's weight replicas. The model is cut into 2·W·D chunks; a micro-batch runs down the D
// workers, back up, and again W times (W = `waves`), so chunk c of worker w is virtual stage
// c·D + w for even c and c·D + D-1-w for odd c (a zig-zag; W = 1 is the V of zb-v). Each worker
// holds 2W chunks, i.e. one stage's weights (M_θ), and a chunk's ops cost t/(2W).
//
// Order rule (what pipesim implements): a deterministic greedy list schedule over equal-cost
// slots: a free worker starts a ready backward first, else the ready forward of the latest
// chunk (finishing micro-batches before starting new ones), lowest micro-batch first, while it
// holds fewer than 2W·D chunk activations (1F1B's D stages of activations). Departure: the
// paper's runtime action lists were not reachable here; the greedy order reaches the bound the
// wave shape allows, asserted in tests/schedules/bidirectional_test.cpp: worker D-1 cannot start
// before D-1 chunk forwards nor finish less than D-1 chunk backwards before the end, so the
// iteration is at least N(t_F + t_B) + (D-1)(t_F + t_B)/(2W), bubble (D-1)/(2WN + D-1), and the
// schedule meets it at t_B = t_F for N a multiple of D (with one wave, close to Chimera's
// (D-2)/(2N+D-2) with one weight copy, the paper's claim).

#include <fmt/format.h>

#include "builders.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

int waves_of(const ScheduleParams& p) {
  return static_cast<int>(p.options.integer("waves"));
}

sim::Schedule make_hanayo(const ScheduleParams& params) {
  const int d = params.stages, waves = waves_of(params);
  sim::Schedule s = sim::make_linear_schedule("hanayo", d, params.micro_batches);
  s.virtual_stages = 2 * waves * d;
  auto& map = s.stage_worker[0];
  map.resize(static_cast<size_t>(s.virtual_stages));
  for (int k = 0; k < s.virtual_stages; ++k) {
    const int c = k / d, pos = k % d;
    map[static_cast<size_t>(k)] = c % 2 == 0 ? pos : d - 1 - pos;
  }
  detail::ListPolicy policy;
  policy.forward_later_chunk_first = true;
  policy.max_in_flight.assign(static_cast<size_t>(d), 2 * waves * d);
  detail::list_schedule(s, policy);
  return s;
}

core::OptionValues chunks_shape(const ScheduleParams& p) {
  core::OptionValues shape;
  shape.set("chunks", std::int64_t{2 * waves_of(p)});
  return shape;
}

// Search explores 1, 2 and 4 waves while the 2·W·D chunks fit the model's layers.
std::vector<SearchVariant> search_variants(const SearchContext& c) {
  std::vector<SearchVariant> variants;
  for (int waves = 1; waves <= 4; waves *= 2) {
    SearchVariant v;
    v.options.set("waves", std::int64_t{waves});
    if (c.layers > 0 && 2 * waves * c.stages > c.layers) {
      if (!variants.empty()) break;
      v.pruned = fmt::format("2·W·D = {} chunks > {} layers", 2 * waves * c.stages, c.layers);
    }
    variants.push_back(std::move(v));
  }
  return variants;
}

}  // namespace

const ScheduleEntry& hanayo_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "hanayo";
    e.description = "wave-like zig-zag over 2W chunks per worker (waves), one weight copy";
    e.citation = "Liu et al., Hanayo, SC 2023";
    e.options = {core::integer_option(
        "waves", 1, 16, "2",
        "hanayo: waves W, each a pass down and back up the workers (2W chunks per worker)")};
    e.make = &make_hanayo;
    e.shape = &chunks_shape;
    e.variants = &search_variants;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
