// Real-cost mode end to end (cli::run and the CLI in-process): the done-when configuration,
// recomputation trade-off, placement and overlap effects, and bad model/hardware input.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/cli_invoke.hpp"
#include "../support/hand_chimera.hpp"
#include "cli/commands.hpp"
#include "pipesim/cost/training_cost_model.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/transformer.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/sim/lowering.hpp"
#include "pipesim/sim/network.hpp"

namespace pipesim::scenario {
namespace {

using pipesim::testing::CliResult;
// One in-process CLI runner for every test (tests/support/cli_invoke.hpp).
const auto invoke = &pipesim::testing::invoke_cli;

Scenario spec(const std::string& schedule, int d, int n, const std::string& model,
              const std::string& hw, int b, int w) {
  Scenario s;
  s.schedule = schedule;
  s.params.stages = d;
  s.params.micro_batches = n;
  s.perf.model = model;
  s.perf.hardware = hw;
  s.perf.setup.micro_batch_size = b;
  s.perf.setup.data_parallel = w;
  return s;
}

TEST(RealCost, DoneWhenConfigurationIsCompleteAndConsistent) {
  // The documented example with 1f1b.
  const CliResult r = invoke({"simulate", "--schedule", "1f1b", "--stages", "32", "--micro-batches",
                              "32", "--micro-batch-size", "1", "--data-parallel", "16", "--model",
                              "gpt2-1.3b", "--hardware", "p100-daint", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("mode"), "real-cost");
  EXPECT_EQ(j.at("gpus"), 512);
  const double t = j.at("iteration_time").get<double>();
  EXPECT_GT(t, 0.0);
  EXPECT_NEAR(j.at("throughput").get<double>() * t, 512.0, 1e-9);  // B̂ = B·N·W
  EXPECT_NEAR(j.at("tokens_per_second").get<double>(), j.at("throughput").get<double>() * 632,
              1e-6);
  EXPECT_GT(j.at("mfu").get<double>(), 0.0);
  EXPECT_LT(j.at("mfu").get<double>(), 1.0);
  EXPECT_TRUE(j.at("fits_memory").get<bool>());
  EXPECT_DOUBLE_EQ(j.at("model_params").get<double>(), 1389327360.0);
  ASSERT_EQ(j.at("per_worker").size(), 32u);
  for (const auto& w : j.at("per_worker")) {
    const auto& m = w.at("memory");
    const double sum = m.at("weights").get<double>() + m.at("gradients").get<double>() +
                       m.at("optimizer").get<double>() + m.at("activations").get<double>() +
                       m.at("other").get<double>();
    EXPECT_NEAR(sum, w.at("peak_memory").get<double>(), 1e-3);
    const double parts = w.at("compute_time").get<double>() +
                         w.at("exposed_communication_time").get<double>() +
                         w.at("idle_time").get<double>();
    EXPECT_NEAR(parts, t, 1e-9 * t);
  }
}

TEST(RealCost, DoneWhenWithTheRegisteredChimera) {
  // The documented Chimera example, verbatim.
  if (schedules::find_schedule("chimera") == nullptr) GTEST_SKIP() << "chimera not registered";
  const CliResult r =
      invoke({"simulate", "--schedule", "chimera", "--stages", "32", "--micro-batches", "32",
              "--micro-batch-size", "1", "--data-parallel", "16", "--model", "gpt2-1.3b",
              "--hardware", "p100-daint", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("pipelines"), 2);
  EXPECT_NEAR(j.at("throughput").get<double>() * j.at("iteration_time").get<double>(), 512.0, 1e-9);
  EXPECT_TRUE(j.at("fits_memory").get<bool>());
  // Chimera's worker 0 holds stage 0 and stage D−1: twice 1F1B's worker-0 weights and more.
  const CliResult one = invoke({"simulate", "--schedule", "1f1b", "--stages", "32",
                                "--micro-batches", "32", "--data-parallel", "16", "--model",
                                "gpt2-1.3b", "--hardware", "p100-daint", "--format", "json"});
  const auto k = nlohmann::json::parse(one.out);
  double chimera_weights = 0, one_weights = 0;
  for (const auto& w : j.at("per_worker"))
    chimera_weights += w.at("memory").at("weights").get<double>();
  for (const auto& w : k.at("per_worker"))
    one_weights += w.at("memory").at("weights").get<double>();
  EXPECT_DOUBLE_EQ(chimera_weights, 2 * one_weights);
  // Bidirectional pipelines fill the bubbles 1F1B leaves at D = N = 32.
  EXPECT_GT(j.at("throughput").get<double>(), k.at("throughput").get<double>());
}

TEST(RealCost, FullRecomputationCutsActivationMemoryAndAddsTime) {
  Scenario s = spec("1f1b", 8, 16, "gpt2-32l", "a100-dgx", 4, 1);
  const Result none = simulate(s);
  s.perf.setup.recompute = models::Recompute::Full;
  const Result full = simulate(s);
  s.perf.setup.recompute = models::Recompute::Selective;
  const Result selective = simulate(s);
  for (size_t w = 0; w < 8; ++w) {
    EXPECT_LT(full.perf->memory[w].at_peak.activations,
              selective.perf->memory[w].at_peak.activations);
    EXPECT_LT(selective.perf->memory[w].at_peak.activations,
              none.perf->memory[w].at_peak.activations);
  }
  EXPECT_GT(full.metrics.iteration_time, selective.metrics.iteration_time);
  EXPECT_GT(selective.metrics.iteration_time, none.metrics.iteration_time);
  // The model FLOPs (MFU numerator) do not count recomputation.
  EXPECT_DOUBLE_EQ(full.perf->model_flops_per_iteration, none.perf->model_flops_per_iteration);
}

TEST(RealCost, MemoryReturnsToStaticAndNeverGoesNegative) {
  for (const char* schedule : {"gpipe", "1f1b"}) {
    const Result r = simulate(spec(schedule, 4, 8, "bert-48", "v100-dgx1", 8, 2));
    for (const auto& m : r.perf->memory) {
      EXPECT_GE(m.minimum, m.static_memory.total() * (1 - 1e-12));
      EXPECT_NEAR(m.final, m.static_memory.total(), 1e-6 * m.static_memory.total());
    }
  }
}

TEST(RealCost, TheAllocatedPeakLeavesOutTheProfilesMemoryOverheads) {
  // The fit check counts the CUDA context and the allocator's slack; the allocated peak (what
  // torch.cuda.max_memory_allocated reports) does not: peak = allocated · (1 + f) + reserved.
  hardware::HardwareProfile hw = hardware::load_profile("p100-daint");
  ASSERT_GT(hw.memory.reserved_bytes, 0.0);
  for (const double f : {0.0, 0.1}) {
    hw.memory.fragmentation = f;
    Scenario s = spec("1f1b", 8, 8, "gpt2-1.3b", "p100-daint", 1, 1);
    s.perf.hardware_profile = std::make_shared<const hardware::HardwareProfile>(hw);
    const Result r = simulate(s);
    EXPECT_NEAR(r.perf->peak_memory, r.perf->peak_allocated * (1 + f) + hw.memory.reserved_bytes,
                1e-9 * r.perf->peak_memory);
    EXPECT_EQ(r.perf->fits_memory, r.perf->peak_memory <= hw.gpu.memory_bytes);
  }
}

TEST(RealCost, ChimeraWeightsAreTwiceOneFOneBs) {
  // Hand-built Chimera (two pipelines) through the same cost model and memory tracker.
  const models::ModelSpec model = models::load_model("gpt2-32l");
  const hardware::HardwareProfile hw = hardware::load_profile("p100-daint");
  cost::TrainingSetup setup;
  const sim::Schedule chimera = testing::hand_chimera(8);
  schedules::ScheduleParams p;
  p.stages = 8;
  p.micro_batches = 8;
  const sim::Schedule one = schedules::make_schedule("1f1b", p);
  auto weights = [&](const sim::Schedule& s) {
    const cost::TrainingCostModel costs(model, hw, s, setup);
    const sim::TaskGraph g = sim::build_task_graph(s);
    const sim::Trace t = sim::simulate_network(g, costs, costs, {});
    EXPECT_TRUE(t.completed);
    double total = 0;
    for (const auto& m : sim::track_memory(s, g, t, costs.stage_memory())) {
      total += m.static_memory.weights;
    }
    return total;
  };
  EXPECT_DOUBLE_EQ(weights(chimera), 2 * weights(one));
}

TEST(RealCost, TwoPipelinesReduceOver2WRanks) {
  // Chimera's stage s lives on two workers per replica: its all-reduce spans 2·W ranks.
  const models::ModelSpec model = models::load_model("gpt2-32l");
  hardware::HardwareProfile hw = hardware::load_profile("p100-daint");
  hw.all_reduce = hardware::AllReduceAlgorithm::Ring;  // the closed form below, whatever the file
  cost::TrainingSetup setup;
  setup.data_parallel = 4;
  const sim::Schedule s = testing::hand_chimera(4);
  const cost::TrainingCostModel costs(model, hw, s, setup);
  const sim::TaskGraph g = sim::build_task_graph(s);
  for (sim::TaskId t = 0; t < g.num_tasks(); ++t) {
    if (g.task(t).kind != sim::OpKind::AllReduce) continue;
    ASSERT_EQ(g.group_workers()[static_cast<size_t>(g.task(t).group)].size(), 2u);
    const double bytes = costs.stage_memory()[static_cast<size_t>(g.task(t).stage)].gradients;
    const double r = 8;  // 2 holders × W = 4
    const sim::Flow f = costs.flow(g, t);
    EXPECT_DOUBLE_EQ(f.latency, 2 * (r - 1) * hw.inter_node.alpha);
    EXPECT_DOUBLE_EQ(f.work,
                     2 * (r - 1) / r * bytes / (hw.inter_node.beta * hw.inter_node.efficiency));
  }
}

TEST(RealCost, PlacementDecidesTheTierAndNicSharing) {
  // v100-dgx1: 8 GPUs and 4 NICs per node. Pipeline-major keeps a D = 4 replica in one node
  // (p2p on NVLink); data-major puts a worker's 8 replicas in one node, so p2p crosses nodes
  // and the 2 replicas behind each NIC send at once: the first transfer, alone on its path,
  // takes α + 2n/β on the inter-node tier.
  Scenario s = spec("1f1b", 4, 8, "gpt2-32l", "v100-dgx1", 1, 8);
  s.perf.setup.placement = hardware::PlacementMode::PipelineMajor;
  const hardware::HardwareProfile hw = hardware::load_profile("v100-dgx1");
  const double n =
      models::p2p_message_bytes(models::load_model("gpt2-32l"), models::LayerConfig{}).value;
  auto first_transfer = [](const Result& r) {
    for (sim::TaskId t = 0; t < r.graph.num_tasks(); ++t) {
      if (r.graph.task(t).kind == sim::OpKind::Transfer && r.graph.task(t).worker == 0) {
        return r.trace.timing[t].end - r.trace.timing[t].start;
      }
    }
    return -1.0;
  };
  EXPECT_NEAR(first_transfer(simulate(s)), hw.intra_node.alpha + n / hw.intra_node.beta, 1e-12);
  s.perf.setup.placement = hardware::PlacementMode::DataMajor;
  EXPECT_NEAR(first_transfer(simulate(s)), hw.inter_node.alpha + 2 * n / hw.inter_node.beta, 1e-12);
}

TEST(RealCost, BubbleRatioIsTheIdleShareExposedCommunicationApart) {
  // GPT-2 on 8 P100 nodes, 4 replicas: transfers and all-reduces over the NICs, so every worker
  // computes, waits on communication and idles.
  Scenario s = spec("1f1b", 8, 16, "gpt2-32l", "p100-daint", 1, 4);
  const Result r = simulate(s);
  ASSERT_TRUE(r.perf);
  double compute = 0, exposed = 0, idle = 0;
  for (const sim::WorkerTime& t : r.perf->time) {
    compute += t.compute;
    exposed += t.exposed_communication;
    idle += t.idle;
  }
  ASSERT_GT(exposed, 0.0);
  ASSERT_GT(idle, 0.0);
  EXPECT_NEAR(r.metrics.bubble_ratio, idle / (compute + exposed + idle), 1e-12);
  // The GPipe/Chimera share of not computing holds both.
  EXPECT_NEAR(1 - compute / (compute + exposed + idle),
              r.metrics.bubble_ratio + exposed / (compute + exposed + idle), 1e-12);
}

TEST(RealCost, BlockingP2PIsNeverFaster) {
  Scenario s = spec("1f1b", 8, 16, "gpt2-32l", "p100-daint", 1, 1);
  const double on = simulate(s).metrics.iteration_time;
  s.perf.overlap_p2p = false;
  EXPECT_GE(simulate(s).metrics.iteration_time, on);
}

TEST(RealCost, OutputIsByteIdenticalAcrossRuns) {
  const std::vector<std::string> args{"simulate", "-D",         "8",        "-N",   "16", "--model",
                                      "gpt2-32l", "--hardware", "a100-dgx", "-B",   "2",  "-W",
                                      "4",        "--format",   "json",     "--ops"};
  EXPECT_EQ(invoke(args).out, invoke(args).out);
  const CliResult csv = invoke(
      {"simulate", "-D", "8", "--model", "gpt2-32l", "--hardware", "a100-dgx", "--format", "csv"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_NE(csv.out.find("throughput"), std::string::npos);
  const CliResult text =
      invoke({"simulate", "-D", "8", "--model", "gpt2-32l", "--hardware", "a100-dgx"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("throughput"), std::string::npos);
}

TEST(RealCost, MemoryTimelineInJsonAndTraceCounterTrackMatchThePeaks) {
  const std::filesystem::path trace_path =
      std::filesystem::temp_directory_path() /
      ("pipesim_memory_trace_" + std::to_string(::getpid()) + ".json");
  const CliResult r = invoke({"simulate", "--schedule", "1f1b", "-D", "4", "-N", "8", "--model",
                              "gpt2-32l", "--hardware", "p100-daint", "--memory-timeline",
                              "--format", "json", "--trace", trace_path.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& workers = j.at("per_worker");
  ASSERT_EQ(workers.size(), 4u);
  for (const auto& w : workers) {
    const auto& timeline = w.at("memory_timeline");
    ASSERT_GE(timeline.size(), 2u);
    EXPECT_EQ(timeline.front()[0].get<double>(), 0.0);
    EXPECT_EQ(timeline.front()[1].get<double>(), w.at("static_memory").get<double>());
    double hi = 0, prev_t = 0;
    for (const auto& sample : timeline) {
      EXPECT_GE(sample[0].get<double>(), prev_t);
      prev_t = sample[0].get<double>();
      hi = std::max(hi, sample[1].get<double>());
    }
    EXPECT_EQ(hi, w.at("peak_memory").get<double>());
    EXPECT_NEAR(timeline.back()[1].get<double>(), w.at("static_memory").get<double>(),
                1e-9 * w.at("static_memory").get<double>());
  }
  // The trace: one "memory" counter series per worker process, its max the worker's peak.
  std::ifstream in(trace_path);
  const auto trace = nlohmann::json::parse(in);
  std::filesystem::remove(trace_path);
  std::map<int, double> max_by_pid;
  std::map<int, size_t> samples_by_pid;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "C") continue;
    EXPECT_EQ(e.at("name"), "memory");
    const int pid = e.at("pid").get<int>();
    const double bytes = e.at("args").at("bytes").get<double>();
    max_by_pid[pid] = std::max(max_by_pid.count(pid) ? max_by_pid[pid] : 0.0, bytes);
    ++samples_by_pid[pid];
  }
  ASSERT_EQ(max_by_pid.size(), 4u);
  for (int w = 0; w < 4; ++w) {
    EXPECT_EQ(max_by_pid.at(w), workers[static_cast<size_t>(w)].at("peak_memory").get<double>());
    EXPECT_EQ(samples_by_pid.at(w), workers[static_cast<size_t>(w)].at("memory_timeline").size());
  }
}

TEST(RealCost, MemoryTimelineIsOptIn) {
  const CliResult plain = invoke({"simulate", "-D", "4", "--model", "gpt2-32l", "--hardware",
                                  "p100-daint", "--format", "json"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("memory_timeline"), std::string::npos);
  const Result r = simulate(spec("1f1b", 4, 8, "gpt2-32l", "p100-daint", 1, 1));
  for (const auto& m : r.perf->memory)
    EXPECT_TRUE(m.timeline.empty());
}

TEST(RealCost, MemoryTimelineInUnitCostModeIsOneLineExit2) {
  const CliResult r = invoke({"simulate", "-D", "4", "--memory-timeline", "--format", "json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "pipesim: error: command line: --memory-timeline: needs real-cost mode (--model and "
            "--hardware)\n");
}

// Bad model or hardware files: one line naming the file and the field, exit code 2.
class BadFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("pipesim_real_cost_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string shipped(const std::string& rel) {
    const char* root = std::getenv("PIPESIM_SOURCE_DIR");
    std::ifstream in(std::string(root ? root : ".") + "/" + rel);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string write(const std::string& name, std::string text, const std::string& from,
                    const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  void expect_one_line(const std::vector<std::string>& extra, const std::string& file,
                       const std::string& field) {
    std::vector<std::string> args{"simulate", "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = invoke(args);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("pipesim: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(file + ": " + field + ": "), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  std::filesystem::path dir_;
};

TEST_F(BadFiles, ModelYaml) {
  const std::string m = shipped("models/gpt2-32l.yaml");
  auto check = [&](const std::string& name, const std::string& from, const std::string& to,
                   const std::string& field) {
    const std::string path = write(name, m, from, to);
    expect_one_line({"--model", path, "--hardware", "a100-dgx"}, path, field);
  };
  check("missing.yaml", "hidden: 1280\n", "", "hidden");
  check("type.yaml", "hidden: 1280", "hidden: [1280]", "hidden");
  check("zero.yaml", "layers: 32", "layers: 0", "layers");
  check("negative.yaml", "vocabulary: 50257", "vocabulary: -50257", "vocabulary");
  check("unknown.yaml", "bias: true", "bias: true\ndropout: 0.1", "dropout");
}

TEST_F(BadFiles, HardwareYaml) {
  const std::string h = shipped("hardware/a100-dgx.yaml");
  auto check = [&](const std::string& name, const std::string& from, const std::string& to,
                   const std::string& field) {
    const std::string path = write(name, h, from, to);
    expect_one_line({"--model", "gpt2-32l", "--hardware", path}, path, field);
  };
  check("missing.yaml", "  kernel_launch: 4.0e-6\n", "", "gpu.kernel_launch");
  check("type.yaml", "gpus_per_node: 8", "gpus_per_node: many", "node.gpus_per_node");
  check("zero.yaml", "hbm_bandwidth: 2.039e12", "hbm_bandwidth: 0", "gpu.hbm_bandwidth");
  check("negative.yaml", "memory_bytes: 85899345920", "memory_bytes: -8", "gpu.memory_bytes");
  check("unknown.yaml", "interference: 0.0", "interference: 0.0\ncolour: red", "colour");
}

TEST_F(BadFiles, UnknownNamesAndMissingPartner) {
  expect_one_line({"--model", "gpt-9", "--hardware", "a100-dgx"}, "command line", "--model");
  expect_one_line({"--model", "gpt2-32l", "--hardware", "tpu"}, "command line", "--hardware");
  expect_one_line({"--model", "gpt2-32l"}, "command line", "--hardware");
  expect_one_line({"--model", "gpt2-32l", "--hardware", "a100-dgx", "-D", "33"}, "command line",
                  "--stages");
  expect_one_line({"--model", "gpt2-32l", "--hardware", "a100-dgx", "--recompute", "some"},
                  "command line", "--recompute");
  expect_one_line({"--model", "gpt2-32l", "--hardware", "p100-daint", "--bytes-per-param", "3"},
                  "command line", "--bytes-per-param");
  expect_one_line({"--model", "llama2-7b", "--hardware", "p100-daint"}, "hardware/p100-daint.yaml",
                  "gpu.peak_flops.bf16");
}

// search's table skips the replay of a run that does not fit (Scenario::skip_replay_when_oom):
// the row must say oom exactly when the replayed row does, with the same peaks to the bit, and a
// run that fits is replayed as always. Capacities below, at and above the peaks of each scheme.
TEST(RealCost, SkippingTheReplayOfAnOomRunKeepsItsStatusAndPeaks) {
  int skipped = 0;
  for (const char* name : {"1f1b", "gpipe", "zb-h1", "interleaved", "chimera", "pipedream-2bw"}) {
    Scenario base = spec(name, 8, 16, "gpt2-1.3b", "p100-daint", 2, 2);
    const Result full = simulate(base);
    ASSERT_TRUE(full.perf.has_value());
    const double peak = full.perf->peak_memory;
    for (const double capacity : {0.5 * peak, peak, 2.0 * peak}) {
      auto hw = std::make_shared<hardware::HardwareProfile>(hardware::load_profile("p100-daint"));
      hw->gpu.memory_bytes = capacity;
      Scenario s = base;
      s.perf.hardware_profile = hw;
      const Result replayed = simulate(s);
      s.skip_replay_when_oom = true;
      const Result quick = simulate(s);
      const std::string where = fmt::format("{} at {:.0f} bytes", name, capacity);
      ASSERT_TRUE(quick.perf.has_value()) << where;
      EXPECT_EQ(quick.perf->fits_memory, replayed.perf->fits_memory) << where;
      EXPECT_EQ(quick.perf->fits_memory, capacity >= peak) << where;
      EXPECT_EQ(quick.perf->peak_memory, replayed.perf->peak_memory) << where;
      ASSERT_EQ(quick.perf->memory.size(), replayed.perf->memory.size()) << where;
      for (size_t w = 0; w < quick.perf->memory.size(); ++w) {
        EXPECT_EQ(quick.perf->memory[w].peak, replayed.perf->memory[w].peak) << where;
      }
      if (quick.perf->fits_memory) {
        EXPECT_EQ(quick.metrics.iteration_time, replayed.metrics.iteration_time) << where;
      } else {
        EXPECT_FALSE(quick.trace.completed) << where << ": no replay ran";
        ++skipped;
      }
    }
  }
  EXPECT_EQ(skipped, 6);
}

}  // namespace
}  // namespace pipesim::scenario
