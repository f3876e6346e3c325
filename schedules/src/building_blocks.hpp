#pragma once
// The building-block construction of Qi et al., "Pipeline Parallelism with Controllable Memory"
// (NeurIPS 2024, arXiv 2405.15362, §3): lay out one micro-batch's passes on a grid of equal
// slots (the building block), repeat it every 6 slots per micro-batch, reorder the warm-up and
// cool-down passes into earlier free slots without raising any worker's peak activations, and
// fill the remaining free slots with the W passes. A worker's program is its passes in slot
// order; replaying it eagerly is the paper's "squeeze". V-Half and V-Min differ only in their
// block (schedules/src/v_half.cpp, v_min.cpp).

#include <array>
#include <string>
#include <vector>

#include "pipesim/sim/schedule.hpp"

namespace pipesim::schedules::detail {

//! Slots of one micro-batch's passes on worker r in a V-shape block (2 chunks per worker,
//! detail::v_shape_map): forward of chunk 0 (stage r), forward of chunk 1 (stage 2D−1−r),
//! backward-for-input of chunk 1, backward-for-input of chunk 0. Every slot taken on a worker
//! by the block repeated every 6 slots must be distinct modulo 6.
using VBlockSlots = std::array<long, 4>;

//! The V-shape schedule built from `block(D, r)` for every worker r, N micro-batches, backward
//! split into I and W.
sim::Schedule v_block_schedule(std::string name, int stages, int micro_batches,
                               VBlockSlots (*block)(int stages, int worker));

}  // namespace pipesim::schedules::detail
