#include "ranking.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pipesim/core/config_error.hpp"

namespace pipesim::cli {

RankMetric rank_metric(const std::string& name) {
  static const std::map<std::string, bool> kHigherIsBetter{
      {"throughput", true},       {"tokens_per_second", true}, {"mfu", true},
      {"iteration_time", false},  {"bubble_ratio", false},     {"exposed_comm_ratio", false},
      {"peak_memory_max", false}, {"memory_headroom", true},   {"peak_activations_max", false}};
  const auto it = kHigherIsBetter.find(name);
  if (it == kHigherIsBetter.end()) {
    std::string names;
    for (const auto& [n, _] : kHigherIsBetter)
      names += (names.empty() ? "" : "|") + n;
    throw core::ConfigError("command line", "--rank-by",
                            fmt::format("must be one of {}, got '{}'", names, name));
  }
  return {name, it->second};
}

std::optional<double> metric_value(const SweepRow& row, const std::string& metric) {
  const RowMetrics& m = row.metrics;
  auto as_double = [](const auto& v) -> std::optional<double> {
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  };
  if (metric == "throughput") return m.throughput;
  if (metric == "tokens_per_second") return m.tokens_per_second;
  if (metric == "mfu") return m.mfu;
  if (metric == "iteration_time") return m.iteration_time;
  if (metric == "bubble_ratio") return m.bubble_ratio;
  if (metric == "exposed_comm_ratio") return m.exposed_comm_ratio;
  if (metric == "peak_memory_max") return m.peak_memory_max;
  if (metric == "peak_memory_min") return m.peak_memory_min;
  if (metric == "memory_headroom") return m.memory_headroom;
  if (metric == "peak_activations_max") return as_double(m.peak_activations_max);
  if (metric == "peak_activations_min") return as_double(m.peak_activations_min);
  if (metric == "workers") return as_double(m.workers);
  return std::nullopt;
}

RankMetric default_rank_metric(const std::vector<SweepRow>& rows) {
  for (const SweepRow& row : rows) {
    if (row.ok() && row.metrics.throughput) return rank_metric("throughput");
  }
  return rank_metric("iteration_time");
}

std::vector<size_t> rank_rows(const std::vector<SweepRow>& rows, const RankMetric& metric) {
  std::vector<std::pair<double, size_t>> keyed;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].ok()) continue;
    if (const auto v = metric_value(rows[i], metric.name)) {
      keyed.emplace_back(metric.higher_is_better ? -*v : *v, i);
    }
  }
  std::sort(keyed.begin(), keyed.end());  // by value, then by row index: deterministic
  std::vector<size_t> order;
  order.reserve(keyed.size());
  for (const auto& [_, i] : keyed)
    order.push_back(i);
  return order;
}

std::vector<size_t> best_per_group(const std::vector<SweepRow>& rows, size_t group,
                                   const RankMetric& metric) {
  std::vector<size_t> best;
  std::vector<std::string> seen;
  for (size_t i : rank_rows(rows, metric)) {
    const std::string& key = rows[i].inputs.at(group);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    best.push_back(i);
  }
  return best;
}

std::string limiting_factor(const RowMetrics& m) {
  const double bubbles = m.bubble_ratio.value_or(0.0);
  const double comm = m.exposed_comm_ratio.value_or(0.0);
  std::string out;
  if (std::max(bubbles, comm) < 0.05) {
    out = m.mfu ? fmt::format("compute (mfu {:.1f}%)", *m.mfu * 100.0) : "compute";
  } else if (bubbles >= comm) {
    out = fmt::format("bubbles {:.1f}%", bubbles * 100.0);
  } else {
    out = fmt::format("exposed communication {:.1f}%", comm * 100.0);
  }
  if (m.memory_headroom && *m.memory_headroom < 0.10) {
    out += fmt::format("; memory headroom {:.1f}%", *m.memory_headroom * 100.0);
  }
  return out;
}

}  // namespace pipesim::cli
