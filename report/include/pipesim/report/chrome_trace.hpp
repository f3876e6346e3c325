#pragma once
// Chrome trace events (the JSON that chrome://tracing and ui.perfetto.dev open): one process per
// worker with one track per stream (compute, send, collective); every task is a complete ("X")
// event. In real-cost mode with a recorded memory timeline, each worker process also has a
// "memory" counter track ("C" events, args {bytes}). `ts` and `dur` count microseconds, as the
// format defines: a real-cost run's seconds × 10⁶, so the trace shows the iteration at its true
// length; a unit-cost run's slots have no real length and are shown as 1 slot = 1 ms.

#include <nlohmann/json.hpp>

#include "pipesim/scenario/scenario.hpp"

namespace pipesim::report {

using scenario::PerfResult;
using scenario::Result;
using scenario::Scenario;

//! Trace microseconds per time unit of `run`: 10⁶ (seconds) in real-cost mode, 10³ per slot.
double micros_per_time_unit(const Result& run);

nlohmann::ordered_json chrome_trace(const Result& run, const std::string& title);

}  // namespace pipesim::report
