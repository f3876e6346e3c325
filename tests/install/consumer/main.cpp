// Simulates 1F1B with D = 4 stages, N = 8 micro-batches and unit costs t_F = 1, t_B = 2 through
// the installed public API, and checks the closed form: iteration time (N + D − 1)(t_F + t_B)
// = 33 and bubble ratio (D − 1)/(N + D − 1) = 3/11 (docs/architecture.md §3).

#include <cmath>
#include <cstdio>
#include <pipesim/pipesim.hpp>

int main() {
  using namespace pipesim;
  schedules::ScheduleParams params;
  params.stages = 4;
  params.micro_batches = 8;
  const sim::Schedule schedule = schedules::make_schedule("1f1b", params);
  const sim::TaskGraph graph = sim::build_task_graph(schedule);
  const sim::Trace trace = sim::simulate(graph, sim::UnitCostModel({1.0, 2.0, 0.0, 0.0}));
  const sim::Metrics metrics = sim::compute_metrics(schedule, graph, trace);

  std::printf("consumer: pipesim %.*s, 1f1b D=4 N=8: iteration_time %g, bubble_ratio %g\n",
              static_cast<int>(core::version.size()), core::version.data(),
              metrics.iteration_time, metrics.bubble_ratio);
  const bool ok = metrics.iteration_time == 33.0 &&
                  std::abs(metrics.bubble_ratio - 3.0 / 11.0) < 1e-12 &&
                  metrics.workers.size() == 4;
  if (!ok) std::fprintf(stderr, "consumer: expected iteration_time 33, bubble_ratio 3/11\n");
  return ok ? 0 : 1;
}
