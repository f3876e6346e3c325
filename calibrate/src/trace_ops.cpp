#include "pipesim/calibrate/trace_ops.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "lower_case.hpp"
#include "pipesim/core/intervals.hpp"

namespace pipesim::calibrate {
namespace {

constexpr double kSecondsPerMicro = 1e-6;

using core::Intervals;

// One sweep over ranges and queries in time order (at one instant: starts, then queries, then
// ends, so a range contains both its ends); `group` maps a pid and tid to the set of ranges a
// query may be answered from.
template <class Group>
void sweep(const std::vector<TimedRange>& ranges, const std::vector<RangeQuery>& queries,
           Group group, std::vector<int>& answer) {
  // (time, order, index): order 0 a range starts, 1 a query, 2 a range ends.
  std::vector<std::tuple<double, int, int>> events;
  events.reserve(2 * ranges.size() + queries.size());
  for (std::size_t r = 0; r < ranges.size(); ++r) {
    events.emplace_back(ranges[r].start, 0, static_cast<int>(r));
    events.emplace_back(ranges[r].end, 2, static_cast<int>(r));
  }
  for (std::size_t q = 0; q < queries.size(); ++q) {
    if (answer[q] < 0) events.emplace_back(queries[q].time, 1, static_cast<int>(q));
  }
  std::sort(events.begin(), events.end());
  // Per group, the open ranges by (−start, end, index): the first is the latest-starting, and
  // of ranges starting together the shortest.
  std::map<std::pair<std::int64_t, std::int64_t>, std::set<std::tuple<double, double, int>>> open;
  for (const auto& [time, order, index] : events) {
    if (order == 1) {
      const RangeQuery& q = queries[static_cast<std::size_t>(index)];
      const auto it = open.find(group(q.pid, q.tid));
      if (it != open.end() && !it->second.empty()) {
        answer[static_cast<std::size_t>(index)] = std::get<2>(*it->second.begin());
      }
      continue;
    }
    const TimedRange& r = ranges[static_cast<std::size_t>(index)];
    auto& set = open[group(r.pid, r.tid)];
    const auto key = std::make_tuple(-r.start, r.end, index);
    if (order == 0) {
      set.insert(key);
    } else {
      set.erase(key);
    }
  }
}

}  // namespace

std::string_view block_name(Block block) {
  switch (block) {
    case Block::attention:
      return "attention";
    case Block::mlp:
      return "mlp";
    case Block::dispatch:
      return "dispatch";
    case Block::combine:
      return "combine";
    case Block::none:
      break;
  }
  return "";
}

std::string_view pass_name(Pass pass) {
  switch (pass) {
    case Pass::forward:
      return "F";
    case Pass::backward_input:
      return "B";
    case Pass::backward_weight:
      return "W";
    case Pass::none:
      break;
  }
  return "";
}

Phase parse_phase(std::string_view annotation) {
  const std::string s = lower_case(annotation);
  const std::size_t open = s.find('(');
  if (open == std::string::npos || s.size() != open + 3 || s.back() != ')') return {};
  Phase p;
  const std::string block = s.substr(0, open);
  if (block == "attn" || block == "attention") {
    p.block = Block::attention;
  } else if (block == "mlp" || block == "moe" || block == "experts") {
    p.block = Block::mlp;
  } else if (block == "dispatch") {
    p.block = Block::dispatch;
  } else if (block == "combine") {
    p.block = Block::combine;
  }
  switch (s[open + 1]) {
    case 'f':
      p.pass = Pass::forward;
      break;
    case 'b':
      p.pass = Pass::backward_input;
      break;
    case 'w':
      p.pass = Pass::backward_weight;
      break;
    default:
      break;
  }
  return p.recognised() ? p : Phase{};
}

std::vector<int> innermost_ranges(const std::vector<TimedRange>& ranges,
                                  const std::vector<RangeQuery>& queries, bool same_thread_only) {
  std::vector<int> answer(queries.size(), -1);
  sweep(
      ranges, queries, [](std::int64_t pid, std::int64_t tid) { return std::make_pair(pid, tid); },
      answer);
  if (!same_thread_only) {
    sweep(
        ranges, queries,
        [](std::int64_t pid, std::int64_t) { return std::make_pair(pid, std::int64_t{0}); },
        answer);
  }
  return answer;
}

TraceOps group_kernels(const ProfilerTrace& trace) {
  TraceOps out;
  // Each kernel's launch, then the innermost annotation around it.
  std::unordered_map<std::int64_t, std::size_t> launch_of;
  launch_of.reserve(trace.launches.size());
  for (std::size_t i = 0; i < trace.launches.size(); ++i)
    launch_of.emplace(trace.launches[i].correlation, i);
  std::vector<TimedRange> ranges;
  ranges.reserve(trace.ranges.size());
  for (const TraceRange& r : trace.ranges)
    ranges.push_back({r.pid, r.tid, r.start, r.start + r.duration});
  std::vector<RangeQuery> queries;
  std::vector<std::size_t> query_kernel;
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const auto it = launch_of.find(trace.kernels[k].correlation);
    if (trace.kernels[k].correlation < 0 || it == launch_of.end()) continue;
    const TraceLaunch& l = trace.launches[it->second];
    queries.push_back({l.pid, l.tid, l.time});
    query_kernel.push_back(k);
  }
  const std::vector<int> range_of = innermost_ranges(ranges, queries, false);
  // Phase of each kernel: a name id, or -1 outside every annotation.
  std::vector<std::int64_t> phase_of(trace.kernels.size(), -1);
  for (std::size_t q = 0; q < queries.size(); ++q) {
    if (range_of[q] >= 0) {
      phase_of[query_kernel[q]] = trace.ranges[static_cast<std::size_t>(range_of[q])].name;
    }
  }

