#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/transformer.hpp"
#include "pipesim/scenario/estimate.hpp"
#include "pipesim/scenario/names.hpp"
#include "pipesim/scenario/options.hpp"
#include "pipesim/scenario/prediction_range.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/memory.hpp"
#include "pipesim/sim/network.hpp"
#include "real_cost.hpp"

namespace pipesim::scenario {
namespace {

void check_unit_costs(const sim::UnitCosts& u) {
  auto fail = [](std::string_view option, const std::string& problem) {
    throw core::ConfigError::option(option, problem);
  };
  if (!(u.forward > 0.0)) fail("t_forward", fmt::format("must be > 0, got {}", u.forward));
  if (!(u.backward > 0.0)) fail("t_backward", fmt::format("must be > 0, got {}", u.backward));
  if (u.weight && !(*u.weight >= 0.0 && *u.weight <= u.backward)) {
    fail("t_weight", fmt::format("must be in [0, t_backward = {}], got {}", u.backward, *u.weight));
  }
  if (!(u.comm >= 0.0)) fail("t_comm", fmt::format("must be >= 0, got {}", u.comm));
  if (!(u.all_reduce >= 0.0)) {
    fail("t_allreduce", fmt::format("must be >= 0, got {}", u.all_reduce));
  }
}

// The registered schedules with the split-backward trait, for an error message.
std::string split_backward_schedules() {
  std::string split;
  for (const schedules::ScheduleEntry& e : schedules::all_schedules()) {
    if (e.traits.split_backward) split += (split.empty() ? "" : ", ") + e.name;
  }
  return split;
}

// t_weight prices the W op of a split backward; a schedule without one would ignore it.
void require_weight_applies(const sim::UnitCosts& u, const sim::Schedule& s) {
  if (!u.weight || s.split_backward) return;
  throw core::ConfigError::option(
      "t_weight", fmt::format("applies only to schedules that split the backward into I and W "
                              "({}), not {}",
                              split_backward_schedules(), s.name));
}

// Post-validation (Zero Bubble §4) is the split-backward schedules' way of stepping; the
// synchronous alternative is offered to them alone, by their trait.
void apply_optimizer_sync(bool all_reduce, sim::Schedule& schedule) {
  if (all_reduce && !schedule.split_backward) {
    throw core::ConfigError::option(
        "optimizer_sync", fmt::format("all-reduce applies only to schedules that split the "
                                      "backward ({}), not {}",
                                      split_backward_schedules(), schedule.name));
  }
  schedule.global_step_sync = all_reduce;
}

// Asynchronous schedules never flush (each update's sync gates the next one's backwards), so
// they take eager or blocking; blocking is theirs alone (a flushing schedule's holders wait for
// one another at the end anyway, and Chimera's would deadlock on its two pipelines).
void apply_grad_sync(sim::GradSync sync, sim::Schedule& schedule) {
  const bool async_ok = sync == sim::GradSync::Eager || sync == sim::GradSync::Blocking;
  if (schedule.asynchronous && !async_ok) {
    throw core::ConfigError::option(
        "grad_sync", fmt::format("must be eager or blocking for the asynchronous schedule {} "
                                 "(it synchronises every weight update), got {}",
                                 schedule.name, name_of(kGradSyncNames, sync)));
  }
  if (!schedule.asynchronous && sync == sim::GradSync::Blocking) {
    throw core::ConfigError::option("grad_sync",
                                    fmt::format("blocking applies to the asynchronous schedules "
                                                "(pipedream, pipedream-2bw), not {}",
                                                schedule.name));
  }
  schedule.blocking_sync = sync == sim::GradSync::Blocking;
}

// The replay names a deadlock itself (Trace::deadlock), so no separate cycle check runs before
// it: a cyclic order fails here, with the validator's words.
void require_completed(const sim::Trace& trace, const std::string& source) {
  if (!trace.completed) {
    throw core::ConfigError(source, "generated order",
                            trace.deadlock.empty() ? "cyclic order (deadlock)" : trace.deadlock);
  }
}

// track_memory_untimed() gives the replay's peaks only when every compute op takes positive,
// finite time.
bool compute_ops_take_time(const sim::TaskGraph& graph, const cost::TrainingCostModel& costs) {
  for (sim::TaskId t = 0; t < graph.num_tasks(); ++t) {
    if (!sim::is_compute(graph.task(t).kind)) continue;
    const double d = costs.duration(graph, t);
    if (!(d > 0.0 && std::isfinite(d))) return false;
  }
  return true;
}

// The mean over workers of the idle part of each one's window (time_breakdown), [0, 1].
double idle_share(const std::vector<sim::WorkerTime>& time) {
  double idle = 0, window = 0;
  for (const sim::WorkerTime& t : time) {
    idle += t.idle;
    window += t.compute + t.exposed_communication + t.idle;
  }
  return window > 0 ? idle / window : 0.0;
}

// Real-cost mode: model + hardware → durations and flows, the contention-aware engine, then
// memory and the time breakdown on top of the usual metrics.
void run_real(const Scenario& spec, Result& r, const std::string& source) {
  const PerfSpec& ps = spec.perf;
  if (ps.model.empty()) {
    throw core::ConfigError::option("model", "required with hardware (real-cost mode)");
  }
  if (ps.hardware.empty()) {
    throw core::ConfigError::option("hardware", "required with model (real-cost mode)");
  }
  PerfResult p;
  p.model = ps.model_spec ? *ps.model_spec : models::load_model(ps.model);
  p.hardware = ps.hardware_profile ? *ps.hardware_profile : hardware::load_profile(ps.hardware);
  const cost::TrainingCostModel costs(p.model, p.hardware, r.schedule, ps.setup);
  detail::check_overlapped_sync(ps, r.schedule);
  // Lowered with the ops' collectives (tensor parallelism's) as tasks of their own.
  r.graph = sim::build_task_graph(r.schedule, costs.lowering(), costs.offload_ops(),
                                  costs.grad_buckets());
  p.partition = costs.partition();
  p.stage_times = costs.stage_times();
  p.gpus = costs.gpus();
  p.gpus_per_domain = costs.placement().gpus_per_node;
  if (costs.experts().active()) {
    p.expert_group_domains = costs.experts().ep_nodes();
    p.expert_group_straddles = costs.experts().straddles();
  }
  // B̂ = B·N·W samples per iteration. iteration_time is per iteration (the steady-state period
  // for an asynchronous schedule), so throughput · iteration_time = B̂ always. B is the size
  // the ops run at: B/2 for Chimera's backward halving (schedules/src/chimera.cpp).
  p.samples_per_iteration = static_cast<double>(costs.micro_batch_size()) *
                            r.schedule.micro_batches * ps.setup.data_parallel;
  p.model = costs.model();  // precision as trained
  p.model_params = models::model_params(p.model);
  p.model_flops_per_iteration =
      models::model_flops_per_iteration(p.model, p.samples_per_iteration).value;
  p.memory_capacity = p.hardware.gpu.memory_bytes;
  // A run that does not fit needs no replay when the caller wants only its status; a cyclic
  // order is refused here as the replay would refuse it.
  // (Not with activation offload: its memory moves with the copies' replayed times.)
  if (spec.skip_replay_when_oom && !spec.memory_timeline && !costs.offload_ops().enabled &&
      compute_ops_take_time(r.graph, costs)) {
    detail::set_memory(p, sim::track_memory_untimed(r.schedule, costs.stage_memory()));
    if (!p.fits_memory) {
      sim::check_acyclic(r.graph, source, "generated order").require();
      r.perf = std::move(p);
      return;
    }
  }
  const sim::EngineOptions options{ps.overlap_p2p, ps.grad_sync, p.hardware.interference};
  r.trace = sim::simulate_network(r.graph, costs, costs, options);
  require_completed(r.trace, source);
  r.metrics = sim::compute_metrics(r.schedule, r.graph, r.trace);
  detail::set_memory(p, sim::track_memory(r.schedule, r.graph, r.trace, costs.stage_memory(),
                                          spec.record_memory_timeline || spec.memory_timeline));
  p.time = sim::time_breakdown(r.graph, r.trace);
  // Real cost splits every worker's window into compute, exposed communication and idle: the
  // bubbles are the idle part alone (exposed_comm_ratio is its own figure). Unit-cost mode keeps
  // the papers' 1 − Σ busy / (workers × span), whose communication is a delay, not a flow.
  r.metrics.bubble_ratio = idle_share(p.time);
  const double t = r.metrics.iteration_time;
  p.throughput = t > 0 ? p.samples_per_iteration / t : 0.0;
  p.tokens_per_second = p.throughput * p.model.sequence;
  p.mfu = t > 0 ? p.model_flops_per_iteration / (t * p.gpus * costs.peak_flops()) : 0.0;
  if (const std::optional<RangeTable>& table = shipped_range_table()) {
    p.iteration_time_range =
        time_range(t, run_class(p.model, p.hardware, p.gpus, ps.setup.context_parallel), *table);
  }
  r.perf = std::move(p);
}

// A figure that is not finite (durations so large that sums overflow) is never reported: the
// run is refused instead of printing inf, nan or null with status ok.
void require_finite(const Result& r, const std::string& source) {
  const auto check = [&](const char* field, double v) {
    if (!std::isfinite(v)) {
      throw core::ConfigError(source, field,
                              fmt::format("is {} (the durations are too large to add up); use "
                                          "smaller times",
                                          v));
    }
  };
  check("iteration_time", r.metrics.iteration_time);
  check("bubble_ratio", r.metrics.bubble_ratio);
  if (r.perf) {
    check("throughput", r.perf->throughput);
    check("mfu", r.perf->mfu);
    check("peak_memory", r.perf->peak_memory);
  }
}

}  // namespace

sim::UnitCosts op_unit_costs(const sim::UnitCosts& u, const sim::Schedule& s) {
  const double v = s.workers > 0 ? static_cast<double>(s.virtual_stages) / s.workers : 1.0;
  if (v == 1.0) return u;
  sim::UnitCosts c = u;
  c.forward /= v;
  c.backward /= v;
  if (u.weight) c.weight = *u.weight / v;
  return c;
}

models::Recompute recompute_used(const Scenario& spec, const sim::Schedule& schedule) {
  const models::Recompute given = spec.perf.setup.recompute;
  return schedule.recompute && given == models::Recompute::None ? models::Recompute::Full : given;
}

namespace {

// What simulate() checks before generating, in its order: bad parameters are named before the
// size (an invalid run is not "too large"), and the size before anything is allocated.
void check_before_generating(const Scenario& spec) {
  check_unit_costs(spec.unit);
  schedules::check_params(spec.schedule, spec.params).require();
  check_run_budget(spec);
}

// The rest of simulate() once the registry's schedule is at hand.
Result simulate_registered(const Scenario& spec, sim::Schedule schedule) {
  Result r =
      simulate_schedule(spec, std::move(schedule), fmt::format("schedule {}", spec.schedule));
  r.scheme_options = schedules::resolve(spec.schedule, spec.params).options;
  return r;
}

}  // namespace

Result simulate(const Scenario& spec) {
  check_before_generating(spec);
  return simulate_registered(spec, schedules::make_schedule(spec.schedule, spec.params));
}

Result simulate_generated(const Scenario& spec, sim::Schedule schedule) {
  check_before_generating(spec);
  return simulate_registered(spec, std::move(schedule));
}

Result simulate_schedule(const Scenario& spec, sim::Schedule schedule, const std::string& source) {
  check_unit_costs(spec.unit);
  Result r;
  r.schedule = std::move(schedule);
  if (spec.perf.enabled()) {
    apply_grad_sync(spec.perf.grad_sync, r.schedule);
    apply_optimizer_sync(spec.perf.optimizer_sync_all_reduce, r.schedule);
  }
  sim::check_structure(r.schedule, source, "generated order").require();
  try {
    if (spec.memory_timeline && !spec.perf.enabled()) {
      throw core::ConfigError::option("memory_timeline",
                                      "needs real-cost mode (model and hardware)");
    }
    if (spec.perf.enabled()) {
      run_real(spec, r, source);  // lowers the schedule with the cost model's collectives
    } else {
      require_weight_applies(spec.unit, r.schedule);
      r.graph = sim::build_task_graph(r.schedule);
      r.trace = sim::simulate(r.graph, sim::UnitCostModel(op_unit_costs(spec.unit, r.schedule)));
      require_completed(r.trace, source);
      r.metrics = sim::compute_metrics(r.schedule, r.graph, r.trace);
    }
  } catch (const core::ConfigError&) {
    // A cyclic order is reported before any other problem, as when it was checked first.
    if (r.graph.num_tasks() == 0) r.graph = sim::build_task_graph(r.schedule);
    sim::check_acyclic(r.graph, source, "generated order").require();
    throw;
  }
  require_finite(r, source);
  return r;
}

namespace detail {

// Bucketed overlap starts each bucket inside the backward, which a flushed sync contradicts;
// the parameters' gather overlaps the next iteration's forward, which only a flushing schedule
// (one update per run) has.
void check_overlapped_sync(const PerfSpec& ps, const sim::Schedule& schedule) {
  if (ps.setup.overlap_grad_reduce && ps.grad_sync != sim::GradSync::Eager &&
      ps.grad_sync != sim::GradSync::Blocking) {
    throw core::ConfigError::option("overlap_grad_reduce",
                                    fmt::format("needs grad_sync eager (or blocking), got {}",
                                                name_of(kGradSyncNames, ps.grad_sync)));
  }
  if (ps.setup.overlap_param_gather && schedule.asynchronous) {
    throw core::ConfigError::option(
        "overlap_param_gather",
        fmt::format("applies to flushing schedules, not the asynchronous {}", schedule.name));
  }
}

namespace {

double highest_peak(const std::vector<sim::WorkerMemory>& memory) {
  double peak = 0.0;
  for (const sim::WorkerMemory& m : memory)
    peak = std::max(peak, m.peak);
  return peak;
}

}  // namespace

double peak_with_overheads(std::vector<sim::WorkerMemory>& memory,
                           const hardware::MemoryOverhead& overhead) {
  cost::apply_memory_overheads(memory, overhead);
  return highest_peak(memory);
}

void set_memory(PerfResult& p, std::vector<sim::WorkerMemory> memory) {
  p.peak_allocated = highest_peak(memory);
  p.peak_memory = peak_with_overheads(memory, p.hardware.memory);
  p.memory = std::move(memory);
  p.fits_memory = p.peak_memory <= p.memory_capacity;
}

}  // namespace detail

}  // namespace pipesim::scenario
