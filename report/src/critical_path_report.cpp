#include "pipesim/report/critical_path_report.hpp"

#include <fmt/format.h>

namespace pipesim::report {

sim::CriticalPath critical_path_of(const scenario::Scenario& spec, const scenario::Result& run) {
  const bool blocking_sends = run.perf.has_value() && !spec.perf.overlap_p2p;
  return sim::critical_path(run.graph, run.trace, sim::StreamRule{blocking_sends});
}

nlohmann::ordered_json critical_path_json(const scenario::Result& run,
                                          const sim::CriticalPath& path) {
  auto steps = nlohmann::ordered_json::array();
  for (const sim::CriticalStep& s : path.steps) {
    const sim::Task& t = run.graph.task(s.task);
    nlohmann::ordered_json j;
    j["kind"] = std::string(1, sim::op_letter(t.kind));
    j["worker"] = t.worker;
    if (t.peer >= 0) j["peer"] = t.peer;
    j["stage"] = t.stage;
    j["chunk"] = t.chunk;
    j["pipeline"] = t.pipeline;
    j["micro_batch"] = t.micro_batch;
    j["start"] = s.start;
    j["end"] = s.end;
    j["duration"] = s.duration();
    j["ready"] = s.ready;
    j["wait"] = s.wait;
    j["slack"] = s.slack;
    j["via"] = sim::release_name(s.via);
    steps.push_back(std::move(j));
  }
  return steps;
}

std::string critical_path_text(const scenario::Result& run, const sim::CriticalPath& path) {
  const char* unit = run.perf ? "s" : "slots";
  std::string out = fmt::format(
      "critical path: {} ops, {:.6g} {u} compute, {:.6g} {u} communication, {:.6g} {u} "
      "waiting\n",
      path.steps.size(), path.compute, path.communication, path.waiting, fmt::arg("u", unit));
  if (run.schedule.asynchronous) {
    out += fmt::format("(first start to last end of all {} listed iterations: total_time)\n",
                       run.schedule.iterations);
  }
  out += fmt::format(
      "{:>5} {:<4} {:>5} {:>5} {:>5} {:>8} {:>7} {:>11} {:>11} {:>11} {:>11} "
      "{:>11}  {}\n",
      "step", "kind", "mb", "stage", "chunk", "pipeline", "worker", "start", "end", "duration",
      "wait", "slack", "via");
  for (size_t i = 0; i < path.steps.size(); ++i) {
    const sim::CriticalStep& s = path.steps[i];
    const sim::Task& t = run.graph.task(s.task);
    const std::string worker =
        t.peer >= 0 ? fmt::format("{}->{}", t.worker, t.peer) : fmt::format("{}", t.worker);
    const std::string mb = t.micro_batch >= 0 ? fmt::format("{}", t.micro_batch) : "-";
    const std::string via = s.via == sim::Release::Stream
                                ? fmt::format("waited for stream (ready at {:.6g})", s.ready)
                                : std::string(sim::release_name(s.via));
    out += fmt::format(
        "{:>5} {:<4} {:>5} {:>5} {:>5} {:>8} {:>7} {:>11.6g} {:>11.6g} {:>11.6g} {:>11.6g} "
        "{:>11.6g}  {}\n",
        i + 1, sim::op_letter(t.kind), mb, t.stage, t.chunk, t.pipeline, worker, s.start, s.end,
        s.duration(), s.wait, s.slack, via);
  }
  return out;
}

}  // namespace pipesim::report