  // Phases in order of their first range; "" (−1) last.
  std::map<std::int64_t, PhaseSummary> phases;
  std::map<std::int64_t, double> first_start;
  for (const TraceRange& r : trace.ranges) {
    auto& s = phases[r.name];
    s.name = trace.names[r.name];
    s.phase = parse_phase(s.name);
    ++s.ranges;
    const auto [it, added] = first_start.try_emplace(r.name, r.start);
    if (!added) it->second = std::min(it->second, r.start);
  }
  phases[-1].name = "";

  std::map<std::pair<std::int64_t, KernelKind>, TraceOp> ops;
  std::map<std::int64_t, StreamSummary> streams;
  std::map<std::uint32_t, UnrecognisedKernel> unrecognised;
  std::map<KernelKind, Intervals> comm;
  Intervals compute;
  for (std::size_t k = 0; k < trace.kernels.size(); ++k) {
    const TraceKernel& kernel = trace.kernels[k];
    const double seconds = kernel.duration * kSecondsPerMicro;
    KernelKind kind = kernel.kind;
    PhaseSummary& phase = phases[phase_of[k]];
    const Block block = phase.phase.block;
    if ((kind == KernelKind::dispatch || kind == KernelKind::combine) &&
        (block == Block::dispatch || block == Block::combine)) {
      kind = block == Block::dispatch ? KernelKind::dispatch : KernelKind::combine;
    }
    ++phase.kernels;
    phase.seconds += seconds;
    TraceOp& op = ops[{phase_of[k], kind}];
    op.kind = kind;
    op.seconds += seconds;
    ++op.kernels;
    StreamSummary& stream = streams[kernel.stream];
    stream.stream = kernel.stream;
    ++stream.kernels;
    const std::pair<double, double> span{kernel.start, kernel.start + kernel.duration};
    if (is_communication(kind)) {
      stream.communication_seconds += seconds;
      comm[kind].push_back(span);
    } else if (kind == KernelKind::memcpy || kind == KernelKind::memset) {
      stream.other_seconds += seconds;
    } else {
      stream.compute_seconds += seconds;
      compute.push_back(span);
    }
    if (kind == KernelKind::other) {
      UnrecognisedKernel& u = unrecognised[kernel.name];
      u.name = trace.names[kernel.name];
      ++u.kernels;
      u.seconds += seconds;
    }
    ++out.kernels;
    out.seconds += seconds;
  }

  std::vector<std::int64_t> order;
  for (const auto& [id, summary] : phases) {
    if (summary.kernels > 0 || id >= 0) order.push_back(id);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    if ((a < 0) != (b < 0)) return b < 0;
    return a >= 0 && first_start.at(a) < first_start.at(b);
  });
  for (const std::int64_t id : order) {
    if (phases[id].kernels == 0 && id >= 0 && !phases[id].phase.recognised()) continue;
    out.phases.push_back(phases[id]);
    for (const KernelKind kind : all_kernel_kinds()) {
      const auto it = ops.find({id, kind});
      if (it == ops.end()) continue;
      it->second.phase = phases[id].name;
      out.ops.push_back(it->second);
    }
  }
  for (const auto& [id, s] : streams)
    out.streams.push_back(s);
  const Intervals busy_compute = core::merged(std::move(compute));
  for (auto& [kind, spans] : comm) {
    const Intervals busy = core::merged(std::move(spans));
    out.overlap.push_back({kind, core::measure(busy) * kSecondsPerMicro,
                           core::overlap(busy, busy_compute) * kSecondsPerMicro});
  }
  for (const auto& [id, u] : unrecognised)
    out.unrecognised.push_back(u);
  std::stable_sort(out.unrecognised.begin(), out.unrecognised.end(),
                   [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  return out;
}

}  // namespace pipesim::calibrate
