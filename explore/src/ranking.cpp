#include "pipesim/explore/ranking.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pipesim/scenario/options.hpp"

namespace pipesim::explore {

RankMetric rank_metric(const std::string& name) {
  const scenario::Metric* m = scenario::find_metric(name);
  if (m == nullptr || m->direction == 0) {
    std::vector<std::string> names;
    for (const scenario::Metric& metric : scenario::metrics()) {
      if (metric.direction != 0) names.emplace_back(metric.name);
    }
    std::sort(names.begin(), names.end());
    std::string list;
    for (const auto& n : names)
      list += (list.empty() ? "" : "|") + n;
    throw scenario::OptionError("rank_by", fmt::format("must be one of {}, got '{}'", list, name));
  }
  return {name, m->direction > 0};
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
    if (const auto v = scenario::metric_value(rows[i], metric.name)) {
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

}  // namespace pipesim::explore
