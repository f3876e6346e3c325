#include "pipesim/scenario/memory_screen.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/expert_parallel.hpp"
#include "pipesim/cost/sharded_data_parallel.hpp"
#include "pipesim/cost/stage_memory.hpp"
#include "pipesim/cost/static_memory.hpp"
#include "pipesim/cost/training_setup.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/models/partition.hpp"
#include "pipesim/scenario/estimate.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/lowering.hpp"

namespace pipesim::scenario {
namespace {

// The cache key of a schedule's parameters: its name, D, N and each scheme option as text.
std::string profile_key(const Scenario& s) {
  std::string key = fmt::format("{}|{}|{}", s.schedule, s.params.stages, s.params.micro_batches);
  for (const auto& [name, value] : s.params.options.items()) {
    const core::OptionSpec* spec = schedules::scheme_option(name);
    key += fmt::format("|{}={}", name, spec != nullptr ? spec->format(value) : "?");
  }
  return key;
}

// A bound equal to the capacity in exact arithmetic may come out a few ulps above it, as the
// bound sums in another order than the tracker: only a margin above it counts.
constexpr double kMargin = 1e-9;

}  // namespace

ActivationProfile activation_profile(const sim::Schedule& schedule) {
  ActivationProfile p;
  const auto workers = static_cast<size_t>(schedule.workers);
  p.held.resize(workers);
  p.live.resize(workers);
  for (size_t pipe = 0; pipe < schedule.stage_worker.size(); ++pipe) {
    for (size_t s = 0; s < schedule.stage_worker[pipe].size(); ++s)
      p.held[static_cast<size_t>(schedule.stage_worker[pipe][s])].push_back(static_cast<int>(s));
  }
  const sim::OpKind release =
      schedule.split_backward ? sim::OpKind::BackwardWeight : sim::OpKind::Backward;
  const auto stages = static_cast<size_t>(schedule.virtual_stages);
  for (size_t w = 0; w < workers && w < schedule.program.size(); ++w) {
    const std::vector<sim::Op>& ops = schedule.program[w];
    // First the op after which the most sets are live, then the sets live there.
    int live = 0;
    int most = 0;
    size_t at = 0;
    for (size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].kind == sim::OpKind::Forward && ++live > most) {
        most = live;
        at = k + 1;
      } else if (ops[k].kind == release) {
        --live;
      }
    }
    std::vector<int> sets(stages, 0);
    for (size_t k = 0; k < at; ++k) {
      const auto s = static_cast<size_t>(ops[k].stage);
      if (ops[k].kind == sim::OpKind::Forward) ++sets[s];
      if (ops[k].kind == release) --sets[s];
    }
    for (size_t s = 0; s < stages; ++s) {
      if (sets[s] > 0) p.live[w].emplace_back(static_cast<int>(s), sets[s]);
    }
  }
  p.shape = schedule;
  p.shape.program.clear();
  p.shape.micro_batch_pipeline.clear();
  return p;
}

double peak_lower_bound(const ActivationProfile& profile,
                        const std::vector<sim::StageMemory>& stages,
                        const hardware::MemoryOverhead& overhead) {
  const sim::Schedule& shape = profile.shape;
  double peak = 0.0;
  for (size_t w = 0; w < profile.held.size(); ++w) {
    const int versions = shape.weight_versions.empty() ? 1 : shape.weight_versions[w];
    double tensors = 0.0;
    for (const int s : profile.held[w]) {
      const sim::StageMemory& m = stages[static_cast<size_t>(s)];
      tensors += m.weights * versions + m.gradients + m.optimizer;
    }
    for (const auto& [s, sets] : profile.live[w])
      tensors += sets * stages[static_cast<size_t>(s)].activations;
    peak = std::max(peak, tensors + overhead.reserved_bytes + overhead.fragmentation * tensors);
  }
  return peak;
}

