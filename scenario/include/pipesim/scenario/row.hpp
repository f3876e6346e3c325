#pragma once
// One configuration of a sweep or search and what came of it: the row every table, CSV, plot
// and ranking reads.
//
// Columns, in this order (results/search/README.md and the README document them):
//   one input column per option, in options() order, named after the option (schedule,
//   stages, micro_batches, ...), holding the value the run used (used_point(): `pipelines`,
//   `chunks` and `iterations` as the schedule ran them, never the "default" 0); then the metric
//   columns of metrics() and `status`: workers, iteration_time, time_unit, throughput,
//   tokens_per_second, mfu, bubble_ratio, exposed_comm_ratio, peak_memory_max, peak_memory_min,
//   memory_headroom, peak_activations_max, peak_activations_min, fits_memory, the model's shape
//   as trained (model_layers, model_hidden, model_heads, model_kv_heads, model_ffn_hidden,
//   model_vocabulary, model_sequence, model_experts, model_params; real-cost mode), the
//   iteration time's range (iteration_time_low, iteration_time_high, iteration_time_basis:
//   prediction_range.hpp; real-cost mode), status.
// A metric the run does not produce (the performance figures in unit-cost mode, everything for
// an invalid configuration) is an empty field. `status` is `ok`, `oom` (runs, but peak memory
// exceeds the GPU), `invalid: <reason>` or `pruned: <reason>`; no configuration is dropped.
//
// extract_metrics() is the one place that maps a Result to these figures, and metrics() the one
// table of them (name, unit, which direction is better, how to read and print it).

#include <optional>
#include <string>
#include <vector>

#include "pipesim/scenario/scenario.hpp"

namespace pipesim::scenario {

//! The text of every option, aligned with options().
using Point = std::vector<std::string>;

struct RowMetrics {
  std::optional<int> workers;            //!< GPUs of one pipeline replica set (D·pipelines)
  std::optional<double> iteration_time;  //!< in time_unit
  //! "s" in real-cost mode, "slot" in unit-cost mode (whose durations have no real length).
  std::optional<std::string> time_unit;
  std::optional<double> throughput;         //!< samples per second
  std::optional<double> tokens_per_second;  //!< throughput × sequence length
  std::optional<double> mfu;                //!< model FLOPs utilisation, 0..1
  //! Unit cost: 1 − Σ busy / (workers × span); real cost: the idle share of the workers'
  //! windows, exposed communication apart (exposed_comm_ratio).
  std::optional<double> bubble_ratio;
  std::optional<double> exposed_comm_ratio;  //!< communication not hidden by compute / iteration
  std::optional<double> peak_memory_max;     //!< bytes, the fullest worker
  std::optional<double> peak_memory_min;     //!< bytes, the emptiest worker
  std::optional<double> memory_headroom;     //!< 1 − peak_memory_max / GPU capacity
  std::optional<int> peak_activations_max;   //!< micro-batch-stage units
  std::optional<int> peak_activations_min;
  std::optional<bool> fits_memory;
  // The model as trained (sequence and vocabulary overrides applied), so that a row says which
  // shape its figures are for.
  std::optional<int> model_layers;      //!< L
  std::optional<int> model_hidden;      //!< h
  std::optional<int> model_heads;       //!< a attention heads
  std::optional<int> model_kv_heads;    //!< key/value heads
  std::optional<int> model_ffn_hidden;  //!< dense FFN inner size
  std::optional<int> model_vocabulary;  //!< V
  std::optional<int> model_sequence;    //!< s
  std::optional<int> model_experts;     //!< routed experts per MoE layer (0: dense)
  std::optional<double> model_params;   //!< every parameter once
  // Where the iteration time is expected to fall (PerfResult::iteration_time_range), seconds,
  // and which validated runs say so ("80% of moe/hopper/multi-node").
  std::optional<double> iteration_time_low;
  std::optional<double> iteration_time_high;
  std::optional<std::string> iteration_time_basis;
};

//! Whether a configuration ran, and if not, why.
struct Status {
  enum class Kind { Ok, Oom, Invalid, Pruned };
  Kind kind = Kind::Ok;
  std::string reason;  //!< why, for Invalid and Pruned

  //! `ok`, `oom`, `invalid: <reason>`, `pruned: <reason>` (the CSV field).
  std::string text() const;
  //! `ok`, `oom`, `invalid`, `pruned`.
  static const char* kind_name(Kind kind);
};

struct SweepRow {
  Point inputs;
  RowMetrics metrics;
  Status status;

  bool ok() const { return status.kind == Status::Kind::Ok; }
};

//! How a table for people shows a metric.
enum class TableScale { Plain, Percent, GiB };

//! The type of a metric's value, for front ends that hand out typed values (Python).
enum class MetricKind { Integer, Real, Flag, Text };

//! One metric column: the one description CSV, tables, ranking and plots read.
struct Metric {
  const char* name;     //!< the column, e.g. "bubble_ratio"
  const char* unit;     //!< e.g. "s", "samples/s", "bytes", "" for ratios and counts
  int direction;        //!< +1 higher is better, -1 lower is better, 0 not a ranking metric
  const char* heading;  //!< the column heading in ranked tables, e.g. "bubble_%"
  TableScale scale;     //!< how ranked tables print it
  //! The value as a number, when the row has it (empty for fits_memory, which is a flag).
  std::optional<double> (*value)(const RowMetrics&);
  //! The CSV field: shortest round-trip text, "true"/"false" for flags, "" when absent.
  std::string (*cell)(const RowMetrics&);
  MetricKind kind;  //!< the type of the field in RowMetrics
};

//! Every metric column, in CSV order (status is not a metric and comes after them).
const std::vector<Metric>& metrics();
//! The metric called `name`, or nullptr.
const Metric* find_metric(const std::string& name);

//! The figures of one finished run.
RowMetrics extract_metrics(const Result& result);

//! `given` (option texts, aligned with options()) with the values `result` actually used for
//! the options whose default means "the scheme's default": `pipelines`, `chunks` (model chunks
//! per worker) and `iterations` as the schedule was generated. Every other text is kept (an
//! empty `precision` or `attention`: the model file's, which the JSON and text reports name).
Point used_point(Point given, const Result& result);

//! The inputs of a run that never ran (an invalid row): `given`, with the "scheme's default"
//! options (`pipelines`, `chunks`, `iterations`) empty where they were left at 0, since no
//! schedule decided their value; a 0 there would read as a value used.
Point unresolved_point(Point given);

//! The row of a finished run: used_point(given), its metrics, status `ok` or `oom`.
SweepRow make_row(Point given, const Result& result);

//! Input column names: one per option, in options() order.
std::vector<std::string> input_columns();
//! Metric column names, `status` last.
std::vector<std::string> metric_columns();
//! Input columns then metric columns.
std::vector<std::string> csv_columns();

//! The row's metric fields as text, aligned with metric_columns().
std::vector<std::string> metric_cells(const SweepRow& row);

//! The value of metric `name` in `row`, when the row has it.
std::optional<double> metric_value(const SweepRow& row, const std::string& name);

//! The GPUs a real-cost row's run uses, T·C·D·W from its inputs (the cost model's count); nullopt
//! for a unit-cost row (no throughput) or inputs without those options.
std::optional<int> row_gpus(const SweepRow& row);

//! What holds a configuration back, in words: the larger loss of bubbles (bubble_ratio: idle time)
//! and exposed communication (or "compute" when both are under 5 %), and memory when the headroom
//! is under 10 %, e.g. "bubbles 23.1%; memory headroom 4.2%".
std::string limiting_factor(const RowMetrics& metrics);

}  // namespace pipesim::scenario
