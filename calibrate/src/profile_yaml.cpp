#include "pipesim/calibrate/profile_yaml.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "pipesim/core/config_error.hpp"

#ifndef PIPESIM_VERSION
#define PIPESIM_VERSION "unknown"
#endif

namespace pipesim::calibrate {
namespace {

struct Reader {
  std::string source;

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw core::ConfigError(source, field, problem);
  }

  YAML::Node child(const YAML::Node& parent, const std::string& key,
                   const std::string& field) const {
    if (!parent.IsMap()) fail(field, "must be a mapping");
    const YAML::Node n = parent[key];
    if (!n) fail(field, "is missing");
    return n;
  }

  double number(const YAML::Node& n, const std::string& field, double lo, bool lo_open) const {
    double v = 0.0;
    try {
      v = n.as<double>();
    } catch (const YAML::Exception&) {
      fail(field, "must be a number");
    }
    if (!std::isfinite(v) || v < lo || (lo_open && v == lo)) {
      fail(field, fmt::format("must be {} {}, got {}", lo_open ? ">" : ">=", lo, v));
    }
    return v;
  }

  EfficiencyCurve curve(const YAML::Node& n, const std::string& field) const {
    if (!n.IsSequence() || n.size() == 0)
      fail(field, "must be a non-empty list of [size, efficiency]");
    std::vector<EfficiencyCurve::Point> points;
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string f = fmt::format("{}[{}]", field, i);
      if (!n[i].IsSequence() || n[i].size() != 2) fail(f, "must be a pair [size, efficiency]");
      const double size = number(n[i][0], f, 0.0, true);
      const double eff = number(n[i][1], f, 0.0, true);
      if (eff > 1.0) fail(f, fmt::format("efficiency must be in (0, 1], got {}", eff));
      if (!points.empty() && size <= points.back().first) fail(f, "sizes must increase");
      points.emplace_back(size, eff);
    }
    return EfficiencyCurve(std::move(points));
  }
};

// Six significant digits: plenty for fitted values, and the same text on every run.
YAML::Node number_node(double v) {
  return YAML::Node(fmt::format("{:.6g}", v));
}

YAML::Node curve_node(const EfficiencyCurve& c) {
  YAML::Node seq(YAML::NodeType::Sequence);
  for (const auto& [size, eff] : c.points()) {
    YAML::Node pair(YAML::NodeType::Sequence);
    pair.push_back(number_node(size));
    pair.push_back(number_node(eff));
    pair.SetStyle(YAML::EmitterStyle::Flow);
    seq.push_back(pair);
  }
  seq.SetStyle(YAML::EmitterStyle::Flow);
  return seq;
}

YAML::Node hockney_node(const LinkFit& link) {
  YAML::Node n(YAML::NodeType::Map);
  n["alpha"] = number_node(link.hockney.alpha);
  n["beta"] = number_node(link.profile_beta());
  n.SetStyle(YAML::EmitterStyle::Flow);
  return n;
}

}  // namespace

