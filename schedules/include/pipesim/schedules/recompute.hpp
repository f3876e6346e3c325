#pragma once
// Activation recomputation as a schedule transformation, usable by any generator or caller
// (Chimera's forward doubling; `--recompute full` in model mode).
//
// with_recomputation(s) returns s with one R (recomputed forward) inserted on each worker
// immediately before every backward B, or before every I when the backward is split, and
// s.recompute set. The lowering then adds F→R→B/I edges; metrics count an R as busy time.
// A schedule that already recomputes is returned unchanged.

#include "pipesim/sim/schedule.hpp"

namespace pipesim::schedules {

sim::Schedule with_recomputation(sim::Schedule s);

}  // namespace pipesim::schedules
