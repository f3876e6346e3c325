#include "pipesim/hardware/collectives.hpp"

#include <cmath>

namespace pipesim::hardware {
namespace {

CommTime make(double latency, double bandwidth, bool inter) {
  CommTime t;
  t.latency = core::Seconds(latency);
  (inter ? t.inter : t.intra) = core::Seconds(bandwidth);
  return t;
}

}  // namespace

CommTime p2p_time(const Hockney& link, core::Bytes n, bool inter) {
  return make(link.alpha, n.value / link.effective_beta(), inter);  // [H94]
}

CommTime ring_all_reduce(const Hockney& link, int ranks, core::Bytes n, bool inter) {
  if (ranks <= 1) return {};
  const double r = ranks;
  return make(2 * (r - 1) * link.alpha, 2 * (r - 1) / r * n.value / link.effective_beta(),
              inter);  // [T05]
}

CommTime rabenseifner_all_reduce(const Hockney& link, int ranks, core::Bytes n, bool inter) {
  if (ranks <= 1) return {};
  const double r = ranks;
  return make(2 * std::ceil(std::log2(r)) * link.alpha,
              2 * (r - 1) / r * n.value / link.effective_beta(),
              inter);  // [T05]
}

CommTime hierarchical_all_reduce(const Hockney& intra, const Hockney& inter, int per_node,
                                 int nodes, core::Bytes n) {
  // [J18]: reduce-scatter in the node, all-reduce of n/g across nodes, all-gather in the node.
  const double g = per_node;
  CommTime t;
  if (per_node > 1) {
    const double phase_latency = (g - 1) * intra.alpha;
    const double phase_bw = (g - 1) / g * n.value / intra.effective_beta();
    t.latency = core::Seconds(2 * phase_latency);
    t.intra = core::Seconds(2 * phase_bw);
  }
  const CommTime across = ring_all_reduce(inter, nodes, n / g, true);
  t.latency += across.latency;
  t.inter = across.inter;
  return t;
}

namespace {

CommTime halve(CommTime t) {
  t.latency = t.latency / 2;
  t.intra = t.intra / 2;
  t.inter = t.inter / 2;
  return t;
}

// A measured α + n/β for this collective on the tier it spans, if the profile has one.
const Hockney* fitted_curve(const HardwareProfile& p, const char* collective, bool inter) {
  if (const auto it = p.fitted.find(collective); it != p.fitted.end()) {
    if (const auto fit = it->second.find(inter ? "inter_node" : "intra_node");
        fit != it->second.end()) {
      return &fit->second;
    }
  }
  return nullptr;
}

CommTime half_collective(const HardwareProfile& p, const char* collective, int ranks, int nodes,
                         core::Bytes n) {
  if (ranks <= 1) return {};
  if (const Hockney* fit = fitted_curve(p, collective, nodes > 1)) {
    return p2p_time(*fit, n, nodes > 1);
  }
  return halve(all_reduce_time(p, ranks, nodes, n));
}

}  // namespace

CommTime reduce_scatter_time(const HardwareProfile& p, int ranks, int nodes, core::Bytes n) {
  return half_collective(p, "reduce_scatter", ranks, nodes, n);
}

CommTime all_gather_time(const HardwareProfile& p, int ranks, int nodes, core::Bytes n) {
  return half_collective(p, "all_gather", ranks, nodes, n);
}

CommTime all_reduce_time(const HardwareProfile& p, int ranks, int nodes, core::Bytes n) {
  if (ranks <= 1) return {};
  const bool inter = nodes > 1;
  if (const auto it = p.fitted.find("all_reduce"); it != p.fitted.end()) {
    if (const auto fit = it->second.find(inter ? "inter_node" : "intra_node");
        fit != it->second.end()) {
      return p2p_time(fit->second, n, inter);  // a measured α + n/β for this collective
    }
  }
  const Hockney& link = inter ? p.inter_node : p.intra_node;
  switch (p.all_reduce) {
    case AllReduceAlgorithm::Ring:
      return ring_all_reduce(link, ranks, n, inter);
    case AllReduceAlgorithm::Rabenseifner:
      return rabenseifner_all_reduce(link, ranks, n, inter);
    case AllReduceAlgorithm::Hierarchical:
      if (!inter) return ring_all_reduce(link, ranks, n, false);
      return hierarchical_all_reduce(p.intra_node, p.inter_node, (ranks + nodes - 1) / nodes, nodes,
                                     n);
  }
  return {};
}

}  // namespace pipesim::hardware
