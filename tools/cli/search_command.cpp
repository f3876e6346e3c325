#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "commands.hpp"
#include "csv.hpp"
#include "output.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/schedules/registry.hpp"
#include "ranked_table.hpp"
#include "ranking.hpp"
#include "run_options.hpp"
#include "search_limits.hpp"
#include "search_space.hpp"
#include "sweep_runner.hpp"
#include "thread_pool.hpp"
#include "value_range.hpp"

namespace pipesim::cli {
namespace {

bool has_option(const std::string& flag) {
  const auto& options = run_options();
  return std::any_of(options.begin(), options.end(),
                     [&](const RunOption& o) { return o.flag() == flag; });
}

Point to_point(const Candidate& c) {
  Point p;
  for (const RunOption& option : run_options()) {
    const auto it = c.options.find(option.flag());
    p.push_back(it != c.options.end() ? it->second : option.default_value);
  }
  return p;
}

size_t column_of(const std::string& name) {
  const auto names = input_columns();
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

std::string status_kind(const std::string& status) {
  return status.substr(0, status.find(':'));
}

}  // namespace

Action add_search_command(CLI::App& app) {
  struct Options {
    SearchRequest request;
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
    for (const char* flag : {"--model", "--hardware", "--micro-batch-size", "--data-parallel"}) {
      if (!has_option(flag)) {
        throw core::ConfigError("command line", "search",
                                fmt::format("needs the performance model's {} option, which "
                                            "this build does not have",
                                            flag));
      }
    }
    SearchRequest request = o->request;
    if (o->schedules.empty()) {
      for (const auto& entry : schedules::all_schedules()) {
        request.schedules.emplace_back(entry.name);
      }
    } else {
      request.schedules = expand_values("command line", "--schedules", o->schedules);
      for (const auto& s : request.schedules) {
        if (schedules::find_schedule(s) == nullptr) {
          throw core::ConfigError("command line", "--schedules",
                                  fmt::format("unknown schedule '{}'", s));
        }
      }
    }
    if (has_option("--recompute")) {
      request.recompute = expand_values("command line", "--recompute", o->recompute);
    }
    request.limits = search_limits(request.model, request.hardware);
    const std::vector<Candidate> candidates = enumerate_candidates(request, has_option);
    const int jobs = o->jobs > 0 ? o->jobs : default_jobs();
    const std::vector<SweepRow> rows = evaluate_all(
        candidates.size(),
        [&](size_t i) {
          const Candidate& c = candidates[i];
          if (c.pruned.empty()) return evaluate(to_point(c));
          SweepRow row;
          row.inputs = to_point(c);
          row.status = c.pruned;
          if (c.pruned_for_memory) row.metrics.fits_memory = false;
          return row;
        },
        jobs);

    const RankMetric metric = default_rank_metric(rows);
    const std::vector<size_t> winners = best_per_group(rows, column_of("schedule"), metric);
    std::map<std::string, int> counts;
    for (const SweepRow& row : rows)
      ++counts[status_kind(row.status)];
    std::string text = fmt::format(
        "search: {} on {} GPUs of {}, mini-batch {}: {} configurations ({} ok, {} oom, {} "
        "invalid, {} pruned); best fitting configuration per schedule, ranked by {}\n\n",
        request.model, request.gpus, request.hardware, request.mini_batch, rows.size(),
        counts["ok"], counts["oom"], counts["invalid"], counts["pruned"], metric.name);
    RankedColumns columns;
    for (const char* name : {"schedule", "stages", "data_parallel", "micro_batch_size",
                             "micro_batches", "recompute", "pipelines", "chunks", "strategy"}) {
      if (column_of(name) < input_columns().size()) columns.inputs.push_back(column_of(name));
    }
    for (const char* name : {"pipelines", "chunks", "strategy"}) {
      if (column_of(name) < input_columns().size()) {
        columns.blank_if_default.push_back(column_of(name));
      }
    }
    columns.metrics = present_metrics(rows, winners,
                                      {"throughput", "iteration_time", "mfu", "bubble_ratio",
                                       "exposed_comm_ratio", "peak_memory_max", "memory_headroom"});
    text += render_ranked(rows, winners, columns);
    for (const std::string& schedule : request.schedules) {
      const bool won = std::any_of(winners.begin(), winners.end(), [&](size_t i) {
        return rows[i].inputs[column_of("schedule")] == schedule;
      });
      if (won) continue;
      std::map<std::string, int> why;
      for (const SweepRow& row : rows) {
        if (row.inputs[column_of("schedule")] == schedule) ++why[status_kind(row.status)];
      }
      std::string summary;
      for (const auto& [kind, n] : why)
        summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, kind);
      text += fmt::format("no fitting configuration: {} ({})\n", schedule, summary);
    }
    if (!o->output.empty()) {
      if (o->all) {
        emit(o->output, rows_to_csv(rows));
      } else {
        std::vector<std::string> header{"rank"};
        const auto names = csv_columns();
        header.insert(header.end(), names.begin(), names.end());
        header.push_back("limited_by");
        std::string csv = csv_line(header);
        for (size_t r = 0; r < winners.size(); ++r) {
          const SweepRow& row = rows[winners[r]];
          std::vector<std::string> fields{fmt::format("{}", r + 1)};
          fields.insert(fields.end(), row.inputs.begin(), row.inputs.end());
          const auto cells = metric_cells(row);
          fields.insert(fields.end(), cells.begin(), cells.end());
          fields.push_back(limiting_factor(row.metrics));
          csv += csv_line(fields);
        }
        emit(o->output, csv);
      }
    }
    emit("", text);
    return 0;
  };
}

}  // namespace pipesim::cli
