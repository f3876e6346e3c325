// Engine speed: generate, lower and simulate 1F1B at D = 64, N = 1024 (≈ 262k tasks).
// Target: at least 5 million tasks per second on one core, build included.
// Run: build/release/bench/pipesim_bench  (results/bench/README.md has the recorded figures)

#include <benchmark/benchmark.h>

#include <memory>

#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/schedules/registry.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/metrics.hpp"
#include "pipesim/sim/network.hpp"
#include "pipesim/sim/simulator.hpp"

namespace {

using namespace pipesim;

schedules::ScheduleParams params_1f1b() {
  schedules::ScheduleParams p;
  p.stages = 64;
  p.micro_batches = 1024;
  return p;
}

void report_tasks(benchmark::State& state, size_t tasks) {
  state.counters["tasks"] = static_cast<double>(tasks);
  state.counters["tasks_per_second"] =
      benchmark::Counter(static_cast<double>(tasks), benchmark::Counter::kIsIterationInvariantRate);
}

// Generator + validation + lowering + engine + metrics: scenario::simulate, what `pipesim
// simulate` and every sweep point do per configuration.
void BM_BuildAndSimulate1F1B(benchmark::State& state) {
  size_t tasks = 0;
  scenario::Scenario unit;
  unit.schedule = "1f1b";
  unit.params = params_1f1b();
  unit.unit = {.forward = 1, .backward = 2, .weight = std::nullopt, .comm = 0.1};  // no W
  for (auto _ : state) {
    const scenario::Result r = scenario::simulate(unit);
    benchmark::DoNotOptimize(r.metrics.iteration_time);
    tasks = r.graph.num_tasks();
  }
  report_tasks(state, tasks);
}
BENCHMARK(BM_BuildAndSimulate1F1B)->Unit(benchmark::kMillisecond);

// The event engine alone, on a prebuilt graph.
void BM_Simulate1F1B(benchmark::State& state) {
  const sim::Schedule s = schedules::make_schedule("1f1b", params_1f1b());
  const sim::TaskGraph g = sim::build_task_graph(s);
  const sim::UnitCostModel costs(
      {.forward = 1, .backward = 2, .weight = std::nullopt, .comm = 0.1});
  for (auto _ : state)
    benchmark::DoNotOptimize(sim::simulate(g, costs).completed);
  report_tasks(state, g.num_tasks());
}
BENCHMARK(BM_Simulate1F1B)->Unit(benchmark::kMillisecond);

// The validator (structure + cycle check), which every CLI run pays as well.
void BM_Validate1F1B(benchmark::State& state) {
  const sim::Schedule s = schedules::make_schedule("1f1b", params_1f1b());
  for (auto _ : state)
    benchmark::DoNotOptimize(sim::validate(s).ok());
  report_tasks(state, sim::build_task_graph(s).num_tasks());
}
BENCHMARK(BM_Validate1F1B)->Unit(benchmark::kMillisecond);

// Real-cost mode's engine (max-min fair flows, interference) on the same graph: gpt3-175b
// (96 layers on 64 stages) on h100-dgx, W = 4.
void BM_SimulateRealCost1F1B(benchmark::State& state) {
  const sim::Schedule s = schedules::make_schedule("1f1b", params_1f1b());
  const sim::TaskGraph g = sim::build_task_graph(s);
  cost::TrainingSetup setup;
  setup.data_parallel = 4;
  const cost::TrainingCostModel costs(models::load_model("gpt3-175b"),
                                      hardware::load_profile("h100-dgx"), s, setup);
  for (auto _ : state) {
    benchmark::DoNotOptimize(sim::simulate_network(g, costs, costs, {}).completed);
  }
  report_tasks(state, g.num_tasks());
}
BENCHMARK(BM_SimulateRealCost1F1B)->Unit(benchmark::kMillisecond);

// A whole real-cost scenario (schedule, costs, engine, memory, throughput and MFU) with the
// model and hardware loaded once and shared, as sweeps and search run it.
void BM_ScenarioRealCost1F1B(benchmark::State& state) {
  scenario::Scenario real;
  real.schedule = "1f1b";
  real.params = params_1f1b();
  real.perf.model = "gpt3-175b";
  real.perf.hardware = "h100-dgx";
  real.perf.model_spec = std::make_shared<const models::ModelSpec>(models::load_model("gpt3-175b"));
  real.perf.hardware_profile =
      std::make_shared<const hardware::HardwareProfile>(hardware::load_profile("h100-dgx"));
  real.perf.setup.data_parallel = 4;
  size_t tasks = 0;
  for (auto _ : state) {
    const scenario::Result r = scenario::simulate(real);
    benchmark::DoNotOptimize(r.perf->throughput);
    tasks = r.graph.num_tasks();
  }
  report_tasks(state, tasks);
}
BENCHMARK(BM_ScenarioRealCost1F1B)->Unit(benchmark::kMillisecond);

}  // namespace
