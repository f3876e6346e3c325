#include <fmt/format.h>

#include <memory>

#include "chrome_trace.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "pipesim/core/atomic_write.hpp"
#include "pipesim/schedules/params_check.hpp"
#include "pipesim/schedules/schedule_file.hpp"
#include "svg_timeline.hpp"
#include "report.hpp"
#include "run.hpp"

namespace pipesim::cli {

Action add_simulate_command(CLI::App& app) {
  struct Options {
    RunSpec spec;
    std::string format = "text";
    bool ops = false;
    std::string output;
    //! Pictures and exchange files (each written atomically when given).
    struct Files {
      std::string schedule_file, export_csv, timeline, trace;
    } files;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("simulate", "Simulate one schedule and report its metrics");
  cmd->add_option("--schedule", o->spec.schedule, "Schedule name (see `pipesim list schedules`)")
      ->capture_default_str();
  cmd->add_option("--stages,-D", o->spec.params.stages, "Pipeline depth D")
      ->check(CLI::Range(1, schedules::kMaxStages))
      ->capture_default_str();
  cmd->add_option("--micro-batches,-N", o->spec.params.micro_batches,
                  "Micro-batches per iteration N")
      ->check(CLI::Range(1, schedules::kMaxMicroBatches))
      ->capture_default_str();
  cmd->add_option("--pipelines", o->spec.params.pipelines,
                  "chimera: 2f pipelines, f dividing D/2 (default 2)")
      ->check(CLI::Range(0, schedules::kMaxStages));
  cmd->add_option("--chunks", o->spec.params.chunks,
                  "interleaved: model chunks v per worker (default 2)")
      ->check(CLI::Range(0, 64));
  cmd->add_option("--strategy", o->spec.params.strategy,
                  "chimera with N = kD: direct | doubling | halving (default direct)")
      ->check(CLI::IsMember({"direct", "doubling", "halving"}));
  cmd->add_option("--iterations", o->spec.params.iterations,
                  "asynchronous schedules: iterations to list, >= 3 (default 4)")
      ->check(CLI::Range(0, 64));
  cmd->add_option("--t-forward", o->spec.unit.forward, "Unit-cost mode: forward time t_F")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--t-backward", o->spec.unit.backward,
                  "Unit-cost mode: whole backward time t_B (= t_I + t_W)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--t-weight", o->spec.unit.weight,
                  "Unit-cost mode: W part of a split backward (t_I = t_B - t_W)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--t-comm", o->spec.unit.comm,
                  "Unit-cost mode: delay on every edge between two workers")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str();
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
    const auto& files = o->files;
    RunResult result;
    if (files.schedule_file.empty()) {
      result = run(o->spec);
    } else {
      sim::Schedule schedule = schedules::load_schedule_file(files.schedule_file);
      o->spec.schedule = "file:" + files.schedule_file;
      result = run_schedule(o->spec, std::move(schedule), files.schedule_file);
    }
    const std::string title = fmt::format("{}  D={} N={}", o->spec.schedule,
                                          result.schedule.workers, result.schedule.micro_batches);
    if (!files.export_csv.empty()) {
      core::write_file_atomically(files.export_csv, schedules::to_pytorch_csv(result.schedule));
    }
    if (!files.timeline.empty()) {
      core::write_file_atomically(files.timeline, svg_timeline(result, title));
    }
    if (!files.trace.empty()) {
      core::write_file_atomically(files.trace, chrome_trace(result, title).dump(1) + "\n");
    }
    std::string text;
    if (o->format == "json") {
      text = to_json(o->spec, result, o->ops).dump(2) + "\n";
    } else if (o->format == "csv") {
      text = to_csv(o->spec, result);
    } else {
      text = to_text(o->spec, result);
    }
    emit(o->output, text);
    return 0;
  };
}

}  // namespace pipesim::cli
