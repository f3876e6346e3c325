#include "pipesim/report/ranked_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string_view>
#include <utility>

#include "pipesim/core/assert.hpp"
#include "pipesim/report/text_table.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::report {
namespace {

using scenario::SweepRow;

// Ratios as percentages, bytes in GiB, other numbers with 6 significant digits: a table for
// people (the metric table says which).
std::string cell(const SweepRow& row, const scenario::Metric& metric) {
  const auto v = metric.value(row.metrics);
  if (!v) return metric.cell(row.metrics);
  switch (metric.scale) {
    case scenario::TableScale::Percent:
      return fmt::format("{:.2f}", *v * 100.0);
    case scenario::TableScale::GiB:
      return fmt::format("{:.2f}", *v / (1024.0 * 1024.0 * 1024.0));
    case scenario::TableScale::Plain:
      break;
  }
  return fmt::format("{:.6g}", *v);
}

const scenario::Metric& metric_named(const std::string& name) {
  const scenario::Metric* m = scenario::find_metric(name);
  PIPESIM_ASSERT(m != nullptr, "ranked columns name metrics");
  return *m;
}

// The ranked value of a row, per GPU when asked: a rate over the GPUs, a time times them.
std::optional<double> ranked_value(const SweepRow& row, const scenario::Metric& metric,
                                   bool per_gpu) {
  const auto v = metric.value(row.metrics);
  if (!v || !per_gpu) return v;
  const auto gpus = scenario::row_gpus(row);
  if (!gpus) return std::nullopt;
  return metric.direction > 0 ? *v / *gpus : *v * *gpus;
}

// The metric's range from the iteration time's: a time scales with it, a rate inversely.
std::optional<std::pair<double, double>> ranked_range(const SweepRow& row,
                                                      const std::string& metric, bool per_gpu) {
  constexpr std::string_view kSpeed[] = {"iteration_time", "throughput", "tokens_per_second",
                                         "mfu"};
  if (std::find(std::begin(kSpeed), std::end(kSpeed), metric) == std::end(kSpeed)) return {};
  const scenario::RowMetrics& m = row.metrics;
  const auto v = ranked_value(row, metric_named(metric), per_gpu);
  if (!v || !m.iteration_time || !m.iteration_time_low || !m.iteration_time_high ||
      *m.iteration_time <= 0) {
    return {};
  }
  const double low = *m.iteration_time_low / *m.iteration_time;
  const double high = *m.iteration_time_high / *m.iteration_time;
  if (metric == "iteration_time") return std::pair{*v * low, *v * high};
  return std::pair{*v / high, *v / low};
}

}  // namespace

bool tied(const SweepRow& row, const SweepRow& best, const std::string& metric, bool per_gpu) {
  const auto a = ranked_range(row, metric, per_gpu), b = ranked_range(best, metric, per_gpu);
  return a && b && a->first <= b->second && b->first <= a->second;
}

std::string ties_note(const std::vector<SweepRow>& rows, const std::vector<size_t>& order,
                      const RankedColumns& columns) {
  if (columns.ties_on.empty() || order.size() < 2) return "";
  const bool per_gpu = !columns.per_gpu.empty();
  const SweepRow& best = rows[order.front()];
  size_t ties = 0;
  for (size_t r = 1; r < order.size(); ++r)
    ties += tied(rows[order[r]], best, columns.ties_on, per_gpu) ? 1 : 0;
  if (ties == 0) return "";
  return fmt::format(
      "vs best: tie where the row's {} range and the best's overlap, each the spread of "
      "validated runs like it ({}): {} of the other {} not told apart from the best\n",
      columns.ties_on, best.metrics.iteration_time_basis.value_or("validated runs"), ties,
      order.size() - 1);
}