BaseProfile load_base_profile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::ConfigError(path.string(), "file", "cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  const Reader r{path.string()};
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    r.fail(fmt::format("line {}", e.mark.line + 1), fmt::format("invalid YAML: {}", e.msg));
  }
  if (!root.IsMap()) r.fail("(document)", "must be a mapping");
  BaseProfile base;
  base.path = path;
  base.text = text.str();
  if (r.number(r.child(root, "schema_version", "schema_version"), "schema_version", 1, false) !=
      1) {
    r.fail("schema_version", "must be 1");
  }
  base.name = r.child(root, "name", "name").as<std::string>();
  const YAML::Node gpu = r.child(root, "gpu", "gpu");
  const YAML::Node peaks = r.child(gpu, "peak_flops", "gpu.peak_flops");
  if (!peaks.IsMap()) r.fail("gpu.peak_flops", "must be a mapping dtype: FLOP/s");
  for (const auto& kv : peaks) {
    const auto dtype = kv.first.as<std::string>();
    base.compute.peak_flops[dtype] = r.number(kv.second, "gpu.peak_flops." + dtype, 0.0, true);
  }
  const YAML::Node gemm = r.child(gpu, "gemm_efficiency", "gpu.gemm_efficiency");
  if (!gemm.IsMap()) r.fail("gpu.gemm_efficiency", "must be a mapping dtype: table");
  for (const auto& kv : gemm) {
    const auto dtype = kv.first.as<std::string>();
    base.compute.gemm_efficiency[dtype] = r.curve(kv.second, "gpu.gemm_efficiency." + dtype);
  }
  base.compute.hbm_bandwidth =
      r.number(r.child(gpu, "hbm_bandwidth", "gpu.hbm_bandwidth"), "gpu.hbm_bandwidth", 0.0, true);
  base.compute.hbm_efficiency =
      r.curve(r.child(gpu, "hbm_efficiency", "gpu.hbm_efficiency"), "gpu.hbm_efficiency");
  base.compute.kernel_launch =
      r.number(r.child(gpu, "kernel_launch", "gpu.kernel_launch"), "gpu.kernel_launch", 0.0, false);
  return base;
}

Provenance provenance_from(const SampleSet& samples) {
  Provenance p;
  p.gpu = samples.meta("gpu", "unknown");
  p.driver = samples.meta("driver", "unknown");
  p.cuda = samples.meta("cuda_runtime", "unknown");
  p.date = samples.meta("date", "unknown");
  p.tool_version = std::string("pipesim ") + PIPESIM_VERSION;
  return p;
}

std::string calibrated_profile_yaml(const BaseProfile& base, const CalibrationFit& fit,
                                    const Provenance& provenance, const std::string& name,
                                    const std::string& samples_path) {
  YAML::Node root = YAML::Load(base.text);
  root["name"] = name;
  if (root["description"]) {
    root["description"] =
        root["description"].as<std::string>() + " (calibrated: pipesim calibrate)";
  }
  YAML::Node prov = root["provenance"];
  prov["source"] = "calibration";
  YAML::Node refs(YAML::NodeType::Sequence);
  refs.push_back(fmt::format("base profile {}", base.name));
  refs.push_back("Hockney 1994 (alpha-beta); nccl-tests busbw factors; BabelStream copy/triad");
  refs.SetStyle(YAML::EmitterStyle::Flow);
  prov["references"] = refs;
  prov["gpu"] = provenance.gpu;
  prov["driver"] = provenance.driver;
  prov["cuda"] = provenance.cuda;
  prov["date"] = provenance.date;
  prov["tool_version"] = provenance.tool_version;

  YAML::Node gpu = root["gpu"];
  for (const auto& [dtype, t] : fit.gemm)
    gpu["gemm_efficiency"][dtype] = curve_node(t.fit.curve);
  if (fit.hbm) gpu["hbm_efficiency"] = curve_node(fit.hbm->fit.curve);
  if (fit.kernel_launch) gpu["kernel_launch"] = number_node(*fit.kernel_launch);
  if (fit.intra_node) root["links"]["intra_node"] = hockney_node(*fit.intra_node);
  // The profile's fitted collectives are t = α + n/β at the GPU count measured (the cost model
  // uses them as they are), so the bus bandwidth is converted back with its busbw factor.
  for (const auto& [coll, link] : fit.collectives) {
    root["collectives"]["fitted"][coll]["intra_node"] = hockney_node(link);
  }
  root["samples"] = samples_path;

  YAML::Emitter out;
  out.SetIndent(2);
  out << root;
  return fmt::format(
      "# Calibrated by pipesim calibrate from {}; values not measured are the base\n"
      "# profile's ({}). Efficiencies are fractions of the base's datasheet peaks.\n{}\n",
      samples_path, base.name, out.c_str());
}

}  // namespace pipesim::calibrate
