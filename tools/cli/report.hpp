#pragma once
// The three renderings of one run: text (metrics and an ASCII timeline), JSON, CSV.
// Every rendering is a pure function of the run, so equal inputs give byte-identical output.

#include <nlohmann/json.hpp>
#include <string>

#include "run.hpp"

namespace pipesim::cli {

inline constexpr int kSchemaVersion = 1;

//! DESIGN.md §7 shape: metrics at top level, a per_worker array; with `ops` each worker also
//! lists its compute ops in execution order.
nlohmann::ordered_json to_json(const RunSpec& spec, const RunResult& run, bool ops);

//! A header line and one row.
std::string to_csv(const RunSpec& spec, const RunResult& run);

//! Metrics, a per-worker table and, when the run is small and on a regular time grid, an
//! ASCII timeline like the papers' figures.
std::string to_text(const RunSpec& spec, const RunResult& run);

//! One row per worker: ops labelled kind + micro-batch, '-' continuing an op, '.' idle.
//! Empty when the run is too long to draw or its times are not multiples of one quantum.
std::string ascii_timeline(const RunResult& run, int max_columns = 200);

}  // namespace pipesim::cli
