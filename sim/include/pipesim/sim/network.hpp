#pragma once
// Real-cost mode's event engine (docs/architecture.md §5): compute streams as in simulate(), plus
// communication that contends for shared resources.
//
// Every Transfer, AllReduce and Collective task is a flow: a latency (α terms, never slowed),
// then `work` seconds of data movement at full speed. Flows use resources — a worker's send and
// receive engines (its link ports), a node's NIC — each of capacity 1. While several flows share
// a resource their speeds are max-min fair (max_min.hpp): every flow runs as fast as it can
// unless a resource it uses is saturated, and a saturated resource is split evenly among flows
// not limited elsewhere. So two equal transfers on one link each take twice as long as alone,
// and p2p contends with all-reduce and with the tensor-parallel collectives of the ops. A flow's
// `share` of a resource is the fraction of it the flow uses at full speed.
//
// Compute tasks (and the optimizer step) keep their CostModel duration, slowed by the
// interference factor while a gradient all-reduce runs on their worker (the rate
// 1 − interference); an op's own Collective task does not slow it (the profile's factor is
// measured for data-parallel syncs). A serialised Collective holds its worker's stream like a
// blocking send; an overlapped one holds none (lowering.hpp, OpCollectives).

#include <cstdint>
#include <vector>

#include "pipesim/sim/cost_model.hpp"
#include "pipesim/sim/max_min.hpp"
#include "pipesim/sim/simulator.hpp"
#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim {

struct Flow {
  double latency = 0.0;  //!< seconds before data moves
  double work = 0.0;     //!< seconds of data movement when alone at full speed
  std::vector<ResourceUse> uses;
};

class NetworkModel {
 public:
  virtual ~NetworkModel() = default;
  virtual int num_resources() const = 0;
  //! The flow of a Transfer, AllReduce or Collective task.
  virtual Flow flow(const TaskGraph& graph, TaskId id) const = 0;
  //! Tasks with one same nonzero key have equal flows, so the engine asks flow() once per key
  //! and shares the result (a model's transfers often differ only by their two workers). 0,
  //! the default: no key, ask for this task alone.
  virtual std::uint64_t flow_key(const TaskGraph& /*graph*/, TaskId /*id*/) const { return 0; }
};

//! When a stage's gradient all-reduce may start (real-cost mode; option `grad_sync`).
enum class GradSync : std::uint8_t {
  //! Eagerly, once the stage's last backward has ended on every worker holding it.
  Eager,
  //! After the flush: once every worker holding the stage has finished all its compute ops.
  Flush,
  //! Chimera's eager-sync-opt (Li & Hoefler SC'21 §3.4): a sync goes into the holders'
  //! bubbles where it fits there, eagerly elsewhere. Precisely: a first replay with Flush
  //! gives each worker's tail bubble (the run's last compute end minus the worker's); in stage
  //! order, a stage's sync is flushed iff its duration alone fits into the bubble left on every
  //! holder (which it then uses up), so it costs neither interference nor p2p bandwidth while
  //! compute runs; the others (Chimera: the stages of the workers at both ends, which compute
  //! until the end) are eager, hidden behind their holders' remaining compute.
  EagerOpt,
  //! Asynchronous schedules: eagerly, and the worker waits for it (Schedule::blocking_sync).
  Blocking,
};

struct EngineOptions {
  //! false: a transfer also holds its sender's compute stream (blocking send).
  bool overlap_p2p = true;
  //! Flush and EagerOpt apply to flushing schedules only: asynchronous ones gate the next
  //! update's backwards on each all-reduce (lowering.hpp), which a flush would deadlock.
  GradSync grad_sync = GradSync::Eager;
  //! Compute runs at 1 − interference while a gradient all-reduce is in progress on its worker.
  double interference = 0.0;
};

//! Runs every task; compute durations from `compute`, communication from `network`.
Trace simulate_network(const TaskGraph& graph, const CostModel& compute,
                       const NetworkModel& network, const EngineOptions& options);

}  // namespace pipesim::sim
