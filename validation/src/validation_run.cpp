// Reading validation/*.yaml: one published measured run per file (format: validation/README.md).

#include <fmt/format.h>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/yaml_reader.hpp"
#include "pipesim/scenario/names.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/validation/validation.hpp"

namespace pipesim::validation {
namespace {

using scenario::NameTable;

// Enum ↔ name tables on scenario's one mechanism (names.hpp).
constexpr NameTable<ValidationMetric, 7> kMetrics{{
    {"tflops_per_gpu", ValidationMetric::TflopsPerGpu},
    {"mfu_percent", ValidationMetric::MfuPercent},
    {"iteration_time_s", ValidationMetric::IterationTime},
    {"samples_per_gpu_per_s", ValidationMetric::SamplesPerGpuPerSec},
    {"sequences_per_s", ValidationMetric::SequencesPerSec},
    {"peak_memory_gib", ValidationMetric::PeakMemoryGib},
    {"out_of_memory", ValidationMetric::OutOfMemory},
}};
constexpr NameTable<FlopsFormula, 3> kFormulas{{
    {"none", FlopsFormula::None},
    {"narayanan", FlopsFormula::Narayanan},
    {"korthikanti", FlopsFormula::Korthikanti},
}};
constexpr NameTable<Expressible, 3> kExpressible{{
    {"exact", Expressible::Exact},
    {"approximated", Expressible::Approximated},
    {"no", Expressible::No},
}};

//! The value named by field `key`; the error lists the names (as YamlMap::choice words it).
template <typename E, size_t Size>
E parse_named(core::YamlMap& map, const std::string& key, const NameTable<E, Size>& table) {
  const std::string text = map.string(key);
  if (const auto value = scenario::value_of(table, text)) return *value;
  map.fail(key, fmt::format("must be one of {}, got '{}'", scenario::names_of(table), text));
}

}  // namespace

std::string_view metric_name(ValidationMetric metric) {
  return scenario::name_of(kMetrics, metric);
}

std::string_view metric_unit(ValidationMetric metric) {
  switch (metric) {
    case ValidationMetric::TflopsPerGpu:
      return "TFLOP/s per GPU";
    case ValidationMetric::MfuPercent:
      return "%";
    case ValidationMetric::IterationTime:
      return "s";
    case ValidationMetric::SamplesPerGpuPerSec:
      return "samples/s per GPU";
    case ValidationMetric::SequencesPerSec:
      return "sequences/s";
    case ValidationMetric::PeakMemoryGib:
      return "GiB";
    case ValidationMetric::OutOfMemory:
      return "";
  }
  return "";
}

std::string_view expressible_name(Expressible e) {
  return scenario::name_of(kExpressible, e);
}

bool is_speed_metric(ValidationMetric metric) {
  return metric != ValidationMetric::PeakMemoryGib && metric != ValidationMetric::OutOfMemory;
}

ValidationRun load_validation_run(const std::string& path) {
  core::YamlMap file = core::YamlMap::load(path);
  ValidationRun run;
  run.path = path;
  run.id = file.string("id");
  run.source = file.string("source");
  run.citation = file.string("citation");
  run.expressible = parse_named(file, "expressible", kExpressible);
  if (file.has("approximation")) run.approximation = file.string("approximation");
  if (run.expressible != Expressible::Exact && run.approximation.empty()) {
    file.fail("approximation", "required when expressible is not exact: say what differs");
  }
  run.flops = parse_named(file, "flops", kFormulas);
  if (file.has("fitted")) run.fitted = file.boolean("fitted");
  if (file.has("compare_group")) run.compare_group = file.string("compare_group");
  // Half a value's width either way is no reading at all: 0.5 bounds any honest reading error.
  if (file.has("reading_error")) run.reading_error = file.number("reading_error", 0.0, 0.5);
  if (file.has("assumptions")) run.assumptions = file.string_list("assumptions");
  if (file.has("model_override")) {
    core::YamlMap override = file.map("model_override");
    run.model_layers = static_cast<int>(override.integer("layers", 1, 1 << 20));
    override.finish();
  }

  bool needs_peak = false, needs_flops = false;
  for (core::YamlMap& point : file.map_list("measured")) {
    MeasuredPoint m;
    m.metric = parse_named(point, "metric", kMetrics);
    if (m.metric == ValidationMetric::OutOfMemory) {
      // true: the run ran out of memory; false: it was run and fitted (a source's "fits" mark).
      m.value = point.boolean("value") ? 1 : 0;
    } else {
      m.value = point.positive("value", 1e30);
    }
    point.finish();
    needs_peak = needs_peak || m.metric == ValidationMetric::MfuPercent;
    needs_flops = needs_flops || m.metric == ValidationMetric::MfuPercent ||
                  m.metric == ValidationMetric::TflopsPerGpu;
    run.measured.push_back(m);
  }
  if (needs_flops && run.flops == FlopsFormula::None) {
    file.fail("flops",
              "a TFLOP/s or MFU point needs the source's FLOP count (narayanan|korthikanti)");
  }
  if (needs_peak) run.peak_flops = file.positive("peak_flops", 1e20);

  core::YamlMap options = file.map("run");
  for (const std::string& key : options.keys()) {
    if (scenario::find_option(key) == nullptr) {
      options.fail(key, "not a scenario option (see `pipesim list options`)");
    }
    run.run.emplace_back(key, options.string(key));
  }
  options.finish();
  file.finish();
  return run;
}

}  // namespace pipesim::validation
