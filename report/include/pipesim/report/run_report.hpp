#pragma once
// The three renderings of one run: text (metrics and an ASCII timeline), JSON, CSV.
// Every rendering is a pure function of the run, so equal inputs give byte-identical output.

#include <nlohmann/json.hpp>
#include <string>

#include "pipesim/scenario/scenario.hpp"

namespace pipesim::report {

using scenario::PerfResult;
using scenario::Result;
using scenario::Scenario;

inline constexpr int kSchemaVersion = 1;

//! Metrics at top level, a per_worker array; with `ops` each worker also
//! lists its compute ops in execution order.
nlohmann::ordered_json to_json(const Scenario& spec, const Result& run, bool ops);

//! A header line and one row.
std::string to_csv(const Scenario& spec, const Result& run);

//! Metrics, a per-worker table and, when the run is small and on a regular time grid, an
//! ASCII timeline like the papers' figures.
std::string to_text(const Scenario& spec, const Result& run);

//! One row per worker: ops labelled kind + micro-batch, '-' continuing an op, '.' idle.
//! Empty when the run is too long to draw or its times are not multiples of one quantum.
std::string ascii_timeline(const Result& run, int max_columns = 200);

}  // namespace pipesim::report
