// `pipesim calibrate`: fit a hardware profile from benchmark samples (any machine), or run the
// CUDA benchmarks first (a CUDA build), or read a profiler trace of the user's own training step
// and set it beside pipesim's prediction (--from-trace); `pipesim calibrate layer-check`:
// measured layer times beside the cost model's predictions. See calibrate/README.md.

#include <fmt/format.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "flags.hpp"
#include "output.hpp"
#include "pipesim/calibrate/calibration_fit.hpp"
#include "pipesim/calibrate/layer_check.hpp"
#include "pipesim/calibrate/profile_yaml.hpp"
#include "pipesim/calibrate/report.hpp"
#include "pipesim/calibrate/samples.hpp"
#include "pipesim/calibrate/trace_check.hpp"
#include "pipesim/core/atomic_write.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/text_file.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/scenario/options.hpp"

// Set by tools/CMakeLists.txt when the CUDA benchmarks are built: where they are relative to the
// running executable's directory, installed and in the build tree.
#ifndef PIPESIM_BENCH_FROM_BIN
#define PIPESIM_BENCH_FROM_BIN ""
#define PIPESIM_BENCH_FROM_BUILD_BIN ""
#endif

namespace pipesim::cli {
namespace {

namespace fs = std::filesystem;

// The benchmarks of this pipesim: <bin>/../libexec/pipesim installed, calibrate/bench in the
// build tree, whichever holds them (the installed place when neither does); "" when this
// pipesim was built without them.
std::string default_bench_dir() {
  const fs::path installed = PIPESIM_BENCH_FROM_BIN;
  if (installed.empty()) return {};
  std::error_code ec;
  const fs::path bin = fs::read_symlink("/proc/self/exe", ec).parent_path();
  if (ec) return {};
  for (const fs::path& relative : {installed, fs::path(PIPESIM_BENCH_FROM_BUILD_BIN)}) {
    const fs::path dir = (bin / relative).lexically_normal();
    if (fs::exists(dir / "pipesim-calibrate-bench", ec)) return dir.string();
  }
  return (bin / installed).lexically_normal().string();
}

struct CalibrateOptions {
  std::string from_samples;
  std::string base;  //!< empty: the shipped profile of the samples' GPU
  std::string output;
  std::string name;
  std::string format = "text";
  bool quick = false;
  std::string bench_dir = default_bench_dir();
  std::string run_dir;
};

// `--from-trace`: the trace, where its samples go, and the run's options as the command line
// gave them (the real-cost options of the scenario table).
struct TraceOptions {
  std::string from_trace;
  std::string samples_out;
  std::map<std::string, std::string> values;
  std::map<std::string, const CLI::Option*> flags;
};

struct LayerCheckOptions {
  std::string layer_times;
  std::string profile;
  std::string format = "text";
  bool kernels = false;
  std::string output;
};

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The benchmarks' exit status for "no CUDA device" (calibrate/bench/bench_common.cuh).
constexpr int kExitNoDevice = 3;

// The exit status of a std::system call, or -1 when the command did not exit normally.
int exit_status(int rc) {
  return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// Runs `cmd` and returns its exit status and the first line it printed.
std::pair<int, std::string> capture(const std::string& cmd) {
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return {-1, "cannot start"};
  std::string first;
  std::array<char, 512> buf{};
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe) != nullptr) {
    if (first.empty()) first = buf.data();
  }
  const int status = exit_status(pclose(pipe));
  while (!first.empty() && (first.back() == '\n' || first.back() == '\r'))
    first.pop_back();
  return {status, first};
}

// Runs the CUDA microbenchmarks of this build and returns the samples file they wrote. Asks the
// binary for a device first, so that a machine without a GPU gets one line and no run folder.
fs::path run_benchmarks(const CalibrateOptions& o) {
  if (o.bench_dir.empty()) {
    throw core::ConfigError("command line", "--from-samples",
                            "is required: this pipesim was built without the CUDA benchmarks "
                            "(measure on a GPU node with tools/gpu-calibrate.sh, then fit here)");
  }
  const fs::path bench = fs::path(o.bench_dir) / "pipesim-calibrate-bench";
  if (!fs::exists(bench)) {
    throw core::ConfigError("command line", "--bench-dir",
                            fmt::format("no pipesim-calibrate-bench in '{}'", o.bench_dir));
  }
  const auto [probe, said] = capture(shell_quote(bench.string()) + " --probe 2>&1");
  if (probe == kExitNoDevice) {
    // The binary's line is "<tool>: no CUDA device found (<why>)"; keep what follows the tool.
    const std::string reason =
        said.substr(said.find(": ") == std::string::npos ? 0 : said.find(": ") + 2);
    throw core::ConfigError(bench.string(), "device",
                            fmt::format("{} (measure on a GPU node with tools/gpu-calibrate.sh, "
                                        "then fit here with --from-samples)",
                                        reason.empty() ? "no CUDA device found" : reason));
  }
  if (probe != 0) {
    throw core::ConfigError(bench.string(), "device",
                            fmt::format("--probe failed (exit status {}): {}", probe, said));
  }
  const fs::path out = o.output.empty() ? fs::path("calibration") : fs::path(o.output);
  const fs::path dir =
      o.run_dir.empty() ? out.parent_path() / (out.stem().string() + "-run") : fs::path(o.run_dir);
  const fs::path run_dir = dir.empty() ? fs::path(".") : dir;
  const bool created = fs::create_directories(run_dir);
  const fs::path samples = dir / "samples.csv";
  const std::string cmd = fmt::format("{} {}--out {}", shell_quote(bench.string()),
                                      o.quick ? "--quick " : "", shell_quote(samples.string()));
  const int status = exit_status(std::system(cmd.c_str()));
  if (status != 0) {
    std::error_code ec;
    if (created && fs::is_empty(run_dir, ec)) fs::remove(run_dir, ec);  // leave no empty folder
    throw core::ConfigError(bench.string(), "run",
                            fmt::format("failed (exit status {}); see its output above", status));
  }
  return samples;
}

int run_calibrate(const CalibrateOptions& o) {
  if (!o.name.empty()) {
    if (const std::string why = hardware::check_profile_name(o.name); !why.empty()) {
      throw core::ConfigError("command line", "--name", why);
    }
  }
  const fs::path samples_path =
      o.from_samples.empty() ? run_benchmarks(o) : fs::path(o.from_samples);
  const calibrate::SampleSet samples = calibrate::read_samples(samples_path);
  const hardware::HardwareProfile base = calibrate::choose_base_profile(samples, o.base);
  const calibrate::CalibrationFit fit = calibrate::fit_samples(samples, base.gpu);
  const hardware::Provenance provenance = calibrate::provenance_from(samples, base.name);

  if (!o.output.empty()) {
    // The raw samples travel with the profile: copied beside it, named after it.
    const fs::path out(o.output);
    const std::string samples_name = out.stem().string() + ".samples.csv";
    const fs::path samples_copy = out.parent_path() / samples_name;
    const std::string name = o.name.empty() ? base.name + "-calibrated" : o.name;
    const hardware::HardwareProfile profile =
        calibrate::calibrated_profile(base, fit, provenance, name, samples_name);
    // Profile and samples copy: both written or neither.
    std::vector<core::OutputFile> outputs{{out, hardware::to_yaml(profile)}};
    std::error_code ec;
    if (!fs::equivalent(samples_path, samples_copy, ec)) {
      outputs.push_back({samples_copy, core::read_text_file(samples_path)});
    }
    core::write_files_atomically(outputs);
  }
  emit("", o.format == "json"
               ? calibrate::fit_to_json(fit, provenance, samples_path.string()).dump(2) + "\n"
               : calibrate::fit_to_text(fit, provenance));
  return 0;
}

// The profile fitted from a trace's samples, written with its samples beside it; returns the fit.
calibrate::CalibrationFit write_trace_profile(const CalibrateOptions& o,
                                              const hardware::HardwareProfile& base,
                                              const calibrate::SampleSet& samples) {
  const calibrate::CalibrationFit fit = calibrate::fit_samples(samples, base.gpu);
  hardware::Provenance provenance = calibrate::provenance_from(samples, base.name);
  provenance.references.push_back("profiler trace " + samples.meta("trace", "unknown"));
  const fs::path out(o.output);
  const std::string samples_name = out.stem().string() + ".samples.csv";
  const std::string name = o.name.empty() ? base.name + "-calibrated" : o.name;
  const hardware::HardwareProfile profile =
      calibrate::calibrated_profile(base, fit, provenance, name, samples_name);
  const std::vector<core::OutputFile> outputs{
      {out, hardware::to_yaml(profile)},
      {out.parent_path() / samples_name, calibrate::samples_to_csv(samples)}};
  core::write_files_atomically(outputs);
  return fit;
}

int run_trace_calibration(const CalibrateOptions& o, const TraceOptions& t) {
  if (!o.from_samples.empty()) {
    throw core::ConfigError::option("from_trace", "cannot be given with --from-samples");
  }
  if (!o.name.empty()) {
    if (const std::string why = hardware::check_profile_name(o.name); !why.empty()) {
      throw core::ConfigError("command line", "--name", why);
    }
  }
  scenario::Scenario spec;
  for (const scenario::Option& option : scenario::options()) {
    const auto flag = t.flags.find(option.name());
    if (flag != t.flags.end() && flag->second->count() > 0) {
      scenario::apply_given(option, spec, given_text(option, t.values.at(option.name())));
    } else {
      option.apply(spec, option.spec.default_text);
    }
  }
  if (spec.perf.model.empty()) {
    throw core::ConfigError::option("model",
                                    "required with --from-trace: the model whose kernels the "
                                    "trace ran (shipped name, YAML or config.json)");
  }
  const calibrate::ProfilerTrace trace =
      calibrate::read_profiler_trace(t.from_trace, [&](std::uint64_t read, std::uint64_t total) {
        fmt::print(stderr, "pipesim: reading {}: {} of {} MiB\n", t.from_trace, read >> 20,
                   total >> 20);
      });
  const hardware::HardwareProfile base = calibrate::choose_trace_profile(
      trace, spec.perf.hardware.empty() ? o.base : spec.perf.hardware);
  const calibrate::TraceRun run =
      calibrate::make_trace_run(models::load_model(spec.perf.model), base, spec.perf.setup);
  const calibrate::TraceCheck check = calibrate::check_trace(trace, run);

  std::optional<calibrate::CalibrationFit> fit;
  std::optional<calibrate::SampleSet> samples;
  if (!t.samples_out.empty() || !o.output.empty()) {
    samples = calibrate::trace_samples(trace, check, run);
  }
  if (!t.samples_out.empty()) {
    core::write_file_atomically(t.samples_out, calibrate::samples_to_csv(*samples));
  }
  if (!o.output.empty()) fit = write_trace_profile(o, base, *samples);

  if (o.format == "json") {
    nlohmann::json j = calibrate::trace_check_to_json(check);
    if (fit) {
      j["fit"] = calibrate::fit_to_json(*fit, calibrate::provenance_from(*samples, base.name),
                                        t.samples_out.empty() ? o.output : t.samples_out);
    }
    emit("", j.dump(2) + "\n");
  } else {
    std::string text = calibrate::trace_check_to_text(check);
    if (fit) {
      text += fmt::format("\nprofile {} fitted from the trace's samples:\n", o.output) +
              calibrate::fit_to_text(*fit, calibrate::provenance_from(*samples, base.name));
    }
    emit("", text);
  }
  return 0;
}

int run_layer_check(const LayerCheckOptions& o) {
  const auto measured = calibrate::read_layer_times(o.layer_times);
  const hardware::HardwareProfile profile = calibrate::load_base_profile(o.profile);
  const calibrate::LayerCheck check = calibrate::check_layers(profile.gpu, measured, o.kernels);
  std::string text;
  if (o.format == "json") {
    text = calibrate::layer_check_to_json(check).dump(2) + "\n";
  } else if (o.format == "csv") {
    text = calibrate::layer_check_to_csv(check);
  } else {
    text = calibrate::layer_check_to_text(check);
  }
  emit(o.output, text);
  return 0;
}

}  // namespace

