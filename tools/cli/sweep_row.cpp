#include "sweep_row.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "csv.hpp"
#include "pipesim/core/config_error.hpp"
#include "run_options.hpp"

namespace pipesim::cli {

RowMetrics extract_metrics(const RunSpec& /*spec*/, const RunResult& result) {
  const sim::Metrics& m = result.metrics;
  RowMetrics row;
  row.workers = result.schedule.workers;
  row.iteration_time = m.iteration_time;
  row.bubble_ratio = m.bubble_ratio;
  if (!m.workers.empty()) {
    const auto [lo, hi] = std::minmax_element(
        m.workers.begin(), m.workers.end(),
        [](const auto& a, const auto& b) { return a.peak_activations < b.peak_activations; });
    row.peak_activations_min = lo->peak_activations;
    row.peak_activations_max = hi->peak_activations;
  }
  // Unit-cost mode has no samples, FLOPs or bytes: the rest stays empty.
  if (!result.perf) return row;
  const PerfResult& p = *result.perf;
  row.throughput = p.throughput;
  row.tokens_per_second = p.tokens_per_second;
  row.mfu = p.mfu;
  row.fits_memory = p.fits_memory;
  if (!p.memory.empty()) {
    const auto [lo, hi] = std::minmax_element(
        p.memory.begin(), p.memory.end(),
        [](const sim::WorkerMemory& a, const sim::WorkerMemory& b) { return a.peak < b.peak; });
    row.peak_memory_min = lo->peak;
    row.peak_memory_max = hi->peak;
    if (p.memory_capacity > 0) row.memory_headroom = 1.0 - hi->peak / p.memory_capacity;
  }
  // Exposed communication: the mean over workers of the time a worker waits on transfers and
  // all-reduces it cannot hide behind compute, as a share of the iteration.
  if (!p.time.empty() && m.iteration_time > 0) {
    double exposed = 0;
    for (const sim::WorkerTime& t : p.time)
      exposed += t.exposed_communication;
    row.exposed_comm_ratio = exposed / (static_cast<double>(p.time.size()) * m.iteration_time);
  }
  return row;
}

SweepRow evaluate(const Point& point) {
  SweepRow row;
  row.inputs = point;
  try {
    RunSpec spec;
    const auto& options = run_options();
    for (size_t i = 0; i < options.size(); ++i)
      options[i].apply(spec, point[i]);
    const RunResult result = run(spec);
    row.metrics = extract_metrics(spec, result);
    if (row.metrics.fits_memory == false) row.status = "oom";
  } catch (const core::ConfigError& e) {
    row.status = fmt::format("invalid: {}", e.what());
  }
  return row;
}

std::vector<std::string> input_columns() {
  std::vector<std::string> names;
  for (const RunOption& option : run_options()) {
    std::string name = option.flag();
    name.erase(0, name.find_first_not_of('-'));
    std::replace(name.begin(), name.end(), '-', '_');
    names.push_back(std::move(name));
  }
  return names;
}

const std::vector<std::string>& metric_columns() {
  static const std::vector<std::string> names{"workers",
                                              "iteration_time",
                                              "throughput",
                                              "tokens_per_second",
                                              "mfu",
                                              "bubble_ratio",
                                              "exposed_comm_ratio",
                                              "peak_memory_max",
                                              "peak_memory_min",
                                              "memory_headroom",
                                              "peak_activations_max",
                                              "peak_activations_min",
                                              "fits_memory",
                                              "status"};
  return names;
}

std::vector<std::string> csv_columns() {
  std::vector<std::string> names = input_columns();
  const auto& metrics = metric_columns();
  names.insert(names.end(), metrics.begin(), metrics.end());
  return names;
}

std::string format_number(double value) {
  return fmt::format("{}", value);
}

std::vector<std::string> metric_cells(const SweepRow& row) {
  auto num = [](const auto& v) -> std::string { return v ? fmt::format("{}", *v) : std::string(); };
  const RowMetrics& m = row.metrics;
  return {num(m.workers),
          num(m.iteration_time),
          num(m.throughput),
          num(m.tokens_per_second),
          num(m.mfu),
          num(m.bubble_ratio),
          num(m.exposed_comm_ratio),
          num(m.peak_memory_max),
          num(m.peak_memory_min),
          num(m.memory_headroom),
          num(m.peak_activations_max),
          num(m.peak_activations_min),
          m.fits_memory ? (*m.fits_memory ? "true" : "false") : "",
          row.status};
}

std::string rows_to_csv(const std::vector<SweepRow>& rows) {
  std::string out = csv_line(csv_columns());
  for (const SweepRow& row : rows) {
    std::vector<std::string> fields = row.inputs;
    const auto cells = metric_cells(row);
    fields.insert(fields.end(), cells.begin(), cells.end());
    out += csv_line(fields);
  }
  return out;
}

}  // namespace pipesim::cli
