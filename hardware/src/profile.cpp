#include "pipesim/hardware/profile.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "pipesim/core/atomic_write.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/shipped_files.hpp"
#include "pipesim/core/text_file.hpp"
#include "pipesim/core/yaml_reader.hpp"

namespace pipesim::hardware {
namespace {

// mxfp8 and nvfp4 are Blackwell's block-scaled formats (OCP MX: E4M3/E5M2 elements, one E8M0
// scale per 32; NVFP4: E2M1 elements, one E4M3 scale per 16): the tensor core applies the scales
// inside the MMA, so they are GEMM dtypes with their own peak, not a transformation of fp8.
const std::vector<std::string> kDtypes{"fp32", "tf32", "bf16", "fp16", "fp8", "mxfp8", "nvfp4"};
const std::vector<std::string> kCollectives{"all_reduce", "all_gather", "reduce_scatter"};
const std::vector<std::string> kTiers{"intra_node", "inter_node"};

using namespace bounds;

std::string optional_string(core::YamlMap& y, const std::string& key) {
  return y.has(key) ? y.string(key, true) : std::string();
}

Hockney parse_hockney(core::YamlMap y, bool link) {
  Hockney h;
  h.alpha = y.number("alpha", 0.0, kMaxLatency);
  h.beta = y.number("beta", kMinBandwidth, kMaxBandwidth);
  // The share of the link's bandwidth the communication library reaches (1 = unfitted).
  if (link && y.has("efficiency")) h.efficiency = y.number("efficiency", 1e-3, 1.0);
  y.finish();
  return h;
}

GpuSpec parse_gpu(core::YamlMap y) {
  GpuSpec g;
  g.memory_bytes = y.whole("memory_bytes", kMinMemory, kMaxMemory);
  core::YamlMap peak = y.map("peak_flops");
  for (const std::string& dtype : peak.keys()) {
    if (std::find(kDtypes.begin(), kDtypes.end(), dtype) == kDtypes.end()) {
      peak.fail(dtype, fmt::format("unknown dtype (allowed: {})", fmt::join(kDtypes, ", ")));
    }
    g.peak_flops[dtype] = peak.positive(dtype, kMaxFlops);
  }
  if (g.peak_flops.empty()) y.fail("peak_flops", "must list at least one dtype");
  core::YamlMap eff = y.map("gemm_efficiency");
  for (const std::string& dtype : eff.keys()) {
    if (!g.peak_flops.contains(dtype)) {
      eff.fail(dtype, "has no gpu.peak_flops entry (efficiency is a fraction of that peak)");
    }
    g.gemm_efficiency[dtype] = EfficiencyCurve{eff.curve(dtype)};
  }
  g.hbm_bandwidth = y.number("hbm_bandwidth", kMinBandwidth, kMaxBandwidth);
  g.hbm_efficiency = EfficiencyCurve{y.curve("hbm_efficiency")};
  g.kernel_launch = y.number("kernel_launch", 0.0, kMaxLaunch);
  if (y.has("attention_efficiency"))
    g.attention_efficiency = y.positive("attention_efficiency", 1.0);
  if (y.has("grouped_gemm_efficiency"))
    g.grouped_gemm_efficiency = y.positive("grouped_gemm_efficiency", 1.0);
  peak.finish();
  eff.finish();
  y.finish();
  return g;
}

// A YAML double-quoted scalar that reads back as exactly `s`: control characters are escaped,
// since a raw line break inside quotes folds to a space on reading.
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string num(double v) {
  return fmt::format("{}", v);
}

std::string curve_yaml(const EfficiencyCurve& c) {
  std::string out = "[";
  for (size_t i = 0; i < c.points.size(); ++i) {
    out +=
        fmt::format("{}[{}, {}]", i ? ", " : "", num(c.points[i].first), num(c.points[i].second));
  }
  return out + "]";
}

std::string hockney_yaml(const Hockney& h) {
  if (h.efficiency != 1.0) {
    return fmt::format("{{alpha: {}, beta: {}, efficiency: {}}}", num(h.alpha), num(h.beta),
                       num(h.efficiency));
  }
  return fmt::format("{{alpha: {}, beta: {}}}", num(h.alpha), num(h.beta));
}

}  // namespace

double EfficiencyCurve::at(double size) const {
  if (points.empty()) return 1.0;
  if (size <= points.front().first) return points.front().second;
  if (size >= points.back().first) return points.back().second;
  // Calculon-style efficiency tables, interpolated linearly in log10(size) (profile schema).
  for (size_t i = 1; i < points.size(); ++i) {
    if (size <= points[i].first) {
      const double x0 = std::log10(points[i - 1].first), x1 = std::log10(points[i].first);
      const double t = (std::log10(size) - x0) / (x1 - x0);
      return points[i - 1].second + t * (points[i].second - points[i - 1].second);
    }
  }
  return points.back().second;
}

std::string check_profile_name(const std::string& name) {
  const bool ok =
      !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
      });
  return ok ? std::string()
            : fmt::format("must be 1 to 64 characters of [a-z0-9-], got '{}'", name);
}

