#include "run_options.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "pipesim/core/config_error.hpp"
#include "pipesim/schedules/params_check.hpp"

namespace pipesim::cli {
namespace {

[[noreturn]] void bad(const std::string& flag, const std::string& problem) {
  throw core::ConfigError("command line", flag, problem);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "|") + i;
  return out;
}

std::vector<RunOption> make_options() {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  return {
      {"--schedule", "Schedule name (see `pipesim list schedules`)", "1f1b",
       [](RunSpec& s, const std::string& v) { s.schedule = v; }},
      {"--stages,-D", "Pipeline depth D", "4",
       [](RunSpec& s, const std::string& v) {
         s.params.stages = parse_int("--stages", v, 1, schedules::kMaxStages);
       }},
      {"--micro-batches,-N", "Micro-batches per iteration N", "8",
       [](RunSpec& s, const std::string& v) {
         s.params.micro_batches = parse_int("--micro-batches", v, 1, schedules::kMaxMicroBatches);
       }},
      {"--pipelines", "chimera: 2f pipelines, f dividing D/2 (0 = 2)", "0",
       [](RunSpec& s, const std::string& v) {
         s.params.pipelines = parse_int("--pipelines", v, 0, schedules::kMaxStages);
       }},
      {"--chunks", "interleaved: model chunks v per worker (0 = 2)", "0",
       [](RunSpec& s, const std::string& v) { s.params.chunks = parse_int("--chunks", v, 0, 64); }},
      {"--strategy", "chimera with N = kD: direct|doubling|halving (empty = direct)", "",
       [](RunSpec& s, const std::string& v) {
         s.params.strategy =
             v.empty() ? v : parse_choice("--strategy", v, {"direct", "doubling", "halving"});
       }},
      {"--iterations", "asynchronous schedules: iterations listed, 3..64 (0 = 4)", "0",
       [](RunSpec& s, const std::string& v) {
         s.params.iterations = parse_int("--iterations", v, 0, 64);
       }},
      {"--t-forward", "Unit-cost mode: forward time t_F (> 0)", "1",
       [](RunSpec& s, const std::string& v) {
         s.unit.forward = parse_double("--t-forward", v, 0, kInf, false);
       }},
      {"--t-backward", "Unit-cost mode: whole backward time t_B = t_I + t_W (> 0)", "2",
       [](RunSpec& s, const std::string& v) {
         s.unit.backward = parse_double("--t-backward", v, 0, kInf, false);
       }},
      {"--t-weight", "Unit-cost mode: W part of a split backward, in [0, t_B]", "0",
       [](RunSpec& s, const std::string& v) {
         s.unit.weight = parse_double("--t-weight", v, 0, kInf);
       }},
      {"--t-comm", "Unit-cost mode: delay on every edge between two workers (>= 0)", "0",
       [](RunSpec& s, const std::string& v) { s.unit.comm = parse_double("--t-comm", v, 0, kInf); }},
      // Real-cost mode (with --model and --hardware; DESIGN.md §4–§6).
      {"--model",
       "Real-cost mode: model name (`pipesim list models`), YAML path or Hugging Face config.json",
       "", [](RunSpec& s, const std::string& v) { s.perf.model = v; }},
      {"--hardware", "Real-cost mode: hardware profile name (`pipesim list hardware`) or YAML path",
       "", [](RunSpec& s, const std::string& v) { s.perf.hardware = v; }},
      {"--micro-batch-size,-B", "Real-cost mode: samples per micro-batch B", "1",
       [](RunSpec& s, const std::string& v) {
         s.perf.setup.micro_batch_size = parse_int("--micro-batch-size", v, 1, 1 << 16);
       }},
      {"--data-parallel,-W", "Real-cost mode: pipeline replicas W (GPUs = D·W)", "1",
       [](RunSpec& s, const std::string& v) {
         s.perf.setup.data_parallel = parse_int("--data-parallel", v, 1, 1 << 16);
       }},
      {"--recompute", "Real-cost mode: activation recomputation none|selective|full", "none",
       [](RunSpec& s, const std::string& v) {
         const std::string c = parse_choice("--recompute", v, {"none", "selective", "full"});
         s.perf.setup.recompute = c == "none"        ? models::Recompute::None
                                  : c == "selective" ? models::Recompute::Selective
                                                     : models::Recompute::Full;
       }},
      {"--partition", "Real-cost mode: layers to stages, uniform|balanced", "uniform",
       [](RunSpec& s, const std::string& v) {
         s.perf.setup.partition = parse_choice("--partition", v, {"uniform", "balanced"}) ==
                                          "uniform"
                                      ? models::PartitionMode::Uniform
                                      : models::PartitionMode::Balanced;
       }},
      {"--placement", "Real-cost mode: workers on GPUs, pipeline-major|data-major",
       "pipeline-major",
       [](RunSpec& s, const std::string& v) {
         s.perf.setup.placement =
             parse_choice("--placement", v, {"pipeline-major", "data-major"}) == "pipeline-major"
                 ? hardware::PlacementMode::PipelineMajor
                 : hardware::PlacementMode::DataMajor;
       }},
      {"--grad-sync", "Real-cost mode: gradient all-reduce eager (after a stage's last backward) "
                      "or flush (after all compute)",
       "eager",
       [](RunSpec& s, const std::string& v) {
         s.perf.flush_grad_sync = parse_choice("--grad-sync", v, {"eager", "flush"}) == "flush";
       }},
      {"--overlap-p2p", "Real-cost mode: p2p transfers overlap compute (on) or block the sender (off)",
       "on",
       [](RunSpec& s, const std::string& v) {
         s.perf.overlap_p2p = parse_choice("--overlap-p2p", v, {"on", "off"}) == "on";
       }},
      {"--bytes-per-param", "Real-cost mode: static bytes per parameter, weights + gradients + "
                            "optimizer (mixed-precision Adam: 16)",
       "16",
       [](RunSpec& s, const std::string& v) {
         s.perf.setup.bytes_per_param = parse_double("--bytes-per-param", v, 0, 1024, false);
       }},
  };
}

}  // namespace

std::string RunOption::flag() const { return names.substr(0, names.find(',')); }

const std::vector<RunOption>& run_options() {
  static const std::vector<RunOption> options = make_options();  // immutable after first use
  return options;
}

int parse_int(const std::string& flag, const std::string& text, long lo, long hi) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
    bad(flag, fmt::format("expected an integer in [{}, {}], got '{}'", lo, hi, text));
  }
  if (value < lo || value > hi) bad(flag, fmt::format("must be in [{}, {}], got {}", lo, hi, value));
  return static_cast<int>(value);
}

double parse_double(const std::string& flag, const std::string& text, double lo, double hi,
                    bool lo_inclusive) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::string range = fmt::format("{}{}, {}]", lo_inclusive ? "[" : "(", lo, hi);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty() ||
      !std::isfinite(value)) {
    bad(flag, fmt::format("expected a number in {}, got '{}'", range, text));
  }
  if (value < lo || (!lo_inclusive && value == lo) || value > hi) {
    bad(flag, fmt::format("must be in {}, got {}", range, value));
  }
  return value;
}

std::string parse_choice(const std::string& flag, const std::string& text,
                         const std::vector<std::string>& choices) {
  for (const auto& c : choices) {
    if (c == text) return text;
  }
  bad(flag, fmt::format("must be one of {}, got '{}'", join(choices), text));
}

}  // namespace pipesim::cli
