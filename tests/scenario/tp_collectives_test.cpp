// Tensor-parallel collectives as flows, end to end (scenario::simulate): a TP collective and a
// p2p transfer on one NVLink port slow each other exactly as max-min fairness says; without
// contention the collectives cost what the folded formula did; the time breakdown and the
// Chrome trace show them.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/report/chrome_trace.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/network.hpp"

namespace pipesim::scenario {
namespace {

// gpt3-175b's layer (h = 12288, s = 2048) on h100-dgx, t = 2: four workers per 8-GPU node, so
// every transfer and every TP collective is on NVLink ports. One layer per stage.
Scenario tp_scenario(int layers, int stages, int micro_batches, bool overlap) {
  models::ModelSpec m = models::load_model("gpt3-175b");
  m.layers = layers;
  Scenario s;
  s.schedule = "1f1b";
  s.params.stages = stages;
  s.params.micro_batches = micro_batches;
  s.perf.model = m.name;
  s.perf.model_spec = std::make_shared<const models::ModelSpec>(m);
  s.perf.hardware = "h100-dgx";
  s.perf.setup.tensor_parallel = 2;
  s.perf.setup.sequence_parallel = true;
  s.perf.setup.tp_comm_overlap = overlap;
  return s;
}

sim::TaskId find(const sim::TaskGraph& g, sim::OpKind kind, int worker, int micro_batch,
                 sim::OpKind carrier = sim::OpKind::Forward) {
  for (sim::TaskId v = 0; v < g.num_tasks(); ++v) {
    const sim::Task& t = g.task(v);
    if (t.kind == kind && t.worker == worker && t.micro_batch == micro_batch &&
        (kind != sim::OpKind::Collective || t.carrier == carrier)) {
      return v;
    }
  }
  ADD_FAILURE() << "no such task";
  return 0;
}

TEST(TpCollectives, ACollectiveAndATransferOnOnePortShareItMaxMinFairly) {
  // Overlapped (tp_comm_overlap): worker 0's F1 and its collective start when F0 (and F0's
  // collective) end, at the instant F0's activations leave for worker 1. The transfer and the
  // collective both use worker 0's send port: each moves data at full speed while alone on it,
  // at half speed while both do.
  const Scenario spec = tp_scenario(4, 4, 4, true);
  const Result r = simulate(spec);
  const sim::TaskGraph& g = r.graph;
  const sim::TaskId transfer = find(g, sim::OpKind::Transfer, 0, 0);
  const sim::TaskId collective = find(g, sim::OpKind::Collective, 0, 1);
  const sim::TaskId f1 = find(g, sim::OpKind::Forward, 0, 1);
  ASSERT_EQ(g.task(transfer).peer, 1);

  const cost::TrainingCostModel costs(*spec.perf.model_spec, r.perf->hardware, r.schedule,
                                      spec.perf.setup);
  const sim::Flow ft = costs.flow(g, transfer), fc = costs.flow(g, collective);
  // The transfer on ports out(0), in(1); the collective on out(0), in(0): each at share 1.
  const int d = spec.params.stages;
  ASSERT_EQ(ft.uses.size(), 2u);
  ASSERT_EQ(fc.uses.size(), 2u);
  EXPECT_EQ(ft.uses[0].resource, 0);
  EXPECT_EQ(ft.uses[1].resource, d + 1);
  EXPECT_EQ(fc.uses[0].resource, 0);
  EXPECT_EQ(fc.uses[1].resource, d + 0);
  for (const sim::ResourceUse& u : {ft.uses[0], ft.uses[1], fc.uses[0], fc.uses[1]})
    EXPECT_EQ(u.share, 1.0);

  // By hand. Both start at a; the transfer's data moves from a + α_t, the collective's from
  // a + α_c (its latency is 3 collective points × (all-gather + reduce-scatter) α terms, more
  // than the transfer's one α). Alone until then, the transfer has R = W_t − (α_c − α_t) left,
  // which it moves at ½ while the collective also moves at ½; then the collective finishes its
  // remaining W_c − R alone.
  const double a = r.trace.timing[transfer].start;
  EXPECT_EQ(r.trace.timing[collective].start, a);
  EXPECT_EQ(r.trace.timing[f1].start, a);
  ASSERT_LT(ft.latency, fc.latency);
  const double left = ft.work - (fc.latency - ft.latency);
  ASSERT_GT(left, 0.0);  // still moving when the collective's data starts
  ASSERT_LT(left, fc.work);
  const double transfer_end = a + fc.latency + 2 * left;
  const double collective_end = transfer_end + (fc.work - left);
  EXPECT_NEAR(r.trace.timing[transfer].end, transfer_end, 1e-12);
  EXPECT_NEAR(r.trace.timing[collective].end, collective_end, 1e-12);
  // Both slower than alone.
  EXPECT_GT(r.trace.timing[transfer].end - a, ft.latency + ft.work + 1e-6);
  EXPECT_GT(r.trace.timing[collective].end - a, fc.latency + fc.work + 1e-6);
  // The collective is as long as the stage-0 forward's collectives alone: the embedding's and
  // the layer's two points, each an all-gather and a reduce-scatter over t = 2 ranks.
  const auto& hw = r.perf->hardware;
  const double n = 1.0 * 2048 * 12288 * 2;  // b·s·h bf16 elements
  EXPECT_NEAR(fc.latency, 3 * 2 * hw.intra_node.alpha, 1e-15);
  EXPECT_NEAR(fc.work, 3 * 2 * 0.5 * n / hw.intra_node.effective_beta(), 1e-12);
}

TEST(TpCollectives, WithoutContentionTheyCostWhatTheFoldedFormulaDid) {
  // t = 8 fills a node: each worker is a node, transfers use NICs and each worker's
  // collectives alone use its NVLink ports. The run matches the graph lowered without
  // Collective tasks, where each op's duration folds its collectives in (to rounding).
  for (bool overlap : {false, true}) {
    SCOPED_TRACE(overlap);
    Scenario spec = tp_scenario(8, 4, 8, overlap);
    spec.perf.setup.tensor_parallel = 8;
    const Result r = simulate(spec);
    ASSERT_TRUE(r.graph.has_collectives());
    const cost::TrainingCostModel costs(*spec.perf.model_spec, r.perf->hardware, r.schedule,
                                        spec.perf.setup);
    const sim::TaskGraph folded = sim::build_task_graph(r.schedule);
    ASSERT_FALSE(folded.has_collectives());
    const sim::Trace t = sim::simulate_network(folded, costs, costs, {});
    const double end = std::max_element(t.timing.begin(), t.timing.end(), [](auto& x, auto& y) {
                         return x.end < y.end;
                       })->end;
    EXPECT_NEAR(r.metrics.iteration_time, end, 1e-12 * end);
    // Serialised, a worker's collectives are exposed communication; either way the breakdown
    // adds up to the iteration.
    for (size_t w = 0; w < r.perf->time.size(); ++w) {
      const sim::WorkerTime& wt = r.perf->time[w];
      EXPECT_NEAR(wt.compute + wt.exposed_communication + wt.idle, r.metrics.iteration_time,
                  1e-12 * r.metrics.iteration_time);
      double collectives = 0.0;
      for (sim::TaskId v = 0; v < r.graph.num_tasks(); ++v) {
        const sim::Task& task = r.graph.task(v);
        if (task.kind == sim::OpKind::Collective && task.worker == static_cast<int>(w))
          collectives += r.trace.timing[v].end - r.trace.timing[v].start;
      }
      EXPECT_GT(collectives, 0.0);
      if (!overlap) {
        EXPECT_GE(wt.exposed_communication, collectives * (1 - 1e-12));
      }
      // busy counts compute ops only, not their collectives.
      double busy = 0.0;
      for (sim::TaskId v = 0; v < r.graph.num_tasks(); ++v) {
        const sim::Task& task = r.graph.task(v);
        if (sim::is_compute(task.kind) && task.worker == static_cast<int>(w))
          busy += r.trace.timing[v].end - r.trace.timing[v].start;
      }
      EXPECT_NEAR(r.metrics.workers[w].busy, busy, 1e-12 * busy);
    }
  }
}

TEST(TpCollectives, ChromeTraceShowsThemOnTheCollectiveTrack) {
  const Result r = simulate(tp_scenario(4, 4, 4, false));
  const auto trace = report::chrome_trace(r, "tp");
  size_t shown = 0, expected = 0;
  for (sim::TaskId v = 0; v < r.graph.num_tasks(); ++v)
    expected += r.graph.task(v).kind == sim::OpKind::Collective ? 1 : 0;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("cat") != "collective") continue;
    const std::string name = e.at("name");
    if (name.rfind("C ", 0) != 0) continue;  // the gradient all-reduces are named otherwise
    ++shown;
    EXPECT_EQ(e.at("tid"), 2);  // the "collective" thread of the worker's process
    EXPECT_TRUE(name == "C F" + std::to_string(e.at("args").at("micro_batch").get<int>()) ||
                name == "C B" + std::to_string(e.at("args").at("micro_batch").get<int>()))
        << name;
  }
  EXPECT_GT(expected, 0u);
  EXPECT_EQ(shown, expected);
  // The collective track is named so in every worker's process.
  size_t named = 0;
  for (const auto& e : trace.at("traceEvents")) {
    named += e.at("ph") == "M" && e.at("name") == "thread_name" && e.at("tid") == 2 &&
                     e.at("args").at("name") == "collective"
                 ? 1
                 : 0;
  }
  EXPECT_EQ(named, static_cast<size_t>(r.graph.workers()));
}

}  // namespace
}  // namespace pipesim::scenario
