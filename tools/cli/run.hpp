#pragma once
// One simulation from a user's request to its metrics: generate, validate, lower, simulate.

#include <string>

#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/cost_model.hpp"
#include "pipesim/sim/metrics.hpp"
#include "pipesim/sim/schedule.hpp"
#include "pipesim/sim/simulator.hpp"
#include "pipesim/sim/task_graph.hpp"

namespace pipesim::cli {

struct RunSpec {
  std::string schedule = "1f1b";
  schedules::ScheduleParams params;
  sim::UnitCosts unit;  //!< unit-cost mode durations
};

struct RunResult {
  sim::Schedule schedule;
  sim::TaskGraph graph;
  sim::Trace trace;
  sim::Metrics metrics;
};

//! Throws core::ConfigError for bad parameters or an invalid schedule.
RunResult run(const RunSpec& spec);

//! Same, for a schedule that did not come from the registry (e.g. --schedule-file); `source`
//! names it in errors.
RunResult run_schedule(const RunSpec& spec, sim::Schedule schedule, const std::string& source);

}  // namespace pipesim::cli
