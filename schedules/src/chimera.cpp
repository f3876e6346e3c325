// Chimera (Li & Hoefler, "Chimera: Efficiently Training Large-Scale Neural Networks with
// Bidirectional Pipelines", SC'21; arXiv 2107.06925; code github.com/Shigangli/Chimera).
//
// §3.1: f down pipelines and f up pipelines (2f = --pipelines, f divides D/2). Down pipeline i
// maps stage k to worker (k + i·D/f) mod D; up pipeline i mirrors it (worker D-1-that). Each
// pipeline runs 1F1B on its D/(2f) micro-batches of a basic unit (N = D); merging them is
// conflict-free for even D. In unit slots (t_F = t_B = 1) micro-batch x of a pipeline runs
// stage s forward at slot s+2x and backward at slot 2D-s-1+2x; a worker's order is its ops
// sorted by slot (docs/architecture.md §3 prints the D = 4 orders; the parity argument in the
// README shows no two ops share a slot for any f).
//
// §3.5, N = kD micro-batches:
//  - direct: the k basic units concatenated, unit u shifted by 2D slots, so the tail backwards
//    of one unit interleave with the head forwards of the next ([me B, me F] pairs);
//  - doubling (forward doubling, k even): two units merge into one unit whose forwards run two
//    micro-batches back to back where 1F1B has one, so a doubled forward fills a backward's slot
//    (t_B = 2t_F) and the intermediate bubbles of direct concatenation disappear; the doubled
//    activations are paid for with recomputation (R before every B). Per-worker order as in the
//    paper's runtime (docs/architecture.md §3), e.g. D=4, N=8, worker 0:
//    F0 F1 F4 F5 F2 F3 B2 F6 F7 B3 B0 B6 B1 B7 B4 B5;
//  - halving (backward halving): the same doubled-forward order with micro-batches of half the
//    size (B/2), so two of them hold as many activations as one micro-batch of direct
//    concatenation and no recomputation is needed (the paper's Fig. 5: "doubling, B=8, R" vs
//    "halving, B=4"). pipesim lists the order and sets micro_batch_divisor = 2: the real-cost
//    model runs each listed micro-batch at B/2 (B must be even) and an iteration trains
//    N·B/2·W samples. Why B/2 per listed micro-batch rather than 2N micro-batches of B/2:
//    §3.5 halves the micro-batch so that a doubled forward (two micro-batches back to back)
//    holds the activations of one micro-batch of size B, and Fig. 5 compares "doubling, B=8"
//    with "halving, B=4" at the same N; so at equal (N, B) halving trains half the samples of
//    doubling, and throughput (samples/s) counts exactly those. Give halving 2B to compare
//    at an equal mini-batch.
// Doubling and halving are defined for two pipelines; more pipelines use direct.
// Micro-batch ids (docs/architecture.md §7): unit u gives down pipeline i the ids
// uD + i·D/(2f) + x and up pipeline i the ids uD + D/2 + i·D/(2f) + x, x < D/(2f).

#include <fmt/format.h>

#include <array>

#include "builders.hpp"
#include "entries.hpp"
#include "pipesim/schedules/recompute.hpp"

