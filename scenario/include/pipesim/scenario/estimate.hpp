#pragma once
// A run's size before anything is built: tasks from the registry's shape of the schedule
// (schedules::estimate_tasks), bytes from the measured memory per task of each mode. simulate()
// refuses a run above the scenario's task budget with this estimate (core::BudgetError), so
// `simulate -D 64 -N 1000000` stops at once instead of filling the machine's memory.

#include "pipesim/scenario/scenario.hpp"

namespace pipesim::scenario {

struct RunEstimate {
  double tasks = 0;  //!< an upper estimate of the task graph's tasks (schedules::estimate_tasks)
  double bytes = 0;  //!< peak memory of the run, tasks × the mode's bytes per task
};

//! Peak resident bytes per estimated task: the schedule, task graph, engine state, trace and
//! metrics together, rounded up from `/usr/bin/time -f %M` on release builds (unit-cost 1f1b
//! D=16 N=16384, 1.05e6 tasks: 72; zb-h1 D=16 N=8192: 64; real-cost gpt2-1.3b on a100-dgx
//! D=8 N=8192: 115, with T=2: 145). tests/scenario/run_budget_test.cpp checks the estimate
//! against the measured peak within 2×.
inline constexpr double kUnitCostBytesPerTask = 80.0;
inline constexpr double kRealCostBytesPerTask = 160.0;

//! Never throws; an unknown schedule or bad parameters are estimated as 1F1B's.
RunEstimate estimate_run(const Scenario& s);

//! Throws core::BudgetError (naming the schedule, the estimate and `s.max_tasks`) when the
//! estimate is above the budget.
void check_run_budget(const Scenario& s);

}  // namespace pipesim::scenario
