#include "pipesim/scenario/options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/names.hpp"
#include "pipesim/schedules/params_check.hpp"
#include "pipesim/schedules/registry.hpp"

namespace pipesim::scenario {
namespace {

[[noreturn]] void bad(const std::string& option, const std::string& problem) {
  throw OptionError(option, problem);
}

// Parses a name of `table` (the enum ↔ name tables of names.hpp).
template <typename E, size_t Size>
E parse_name(const std::string& option, const std::string& text, const NameTable<E, Size>& table) {
  if (const auto v = value_of(table, text)) return *v;
  bad(option, fmt::format("must be one of {}, got '{}'", names_of(table), text));
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items)
    out += (out.empty() ? "" : "|") + i;
  return out;
}

// An option is one field of the scenario and a parser for its text: `field(s)` is the field,
// `parse(text)` its value (throwing OptionError). apply() assigns the parsed text; bind()
// parses once and returns the assignment, for sweeps and searches that apply one text to many
// configurations.
template <class Field, class Parse>
Option field_option(Scope scope, std::string name, std::string short_name, std::string help,
                    std::string default_value, Field field, Parse parse) {
  Option o{std::move(name),
           std::move(short_name),
           std::move(help),
           std::move(default_value),
           [field, parse](Scenario& s, const std::string& text) { field(s) = parse(text); },
           {},
           scope};
  o.bind = [field, parse](const std::string& text) -> std::function<void(Scenario&)> {
    return [field, value = parse(text)](Scenario& s) { field(s) = value; };
  };
  return o;
}

std::vector<Option> make_options() {
  // Unit costs are slots: 1e9 keeps every sum over a run's tasks (≤ the task budget) finite
  // and exact enough, where 1e308 overflowed to an infinite iteration time.
  constexpr double kMaxSlots = 1e9;
  const auto text = [](const std::string& v) { return v; };
  const auto integer = [](const char* option, long lo, long hi) {
    return [option, lo, hi](const std::string& v) { return parse_int(option, v, lo, hi); };
  };
  const auto real = [](const char* option, double lo, double hi, bool lo_inclusive = true) {
    return [option, lo, hi, lo_inclusive](const std::string& v) {
      return parse_double(option, v, lo, hi, lo_inclusive);
    };
  };
  const auto named = [](const char* option, const auto& table) {
    return [option, &table](const std::string& v) { return parse_name(option, v, table); };
  };
  return {
      field_option(
          Scope::Always, "schedule", "", "Schedule name (see `pipesim list schedules`)", "1f1b",
          [](Scenario & s) -> auto& { return s.schedule; }, text),
      field_option(
          Scope::Always, "stages", "D", "Pipeline depth D", "4",
          [](Scenario & s) -> auto& { return s.params.stages; },
          integer("stages", 1, schedules::kMaxStages)),
      field_option(
          Scope::Always, "micro_batches", "N", "Micro-batches per iteration N", "8",
          [](Scenario & s) -> auto& { return s.params.micro_batches; },
          integer("micro_batches", 1, schedules::kMaxMicroBatches)),
      field_option(
          Scope::Scheme, "pipelines", "",
          "chimera: 2f pipelines, f dividing D/2 (0: the scheme's default)", "0",
          [](Scenario & s) -> auto& { return s.params.pipelines; },
          integer("pipelines", 0, schedules::kMaxStages)),
      field_option(
          Scope::Scheme, "chunks", "",
          "interleaved: model chunks v per worker (0: the scheme's default)", "0",
          [](Scenario & s) -> auto& { return s.params.chunks; }, integer("chunks", 0, 64)),
      field_option(
          Scope::Scheme, "strategy", "", "chimera with N = kD: how the basic units are combined",
          "", [](Scenario & s) -> auto& { return s.params.strategy; },
          [](const std::string& v) {
            return v.empty() ? v : parse_choice("strategy", v, {"direct", "doubling", "halving"});
          }),
      field_option(
          Scope::Scheme, "iterations", "",
          "asynchronous schedules: iterations listed, 3..256 (0: the scheme's default)", "0",
          [](Scenario & s) -> auto& { return s.params.iterations; }, integer("iterations", 0, 256)),
      field_option(
          Scope::Scheme, "epoch_drain", "",
          "asynchronous schedules: on = the pipeline fills and drains around every run of "
          "`iterations` updates (a loop that flushes at each epoch's end), so the "
          "iteration time is the run's span / iterations; off = the steady-state period",
          "off", [](Scenario & s) -> auto& { return s.params.epoch_drain; },
          named("epoch_drain", kOnOffNames)),
      field_option(
          Scope::UnitCost, "t_forward", "", "Unit-cost mode: forward time t_F, in (0, 1e9]", "1",
          [](Scenario & s) -> auto& { return s.unit.forward; },
          real("t_forward", 0, kMaxSlots, false)),
      field_option(
          Scope::UnitCost, "t_backward", "",
          "Unit-cost mode: whole backward time t_B = t_I + t_W, in (0, 1e9]", "2",
          [](Scenario & s) -> auto& { return s.unit.backward; },
          real("t_backward", 0, kMaxSlots, false)),
      field_option(
          Scope::UnitCost, "t_weight", "",
          "Unit-cost mode: W part of a split backward, in [0, t_B]", "0",
          [](Scenario & s) -> auto& { return s.unit.weight; }, real("t_weight", 0, kMaxSlots)),
      field_option(
          Scope::UnitCost, "t_comm", "",
          "Unit-cost mode: delay on every edge between two workers, in [0, 1e9]", "0",
          [](Scenario & s) -> auto& { return s.unit.comm; }, real("t_comm", 0, kMaxSlots)),
      field_option(
          Scope::UnitCost, "t_allreduce", "",
          "Unit-cost mode: duration of a stage's gradient all-reduce (a delay), in [0, "
          "1e9]",
          "0", [](Scenario & s) -> auto& { return s.unit.all_reduce; },
          real("t_allreduce", 0, kMaxSlots)),
      // Real-cost mode (with model and hardware).
      field_option(
          Scope::Always, "model", "",
          "Real-cost mode: model name (`pipesim list models`), YAML path or Hugging Face "
          "config.json",
          "", [](Scenario & s) -> auto& { return s.perf.model; }, text),
      field_option(
          Scope::Always, "hardware", "",
          "Real-cost mode: hardware profile name (`pipesim list hardware`) or YAML path", "",
          [](Scenario & s) -> auto& { return s.perf.hardware; }, text),
      field_option(
          Scope::RealCost, "micro_batch_size", "B", "Real-cost mode: samples per micro-batch B",
          "1", [](Scenario & s) -> auto& { return s.perf.setup.micro_batch_size; },
          integer("micro_batch_size", 1, 1 << 16)),
      field_option(
          Scope::RealCost, "data_parallel", "W", "Real-cost mode: pipeline replicas W (GPUs = D·W)",
          "1", [](Scenario & s) -> auto& { return s.perf.setup.data_parallel; },
          integer("data_parallel", 1, 1 << 16)),
      field_option(
          Scope::RealCost, "recompute", "",
          "Real-cost mode: activation recomputation none|selective|full", "none",
          [](Scenario & s) -> auto& { return s.perf.setup.recompute; },
          named("recompute", kRecomputeNames)),
      field_option(
          Scope::RealCost, "partition", "",
          "Real-cost mode: layers to stages, uniform|balanced|account-ends (the embedding "
          "and the loss count as a layer each)",
          "uniform", [](Scenario & s) -> auto& { return s.perf.setup.partition; },
          named("partition", kPartitionNames)),
      field_option(
          Scope::RealCost, "placement", "",
          "Real-cost mode: workers on GPUs, pipeline-major|data-major", "pipeline-major",
          [](Scenario & s) -> auto& { return s.perf.setup.placement; },
          named("placement", kPlacementNames)),
      field_option(
          Scope::RealCost, "grad_sync", "",
          "Real-cost mode: gradient all-reduce eager (after a stage's last backward), "
          "flush (after all compute), eager-opt (eager only where holders idle at the "
          "end) or blocking (asynchronous schedules: eager, and the worker waits for it "
          "and its step, as with PyTorch DDP)",
          "eager", [](Scenario & s) -> auto& { return s.perf.grad_sync; },
          named("grad_sync", kGradSyncNames)),
      field_option(
          Scope::RealCost, "overlap_p2p", "",
          "Real-cost mode: p2p transfers overlap compute (on) or block the sender (off)", "on",
          [](Scenario & s) -> auto& { return s.perf.overlap_p2p; },
          named("overlap_p2p", kOnOffNames)),
      field_option(
          Scope::RealCost, "bytes_per_param", "",
          "Real-cost mode: static bytes per parameter, weights + gradients + optimizer (0 "
          "= from the precision: fp32 16, fp16 16, bf16 18, fp8 19)",
          "0", [](Scenario & s) -> auto& { return s.perf.setup.bytes_per_param; },
          real("bytes_per_param", 0, 1024)),
      // Parallelism and numerics of real runs (cost/training_setup.hpp).
      field_option(
          Scope::RealCost, "tensor_parallel", "T",
          "Real-cost mode: tensor-parallel GPUs t per worker, within a node (GPUs = "
          "t·D·W)",
          "1", [](Scenario & s) -> auto& { return s.perf.setup.tensor_parallel; },
          integer("tensor_parallel", 1, 1024)),
      field_option(
          Scope::RealCost, "sequence_parallel", "",
          "Real-cost mode: sequence parallelism on|off (needs t > 1)", "off",
          [](Scenario & s) -> auto& { return s.perf.setup.sequence_parallel; },
          named("sequence_parallel", kOnOffNames)),
      field_option(
          Scope::RealCost, "tp_comm_overlap", "",
          "Real-cost mode: tensor-parallel collectives overlap the GEMMs on|off "
          "(Megatron-Core --tp-comm-overlap; needs sequence parallelism)",
          "off", [](Scenario & s) -> auto& { return s.perf.setup.tp_comm_overlap; },
          named("tp_comm_overlap", kOnOffNames)),
      field_option(
          Scope::RealCost, "distributed_optimizer", "",
          "Real-cost mode: optimizer state sharded over data-parallel ranks (ZeRO-1) "
          "on|off",
          "off", [](Scenario & s) -> auto& { return s.perf.setup.distributed_optimizer; },
          named("distributed_optimizer", kOnOffNames)),
      field_option(
          Scope::RealCost, "grad_bucket_bytes", "",
          "Real-cost mode: gradient buckets of this many bytes, each its own collective call "
          "paying the algorithm's latency (PyTorch DDP's bucket_cap_mb: 25 MiB = 26214400); 0 "
          "= one flat buffer per stage",
          "0", [](Scenario & s) -> auto& { return s.perf.setup.grad_bucket_bytes; },
          real("grad_bucket_bytes", 0, 1e12)),
      field_option(
          Scope::RealCost, "precision", "",
          "Real-cost mode: training precision fp32|fp16|bf16|fp8 (empty = the model "
          "file's)",
          "", [](Scenario & s) -> auto& { return s.perf.setup.precision; },
          [](const std::string& v) -> std::optional<models::Precision> {
            if (v.empty()) return std::nullopt;
            return parse_name("precision", v, kPrecisionNames);
          }),
      field_option(
          Scope::RealCost, "attention", "", "Real-cost mode: attention kernels standard|flash",
          "standard", [](Scenario & s) -> auto& { return s.perf.setup.attention; },
          named("attention", kAttentionNames)),
      field_option(
          Scope::RealCost, "vocabulary", "",
          "Real-cost mode: vocabulary size V (0 = the model file's)", "0",
          [](Scenario & s) -> auto& { return s.perf.setup.vocabulary; },
          integer("vocabulary", 0, 1 << 24)),
      field_option(
          Scope::RealCost, "sequence", "",
          "Real-cost mode: sequence length s (0 = the model file's)", "0",
          [](Scenario & s) -> auto& { return s.perf.setup.sequence; },
          integer("sequence", 0, 1 << 24)),
  };
}

}  // namespace