namespace pipesim::schedules {
namespace {

using detail::bwd;
using detail::fwd;

struct Layout {
  int d, n, f, per_pipeline;  // per_pipeline = D/(2f) micro-batches per pipeline and unit
};

// The pipeline of micro-batch m and its index x within that pipeline's share of its unit.
void locate(const Layout& l, int m, int& pipeline, int& x) {
  const int r = m % l.d;
  const bool up = r >= l.d / 2;
  const int i = (up ? r - l.d / 2 : r) / l.per_pipeline;
  x = (up ? r - l.d / 2 : r) % l.per_pipeline;
  pipeline = up ? l.f + i : i;
}

void direct(sim::Schedule& s, const Layout& l) {
  std::vector<detail::SlottedOp> ops;
  for (int m = 0; m < l.n; ++m) {
    int p = 0, x = 0;
    locate(l, m, p, x);
    const long base = 2L * l.d * (m / l.d) + 2L * x;
    for (int st = 0; st < l.d; ++st) {
      ops.push_back({base + st, 0, fwd(p, st, m)});
      ops.push_back({base + 2L * l.d - st - 1, 0, bwd(p, st, m)});
    }
  }
  detail::assign_by_slot(s, std::move(ops));
}

// Forward doubling's runtime order (two pipelines). Worker w's "me" pipeline is the one whose
// stage-0 side it is closer to: down if w < D/2, else up.
void doubled(sim::Schedule& s, const Layout& l) {
  const int d = l.d, h = d / 2, blocks = l.n / (2 * d);
  for (int w = 0; w < d; ++w) {
    auto& prog = s.program[static_cast<size_t>(w)];
    const bool me_down = w < h;
    const int me = me_down ? 0 : 1, other = 1 - me;
    const int me_stage = me_down ? w : d - 1 - w, other_stage = d - 1 - me_stage;
    const int a = me_down ? h - w : w - h + 1, b = h - a;
    std::vector<int> carried;  // the previous block's last `a` backwards of "me"
    for (int blk = 0; blk < blocks; ++blk) {
      // FIFO micro-batch lists of this block: unit 2blk then unit 2blk+1.
      std::vector<int> mine, theirs;
      for (int u = 2 * blk; u < 2 * blk + 2; ++u) {
        for (int x = 0; x < h; ++x) {
          (me_down ? mine : theirs).push_back(u * d + x);
          (me_down ? theirs : mine).push_back(u * d + h + x);
        }
      }
      size_t mf = 0, mb = 0, of = 0, ob = 0;
      auto me_f = [&] { prog.push_back(fwd(me, me_stage, mine[mf++])); };
      auto me_b = [&] { prog.push_back(bwd(me, me_stage, mine[mb++])); };
      auto other_f = [&] { prog.push_back(fwd(other, other_stage, theirs[of++])); };
      auto other_b = [&] { prog.push_back(bwd(other, other_stage, theirs[ob++])); };
      for (int i = 0; i < a; ++i) {
        if (!carried.empty()) {
          prog.push_back(bwd(me, me_stage, carried.front()));
          carried.erase(carried.begin());
        }
        me_f();
        me_f();
      }
      for (int i = 0; i < b; ++i) {
        other_f();
        other_f();
        me_f();
        me_f();
      }
      for (int i = 0; i < a; ++i) {
        other_f();
        other_f();
        other_b();
      }
      for (int i = 0; i < b + h; ++i) {
        me_b();
        other_b();
      }
      carried.assign(mine.begin() + static_cast<long>(mb), mine.end());
    }
    for (int m : carried)
      prog.push_back(bwd(me, me_stage, m));
  }
}

sim::Schedule make_chimera(const ScheduleParams& params) {
  const int d = params.stages, n = params.micro_batches;
  const int pipelines = static_cast<int>(params.options.integer("pipelines"));
  const std::string& strategy = params.options.text("strategy");
  const int f = pipelines / 2;
  const Layout layout{d, n, f, d / (2 * f)};
  sim::Schedule s;
  s.name = "chimera";
  s.workers = d;
  s.virtual_stages = d;
  s.pipelines = pipelines;
  s.micro_batches = n;
  s.stage_worker.assign(static_cast<size_t>(pipelines), std::vector<int>(static_cast<size_t>(d)));
  for (int i = 0; i < f; ++i) {
    for (int k = 0; k < d; ++k) {
      const int down = (k + i * d / f) % d;
      s.stage_worker[static_cast<size_t>(i)][static_cast<size_t>(k)] = down;
      s.stage_worker[static_cast<size_t>(f + i)][static_cast<size_t>(k)] = d - 1 - down;
    }
  }
  s.micro_batch_pipeline.resize(static_cast<size_t>(n));
  for (int m = 0; m < n; ++m) {
    int x = 0;
    locate(layout, m, s.micro_batch_pipeline[static_cast<size_t>(m)], x);
  }
  s.program.assign(static_cast<size_t>(d), {});
  if (strategy == "direct") {
    direct(s, layout);
    return s;
  }
  doubled(s, layout);
  if (strategy == "doubling") return with_recomputation(std::move(s));
  s.micro_batch_divisor = 2;  // backward halving: each micro-batch at B/2
  return s;
}

using P = ScheduleParams;

int pipelines_of(const P& p) {
  return static_cast<int>(p.options.integer("pipelines"));
}

const std::string& strategy_of(const P& p) {
  return p.options.text("strategy");
}

constexpr std::array kConstraints{
    Constraint{"stages", [](const P& p) { return p.stages % 2 == 0; },
               [](const P& p) {
                 return fmt::format(
                     "must be even (a down and an up pipeline share the workers), got {}",
                     p.stages);
               }},
    Constraint{"pipelines",
               [](const P& p) {
                 const int f2 = pipelines_of(p);
                 return f2 >= 2 && f2 % 2 == 0 && (p.stages / 2) % (f2 / 2) == 0;
               },
               [](const P& p) {
                 const int half = p.stages / 2;
                 return fmt::format("must be 2f with f dividing D/2 = {} (e.g. 2{}), got {}", half,
                                    half > 1 ? fmt::format(", {}", p.stages) : "", pipelines_of(p));
               }},
    Constraint{"micro_batches", [](const P& p) { return p.micro_batches % p.stages == 0; },
               [](const P& p) {
                 return fmt::format("must be a multiple of D = {} (N = kD), got {}", p.stages,
                                    p.micro_batches);
               }},
    Constraint{"strategy",
               [](const P& p) {
                 return strategy_of(p) == "direct" ||
                        ((p.micro_batches / p.stages) % 2 == 0 && pipelines_of(p) == 2);
               },
               [](const P& p) {
                 return fmt::format(
                     "{} needs N = kD with k even and 2 pipelines, got k = {}, {} pipelines",
                     strategy_of(p), p.micro_batches / p.stages, pipelines_of(p));
               }},
};

core::OptionValues pipelines_shape(const P& p) {
  core::OptionValues shape;
  shape.set("pipelines", std::int64_t{pipelines_of(p)});
  return shape;
}

// Search explores 2f pipelines for every f dividing D/2 (§3.6), and with N > D each way of
// scaling to N micro-batches; the odd D the generator refuses are left to it.
std::vector<SearchVariant> search_variants(const SearchContext& c) {
  std::vector<SearchVariant> variants;
  const int half = c.stages / 2;
  for (int f = 1; f <= std::max(half, 1); ++f) {
    if (half > 0 && half % f != 0) continue;
    std::vector<std::string> strategies{"direct"};
    if (c.micro_batches > c.stages) strategies = {"direct", "doubling", "halving"};
    for (const std::string& strategy : strategies) {
      SearchVariant v;
      v.options.set("pipelines", std::int64_t{2 * f});
      v.options.set("strategy", strategy);
      if (strategy == "halving") v.micro_batch_divisor = 2;
      variants.push_back(std::move(v));
    }
  }
  return variants;
}

}  // namespace

const ScheduleEntry& chimera_entry() {
  static const ScheduleEntry entry = [] {
    ScheduleEntry e;
    e.name = "chimera";
    e.description = "bidirectional: 2f pipelines (pipelines), strategy direct|doubling|halving";
    e.citation = "Li & Hoefler, Chimera, SC 2021";
    e.options = {
        // A schedule without the option runs one pipeline.
        core::with_unused_text(core::integer_option("pipelines", 1, kMaxStages, "2",
                                                    "chimera: 2f pipelines, f dividing D/2"),
                               "1"),
        core::choice_option("strategy", {"direct", "doubling", "halving"}, "direct",
                            "chimera with N = kD: how the basic units are combined"),
    };
    e.constraints = {kConstraints.begin(), kConstraints.end()};
    e.make = &make_chimera;
    e.shape = &pipelines_shape;
    e.variants = &search_variants;
    return e;
  }();
  return entry;
}

}  // namespace pipesim::schedules
