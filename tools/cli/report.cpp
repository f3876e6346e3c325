#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace pipesim::cli {
namespace {

int max_peak_activations(const sim::Metrics& m) {
  int peak = 0;
  for (const auto& w : m.workers) peak = std::max(peak, w.peak_activations);
  return peak;
}

// Per worker, its compute task ids in execution (start) order.
std::vector<std::vector<sim::TaskId>> compute_ops_by_worker(const RunResult& run) {
  std::vector<std::vector<sim::TaskId>> ops(static_cast<size_t>(run.graph.workers()));
  for (sim::TaskId t = 0; t < run.graph.num_tasks(); ++t) {
    const sim::Task& task = run.graph.task(t);
    if (sim::is_compute(task.kind)) ops[static_cast<size_t>(task.worker)].push_back(t);
  }
  for (auto& list : ops) {
    std::stable_sort(list.begin(), list.end(), [&](sim::TaskId a, sim::TaskId b) {
      return run.trace.timing[a].start < run.trace.timing[b].start;
    });
  }
  return ops;
}

}  // namespace

nlohmann::ordered_json to_json(const RunSpec& spec, const RunResult& run, bool ops) {
  const sim::Metrics& m = run.metrics;
  nlohmann::ordered_json j;
  j["schema_version"] = kSchemaVersion;
  j["schedule"] = spec.schedule;
  j["stages"] = run.schedule.stages;
  j["micro_batches"] = run.schedule.micro_batches;
  j["pipelines"] = run.schedule.pipelines;
  j["workers"] = run.schedule.workers;
  j["mode"] = "unit-cost";
  j["t_forward"] = spec.unit.forward;
  j["t_backward"] = spec.unit.backward;
  j["t_weight"] = spec.unit.weight;
  j["t_comm"] = spec.unit.comm;
  j["iteration_time"] = m.iteration_time;
  j["iterations"] = run.schedule.iterations;
  j["asynchronous"] = run.schedule.asynchronous;
  j["total_time"] = m.total_time;
  j["span"] = m.span;
  j["bubble_ratio"] = m.bubble_ratio;
  j["peak_activations"] = max_peak_activations(m);
  j["tasks"] = run.graph.num_tasks();
  const auto worker_ops = ops ? compute_ops_by_worker(run) : decltype(compute_ops_by_worker(run)){};
  auto per_worker = nlohmann::ordered_json::array();
  for (const sim::WorkerMetrics& w : m.workers) {
    nlohmann::ordered_json jw;
    jw["worker"] = w.worker;
    jw["busy"] = w.busy;
    jw["first_start"] = w.first_start;
    jw["last_end"] = w.last_end;
    jw["peak_activations"] = w.peak_activations;
    const auto wi = static_cast<size_t>(w.worker);
    jw["weight_versions"] =
        wi < run.schedule.weight_versions.size() ? run.schedule.weight_versions[wi] : 1;
    if (ops) {
      auto list = nlohmann::ordered_json::array();
      for (sim::TaskId t : worker_ops[static_cast<size_t>(w.worker)]) {
        const sim::Task& task = run.graph.task(t);
        list.push_back({{"kind", std::string(1, sim::op_letter(task.kind))},
                        {"micro_batch", task.micro_batch},
                        {"stage", task.stage},
                        {"pipeline", task.pipeline},
                        {"chunk", task.chunk},
                        {"start", run.trace.timing[t].start},
                        {"end", run.trace.timing[t].end}});
      }
      jw["ops"] = std::move(list);
    }
    per_worker.push_back(std::move(jw));
  }
  j["per_worker"] = std::move(per_worker);
  return j;
}

std::string to_csv(const RunSpec& spec, const RunResult& run) {
  const sim::Metrics& m = run.metrics;
  std::string out =
      "schedule,stages,micro_batches,pipelines,workers,t_forward,t_backward,t_weight,t_comm,"
      "iteration_time,span,bubble_ratio,peak_activations\n";
  out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", spec.schedule,
                     run.schedule.stages, run.schedule.micro_batches, run.schedule.pipelines,
                     run.schedule.workers, spec.unit.forward, spec.unit.backward,
                     spec.unit.weight, spec.unit.comm, m.iteration_time, m.span, m.bubble_ratio,
                     max_peak_activations(m));
  return out;
}

