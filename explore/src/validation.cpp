// Predicting a measured run and summarising the errors (explore/validation.hpp).

#include "pipesim/explore/validation.hpp"

#include "pipesim/core/shipped_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::explore {

double source_flops(FlopsFormula formula, double samples, double sequence, double layers,
                    double hidden, double vocabulary) {
  const double core = samples * sequence * layers * hidden * hidden;
  switch (formula) {
    case FlopsFormula::None:
      return 0;
    case FlopsFormula::Narayanan:
      return 96 * core * (1 + sequence / (6 * hidden) + vocabulary / (16 * layers * hidden));
    case FlopsFormula::Korthikanti:
      return 72 * core * (1 + sequence / (6 * hidden) + vocabulary / (12 * layers * hidden));
  }
  return 0;
}

std::optional<double> PointResult::error() const {
  if (!predicted) return std::nullopt;
  if (metric == ValidationMetric::OutOfMemory) return *predicted == measured ? 0.0 : 1.0;
  return *predicted / measured - 1;
}

namespace {

// The measured metric of a simulated run, computed as the source computes it.
double metric_of(const ValidationRun& run, const scenario::PerfResult& p, double iteration_time,
                 ValidationMetric metric) {
  const double flops = source_flops(run.flops, p.samples_per_iteration, p.model.sequence,
                                    p.model.layers, p.model.hidden, p.model.vocabulary);
  switch (metric) {
    case ValidationMetric::TflopsPerGpu:
      return flops / iteration_time / p.gpus / 1e12;
    case ValidationMetric::MfuPercent:
      return 100 * flops / (iteration_time * p.gpus * run.peak_flops);
    case ValidationMetric::IterationTime:
      return iteration_time;
    case ValidationMetric::SamplesPerGpuPerSec:
      return p.throughput / p.gpus;
    case ValidationMetric::SequencesPerSec:
      return p.throughput;
    case ValidationMetric::PeakMemoryGib:
      return p.peak_memory / (1024.0 * 1024.0 * 1024.0);
    case ValidationMetric::OutOfMemory:
      return p.fits_memory ? 0 : 1;
  }
  return 0;
}

}  // namespace

std::vector<PointResult> predict(const ValidationRun& run, SpecCache& cache) {
  std::vector<PointResult> out;
  for (const MeasuredPoint& m : run.measured) {
    PointResult r;
    r.id = run.id;
    r.source = run.source;
    r.compare_group = run.compare_group;
    r.expressible = run.expressible;
    r.fitted = run.fitted;
    r.metric = m.metric;
    r.measured = m.value;
    r.status = run.expressible == Expressible::No ? "not expressible" : "ok";
    out.push_back(std::move(r));
  }
  if (run.expressible == Expressible::No) return out;
  try {
    scenario::Scenario s = scenario::make_scenario(run.run);
    std::vector<std::string> given;
    for (const auto& [name, text] : run.run)
      given.push_back(name);
    scenario::require_applicable(s, given);
    if (!s.perf.enabled()) {
      throw core::ConfigError(run.path, "run", "needs a model and a hardware profile");
    }
    cache.attach(s);
    const scenario::Result result = scenario::simulate(s);
    for (PointResult& r : out)
      r.predicted = metric_of(run, *result.perf, result.metrics.iteration_time, r.metric);
  } catch (const core::ConfigError& e) {
    for (PointResult& r : out)
      r.status = e.what();
  }
  return out;
}

