#pragma once
// Parameter bounds and scheme defaults shared by the registry's constraints and the generators.

#include <string>

#include "pipesim/schedules/registry.hpp"

namespace pipesim::schedules {

//! Upper bounds that keep a run's task count sane (and the integer ids in range).
inline constexpr int kMaxStages = 4096;
inline constexpr int kMaxMicroBatches = 1 << 20;

//! The scheme defaults a zero (or empty) parameter stands for.
inline int chimera_pipelines(const ScheduleParams& p) {
  return p.pipelines == 0 ? 2 : p.pipelines;
}
inline std::string chimera_strategy(const ScheduleParams& p) {
  return p.strategy.empty() ? "direct" : p.strategy;
}
inline int interleaved_chunks(const ScheduleParams& p) {
  return p.chunks == 0 ? 2 : p.chunks;
}
//! Asynchronous schemes: iterations to list, default 4 (steady state needs at least 3).
inline int async_iterations(const ScheduleParams& p) {
  return p.iterations == 0 ? 4 : p.iterations;
}

//! Field a ConfigError names for an option (a ScheduleParams field name).
std::string option_field(std::string_view option);

//! stages in [1, kMaxStages], micro_batches in [1, kMaxMicroBatches]: every scheme's first
//! constraints.
std::span<const Constraint> basic_constraints();

}  // namespace pipesim::schedules