std::string ascii_timeline(const RunResult& run, int max_columns) {
  // The quantum is the shortest compute op; every start and end must sit on its grid.
  double quantum = std::numeric_limits<double>::infinity();
  for (sim::TaskId t = 0; t < run.graph.num_tasks(); ++t) {
    const double d = run.trace.timing[t].end - run.trace.timing[t].start;
    if (sim::is_compute(run.graph.task(t).kind) && d > 0.0) quantum = std::min(quantum, d);
  }
  if (!std::isfinite(quantum) || run.metrics.span <= 0.0) return {};
  auto on_grid = [&](double x, long& cell) {
    const double q = x / quantum;
    cell = std::lround(q);
    return std::abs(q - static_cast<double>(cell)) < 1e-9 * std::max(1.0, std::abs(q));
  };
  long columns = 0;
  if (!on_grid(run.metrics.iteration_time, columns) || columns > max_columns) return {};
  int max_mb = 0;
  for (sim::TaskId t = 0; t < run.graph.num_tasks(); ++t) {
    max_mb = std::max(max_mb, run.graph.task(t).micro_batch);
  }
  const size_t width = fmt::format("{}", max_mb).size() + 1;
  std::string out;
  const auto ops = compute_ops_by_worker(run);
  for (size_t w = 0; w < ops.size(); ++w) {
    std::vector<std::string> cells(static_cast<size_t>(columns), std::string(width, '.'));
    for (sim::TaskId t : ops[w]) {
      long first = 0, last = 0;
      if (!on_grid(run.trace.timing[t].start, first) || !on_grid(run.trace.timing[t].end, last)) {
        return {};
      }
      const sim::Task& task = run.graph.task(t);
      for (long c = first; c < last && c < columns; ++c) {
        cells[static_cast<size_t>(c)] =
            c == first ? fmt::format("{:<{}}", fmt::format("{}{}", sim::op_letter(task.kind),
                                                             task.micro_batch), width)
                       : std::string(width, '-');
      }
    }
    out += fmt::format("P{:<3}", w);
    for (const auto& c : cells) out += " " + c;
    out += "\n";
  }
  return out;
}

std::string to_text(const RunSpec& spec, const RunResult& run) {
  const sim::Metrics& m = run.metrics;
  std::string out;
  out += fmt::format("schedule         {}\n", spec.schedule);
  out += fmt::format("stages (D)       {}\n", run.schedule.stages);
  out += fmt::format("micro-batches(N) {}\n", run.schedule.micro_batches);
  out += fmt::format("workers          {}\n", run.schedule.workers);
  out += fmt::format("costs            t_F={} t_B={} t_W={} t_comm={} (unit-cost mode)\n",
                     spec.unit.forward, spec.unit.backward, spec.unit.weight, spec.unit.comm);
  out += fmt::format("iteration_time   {}\n", m.iteration_time);
  out += fmt::format("bubble_ratio     {:.6f}\n", m.bubble_ratio);
  out += fmt::format("peak_activations {}\n\n", max_peak_activations(m));
  out += fmt::format("{:>6} {:>12} {:>12} {:>12} {:>16}\n", "worker", "busy", "first_start",
                     "last_end", "peak_activations");
  for (const auto& w : m.workers) {
    out += fmt::format("{:>6} {:>12} {:>12} {:>12} {:>16}\n", w.worker, w.busy, w.first_start,
                       w.last_end, w.peak_activations);
  }
  if (const std::string timeline = ascii_timeline(run); !timeline.empty()) {
    out += "\ntimeline (F forward, B backward, I/W split backward, R recompute, - continues, . idle)\n";
    out += timeline;
  }
  return out;
}

}  // namespace pipesim::cli
