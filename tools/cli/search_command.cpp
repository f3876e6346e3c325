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
#include "pipesim/explore/search_limits.hpp"
#include "pipesim/explore/search_space.hpp"
#include "pipesim/explore/sweep_runner.hpp"
#include "pipesim/explore/thread_pool.hpp"
#include "pipesim/explore/value_range.hpp"
#include "pipesim/report/csv.hpp"
#include "pipesim/report/ranked_table.hpp"
#include "pipesim/report/rows_csv.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/schedules/registry.hpp"
#include "progress_bar.hpp"

namespace pipesim::cli {
namespace {

using explore::RankMetric;
using report::RankedColumns;
using scenario::Status;
using scenario::SweepRow;

size_t column_of(const std::string& name) {
  const auto names = scenario::input_columns();
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

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
  cmd->add_option("--model", o->request.model, "Model name or YAML path")->required();
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
        explore::best_per_group(rows, column_of("schedule"), metric);
    std::map<Status::Kind, int> counts;
    for (const SweepRow& row : rows)
      ++counts[row.status.kind];
    std::string text = fmt::format(
        "search: {} on {} GPUs of {}, mini-batch {}: {} configurations ({} ok, {} oom, {} "
        "invalid, {} pruned); best fitting configuration per schedule, ranked by {}\n\n",
        request.model, request.gpus, request.hardware, request.mini_batch, rows.size(),
        counts[Status::Kind::Ok], counts[Status::Kind::Oom], counts[Status::Kind::Invalid],
        counts[Status::Kind::Pruned], metric.name);
    RankedColumns columns;
    for (const char* name : {"schedule", "stages", "data_parallel", "micro_batch_size",
                             "micro_batches", "recompute", "pipelines", "chunks", "strategy"}) {
      if (column_of(name) < scenario::input_columns().size())
        columns.inputs.push_back(column_of(name));
    }
    for (const char* name : {"pipelines", "chunks", "strategy"}) {
      if (column_of(name) < scenario::input_columns().size()) {
        columns.blank_if_default.push_back(column_of(name));
      }
    }
    columns.metrics =
        report::present_metrics(rows, winners,
                                {"throughput", "iteration_time", "mfu", "bubble_ratio",
                                 "exposed_comm_ratio", "peak_memory_max", "memory_headroom"});
    text += report::render_ranked(rows, winners, columns);
    for (const std::string& schedule : request.schedules) {
      const bool won = std::any_of(winners.begin(), winners.end(), [&](size_t i) {
        return rows[i].inputs[column_of("schedule")] == schedule;
      });
      if (won) continue;
      std::map<std::string, int> why;  // by kind name: the summary lists them alphabetically
      for (const SweepRow& row : rows) {
        if (row.inputs[column_of("schedule")] == schedule) {
          ++why[Status::kind_name(row.status.kind)];
        }
      }
      std::string summary;
      for (const auto& [kind, n] : why)
        summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, kind);
      text += fmt::format("no fitting configuration: {} ({})\n", schedule, summary);
    }
    if (!o->output.empty()) {
      if (o->all) {
        emit(o->output, report::rows_to_csv(rows));
      } else {
        std::vector<std::string> header{"rank"};
        const auto names = scenario::csv_columns();
        header.insert(header.end(), names.begin(), names.end());
        header.push_back("limited_by");
        std::string csv = report::csv_line(header);
        for (size_t r = 0; r < winners.size(); ++r) {
          const SweepRow& row = rows[winners[r]];
          std::vector<std::string> fields{fmt::format("{}", r + 1)};
          const auto cells = report::row_fields(row);
          fields.insert(fields.end(), cells.begin(), cells.end());
          fields.push_back(scenario::limiting_factor(row.metrics));
          csv += report::csv_line(fields);
        }
        emit(o->output, csv);
      }
    }
    emit("", text);
    return 0;
  };
}

}  // namespace pipesim::cli