OptionError::OptionError(std::string option, std::string problem)
    : core::ConfigError(fmt::format("{}: {}", option, problem)),
      option_(std::move(option)),
      problem_(std::move(problem)) {}

const std::vector<Option>& options() {
  static const std::vector<Option> table = make_options();  // immutable after first use
  return table;
}

std::string option_text(const Scenario& s, std::string_view name) {
  const auto num = [](auto v) { return fmt::format("{}", v); };
  const auto& p = s.params;
  const auto& setup = s.perf.setup;
  if (name == "schedule") return s.schedule;
  if (name == "stages") return num(p.stages);
  if (name == "micro_batches") return num(p.micro_batches);
  if (name == "pipelines") return num(p.pipelines);
  if (name == "chunks") return num(p.chunks);
  if (name == "strategy") return p.strategy;
  if (name == "iterations") return num(p.iterations);
  if (name == "epoch_drain") return std::string(name_of(kOnOffNames, p.epoch_drain));
  if (name == "t_forward") return num(s.unit.forward);
  if (name == "t_backward") return num(s.unit.backward);
  if (name == "t_weight") return num(s.unit.weight);
  if (name == "t_comm") return num(s.unit.comm);
  if (name == "t_allreduce") return num(s.unit.all_reduce);
  if (name == "model") return s.perf.model;
  if (name == "hardware") return s.perf.hardware;
  if (name == "micro_batch_size") return num(setup.micro_batch_size);
  if (name == "data_parallel") return num(setup.data_parallel);
  if (name == "recompute") return std::string(name_of(kRecomputeNames, setup.recompute));
  if (name == "partition") return std::string(name_of(kPartitionNames, setup.partition));
  if (name == "placement") return std::string(name_of(kPlacementNames, setup.placement));
  if (name == "grad_sync") return std::string(name_of(kGradSyncNames, s.perf.grad_sync));
  if (name == "overlap_p2p") return std::string(name_of(kOnOffNames, s.perf.overlap_p2p));
  if (name == "bytes_per_param") return num(setup.bytes_per_param);
  if (name == "tensor_parallel") return num(setup.tensor_parallel);
  if (name == "sequence_parallel")
    return std::string(name_of(kOnOffNames, setup.sequence_parallel));
  if (name == "tp_comm_overlap") return std::string(name_of(kOnOffNames, setup.tp_comm_overlap));
  if (name == "distributed_optimizer") {
    return std::string(name_of(kOnOffNames, setup.distributed_optimizer));
  }
  if (name == "grad_bucket_bytes") return num(setup.grad_bucket_bytes);
  if (name == "precision") {
    return setup.precision ? std::string(name_of(kPrecisionNames, *setup.precision)) : "";
  }
  if (name == "attention") return std::string(name_of(kAttentionNames, setup.attention));
  if (name == "vocabulary") return num(setup.vocabulary);
  if (name == "sequence") return num(setup.sequence);
  throw OptionError(std::string(name), "unknown option");
}

