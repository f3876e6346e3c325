#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include "commands.hpp"
#include "flags.hpp"
#include "output.hpp"
#include "pipesim/core/atomic_write.hpp"
#include "pipesim/report/chrome_trace.hpp"
#include "pipesim/report/run_report.hpp"
#include "pipesim/report/svg_timeline.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/schedules/schedule_file.hpp"

namespace pipesim::cli {

Action add_simulate_command(CLI::App& app) {
  struct Options {
    scenario::Scenario spec;
    std::string format = "text";
    bool ops = false;
    std::string output;
    //! Pictures and exchange files (each written atomically when given).
    struct Files {
      std::string schedule_file, export_csv, timeline, trace;
    } files;
    std::map<std::string, std::string> values;        //!< option → text as given
    std::map<std::string, const CLI::Option*> flags;  //!< option → its flag, to see if given
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("simulate", "Simulate one schedule and report its metrics");
  // Options are kept as text and parsed by scenario::options(), so every bad value gets the
  // same one-line message naming the flag and the allowed range.
  for (const scenario::Option& option : scenario::options()) {
    o->flags[option.name] = add_scenario_option(*cmd, option, o->values[option.name], false);
  }
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str()
      ->group("Output");
  cmd->add_flag("--memory-timeline", o->spec.memory_timeline,
                "JSON, real-cost mode: each worker's memory over time, memory_timeline: "
                "[[seconds, bytes], ...] at every change")
      ->group("Output");
  cmd->add_flag("--ops", o->ops, "JSON: list each worker's ops with start and end times")
      ->group("Output");
  cmd->add_option("--output,-o", o->output, "Write to this file (atomically) instead of stdout")
      ->type_name("PATH")
      ->group("Output");
  cmd->add_option("--schedule-file", o->files.schedule_file,
                  "Replay a schedule from a file: pipesim's text format, or PyTorch's pipelining "
                  "CSV actions (.csv); overrides --schedule")
      ->type_name("PATH")
      ->group("Schedule");
  cmd->add_option("--export-csv", o->files.export_csv,
                  "Write the schedule in PyTorch's pipelining CSV action format")
      ->type_name("PATH")
      ->group("Output");
  cmd->add_option("--timeline", o->files.timeline, "Write an SVG timeline (a row per worker)")
      ->type_name("PATH")
      ->group("Output");
  cmd->add_option("--trace", o->files.trace,
                  "Write Chrome trace events (JSON, times in microseconds; opens in "
                  "ui.perfetto.dev)")
      ->type_name("PATH")
      ->group("Output");
  cmd->footer(
      "Exit codes: 0 ok; 2 bad input (one line on stderr); 4 the run completed but the "
      "configuration does not fit the GPUs' memory (real-cost mode; the report says so too).");
  return [o] {
    // Given options take their text (an empty one is an error), the others their default.
    std::vector<std::string> given;
    for (const scenario::Option& option : scenario::options()) {
      if (o->flags.at(option.name)->count() > 0) {
        given.push_back(option.name);
        scenario::apply_given(option, o->spec, o->values.at(option.name));
      } else {
        option.apply(o->spec, option.default_value);
      }
    }
    const auto& files = o->files;
    if (!files.schedule_file.empty()) {
      // The file fixes the schedule: options that would shape a generated one are refused.
      for (const std::string& shaping : given) {
        if (scenario::shapes_schedule(shaping)) {
          throw scenario::OptionError(shaping,
                                      "does not apply with --schedule-file (the file "
                                      "fixes the schedule)");
        }
      }
    }
    scenario::require_applicable(o->spec, given);
    if (o->spec.memory_timeline && !o->spec.perf.enabled()) {
      throw core::ConfigError("command line", "--memory-timeline",
                              "needs real-cost mode (--model and --hardware)");
    }
    // The trace's memory counter track needs the timeline (real-cost mode only).
    o->spec.record_memory_timeline = !files.trace.empty() && o->spec.perf.enabled();
    scenario::Result result;
    if (files.schedule_file.empty()) {
      result = scenario::simulate(o->spec);
    } else {
      sim::Schedule schedule = schedules::load_schedule_file(files.schedule_file);
      o->spec.schedule = "file:" + files.schedule_file;
      result = scenario::simulate_schedule(o->spec, std::move(schedule), files.schedule_file);
    }
    const std::string title = fmt::format("{}  D={} N={}", o->spec.schedule,
                                          result.schedule.workers, result.schedule.micro_batches);
    if (!files.export_csv.empty()) {
      core::write_file_atomically(files.export_csv, schedules::to_pytorch_csv(result.schedule));
    }
    if (!files.timeline.empty()) {
      // Only SVG is written; another extension would get SVG bytes under a wrong name.
      if (const auto ext = std::filesystem::path(files.timeline).extension(); ext != ".svg") {
        throw core::ConfigError("command line", "--timeline",
                                fmt::format("writes SVG: the file must end in .svg, got '{}'",
                                            ext.empty() ? std::string("none") : ext.string()));
      }
      core::write_file_atomically(files.timeline, report::svg_timeline(result, title));
    }
    if (!files.trace.empty()) {
      core::write_file_atomically(files.trace, report::chrome_trace(result, title).dump(1) + "\n");
    }
    std::string text;
    if (o->format == "json") {
      text = report::to_json(o->spec, result, o->ops).dump(2) + "\n";
    } else if (o->format == "csv") {
      text = report::to_csv(o->spec, result);
    } else {
      text = report::to_text(o->spec, result);
    }
    emit(o->output, text);
    // The run is reported either way; the exit code tells a script that the configuration
    // does not fit the GPUs' memory without parsing the output.
    return result.perf && !result.perf->fits_memory ? kExitOutOfMemory : 0;
  };
}

}  // namespace pipesim::cli
