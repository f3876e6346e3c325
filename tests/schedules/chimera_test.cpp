// Chimera against the paper: the D = 4 orders printed in docs/architecture.md §3, the D = 4, N = 8
// orders of the paper's runtime (docs/architecture.md §3), the bubble ratio (D-2f)/(2fN+D-2f) at
// t_B = t_F, the activation range [D - D/2f + 1, D], micro-batch numbering (docs/architecture.md
// §7), eager all-reduce, and one clear error for each invalid parameter.

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "../support/run_helpers.hpp"
#include "pipesim/core/config_error.hpp"

namespace pipesim {
namespace {

using schedules::ScheduleParams;

// Chimera's parameters; 0 pipelines and an empty strategy leave the scheme's defaults.
ScheduleParams chimera(int d, int n, int pipelines = 0, std::string strategy = "") {
  ScheduleParams p;
  p.stages = d;
  p.micro_batches = n;
  if (pipelines > 0) p.options.set("pipelines", std::int64_t{pipelines});
  if (!strategy.empty()) p.options.set("strategy", std::move(strategy));
  return p;
}

// "F0 F1 B2 ..." for one worker, leaving out recomputation ops.
std::string order(const sim::Schedule& s, int worker) {
  std::ostringstream out;
  for (const sim::Op& op : s.program[static_cast<size_t>(worker)]) {
    if (op.kind == sim::OpKind::Recompute) continue;
    if (out.tellp() > 0) out << ' ';
    out << sim::op_letter(op.kind) << op.micro_batch;
  }
  return out.str();
}

TEST(Chimera, BasicUnitOrdersAreDesignMds) {
  const sim::Schedule s = schedules::make_schedule("chimera", chimera(4, 4));
  EXPECT_EQ(order(s, 0), "F0 F1 F2 B2 F3 B3 B0 B1");
  EXPECT_EQ(order(s, 1), "F0 F2 F1 F3 B2 B0 B3 B1");
  EXPECT_EQ(order(s, 2), "F2 F0 F3 F1 B0 B2 B1 B3");
  EXPECT_EQ(order(s, 3), "F2 F3 F0 B0 F1 B1 B2 B3");
  EXPECT_FALSE(s.recompute);
}

TEST(Chimera, DirectConcatenationWorkerZeroIsThePapers) {
  const sim::Schedule s = schedules::make_schedule("chimera", chimera(4, 8, 2, "direct"));
  EXPECT_EQ(order(s, 0), "F0 F1 F2 B2 F3 B3 B0 F4 B1 F5 F6 B6 F7 B7 B4 B5");
}

TEST(Chimera, ForwardDoublingWorkerZeroIsThePapersWithRecomputation) {
  const sim::Schedule s = schedules::make_schedule("chimera", chimera(4, 8, 2, "doubling"));
  EXPECT_EQ(order(s, 0), "F0 F1 F4 F5 F2 F3 B2 F6 F7 B3 B0 B6 B1 B7 B4 B5");
  EXPECT_TRUE(s.recompute);
  for (const auto& ops : s.program) {
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].kind != sim::OpKind::Backward) continue;
      ASSERT_GT(i, 0u);
      EXPECT_EQ(ops[i - 1].kind, sim::OpKind::Recompute);
      EXPECT_EQ(ops[i - 1].micro_batch, ops[i].micro_batch);
    }
  }
}

TEST(Chimera, BackwardHalvingIsTheDoubledOrderWithoutRecomputation) {
  for (int d : {2, 4, 6, 8}) {
    for (int k : {2, 4}) {
      const sim::Schedule doubled =
          schedules::make_schedule("chimera", chimera(d, k * d, 2, "doubling"));
      const sim::Schedule halved =
          schedules::make_schedule("chimera", chimera(d, k * d, 2, "halving"));
      EXPECT_FALSE(halved.recompute);
      for (int w = 0; w < d; ++w)
        EXPECT_EQ(order(halved, w), order(doubled, w));
      for (const auto* s : {&doubled, &halved}) {
        const core::Check v = sim::validate(*s);
        EXPECT_TRUE(v.ok()) << "D=" << d << " k=" << k << ": "
                            << (v.ok() ? "" : v.problem().what());
      }
    }
  }
}

TEST(Chimera, MicroBatchNumberingFollowsDesignMd) {
  // D = 8, f = 2: unit u gives down pipeline i the ids uD + i·D/(2f) + x, up pipeline i the ids
  // uD + D/2 + i·D/(2f) + x.
  const sim::Schedule s = schedules::make_schedule("chimera", chimera(8, 16, 4));
  const int d = 8, f = 2, share = d / (2 * f);
  for (int u = 0; u < 2; ++u) {
    for (int i = 0; i < f; ++i) {
      for (int x = 0; x < share; ++x) {
        EXPECT_EQ(s.micro_batch_pipeline[static_cast<size_t>(u * d + i * share + x)], i);
        EXPECT_EQ(s.micro_batch_pipeline[static_cast<size_t>(u * d + d / 2 + i * share + x)],
                  f + i);
      }
    }
  }
  // Down pipeline i maps stage k to worker (k + i·D/f) mod D; up pipelines mirror.
  for (int i = 0; i < f; ++i) {
    for (int k = 0; k < d; ++k) {
      EXPECT_EQ(s.stage_worker[static_cast<size_t>(i)][static_cast<size_t>(k)],
                (k + i * d / f) % d);
      EXPECT_EQ(s.stage_worker[static_cast<size_t>(f + i)][static_cast<size_t>(k)],
                d - 1 - (k + i * d / f) % d);
    }
  }
}

