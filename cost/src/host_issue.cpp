#include "pipesim/cost/host_issue.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "pipesim/core/config_error.hpp"
#include "pipesim/core/word_list.hpp"

namespace pipesim::cost {
namespace {

// Which graph a kernel belongs to, by the layer list's names (models/layer_kernels.hpp); a
// quantizing cast carries its GEMM's name.
enum class Part { Attention, Mlp, Router, Experts };

bool starts_with(std::string_view name, std::string_view prefix) {
  return name.substr(0, prefix.size()) == prefix;
}

Part part_of(const std::string& name, bool moe_layer) {
  for (const char* p : {"moe_permute", "moe_unpermute", "expert_", "shared_"}) {
    if (starts_with(name, p)) return Part::Experts;
  }
  if (starts_with(name, "router")) return Part::Router;
  // A mixture-of-experts layer's pre-MLP norm runs with its router, its residual add after the
  // combine.
  if (starts_with(name, "ln2")) return moe_layer ? Part::Router : Part::Mlp;
  if (starts_with(name, "mlp_")) return moe_layer ? Part::Experts : Part::Mlp;
  for (const char* p : {"fc1", "fc2", "gelu", "swiglu"}) {
    if (starts_with(name, p)) return Part::Mlp;
  }
  return Part::Attention;
}

bool captured(Part p, const CudaGraphScopes& g) {
  if (g.full_iteration) return true;
  switch (p) {
    case Part::Attention:
      return g.attn;
    case Part::Mlp:
      return g.mlp;
    case Part::Router:
      return g.moe_router || g.moe;
    case Part::Experts:
      return g.moe;
  }
  return false;
}

}  // namespace

double host_stall(const std::vector<IssuedKernel>& layer, int layers, double dispatch) {
  if (!(dispatch > 0) || layers <= 0 || layer.empty()) return 0;
  double work = 0;
  for (const IssuedKernel& k : layer)
    work += k.seconds;
  // The layer's effect depends only on how far the GPU's queue runs ahead of the host (the
  // backlog), and that sequence is monotone: once a layer leaves the backlog where it found it,
  // or stalls nothing while the backlog grows, every later layer repeats it.
  double host = 0, gpu = 0, stall = 0, backlog = 0;
  for (int l = 0; l < layers; ++l) {
    const double start = gpu;
    for (const IssuedKernel& k : layer) {
      if (k.waits) host = std::max(host, gpu);
      host += k.dispatches * dispatch;
      gpu = std::max(gpu, host) + k.seconds;
    }
    const double step = std::max(0.0, gpu - start - work);
    const double next = gpu - host;
    stall += step;
    const bool fixed = std::abs(next - backlog) <= 1e-12 * std::max(1.0, std::abs(backlog));
    if (l > 0 && fixed) return stall + step * (layers - 1 - l);
    if (l > 0 && step == 0 && next >= backlog) return stall;
    backlog = next;
  }
  return stall;
}

CudaGraphScopes parse_cuda_graph_scopes(const std::string& text, const std::string& field) {
  CudaGraphScopes out;
  if (text == "none" || text.empty()) return out;
  if (text == "partial") {
    out.attn = out.mlp = out.moe_router = out.moe_preprocess = true;
    return out;
  }
  if (text == "full") {
    out.full_iteration = true;
    return out;
  }
  constexpr std::pair<const char*, bool CudaGraphScopes::*> kScopes[] = {
      {"attn", &CudaGraphScopes::attn},
      {"mlp", &CudaGraphScopes::mlp},
      {"moe", &CudaGraphScopes::moe},
      {"moe_router", &CudaGraphScopes::moe_router},
      {"moe_preprocess", &CudaGraphScopes::moe_preprocess},
      {"full_iteration", &CudaGraphScopes::full_iteration}};
  for (const std::string& word : core::split_words(text, ",")) {
    const auto* it = std::find_if(std::begin(kScopes), std::end(kScopes),
                                  [&](const auto& s) { return word == s.first; });
    if (it == std::end(kScopes)) {
      throw core::ConfigError::option(
          field, fmt::format("unknown scope '{}'; allowed: none, partial, full, or "
                             "comma-separated attn, mlp, moe, moe_router, moe_preprocess, "
                             "full_iteration",
                             word));
    }
    out.*(it->second) = true;
  }
  return out;
}

std::vector<IssuedKernel> issued_kernels(const models::KernelList& kernels,
                                         const std::vector<double>& seconds,
                                         const hardware::FrameworkOverhead& framework,
                                         const CudaGraphScopes& graphs, bool dispatch_syncs) {
  const bool moe_layer = std::any_of(kernels.begin(), kernels.end(),
                                     [](const auto& k) { return starts_with(k.name, "router"); });
  std::vector<IssuedKernel> out;
  out.reserve(kernels.size());
  bool previous_captured = false;
  Part previous = Part::Attention;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Part part = part_of(kernels[i].name, moe_layer);
    const bool in_graph = captured(part, graphs);
    IssuedKernel k;
    k.seconds = seconds[i];
    // One graph replay per captured run; nothing per layer inside a whole-iteration graph.
    const double eager =
        part == Part::Attention ? framework.attention_launches : framework.mlp_launches;
    const bool replay = !graphs.full_iteration && !(previous_captured && previous == part);
    // A grouped GEMM the framework issues expert by expert costs its dispatches per expert.
    const double issues = framework.grouped_gemm_per_expert && kernels[i].grouped_gemm()
                              ? static_cast<double>(kernels[i].batch)
                              : 1.0;
    k.dispatches = !in_graph ? eager * issues : replay ? 1.0 : 0.0;
    k.waits = dispatch_syncs && kernels[i].name == "moe_permute" && !in_graph;
    out.push_back(k);
    previous_captured = in_graph;
    previous = part;
  }
  return out;
}

}  // namespace pipesim::cost
