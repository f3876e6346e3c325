#include "pipesim/report/search_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <string_view>

#include "pipesim/report/csv.hpp"
#include "pipesim/report/ranked_table.hpp"
#include "pipesim/report/rows_csv.hpp"

namespace pipesim::report {

using scenario::Status;

size_t input_column(const std::string& name) {
  const auto names = scenario::input_columns();
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

size_t SearchTally::count(Status::Kind kind) const {
  size_t n = 0;
  for (const auto& [schedule, kinds] : statuses) {
    if (const auto it = kinds.find(kind); it != kinds.end()) n += it->second;
  }
  return n;
}

size_t SearchTally::total() const {
  size_t n = 0;
  for (const auto& [schedule, kinds] : statuses) {
    for (const auto& [kind, count] : kinds)
      n += count;
  }
  return n;
}

std::string search_table(const SearchHeading& heading, const SearchTally& tally,
                         const std::vector<SweepRow>& rows, const std::vector<size_t>& winners) {
  const size_t inputs = scenario::input_columns().size();
  const size_t schedule_column = input_column("schedule");
  std::string text = fmt::format(
      "search: {} on {} GPUs of {}, mini-batch {}: {} configurations ({} ok, {} oom, {} "
      "invalid, {} pruned); best fitting configuration per schedule, ranked by {}\n\n",
      heading.model, heading.gpus, heading.hardware, heading.mini_batch, tally.total(),
      tally.count(Status::Kind::Ok), tally.count(Status::Kind::Oom),
      tally.count(Status::Kind::Invalid), tally.count(Status::Kind::Pruned), heading.rank_metric);
  for (const std::string& note : tally.notes)
    text += fmt::format("  {}\n", note);
  if (!tally.notes.empty()) text += "\n";
  RankedColumns columns;
  // The layout's degrees only when the search varied them (some candidate runs at a degree > 1).
  constexpr std::string_view kDegrees[] = {"tensor_parallel", "context_parallel", "expert_parallel",
                                           "expert_tensor_parallel"};
  // The secondary knobs: columns only when search tried them.
  const auto is_knob = [](std::string_view name) {
    return name == "recompute_modules" || name == "placement" || name == "partition" ||
           name == "moe_dispatcher" || name == "moe_overlap";
  };
  for (const char* name :
       {"schedule", "tensor_parallel", "context_parallel", "expert_parallel",
        "expert_tensor_parallel", "stages", "data_parallel", "micro_batch_size", "micro_batches",
        "recompute", "recompute_modules", "placement", "partition", "moe_dispatcher", "moe_overlap",
        "pipelines", "chunks", "strategy"}) {
    const bool degree =
        std::find(std::begin(kDegrees), std::end(kDegrees), name) != std::end(kDegrees);
    if (!degree && is_knob(name) && !tally.varied_degrees.contains(name)) continue;
    if (degree && !tally.varied_degrees.contains(name)) continue;
    if (input_column(name) < inputs) columns.inputs.push_back(input_column(name));
  }
  // A schedule's own options, blank on the rows of other schedules.
  for (const char* name : {"pipelines", "chunks", "strategy"}) {
    if (input_column(name) < inputs) columns.blank_if_default.push_back(input_column(name));
  }
  columns.metrics = present_metrics(rows, winners,
                                    {"throughput", "iteration_time", "mfu", "bubble_ratio",
                                     "exposed_comm_ratio", "peak_memory_max", "memory_headroom"});
  columns.ties_on = heading.rank_metric;
  if (!winners.empty())
    text += render_ranked(rows, winners, columns) + ties_note(rows, winners, columns);
  for (const std::string& schedule : heading.schedules) {
    const bool won = std::any_of(winners.begin(), winners.end(), [&](size_t i) {
      return rows[i].inputs[schedule_column] == schedule;
    });
    if (won) continue;
    std::map<std::string, size_t> why;  // by kind name: the summary lists them alphabetically
    if (const auto it = tally.statuses.find(schedule); it != tally.statuses.end()) {
      for (const auto& [kind, n] : it->second)
        why[Status::kind_name(kind)] += n;
    }
    std::string summary;
    for (const auto& [kind, n] : why) {
      summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, kind);
    }
    text += fmt::format("no fitting configuration: {} ({})\n", schedule, summary);
    // When nothing fits, a schedule's own limit only where it differs from the search's.
    if (const auto it = tally.binding.find(schedule);
        it != tally.binding.end() && it->second != tally.nothing_fits) {
      text += fmt::format("  {}\n", it->second);
    }
  }
  if (!tally.nothing_fits.empty()) {
    text += fmt::format("\nnothing fits: {}\n", tally.nothing_fits);
  }
  return text;
}

std::string winners_csv(const std::vector<SweepRow>& rows, const std::vector<size_t>& winners) {
  std::vector<std::string> header{"rank"};
  const auto names = scenario::csv_columns();
  header.insert(header.end(), names.begin(), names.end());
  header.push_back("limited_by");
  std::string csv = csv_line(header);
  for (size_t r = 0; r < winners.size(); ++r) {
    const SweepRow& row = rows[winners[r]];
    std::vector<std::string> fields{fmt::format("{}", r + 1)};
    const auto cells = row_fields(row);
    fields.insert(fields.end(), cells.begin(), cells.end());
    fields.push_back(scenario::limiting_factor(row.metrics));
    csv += csv_line(fields);
  }
  return csv;
}

}  // namespace pipesim::report
