#include "pipesim/core/budget.hpp"

#include <fmt/format.h>

#include <cmath>

namespace pipesim::core {

BudgetError::BudgetError(std::string_view source, std::string_view what, double estimate,
                         double limit)
    : ConfigError(source, what,
                  fmt::format("needs about {:.3g} tasks (~{:.3g} GB), above the task budget of "
                              "{:.3g}",
                              estimate, estimate * kBytesPerTask / 1e9, limit)),
      estimate_(estimate),
      limit_(limit) {}

void check_task_budget(std::string_view source, std::string_view what, double estimate_tasks,
                       const Budget& budget) {
  if (!std::isfinite(estimate_tasks) || estimate_tasks > budget.max_tasks) {
    throw BudgetError(source, what, estimate_tasks, budget.max_tasks);
  }
}

}  // namespace pipesim::core
