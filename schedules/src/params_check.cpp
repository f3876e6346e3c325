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

}  // namespace pipesim::schedules
