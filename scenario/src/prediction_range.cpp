#include "pipesim/scenario/prediction_range.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "pipesim/core/assert.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/shipped_files.hpp"
#include "pipesim/core/yaml_reader.hpp"

namespace pipesim::scenario {

RunClass run_class(const models::ModelSpec& model, const hardware::HardwareProfile& hardware,
                   int gpus, int context_parallel) {
  return {model.is_moe()         ? "moe"
          : context_parallel > 1 ? "context-parallel"
                                 : "dense",
          gpu_generation(hardware.provenance.gpu, hardware.name),
          gpus <= 8 ? "one node" : "multi-node"};
}

std::string gpu_generation(const std::string& gpu_name, const std::string& profile_name) {
  // NVIDIA's architecture per data-centre product (the products' datasheets): P100 Pascal,
  // V100 Volta, A100 and its export variant A800 Ampere, H100/H200 and the H800 export variant
  // Hopper, B200/B300 and the GB200/GB300 superchips Blackwell.
  static const std::pair<const char*, const char*> kProducts[] = {
      {"p100", "pascal"}, {"v100", "volta"},     {"a100", "ampere"},
      {"a800", "ampere"}, {"h100", "hopper"},    {"h200", "hopper"},
      {"h800", "hopper"}, {"b200", "blackwell"}, {"b300", "blackwell"},
  };
  for (const std::string& text : {gpu_name, profile_name}) {
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& [product, generation] : kProducts)
      if (lower.find(product) != std::string::npos) return generation;
  }
  return "other";
}

std::vector<std::string> class_bases(const RunClass& c) {
  return {fmt::format("{}/{}/{}", c.workload, c.generation, c.scale),
          fmt::format("{}/{}", c.workload, c.generation), c.workload, "all runs"};
}

const RatioRange& range_for(const RangeTable& table, const RunClass& c) {
  PIPESIM_ASSERT(!table.ranges.empty() && table.ranges.back().basis == "all runs",
                 "a range table ends with all runs");
  for (const std::string& basis : class_bases(c)) {
    for (const RatioRange& r : table.ranges)
      if (r.basis == basis) return r;
  }
  return table.ranges.back();
}

TimeRange time_range(double seconds, const RunClass& c, const RangeTable& table) {
  const RatioRange& r = range_for(table, c);
  return {r.low * seconds, r.high * seconds, table.coverage, r.basis};
}

std::string range_table_yaml(const RangeTable& table) {
  std::string out = fmt::format(
      "# Measured / predicted iteration time per class of validated run: the central {:.0f}%.\n"
      "# Written by `pipesim validate validation/*.yaml --ranges --format yaml` "
      "(tools/make-validation.sh); not edited by hand.\n"
      "coverage: {}\nranges:\n",
      100 * table.coverage, table.coverage);
  for (const RatioRange& r : table.ranges) {
    out += fmt::format("  - basis: \"{}\"\n    runs: {}\n    low: {}\n    high: {}\n", r.basis,
                       r.runs, r.low, r.high);
  }
  return out;
}

RangeTable read_range_table(const std::string& path) {
  core::YamlMap doc = core::YamlMap::load(path);
  RangeTable table;
  table.coverage = doc.number("coverage", 0.0, 1.0);
  if (table.coverage <= 0.0 || table.coverage >= 1.0) {
    doc.fail("coverage", fmt::format("must be in (0, 1), got {}", table.coverage));
  }
  for (core::YamlMap& m : doc.map_list("ranges")) {
    RatioRange r;
    r.basis = m.string("basis");
    r.runs = static_cast<size_t>(m.integer("runs", 0, 1'000'000));
    r.low = m.positive("low");
    r.high = m.positive("high");
    if (r.high < r.low) {
      m.fail("high", fmt::format("must be at least low = {}, got {}", r.low, r.high));
    }
    m.finish();
    table.ranges.push_back(std::move(r));
  }
  doc.finish();
  if (table.ranges.back().basis != "all runs") {
    throw core::ConfigError(
        path, "ranges",
        fmt::format("the last range must be \"all runs\", got \"{}\"", table.ranges.back().basis));
  }
  return table;
}

const std::optional<RangeTable>& shipped_range_table() {
  // Read once: every prediction of the process takes its range from the same shipped file.
  static const std::optional<RangeTable> table = []() -> std::optional<RangeTable> {
    std::filesystem::path dir;
    try {
      dir = core::shipped_data_dir();
    } catch (const core::ConfigError&) {
      return std::nullopt;  // no data dir: predictions go without a range
    }
    const std::filesystem::path file = dir / "validation" / "ranges" / "prediction-ranges.yaml";
    if (!std::filesystem::is_regular_file(file)) return std::nullopt;
    return read_range_table(file.string());
  }();
  return table;
}

}  // namespace pipesim::scenario
