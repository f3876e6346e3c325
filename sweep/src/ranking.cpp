#include "pipesim/sweep/ranking.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pipesim/scenario/options.hpp"

namespace pipesim::sweep {

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
    throw core::ConfigError::option("rank_by",
                                    fmt::format("must be one of {}, got '{}'", list, name));
  }
  return {name, m->direction > 0};
}

RankMetric default_rank_metric(const std::vector<SweepRow>& rows) {
  for (const SweepRow& row : rows) {
    if (row.ok() && row.metrics.throughput) return rank_metric("throughput");
  }
  return rank_metric("iteration_time");
}

std::string RankMetric::label() const {
  if (!per_gpu) return name;
  return higher_is_better ? name + " per GPU" : name + " × GPUs";
}

std::optional<double> rank_value(const SweepRow& row, const RankMetric& metric) {
  const auto v = scenario::metric_value(row, metric.name);
  if (!v || !metric.per_gpu) return v;
  const auto gpus = scenario::row_gpus(row);
  if (!gpus) return std::nullopt;
  return metric.higher_is_better ? *v / *gpus : *v * *gpus;
}

std::vector<int> gpu_counts(const std::vector<SweepRow>& rows, const std::vector<size_t>& subset) {
  std::vector<int> counts;
  for (const size_t i : subset) {
    if (!rows[i].ok()) continue;
    if (const auto g = scenario::row_gpus(rows[i])) counts.push_back(*g);
  }
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

RankMetric fair_metric(const std::vector<SweepRow>& rows, const std::vector<size_t>& subset,
                       RankMetric metric) {
  // Rates and the iteration time scale with the GPUs a run is given; ratios (mfu, bubbles)
  // and per-worker figures are already per GPU.
  const bool scales = metric.name == "throughput" || metric.name == "tokens_per_second" ||
                      metric.name == "iteration_time";
  metric.per_gpu = scales && gpu_counts(rows, subset).size() > 1;
  return metric;
}

std::vector<size_t> rank_subset(const std::vector<SweepRow>& rows, std::vector<size_t> subset,
                                const RankMetric& metric) {
  std::vector<std::pair<double, size_t>> keyed;
  for (const size_t i : subset) {
    if (!rows[i].ok()) continue;
    if (const auto v = rank_value(rows[i], metric)) {
      keyed.emplace_back(metric.higher_is_better ? -*v : *v, i);
    }
  }
  std::sort(keyed.begin(), keyed.end());  // by value, then by row index: deterministic
  subset.clear();
  for (const auto& [_, i] : keyed)
    subset.push_back(i);
  return subset;
}

std::vector<size_t> rank_rows(const std::vector<SweepRow>& rows, const RankMetric& metric) {
  std::vector<size_t> all(rows.size());
  for (size_t i = 0; i < rows.size(); ++i)
    all[i] = i;
  return rank_subset(rows, std::move(all), metric);
}

namespace {

long input_number(const SweepRow& row, const char* name) {
  const auto& options = scenario::options();
  for (size_t i = 0; i < options.size() && i < row.inputs.size(); ++i) {
    if (options[i].name() == name) return std::stol(row.inputs[i]);
  }
  return 1;  // a build without the option: one
}

}  // namespace

std::string mini_batch_of(const SweepRow& row) {
  const long n = input_number(row, "micro_batches");
  if (row.metrics.throughput) {
    return fmt::format("mini-batch {} samples", n * input_number(row, "micro_batch_size") *
                                                    input_number(row, "data_parallel"));
  }
  return fmt::format("{} micro-batches", n);
}

std::vector<std::vector<size_t>> split_by_mini_batch(const std::vector<SweepRow>& rows,
                                                     const std::vector<size_t>& order) {
  std::vector<std::string> keys;
  std::vector<std::vector<size_t>> parts;
  for (size_t i : order) {
    const std::string key = mini_batch_of(rows[i]);
    const auto at = std::find(keys.begin(), keys.end(), key);
    if (at == keys.end()) {
      keys.push_back(key);
      parts.push_back({i});
    } else {
      parts[static_cast<size_t>(at - keys.begin())].push_back(i);
    }
  }
  return parts;
}

std::vector<report::RankedGroup> ranked_groups(const std::vector<SweepRow>& rows,
                                               const RankMetric& metric) {
  std::vector<report::RankedGroup> groups;
  for (auto& part : split_by_mini_batch(rows, rank_rows(rows, metric))) {
    const RankMetric fair = fair_metric(rows, part, metric);
    std::vector<int> counts;
    if (fair.per_gpu) {
      counts = gpu_counts(rows, part);
      part = rank_subset(rows, std::move(part), fair);
    }
    std::string label = mini_batch_of(rows[part.front()]);
    groups.push_back({std::move(label), std::move(part), std::move(counts)});
  }
  return groups;
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

}  // namespace pipesim::sweep
