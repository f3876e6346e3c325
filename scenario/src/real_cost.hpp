#pragma once
// What the replay and the lower bounds (run_bounds) share of a real-cost run: its checks and
// how its memory becomes its reported peak.

#include <vector>

#include "pipesim/hardware/profile.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/sim/memory.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim::scenario::detail {

//! Refuses overlap_grad_reduce without eager (or blocking) sync, and overlap_param_gather on
//! an asynchronous schedule (core::ConfigError).
void check_overlapped_sync(const PerfSpec& ps, const sim::Schedule& schedule);

//! Applies the profile's overheads to the workers' memory; returns the highest peak.
double peak_with_overheads(std::vector<sim::WorkerMemory>& memory,
                           const hardware::MemoryOverhead& overhead);

//! The workers' memory with the profile's overheads (p.hardware), its peak and whether it fits
//! p.memory_capacity.
void set_memory(PerfResult& p, std::vector<sim::WorkerMemory> memory);

}  // namespace pipesim::scenario::detail