TEST(Chimera, BubbleRatioAndActivationsMatchThePaperOverAGrid) {
  for (int d : {2, 4, 6, 8, 12, 16}) {
    for (int f = 1; f <= d / 2; ++f) {
      if ((d / 2) % f != 0) continue;
      for (int k : {1, 2, 3, 5}) {
        const int n = k * d;
        SCOPED_TRACE(::testing::Message() << "D=" << d << " f=" << f << " N=" << n);
        const testing::UnitRun r = testing::run_unit("chimera", chimera(d, n, 2 * f), {1, 1, 0, 0});
        const double dd = d, nn = n, ff = f;
        EXPECT_NEAR(r.metrics.bubble_ratio, (dd - 2 * ff) / (2 * ff * nn + dd - 2 * ff), 1e-12);
        // Critical path in slots: 2N + D/f - 2.
        EXPECT_DOUBLE_EQ(r.metrics.span, 2.0 * n + d / f - 2);
        for (const auto& w : r.metrics.workers) {
          EXPECT_GE(w.peak_activations, d - d / (2 * f) + 1) << "worker " << w.worker;
          EXPECT_LE(w.peak_activations, d) << "worker " << w.worker;
        }
      }
    }
  }
}

TEST(Chimera, DoublingRemovesTheIntermediateBubblesOfDirectAtTbTwiceTf) {
  // With t_B = 2t_F direct concatenation leaves bubbles between units that forward doubling
  // fills (§3.5): without counting the recomputation, doubling's span is shorter.
  for (int d : {4, 8}) {
    const auto direct = testing::run_unit("chimera", chimera(d, 4 * d, 2, "direct"), {1, 2, 0, 0});
    const auto halving =
        testing::run_unit("chimera", chimera(d, 4 * d, 2, "halving"), {1, 2, 0, 0});
    EXPECT_LT(halving.metrics.span, direct.metrics.span) << "D=" << d;
  }
}

TEST(Chimera, AllReduceOfAStageStartsRightAfterItsLastBackward) {
  const testing::UnitRun r = testing::run_unit("chimera", chimera(4, 8), {1, 2, 0, 0});
  int reductions = 0;
  for (sim::TaskId t = 0; t < r.graph.num_tasks(); ++t) {
    const sim::Task& task = r.graph.task(t);
    if (task.kind != sim::OpKind::AllReduce) continue;
    ++reductions;
    // Both replicas of the stage (down on one worker, up on its mirror) take part.
    EXPECT_EQ(r.graph.group_workers()[static_cast<size_t>(task.group)].size(), 2u);
    double last_backward = 0.0;
    for (sim::TaskId u = 0; u < r.graph.num_tasks(); ++u) {
      const sim::Task& b = r.graph.task(u);
      if (b.kind == sim::OpKind::Backward && b.stage == task.stage) {
        last_backward = std::max(last_backward, r.trace.timing[u].end);
      }
    }
    EXPECT_DOUBLE_EQ(r.trace.timing[t].start, last_backward) << "stage " << task.stage;
  }
  EXPECT_EQ(reductions, 4);
  // Eager: the outer stages finish their backwards before the pipeline does.
  double earliest = 1e300;
  for (sim::TaskId t = 0; t < r.graph.num_tasks(); ++t) {
    if (r.graph.task(t).kind == sim::OpKind::AllReduce) {
      earliest = std::min(earliest, r.trace.timing[t].start);
    }
  }
  EXPECT_LT(earliest, r.metrics.span);
}

// Search explores 2f pipelines for every f dividing D/2 and, with N > D, every strategy (§3.6).
TEST(Chimera, SearchVariantsArePipelinesDividingHalfDAndStrategiesWhenNExceedsD) {
  const schedules::ScheduleEntry* e = schedules::find_schedule("chimera");
  ASSERT_NE(e->variants, nullptr);
  auto variants = [&](int d, int n) {
    std::set<std::string> out;
    for (const schedules::SearchVariant& v : e->variants({d, n, 64})) {
      EXPECT_TRUE(v.pruned.empty());
      out.insert(std::to_string(v.options.integer("pipelines")) + v.options.text("strategy"));
    }
    return out;
  };
  EXPECT_EQ(variants(8, 16),
            (std::set<std::string>{"2direct", "2doubling", "2halving", "4direct", "4doubling",
                                   "4halving", "8direct", "8doubling", "8halving"}));
  EXPECT_EQ(variants(8, 8), (std::set<std::string>{"2direct", "4direct", "8direct"}));
  EXPECT_EQ(variants(12, 12), (std::set<std::string>{"2direct", "4direct", "6direct", "12direct"}));
}

struct BadChimera {
  ScheduleParams params;
  std::string option;
};

class ChimeraRejects : public ::testing::TestWithParam<BadChimera> {};

TEST_P(ChimeraRejects, NamesTheOptionInOneLine) {
  try {
    schedules::make_schedule("chimera", GetParam().params);
    FAIL() << "accepted";
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(e.is_option()) << what;
    EXPECT_EQ(e.field(), GetParam().option) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ChimeraRejects,
                         ::testing::Values(BadChimera{chimera(5, 5), "stages"},
                                           BadChimera{chimera(4, 4, 3), "pipelines"},
                                           BadChimera{chimera(4, 4, 8), "pipelines"},
                                           BadChimera{chimera(12, 12, 8), "pipelines"},
                                           BadChimera{chimera(4, 6), "micro_batches"},
                                           BadChimera{chimera(4, 4, 2, "tripling"), "strategy"},
                                           BadChimera{chimera(4, 12, 2, "doubling"), "strategy"},
                                           BadChimera{chimera(8, 16, 4, "halving"), "strategy"}));

}  // namespace
}  // namespace pipesim