std::vector<std::string> option_texts(const Scenario& s) {
  std::vector<std::string> texts;
  for (const Option& o : options())
    texts.push_back(option_text(s, o.name));
  return texts;
}

const Option* find_option(std::string_view name) {
  for (const Option& o : options()) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

Scenario make_scenario(const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, _] : values) {
    if (find_option(name) == nullptr) throw OptionError(name, "unknown option");
  }
  Scenario s;
  for (const Option& o : options()) {
    const std::string* text = &o.default_value;
    for (const auto& [name, value] : values) {
      if (name == o.name) text = &value;
    }
    o.apply(s, *text);
  }
  return s;
}

void apply_given(const Option& option, Scenario& s, const std::string& text) {
  if (text.empty()) {
    bad(option.name,
        fmt::format("empty value (leave the option out for its default{})",
                    option.default_value.empty() ? std::string()
                                                 : fmt::format(", {}", option.default_value)));
  }
  option.apply(s, text);
}

bool zero_is_scheme_default(const Option& option) {
  return option.scope == Scope::Scheme && option.default_value == "0";
}

namespace {

Scope scope_of(std::string_view name) {
  const Option* o = find_option(name);
  return o ? o->scope : Scope::Always;
}

}  // namespace

bool shapes_schedule(std::string_view name) {
  return name == "schedule" || name == "stages" || name == "micro_batches" ||
         scope_of(name) == Scope::Scheme;
}

