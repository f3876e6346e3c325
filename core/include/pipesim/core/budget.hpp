#pragma once
// Budgets before allocation: a run's size is estimated from its parameters before any table is
// sized, and refused with the estimate when it is above the budget. The CLI maps BudgetError to
// its own exit status (3, "out of budget") and names the option that raises the limit; library
// code only says what was estimated.

#include <string>
#include <string_view>

#include "pipesim/core/config_error.hpp"

namespace pipesim::core {

//! 2e7 tasks is ~2 GB of task graph and a few seconds of simulation: every shipped example is
//! far below, a typo (N = 1000000 with D = 64) far above.
inline constexpr double kDefaultMaxTasks = 2e7;
//! Memory the simulator needs per task (task, edges, events, metrics), for the message.
inline constexpr double kBytesPerTask = 100.0;

struct Budget {
  double max_tasks = kDefaultMaxTasks;
};

//! A run too large for the budget. Derives from ConfigError so that a caller that knows only
//! ConfigError still reports it on one line instead of crashing.
class BudgetError : public ConfigError {
 public:
  BudgetError(std::string_view source, std::string_view what, double estimate, double limit);
  double estimate() const { return estimate_; }
  double limit() const { return limit_; }

 private:
  double estimate_;
  double limit_;
};

//! Throws BudgetError(source, what, estimate_tasks, budget.max_tasks) when the estimate is above
//! the budget (or not finite).
void check_task_budget(std::string_view source, std::string_view what, double estimate_tasks,
                       const Budget& budget);

}  // namespace pipesim::core
