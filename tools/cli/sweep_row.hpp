#pragma once
// One configuration of a sweep or search and what came of it: the row of the CSV.
//
// Columns, in this order (results/search/README.md and the README document them):
//   one input column per run option, in run_options() order, named after the long flag
//   without dashes and with '-' → '_' (schedule, stages, micro_batches, ...), holding the text
//   the run used; then the metric columns of metric_columns():
//   workers, iteration_time, throughput, tokens_per_second, mfu, bubble_ratio,
//   exposed_comm_ratio, peak_memory_max, peak_memory_min, memory_headroom,
//   peak_activations_max, peak_activations_min, fits_memory, status.
// A metric the run does not produce (the performance figures in unit-cost mode, everything for
// an invalid configuration) is an empty field. `status` is `ok`, `oom` (runs, but peak memory
// exceeds the GPU), `invalid: <reason>` or `pruned: <reason>`; no configuration is dropped.
//
// extract_metrics() is the one place that maps a RunResult to these figures.

#include <optional>
#include <string>
#include <vector>

#include "run.hpp"

namespace pipesim::cli {

//! The text of every run option, aligned with run_options().
using Point = std::vector<std::string>;

struct RowMetrics {
  std::optional<int> workers;                //!< GPUs of one pipeline replica set (D·pipelines)
  std::optional<double> iteration_time;      //!< seconds (slots in unit-cost mode)
  std::optional<double> throughput;          //!< samples per second
  std::optional<double> tokens_per_second;   //!< throughput × sequence length
  std::optional<double> mfu;                 //!< model FLOPs utilisation, 0..1
  std::optional<double> bubble_ratio;        //!< 1 − Σ busy / (workers × span)
  std::optional<double> exposed_comm_ratio;  //!< communication not hidden by compute / iteration
  std::optional<double> peak_memory_max;     //!< bytes, the fullest worker
  std::optional<double> peak_memory_min;     //!< bytes, the emptiest worker
  std::optional<double> memory_headroom;     //!< 1 − peak_memory_max / GPU capacity
  std::optional<int> peak_activations_max;   //!< micro-batch-stage units
  std::optional<int> peak_activations_min;
  std::optional<bool> fits_memory;
};

struct SweepRow {
  Point inputs;
  RowMetrics metrics;
  std::string status = "ok";

  bool ok() const { return status == "ok"; }
};

//! The figures of one finished run.
RowMetrics extract_metrics(const RunSpec& spec, const RunResult& result);

//! Applies `point` through run_options(), runs it and extracts its row. A core::ConfigError
//! (bad combination, invalid schedule) becomes status "invalid: <reason>"; a run that does not
//! fit in memory becomes "oom".
SweepRow evaluate(const Point& point);

//! Input column names: one per run option, in run_options() order.
std::vector<std::string> input_columns();
//! Metric column names, `status` last.
const std::vector<std::string>& metric_columns();
//! Input columns then metric columns.
std::vector<std::string> csv_columns();

//! The row's metric fields as text, aligned with metric_columns().
std::vector<std::string> metric_cells(const SweepRow& row);

//! Header and one line per row, in the given order.
std::string rows_to_csv(const std::vector<SweepRow>& rows);

//! Shortest round-trip text of a number (what every CSV field and table uses).
std::string format_number(double value);

}  // namespace pipesim::cli
