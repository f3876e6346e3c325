#include "pipesim/cost/topology.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "pipesim/core/assert.hpp"
#include "pipesim/core/distinct.hpp"

namespace pipesim::cost {

Topology::Topology(const hardware::HardwareProfile& hw, const hardware::Placement& placement)
    : intra_(hw.intra_node), inter_(hw.inter_node), host_(hw.host_link), placement_(placement) {
  std::map<int, int> nics;
  nic_index_.resize(static_cast<size_t>(placement_.workers));
  for (int w = 0; w < placement_.workers; ++w) {
    const auto [it, inserted] = nics.emplace(placement_.nic(0, w), static_cast<int>(nics.size()));
    nic_index_[static_cast<size_t>(w)] = it->second;
  }
  nics_ = static_cast<int>(nics.size());
}

sim::Flow Topology::transfer(int from, int to, core::Bytes n) const {
  const bool inter = placement_.node(0, from) != placement_.node(0, to);
  const hardware::CommTime c = hardware::p2p_time(inter ? inter_ : intra_, n, inter);
  sim::Flow f;
  f.latency = c.latency.value;
  f.work = c.intra.value + c.inter.value;
  if (inter) {
    f.uses = {{nic_out(from), static_cast<double>(placement_.replicas_on_nic(from))},
              {nic_in(to), static_cast<double>(placement_.replicas_on_nic(to))}};
  } else {
    f.uses = {{port_out(from), 1.0}, {port_in(to), 1.0}};
  }
  return f;
}

sim::Flow Topology::host_copy(int w, core::Bytes n, bool to_host) const {
  PIPESIM_ASSERT(host_.has_value(), "a host copy without a host link");
  sim::Flow f;
  f.latency = host_->alpha;
  f.work = n.value / host_->effective_beta();
  f.uses = {{to_host ? host_out(w) : host_in(w), 1.0}};
  return f;
}

sim::Flow Topology::collective(const hardware::CommTime& time, std::span<const int> workers) const {
  sim::Flow f;
  f.latency = time.latency.value;
  f.work = time.intra.value + time.inter.value;
  if (f.work <= 0) return f;
  std::map<int, double> share;  // by resource, so the uses come in resource order
  auto use = [&share](int r, double x) { share[r] = std::max(share[r], x); };
  for (int w : workers) {
    if (time.intra.value > 0) {
      use(port_out(w), time.intra.value / f.work);
      use(port_in(w), time.intra.value / f.work);
    }
    if (time.inter.value > 0) {
      use(nic_out(w), time.inter.value / f.work);
      use(nic_in(w), time.inter.value / f.work);
    }
  }
  for (const auto& [r, x] : share)
    f.uses.push_back({r, x});
  return f;
}

int Topology::nodes_spanned(std::span<const int> workers) const {
  std::vector<int> spanned;
  for (int r = 0; r < placement_.replicas; ++r) {
    for (int w : workers) {
      for (int n = placement_.node(r, w); n <= placement_.last_node(r, w); ++n)
        spanned.push_back(n);
    }
  }
  return core::count_distinct(spanned);
}

}  // namespace pipesim::cost
