#include "flow_table.hpp"

#include <array>
#include <unordered_map>

#include "pipesim/core/assert.hpp"
#include "pipesim/core/huge_pages.hpp"
#include "task_kinds.hpp"

namespace pipesim::sim::detail {

FlowTable::FlowTable(const TaskGraph& graph, const NetworkModel& model)
    : resources_(model.num_resources()) {
  const size_t n = graph.num_tasks();
  core::reserve_huge(flow_, n);
  flow_.assign(n, kNone);
  // Keys repeat (a model's transfers between two workers share one): a small direct-mapped
  // cache in front of the map answers most lookups.
  std::unordered_map<std::uint64_t, std::uint32_t> by_key;
  struct Cached {
    std::uint64_t key = 0;
    std::uint32_t flow = kNone;
  };
  std::array<Cached, 1024> cache{};
  for (TaskId v = 0; v < n; ++v) {
    if (!is_comm(graph.task(v).kind)) continue;
    const std::uint64_t key = model.flow_key(graph, v);
    if (key == 0) {
      flow_[v] = intern(model.flow(graph, v));
      continue;
    }
    // Fibonacci hashing: keys often differ in high bits only (two workers packed in one).
    Cached& c = cache[(key * 0x9e3779b97f4a7c15ull) >> 54];
    if (c.key == key) {
      flow_[v] = c.flow;
      continue;
    }
    auto it = by_key.find(key);
    if (it == by_key.end()) it = by_key.emplace(key, intern(model.flow(graph, v))).first;
    c = Cached{key, it->second};
    flow_[v] = it->second;
  }
}

std::uint32_t FlowTable::intern(const Flow& f) {
  PIPESIM_ASSERT(f.latency >= 0.0 && f.work >= 0.0, "negative flow");
  FlowShape shape{f.latency, f.work, static_cast<std::uint32_t>(uses_.size()), 0};
  for (const ResourceUse& u : f.uses) {
    PIPESIM_ASSERT(u.resource >= 0 && u.resource < resources_ && u.share > 0, "bad resource use");
    uses_.push_back(u);
  }
  shape.end = static_cast<std::uint32_t>(uses_.size());
  shapes_.push_back(shape);
  return static_cast<std::uint32_t>(shapes_.size() - 1);
}

}  // namespace pipesim::sim::detail