std::vector<sim::StageMemory> stage_memory_lower_bound(const Scenario& s,
                                                       const sim::Schedule& schedule) {
  // The cost model's own steps (cost::TrainingCostModel): the model as trained, the setup the
  // ops run at (B / micro_batch_divisor), its checks, one context-parallel rank's model, the
  // partition of the virtual stages, each stage's parameters and bytes.
  const models::ModelSpec& model = *s.perf.model_spec;
  const hardware::HardwareProfile& hw = *s.perf.hardware_profile;
  const models::ModelSpec trained = cost::trained_model(model, s.perf.setup);
  cost::TrainingSetup setup = cost::resolved_setup(s.perf.setup, trained);
  const int divisor = std::max(1, schedule.micro_batch_divisor);
  if (setup.micro_batch_size % divisor != 0) {
    throw core::ConfigError::option("micro_batch_size", "not a multiple of the divisor");
  }
  setup.micro_batch_size /= divisor;
  cost::validate_setup(trained, hw, setup);
  const double elem = models::precision_bytes(trained.precision);
  if (setup.bytes_per_param > 0 && setup.bytes_per_param < 2 * elem) {
    throw core::ConfigError::option("bytes_per_param", "below weights + gradients");
  }
  const models::ModelSpec rank = cost::rank_model(trained, setup);
  if (rank.is_moe()) {
    (void)cost::ExpertLayout(
        rank, cost::job_hardware(hw, setup, cost::gpu_count(setup, schedule.workers)), setup,
        schedule.workers);
  }
  const std::vector<models::StageLayers> partition = models::partition_layers(
      rank, schedule.virtual_stages, setup.partition, setup.micro_batch_size);
  const std::vector<double> params = cost::stage_params(rank, partition, cost::layer_config(setup));
  // Unsharded: whatever the data-parallel ranks shard is left out below instead.
  const std::vector<double> shards(params.size(), 1.0);
  std::vector<sim::StageMemory> memory = cost::stage_memory(
      rank, setup, partition, params, shards, cost::setup_param_bytes(trained.precision, setup),
      recompute_used(s, schedule));
  // What the data-parallel ranks shard is left out too (a lower bound for any W); the units
  // held unsharded stay in the workspace.
  const cost::DataParallelSharding level = cost::sharding_of(setup);
  for (sim::StageMemory& m : memory) {
    if (level != cost::DataParallelSharding::None) m.optimizer = 0.0;
    if (cost::reduces_per_backward(level)) m.gradients = 0.0;
    if (cost::gathers_per_op(level)) m.weights = 0.0;
  }
  return memory;
}

std::optional<SweepRow> MemoryScreen::screen(const Scenario& s, const Point& point) {
  const std::shared_ptr<const GeneratedSchedule> g = generated(s);
  return g ? screen(s, point, *g) : std::nullopt;
}

Point MemoryScreen::used_inputs(const Scenario& s, const Point& point,
                                const GeneratedSchedule& generated) {
  Result r;
  r.schedule = generated.profile.shape;
  r.perf.emplace();
  r.scheme_options = schedules::resolve(s.schedule, s.params).options;
  return used_point(point, r);
}

SweepRow MemoryScreen::out_of_memory_row(const Scenario& s, const Point& point,
                                         const GeneratedSchedule& generated) {
  SweepRow row;
  row.inputs = used_inputs(s, point, generated);
  row.status.kind = Status::Kind::Oom;
  row.metrics.fits_memory = false;
  return row;
}

double MemoryScreen::peak_bound(const Scenario& s, const GeneratedSchedule& generated) {
  const PerfSpec& ps = s.perf;
  try {
    const ActivationProfile* p = &generated.profile;
    return peak_lower_bound(*p, stage_memory_lower_bound(s, p->shape), ps.hardware_profile->memory);
  } catch (const core::ConfigError&) {
    return 0.0;  // simulate() says why, in its own order
  }
}

bool MemoryScreen::exceeds(const Scenario& s, double bound) {
  const double capacity = s.perf.hardware_profile->gpu.memory_bytes;
  return capacity > 0.0 && bound * (1.0 - kMargin) > capacity;
}

bool MemoryScreen::exceeds(const Scenario& s, const GeneratedSchedule& generated) {
  return exceeds(s, peak_bound(s, generated));
}

std::optional<SweepRow> MemoryScreen::screen(const Scenario& s, const Point& point,
                                             const GeneratedSchedule& generated) {
  if (!exceeds(s, generated)) return std::nullopt;
  return out_of_memory_row(s, point, generated);
}

std::shared_ptr<const GeneratedSchedule> MemoryScreen::generated(const Scenario& s) {
  const PerfSpec& ps = s.perf;
  // Only what the bound models; anything else is simulated as usual.
  const bool modelled = ps.enabled() && ps.model_spec && ps.hardware_profile &&
                        ps.grad_sync == sim::GradSync::Eager && !ps.optimizer_sync_all_reduce &&
                        !(ps.setup.offload > 0.0) && ps.setup.layout.empty() &&
                        !s.memory_timeline && !s.record_memory_timeline;
  if (!modelled || !schedules::check_params(s.schedule, s.params).ok()) return nullptr;
  try {
    // The run's own budget, before a schedule of its size is generated (as simulate() does).
    check_run_budget(s);
  } catch (const core::ConfigError&) {
    return nullptr;
  }
  std::shared_ptr<Generation> entry;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = generated_[profile_key(s)];
    if (!slot) slot = std::make_shared<Generation>();
    entry = slot;
  }
  // Generated once, outside the map's lock: the candidates of a parameter set come one after
  // another, so the threads often ask for the same one at once, and the later ones wait here.
  std::call_once(entry->once, [&] {
    try {
      sim::Schedule schedule = schedules::make_schedule(s.schedule, s.params);
      if (sim::validate(schedule).ok()) {
        ActivationProfile profile = activation_profile(schedule);
        OpPrecedence precedence(schedule);
        entry->schedule = std::make_shared<const GeneratedSchedule>(
            GeneratedSchedule{std::move(schedule), std::move(profile), std::move(precedence)});
      }
    } catch (const core::ConfigError&) {
      // stays null: simulate() reports it
    }
  });
  return entry->schedule;
}

}  // namespace pipesim::scenario
