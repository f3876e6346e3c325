#include "pipesim/scenario/row.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "pipesim/scenario/options.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::scenario {

RowMetrics extract_metrics(const Result& result) {
  const sim::Metrics& m = result.metrics;
  RowMetrics row;
  row.workers = result.schedule.workers;
  row.iteration_time = m.iteration_time;
  row.time_unit = result.perf ? "s" : "slot";
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
  row.model_layers = p.model.layers;
  row.model_hidden = p.model.hidden;
  row.model_heads = p.model.heads;
  row.model_kv_heads = p.model.kv_heads;
  row.model_ffn_hidden = p.model.ffn_hidden;
  row.model_vocabulary = p.model.vocabulary;
  row.model_sequence = p.model.sequence;
  row.model_experts = p.model.moe.experts;
  row.model_params = p.model_params;
  if (p.iteration_time_range) {
    row.iteration_time_low = p.iteration_time_range->low;
    row.iteration_time_high = p.iteration_time_range->high;
    row.iteration_time_basis = fmt::format("{:.0f}% of {}", 100 * p.iteration_time_range->coverage,
                                           p.iteration_time_range->basis);
  }
  if (!p.memory.empty()) {
    const auto [lo, hi] = std::minmax_element(
        p.memory.begin(), p.memory.end(),
        [](const sim::WorkerMemory& a, const sim::WorkerMemory& b) { return a.peak < b.peak; });
    row.peak_memory_min = lo->peak;
    row.peak_memory_max = hi->peak;
    if (p.memory_capacity > 0) row.memory_headroom = 1.0 - hi->peak / p.memory_capacity;
  }
  // Exposed communication: the mean over workers of the time a worker waits on transfers and
  // all-reduces it cannot hide behind compute, as a share of the time the breakdown covers: the
  // iteration, or for an asynchronous schedule every listed iteration (total_time), so that the
  // share stays a share of time (it was above 100% when divided by one steady-state period).
  const double window = result.schedule.asynchronous ? m.total_time : m.iteration_time;
  if (!p.time.empty() && window > 0) {
    double exposed = 0;
    for (const sim::WorkerTime& t : p.time)
      exposed += t.exposed_communication;
    row.exposed_comm_ratio = exposed / (static_cast<double>(p.time.size()) * window);
  }
  return row;
}

Point used_point(Point given, const Result& result) {
  const core::OptionValues shape = schedules::shape_of(result.schedule);
  const auto& all = options();
  for (size_t i = 0; i < all.size() && i < given.size(); ++i) {
    const Option& o = all[i];
    if (o.name() == "recompute" && result.perf && result.schedule.recompute && given[i] == "none") {
      given[i] = "full";  // recompute_used(): a schedule with R ops recomputes fully
      continue;
    }
    if (o.scope != Scope::Scheme) continue;
    // What the run used: the scheme's resolved value, the shape it ran at, or what a run
    // without the option behaves as.
    const core::OptionValue* used = result.scheme_options.find(o.name());
    if (used == nullptr) used = shape.find(o.name());
    given[i] = used != nullptr ? o.spec.format(*used) : o.spec.unused_text;
  }
  return given;
}

Point unresolved_point(Point given) {
  return given;
}

SweepRow make_row(Point given, const Result& result) {
  SweepRow row;
  row.inputs = used_point(std::move(given), result);
  row.metrics = extract_metrics(result);
  if (row.metrics.fits_memory == false) row.status.kind = Status::Kind::Oom;
  return row;
}

std::vector<std::string> input_columns() {
  std::vector<std::string> names;
  for (const Option& option : options())
    names.push_back(option.name());
  return names;
}