namespace {

//! The median of an ascending, non-empty list.
double median_of_sorted(const std::vector<double>& v) {
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

ErrorStats error_stats(const std::vector<PointResult>& points,
                       const std::function<bool(const PointResult&)>& keep) {
  std::vector<std::pair<double, std::string>> errors;
  for (const PointResult& p : points) {
    if (const auto e = p.error(); e && keep(p)) errors.emplace_back(std::abs(*e), p.id);
  }
  ErrorStats s;
  s.points = errors.size();
  if (errors.empty()) return s;
  std::sort(errors.begin(), errors.end());
  std::vector<double> sorted;
  for (const auto& [e, id] : errors)
    sorted.push_back(e);
  s.median_abs = median_of_sorted(sorted);
  s.max_abs = errors.back().first;
  s.worst = errors.back().second;
  return s;
}

SourceSummary summarize_source(const std::string& name, const std::vector<PointResult>& points) {
  const auto speed = [](const PointResult& p) { return is_speed_metric(p.metric); };
  SourceSummary s;
  s.source = name;
  s.all = error_stats(points, speed);
  s.held_out = error_stats(points, [&](const PointResult& p) { return speed(p) && !p.fitted; });
  s.exact = error_stats(points, [&](const PointResult& p) {
    return speed(p) && p.expressible == Expressible::Exact;
  });
  s.memory = error_stats(
      points, [](const PointResult& p) { return p.metric == ValidationMetric::PeakMemoryGib; });
  for (const PointResult& p : points) {
    if (p.expressible == Expressible::No) {
      ++s.not_expressible;
    } else if (!p.predicted) {
      ++s.failed;
    }
  }
  return s;
}

int sign(double x) {
  return (x > 0) - (x < 0);
}

}  // namespace

ValidationSummary summarize(const std::vector<PointResult>& points) {
  ValidationSummary summary;
  std::vector<std::string> order;
  std::map<std::string, std::vector<PointResult>> by_source;
  for (const PointResult& p : points) {
    if (by_source.count(p.source) == 0) order.push_back(p.source);
    by_source[p.source].push_back(p);
  }
  for (const std::string& source : order)
    summary.sources.push_back(summarize_source(source, by_source[source]));
  summary.overall = summarize_source("all", points);

  // Rankings: within a compare group, per speed metric, the predicted points in the order of
  // first appearance (files sorted by name, so deterministic).
  std::vector<std::pair<std::string, std::string>> keys;
  std::map<std::pair<std::string, std::string>, std::vector<const PointResult*>> groups;
  for (const PointResult& p : points) {
    if (p.compare_group.empty() || !p.predicted || !is_speed_metric(p.metric)) continue;
    const auto key = std::make_pair(p.compare_group, std::string(metric_name(p.metric)));
    if (groups.count(key) == 0) keys.push_back(key);
    groups[key].push_back(&p);
  }
  for (const auto& key : keys) {
    const auto& g = groups[key];
    if (g.size() < 2) continue;
    // Time is lower-better, the others higher-better; the sign is the same for both sides.
    int concordant = 0, discordant = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      for (size_t j = i + 1; j < g.size(); ++j) {
        const int m = sign(g[i]->measured - g[j]->measured);
        const int q = sign(*g[i]->predicted - *g[j]->predicted);
        if (m * q > 0) ++concordant;
        if (m * q < 0) ++discordant;
      }
    }
    const double pairs = static_cast<double>(g.size() * (g.size() - 1) / 2);
    // Lower is better only for time; the best run is the measured fastest.
    const bool lower_better = g.front()->metric == ValidationMetric::IterationTime;
    const auto best = *std::max_element(g.begin(), g.end(), [&](const auto* a, const auto* b) {
      return lower_better ? a->measured > b->measured : a->measured < b->measured;
    });
    std::vector<double> ratio_errors;
    for (const PointResult* p : g) {
      if (p == best) continue;
      const double measured = p->measured / best->measured;
      const double predicted = *p->predicted / *best->predicted;
      ratio_errors.push_back(std::abs(predicted / measured - 1));
    }
    std::sort(ratio_errors.begin(), ratio_errors.end());
    const double median = median_of_sorted(ratio_errors);
    summary.rankings.push_back(RankingAgreement{key.first, key.second, g.size(), discordant == 0,
                                                (concordant - discordant) / pairs, median});
  }
  return summary;
}

Validation validate(const std::vector<std::string>& files) {
  std::vector<std::string> paths = files;
  if (paths.empty()) {
    const auto dir = core::shipped_data_dir() / "validation";
    for (const std::string& name : core::shipped_names(dir.string()))
      paths.push_back((dir / (name + ".yaml")).string());
  }
  std::vector<ValidationRun> runs;
  for (const std::string& path : paths)
    runs.push_back(load_validation_run(path));
  SpecCache cache;
  Validation v;
  for (const ValidationRun& run : runs) {
    for (PointResult& p : predict(run, cache))
      v.points.push_back(std::move(p));
  }
  v.summary = summarize(v.points);
  return v;
}

}  // namespace pipesim::explore
