#pragma once
// The critical path of a run (sim/critical_path.hpp) as text and JSON: `simulate
// --critical-path`.

#include <nlohmann/json.hpp>
#include <string>

#include "pipesim/scenario/scenario.hpp"
#include "pipesim/sim/critical_path.hpp"

namespace pipesim::report {

//! The run's critical path, with the stream rule its replay used (transfers hold the
//! sender's stream only in real-cost mode with overlap_p2p off).
sim::CriticalPath critical_path_of(const scenario::Scenario& spec, const scenario::Result& run);

//! One object per step, first to last: the task (kind, worker, peer for a transfer, stage,
//! chunk, pipeline, micro_batch), start, end, duration, ready, wait, slack and via.
nlohmann::ordered_json critical_path_json(const scenario::Result& run,
                                          const sim::CriticalPath& path);

//! The summary line "critical path: N ops, X compute, Y communication, Z waiting" and a table,
//! one line per step.
std::string critical_path_text(const scenario::Result& run, const sim::CriticalPath& path);

}  // namespace pipesim::report
