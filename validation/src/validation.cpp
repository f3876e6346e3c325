// Predicting a measured run and summarising the errors (validation/validation.hpp).

#include "pipesim/validation/validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/shipped_files.hpp"
#include "pipesim/scenario/model_facts.hpp"
#include "pipesim/scenario/options.hpp"
#include "quantile.hpp"

namespace pipesim::validation {

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

bool within_reading_error(double a, double error_a, double b, double error_b) {
  return std::abs(a - b) <= error_a * std::abs(a) + error_b * std::abs(b);
}

bool lower_is_better(ValidationMetric metric) {
  return metric == ValidationMetric::IterationTime || metric == ValidationMetric::PeakMemoryGib;
}

std::optional<double> PointResult::error() const {
  if (!predicted) return std::nullopt;
  if (metric == ValidationMetric::OutOfMemory) return *predicted == measured ? 0.0 : 1.0;
  // One sign for every metric, so that averages over time and throughput points mean one
  // thing: + when the prediction is optimistic (faster, or less memory, than measured).
  const double relative = *predicted / measured - 1;
  return lower_is_better(metric) ? -relative : relative;
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
      // The sources print torch.cuda.max_memory_allocated: the tensors, not the CUDA context
      // or the allocator's cache that the fit check adds.
      return p.peak_allocated / (1024.0 * 1024.0 * 1024.0);
    case ValidationMetric::OutOfMemory:
      return p.fits_memory ? 0 : 1;
  }
  return 0;
}

}  // namespace

std::vector<PointResult> predict(const ValidationRun& run, scenario::SpecCache& cache) {
  std::vector<PointResult> out;
  for (const MeasuredPoint& m : run.measured) {
    PointResult r;
    r.id = run.id;
    r.source = run.source;
    r.compare_group = run.compare_group;
    r.expressible = run.expressible;
    r.fitted = run.fitted;
    r.reading_error = run.reading_error;
    r.metric = m.metric;
    r.measured = m.value;
    r.status = run.expressible == Expressible::No ? "not expressible" : "ok";
    out.push_back(std::move(r));
  }
  if (run.expressible == Expressible::No) {
    // Not simulated, but still counted under its GPU's generation.
    for (const auto& [name, text] : run.run) {
      if (name != "hardware") continue;
      try {
        const auto profile = cache.hardware(text);
        for (PointResult& r : out)
          r.gpu_generation = gpu_generation(profile->provenance.gpu, profile->name);
      } catch (const core::ConfigError&) {
        // An unreadable profile leaves the generation unknown; the point is not predicted.
      }
    }
    return out;
  }
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
    // A source's proxy: the FLOP counts read the cut model too, as the source's MFU of one does.
    if (run.model_layers > 0) {
      s.perf.model_spec =
          scenario::model_with_layers(cache.model(s.perf.model), run.model_layers, run.path);
    }
    const scenario::Result result = scenario::simulate(s);
    const scenario::RunClass cls =
        scenario::run_class(result.perf->model, result.perf->hardware, result.perf->gpus,
                            s.perf.setup.context_parallel);
    for (PointResult& r : out) {
      r.predicted = metric_of(run, *result.perf, result.metrics.iteration_time, r.metric);
      r.fits_memory = result.perf->fits_memory;
      r.gpu_generation = cls.generation;
      r.gpus = result.perf->gpus;
      r.workload = cls.workload;
    }
  } catch (const core::ConfigError& e) {
    for (PointResult& r : out)
      r.status = e.what();
  }
  return out;
}

namespace {

ErrorStats error_stats(const std::vector<PointResult>& points,
                       const std::function<bool(const PointResult&)>& keep) {
  std::vector<std::pair<double, std::string>> errors;
  double signed_sum = 0;
  for (const PointResult& p : points) {
    if (const auto e = p.error(); e && keep(p)) {
      errors.emplace_back(std::abs(*e), p.id);
      signed_sum += *e;
    }
  }
  ErrorStats s;
  s.points = errors.size();
  if (errors.empty()) return s;
  s.mean_signed = signed_sum / static_cast<double>(errors.size());
  std::sort(errors.begin(), errors.end());
  std::vector<double> sorted;
  for (const auto& [e, id] : errors)
    sorted.push_back(e);
  s.median_abs = detail::quantile_of_sorted(sorted, 0.5);
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
  s.fitted = error_stats(points, [&](const PointResult& p) { return speed(p) && p.fitted; });
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
  std::vector<std::string> generation_order;
  std::map<std::string, std::vector<PointResult>> by_generation;
  for (const PointResult& p : points) {
    const std::string g = p.gpu_generation.empty() ? "unknown" : p.gpu_generation;
    if (by_generation.count(g) == 0) generation_order.push_back(g);
    by_generation[g].push_back(p);
  }
  for (const std::string& g : generation_order)
    summary.generations.push_back(summarize_source(g, by_generation[g]));
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
    // Time is lower-better, the others higher-better; the sign is the same for both sides. A
    // pair measured within its reading error is a tie: it counts neither way.
    int concordant = 0, discordant = 0, measured_ties = 0, predicted_ties = 0;
    std::vector<TiedPair> ties;
    for (size_t i = 0; i < g.size(); ++i) {
      for (size_t j = i + 1; j < g.size(); ++j) {
        const bool tied = within_reading_error(g[i]->measured, g[i]->reading_error, g[j]->measured,
                                               g[j]->reading_error);
        const int m = tied ? 0 : sign(g[i]->measured - g[j]->measured);
        const int q = sign(*g[i]->predicted - *g[j]->predicted);
        if (m == 0) {
          ++measured_ties;
          ties.push_back(TiedPair{g[i]->id, g[j]->id, g[i]->measured, g[j]->measured});
        }
        if (q == 0) ++predicted_ties;
        if (m * q > 0) ++concordant;
        if (m * q < 0) ++discordant;
      }
    }
    const int pairs = static_cast<int>(g.size() * (g.size() - 1) / 2);
    const double tau_denominator =
        std::sqrt(static_cast<double>(pairs - measured_ties) * (pairs - predicted_ties));
    // Lower is better only for time; the best run is the measured fastest.
    const bool lower_better = lower_is_better(g.front()->metric);
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
    const double median = detail::quantile_of_sorted(ratio_errors, 0.5);
    const double tau = tau_denominator > 0 ? (concordant - discordant) / tau_denominator : 0.0;
    summary.rankings.push_back(RankingAgreement{key.first, key.second, g.size(), discordant == 0,
                                                tau, std::move(ties), median});
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
  scenario::SpecCache cache;
  Validation v;
  for (const ValidationRun& run : runs) {
    for (PointResult& p : predict(run, cache))
      v.points.push_back(std::move(p));
  }
  v.summary = summarize(v.points);
  return v;
}

}  // namespace pipesim::validation
