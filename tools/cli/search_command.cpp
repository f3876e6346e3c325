#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "flags.hpp"
#include "output.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/explore/ranking.hpp"
#include "pipesim/explore/search.hpp"
#include "pipesim/explore/thread_pool.hpp"
#include "pipesim/explore/value_range.hpp"
#include "pipesim/report/rows_csv.hpp"
#include "pipesim/report/search_report.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/schedules/registry.hpp"
#include "progress_bar.hpp"

namespace pipesim::cli {
namespace {

using explore::RankMetric;
using scenario::SweepRow;

bool has_option(const std::string& name) {
  return scenario::find_option(name) != nullptr;
}

}  // namespace

Action add_search_command(CLI::App& app) {
  struct Options {
    explore::SearchRequest request;
    std::string schedules;
    std::string recompute = "none,selective,full";
    int jobs = 0;
    std::string output;
    bool all = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "search",
      "Find the best configuration of each schedule for a model on P GPUs and a mini-batch: "
      "every D | P, W = P/D, power-of-two B, N = B̂/(W·B), recomputation and schedule options, "
      "simulated in parallel; ranked, with what limits each winner");
  cmd->add_option("--model", o->request.model, "Model name, YAML path or Hugging Face config.json")
      ->required();
  cmd->add_option("--hardware", o->request.hardware, "Hardware profile name or YAML path")
      ->required();
  cmd->add_option("--gpus,-P", o->request.gpus, "GPUs P = D·W")
      ->required()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--mini-batch", o->request.mini_batch, "Mini-batch B̂ = B·N·W samples")
      ->required()
      ->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--schedules", o->schedules, "Comma list of schedules (default: all)");
  cmd->add_option("--recompute", o->recompute, "Comma list of recomputation modes to try")
      ->capture_default_str();
  cmd->add_option("--jobs,-j", o->jobs, "Parallel simulations (0 = one per hardware thread)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--output,-o", o->output,
                  "Write the winners (with --all: every configuration) as CSV, atomically");
  cmd->add_flag("--all", o->all, "-o gets every evaluated configuration, not only the winners");
  return [o] {
    for (const char* name : {"model", "hardware", "micro_batch_size", "data_parallel"}) {
      if (!has_option(name)) {
        throw core::ConfigError("command line", "search",
                                fmt::format("needs the performance model's {} option, which "
                                            "this build does not have",
                                            flag_of(name)));
      }
    }
    explore::SearchRequest request = o->request;
    if (o->schedules.empty()) {
      for (const auto& entry : schedules::all_schedules()) {
        request.schedules.emplace_back(entry.name);
      }
    } else {
      request.schedules = explore::expand_values("command line", "--schedules", o->schedules);
      for (const auto& s : request.schedules) {
        if (schedules::find_schedule(s) == nullptr) {
          throw core::ConfigError("command line", "--schedules",
                                  fmt::format("unknown schedule '{}'", s));
        }
      }
    }
    if (has_option("recompute")) {
      request.recompute = explore::expand_values("command line", "--recompute", o->recompute);
    }
    const int jobs = o->jobs > 0 ? o->jobs : explore::default_jobs();
    explore::SpecCache specs;
    std::optional<ProgressBar> bar;  // drawn once the candidate count is known
    const std::vector<SweepRow> rows =
        explore::run_search(request, specs, jobs, describe_error, [&](size_t done, size_t total) {
          if (!bar) bar.emplace(std::cerr, total, ProgressBar::stderr_is_terminal());
          bar->update(done);
        });
    const RankMetric metric = explore::default_rank_metric(rows);
    const std::vector<size_t> winners =
        explore::best_per_group(rows, report::input_column("schedule"), metric);
    const report::SearchHeading heading{request.model,      request.hardware,  request.gpus,
                                        request.mini_batch, request.schedules, metric.name};
    const std::string text = report::search_table(heading, rows, winners);
    if (!o->output.empty()) {
      emit(o->output, o->all ? report::rows_to_csv(rows) : report::winners_csv(rows, winners));
    }
    emit("", text);
    return 0;
  };
}

}  // namespace pipesim::cli
