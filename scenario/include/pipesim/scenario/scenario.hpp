#pragma once
// One simulation from a typed request (a Scenario) to every figure it yields (a Result):
// generate the schedule, validate it, lower it to a task graph, run the engine, then compute
// the metrics and, in real-cost mode, memory, throughput and MFU. This is the one place that
// chains schedule → graph → engine → metrics; the CLI, sweeps, search, tests and benchmarks
// all call simulate().
//
// Without a model and hardware a scenario runs in unit-cost mode (durations t_F, t_B, t_W,
// t_comm in abstract slots); with both, in real-cost mode (durations and transfers from the
// model's FLOPs and bytes on the hardware profile).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipesim/core/budget.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/scenario/time_range.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/cost_model.hpp"
#include "pipesim/sim/memory.hpp"
#include "pipesim/sim/metrics.hpp"
#include "pipesim/sim/network.hpp"
#include "pipesim/sim/schedule.hpp"
#include "pipesim/sim/simulator.hpp"
#include "pipesim/sim/task_graph.hpp"
#include "pipesim/sim/time_breakdown.hpp"

namespace pipesim::scenario {

class OpPrecedence;

//! Real-cost mode's request. Active when a model or hardware is named.
struct PerfSpec {
  std::string model;     //!< option `model`: shipped name or YAML path
  std::string hardware;  //!< option `hardware`: shipped name or YAML path
  //! The loaded files, shared read-only between the scenarios of a sweep or search so each
  //! YAML file is read once (scenario::SpecCache). When null, simulate() loads `model` /
  //! `hardware` itself.
  std::shared_ptr<const models::ModelSpec> model_spec;
  std::shared_ptr<const hardware::HardwareProfile> hardware_profile;
  cost::TrainingSetup setup;  //!< B, W, t, recompute, partition, placement, precision, ...
  bool overlap_p2p = true;    //!< option `overlap_p2p`: on|off
  sim::GradSync grad_sync = sim::GradSync::Eager;  //!< option `grad_sync`
  //! option `optimizer_sync`: all-reduce (true) or post-validation (false); split-backward
  //! schedules only (sim::Schedule::global_step_sync).
  bool optimizer_sync_all_reduce = false;