std::vector<std::string> plausibility_warnings(const HardwareProfile& p) {
  std::vector<std::string> out;
  auto below = [&](const std::string& field, double v, double lo, const char* what) {
    if (v < lo) out.push_back(fmt::format("{}: {} is below {} ({})", field, v, lo, what));
  };
  below("gpu.memory_bytes", p.gpu.memory_bytes, 1024.0 * 1024 * 1024, "1 GiB");
  for (const auto& [dtype, flops] : p.gpu.peak_flops)
    below("gpu.peak_flops." + dtype, flops, 1e12, "1 TFLOP/s");
  below("gpu.hbm_bandwidth", p.gpu.hbm_bandwidth, 1e11, "100 GB/s");
  for (const auto& [tier, h] :
       {std::pair{"intra_node", p.intra_node}, {"inter_node", p.inter_node}}) {
    below(fmt::format("links.{}.beta", tier), h.beta, 1e8, "100 MB/s");
    if (h.alpha > 1e-3) {
      out.push_back(fmt::format("links.{}.alpha: {} s is above 1 ms per message", tier, h.alpha));
    }
  }
  if (p.gpu.kernel_launch > 1e-4) {
    out.push_back(
        fmt::format("gpu.kernel_launch: {} s is above 100 us per kernel", p.gpu.kernel_launch));
  }
  return out;
}

const char* algorithm_name(AllReduceAlgorithm a) {
  switch (a) {
    case AllReduceAlgorithm::Ring:
      return "ring";
    case AllReduceAlgorithm::Rabenseifner:
      return "rabenseifner";
    case AllReduceAlgorithm::Hierarchical:
      return "hierarchical";
    case AllReduceAlgorithm::Tree:
      return "tree";
  }
  return "?";
}

std::vector<std::string> curve_keys(const HardwareProfile& p) {
  std::vector<std::string> keys;
  for (const auto& [dtype, curve] : p.gpu.gemm_efficiency)
    keys.push_back("gemm_efficiency." + dtype);
  for (const char* k : {"hbm_efficiency", "attention_efficiency", "grouped_gemm_efficiency"})
    keys.emplace_back(k);
  return keys;
}

std::string curve_provenance_kind(const HardwareProfile& p, const std::string& key) {
  const auto it = p.provenance.curves.find(key);
  if (it == p.provenance.curves.end()) return "unstated";
  return it->second.substr(0, it->second.find(':'));
}

namespace {

// Each stated provenance names a curve the profile has and starts with a known kind.
void check_curve_provenance(const HardwareProfile& p, const std::string& source) {
  const std::vector<std::string> keys = curve_keys(p);
  for (const auto& [key, text] : p.provenance.curves) {
    const std::string field = "provenance.curves." + key;
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      throw core::ConfigError(
          source, field,
          fmt::format("names no curve of this profile; allowed: {}", fmt::join(keys, ", ")));
    }
    const std::string kind = curve_provenance_kind(p, key);
    const bool known =
        std::any_of(std::begin(kCurveProvenanceKinds), std::end(kCurveProvenanceKinds),
                    [&](const char* k) { return kind == k; });
    if (!known || text.size() <= kind.size() + 1) {
      throw core::ConfigError(
          source, field,
          fmt::format("must read \"<kind>: <source>\" with kind measured, derived, fitted or "
                      "assumed, got \"{}\"",
                      text));
    }
  }
}

}  // namespace

