#pragma once
// Parameter checks shared by generators: each throws core::ConfigError naming the option.

#include <string_view>

#include "pipesim/schedules/registry.hpp"

namespace pipesim::schedules {

//! Upper bounds that keep a run's task count sane (and the integer ids in range).
inline constexpr int kMaxStages = 4096;
inline constexpr int kMaxMicroBatches = 1 << 20;

//! D in [1, kMaxStages] and N in [1, kMaxMicroBatches].
void require_basic(std::string_view scheme, const ScheduleParams& params);

//! Throws core::ConfigError "schedule <scheme>: <flag>: <problem>".
[[noreturn]] void reject(std::string_view scheme, std::string_view flag, std::string_view problem);

//! Asynchronous schemes: iterations to list, default 4, at least 3 (steady state needs them).
int async_iterations(std::string_view scheme, const ScheduleParams& params);

}  // namespace pipesim::schedules