  bool enabled() const { return !model.empty() || !hardware.empty(); }
};

//! One configuration to simulate: the schedule and its options, unit costs, and the real-cost
//! part. Built from option values by scenario::options() (options.hpp).
struct Scenario {
  std::string schedule = "1f1b";
  schedules::ScheduleParams params;
  sim::UnitCosts unit;  //!< unit-cost mode durations
  PerfSpec perf;        //!< real-cost mode
  //! Real-cost mode: record each worker's memory over time (WorkerMemory::timeline), e.g. for
  //! a Chrome trace's counter track. Off by default so sweeps stay lean.
  bool record_memory_timeline = false;
  //! Real-cost mode: also report it (`memory_timeline` per worker in JSON); implies recording.
  bool memory_timeline = false;
  //! Real-cost mode: a run that does not fit in memory returns without its replay (a search's
  //! table needs only its status): fits_memory false, the peaks (exact, track_memory_untimed),
  //! no timing metrics. Runs that fit, or whose ops are not all of positive finite time, are
  //! replayed as always.
  bool skip_replay_when_oom = false;
  //! The task budget: simulate() refuses a run whose estimated tasks (estimate.hpp) are above
  //! it before building anything (core::BudgetError).
  double max_tasks = core::kDefaultMaxTasks;
};

//! What real-cost mode adds to a run.
struct PerfResult {
  models::ModelSpec model;
  hardware::HardwareProfile hardware;
  std::vector<models::StageLayers> partition;
  std::vector<cost::StageTimes> stage_times;
  double model_params = 0;               //!< every parameter once
  double model_flops_per_iteration = 0;  //!< 3 × forward over B̂ samples, no recomputation
  int gpus = 0;                          //!< t · D · W
  double samples_per_iteration = 0;      //!< B̂ = B · N · W
  double throughput = 0;                 //!< samples per second: B̂ / iteration_time
  double tokens_per_second = 0;          //!< throughput · s
  //! Model FLOPs utilisation: model_flops_per_iteration / (iteration_time · P · peak), P = T·D·W
  //! (Chowdhery et al., PaLM, arXiv 2204.02311, Appendix B).
  double mfu = 0;
  double memory_capacity = 0;  //!< bytes per GPU
  double peak_memory = 0;      //!< max over workers
  //! The tensors' peak, max over workers, before the profile's memory overheads (what
  //! torch.cuda.max_memory_allocated reports: no CUDA context, no allocator slack).
  double peak_allocated = 0;
  bool fits_memory = false;  //!< peak_memory ≤ memory_capacity
  //! GPUs of the job in one NVLink domain (cost/domain_slice.hpp: given, or the scheduler's
  //! slice), out of the profile's gpus_per_node.
  int gpus_per_domain = 0;
  //! Mixture-of-experts models: the NVLink domains one expert-parallel group spans (the most
  //! over the stages), and whether that is more than its size needs (cost::ExpertLayout::
  //! straddles: its exchange crosses NICs a placement along the domains avoids); 0 when dense.
  int expert_group_domains = 0;
  bool expert_group_straddles = false;
  //! The iteration time's range from the shipped prediction ranges (prediction_range.hpp);
  //! none when the data dir ships none.
  std::optional<TimeRange> iteration_time_range;
  std::vector<sim::WorkerMemory> memory;  //!< per worker
  std::vector<sim::WorkerTime> time;      //!< per worker
};

struct Result {
  //! The scheme's options as the run used them (its defaults filled in); empty for a schedule
  //! that did not come from the registry (a schedule file).
  core::OptionValues scheme_options;
  sim::Schedule schedule;
  sim::TaskGraph graph;
  sim::Trace trace;
  sim::Metrics metrics;
  std::optional<PerfResult> perf;  //!< set in real-cost mode
};

//! Unit-cost mode: t_F, t_B and t_W are the costs of one stage's whole layer block, so a
//! schedule that splits a worker's layers into v chunks runs each chunk's ops in t/v; schedules
//! are compared at equal work per worker, as their papers' slot counts do. Communication and
//! the all-reduce are per transfer and per stage, unchanged. The costs of `schedule`'s ops.
sim::UnitCosts op_unit_costs(const sim::UnitCosts& costs, const sim::Schedule& schedule);

//! Throws core::ConfigError for bad parameters, an invalid schedule, or bad model/hardware,
//! and core::BudgetError for a run above spec.max_tasks (estimate.hpp), before building it.
Result simulate(const Scenario& spec);

//! simulate(spec) for a caller that already holds `schedule` =
//! schedules::make_schedule(spec.schedule, spec.params), e.g. a search that generated it once
//! for every layout, B and recomputation mode of the same parameters: the same checks, errors
//! and result, without generating it again.
Result simulate_generated(const Scenario& spec, sim::Schedule schedule);

//! A lower bound on the iteration time simulate_generated(spec, schedule) reports, without
//! lowering or replaying anything: the longest path through the run's ops, each taking its
//! kernels and its collectives' time alone (serialised after the kernels, or beside them; an
//! overlapped unit its two phases, each half's kernels beside the other half's collectives),
//! where a worker runs its ops in
//! program order and a micro-batch's ops follow its chain through the stages (forwards up,
//! backwards down), and each worker ends with its optimizer step. Kernels and collectives take
//! at least that long whatever the network does. An asynchronous schedule's iteration time is
//! a steady-state period: its bound is the stream time a worker must spend between the
//! completions the period is measured over (with a drain each run, the busiest worker's stream
//! time, or the longest path, over the iterations). 0 in unit-cost mode. Throws
//! core::ConfigError where simulate would refuse the run's costs.
double iteration_time_lower_bound(const Scenario& spec, const sim::Schedule& schedule);

//! What a run's costs tell before it is lowered or replayed.
struct RunBounds {
  double iteration_time = 0;  //!< iteration_time_lower_bound()
  //! Whether simulate_generated(spec, schedule) reports the run out of memory, known exactly
  //! (its peaks depend on the op order only: sim::track_memory_untimed) when spec skips the
  //! replay of an oom run, has no memory timeline or activation offload, and every op's kernels
  //! take positive, finite time; false otherwise.
  bool out_of_memory = false;
};

//! How far run_bounds follows the ops' precedence for the time bound: along every path between
//! workers (iteration_time_lower_bound), or along each worker's own stream only (its ops in
//! program order and its optimizer step; for an asynchronous schedule the streams' steady-state
//! figure): a weaker bound, at no more than the cost of weighing the ops.
enum class BoundDepth { Streams, Paths };

//! The time bound at `depth` and the memory verdict from one cost model; `precedence`: the
//! schedule's, built once for every run that shares the schedule (built here when null).
//! Throws core::ConfigError where simulate would refuse the run's costs or options.
RunBounds run_bounds(const Scenario& spec, const sim::Schedule& schedule,
                     const OpPrecedence* precedence = nullptr,
                     BoundDepth depth = BoundDepth::Paths);

//! The recomputation a run did: a schedule with R ops (Chimera's forward doubling) recomputes
//! everything it stored even under recompute none (TrainingCostModel prices it as full), so
//! every output names what ran.
models::Recompute recompute_used(const Scenario& spec, const sim::Schedule& schedule);

//! Same, for a schedule that did not come from the registry (e.g. a schedule file); `source`
//! names it in errors.
Result simulate_schedule(const Scenario& spec, sim::Schedule schedule, const std::string& source);

}  // namespace pipesim::scenario
