#include "pipesim/validation/prediction_range.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "pipesim/core/assert.hpp"
#include "quantile.hpp"

namespace pipesim::validation {
namespace {

// One ratio per run id (its first speed point), with its class and source.
struct RunRatio {
  RunClass cls;
  std::string source;
  double ratio = 1.0;
};

std::vector<RunRatio> run_ratios(const std::vector<PointResult>& points) {
  std::vector<RunRatio> out;
  std::set<std::string> seen;
  for (const PointResult& p : points) {
    const std::optional<double> r = time_ratio(p);
    if (!r || !seen.insert(p.id).second) continue;
    out.push_back({run_class(p), p.source, *r});
  }
  return out;
}

RangeTable table_of(const std::vector<RunRatio>& runs, double coverage) {
  std::map<std::string, std::vector<double>> by_basis;
  for (const RunRatio& r : runs)
    for (const std::string& basis : scenario::class_bases(r.cls))
      by_basis[basis].push_back(r.ratio);
  RangeTable table;
  table.coverage = coverage;
  const auto range_of = [&](const std::string& basis, std::vector<double>& ratios) {
    std::sort(ratios.begin(), ratios.end());
    return RatioRange{detail::quantile_of_sorted(ratios, (1.0 - coverage) / 2),
                      detail::quantile_of_sorted(ratios, (1.0 + coverage) / 2), ratios.size(),
                      basis};
  };
  for (auto& [basis, ratios] : by_basis) {
    if (basis != "all runs" && ratios.size() >= kMinRuns)
      table.ranges.push_back(range_of(basis, ratios));
  }
  std::vector<double>& all = by_basis["all runs"];
  const bool none = all.empty();
  if (none) all.push_back(1.0);  // no runs: the prediction itself, a range of width 0
  table.ranges.push_back(range_of("all runs", all));
  if (none) table.ranges.back().runs = 0;
  return table;
}

}  // namespace

RunClass run_class(const PointResult& point) {
  return {point.workload.empty() ? "dense" : point.workload,
          point.gpu_generation.empty() ? "other" : point.gpu_generation,
          point.gpus <= 8 ? "one node" : "multi-node"};
}

std::optional<double> time_ratio(const PointResult& point) {
  if (!point.predicted || !is_speed_metric(point.metric) || *point.predicted <= 0 ||
      point.measured <= 0) {
    return std::nullopt;
  }
  return lower_is_better(point.metric) ? point.measured / *point.predicted
                                       : *point.predicted / point.measured;
}

RangeTable prediction_ranges(const std::vector<PointResult>& points, double coverage) {
  PIPESIM_ASSERT(coverage > 0 && coverage < 1, "coverage in (0, 1)");
  return table_of(run_ratios(points), coverage);
}

Coverage leave_one_source_out(const std::vector<PointResult>& points, double coverage) {
  const std::vector<RunRatio> runs = run_ratios(points);
  std::set<std::string> sources;
  for (const RunRatio& r : runs)
    sources.insert(r.source);
  Coverage out;
  for (const std::string& source : sources) {
    std::vector<RunRatio> others;
    std::copy_if(runs.begin(), runs.end(), std::back_inserter(others),
                 [&](const RunRatio& r) { return r.source != source; });
    if (others.empty()) continue;
    const RangeTable table = table_of(others, coverage);
    for (const RunRatio& r : runs) {
      if (r.source != source) continue;
      const RatioRange& range = range_for(table, r.cls);
      ++out.runs;
      if (r.ratio >= range.low && r.ratio <= range.high) ++out.inside;
    }
  }
  return out;
}

std::string ranges_text(const RangeTable& table, const Coverage& held_out) {
  std::string out = fmt::format(
      "Prediction ranges: the central {:.0f}% of measured / predicted iteration time per class "
      "of run (a class needs {} runs)\n",
      100 * table.coverage, kMinRuns);
  out += fmt::format("{:<36} {:>6} {:>8} {:>8}\n", "class", "runs", "low", "high");
  for (const RatioRange& r : table.ranges)
    out += fmt::format("{:<36} {:>6} {:>8.3f} {:>8.3f}\n", r.basis, r.runs, r.low, r.high);
  out += fmt::format(
      "Leave-one-source-out: {} of {} runs ({:.1f}%) measured inside the range built without "
      "their source (nominal {:.0f}%)\n",
      held_out.inside, held_out.runs, 100 * held_out.share(), 100 * table.coverage);
  return out;
}

}  // namespace pipesim::validation
