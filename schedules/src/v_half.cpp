// V-Half (Qi et al., "Pipeline Parallelism with Controllable Memory", NeurIPS 2024, arXiv
// 2405.15362, §4 and Fig. 4; the authors' scheduler in github.com/sail-sg/
// zero-bubble-pipeline-parallelism, zerobubble/scheduler, "half" pattern): the V-shape building
// block with half of 1F1B's lifespan. 2 chunks per worker (stage r and 2D-1-r on worker r),
// backward split into I and W. On worker r one micro-batch's passes take the slots
//   F chunk 0: 2r,  F chunk 1: 3D-2-r,  I chunk 1: 3D+g-1+2r,  I chunk 0: 6D+g-2-r
// (g = 3 when D is even, else 0, so the four slots differ modulo 6), repeated every 6 slots;
// the warm-up and cool-down are reordered and W fills the free slots (building_blocks.cpp).
// A worker's activations live 6D+2g-1 slots per micro-batch in all, so it holds about D chunk
// activations, half of 1F1B's D stages: the authors give (D+2)//2 stages. Bubble about
// D/2 (t_F+t_I+t_W) per worker at t_F = t_I = t_W (the authors' bubble rate ~p/2m).

#include "builders.hpp"
#include "building_blocks.hpp"
#include "entries.hpp"

namespace pipesim::schedules {
namespace {

detail::VBlockSlots v_half_block(int stages, int worker) {
  const long d = stages, r = worker, g = stages % 2 == 0 ? 3 : 0;
  return {2 * r, 3 * d - 2 - r, 3 * d + g - 1 + 2 * r, 6 * d + g - 2 - r};
}

sim::Schedule make_v_half(const ScheduleParams& params) {
  return detail::v_block_schedule("v-half", params.stages, params.micro_batches, &v_half_block);
}

}  // namespace

const ScheduleEntry& v_half_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "v-half";
    e.description = "V-shape building block, 2 chunks per worker, ~1/2 of 1F1B's activations";
    e.citation = "Qi et al., Controllable Memory PP, NeurIPS 2024";
    e.traits.split_backward = true;
    e.make = &make_v_half;
    e.shape = &detail::two_chunks;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
