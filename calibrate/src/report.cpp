#include "pipesim/calibrate/report.hpp"

#include <fmt/format.h>

#include <algorithm>
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
  const auto optional = [](const std::optional<ScalarFit>& v) {
    return v ? nlohmann::json(v->value) : nlohmann::json();
  };
  j["attention_efficiency"] = optional(fit.attention_efficiency);
  j["grouped_gemm_efficiency"] = optional(fit.grouped_gemm_efficiency);
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
  const auto scalar_line = [](const std::string& label, const std::string& of, const ScalarFit& f) {
    return fmt::format("  {:<18} {:.3f} of {}, median of {} samples{}\n", label, f.value, of,
                       f.samples,
                       f.clamped() ? fmt::format(" (measured {:.3f}, clamped)", f.measured) : "");
  };
  if (fit.attention_efficiency) {
    s += scalar_line("attention", "the peak", *fit.attention_efficiency);
  }
  if (fit.grouped_gemm_efficiency) {
    s += scalar_line("grouped gemm", "the dense curve", *fit.grouped_gemm_efficiency);
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

namespace pipesim::calibrate {

nlohmann::json trace_check_to_json(const TraceCheck& check) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["pipesim_version"] = std::string(core::version);
  j["trace"] = {{"source", check.source},
                {"gpu", check.gpu},
                {"events", check.events},
                {"kernels", check.ops.kernels},
                {"kernel_time_s", check.ops.seconds},
                {"rank", check.rank},
                {"world_size", check.world_size}};
  nlohmann::json ops = nlohmann::json::array();
  for (const TraceRow& r : check.rows) {
    ops.push_back({{"kind", kernel_kind_name(r.kind)},
                   {"phase", r.phase},
                   {"kernels", r.kernels},
                   {"ranges", r.ranges},
                   {"measured_s", r.measured},
                   {"predicted_s", r.predicted ? nlohmann::json(*r.predicted) : nlohmann::json()}});
  }
  j["ops"] = std::move(ops);
  nlohmann::json phases = nlohmann::json::array();
  for (const PhaseRow& row : check.phases) {
    const PhaseSummary& p = row.summary;
    phases.push_back(
        {{"name", p.name},
         {"block", block_name(p.phase.block)},
         {"pass", pass_name(p.phase.pass)},
         {"ranges", p.ranges},
         {"kernels", p.kernels},
         {"measured_s", p.seconds},
         {"predicted_s", row.predicted ? nlohmann::json(*row.predicted) : nlohmann::json()}});
  }
  j["phases"] = std::move(phases);
  nlohmann::json streams = nlohmann::json::array();
  for (const StreamSummary& s : check.ops.streams) {
    streams.push_back({{"stream", s.stream},
                       {"kernels", s.kernels},
                       {"compute_s", s.compute_seconds},
                       {"communication_s", s.communication_seconds},
                       {"other_s", s.other_seconds}});
  }
  j["streams"] = std::move(streams);
  nlohmann::json overlap = nlohmann::json::array();
  for (const CommOverlap& o : check.ops.overlap) {
    overlap.push_back({{"kind", kernel_kind_name(o.kind)},
                       {"busy_s", o.busy},
                       {"hidden_s", o.hidden},
                       {"exposed_s", std::max(o.busy - o.hidden, 0.0)}});
  }
  j["overlap"] = std::move(overlap);
  nlohmann::json unrecognised = nlohmann::json::array();
  for (const UnrecognisedKernel& u : check.ops.unrecognised) {
    unrecognised.push_back({{"name", u.name}, {"kernels", u.kernels}, {"measured_s", u.seconds}});
  }
  j["unrecognised"] = std::move(unrecognised);
  j["findings"] = check.findings;
  return j;
}

std::string trace_check_to_text(const TraceCheck& check) {
  std::string s =
      fmt::format("trace {}: {} events, {} GPU kernels on {}, {:.3f} ms of kernel time",
                  check.source, check.events, check.ops.kernels,
                  check.gpu.empty() ? "an unnamed GPU" : check.gpu, check.ops.seconds * 1e3);
  if (check.world_size > 0) s += fmt::format(" (rank {} of {})", check.rank, check.world_size);
  s += "\n\nwhere the trace and pipesim differ, biggest first:\n";
  for (const std::string& f : check.findings)
    s += fmt::format("  - {}\n", f);
  const auto ratio_of = [](double measured, const std::optional<double>& predicted) {
    return predicted && *predicted > 0 && measured > 0
               ? fmt::format("{:.2f}", measured / *predicted)
               : std::string("-");
  };
  const auto ms_of = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.3f}", *v * 1e3) : std::string("-");
  };
  s += fmt::format("\n{:<16} {:>6} {:>7} {:>13} {:>13} {:>9}\n", "phase", "ranges", "kernels",
                   "measured ms", "predicted ms", "ratio");
  for (const PhaseRow& row : check.phases) {
    const PhaseSummary& p = row.summary;
    s += fmt::format("{:<16} {:>6} {:>7} {:>13.3f} {:>13} {:>9}\n",
                     p.name.empty() ? "(no annotation)" : p.name, p.ranges, p.kernels,
                     p.seconds * 1e3, ms_of(row.predicted), ratio_of(p.seconds, row.predicted));
  }
  s += fmt::format("\n{:<16} {:<13} {:>7} {:>13} {:>13} {:>9}\n", "phase", "kind", "kernels",
                   "measured ms", "predicted ms", "ratio");
  for (const TraceRow& r : check.rows) {
    s += fmt::format("{:<16} {:<13} {:>7} {:>13.3f} {:>13} {:>9}\n",
                     r.phase.empty() ? "(no annotation)" : r.phase, kernel_kind_name(r.kind),
                     r.kernels, r.measured * 1e3, ms_of(r.predicted),
                     ratio_of(r.measured, r.predicted));
  }
  s += "\nstreams:\n";
  for (const StreamSummary& st : check.ops.streams) {
    s += fmt::format(
        "  stream {:<4} {:>6} kernels: compute {:.3f} ms, communication {:.3f} ms, "
        "copies and sets {:.3f} ms\n",
        st.stream, st.kernels, st.compute_seconds * 1e3, st.communication_seconds * 1e3,
        st.other_seconds * 1e3);
  }
  if (!check.ops.unrecognised.empty()) {
    s += "\nunrecognised kernels (kind other):\n";
    for (const UnrecognisedKernel& u : check.ops.unrecognised) {
      s += fmt::format("  {:.3f} ms  {:>5}x  {}\n", u.seconds * 1e3, u.kernels,
                       u.name.size() > 120 ? u.name.substr(0, 117) + "..." : u.name);
    }
  }
  return s;
}

}  // namespace pipesim::calibrate
