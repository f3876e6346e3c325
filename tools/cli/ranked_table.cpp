#include "ranked_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "csv.hpp"
#include "ranking.hpp"
#include "run_options.hpp"
#include "text_table.hpp"

namespace pipesim::cli {
namespace {

std::string cell(const SweepRow& row, const std::string& metric) {
  const auto names = metric_columns();
  const auto cells = metric_cells(row);
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] != metric) continue;
    // Ratios as percentages, large numbers with 4 significant digits: a table for people.
    const auto v = metric_value(row, metric);
    if (!v) return cells[i];
    if (metric == "bubble_ratio" || metric == "exposed_comm_ratio" || metric == "mfu" ||
        metric == "memory_headroom") {
      return fmt::format("{:.2f}", *v * 100.0);
    }
    if (metric == "peak_memory_max" || metric == "peak_memory_min") {
      return fmt::format("{:.2f}", *v / (1024.0 * 1024.0 * 1024.0));
    }
    return fmt::format("{:.6g}", *v);
  }
  return {};
}

std::string heading(const std::string& metric) {
  if (metric == "bubble_ratio") return "bubble_%";
  if (metric == "exposed_comm_ratio") return "exposed_comm_%";
  if (metric == "mfu") return "mfu_%";
  if (metric == "memory_headroom") return "mem_headroom_%";
  if (metric == "peak_memory_max") return "peak_mem_GiB";
  if (metric == "peak_memory_min") return "min_peak_mem_GiB";
  return metric;
}

}  // namespace

std::vector<size_t> varied_inputs(const std::vector<SweepRow>& rows) {
  std::vector<size_t> varied;
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
      if (metric_value(rows[i], metric) ||
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
  const auto inputs = input_columns();
  const auto& options = run_options();
  auto blank = [&](size_t c, const SweepRow& row) {
    return std::find(columns.blank_if_default.begin(), columns.blank_if_default.end(), c) !=
               columns.blank_if_default.end() &&
           row.inputs[c] == options[c].default_value;
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
    header.push_back(heading(m));
  if (columns.limited_by) header.push_back("limited by");
  std::vector<std::vector<std::string>> body;
  for (size_t r = 0; r < order.size(); ++r) {
    const SweepRow& row = rows[order[r]];
    std::vector<std::string> line{fmt::format("{}", r + 1)};
    for (size_t c : shown) {
      line.push_back(blank(c, row) ? "" : row.inputs[c]);
    }
    for (const auto& m : columns.metrics)
      line.push_back(cell(row, m));
    if (columns.limited_by) line.push_back(limiting_factor(row.metrics));
    body.push_back(std::move(line));
  }
  return render_table(header, body);
}

CsvTable rows_to_table(const std::vector<SweepRow>& rows) {
  CsvTable table;
  table.header = csv_columns();
  for (const SweepRow& row : rows) {
    std::vector<std::string> fields = row.inputs;
    const auto cells = metric_cells(row);
    fields.insert(fields.end(), cells.begin(), cells.end());
    table.rows.push_back(std::move(fields));
  }
  return table;
}

}  // namespace pipesim::cli
