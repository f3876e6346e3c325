#include <fmt/format.h>

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
    std::map<std::string, std::string> values;  //!< flag → text as given
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("simulate", "Simulate one schedule and report its metrics");
  // Options are kept as text and parsed by scenario::options(), so every bad value gets the
  // same one-line message naming the flag and the allowed range.
  for (const scenario::Option& option : scenario::options()) {
    cmd->add_option(cli_names(option), o->values[option.name], option.help)
        ->default_str(option.default_value);
  }
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str();
  cmd->add_flag("--memory-timeline", o->spec.memory_timeline,
                "JSON, real-cost mode: each worker's memory over time, memory_timeline: "
                "[[time, bytes], ...] at every change");
  cmd->add_flag("--ops", o->ops, "JSON: list each worker's ops with start and end times");
  cmd->add_option("--output,-o", o->output, "Write to this file (atomically) instead of stdout");
  cmd->add_option("--schedule-file", o->files.schedule_file,
                  "Replay a schedule from a file: pipesim's text format, or PyTorch's pipelining "
                  "CSV actions (.csv); overrides --schedule");
  cmd->add_option("--export-csv", o->files.export_csv,
                  "Write the schedule in PyTorch's pipelining CSV action format");
  cmd->add_option("--timeline", o->files.timeline, "Write an SVG timeline (a row per worker)");
  cmd->add_option("--trace", o->files.trace,
                  "Write Chrome trace events (JSON; opens in ui.perfetto.dev)");
  return [o] {
    for (const scenario::Option& option : scenario::options()) {
      const auto given = o->values.find(option.name);
      option.apply(o->spec, given != o->values.end() && !given->second.empty()
                                ? given->second
                                : option.default_value);
    }
    const auto& files = o->files;
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
    return 0;
  };
}

}  // namespace pipesim::cli