namespace {

// "chimera" or "zb-v, dualpipev": the schemes that accept `option`.
std::string accepted_by(std::string_view option) {
  std::string names;
  for (const auto& e : schedules::all_schedules()) {
    if (schedules::accepts(e.name, option))
      names += fmt::format("{}{}", names.empty() ? "" : ", ", e.name);
  }
  return names;
}

}  // namespace

namespace {

bool applies(const Scenario& s, Scope scope, std::string_view name) {
  switch (scope) {
    case Scope::Scheme:
      return schedules::accepts(s.schedule, name);
    case Scope::UnitCost:
      return !s.perf.enabled();
    case Scope::RealCost:
      return s.perf.enabled();
    case Scope::Always:
      break;
  }
  return true;
}

}  // namespace

bool applies(const Scenario& s, std::string_view name) {
  return applies(s, scope_of(name), name);
}

void require_applicable(const Scenario& s, const std::vector<std::string>& given) {
  for (const Option& o : options()) {
    if (std::find(given.begin(), given.end(), o.name) == given.end() ||
        applies(s, o.scope, o.name)) {
      continue;
    }
    if (o.scope == Scope::Scheme) {
      // An unknown schedule is reported by the registry, with the known names.
      if (schedules::find_schedule(s.schedule) == nullptr) return;
      bad(o.name, fmt::format("does not apply to schedule {} (only to {})", s.schedule,
                              accepted_by(o.name)));
    }
    if (o.scope == Scope::UnitCost) {
      bad(o.name, "applies only in unit-cost mode (without model and hardware)");
    }
    bad(o.name, "applies only in real-cost mode (with model and hardware)");
  }
}

int parse_int(const std::string& option, const std::string& text, long lo, long hi) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
    bad(option, fmt::format("expected an integer in [{}, {}], got '{}'", lo, hi, text));
  }
  if (value < lo || value > hi)
    bad(option, fmt::format("must be in [{}, {}], got {}", lo, hi, value));
  return static_cast<int>(value);
}

double parse_double(const std::string& option, const std::string& text, double lo, double hi,
                    bool lo_inclusive) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::string range = fmt::format("{}{}, {}]", lo_inclusive ? "[" : "(", lo, hi);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty() ||
      !std::isfinite(value)) {
    bad(option, fmt::format("expected a number in {}, got '{}'", range, text));
  }
  if (value < lo || (!lo_inclusive && value == lo) || value > hi) {
    bad(option, fmt::format("must be in {}, got {}", range, value));
  }
  return value == 0.0 ? 0.0 : value;  // -0 is 0: printed back as 0, never "-0"
}

std::string parse_choice(const std::string& option, const std::string& text,
                         const std::vector<std::string>& choices) {
  for (const auto& c : choices) {
    if (c == text) return text;
  }
  bad(option, fmt::format("must be one of {}, got '{}'", join(choices), text));
}

}  // namespace pipesim::scenario
