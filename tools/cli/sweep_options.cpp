#include "sweep_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include "flags.hpp"
#include "output.hpp"
#include "pipesim/core/atomic_write.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/spec_cache.hpp"
#include "pipesim/sweep/sweep_journal.hpp"
#include "pipesim/sweep/sweep_runner.hpp"
#include "pipesim/sweep/thread_pool.hpp"
#include "progress_bar.hpp"
#include "torchtitan_input.hpp"

namespace pipesim::cli {

void add_sweep_options(CLI::App& cmd, SweepArgs& args) {
  for (const scenario::Option& option : scenario::options()) {
    args.flags[option.name()] = add_scenario_option(cmd, option, args.values[option.name()], true);
  }
  cmd.add_option("--file,-f", args.file,
                 "YAML sweep file: option names (without --) to values, lists or ranges; "
                 "the command line wins over it")
      ->type_name("PATH")
      ->group("Sweep");
  add_megatron_flags(cmd, args.megatron, true);
  cmd.add_option(
         "--jobs,-j", args.jobs,
         fmt::format("Parallel simulations, 0..{} (0 = one per hardware thread)", sweep::kMaxJobs))
      ->type_name("INT")
      ->capture_default_str()
      ->group("Sweep");
  cmd.footer(list_syntax_note());
}

sweep::SweepGrid make_grid(const SweepArgs& args) {
  sweep::OptionTexts given;  // only the options on the command line, empty texts included
  for (const scenario::Option& option : scenario::options()) {
    if (args.flags.at(option.name())->count() > 0)
      given[option.name()] = given_text(option, args.values.at(option.name()));
  }
  if (std::optional<scenario::MegatronRun> run = read_megatron_flags(args.megatron)) {
    merge_megatron_texts(given, *run, megatron_gpus(args.megatron), true);
    std::cerr << megatron_text(*run);
  }
  if (std::optional<scenario::TorchtitanRun> run = read_torchtitan_flags(args.megatron)) {
    merge_torchtitan_texts(given, *run, megatron_gpus(args.megatron), true);
    std::cerr << torchtitan_text(*run);
  }
  return sweep::make_grid(given, args.file);
}

int parse_jobs(const std::string& text, int all) {
  return sweep::job_count(core::parse_int("jobs", text, 0, sweep::kMaxJobs), all);
}

int job_count(const SweepArgs& args, int all) {
  return parse_jobs(args.jobs, all);
}

std::vector<scenario::SweepRow> run_grid(const sweep::SweepGrid& grid, int jobs) {
  ProgressBar bar(std::cerr, grid.size(), ProgressBar::stderr_is_terminal());
  return sweep::run_grid(grid, jobs, describe_error,
                         [&](size_t done, size_t) { bar.update(done); });
}

void stream_grid(const sweep::SweepGrid& grid, sweep::Shard shard, sweep::SweepOutput kind,
                 const std::string& output, bool resume, int jobs, sweep::RowEvaluator* evaluator) {
  std::optional<ProgressBar> bar;  // its total is the shard's size, known in the first call
  sweep::StreamOptions options;
  options.jobs = jobs;
  options.evaluator = evaluator;
  options.describe = describe_error;
  options.on_progress = [&](size_t done, size_t total) {
    if (!bar) bar.emplace(std::cerr, total, ProgressBar::stderr_is_terminal());
    bar->update(done);
  };
  const bool to_stdout = output.empty() || output == "-";
  if (to_stdout || core::written_in_place(output)) {
    if (resume) {
      throw core::ConfigError("command line", "--resume",
                              "needs --output,-o FILE, a regular file: the journal that is "
                              "resumed lies beside it");
    }
    if (to_stdout) {
      sweep::sweep_to_stream(grid, shard, kind, options,
                             [](std::string_view text) { emit("", text); });
      return;
    }
    core::AtomicFileWriter out(output);
    sweep::sweep_to_stream(grid, shard, kind, options,
                           [&](std::string_view text) { out.write(text); });
    out.commit();
    return;
  }
  const auto journal = sweep::journal_path(output);
  std::error_code ec;
  if (!resume && std::filesystem::exists(journal, ec)) {
    throw core::ConfigError(journal.string(), "journal",
                            "exists: it holds the rows of an interrupted sweep; --resume "
                            "continues it (same options), or delete it");
  }
  sweep::sweep_to_file(grid, shard, kind, output, resume, options);
}

}  // namespace pipesim::cli
