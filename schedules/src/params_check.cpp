#include "pipesim/schedules/params_check.hpp"

#include <fmt/format.h>

#include "pipesim/core/config_error.hpp"

namespace pipesim::schedules {

void require_basic(std::string_view scheme, const ScheduleParams& p) {
  if (p.stages < 1 || p.stages > kMaxStages) {
    throw core::ConfigError(fmt::format("schedule {}", scheme), "--stages",
                            fmt::format("must be in [1, {}], got {}", kMaxStages, p.stages));
  }
  if (p.micro_batches < 1 || p.micro_batches > kMaxMicroBatches) {
    throw core::ConfigError(
        fmt::format("schedule {}", scheme), "--micro-batches",
        fmt::format("must be in [1, {}], got {}", kMaxMicroBatches, p.micro_batches));
  }
}

void reject(std::string_view scheme, std::string_view flag, std::string_view problem) {
  throw core::ConfigError(fmt::format("schedule {}", scheme), flag, problem);
}

int async_iterations(std::string_view scheme, const ScheduleParams& p) {
  if (p.iterations == 0) return 4;
  if (p.iterations < 3 || p.iterations > 64) {
    reject(scheme, "--iterations",
           fmt::format("must be in [3, 64] for an asynchronous schedule, got {}", p.iterations));
  }
  return p.iterations;
}

}  // namespace pipesim::schedules
