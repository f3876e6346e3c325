#pragma once
// Where a training run's communication goes (docs/architecture.md §5): the placement of replica
// 0's workers on GPUs, nodes and NICs, the resources their flows share, and those flows.
//
// Resources: per worker a send and a receive engine (its GPU's intra-node link ports), per NIC
// an outgoing and an incoming direction (inter-node), per worker a device-to-host and a
// host-to-device direction of its GPU's host link (activation offload), each of capacity 1.
// Data-parallel replicas run the same schedule at the same time, so one replica is simulated: a
// transfer leaving a node through a NIC shares it with the copies of that transfer in the other
// replicas served by the same NIC (weight = Placement::replicas_on_nic). The t GPUs of a worker act
// in lockstep, each on its own slice, so its first GPU stands for the group.

#include <optional>
#include <span>
#include <vector>

#include "pipesim/core/units.hpp"
#include "pipesim/hardware/collectives.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/sim/network.hpp"

namespace pipesim::cost {

class Topology {
 public:
  Topology(const hardware::HardwareProfile& hw, const hardware::Placement& placement);

  const hardware::Placement& placement() const { return placement_; }
  int num_resources() const { return 4 * placement_.workers + 2 * nics_; }

  //! A p2p message of n bytes from worker `from` to worker `to` (Hockney on the tier their GPUs
  //! share): on the sender's out-port and the receiver's in-port within a node, on the sender's
  //! NIC out and the receiver's NIC in across nodes, weighted by the replicas behind each NIC.
  sim::Flow transfer(int from, int to, core::Bytes n) const;
  //! A collective among `workers` that takes `time` alone: its α terms are the flow's latency,
  //! its bandwidth terms its work, which loads every worker's ports in proportion to the
  //! intra-node term and its NIC directions in proportion to the inter-node term (one flow for
  //! the whole collective: its own phases never compete with one another).
  sim::Flow collective(const hardware::CommTime& time, std::span<const int> workers) const;
  //! A copy of n bytes between worker `w`'s GPU and host memory (activation offload):
  //! Hockney on the profile's host link, on the worker's device-to-host (`to_host`) or
  //! host-to-device resource, the two directions independent. Requires a host link.
  sim::Flow host_copy(int w, core::Bytes n, bool to_host) const;
  //! How many nodes the copies of `workers` in all replicas span.
  int nodes_spanned(std::span<const int> workers) const;

 private:
  int port_out(int w) const { return w; }
  int port_in(int w) const { return placement_.workers + w; }
  int nic_out(int w) const { return 2 * placement_.workers + nic_index_[static_cast<size_t>(w)]; }
  int nic_in(int w) const {
    return 2 * placement_.workers + nics_ + nic_index_[static_cast<size_t>(w)];
  }
  int host_out(int w) const { return 2 * placement_.workers + 2 * nics_ + w; }
  int host_in(int w) const { return 3 * placement_.workers + 2 * nics_ + w; }

  hardware::Hockney intra_, inter_;
  std::optional<hardware::Hockney> host_;
  hardware::Placement placement_;
  int nics_ = 0;
  std::vector<int> nic_index_;  //!< replica-0 worker → dense index of its NIC
};

}  // namespace pipesim::cost
