// V-Min (Qi et al., "Pipeline Parallelism with Controllable Memory", NeurIPS 2024, arXiv
// 2405.15362, §4 and Fig. 4; the authors' scheduler in github.com/sail-sg/
// zero-bubble-pipeline-parallelism, zerobubble/scheduler, "min" pattern): the V-shape building
// block with the smallest lifespan. 2 chunks per worker (stage r and 2D-1-r on worker r),
// backward split into I and W. On worker r one micro-batch's passes take the slots
//   F chunk 0: r,  F chunk 1: 2D-1-r,  I chunk 1: 2D+g+r,  I chunk 0: 4D+g-1-r
// (g = 2 when 3 divides D, else 0, so the four slots differ modulo 6), repeated every 6 slots;
// the warm-up and cool-down are reordered and W fills the free slots (building_blocks.cpp).
// A worker's activations live 4D+2g slots per micro-batch in all, so it holds about 2D/3 chunk
// activations, a third of 1F1B's D stages: the authors give (D+4)//3 stages. Bubble about
// 2D/3 (t_F+t_I+t_W) per worker at t_F = t_I = t_W (the authors' bubble rate ~2p/3m).

#include "builders.hpp"
#include "building_blocks.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

detail::VBlockSlots v_min_block(int stages, int worker) {
  const long d = stages, r = worker, g = stages % 3 == 0 ? 2 : 0;
  return {r, 2 * d - 1 - r, 2 * d + g + r, 4 * d + g - 1 - r};
}

sim::Schedule make_v_min(const ScheduleParams& params) {
  return detail::v_block_schedule("v-min", params.stages, params.micro_batches, &v_min_block);
}

}  // namespace

const ScheduleEntry& v_min_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "v-min";
    e.description = "V-shape building block, 2 chunks per worker, ~1/3 of 1F1B's activations";
    e.citation = "Qi et al., Controllable Memory PP, NeurIPS 2024";
    e.traits.split_backward = true;
    e.make = &make_v_min;
    e.shape = &detail::two_chunks;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
