#include "pipesim/report/compare_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pipesim/report/ranked_table.hpp"

namespace pipesim::report {
namespace {

// What a group on several GPU counts is ranked by, in words; "" when its rows share one count.
std::string per_gpu_note(const RankedGroup& g, const RankedBy& ranked_by) {
  if (g.gpu_counts.size() < 2) return "";
  std::string counts;
  for (size_t i = 0; i < g.gpu_counts.size(); ++i) {
    const char* sep = i == 0 ? "" : i + 1 == g.gpu_counts.size() ? " and " : ", ";
    counts += fmt::format("{}{}", sep, g.gpu_counts[i]);
  }
  return fmt::format("on {} GPUs, so ranked by {} {} (more GPUs raise throughput by themselves)",
                     counts, ranked_by.metric, ranked_by.higher_is_better ? "per GPU" : "× GPUs");
}

}  // namespace

std::string compare_table(const std::vector<SweepRow>& rows, const std::vector<RankedGroup>& groups,
                          const RankedBy& ranked_by) {
  std::vector<size_t> order;
  for (const RankedGroup& g : groups)
    order.insert(order.end(), g.order.begin(), g.order.end());
  const std::string& metric = ranked_by.metric;
  const auto inputs = scenario::input_columns();
  RankedColumns columns;
  columns.inputs = varied_inputs(rows);
  if (columns.inputs.empty()) columns.inputs.push_back(0);
  columns.metrics = present_metrics(
      rows, order,
      {"iteration_time", "throughput", "tokens_per_second", "mfu", "bubble_ratio",
       "exposed_comm_ratio", "peak_memory_max", "memory_headroom", "peak_activations_max"});
  if (std::find(columns.metrics.begin(), columns.metrics.end(), metric) == columns.metrics.end()) {
    columns.metrics.insert(columns.metrics.begin(), metric);
  }
  std::string text =
      fmt::format("{} configurations, {} ranked by {} ({} is better)", rows.size(), order.size(),
                  metric, ranked_by.higher_is_better ? "higher" : "lower");
  // A group on several GPU counts shows the metric per GPU it was ranked by.
  columns.ties_on = metric;
  const auto with_per_gpu = [&](const RankedGroup& g) {
    RankedColumns c = columns;
    if (g.gpu_counts.size() > 1) c.per_gpu = metric;
    return c;
  };
  const auto ranked = [&](const std::vector<size_t>& group_order, const RankedColumns& c) {
    return render_ranked(rows, group_order, c) + ties_note(rows, group_order, c);
  };
  if (groups.size() <= 1) {
    if (!groups.empty()) {
      text += fmt::format(", all with {}", groups.front().label);
      if (const std::string note = per_gpu_note(groups.front(), ranked_by); !note.empty())
        text += fmt::format(",\n{}", note);
    }
    text += "\n\n";
    text += groups.empty() ? ranked(order, columns) : ranked(order, with_per_gpu(groups.front()));
  } else {
    text += fmt::format(
        ",\nonly against configurations of the same mini-batch (a bigger one amortises its "
        "bubbles)\n");
    for (const RankedGroup& g : groups) {
      const std::string note = per_gpu_note(g, ranked_by);
      text += fmt::format("\n{}{}{}:\n{}", g.label, note.empty() ? "" : ", ", note,
                          ranked(g.order, with_per_gpu(g)));
    }
  }
  bool first_unranked = true;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (std::find(order.begin(), order.end(), i) != order.end()) continue;
    std::string what;
    for (size_t c : columns.inputs)
      what += fmt::format("{}{}={}", what.empty() ? "" : " ", inputs[c], rows[i].inputs[c]);
    text += fmt::format("{}not ranked: {}: {}\n", first_unranked ? "\n" : "", what,
                        rows[i].status.text());
    first_unranked = false;
  }
  return text;
}

LinePlotSpec compare_plot_spec(const std::vector<SweepRow>& rows, const RankedBy& ranked_by,
                               const std::string& x, const std::string& group) {
  const std::string& metric = ranked_by.metric;
  const auto inputs = scenario::input_columns();
  LinePlotSpec spec;
  spec.y = metric;
  const auto varied = varied_inputs(rows);
  auto varies = [&](const std::string& name) {
    return std::any_of(varied.begin(), varied.end(), [&](size_t c) { return inputs[c] == name; });
  };
  spec.group = !group.empty() ? group : varies("schedule") ? "schedule" : "";
  spec.x = x;
  if (spec.x.empty()) {  // the varied option with the most values, but the group
    size_t most = 0;
    for (size_t c : varied) {
      std::vector<std::string> distinct;
      for (const SweepRow& row : rows) {
        if (std::find(distinct.begin(), distinct.end(), row.inputs[c]) == distinct.end()) {
          distinct.push_back(row.inputs[c]);
        }
      }
      if (inputs[c] != spec.group && distinct.size() > most) {
        most = distinct.size();
        spec.x = inputs[c];
      }
    }
  }
  // Other options vary too: draw the best configuration at each x.
  spec.reduce = ranked_by.higher_is_better ? "max" : "min";
  spec.title = fmt::format("best {} per {}", metric, spec.x);
  if (spec.x.empty()) {  // only the group varies: one point per group value
    spec.x = spec.group.empty() ? inputs.front() : spec.group;
    spec.group.clear();
    spec.title = fmt::format("best {} per {}", metric, spec.x);
  }
  return spec;
}

}  // namespace pipesim::report
