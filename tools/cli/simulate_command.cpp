#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "flags.hpp"
#include "megatron_input.hpp"
#include "output.hpp"
#include "pipesim/core/atomic_write.hpp"
#include "pipesim/core/budget.hpp"
#include "pipesim/core/option_spec.hpp"
#include "pipesim/report/chrome_trace.hpp"
#include "pipesim/report/critical_path_report.hpp"
#include "pipesim/report/run_report.hpp"
#include "pipesim/report/svg_timeline.hpp"
#include "pipesim/scenario/derived.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/schedules/schedule_file.hpp"
#include "pipesim/sim/graph_export.hpp"
#include "torchtitan_input.hpp"

namespace pipesim::cli {

namespace {

struct SimulateOptions {
  scenario::Scenario spec;
  std::string format = "text";
  bool ops = false;
  bool critical_path = false;
  std::string output;
  std::string max_tasks;  //!< as typed
  const CLI::Option* max_tasks_flag = nullptr;
  //! Pictures and exchange files (each written atomically when given).
  struct Files {
    std::string schedule_file, export_csv, timeline, trace, export_dot;
  } files;
  std::map<std::string, std::string> values;        //!< option → text as given
  std::map<std::string, const CLI::Option*> flags;  //!< option → its flag, to see if given
  //! Megatron-LM's derived options (scenario/derived.hpp): name → text, and their flags.
  std::map<std::string, std::string> derived;
  std::map<std::string, const CLI::Option*> derived_flags;
  MegatronFlags megatron;
};

// The run's flags: every scenario option, the derived ones, Megatron-LM's and torchtitan's
// inputs, the task budget.
void add_run_flags(CLI::App& cmd, SimulateOptions& o) {
  // Options are kept as text and parsed by scenario::options(), so every bad value gets the
  // same one-line message naming the flag and the allowed range.
  for (const scenario::Option& option : scenario::options()) {
    o.flags[option.name()] = add_scenario_option(cmd, option, o.values[option.name()], false);
  }
  for (const core::OptionSpec& spec : scenario::derived_options()) {
    o.derived_flags[spec.name] = cmd.add_option(flag_of(spec.name), o.derived[spec.name], spec.help)
                                     ->type_name(spec.type_name())
                                     ->group("Schedule");
  }
  add_megatron_flags(cmd, o.megatron, true);
  o.max_tasks_flag =
      cmd.add_option("--max-tasks", o.max_tasks,
                     "The task budget: a run whose estimated tasks are above it is refused before "
                     "anything is built (exit 3), in [1, 1e12]")
          ->type_name("REAL")
          ->default_str(fmt::format("{:g}", core::kDefaultMaxTasks))
          ->group("Schedule");
}

// The output's format and extras, the schedule file, and the files written beside the report.
void add_output_flags(CLI::App& cmd, SimulateOptions& o) {
  cmd.add_option("--format", o.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str()
      ->group("Output");
  cmd.add_flag("--memory-timeline", o.spec.memory_timeline,
               "JSON, real-cost mode: each worker's memory over time, memory_timeline: "
               "[[seconds, bytes], ...] at every change")
      ->group("Output");
  cmd.add_flag("--ops", o.ops, "JSON: list each worker's ops with start and end times")
      ->group("Output");
  cmd.add_flag("--critical-path", o.critical_path,
               "Text and JSON: the chain of ops and transfers that sets the run's length, each "
               "with its wait and slack (JSON: critical_path)")
      ->group("Output");
  cmd.add_option("--output,-o", o.output, "Write to this file (atomically) instead of stdout")
      ->type_name("PATH")
      ->group("Output");
  cmd.add_option("--schedule-file", o.files.schedule_file,
                 "Replay a schedule from a file: pipesim's text format, or PyTorch's pipelining "
                 "CSV actions (.csv); overrides --schedule")
      ->type_name("PATH")
      ->group("Schedule");
  cmd.add_option("--export-csv", o.files.export_csv,
                 "Write the schedule in PyTorch's pipelining CSV action format")
      ->type_name("PATH")
      ->group("Output");
  cmd.add_option("--timeline", o.files.timeline, "Write an SVG timeline (a row per worker)")
      ->type_name("PATH")
      ->group("Output");
  cmd.add_option("--trace", o.files.trace,
                 "Write Chrome trace events (JSON, times in microseconds; opens in "
                 "ui.perfetto.dev)")
      ->type_name("PATH")
      ->group("Output");
  cmd.add_option("--export-dot", o.files.export_dot,
                 "Write the task graph for GraphViz (.dot or .gv; at most 200000 tasks)")
      ->type_name("PATH")
      ->group("Output");
}

// The scenario from the given options (an empty text is an error), the others' defaults, and a
// Megatron-LM script or list, or a torchtitan config (read into `megatron`, `torchtitan`),
// whose settings join the given ones (which must agree); then the derived options and the
// checks of what applies.
void build_scenario(SimulateOptions& o, std::optional<scenario::MegatronRun>& megatron,
                    std::optional<scenario::TorchtitanRun>& torchtitan) {
  std::map<std::string, std::string> texts;
  for (const scenario::Option& option : scenario::options()) {
    if (o.flags.at(option.name())->count() > 0)
      texts[option.name()] = given_text(option, o.values.at(option.name()));
  }
  megatron = read_megatron_flags(o.megatron);
  if (megatron) merge_megatron_texts(texts, *megatron, megatron_gpus(o.megatron), true);
  torchtitan = read_torchtitan_flags(o.megatron);
  if (torchtitan) merge_torchtitan_texts(texts, *torchtitan, megatron_gpus(o.megatron), true);
  std::vector<std::string> given;
  for (const scenario::Option& option : scenario::options()) {
    if (const auto it = texts.find(option.name()); it != texts.end()) {
      given.push_back(option.name());
      scenario::apply_given(option, o.spec, it->second);
    } else {
      option.apply(o.spec, option.spec.default_text);
    }
  }
  if (o.max_tasks_flag->count() > 0) {
    o.spec.max_tasks = core::parse_double("max_tasks", o.max_tasks, 1, 1e12);
  }
  std::vector<std::pair<std::string, std::string>> derived;
  for (const auto& [name, flag] : o.derived_flags) {
    if (flag->count() > 0) derived.emplace_back(name, o.derived.at(name));
  }
  const auto& files = o.files;
  if (!files.schedule_file.empty() && !derived.empty()) {
    throw core::ConfigError::option(derived.front().first,
                                    "does not apply with --schedule-file (the file fixes the "
                                    "schedule)");
  }
  o.spec = scenario::resolve_derived(std::move(o.spec), given, derived);
  if (!files.schedule_file.empty()) {
    // The file fixes the schedule: options that would shape a generated one are refused.
    for (const std::string& shaping : given) {
      if (scenario::shapes_schedule(shaping)) {
        throw core::ConfigError::option(shaping,
                                        "does not apply with --schedule-file (the file "
                                        "fixes the schedule)");
      }
    }
  }
  scenario::require_applicable(o.spec, given);
}

// The output flags that do not go together, or name a file the format does not fit.
void check_output_flags(const SimulateOptions& o) {
  const auto& files = o.files;
  if (o.critical_path && o.format == "csv") {
    throw core::ConfigError("command line", "--critical-path",
                            "prints with --format text or json, not csv");
  }
  if (!files.export_dot.empty()) {
    // Only DOT is written; another extension would get DOT under a wrong name.
    if (const auto ext = std::filesystem::path(files.export_dot).extension();
        ext != ".dot" && ext != ".gv") {
      throw core::ConfigError("command line", "--export-dot",
                              fmt::format("writes GraphViz DOT: the file must end in .dot or "
                                          ".gv, got '{}'",
                                          ext.empty() ? std::string("none") : ext.string()));
    }
  }
  if (!files.timeline.empty()) {
    // Only SVG is written; another extension would get SVG bytes under a wrong name.
    if (const auto ext = std::filesystem::path(files.timeline).extension(); ext != ".svg") {
      throw core::ConfigError("command line", "--timeline",
                              fmt::format("writes SVG: the file must end in .svg, got '{}'",
                                          ext.empty() ? std::string("none") : ext.string()));
    }
  }
  if (o.ops && o.format != "json") {
    throw core::ConfigError("command line", "--ops", "prints with --format json only");
  }
  if (o.spec.memory_timeline && !o.spec.perf.enabled()) {
    throw core::ConfigError("command line", "--memory-timeline",
                            "needs real-cost mode (--model and --hardware)");
  }
}

// The run: generated from the scenario, or replayed from the schedule file.
scenario::Result run_simulation(SimulateOptions& o) {
  const auto& files = o.files;
  // The trace's memory counter track needs the timeline (real-cost mode only).
  o.spec.record_memory_timeline = !files.trace.empty() && o.spec.perf.enabled();
  if (files.schedule_file.empty()) return scenario::simulate(o.spec);
  sim::Schedule schedule =
      schedules::load_schedule_file(files.schedule_file, core::Budget{o.spec.max_tasks});
  o.spec.schedule = "file:" + files.schedule_file;
  return scenario::simulate_schedule(o.spec, std::move(schedule), files.schedule_file);
}

// The files asked for beside the report: the schedule's CSV, the timeline, the trace, the DOT.
std::vector<core::OutputFile> side_files(const SimulateOptions& o, const scenario::Result& result,
                                         const std::string& title) {
  const auto& files = o.files;
  std::vector<core::OutputFile> outputs;
  if (!files.export_csv.empty()) {
    outputs.push_back({files.export_csv, schedules::to_pytorch_csv(result.schedule)});
  }
  if (!files.timeline.empty()) {
    outputs.push_back({files.timeline, report::svg_timeline(result, title)});
  }
  if (!files.trace.empty()) {
    outputs.push_back({files.trace, report::chrome_trace(result, title).dump(1) + "\n"});
  }
  if (!files.export_dot.empty()) {
    outputs.push_back({files.export_dot, sim::to_dot(result.graph, title)});
  }
  return outputs;
}

// The report in the chosen format, with the Megatron-LM or torchtitan reading and the critical
// path where asked for.
std::string report_text(const SimulateOptions& o, const scenario::Result& result,
                        const std::optional<scenario::MegatronRun>& megatron,
                        const std::optional<scenario::TorchtitanRun>& torchtitan) {
  std::string text;
  if (o.format == "json") {
    nlohmann::ordered_json j = report::to_json(o.spec, result, o.ops);
    if (megatron) j["megatron_args"] = megatron_json(*megatron);
    if (torchtitan) j["torchtitan_args"] = torchtitan_json(*torchtitan);
    if (o.critical_path) {
      j["critical_path"] =
          report::critical_path_json(result, report::critical_path_of(o.spec, result));
    }
    text = j.dump(2) + "\n";
  } else if (o.format == "csv") {
    text = report::to_csv(o.spec, result);
  } else {
    text = report::to_text(o.spec, result);
    if (megatron) text += "\n" + megatron_text(*megatron);
    if (torchtitan) text += "\n" + torchtitan_text(*torchtitan);
    if (o.critical_path) {
      text += "\n" + report::critical_path_text(result, report::critical_path_of(o.spec, result));
    }
  }
  return text;
}

}  // namespace

Action add_simulate_command(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand("simulate", "Simulate one schedule and report its metrics");
  add_run_flags(*cmd, *o);
  add_output_flags(*cmd, *o);
  cmd->footer(
      "Exit codes: 0 ok; 2 bad input (one line on stderr); 4 the run completed but the "
      "configuration does not fit the GPUs' memory (real-cost mode; the report says so too).");
  return [o] {
    std::optional<scenario::MegatronRun> megatron;
    std::optional<scenario::TorchtitanRun> torchtitan;
    build_scenario(*o, megatron, torchtitan);
    check_output_flags(*o);
    const scenario::Result result = run_simulation(*o);
    const std::string title = fmt::format("{}  D={} N={}", o->spec.schedule,
                                          result.schedule.workers, result.schedule.micro_batches);
    // Every output of the run is rendered first and then written all or none
    // (core::write_files_atomically): a failing --trace never leaves a new --export-csv behind.
    std::vector<core::OutputFile> outputs = side_files(*o, result, title);
    std::string text = report_text(*o, result, megatron, torchtitan);
    if (!o->output.empty() && o->output != "-") {
      outputs.push_back({o->output, std::move(text)});
      core::write_files_atomically(outputs);
    } else {
      core::write_files_atomically(outputs);
      emit(o->output, text);
    }
    // The run is reported either way; the exit code tells a script that the configuration
    // does not fit the GPUs' memory without parsing the output.
    return result.perf && !result.perf->fits_memory ? kExitOutOfMemory : 0;
  };
}

}  // namespace pipesim::cli
