#include "pipesim/report/chrome_trace.hpp"

#include <string>

namespace pipesim::report {
namespace {

constexpr int kCompute = 0, kSend = 1, kCollective = 2, kHostCopy = 3;
// The format's ts and dur count microseconds. Real-cost runs are in seconds (1 s = 10⁶ µs);
// unit-cost runs have slots, shown as 1 slot = 1 ms so a schedule's grid reads at a glance.
constexpr double kMicrosPerSecond = 1e6;
constexpr double kMicrosPerSlot = 1e3;

}  // namespace

double micros_per_time_unit(const Result& run) {
  return run.perf ? kMicrosPerSecond : kMicrosPerSlot;
}

nlohmann::ordered_json chrome_trace(const Result& run, const std::string& title) {
  using json = nlohmann::ordered_json;
  const sim::TaskGraph& g = run.graph;
  const double micros = micros_per_time_unit(run);
  json events = json::array();
  // The copy stream's track is named only where activation offload put copies on it.
  bool copies = false;
  for (sim::TaskId t = 0; t < g.num_tasks() && !copies; ++t) {
    const sim::OpKind k = g.task(t).kind;
    copies = k == sim::OpKind::Offload || k == sim::OpKind::Reload;
  }
  const int tracks = copies ? kHostCopy + 1 : kHostCopy;
  for (int w = 0; w < g.workers(); ++w) {
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", w},
                      {"tid", 0},
                      {"args", {{"name", "worker " + std::to_string(w)}}}});
    events.push_back({{"name", "process_sort_index"},
                      {"ph", "M"},
                      {"pid", w},
                      {"tid", 0},
                      {"args", {{"sort_index", w}}}});
    const char* names[] = {"compute", "send", "collective", "host copy"};
    for (int tid = kCompute; tid < tracks; ++tid) {
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", w},
                        {"tid", tid},
                        {"args", {{"name", names[tid]}}}});
    }
  }
  for (sim::TaskId t = 0; t < g.num_tasks(); ++t) {
    const sim::Task& task = g.task(t);
    const double start = run.trace.timing[t].start, end = run.trace.timing[t].end;
    auto event = [&](int pid, int tid, std::string name, const char* category) {
      json e{
          {"name", std::move(name)},       {"cat", category}, {"ph", "X"}, {"ts", start * micros},
          {"dur", (end - start) * micros}, {"pid", pid},      {"tid", tid}};
      e["args"] = {{"stage", task.stage}, {"pipeline", task.pipeline},
                   {"chunk", task.chunk}, {"micro_batch", task.micro_batch},
                   {"start", start},      {"end", end}};
      events.push_back(std::move(e));
    };
    const std::string letter(1, sim::op_letter(task.kind));
    if (sim::is_compute(task.kind)) {
      event(task.worker, kCompute, letter + std::to_string(task.micro_batch), "compute");
    } else if (task.kind == sim::OpKind::Transfer) {
      event(task.worker, kSend,
            letter + std::to_string(task.micro_batch) + " to P" + std::to_string(task.peer),
            "transfer");
    } else if (task.kind == sim::OpKind::AllReduce && task.group >= 0) {
      for (int w : g.group_workers()[static_cast<size_t>(task.group)]) {
        event(w, kCollective, "all-reduce stage " + std::to_string(task.stage), "collective");
      }
    } else if (task.kind == sim::OpKind::Optimizer) {
      event(task.worker, kCompute, "optimizer", "optimizer");
    } else if (task.kind == sim::OpKind::Collective) {
      // The collectives inside a compute op's layers (tensor parallelism's), e.g. "C F3".
      event(task.worker, kCollective,
            letter + " " + sim::op_letter(task.carrier) + std::to_string(task.micro_batch),
            "collective");
    } else if (task.kind == sim::OpKind::Offload || task.kind == sim::OpKind::Reload) {
      // Activation offload's copy stream: "D3" to the host, "H3" back.
      event(task.worker, kHostCopy, letter + std::to_string(task.micro_batch), "host copy");
    }
  }
  // Real-cost mode with a recorded timeline: a "memory" counter track per worker process.
  if (run.perf) {
    for (size_t w = 0; w < run.perf->memory.size(); ++w) {
      for (const sim::MemorySample& sample : run.perf->memory[w].timeline) {
        events.push_back({{"name", "memory"},
                          {"ph", "C"},
                          {"ts", sample.time * micros},
                          {"pid", static_cast<int>(w)},
                          {"args", {{"bytes", sample.bytes}}}});
      }
    }
  }
  json trace;
  trace["traceEvents"] = std::move(events);
  trace["displayTimeUnit"] = "ms";
  trace["otherData"] = {{"generator", "pipesim"},
                        {"title", title},
                        {"time_unit", run.perf ? "ts and dur in microseconds (real time)"
                                               : "1 slot = 1 ms (unit-cost mode)"}};
  return trace;
}

}  // namespace pipesim::report
