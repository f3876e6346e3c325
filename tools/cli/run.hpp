#pragma once
// One simulation from a user's request to its metrics: generate, validate, lower, simulate.
// Without --model/--hardware it runs in unit-cost mode; with both, in real-cost mode.

#include <optional>
#include <string>
#include <vector>

#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/cost_model.hpp"
#include "pipesim/sim/memory.hpp"
#include "pipesim/sim/metrics.hpp"
#include "pipesim/sim/schedule.hpp"
#include "pipesim/sim/simulator.hpp"
#include "pipesim/sim/task_graph.hpp"
#include "pipesim/sim/time_breakdown.hpp"

namespace pipesim::cli {

//! Real-cost mode's request (DESIGN.md §4–§6). Active when a model or hardware is named.
struct PerfSpec {
  std::string model;             //!< --model: shipped name or YAML path
  std::string hardware;          //!< --hardware: shipped name or YAML path
  cost::TrainingSetup setup;     //!< B, W, recompute, partition, placement, bytes per param
  bool overlap_p2p = true;       //!< --overlap-p2p on|off
  bool flush_grad_sync = false;  //!< --grad-sync flush (vs eager)

  bool enabled() const { return !model.empty() || !hardware.empty(); }
};

struct RunSpec {
  std::string schedule = "1f1b";
  schedules::ScheduleParams params;
  sim::UnitCosts unit;  //!< unit-cost mode durations
  PerfSpec perf;        //!< real-cost mode
  //! Real-cost mode: record each worker's memory over time (WorkerMemory::timeline), e.g. for
  //! --trace's counter track. Off by default so sweeps stay lean.
  bool record_memory_timeline = false;
  //! Real-cost mode: also report it (`memory_timeline` per worker in JSON); implies recording.
  bool memory_timeline = false;
};

//! What real-cost mode adds to a run.
struct PerfResult {
  models::ModelSpec model;
  hardware::HardwareProfile hardware;
  std::vector<models::StageLayers> partition;
  std::vector<cost::StageTimes> stage_times;
  double model_params = 0;               //!< every parameter once
  double model_flops_per_iteration = 0;  //!< 3 × forward over B̂ samples, no recomputation
  double samples_per_iteration = 0;      //!< B̂ = B · N · W
  double throughput = 0;                 //!< samples per second: B̂ / iteration_time
  double tokens_per_second = 0;          //!< throughput · s
  //! Model FLOPs utilisation: model_flops_per_iteration / (iteration_time · P · peak), P = D·W
  //! (Chowdhery et al., PaLM, arXiv 2204.02311, Appendix B).
  double mfu = 0;
  double memory_capacity = 0;             //!< bytes per GPU
  double peak_memory = 0;                 //!< max over workers
  bool fits_memory = false;               //!< peak_memory ≤ memory_capacity
  std::vector<sim::WorkerMemory> memory;  //!< per worker
  std::vector<sim::WorkerTime> time;      //!< per worker
};

struct RunResult {
  sim::Schedule schedule;
  sim::TaskGraph graph;
  sim::Trace trace;
  sim::Metrics metrics;
  std::optional<PerfResult> perf;  //!< set in real-cost mode
};

//! Throws core::ConfigError for bad parameters, an invalid schedule, or bad model/hardware.
RunResult run(const RunSpec& spec);

//! Same, for a schedule that did not come from the registry (e.g. --schedule-file); `source`
//! names it in errors.
RunResult run_schedule(const RunSpec& spec, sim::Schedule schedule, const std::string& source);

}  // namespace pipesim::cli
