#include "pipesim/calibrate/calibration_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "pipesim/core/config_error.hpp"
#include "pipesim/hardware/profile.hpp"

namespace pipesim::calibrate {
namespace {

constexpr double kPeakTolerance = 1.05;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// The work-only part of a measured kernel time: the cost model adds one kernel_launch per
// kernel, so that much is taken off before inverting for efficiency (never more than 95 %).
double work_seconds(double seconds, double launch) {
  return std::max(seconds - launch, 0.05 * seconds);
}

template <class Fn>
auto fit_or_explain(const SampleSet& samples, const std::string& what, Fn fn) {
  try {
    return fn();
  } catch (const std::invalid_argument& e) {
    throw core::ConfigError(samples.source, what, fmt::format("cannot be fitted: {}", e.what()));
  }
}

std::optional<LinkFit> fit_link(const SampleSet& samples, const std::string& benchmark) {
  const std::vector<Sample> rows = samples.measured(benchmark);
  if (rows.empty()) return std::nullopt;
  std::vector<HockneyPoint> points;
  LinkFit link;
  link.benchmark = benchmark;
  for (const Sample& s : rows) {
    points.push_back({s.bytes, *s.seconds, bus_factor(benchmark, s.gpus)});
    link.gpus = std::max(link.gpus, s.gpus);
  }
  link.hockney = fit_or_explain(samples, benchmark, [&] { return fit_hockney(points); });
  // A fit the profile could not hold is an error, not a file --hardware later rejects.
  if (!(link.hockney.beta <= hardware::bounds::kMaxBandwidth)) {
    throw core::ConfigError(
        samples.source, benchmark,
        fmt::format("fitted bandwidth {:.3g} B/s is above the physical bound {:.3g} B/s "
                    "(times barely grow with size: check the bytes and seconds columns)",
                    link.hockney.beta, hardware::bounds::kMaxBandwidth));
  }
  if (!(link.hockney.alpha <= hardware::bounds::kMaxLatency)) {
    throw core::ConfigError(samples.source, benchmark,
                            fmt::format("fitted latency {:.3g} s is above the bound {} s",
                                        link.hockney.alpha, hardware::bounds::kMaxLatency));
  }
  return link;
}

bool has_unmeasurable(const SampleSet& samples, const std::string& benchmark) {
  return std::any_of(samples.rows.begin(), samples.rows.end(),
                     [&](const Sample& s) { return s.benchmark == benchmark && !s.seconds; });
}

ScalarFit scalar_fit(const std::vector<double>& reached) {
  ScalarFit f;
  f.measured = median(reached);
  f.value = std::clamp(f.measured, kMinEfficiency, 1.0);
  f.samples = reached.size();
  return f;
}

// The efficiency a sample reached against its dtype's peak; nullopt (and a note) without one.
std::optional<double> sample_efficiency(const SampleSet& samples, const Sample& s,
                                        const ComputeParameters& base, double launch,
                                        CalibrationFit& fit) {
  const auto peak = base.peak_flops.find(s.dtype);
  if (peak == base.peak_flops.end()) {
    fit.not_measured.push_back(
        fmt::format("{} samples in {}: the base profile has no "
                    "peak_flops.{}",
                    s.benchmark, s.dtype, s.dtype));
    return std::nullopt;
  }
  const double achieved = s.gemm_flops() / *s.seconds;
  if (!(achieved <= kPeakTolerance * peak->second)) {
    throw core::ConfigError(
        samples.source, fmt::format("line {}, {}", s.line, s.benchmark),
        fmt::format("{:.3g} FLOP/s is above the base profile's gpu.peak_flops.{} = {:.3g} (at "
                    "most {}x that is plausible)",
                    achieved, s.dtype, peak->second, kPeakTolerance));
  }
  return s.gemm_flops() / (peak->second * work_seconds(*s.seconds, launch));
}

// Fused attention and grouped GEMMs (rows from profiler traces): one scalar each, the median
// of what the samples reached — against the peak (attention) or against the dense GEMM curve at
// the same FLOPs, the fitted one where this fit has it (grouped GEMMs), as kernel_time prices
// them.
void fit_fused_kernels(const SampleSet& samples, const ComputeParameters& base, double launch,
                       CalibrationFit& fit) {
  std::vector<double> attention;
  for (const Sample& s : samples.measured("attention")) {
    if (const auto e = sample_efficiency(samples, s, base, launch, fit)) attention.push_back(*e);
  }
  if (!attention.empty()) {
    fit.attention_efficiency = scalar_fit(attention);
  } else {
    fit.not_measured.push_back("gpu.attention_efficiency: no attention samples");
  }
  std::vector<double> grouped;
  for (const Sample& s : samples.measured("grouped_gemm")) {
    const auto e = sample_efficiency(samples, s, base, launch, fit);
    if (!e) continue;
    const auto fitted = fit.gemm.find(s.dtype);
    const auto dense = base.gemm_efficiency.find(s.dtype);
    if (fitted == fit.gemm.end() && dense == base.gemm_efficiency.end()) continue;
    const double curve = fitted != fit.gemm.end() ? fitted->second.fit.curve.at(s.gemm_flops())
                                                  : dense->second.at(s.gemm_flops());
    grouped.push_back(*e / curve);
  }
  if (!grouped.empty()) {
    fit.grouped_gemm_efficiency = scalar_fit(grouped);
  } else {
    fit.not_measured.push_back("gpu.grouped_gemm_efficiency: no grouped_gemm samples");
  }
}

}  // namespace

CalibrationFit fit_samples(const SampleSet& samples, const ComputeParameters& base) {
  CalibrationFit fit;
  std::vector<double> launches;
  for (const Sample& s : samples.measured("launch"))
    launches.push_back(*s.seconds);
  if (!launches.empty()) {
    fit.kernel_launch = median(launches);
  } else {
    fit.not_measured.push_back("gpu.kernel_launch: no launch samples");
  }
  const double launch = fit.kernel_launch.value_or(base.kernel_launch);
  if (fit.kernel_launch) {
    // The launch overhead is part of every kernel: it cannot exceed the fastest one measured.
    double fastest = hardware::bounds::kMaxLaunch;
    std::string fastest_what = fmt::format("the bound {} s", hardware::bounds::kMaxLaunch);
    for (const char* bench : {"gemm", "copy", "triad"}) {
      for (const Sample& s : samples.measured(bench)) {
        if (*s.seconds < fastest) {
          fastest = *s.seconds;
          fastest_what = fmt::format("the fastest {} ({:.3g} s, line {})", bench, fastest, s.line);
        }
      }
    }
    if (*fit.kernel_launch > fastest) {
      throw core::ConfigError(samples.source, "launch",
                              fmt::format("median launch time {:.3g} s is longer than {}",
                                          *fit.kernel_launch, fastest_what));
    }
  }

  std::vector<std::string> dtypes;
  for (const Sample& s : samples.measured("gemm")) {
    if (std::find(dtypes.begin(), dtypes.end(), s.dtype) == dtypes.end()) dtypes.push_back(s.dtype);
  }
  std::sort(dtypes.begin(), dtypes.end());
  for (const std::string& dtype : dtypes) {
    const auto peak = base.peak_flops.find(dtype);
    if (peak == base.peak_flops.end()) {
      fit.not_measured.push_back(fmt::format(
          "gpu.gemm_efficiency.{}: the base profile has no peak_flops.{}", dtype, dtype));
      continue;
    }
    ThroughputFit t;
    std::vector<std::pair<double, double>> points;
    for (const Sample& s : samples.measured("gemm", dtype)) {
      const double flops = s.gemm_flops();
      t.max_achieved = std::max(t.max_achieved, flops / *s.seconds);
      points.emplace_back(flops, flops / (peak->second * work_seconds(*s.seconds, launch)));
    }
    // Measured above the peak is a unit slip (seconds in ms, wrong m/n/k), not a fast GPU: the
    // efficiency would be clamped to 1 and the profile would silently lie. 5% covers boost
    // clocks above the datasheet's peak.
    if (!(t.max_achieved <= kPeakTolerance * peak->second)) {
      throw core::ConfigError(
          samples.source, "gemm " + dtype,
          fmt::format("best measured {:.3g} FLOP/s is above the base profile's "
                      "gpu.peak_flops.{} = {:.3g} (at most {}x that is plausible)",
                      t.max_achieved, dtype, peak->second, kPeakTolerance));
    }
    // One size measured (a trace's single GEMM shape) gives a point, not a curve.
    const bool one_size = std::all_of(points.begin(), points.end(), [&](const auto& p) {
      return p.first == points.front().first;
    });
    if (one_size) {
      fit.not_measured.push_back(
          fmt::format("gpu.gemm_efficiency.{}: measured at one size only ({:.3g} FLOPs, {} "
                      "samples); a curve needs two",
                      dtype, points.front().first, points.size()));
      continue;
    }
    t.fit = fit_or_explain(samples, "gemm " + dtype, [&] { return fit_efficiency_curve(points); });
    fit.gemm[dtype] = std::move(t);
  }
  if (dtypes.empty()) fit.not_measured.push_back("gpu.gemm_efficiency: no gemm samples");
  fit_fused_kernels(samples, base, launch, fit);

  std::vector<std::pair<double, double>> memory;
  double best_bandwidth = 0.0;
  for (const char* bench : {"copy", "triad"}) {
    for (const Sample& s : samples.measured(bench)) {
      best_bandwidth = std::max(best_bandwidth, s.bytes / *s.seconds);
      memory.emplace_back(s.bytes,
                          s.bytes / (base.hbm_bandwidth * work_seconds(*s.seconds, launch)));
    }
  }
  if (!memory.empty()) {
    if (!(best_bandwidth <= kPeakTolerance * base.hbm_bandwidth)) {
      throw core::ConfigError(
          samples.source, "copy/triad",
          fmt::format("best measured {:.3g} B/s is above the base profile's gpu.hbm_bandwidth = "
                      "{:.3g} (at most {}x that is plausible)",
                      best_bandwidth, base.hbm_bandwidth, kPeakTolerance));
    }
    ThroughputFit t;
    t.fit = fit_or_explain(samples, "copy/triad", [&] { return fit_efficiency_curve(memory); });
    t.max_achieved = best_bandwidth;
    fit.hbm = std::move(t);
  } else {
    fit.not_measured.push_back("gpu.hbm_efficiency: no copy or triad samples");
  }

  // Point-to-point link inside the node: NCCL send/recv is what pipeline stages use; raw peer
  // copies stand in when NCCL was not measured.
  fit.intra_node = fit_link(samples, "send_recv");
  if (!fit.intra_node) fit.intra_node = fit_link(samples, "peer_copy");
  if (!fit.intra_node) {
    fit.not_measured.push_back(has_unmeasurable(samples, "send_recv") ||
                                       has_unmeasurable(samples, "peer_copy")
                                   ? "links.intra_node: not measurable (one GPU)"
                                   : "links.intra_node: no send_recv or peer_copy samples");
  }
  fit.not_measured.push_back("links.inter_node: not measurable inside one node");
  for (const char* coll : {"all_gather", "all_reduce", "reduce_scatter"}) {
    if (auto link = fit_link(samples, coll)) {
      fit.collectives[coll] = *link;
    } else {
      fit.not_measured.push_back(
          fmt::format("collectives.fitted.{}: {}", coll,
                      has_unmeasurable(samples, coll) ? "not measurable (one GPU)" : "no samples"));
    }
  }
  for (const char* dir : {"d2h", "h2d"}) {
    if (auto link = fit_link(samples, dir)) fit.host[dir] = *link;
  }
  return fit;
}

ComputeParameters apply_fit(const ComputeParameters& base, const CalibrationFit& fit) {
  ComputeParameters out = base;
  if (fit.kernel_launch) out.kernel_launch = *fit.kernel_launch;
  for (const auto& [dtype, t] : fit.gemm)
    out.gemm_efficiency[dtype] = t.fit.curve;
  if (fit.hbm) out.hbm_efficiency = fit.hbm->fit.curve;
  if (fit.attention_efficiency) out.attention_efficiency = fit.attention_efficiency->value;
  if (fit.grouped_gemm_efficiency) out.grouped_gemm_efficiency = fit.grouped_gemm_efficiency->value;
  return out;
}

}  // namespace pipesim::calibrate
