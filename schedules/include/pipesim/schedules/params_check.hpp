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

}  // namespace pipesim::schedules