Action add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  auto l = std::make_shared<LayerCheckOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Fit a hardware profile from CUDA benchmark samples (or run them first)");
  cmd->add_option("--from-samples", o->from_samples,
                  "Samples CSV from calibrate/bench (fit only; works on any machine)");
  auto t = std::make_shared<TraceOptions>();
  const CLI::Option* from_trace =
      cmd->add_option("--from-trace", t->from_trace,
                      "A PyTorch profiler trace of your own training step (Chrome trace .json or "
                      ".json.gz): its kernels beside pipesim's prediction of the same work, with "
                      "--model and the run's options; -o fits a profile from it")
          ->type_name("PATH");
  cmd->add_option("--samples-out", t->samples_out,
                  "--from-trace: write the trace's measured samples (calibrate's samples CSV)")
      ->type_name("PATH");
  // The run the trace measured, in the scenario table's own words (--model, -T, -E, -B,
  // --sequence, --precision, ...).
  for (const scenario::Option& option : scenario::options()) {
    if (option.group != "Real-cost mode") continue;
    CLI::Option* flag = add_scenario_option(*cmd, option, t->values[option.name()], false);
    t->flags[option.name()] = flag->group("The traced run (--from-trace)");
  }
  cmd->add_option("--base", o->base,
                  "Profile of the measured GPU the fit starts from (peaks, memory, unmeasured "
                  "values): shipped name or YAML. Required unless the samples name a GPU that "
                  "one shipped profile is for; refused when it is another GPU's");
  cmd->add_option("--output,-o", o->output,
                  "Write the calibrated profile YAML here (samples copied beside it)");
  cmd->add_option("--name", o->name, "Profile name (default: <base name>-calibrated)");
  cmd->add_option("--format", o->format, "How to print the fitted parameters")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_flag("--quick", o->quick, "CUDA build, no --from-samples: the < 3 min benchmark set");
  cmd->add_option("--bench-dir", o->bench_dir,
                  "Where pipesim-calibrate-bench is (CUDA build; default: this pipesim's own, "
                  "<bin>/../libexec/pipesim installed)");
  cmd->add_option("--run-dir", o->run_dir,
                  "Where the benchmarks write samples (default: <output>-run/)");

  CLI::App* layer = cmd->add_subcommand(
      "layer-check", "Measured transformer-layer times beside the cost model's predictions");
  layer->add_option("--layer-times", l->layer_times, "Layer CSV from pipesim-layer-bench")
      ->required();
  layer
      ->add_option("--profile", l->profile,
                   "Hardware profile to predict with: shipped name or YAML")
      ->required();
  layer->add_flag("--kernels", l->kernels, "Also compare every kernel, not only layer totals");
  layer->add_option("--format", l->format, "Output format")
      ->check(CLI::IsMember({"text", "csv", "json"}))
      ->capture_default_str();
  layer->add_option("--output,-o", l->output, "Write to this file (atomically) instead of stdout");

  return [o, l, t, layer, from_trace] {
    if (layer->parsed()) return run_layer_check(*l);
    if (from_trace->count() > 0) return run_trace_calibration(*o, *t);
    for (const auto& [name, flag] : t->flags) {
      if (flag->count() > 0) {
        throw core::ConfigError::option(name, "applies with --from-trace only (the traced run)");
      }
    }
    if (!t->samples_out.empty()) {
      throw core::ConfigError::option("samples_out", "applies with --from-trace only");
    }
    return run_calibrate(*o);
  };
}

}  // namespace pipesim::cli
