#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/scenario/op_precedence.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/sim/memory.hpp"
#include "real_cost.hpp"

namespace pipesim::scenario {
namespace {

// Each op's weight (weight[k] for program[k]): at least how long after its inputs are there
// its successors, on its stream and in its chain, can start (sim/lowering.hpp; flows sharing a
// link only slow a collective, so each takes at least its time alone):
//  - an op on its own: StageCompute::alone, its kernels then its collectives (serialised: the
//    collective follows it on the stream and every edge leaves from it), or the longer of the
//    two (overlapped: the collective starts with the op and every successor waits for both);
//  - an overlapped unit (Op::join) runs the first half's kernels beside the second half's
//    collectives, then the second half's kernels beside the first half's collectives, and every
//    result leaves at its end: at least max(k1, c2) + max(k2, c1), a half's collectives taking
//    at least the longest one's time. Its ops weigh their kernels, and the last op of each half
//    the rest of its phase.
// Returns whether every op's kernels take positive, finite time.
bool weigh(const std::vector<sim::Op>& program, const cost::StageCompute& compute, double* weight) {
  bool timed = true;
  const auto kernels_of = [&](const sim::Op& op) {
    const double kernels = compute.kernels(op.stage, op.kind);
    if (!(kernels > 0.0 && std::isfinite(kernels))) timed = false;
    return kernels;
  };
  for (size_t k = 0; k < program.size();) {
    if (!sim::in_overlapped_unit(program, k)) {
      kernels_of(program[k]);
      weight[k] = compute.alone(program[k].stage, program[k].kind);
      ++k;
      continue;
    }
    size_t end = k + 1;
    while (end < program.size() && program[end].join != sim::Join::None)
      ++end;
    size_t pair = end;  // the second half's first op
    for (size_t i = k + 1; i < end && pair == end; ++i) {
      if (program[i].join == sim::Join::Pair) pair = i;
    }
    std::array<double, 2> kernels{0.0, 0.0};
    std::array<double, 2> comm{0.0, 0.0};
    for (size_t i = k; i < end; ++i) {
      const sim::Op& op = program[i];
      const size_t half = i < pair ? 0 : 1;
      weight[i] = kernels_of(op);
      kernels[half] += weight[i];
      comm[half] = std::max(comm[half], compute.collective_time(op.stage, op.kind).total().value);
    }
    const double first_phase = std::max(kernels[0], comm[1]);
    const double second_phase = std::max(kernels[1], comm[0]);
    weight[pair - 1] += first_phase - kernels[0];
    weight[end - 1] += second_phase - kernels[1];
    k = end;
  }
  return timed;
}

// A synchronous run lasts at least the longest path, each worker ending with its optimizer
// step; without the paths (`end` null), at least the busiest worker's stream.
template <class OptimizerTime>
double longest_path(const OpPrecedence& ops, const std::vector<double>& weight,
                    const std::vector<double>* end, const OptimizerTime& optimizer) {
  double longest = 0;
  for (size_t w = 0; w < ops.workers(); ++w) {
    if (ops.begin_of(w) == ops.end_of(w)) continue;  // a worker without ops
    double last = 0;
    if (end != nullptr) {
      last = (*end)[ops.end_of(w) - 1];
    } else {
      for (size_t i = ops.begin_of(w); i < ops.end_of(w); ++i)
        last += weight[i];
    }
    longest = std::max(longest, last + optimizer(static_cast<int>(w)));
  }
  return longest;
}

// An asynchronous schedule's iteration time is a steady-state figure (sim::compute_metrics):
// the whole run over its iterations when it drains each run (at least the busiest worker's
// stream time, and the longest path, over the iterations), else (c[L] - c[0]) / L with c[i]
// the end of iteration i's last release (B, or W with a split backward) and
// L = max(1, iterations - 2). For the second, c[0] is the end of some worker's last release
// of iteration 0, after which that worker still runs its ops up to its last release of
// iteration L: at least the least such stream time over the workers. And when one release X
// of iteration 0 comes after every other (by precedence), c[0] is X's end, and every release
// of iteration L ends at least its longest path from X after it. Without the paths (`end`
// null), the stream times alone.
double steady_state_lower_bound(const sim::Schedule& schedule, const OpPrecedence& ops,
                                const std::vector<double>& weight, const std::vector<double>* end,
                                double longest) {
  const int iterations = schedule.iterations;
  const int last = iterations >= 3 ? iterations - 2 : 1;
  const sim::OpKind release =
      schedule.split_backward ? sim::OpKind::BackwardWeight : sim::OpKind::Backward;
  const int per_iteration = std::max(1, schedule.micro_batches);
  const auto iteration_of = [&](size_t i) {
    return std::min(ops.op(i).micro_batch / per_iteration, iterations - 1);
  };
  double busiest = 0;
  double least = std::numeric_limits<double>::infinity();
  std::optional<size_t> latest;  // iteration 0's release that ends last with no waits
  for (size_t w = 0; w < ops.workers(); ++w) {
    double done = 0;
    std::optional<double> first_done, last_done;
    for (size_t i = ops.begin_of(w); i < ops.end_of(w); ++i) {
      done += weight[i];
      if (ops.op(i).kind != release) continue;
      const int iteration = iteration_of(i);
      if (iteration == 0) {
        first_done = done;
        if (end != nullptr && (!latest || (*end)[i] > (*end)[*latest])) latest = i;
      }
      if (iteration == last) last_done = done;
    }
    busiest = std::max(busiest, done);
    if (!first_done) continue;
    if (!last_done) return 0;  // no figure for this shape
    least = std::min(least, *last_done - *first_done);
  }
  if (schedule.drains_each_run) return std::max(busiest, longest) / iterations;
  double bound = std::isfinite(least) ? std::max(0.0, least) : 0.0;
  if (latest) {
    const std::vector<bool> before = ops.ancestors(*latest);
    bool last_of_all = true;
    for (size_t i = 0; i < ops.size() && last_of_all; ++i) {
      if (ops.op(i).kind == release && iteration_of(i) == 0 && !before[i]) last_of_all = false;
    }
    if (last_of_all) {
      const std::vector<double> after = ops.ends(weight, *latest);
      for (size_t i = 0; i < ops.size(); ++i) {
        if (ops.op(i).kind == release && iteration_of(i) == last) bound = std::max(bound, after[i]);
      }
    }
  }
  return bound / last;
}

}  // namespace

RunBounds run_bounds(const Scenario& spec, const sim::Schedule& schedule,
                     const OpPrecedence* precedence, BoundDepth depth) {
  const PerfSpec& ps = spec.perf;
  if (!ps.enabled() || ps.model.empty() || ps.hardware.empty()) return {};
  // The attached model and profile (a search attaches them to every run), loaded otherwise.
  std::optional<models::ModelSpec> loaded_model;
  std::optional<hardware::HardwareProfile> loaded_hardware;
  const models::ModelSpec& model =
      ps.model_spec ? *ps.model_spec : loaded_model.emplace(models::load_model(ps.model));
  const hardware::HardwareProfile& hardware =
      ps.hardware_profile ? *ps.hardware_profile
                          : loaded_hardware.emplace(hardware::load_profile(ps.hardware));
  const cost::TrainingCostModel costs(model, hardware, schedule, ps.setup);
  detail::check_overlapped_sync(ps, schedule);  // refused before any memory verdict
  const cost::StageCompute& compute = costs.compute();
  std::optional<OpPrecedence> built;
  const OpPrecedence& ops = precedence != nullptr ? *precedence : built.emplace(schedule);
  std::vector<double> weight(ops.size());
  // Positive kernels make every duration positive, the condition under which the replay's oom
  // verdict skips it (simulate.cpp).
  bool timed = true;
  for (size_t w = 0; w < ops.workers(); ++w) {
    if (!weigh(schedule.program[w], compute, weight.data() + ops.begin_of(w))) timed = false;
  }
  RunBounds bounds;
  if (spec.skip_replay_when_oom && !spec.memory_timeline && !costs.offload_ops().enabled && timed) {
    std::vector<sim::WorkerMemory> memory =
        sim::track_memory_untimed(schedule, costs.stage_memory());
    // As the replay decides it (detail::set_memory).
    bounds.out_of_memory =
        !(detail::peak_with_overheads(memory, hardware.memory) <= hardware.gpu.memory_bytes);
  }
  if (!ops.complete()) return bounds;  // the replay refuses the order
  std::optional<std::vector<double>> end;
  if (depth == BoundDepth::Paths) end = ops.ends(weight);
  const std::vector<double>* ends = end ? &*end : nullptr;
  const double longest =
      longest_path(ops, weight, ends, [&](int w) { return compute.optimizer(w); });
  bounds.iteration_time = schedule.asynchronous && schedule.iterations >= 2
                              ? steady_state_lower_bound(schedule, ops, weight, ends, longest)
                              : longest;
  return bounds;
}

double iteration_time_lower_bound(const Scenario& spec, const sim::Schedule& schedule) {
  return run_bounds(spec, schedule).iteration_time;
}

}  // namespace pipesim::scenario
