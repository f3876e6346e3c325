#pragma once
// Chrome trace events (the JSON that chrome://tracing and ui.perfetto.dev open): one process per
// worker with one track per stream (compute, send, collective); every task is a complete ("X")
// event. In real-cost mode with a recorded memory timeline, each worker process also has a
// "memory" counter track ("C" events, args {bytes}). One time unit of the run is shown as one
// millisecond.

#include <nlohmann/json.hpp>

#include "pipesim/scenario/scenario.hpp"

namespace pipesim::report {

using scenario::PerfResult;
using scenario::Result;
using scenario::Scenario;

nlohmann::ordered_json chrome_trace(const Result& run, const std::string& title);

}  // namespace pipesim::report
