#pragma once
// Max-min fair sharing of resources among flows (docs/architecture.md §5), by progressive
// filling (Bertsekas & Gallager, "Data Networks", 2nd ed., 1992, §6.5.2). The model is SimGrid's
// linear max-min system (kernel/lmm: System, Constraint, Variable): resources are constraints
// with a capacity, flows are variables bounded by full speed (rate 1), and a flow that uses a
// resource with share s loads it with s · rate.
//
// Progressive filling: every flow not yet frozen speeds up at the same pace from 0; when a
// resource's load reaches its capacity, the flows on it freeze at the level reached (that
// resource is their bottleneck); when the level reaches 1, every flow still rising freezes at
// full speed. The result is the max-min fair allocation: no flow can get faster without making
// a flow that is no faster than it slower.
//
// The solver keeps its scratch between calls, so a caller that solves many times (the event
// engine, at every rate change) allocates nothing once warm. It sees only the resources its
// flows use: a system of a few flows over many resources costs what those flows touch.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace pipesim::sim {

struct ResourceUse {
  int resource = 0;    //!< index in [0, resources)
  double share = 1.0;  //!< the resource's capacity used at full speed (rate 1), (0, ∞)
};

class MaxMinSolver {
 public:
  //! Residual capacity treated as none left (relative to the resource's capacity): progressive
  //! filling subtracts, so an exactly saturated resource may keep a rounding error.
  static constexpr double kSaturated = 1e-12;

  //! `resources` resources of capacity 1 each.
  explicit MaxMinSolver(int resources = 0);
  //! One resource per entry, of that capacity (> 0, asserted).
  explicit MaxMinSolver(std::vector<double> capacities);

  int num_resources() const { return static_cast<int>(capacity_.size()); }

  //! Starts a new system without flows (the resources stay).
  void clear();
  //! Adds a flow with its uses (resources in range, shares > 0: asserted); it is flow
  //! number flows() − 1 of the rates solve() writes. The uses are not copied: they must stay
  //! valid until solve() returns.
  void add(std::span<const ResourceUse> uses);
  size_t flows() const { return flows_.size(); }

  //! The max-min fair rate of every flow added since clear(), in (0, 1], into `rates` (resized
  //! to flows()). Returns true when every flow runs at full speed (no resource limits any), the
  //! common case, found without filling: each resource's load at full speed is within its
  //! capacity.
  bool solve(std::vector<double>& rates);

 private:
  std::vector<double> capacity_, saturated_;
  std::vector<std::span<const ResourceUse>> flows_;
  // Scratch, per resource (load, residual, whether a flow touches it) and per flow (frozen).
  std::vector<double> load_, residual_;
  std::vector<std::uint8_t> touched_mark_, frozen_;
  std::vector<size_t> touched_;  // the resources the flows use, in first-use order
};

//! The max-min fair rates of `flows` on resources of the given capacities (one solve).
std::vector<double> max_min_rates(const std::vector<std::vector<ResourceUse>>& flows,
                                  std::vector<double> capacities);

}  // namespace pipesim::sim
