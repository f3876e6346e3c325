#pragma once
// How large a run will be, from its parameters alone: the CLI checks this against the task
// budget (core::check_task_budget) before a schedule is generated, so `-D 64 -N 1000000` is
// refused in microseconds with the estimate instead of dying of bad_alloc after 20 s.

#include <string_view>

#include "pipesim/schedules/registry.hpp"

namespace pipesim::schedules {

//! Tasks (compute ops and the transfers between workers) of one run of scheme `name` with
//! `params`, without generating it: micro-batches (× iterations for the asynchronous schemes)
//! × stages (× chunks) × compute kinds (2, or 3 with a split backward) × 2 for transfers.
//! An upper estimate, within a factor of 3 of the real count for every registered scheme
//! (tested); unknown names are estimated as 1F1B. Never throws; doubles so nothing overflows.
double estimate_tasks(std::string_view name, const ScheduleParams& params);

}  // namespace pipesim::schedules
