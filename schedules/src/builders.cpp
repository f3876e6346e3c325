#include "builders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <queue>
#include <set>
#include <tuple>
#include <utility>

#include "pipesim/core/assert.hpp"

namespace pipesim::schedules::detail {

void assign_by_slot(sim::Schedule& s, std::vector<SlottedOp> ops) {
  std::stable_sort(ops.begin(), ops.end(), [](const SlottedOp& a, const SlottedOp& b) {
    return a.slot != b.slot ? a.slot < b.slot : a.tie < b.tie;
  });
  s.program.assign(static_cast<size_t>(s.workers), {});
  for (const SlottedOp& o : ops)
    s.program[static_cast<size_t>(s.worker_of(o.op))].push_back(o.op);
}

std::vector<int> v_shape_map(int workers) {
  std::vector<int> map(static_cast<size_t>(2 * workers));
  for (int k = 0; k < 2 * workers; ++k) {
    map[static_cast<size_t>(k)] = k < workers ? k : 2 * workers - 1 - k;
  }
  return map;
}

namespace {

using sim::OpKind;

// (rank, chunk preference, micro-batch, stage, op index): smaller starts first.
using Key = std::tuple<int, int, int, int, size_t>;

struct Event {
  double end;
  size_t seq;
  int worker;
  size_t op;
  bool operator>(const Event& o) const { return end != o.end ? end > o.end : seq > o.seq; }
};

}  // namespace

void list_schedule(sim::Schedule& s, const ListPolicy& policy) {
  const int stages = s.virtual_stages, mbs = s.total_micro_batches();
  const auto workers = static_cast<size_t>(s.workers);
  const OpKind back = s.split_backward ? OpKind::BackwardInput : OpKind::Backward;
  const OpKind release = s.split_backward ? OpKind::BackwardWeight : OpKind::Backward;
  std::vector<OpKind> kinds{OpKind::Forward, back};
  if (s.split_backward) kinds.push_back(OpKind::BackwardWeight);
  const auto nk = kinds.size();
  auto index = [&](int st, int m, size_t k) {
    return (static_cast<size_t>(st) * static_cast<size_t>(mbs) + static_cast<size_t>(m)) * nk + k;
  };
  const size_t n = static_cast<size_t>(stages) * static_cast<size_t>(mbs) * nk;
  std::vector<sim::Op> ops(n);
  std::vector<int> missing(n, 0);
  std::vector<std::vector<size_t>> succ(n);
  for (int m = 0; m < mbs; ++m) {
    const int p = s.micro_batch_pipeline[static_cast<size_t>(m)];
    for (int st = 0; st < stages; ++st) {
      for (size_t k = 0; k < nk; ++k) {
        const int chunk = s.virtual_stages > s.workers ? st / s.workers : 0;
        ops[index(st, m, k)] = sim::Op{kinds[k], p, st, chunk, m};
      }
      auto dep = [&](size_t from, size_t to) {
        succ[from].push_back(to);
        ++missing[to];
      };
      if (st > 0) dep(index(st - 1, m, 0), index(st, m, 0));
      dep(st + 1 < stages ? index(st + 1, m, 1) : index(st, m, 0), index(st, m, 1));
      if (s.split_backward) dep(index(st, m, 1), index(st, m, 2));
    }
  }
  auto rank = [&](OpKind k) {
    return k == OpKind::Forward          ? policy.rank_forward
           : k == OpKind::BackwardWeight ? policy.rank_weight
                                         : policy.rank_backward;
  };
  auto key_of = [&](size_t i) {
    const sim::Op& op = ops[i];
    const int chunk_pref =
        policy.forward_later_chunk_first && op.kind == OpKind::Forward ? -op.chunk : 0;
    return Key{rank(op.kind), chunk_pref, op.micro_batch, op.stage, i};
  };
  std::vector<std::set<Key>> ready_fwd(workers), ready_other(workers);
  auto make_ready = [&](size_t i) {
    const auto w = static_cast<size_t>(s.worker_of(ops[i]));
    (ops[i].kind == OpKind::Forward ? ready_fwd : ready_other)[w].insert(key_of(i));
  };
  for (size_t i = 0; i < n; ++i) {
    if (missing[i] == 0) make_ready(i);
  }
  std::vector<int> held(workers, 0);
  std::vector<bool> running(workers, false);
  auto limit = [&](size_t w) {
    return w < policy.max_in_flight.size() && policy.max_in_flight[w] > 0 ? policy.max_in_flight[w]
                                                                          : 1 << 30;
  };
  auto duration = [&](OpKind k) {
    return k == OpKind::Forward          ? policy.t_forward
           : k == OpKind::BackwardWeight ? policy.t_weight
                                         : policy.t_backward;
  };
  s.program.assign(workers, {});
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  size_t seq = 0, done = 0;
  double now = 0.0;
  auto try_start = [&](size_t w, bool ignore_limit) {
    const Key* best = ready_other[w].empty() ? nullptr : &*ready_other[w].begin();
    if (!ready_fwd[w].empty() && (ignore_limit || held[w] < limit(w))) {
      const Key& f = *ready_fwd[w].begin();
      if (best == nullptr || f < *best) best = &f;
    }
    if (best == nullptr) return false;
    const size_t i = std::get<4>(*best);
    (ops[i].kind == OpKind::Forward ? ready_fwd : ready_other)[w].erase(*best);
    if (ops[i].kind == OpKind::Forward) ++held[w];
    running[w] = true;
    s.program[w].push_back(ops[i]);
    events.push(Event{now + duration(ops[i].kind), seq++, static_cast<int>(w), i});
    return true;
  };
  while (done < n) {
    for (size_t w = 0; w < workers; ++w) {
      if (!running[w]) try_start(w, false);
    }
    if (events.empty()) {  // every worker gated: let the first one with a forward exceed it
      bool started = false;
      for (size_t w = 0; w < workers && !started; ++w)
        started = try_start(w, true);
      PIPESIM_ASSERT(started, "list scheduler stuck: dependency cycle");
    }
    now = events.top().end;
    while (!events.empty() && events.top().end == now) {
      const Event e = events.top();
      events.pop();
      ++done;
      const auto w = static_cast<size_t>(e.worker);
      running[w] = false;
      if (ops[e.op].kind == release) --held[w];
      for (size_t t : succ[e.op]) {
        if (--missing[t] == 0) make_ready(t);
      }
    }
  }
}

std::vector<sim::Op> dualpipe_order(int H, int h, const DualPipePhase phases[2]) {
  std::vector<sim::Op> prog;
  std::vector<sim::Op> weights;  // DualPipe's WeightGradStore queue
  size_t next_w = 0;
  size_t f[2] = {0, 0}, b[2] = {0, 0};
  auto forward = [&](int p) {
    const DualPipePhase& ph = phases[p];
    prog.push_back(fwd(ph.pipeline, ph.stage, ph.micro_batches[f[p]++], ph.chunk));
  };
  auto backward = [&](int p, bool zero_bubble) {
    const DualPipePhase& ph = phases[p];
    const int m = ph.micro_batches[b[p]++];
    prog.push_back(bwd_input(ph.pipeline, ph.stage, m, ph.chunk));
    const sim::Op w = bwd_weight(ph.pipeline, ph.stage, m, ph.chunk);
    if (zero_bubble) {
      weights.push_back(w);
    } else {
      prog.push_back(w);
    }
  };
  auto weight = [&] { prog.push_back(weights[next_w++]); };
  // An overlapped F&B chunk (the reference's _forward_backward_chunk): the forward, then the
  // whole backward (I and W, not zero-bubble) as the unit's second half (sim::Join).
  auto forward_backward = [&](int forward_phase, int backward_phase) {
    forward(forward_phase);
    const size_t first = prog.size();
    backward(backward_phase, false);
    prog[first].join = sim::Join::Pair;
    for (size_t i = first + 1; i < prog.size(); ++i)
      prog[i].join = sim::Join::Half;
  };
  const int per_phase = static_cast<int>(phases[0].micro_batches.size());
  for (int i = 0; i < 2 * (H - h - 1); ++i)
    forward(0);                      // step 1: nF0
  for (int i = 0; i < h + 1; ++i) {  // step 2: nF0F1
    forward(0);
    forward(1);
  }
  for (int i = 0; i < H - h - 1; ++i) {  // step 3: nB1W1F1, zero bubble
    backward(1, true);
    weight();
    forward(1);
  }
  for (int i = 0; i < per_phase - 2 * H + h + 1; ++i) {  // step 4: nF0B1F1B0, overlapped pairs
    if (i == 0 && h == H - 1) {
      // The middle rank's first pair runs unfused (the reference: "to further reduce bubble").
      forward(0);
      backward(1, false);
    } else {
      forward_backward(0, 1);
    }
    forward_backward(1, 0);
  }
  for (int i = 0; i < H - h - 1; ++i) {  // step 5: nB1F1B0
    backward(1, false);
    forward_backward(1, 0);
  }
  bool zero_bubble = false;  // step 6: nB1B0, the second half with zero bubble
  for (int i = 0; i < h + 1; ++i) {
    if (i == (h + 1) / 2 && h % 2 == 1) zero_bubble = true;
    backward(1, zero_bubble);
    if (i == (h + 1) / 2 && h % 2 == 0) zero_bubble = true;
    backward(0, zero_bubble);
  }
  for (int i = 0; i < H - h - 1; ++i) {  // step 7: nWB0, zero bubble
    weight();
    backward(0, true);
  }
  for (int i = 0; i < h + 1; ++i)
    weight();  // step 8: nW
  PIPESIM_ASSERT(next_w == weights.size(), "DualPipe weight queue not drained");
  return prog;
}

core::OptionValues two_chunks(const ScheduleParams&) {
  core::OptionValues shape;
  shape.set("chunks", std::int64_t{2});
  return shape;
}

core::OptionValues listed_chunks(const ScheduleParams& params) {
  core::OptionValues shape;
  shape.set("chunks", std::int64_t{chunks_of(params)});
  return shape;
}

sim::Schedule looped_schedule(std::string name, const ScheduleParams& params) {
  const int d = params.stages, v = chunks_of(params);
  sim::Schedule s = sim::make_linear_schedule(std::move(name), d, params.micro_batches);
  s.virtual_stages = d * v;
  s.stage_worker[0].resize(static_cast<size_t>(d * v));
  for (int k = 0; k < d * v; ++k)
    s.stage_worker[0][static_cast<size_t>(k)] = k % d;
  return s;
}

core::OptionSpec chunks_option() {
  // A schedule without the option holds one chunk per worker.
  return core::with_unused_text(
      core::integer_option("chunks", 1, 64, "2",
                           "interleaved, interleaved-zb, bfs: model chunks v per worker"),
      "1");
}

int chunks_of(const ScheduleParams& params) {
  return static_cast<int>(params.options.integer("chunks"));
}

std::vector<SearchVariant> chunk_variants(const SearchContext& c) {
  std::vector<SearchVariant> variants;
  for (int chunks = 2; chunks <= 8; chunks *= 2) {
    if (c.layers > 0 && chunks * c.stages > c.layers) break;
    SearchVariant v;
    v.options.set("chunks", std::int64_t{chunks});
    variants.push_back(std::move(v));
  }
  if (variants.empty()) {  // not even two chunks per worker fit the layers
    SearchVariant v;
    v.options.set("chunks", std::int64_t{2});
    v.pruned = fmt::format("2 chunks × D = {} > {} layers", 2 * c.stages, c.layers);
    variants.push_back(std::move(v));
  }
  return variants;
}

core::OptionValues two_pipelines(const ScheduleParams&) {
  core::OptionValues shape;
  shape.set("pipelines", std::int64_t{2});
  return shape;
}

core::OptionValues listed_iterations(const ScheduleParams& params) {
  core::OptionValues shape;
  shape.set("iterations", params.options.integer("iterations"));
  return shape;
}

std::vector<core::OptionSpec> async_options() {
  // A flushing schedule lists one iteration and never drains between updates.
  return {
      core::with_unused_text(
          core::integer_option("iterations", 3, 256, "4",
                               "asynchronous schedules: iterations listed (the steady state "
                               "needs 3)"),
          "1"),
      core::with_unused_text(
          core::switch_option(
              "epoch_drain", false,
              "asynchronous schedules: on = the pipeline fills and drains around every "
              "run of `iterations` updates (a loop that flushes at each epoch's end), "
              "so the iteration time is the run's span / iterations; off = the "
              "steady-state period"),
          "off"),
  };
}

}  // namespace pipesim::schedules::detail
