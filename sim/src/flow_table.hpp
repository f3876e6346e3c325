#pragma once
// The flows of a graph's Transfer, AllReduce and Collective tasks, interned: one record per
// distinct flow (NetworkModel::flow_key), and per task the index of its record. Both real-cost
// replays read them (engine.cpp, uncontended.cpp).

#include <cstdint>
#include <span>
#include <vector>

#include "pipesim/sim/network.hpp"

namespace pipesim::sim::detail {

//! A distinct flow: its latency, its work and its resource uses.
struct FlowShape {
  double latency = 0.0;
  double work = 0.0;
  std::uint32_t begin = 0, end = 0;  // its uses in FlowTable::uses()
};

class FlowTable {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;

  //! Asks `model` for the flow of every communication task, once per flow key.
  FlowTable(const TaskGraph& graph, const NetworkModel& model);

  //! The flow record of task t, kNone for a task that is not communication.
  std::uint32_t flow_of(TaskId t) const { return flow_[t]; }
  const FlowShape& shape(std::uint32_t flow) const { return shapes_[flow]; }
  std::span<const ResourceUse> uses(std::uint32_t flow) const {
    return {uses_.data() + shapes_[flow].begin, uses_.data() + shapes_[flow].end};
  }
  size_t num_flows() const { return shapes_.size(); }
  int num_resources() const { return resources_; }

 private:
  std::uint32_t intern(const Flow& f);

  int resources_ = 0;
  std::vector<std::uint32_t> flow_;  // by task
  std::vector<FlowShape> shapes_;
  std::vector<ResourceUse> uses_;
};

}  // namespace pipesim::sim::detail