std::vector<size_t> varied_inputs(const std::vector<SweepRow>& all) {
  std::vector<size_t> varied;
  // Rows that ran hold the values used (2 pipelines, not the "default" 0 of a row that did
  // not run): compare those when there are any, so the defaults do not look varied.
  std::vector<SweepRow> ran;
  std::copy_if(all.begin(), all.end(), std::back_inserter(ran), [](const SweepRow& r) {
    return r.status.kind == scenario::Status::Kind::Ok ||
           r.status.kind == scenario::Status::Kind::Oom;
  });
  const std::vector<SweepRow>& rows = ran.empty() ? all : ran;
  if (rows.empty()) return varied;
  for (size_t c = 0; c < rows.front().inputs.size(); ++c) {
    for (const SweepRow& row : rows) {
      if (row.inputs[c] != rows.front().inputs[c]) {
        varied.push_back(c);
        break;
      }
    }
  }
  return varied;
}

std::vector<std::string> present_metrics(const std::vector<SweepRow>& rows,
                                         const std::vector<size_t>& order,
                                         const std::vector<std::string>& candidates) {
  std::vector<std::string> present;
  for (const std::string& metric : candidates) {
    for (size_t i : order) {
      if (scenario::metric_value(rows[i], metric) ||
          (metric == "fits_memory" && rows[i].metrics.fits_memory)) {
        present.push_back(metric);
        break;
      }
    }
  }
  return present;
}

std::string render_ranked(const std::vector<SweepRow>& rows, const std::vector<size_t>& order,
                          const RankedColumns& columns) {
  const auto inputs = scenario::input_columns();
  const auto& options = scenario::options();
  auto blank = [&](size_t c, const SweepRow& row) {
    return std::find(columns.blank_if_default.begin(), columns.blank_if_default.end(), c) !=
               columns.blank_if_default.end() &&
           row.inputs[c] == options[c].spec.default_text;
  };
  std::vector<size_t> shown;
  for (size_t c : columns.inputs) {
    if (std::any_of(order.begin(), order.end(), [&](size_t i) { return !blank(c, rows[i]); })) {
      shown.push_back(c);
    }
  }
  std::vector<std::string> header{"rank"};
  for (size_t c : shown) {
    header.push_back(inputs[c]);
  }
  for (const auto& m : columns.metrics)
    header.push_back(metric_named(m).heading);
  const scenario::Metric* per_gpu =
      columns.per_gpu.empty() ? nullptr : &metric_named(columns.per_gpu);
  if (per_gpu != nullptr) {
    header.push_back("gpus");
    header.push_back(
        fmt::format("{}{}", per_gpu->heading, per_gpu->direction > 0 ? "/GPU" : "×GPUs"));
  }
  const bool ties = !columns.ties_on.empty() && !order.empty() &&
                    ranked_range(rows[order.front()], columns.ties_on, per_gpu != nullptr);
  if (ties) header.push_back("vs best");
  if (columns.limited_by) header.push_back("limited by");
  std::vector<std::vector<std::string>> body;
  for (size_t r = 0; r < order.size(); ++r) {
    const SweepRow& row = rows[order[r]];
    std::vector<std::string> line{fmt::format("{}", r + 1)};
    for (size_t c : shown) {
      line.push_back(blank(c, row) ? "" : row.inputs[c]);
    }
    for (const auto& m : columns.metrics)
      line.push_back(cell(row, metric_named(m)));
    if (per_gpu != nullptr) {
      const auto gpus = scenario::row_gpus(row);
      const auto v = ranked_value(row, *per_gpu, true);
      line.push_back(gpus ? fmt::format("{}", *gpus) : "");
      line.push_back(v ? fmt::format("{:.6g}", *v) : "");
    }
    if (ties) {
      line.push_back(r == 0                                                                ? "best"
                     : tied(row, rows[order.front()], columns.ties_on, per_gpu != nullptr) ? "tie"
                                                                                           : "");
    }
    if (columns.limited_by) line.push_back(scenario::limiting_factor(row.metrics));
    body.push_back(std::move(line));
  }
  return render_table(header, body);
}

}  // namespace pipesim::report