HardwareProfile parse_profile(const std::string& yaml_text, const std::string& source) {
  core::YamlMap y = core::YamlMap::parse(yaml_text, source);
  HardwareProfile p;
  p.source = source;
  p.schema_version = static_cast<int>(y.integer("schema_version", 1, 1));
  p.name = y.string("name");
  if (const std::string why = check_profile_name(p.name); !why.empty()) y.fail("name", why);
  p.description = y.string("description");
  {
    core::YamlMap pv = y.map("provenance");
    p.provenance.source = pv.choice("source", {"datasheet", "calibration"});
    p.provenance.references = pv.string_list("references");
    p.provenance.gpu = optional_string(pv, "gpu");
    p.provenance.driver = optional_string(pv, "driver");
    p.provenance.cuda = optional_string(pv, "cuda");
    p.provenance.date = optional_string(pv, "date");
    p.provenance.tool_version = optional_string(pv, "tool_version");
    if (pv.has("curves")) {
      core::YamlMap curves = pv.map("curves");
      for (const std::string& key : curves.keys())
        p.provenance.curves[key] = curves.string(key);
      curves.finish();
    }
    pv.finish();
  }
  p.gpu = parse_gpu(y.map("gpu"));
  check_curve_provenance(p, source);
  {
    core::YamlMap node = y.map("node");
    p.gpus_per_node = static_cast<int>(node.integer("gpus_per_node", 1, 1024));
    if (node.has("nics_per_node")) {
      p.nics_per_node = static_cast<int>(node.integer("nics_per_node", 1, p.gpus_per_node));
      if (p.gpus_per_node % p.nics_per_node != 0) {
        node.fail("nics_per_node", fmt::format("must divide gpus_per_node = {}, got {}",
                                               p.gpus_per_node, p.nics_per_node));
      }
    }
    if (node.has("gpus_per_host")) {
      p.gpus_per_host = static_cast<int>(node.integer("gpus_per_host", 1, p.gpus_per_node));
      if (p.gpus_per_node % p.gpus_per_host != 0) {
        node.fail("gpus_per_host", fmt::format("must divide gpus_per_node = {}, got {}",
                                               p.gpus_per_node, p.gpus_per_host));
      }
    }
    if (node.has("rdma_nics")) p.rdma_nics = node.boolean("rdma_nics");
    node.finish();
  }
  {
    core::YamlMap links = y.map("links");
    p.intra_node = parse_hockney(links.map("intra_node"), true);
    p.inter_node = parse_hockney(links.map("inter_node"), true);
    if (links.has("host_link")) p.host_link = parse_hockney(links.map("host_link"), true);
    links.finish();
  }
  {
    core::YamlMap coll = y.map("collectives");
    core::YamlMap ar = coll.map("all_reduce");
    const std::string algo =
        ar.choice("algorithm", {"ring", "rabenseifner", "hierarchical", "tree"});
    p.all_reduce = algo == "ring"           ? AllReduceAlgorithm::Ring
                   : algo == "rabenseifner" ? AllReduceAlgorithm::Rabenseifner
                   : algo == "tree"         ? AllReduceAlgorithm::Tree
                                            : AllReduceAlgorithm::Hierarchical;
    ar.finish();
    if (coll.has("fitted")) {
      core::YamlMap fitted = coll.map("fitted");
      for (const std::string& c : fitted.keys()) {
        if (std::find(kCollectives.begin(), kCollectives.end(), c) == kCollectives.end()) {
          fitted.fail(c, "unknown collective (allowed: all_reduce, all_gather, reduce_scatter)");
        }
        core::YamlMap tiers = fitted.map(c);
        for (const std::string& t : tiers.keys()) {
          if (std::find(kTiers.begin(), kTiers.end(), t) == kTiers.end()) {
            tiers.fail(t, "unknown tier (allowed: intra_node, inter_node)");
          }
          p.fitted[c][t] = parse_hockney(tiers.map(t), false);
        }
        tiers.finish();
      }
      fitted.finish();
    }
    coll.finish();
  }
  p.interference = y.number("interference");
  if (!(p.interference >= 0.0 && p.interference < 1.0)) {
    y.fail("interference", fmt::format("must be in [0, 1), got {}", p.interference));
  }
  if (y.has("framework")) {
    core::YamlMap fw = y.map("framework");
    if (fw.has("op_overhead")) {
      p.framework.op_overhead = fw.number("op_overhead");
      if (!(p.framework.op_overhead >= 0.0)) {
        fw.fail("op_overhead",
                fmt::format("must be >= 0 seconds, got {}", p.framework.op_overhead));
      }
    }
    for (const auto& [key, field] :
         {std::pair{"attention_launches", &FrameworkOverhead::attention_launches},
          std::pair{"mlp_launches", &FrameworkOverhead::mlp_launches}}) {
      if (!fw.has(key)) continue;
      const double v = fw.number(key);
      if (!(v >= 1.0 && v <= 1000.0)) fw.fail(key, fmt::format("must be in [1, 1000], got {}", v));
      p.framework.*field = v;
    }
    if (fw.has("grouped_gemm_per_expert")) {
      p.framework.grouped_gemm_per_expert = fw.boolean("grouped_gemm_per_expert");
    }
    if (fw.has("tp_overlap_sm_fraction")) {
      p.framework.tp_overlap_sm_fraction = fw.number("tp_overlap_sm_fraction");
      if (!(p.framework.tp_overlap_sm_fraction >= 0.0 &&
            p.framework.tp_overlap_sm_fraction < 1.0)) {
        fw.fail("tp_overlap_sm_fraction",
                fmt::format("must be in [0, 1), got {}", p.framework.tp_overlap_sm_fraction));
      }
    }
    fw.finish();
  }
  if (y.has("memory")) {
    core::YamlMap mem = y.map("memory");
    if (mem.has("reserved_bytes")) {
      p.memory.reserved_bytes = mem.number("reserved_bytes");
      if (!(p.memory.reserved_bytes >= 0.0 && p.memory.reserved_bytes < p.gpu.memory_bytes)) {
        mem.fail("reserved_bytes",
                 fmt::format("must be in [0, gpu.memory_bytes), got {}", p.memory.reserved_bytes));
      }
    }
    if (mem.has("fragmentation")) {
      p.memory.fragmentation = mem.number("fragmentation");
      if (!(p.memory.fragmentation >= 0.0 && p.memory.fragmentation < 1.0)) {
        mem.fail("fragmentation", fmt::format("must be in [0, 1), got {}", p.memory.fragmentation));
      }
    }
    mem.finish();
  }
  p.samples = optional_string(y, "samples");
  y.finish();
  return p;
}

