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
