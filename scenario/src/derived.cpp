#include "pipesim/scenario/derived.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::scenario {
namespace {

constexpr std::string_view kGlobalBatch = "global_batch_size";
constexpr std::string_view kLayersPerChunk = "num_layers_per_virtual_pipeline_stage";

bool was_given(const std::vector<std::string>& given, std::string_view name) {
  return std::find(given.begin(), given.end(), name) != given.end();
}

// The option `derived` stands for gets `value`; refused when the user also set it otherwise.
void set_derived(Scenario& s, const std::vector<std::string>& given, std::string_view derived,
                 std::string_view target, std::int64_t value, const std::string& rule) {
  const Option* o = find_option(target);
  if (was_given(given, target)) {
    const auto current = o->get(s);
    if (!current || std::get<std::int64_t>(*current) != value) {
      throw core::ConfigError::option(
          derived, fmt::format("gives {} = {} ({}), but {} is also given as {}", target, value,
                               rule, target, o->text(s)));
    }
  }
  o->set(s, core::OptionValue{value});
}

std::string schemes_taking(std::string_view option) {
  std::string out;
  for (const schedules::ScheduleEntry& e : schedules::all_schedules()) {
    if (schedules::accepts(e.name, option)) out += (out.empty() ? "" : ", ") + e.name;
  }
  return out;
}

}  // namespace

const std::vector<core::OptionSpec>& derived_options() {
  static const std::vector<core::OptionSpec> table{
      core::integer_option(std::string(kGlobalBatch), 1, 1 << 30, "",
                           "Megatron-LM's global batch size G: samples per iteration over all "
                           "replicas; sets micro-batches N = G/(B·W), which must divide"),
      core::integer_option(std::string(kLayersPerChunk), 1, 1 << 20, "",
                           "Megatron-LM's layers per virtual pipeline stage k (real-cost mode, "
                           "interleaved schedules): sets chunks v = L/(D·k), L the model's "
                           "layers, which must divide"),
  };
  return table;
}

Scenario resolve_derived(Scenario s, const std::vector<std::string>& given,
                         const std::vector<std::pair<std::string, std::string>>& derived) {
  for (const auto& entry : derived) {
    // A plain reference, not a structured binding: clang 14 (the asan preset) cannot capture
    // one in a lambda.
    const std::string& name = entry.first;
    const std::string& text = entry.second;
    const auto spec = std::find_if(derived_options().begin(), derived_options().end(),
                                   [&](const core::OptionSpec& o) { return o.name == name; });
    if (spec == derived_options().end()) {
      throw core::ConfigError::option(name, "unknown option");
    }
    const std::int64_t value = std::get<std::int64_t>(spec->parse(text));
    if (name == kGlobalBatch) {
      // Unit-cost mode has no samples: B = W = 1 there, so N = G.
      const bool real = s.perf.enabled();
      const std::int64_t b = real ? s.perf.setup.micro_batch_size : 1;
      const std::int64_t w = real ? s.perf.setup.data_parallel : 1;
      if (value % (b * w) != 0) {
        throw core::ConfigError::option(
            name, fmt::format("must be a multiple of B·W = {}·{} = {} (micro-batches N = "
                              "G/(B·W)), got {}",
                              b, w, b * w, value));
      }
      set_derived(s, given, name, "micro_batches", value / (b * w),
                  fmt::format("G/(B·W) = {}/({}·{})", value, b, w));
    } else {
      if (!schedules::accepts(s.schedule, "chunks")) {
        throw core::ConfigError::option(
            name, fmt::format("does not apply to schedule {} (only to {})", s.schedule,
                              schemes_taking("chunks")));
      }
      if (!s.perf.enabled() || s.perf.model.empty()) {
        throw core::ConfigError::option(
            name, "needs a model (real-cost mode): chunks v = L/(D·k), L the model's layers");
      }
      const int layers =
          s.perf.model_spec ? s.perf.model_spec->layers : models::load_model(s.perf.model).layers;
      const std::int64_t d = s.params.stages;
      if (layers % (d * value) != 0) {
        throw core::ConfigError::option(
            name, fmt::format("D·k = {}·{} = {} must divide the model's {} layers (chunks v = "
                              "L/(D·k)), got k = {}",
                              d, value, d * value, layers, value));
      }
      set_derived(s, given, name, "chunks", layers / (d * value),
                  fmt::format("L/(D·k) = {}/({}·{})", layers, d, value));
    }
  }
  return s;
}

}  // namespace pipesim::scenario
