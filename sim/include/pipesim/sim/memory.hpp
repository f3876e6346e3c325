#pragma once
// Memory per worker over time (docs/architecture.md §5): static bytes (weights × versions,
// gradients, optimizer state of every (pipeline, stage) the worker holds) plus activations
// allocated when a forward starts and freed when its backward ends (W for a split backward),
// recomputation buffers while a backward recomputes, and a workspace while any compute op runs.
// With activation offload the offloaded part of a micro-batch's activations leaves the device
// when its Offload copy completes and returns when its Reload copy starts (the buffer is
// allocated before the copy writes it).

#include <vector>

#include "pipesim/sim/schedule.hpp"
#include "pipesim/sim/simulator.hpp"
#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim {

//! Bytes of one (virtual) stage; the same for every pipeline.
struct StageMemory {
  double weights = 0.0;  //!< one version of the stage's weights
  double gradients = 0.0;
  double optimizer = 0.0;    //!< optimizer state (e.g. fp32 master weights, Adam m and v)
  double activations = 0.0;  //!< kept per micro-batch from F start to B (or W) end
  //! Recomputed activations held while a backward recomputes: from R start (or, for a schedule
  //! without R ops, the backward's start) to the backward's end. Counted as activations.
  double recompute = 0.0;
  double workspace = 0.0;  //!< held while any compute op of the stage runs ("other")
  //! Of `activations`, the bytes an Offload task moves to host memory (activation offload):
  //! released when the offload ends, held again from the start of its Reload.
  double offloaded = 0.0;
};

struct MemoryBreakdown {
  double weights = 0.0, gradients = 0.0, optimizer = 0.0, activations = 0.0, other = 0.0;
  double total() const { return weights + gradients + optimizer + activations + other; }
};

//! One step of a worker's memory over time: from `time` on it holds `bytes` in total.
struct MemorySample {
  double time = 0.0;
  double bytes = 0.0;
};

struct WorkerMemory {
  MemoryBreakdown static_memory;  //!< weights × versions + gradients + optimizer
  MemoryBreakdown at_peak;        //!< the breakdown when the total peaked (first time)
  double peak = 0.0;
  double peak_time = 0.0;
  //! Lowest total held over the run, i.e. after all events of an instant (a release and an
  //! allocation at the same time do not dip); never below static when sound.
  double minimum = 0.0;
  double final = 0.0;  //!< total after the last event
  //! With `record_timeline`: the total at every change. The first sample is the static level
  //! at time 0 (before any op); then one sample per instant where the total changed, holding
  //! the value after every event at that instant (so a worker whose first op starts at 0 has a
  //! second sample at time 0). Its max is `peak`, its min `minimum`, its last value `final`.
  std::vector<MemorySample> timeline;
};

//! `stages[s]`: bytes of virtual stage s (size schedule.virtual_stages).
std::vector<WorkerMemory> track_memory(const Schedule& schedule, const TaskGraph& graph,
                                       const Trace& trace, const std::vector<StageMemory>& stages,
                                       bool record_timeline = false);

//! track_memory() without a replay or a task graph, for a run whose compute ops all take
//! positive time: a worker's memory changes only at its own compute ops (its program, which
//! lowering turns into its compute tasks one for one), which run one after another in program
//! order, so its events come in the same order whatever the times (an op's releases, then the
//! next op's allocations), and every peak and `at_peak` is the replay's, to the bit. Minimum,
//! final and peak times are not a replay's; no timeline. Not for a run with activation offload
//! (its copies' times are the replay's).
std::vector<WorkerMemory> track_memory_untimed(const Schedule& schedule,
                                               const std::vector<StageMemory>& stages);

}  // namespace pipesim::sim