namespace {

template <typename T>
std::optional<double> number(const std::optional<T>& v) {
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

template <typename T>
std::string text(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : std::string();
}

// The kind of a numeric RowMetrics field, from its type.
template <typename T>
constexpr MetricKind number_kind(const std::optional<T>&) {
  return std::is_integral_v<T> ? MetricKind::Integer : MetricKind::Real;
}

// One metric column: its field in RowMetrics, name, unit, direction and table form.
// clang-format off
#define PIPESIM_METRIC(field, unit, direction, heading, scale)                              \
  Metric{#field, unit, direction, heading, TableScale::scale,                               \
         [](const RowMetrics& m) { return number(m.field); },                               \
         [](const RowMetrics& m) { return text(m.field); }, number_kind(RowMetrics{}.field)}
// clang-format on

std::vector<Metric> make_metrics() {
  return {
      PIPESIM_METRIC(workers, "", 0, "workers", Plain),
      PIPESIM_METRIC(iteration_time, "s|slot", -1, "iteration_time", Plain),
      Metric{"time_unit", "", 0, "time_unit", TableScale::Plain,
             [](const RowMetrics&) { return std::optional<double>(); },
             [](const RowMetrics& m) { return m.time_unit.value_or(""); }, MetricKind::Text},
      PIPESIM_METRIC(throughput, "samples/s", +1, "throughput", Plain),
      PIPESIM_METRIC(tokens_per_second, "tokens/s", +1, "tokens_per_second", Plain),
      PIPESIM_METRIC(mfu, "", +1, "mfu_%", Percent),
      PIPESIM_METRIC(bubble_ratio, "", -1, "bubble_%", Percent),
      PIPESIM_METRIC(exposed_comm_ratio, "", -1, "exposed_comm_%", Percent),
      PIPESIM_METRIC(peak_memory_max, "bytes", -1, "peak_mem_GiB", GiB),
      PIPESIM_METRIC(peak_memory_min, "bytes", 0, "min_peak_mem_GiB", GiB),
      PIPESIM_METRIC(memory_headroom, "", +1, "mem_headroom_%", Percent),
      PIPESIM_METRIC(peak_activations_max, "", -1, "peak_activations_max", Plain),
      PIPESIM_METRIC(peak_activations_min, "", 0, "peak_activations_min", Plain),
      Metric{"fits_memory", "", 0, "fits_memory", TableScale::Plain,
             [](const RowMetrics&) { return std::optional<double>(); },
             [](const RowMetrics& m) -> std::string {
               return m.fits_memory ? (*m.fits_memory ? "true" : "false") : "";
             },
             MetricKind::Flag},
      PIPESIM_METRIC(model_layers, "", 0, "layers", Plain),
      PIPESIM_METRIC(model_hidden, "", 0, "hidden", Plain),
      PIPESIM_METRIC(model_heads, "", 0, "heads", Plain),
      PIPESIM_METRIC(model_kv_heads, "", 0, "kv_heads", Plain),
      PIPESIM_METRIC(model_ffn_hidden, "", 0, "ffn_hidden", Plain),
      PIPESIM_METRIC(model_vocabulary, "", 0, "vocabulary", Plain),
      PIPESIM_METRIC(model_sequence, "", 0, "sequence", Plain),
      PIPESIM_METRIC(model_experts, "", 0, "experts", Plain),
      PIPESIM_METRIC(model_params, "", 0, "params", Plain),
      PIPESIM_METRIC(iteration_time_low, "s", 0, "time_low", Plain),
      PIPESIM_METRIC(iteration_time_high, "s", 0, "time_high", Plain),
      Metric{"iteration_time_basis", "", 0, "time_range_basis", TableScale::Plain,
             [](const RowMetrics&) { return std::optional<double>(); },
             [](const RowMetrics& m) { return m.iteration_time_basis.value_or(""); },
             MetricKind::Text},
  };
}
#undef PIPESIM_METRIC

}  // namespace

const std::vector<Metric>& metrics() {
  static const std::vector<Metric> table = make_metrics();  // immutable after first use
  return table;
}

const Metric* find_metric(const std::string& name) {
  for (const Metric& m : metrics()) {
    if (name == m.name) return &m;
  }
  return nullptr;
}

std::string Status::text() const {
  switch (kind) {
    case Kind::Ok:
      return "ok";
    case Kind::Oom:
      return "oom";
    case Kind::Invalid:
      return fmt::format("invalid: {}", reason);
    case Kind::Pruned:
      return fmt::format("pruned: {}", reason);
  }
  return {};
}

const char* Status::kind_name(Kind kind) {
  switch (kind) {
    case Kind::Ok:
      return "ok";
    case Kind::Oom:
      return "oom";
    case Kind::Invalid:
      return "invalid";
    case Kind::Pruned:
      return "pruned";
  }
  return "";
}

std::vector<std::string> metric_columns() {
  std::vector<std::string> names;
  for (const Metric& m : metrics())
    names.emplace_back(m.name);
  names.emplace_back("status");
  return names;
}

std::vector<std::string> csv_columns() {
  std::vector<std::string> names = input_columns();
  const auto metric_names = metric_columns();
  names.insert(names.end(), metric_names.begin(), metric_names.end());
  return names;
}

std::vector<std::string> metric_cells(const SweepRow& row) {
  std::vector<std::string> cells;
  for (const Metric& m : metrics())
    cells.push_back(m.cell(row.metrics));
  cells.push_back(row.status.text());
  return cells;
}

std::optional<double> metric_value(const SweepRow& row, const std::string& name) {
  const Metric* m = find_metric(name);
  return m != nullptr ? m->value(row.metrics) : std::nullopt;
}

std::optional<int> row_gpus(const SweepRow& row) {
  if (!row.metrics.throughput) return std::nullopt;
  const auto& table = options();
  long gpus = 1;
  int found = 0;
  for (size_t i = 0; i < table.size() && i < row.inputs.size(); ++i) {
    const std::string& name = table[i].name();
    if (name != "tensor_parallel" && name != "context_parallel" && name != "stages" &&
        name != "data_parallel") {
      continue;
    }
    try {
      gpus *= std::stol(row.inputs[i]);
    } catch (const std::exception&) {
      return std::nullopt;  // not a number: no count
    }
    ++found;
  }
  if (found != 4 || gpus < 1) return std::nullopt;
  return static_cast<int>(gpus);
}

std::string limiting_factor(const RowMetrics& m) {
  // In real-cost mode bubble_ratio is the idle share alone, exposed communication apart.
  const double comm = m.exposed_comm_ratio.value_or(0.0);
  const double bubbles = m.bubble_ratio.value_or(0.0);
  std::string out;
  if (std::max(bubbles, comm) < 0.05) {
    out = m.mfu ? fmt::format("compute (mfu {:.1f}%)", *m.mfu * 100.0) : "compute";
  } else if (bubbles >= comm) {
    out = fmt::format("bubbles {:.1f}%", bubbles * 100.0);
  } else {
    out = fmt::format("exposed communication {:.1f}%", comm * 100.0);
  }
  if (m.memory_headroom && *m.memory_headroom < 0.10) {
    out += fmt::format("; memory headroom {:.1f}%", *m.memory_headroom * 100.0);
  }
  return out;
}

}  // namespace pipesim::scenario