std::vector<std::string> shipped_profiles() {
  return core::shipped_names_in("hardware");
}

HardwareProfile load_profile(const std::string& name_or_path) {
  const std::string path =
      core::resolve_shipped_yaml(name_or_path, "hardware", "hardware", "hardware profile");
  return parse_profile(core::read_text_file(path), path);
}

std::string to_yaml(const HardwareProfile& p) {
  std::string o;
  o += fmt::format("schema_version: {}\n", p.schema_version);
  o += fmt::format("name: {}\n", p.name);
  o += fmt::format("description: {}\n", quote(p.description));
  o += "provenance:\n";
  o += fmt::format("  source: {}\n", p.provenance.source);
  o += "  references:\n";
  for (const auto& r : p.provenance.references)
    o += fmt::format("    - {}\n", quote(r));
  if (p.provenance.references.empty()) o.replace(o.size() - 1, 1, " []\n");
  o += fmt::format("  gpu: {}\n  driver: {}\n  cuda: {}\n  date: {}\n  tool_version: {}\n",
                   quote(p.provenance.gpu), quote(p.provenance.driver), quote(p.provenance.cuda),
                   quote(p.provenance.date), quote(p.provenance.tool_version));
  if (!p.provenance.curves.empty()) {
    o += "  curves:\n";
    for (const auto& [key, text] : p.provenance.curves)
      o += fmt::format("    {}: {}\n", key, quote(text));
  }
  o += "gpu:\n";
  o += fmt::format("  memory_bytes: {}\n", num(p.gpu.memory_bytes));
  std::string peaks;
  for (const auto& [k, v] : p.gpu.peak_flops)
    peaks += fmt::format("{}{}: {}", peaks.empty() ? "" : ", ", k, num(v));
  o += fmt::format("  peak_flops: {{{}}}\n", peaks);
  o += "  gemm_efficiency:\n";
  for (const auto& [k, c] : p.gpu.gemm_efficiency)
    o += fmt::format("    {}: {}\n", k, curve_yaml(c));
  if (p.gpu.gemm_efficiency.empty()) o.replace(o.size() - 1, 1, " {}\n");
  o += fmt::format("  hbm_bandwidth: {}\n", num(p.gpu.hbm_bandwidth));
  o += fmt::format("  hbm_efficiency: {}\n", curve_yaml(p.gpu.hbm_efficiency));
  o += fmt::format("  kernel_launch: {}\n", num(p.gpu.kernel_launch));
  if (p.gpu.attention_efficiency > 0) {
    o += fmt::format("  attention_efficiency: {}\n", num(p.gpu.attention_efficiency));
  }
  if (p.gpu.grouped_gemm_efficiency != 1.0) {
    o += fmt::format("  grouped_gemm_efficiency: {}\n", num(p.gpu.grouped_gemm_efficiency));
  }
  o += fmt::format("node:\n  gpus_per_node: {}\n", p.gpus_per_node);
  if (p.nics_per_node != 1) o += fmt::format("  nics_per_node: {}\n", p.nics_per_node);
  if (p.gpus_per_host > 0) o += fmt::format("  gpus_per_host: {}\n", p.gpus_per_host);
  if (!p.rdma_nics) o += "  rdma_nics: false\n";
  o += fmt::format("links:\n  intra_node: {}\n  inter_node: {}\n", hockney_yaml(p.intra_node),
                   hockney_yaml(p.inter_node));
  if (p.host_link) o += fmt::format("  host_link: {}\n", hockney_yaml(*p.host_link));
  o += fmt::format("collectives:\n  all_reduce: {{algorithm: {}}}\n", algorithm_name(p.all_reduce));
  if (!p.fitted.empty()) {
    o += "  fitted:\n";
    for (const auto& [c, tiers] : p.fitted) {
      o += fmt::format("    {}:\n", c);
      for (const auto& [t, h] : tiers)
        o += fmt::format("      {}: {}\n", t, hockney_yaml(h));
    }
  }
  o += fmt::format("interference: {}\n", num(p.interference));
  if (p.framework.op_overhead != 0.0 || p.framework.tp_overlap_sm_fraction != 0.0) {
    o += fmt::format("framework:\n  op_overhead: {}\n", num(p.framework.op_overhead));
    if (p.framework.attention_launches != 1.0 || p.framework.mlp_launches != 1.0) {
      o += fmt::format("  attention_launches: {}\n  mlp_launches: {}\n",
                       num(p.framework.attention_launches), num(p.framework.mlp_launches));
    }
    if (p.framework.grouped_gemm_per_expert) o += "  grouped_gemm_per_expert: true\n";
    if (p.framework.tp_overlap_sm_fraction != 0.0) {
      o += fmt::format("  tp_overlap_sm_fraction: {}\n", num(p.framework.tp_overlap_sm_fraction));
    }
  }
  if (p.memory.reserved_bytes != 0.0 || p.memory.fragmentation != 0.0) {
    o += fmt::format("memory:\n  reserved_bytes: {}\n  fragmentation: {}\n",
                     num(p.memory.reserved_bytes), num(p.memory.fragmentation));
  }
  if (!p.samples.empty()) o += fmt::format("samples: {}\n", quote(p.samples));
  return o;
}

void save_profile(const HardwareProfile& p, const std::string& path) {
  core::write_file_atomically(path, to_yaml(p));
}

}  // namespace pipesim::hardware
