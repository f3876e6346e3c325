#include "pipesim/calibrate/report.hpp"

#include <fmt/format.h>

#include <string>

#include "pipesim/core/version.hpp"

namespace pipesim::calibrate {
namespace {

nlohmann::json curve_json(const EfficiencyCurve& c) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& [size, eff] : c.points)
    points.push_back({size, eff});
  return points;
}

nlohmann::json link_json(const LinkFit& l) {
  // beta: as written to the profile (t = α + n/β); beta_bus: nccl-tests' bus bandwidth.
  return {{"alpha", l.hockney.alpha},
          {"beta", l.profile_beta()},
          {"beta_bus", l.hockney.beta},
          {"from", l.benchmark},
          {"gpus", l.gpus},
          {"samples", l.hockney.samples},
          {"rms_rel_error", l.hockney.rms_rel_error}};
}

nlohmann::json throughput_json(const ThroughputFit& t, const char* achieved_key) {
  return {{"table", curve_json(t.fit.curve)},
          {"samples", t.fit.samples},
          {"rms_error", t.fit.rms_error},
          {"clamped", t.fit.clamped},
          {achieved_key, t.max_achieved}};
}

}  // namespace

nlohmann::json fit_to_json(const CalibrationFit& fit, const hardware::Provenance& provenance,
                           const std::string& samples_source) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["pipesim_version"] = std::string(core::version);
  j["samples"] = samples_source;
  j["provenance"] = {{"gpu", provenance.gpu},
                     {"driver", provenance.driver},
                     {"cuda", provenance.cuda},
                     {"date", provenance.date},
                     {"tool_version", provenance.tool_version}};
  j["kernel_launch"] = fit.kernel_launch ? nlohmann::json(*fit.kernel_launch) : nlohmann::json();
  j["gemm_efficiency"] = nlohmann::json::object();
  for (const auto& [dtype, t] : fit.gemm)
    j["gemm_efficiency"][dtype] = throughput_json(t, "max_achieved_flops");
  j["hbm_efficiency"] =
      fit.hbm ? throughput_json(*fit.hbm, "max_achieved_bytes_per_s") : nlohmann::json();
  j["links"] = nlohmann::json::object();
  if (fit.intra_node) j["links"]["intra_node"] = link_json(*fit.intra_node);
  j["collectives"] = nlohmann::json::object();
  for (const auto& [coll, l] : fit.collectives)
    j["collectives"][coll] = {{"intra_node", link_json(l)}};
  j["host"] = nlohmann::json::object();
  for (const auto& [dir, l] : fit.host)
    j["host"][dir] = link_json(l);
  j["not_measured"] = fit.not_measured;
  return j;
}

std::string fit_to_text(const CalibrationFit& fit, const hardware::Provenance& provenance) {
  std::string s = fmt::format("calibration of {} (driver {}, CUDA {}, {})\n", provenance.gpu,
                              provenance.driver, provenance.cuda, provenance.date);
  if (fit.kernel_launch)
    s += fmt::format("  kernel launch      {:.3g} us\n", *fit.kernel_launch * 1e6);
  for (const auto& [dtype, t] : fit.gemm) {
    s += fmt::format("  gemm {:<5}         best {:.4g} TFLOP/s, {} samples, rms {:.3f}{}\n", dtype,
                     t.max_achieved / 1e12, t.fit.samples, t.fit.rms_error,
                     t.fit.clamped ? " (clamped)" : "");
  }
  if (fit.hbm) {
    s += fmt::format("  memory             best {:.4g} TB/s, {} samples, rms {:.3f}{}\n",
                     fit.hbm->max_achieved / 1e12, fit.hbm->fit.samples, fit.hbm->fit.rms_error,
                     fit.hbm->fit.clamped ? " (clamped)" : "");
  }
  const auto link_line = [](const std::string& label, const LinkFit& l) {
    return fmt::format("  {:<22} alpha {:.3g} us, beta {:.4g} GB/s ({}, {} GPUs, rms {:.3f})\n",
                       label, l.hockney.alpha * 1e6, l.hockney.beta / 1e9, l.benchmark, l.gpus,
                       l.hockney.rms_rel_error);
  };
  if (fit.intra_node) s += link_line("intra_node link", *fit.intra_node);
  for (const auto& [coll, l] : fit.collectives)
    s += link_line(coll + " (bus bw)", l);
  for (const auto& [dir, l] : fit.host)
    s += link_line(dir, l);
  for (const auto& why : fit.not_measured)
    s += fmt::format("  kept from base: {}\n", why);
  return s;
}

nlohmann::json layer_check_to_json(const LayerCheck& check) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& c : check.rows) {
    const auto& m = c.measured;
    rows.push_back({{"b", m.shape.batch},
                    {"s", m.shape.seq},
                    {"h", m.shape.hidden},
                    {"heads", m.shape.heads},
                    {"dtype", m.dtype},
                    {"direction", direction_name(m.direction)},
                    {"kernel", m.kernel},
                    {"measured", m.seconds},
                    {"predicted", c.predicted},
                    {"relative_error", c.relative_error}});
  }
  return {{"schema_version", 1},
          {"pipesim_version", std::string(core::version)},
          {"rows", rows},
          {"median_abs_error", check.median_abs_error}};
}

std::string layer_check_to_text(const LayerCheck& check) {
  std::string s =
      fmt::format("{:>3} {:>6} {:>6} {:>5} {:<5} {:<9} {:<24} {:>12} {:>12} {:>8}\n", "b", "s", "h",
                  "heads", "dtype", "direction", "kernel", "measured_ms", "predicted_ms", "error");
  for (const auto& c : check.rows) {
    const auto& m = c.measured;
    s += fmt::format("{:>3} {:>6} {:>6} {:>5} {:<5} {:<9} {:<24} {:>12.4f} {:>12.4f} {:>+7.1f}%\n",
                     m.shape.batch, m.shape.seq, m.shape.hidden, m.shape.heads, m.dtype,
                     direction_name(m.direction), m.kernel, m.seconds * 1e3, c.predicted * 1e3,
                     c.relative_error * 100);
  }
  s += fmt::format("median absolute error (layer totals): {:.1f}%\n", check.median_abs_error * 100);
  return s;
}

std::string layer_check_to_csv(const LayerCheck& check) {
  std::string s =
      "b,s,h,heads,dtype,direction,kernel,measured_seconds,predicted_seconds,relative_error\n";
  for (const auto& c : check.rows) {
    const auto& m = c.measured;
    s += fmt::format("{},{},{},{},{},{},{},{:.6g},{:.6g},{:.4f}\n", m.shape.batch, m.shape.seq,
                     m.shape.hidden, m.shape.heads, m.dtype, direction_name(m.direction), m.kernel,
                     m.seconds, c.predicted, c.relative_error);
  }
  return s;
}

}  // namespace pipesim::calibrate
