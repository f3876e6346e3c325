// A profiler trace beside pipesim's prediction. The DeepSeek-V3 example trace (rebuilt by
// calibrate/examples/make_trace.py from the per-phase facts that tools/trace-facts.py derived,
// in Python, from DeepSeek's published trace) is checked against those facts; the prediction
// against hardware/'s all-to-all called here on its own; the samples a trace gives against
// hand-built traces; and the fits of attention and grouped-GEMM samples against efficiencies
// the samples were built at.

#include "pipesim/calibrate/trace_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "pipesim/calibrate/calibration_fit.hpp"
#include "pipesim/calibrate/profile_yaml.hpp"
#include "pipesim/calibrate/profiler_trace.hpp"
#include "pipesim/calibrate/samples.hpp"
#include "pipesim/calibrate/trace_ops.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/cost/expert_parallel.hpp"
#include "pipesim/hardware/collectives.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/models/transformer.hpp"
#include "test_paths.hpp"

namespace pipesim::calibrate {
namespace {

using json = nlohmann::json;

std::filesystem::path examples() {
  return testing::source_dir() / "calibrate" / "examples";
}

json facts() {
  std::ifstream in(examples() / "deepseek-v3-trace-facts.json");
  return json::parse(in);
}

// One trace and one run for every test of the suite: reading the example takes a moment.
const ProfilerTrace& deepseek_trace() {
  static const ProfilerTrace trace =
      read_profiler_trace(examples() / "deepseek-v3-synthetic-trace.json.gz");
  return trace;
}

// DeepSeek's pre-training layout as its trace's README gives it: EP64, TP1, 4K tokens, FP8.
cost::TrainingSetup deepseek_setup() {
  cost::TrainingSetup s;
  s.expert_parallel = 64;
  s.micro_batch_size = 1;
  s.sequence = 4096;
  s.precision = models::Precision::FP8;
  return s;
}

const TraceRun& deepseek_run() {
  static const TraceRun run = make_trace_run(models::load_model("deepseek-v3"),
                                             hardware::load_profile("h800-dgx"), deepseek_setup());
  return run;
}

void expect_relative(double actual, double expected, double tolerance, const std::string& what) {
  EXPECT_NEAR(actual, expected, tolerance * std::abs(expected)) << what;
}

// (a) The reader and the grouping agree with the independent Python facts.

TEST(TraceCheckFacts, PhasesMatchTheIndependentFacts) {
  const json f = facts();
  const ProfilerTrace& trace = deepseek_trace();
  EXPECT_EQ(trace.kernels.size(), f.at("kernels").get<std::size_t>());
  const double total_us = f.at("kernel_time_us").get<double>();
  expect_relative(trace.kernel_time(), total_us, 1e-9, "kernel time");
  EXPECT_EQ(trace.gpu(), f.at("gpu").get<std::string>());
  EXPECT_EQ(trace.rank, f.at("distributed").at("rank").get<int>());
  EXPECT_EQ(trace.world_size, f.at("distributed").at("world_size").get<int>());

  const TraceOps ops = group_kernels(trace);
  expect_relative(ops.seconds, total_us * 1e-6, 1e-9, "grouped seconds");
  EXPECT_EQ(ops.kernels, f.at("kernels").get<std::size_t>());
  std::map<std::string, const PhaseSummary*> by_name;
  for (const PhaseSummary& p : ops.phases)
    by_name[p.name] = &p;
  std::size_t with_kernels = 0;
  for (const PhaseSummary& p : ops.phases)
    with_kernels += p.kernels > 0 ? 1 : 0;
  EXPECT_EQ(with_kernels, f.at("phases").size());
  for (const json& fp : f.at("phases")) {
    const std::string name = fp.at("name").get<std::string>();
    ASSERT_TRUE(by_name.count(name)) << name;
    const PhaseSummary& p = *by_name[name];
    EXPECT_EQ(p.ranges, fp.at("ranges").get<std::size_t>()) << name;
    EXPECT_EQ(p.kernels, fp.at("kernels").get<std::size_t>()) << name;
    expect_relative(p.seconds, fp.at("us").get<double>() * 1e-6, 1e-9, name);
    // The facts' own per-name counts add up to the phase's.
    std::size_t count = 0;
    for (const json& k : fp.at("by_name"))
      count += k.at("count").get<std::size_t>();
    EXPECT_EQ(p.kernels, count) << name;
  }
  std::size_t recognised = 0;
  for (const PhaseSummary& p : ops.phases)
    recognised += p.phase.recognised() ? 1 : 0;
  EXPECT_GE(recognised, 10u);
}

TEST(TraceCheckFacts, DeepEpKernelsAreTheExpertCommunication) {
  // DeepEP's kernels (DeepSeek's build: dpsk::ep) in the facts, summed by name in Python; in the
  // grouping every one of them is a dispatch or a combine, and nothing else is.
  const json f = facts();
  double deep_ep_us = 0;
  for (const json& fp : f.at("phases")) {
    for (const json& k : fp.at("by_name")) {
      if (k.at("name").get<std::string>().find("dpsk::ep") != std::string::npos) {
        deep_ep_us += k.at("us").get<double>();
      }
    }
  }
  ASSERT_GT(deep_ep_us, 0.0);
  const TraceOps ops = group_kernels(deepseek_trace());
  double expert = 0;
  for (const TraceOp& op : ops.ops) {
    if (op.kind == KernelKind::dispatch || op.kind == KernelKind::combine) expert += op.seconds;
  }
  expect_relative(expert, deep_ep_us * 1e-6, 1e-9, "dispatch + combine");
  // Only dispatch kinds in dispatch phases, only combine kinds in combine phases.
  for (const TraceOp& op : ops.ops) {
    const Phase phase = parse_phase(op.phase);
    if (phase.block == Block::dispatch) {
      EXPECT_NE(op.kind, KernelKind::combine) << op.phase;
    }
    if (phase.block == Block::combine) {
      EXPECT_NE(op.kind, KernelKind::dispatch) << op.phase;
    }
  }
}

// (b) The comparison.

TEST(TraceCheckRun, RowsAddUpToTheTrace) {
  const ProfilerTrace& trace = deepseek_trace();
  const TraceCheck c = check_trace(trace, deepseek_run());
  EXPECT_EQ(c.source, trace.source);
  EXPECT_EQ(c.gpu, "NVIDIA H800");
  EXPECT_EQ(c.rank, 0);
  EXPECT_EQ(c.world_size, 64);
  double measured = 0;
  for (const TraceRow& r : c.rows)
    measured += r.measured;
  EXPECT_NEAR(measured, trace.kernel_time() * 1e-6, 0.01 * trace.kernel_time() * 1e-6);

  std::map<std::string, Phase> phases;
  for (const PhaseSummary& p : c.ops.phases)
    phases[p.name] = p.phase;
  for (const TraceRow& r : c.rows) {
    ASSERT_TRUE(phases.count(r.phase)) << r.phase;
    const std::string what = r.phase + " " + std::string(kernel_kind_name(r.kind));
    if (!phases[r.phase].recognised()) {
      EXPECT_FALSE(r.predicted.has_value()) << what;
      continue;
    }
    ASSERT_TRUE(r.predicted.has_value()) << what;
    EXPECT_GE(*r.predicted, 0.0) << what;
    EXPECT_EQ(r.ranges, 4u) << what;  // DeepSeek's chunk: 4 layers, each phase once a layer
    switch (r.kind) {
      case KernelKind::dispatch:
      case KernelKind::combine:
      case KernelKind::attention:
      case KernelKind::gemm:
      case KernelKind::grouped_gemm:
        EXPECT_GT(*r.predicted, 0.0) << what;
        break;
      default:
        break;
    }
  }
  // Each phase's prediction is its rows'.
  ASSERT_EQ(c.phases.size(), c.ops.phases.size());
  for (const PhaseRow& p : c.phases) {
    if (!p.summary.phase.recognised()) {
      EXPECT_FALSE(p.predicted.has_value()) << p.summary.name;
      continue;
    }
    double rows = 0;
    for (const TraceRow& r : c.rows) {
      if (r.phase == p.summary.name) rows += r.predicted.value_or(0.0);
    }
    ASSERT_TRUE(p.predicted.has_value()) << p.summary.name;
    expect_relative(*p.predicted, rows, 1e-12, p.summary.name);
  }
  EXPECT_FALSE(c.findings.empty());
}

TEST(TraceCheckRun, AllToAllIsHardwaresForTheDispatchBytes) {
  const TraceRun& run = deepseek_run();
  const TraceCheck c = check_trace(deepseek_trace(), run);
  // One GPU's dispatch per layer: top-k 8 copies of its 4096 tokens' 7168-wide activations in
  // 16-bit (the fp8 recipe keeps activations in bf16).
  const double bytes = 8.0 * 4096 * 7168 * 2;
  EXPECT_DOUBLE_EQ(cost::dispatch_bytes(run.model, run.layer).value, bytes);
  EXPECT_EQ(models::activation_element_bytes(models::Precision::FP8), 2.0);
  // 64 ranks, 8 per H800 node: 8 nodes.
  const double a2a =
      hardware::all_to_all_time(hardware::load_profile("h800-dgx"), 64, 8, core::Bytes(bytes))
          .total()
          .value;
  ASSERT_GT(a2a, 0.0);
  int seen = 0;
  for (const TraceRow& r : c.rows) {
    const Phase phase = parse_phase(r.phase);
    if (phase.block != Block::dispatch && phase.block != Block::combine) continue;
    if (r.kind != KernelKind::dispatch && r.kind != KernelKind::combine) continue;
    ASSERT_TRUE(r.predicted.has_value()) << r.phase;
    expect_relative(*r.predicted / static_cast<double>(r.ranges), a2a, 1e-12, r.phase);
    ++seen;
  }
  EXPECT_EQ(seen, 4);  // dispatch(F), dispatch(B), combine(F), combine(B)
}

TEST(TraceCheckRun, PredictionScalesWithTheRanges) {
  // Every annotation range repeated once, later and without kernels: each phase occurs twice
  // as often, so every prediction doubles and every measurement stays.
  ProfilerTrace twice = deepseek_trace();
  const std::size_t n = twice.ranges.size();
  double end = 0;
  for (const TraceKernel& k : twice.kernels)
    end = std::max(end, k.start + k.duration);
  for (const TraceLaunch& l : twice.launches)
    end = std::max(end, l.time);
  for (std::size_t i = 0; i < n; ++i) {
    TraceRange r = twice.ranges[i];
    r.start += end + 1e6;
    twice.ranges.push_back(r);
  }
  const TraceCheck once = check_trace(deepseek_trace(), deepseek_run());
  const TraceCheck doubled = check_trace(twice, deepseek_run());
  ASSERT_EQ(once.rows.size(), doubled.rows.size());
  for (std::size_t i = 0; i < once.rows.size(); ++i) {
    const TraceRow& a = once.rows[i];
    const TraceRow& b = doubled.rows[i];
    ASSERT_EQ(a.phase, b.phase);
    ASSERT_EQ(a.kind, b.kind);
    EXPECT_EQ(b.ranges, 2 * a.ranges) << a.phase;
    EXPECT_EQ(b.measured, a.measured) << a.phase;
    EXPECT_EQ(b.kernels, a.kernels) << a.phase;
    ASSERT_EQ(a.predicted.has_value(), b.predicted.has_value()) << a.phase;
    if (a.predicted) expect_relative(*b.predicted, 2 * *a.predicted, 1e-12, a.phase);
  }
}

// (c) The GPU the trace ran on.

TEST(TraceCheckGpu, RefusesAProfileOfAnotherGpu) {
  const ProfilerTrace& trace = deepseek_trace();
  EXPECT_NO_THROW(check_trace_gpu(trace, hardware::load_profile("h800-dgx")));
  for (const char* other : {"h100-dgx", "b200-dgx"}) {
    const hardware::HardwareProfile profile = hardware::load_profile(other);
    try {
      check_trace_gpu(trace, profile);
      ADD_FAILURE() << "an H800 trace accepted against " << other;
    } catch (const core::ConfigError& e) {
      EXPECT_EQ(e.source(), trace.source);
      EXPECT_EQ(e.field(), "deviceProperties");
      EXPECT_NE(e.problem().find("NVIDIA H800"), std::string::npos) << e.what();
      EXPECT_NE(e.problem().find(profile.provenance.gpu), std::string::npos) << e.what();
    }
  }
  // check_trace itself refuses it.
  const TraceRun h100 = make_trace_run(models::load_model("deepseek-v3"),
                                       hardware::load_profile("h100-dgx"), deepseek_setup());
  EXPECT_THROW(check_trace(trace, h100), core::ConfigError);
  // A trace that names no GPU is not refused.
  ProfilerTrace unnamed = trace;
  unnamed.devices.clear();
  EXPECT_NO_THROW(check_trace_gpu(unnamed, hardware::load_profile("b200-dgx")));
}

TEST(TraceCheckGpu, ChoosesTheShippedProfileOfTheTracesGpu) {
  const ProfilerTrace& trace = deepseek_trace();
  EXPECT_EQ(choose_trace_profile(trace, "").name, "h800-dgx");
  EXPECT_EQ(choose_trace_profile(trace, "h800-dgx").name, "h800-dgx");
  EXPECT_THROW(choose_trace_profile(trace, "h100-dgx"), core::ConfigError);
}

// (d) Samples from a trace.

// A trace of one aten::mm (record_shapes=True) and the kernels around it. Launched inside the
// op on its thread: its GEMM kernel (12.5 µs) and a fill; a GEMM launched after the op (30 µs)
// and one launched during it by another thread (40 µs) are not its.
std::string shaped_trace() {
  return R"({"deviceProperties": [{"id": 0, "name": "NVIDIA H800"}], "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 50,
     "args": {"Input Dims": [[256, 512], [512, 1024]],
              "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
     "ts": 110, "dur": 4, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
     "ts": 120, "dur": 4, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
     "ts": 200, "dur": 4, "args": {"correlation": 3}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2,
     "ts": 130, "dur": 4, "args": {"correlation": 4}},
    {"ph": "X", "cat": "kernel", "name": "nvjet_tst_192x192_64x4_1x2_h_bz_coopA_NTN",
     "pid": 0, "tid": 7, "ts": 300, "dur": 12.5,
     "args": {"correlation": 1, "stream": 7, "device": 0}},
    {"ph": "X", "cat": "kernel",
     "name": "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
     "pid": 0, "tid": 7, "ts": 320, "dur": 2, "args": {"correlation": 2, "stream": 7, "device": 0}},
    {"ph": "X", "cat": "kernel", "name": "nvjet_tst_128x256_64x4_2x1_v_bz_coopB_TNN",
     "pid": 0, "tid": 7, "ts": 330, "dur": 30,
     "args": {"correlation": 3, "stream": 7, "device": 0}},
    {"ph": "X", "cat": "kernel", "name": "nvjet_tst_128x256_64x4_2x1_v_bz_coopB_TNN",
     "pid": 0, "tid": 7, "ts": 370, "dur": 40,
     "args": {"correlation": 4, "stream": 7, "device": 0}}]})";
}

TEST(TraceSamples, ShapedGemmOpGivesItsKernelTime) {
  const ProfilerTrace trace = parse_profiler_trace(shaped_trace(), "mm.json");
  ASSERT_EQ(trace.gemms.size(), 1u);
  const TraceCheck c = check_trace(trace, deepseek_run());
  const SampleSet s = trace_samples(trace, c, deepseek_run());
  ASSERT_EQ(s.rows.size(), 1u);
  const Sample& g = s.rows[0];
  EXPECT_EQ(g.benchmark, "gemm");
  EXPECT_EQ(g.dtype, "bf16");
  EXPECT_EQ(g.m, 256);
  EXPECT_EQ(g.n, 1024);
  EXPECT_EQ(g.k, 512);
  ASSERT_TRUE(g.seconds.has_value());
  EXPECT_DOUBLE_EQ(*g.seconds, 12.5e-6);
  EXPECT_DOUBLE_EQ(g.bytes, 2.0 * (256 * 512 + 512 * 1024 + 256 * 1024));
  EXPECT_DOUBLE_EQ(g.gemm_flops(), 2.0 * 256 * 1024 * 512);
  EXPECT_NE(g.source.find("mm.json"), std::string::npos) << g.source;
  EXPECT_EQ(s.meta("trace_gpu", ""), "NVIDIA H800");
}

TEST(TraceSamples, BatchedOpCountsEveryProduct) {
  json t = json::parse(shaped_trace());
  t["traceEvents"][0]["name"] = "aten::bmm";
  t["traceEvents"][0]["args"]["Input Dims"] = json::parse("[[4, 64, 32], [4, 32, 16]]");
  t["traceEvents"][0]["args"]["Input type"] = json::parse(R"(["float", "float"])");
  const ProfilerTrace trace = parse_profiler_trace(t.dump(), "bmm.json");
  const SampleSet s = trace_samples(trace, check_trace(trace, deepseek_run()), deepseek_run());
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].dtype, "fp32");
  EXPECT_EQ(s.rows[0].m, 4 * 64);
  EXPECT_EQ(s.rows[0].n, 16);
  EXPECT_EQ(s.rows[0].k, 32);
  EXPECT_DOUBLE_EQ(s.rows[0].bytes, 4.0 * 4 * (64 * 32 + 32 * 16 + 64 * 16));
}

TEST(TraceSamples, NothingToSampleIsAnError) {
  json t = json::parse(shaped_trace());
  t["traceEvents"][0]["name"] = "aten::add";
  const ProfilerTrace trace = parse_profiler_trace(t.dump(), "add.json");
  EXPECT_THROW(trace_samples(trace, check_trace(trace, deepseek_run()), deepseek_run()),
               core::ConfigError);
}

class TraceSamplesDeepSeek : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    check_ = new TraceCheck(check_trace(deepseek_trace(), deepseek_run()));
    samples_ = new SampleSet(trace_samples(deepseek_trace(), *check_, deepseek_run()));
  }
  static void TearDownTestSuite() {
    delete check_;
    delete samples_;
  }
  static TraceCheck* check_;
  static SampleSet* samples_;
};
TraceCheck* TraceSamplesDeepSeek::check_ = nullptr;
SampleSet* TraceSamplesDeepSeek::samples_ = nullptr;

TEST_F(TraceSamplesDeepSeek, ApportionedSamplesAddUpToEachRow) {
  ASSERT_FALSE(samples_->rows.empty());
  std::size_t rows = 0;
  for (const TraceRow& r : check_->rows) {
    const bool sampled = r.kind == KernelKind::gemm || r.kind == KernelKind::grouped_gemm ||
                         r.kind == KernelKind::attention;
    if (!sampled || !r.predicted || r.measured <= 0 || *r.predicted <= 0) continue;
    const std::string tag = "phase=" + r.phase + ";kind=" + std::string(kernel_kind_name(r.kind)) +
                            ";ranges=" + std::to_string(r.ranges) + ";";
    double sum = 0;
    std::size_t n = 0;
    for (const Sample& s : samples_->rows) {
      if (s.source.find(tag) == std::string::npos) continue;
      EXPECT_EQ(s.benchmark, kernel_kind_name(r.kind)) << s.source;
      ASSERT_TRUE(s.seconds.has_value());
      ASSERT_TRUE(s.flops.has_value());
      EXPECT_GT(*s.flops, 0.0);
      sum += *s.seconds;
      ++n;
    }
    EXPECT_GT(n, 0u) << tag;
    expect_relative(sum, r.measured / static_cast<double>(r.ranges), 1e-9, tag);
    ++rows;
  }
  EXPECT_GT(rows, 0u);
  // Attention, grouped GEMMs and GEMMs are all among them.
  EXPECT_FALSE(samples_->measured("attention").empty());
  EXPECT_FALSE(samples_->measured("grouped_gemm").empty());
  EXPECT_FALSE(samples_->measured("gemm").empty());
}

TEST_F(TraceSamplesDeepSeek, CsvRoundTripKeepsFlopsAndSource) {
  const SampleSet back = parse_samples(samples_to_csv(*samples_), "back.csv");
  EXPECT_EQ(back.metadata, samples_->metadata);
  ASSERT_EQ(back.rows.size(), samples_->rows.size());
  for (std::size_t i = 0; i < back.rows.size(); ++i) {
    const Sample& a = samples_->rows[i];
    const Sample& b = back.rows[i];
    EXPECT_EQ(b.benchmark, a.benchmark);
    EXPECT_EQ(b.dtype, a.dtype);
    EXPECT_EQ(std::make_tuple(b.m, b.n, b.k, b.gpus), std::make_tuple(a.m, a.n, a.k, a.gpus));
    EXPECT_EQ(b.bytes, a.bytes);
    EXPECT_EQ(b.seconds, a.seconds);
    EXPECT_EQ(b.flops, a.flops);
    EXPECT_EQ(b.source, a.source);
    EXPECT_FALSE(b.source.empty());
  }
}

TEST_F(TraceSamplesDeepSeek, FitGivesAProfileThatLoads) {
  const hardware::HardwareProfile base = hardware::load_profile("h800-dgx");
  const CalibrationFit fit = fit_samples(*samples_, base.gpu);
  ASSERT_TRUE(fit.attention_efficiency.has_value());
  EXPECT_GT(fit.attention_efficiency->value, 0.0);
  EXPECT_LE(fit.attention_efficiency->value, 1.0);
  EXPECT_EQ(fit.attention_efficiency->samples, samples_->measured("attention").size());
  ASSERT_TRUE(fit.grouped_gemm_efficiency.has_value());
  EXPECT_EQ(fit.gemm.count("fp8"), 1u);
  const hardware::HardwareProfile p = calibrated_profile(
      base, fit, provenance_from(*samples_, base.name), "h800-trace", "samples.csv");
  const hardware::HardwareProfile loaded =
      hardware::parse_profile(hardware::to_yaml(p), "h800-trace.yaml");
  EXPECT_EQ(loaded.gpu.attention_efficiency, fit.attention_efficiency->value);
  EXPECT_EQ(loaded.gpu.grouped_gemm_efficiency, fit.grouped_gemm_efficiency->value);
  EXPECT_EQ(loaded.gpu.peak_flops, base.gpu.peak_flops);
}

// (e) The fits of fused kernels recover the efficiency the samples were built at.

Sample fused_sample(const std::string& benchmark, const std::string& dtype, double flops,
                    double seconds) {
  Sample s;
  s.benchmark = benchmark;
  s.dtype = dtype;
  s.flops = flops;
  s.seconds = seconds;
  s.source = "synthetic";
  return s;
}

const std::vector<double> kFlops = {3e9, 1e10, 4e10, 2e11, 1e12, 5e12};

TEST(TraceFit, AttentionEfficiencyRecovered) {
  const hardware::GpuSpec gpu = hardware::load_profile("h800-dgx").gpu;
  const double peak = gpu.peak_flops.at("bf16");
  SampleSet set;
  set.source = "synthetic.csv";
  for (const double f : kFlops)
    set.rows.push_back(fused_sample("attention", "bf16", f, gpu.kernel_launch + f / (0.5 * peak)));
  const CalibrationFit fit = fit_samples(set, gpu);
  ASSERT_TRUE(fit.attention_efficiency.has_value());
  EXPECT_NEAR(fit.attention_efficiency->value, 0.5, 1e-9);
  EXPECT_NEAR(fit.attention_efficiency->measured, 0.5, 1e-9);
  EXPECT_EQ(fit.attention_efficiency->samples, kFlops.size());
  EXPECT_FALSE(fit.attention_efficiency->clamped());
  EXPECT_FALSE(fit.grouped_gemm_efficiency.has_value());
  EXPECT_EQ(apply_fit(gpu, fit).attention_efficiency, fit.attention_efficiency->value);
}

TEST(TraceFit, GroupedGemmEfficiencyAgainstTheBaseCurve) {
  const hardware::GpuSpec gpu = hardware::load_profile("h800-dgx").gpu;
  const double peak = gpu.peak_flops.at("fp8");
  const hardware::EfficiencyCurve& dense = gpu.gemm_efficiency.at("fp8");
  SampleSet set;
  set.source = "synthetic.csv";
  for (const double f : kFlops) {
    set.rows.push_back(
        fused_sample("grouped_gemm", "fp8", f, gpu.kernel_launch + f / (0.8 * dense.at(f) * peak)));
  }
  const CalibrationFit fit = fit_samples(set, gpu);
  ASSERT_TRUE(fit.grouped_gemm_efficiency.has_value());
  EXPECT_NEAR(fit.grouped_gemm_efficiency->value, 0.8, 1e-9);
  EXPECT_EQ(fit.grouped_gemm_efficiency->samples, kFlops.size());
  EXPECT_FALSE(fit.grouped_gemm_efficiency->clamped());
  EXPECT_FALSE(fit.attention_efficiency.has_value());
  EXPECT_EQ(apply_fit(gpu, fit).grouped_gemm_efficiency, fit.grouped_gemm_efficiency->value);
}

TEST(TraceFit, GroupedGemmEfficiencyAgainstTheFittedCurve) {
  // Dense fp8 GEMMs measured at 0.6 of the peak at every size: the fitted curve is 0.6, and
  // grouped GEMMs at 0.48 of the peak are 0.8 of it (of the base curve they would be above 1).
  const hardware::GpuSpec gpu = hardware::load_profile("h800-dgx").gpu;
  const double peak = gpu.peak_flops.at("fp8");
  SampleSet set;
  set.source = "synthetic.csv";
  for (const double f : kFlops) {
    Sample g = fused_sample("gemm", "fp8", f, gpu.kernel_launch + f / (0.6 * peak));
    g.flops.reset();
    g.m = static_cast<std::int64_t>(f / 2e6);  // 2·m·1000·1000 = f
    g.n = 1000;
    g.k = 1000;
    set.rows.push_back(g);
    set.rows.push_back(
        fused_sample("grouped_gemm", "fp8", f, gpu.kernel_launch + f / (0.48 * peak)));
  }
  const CalibrationFit fit = fit_samples(set, gpu);
  ASSERT_EQ(fit.gemm.count("fp8"), 1u);
  EXPECT_NEAR(fit.gemm.at("fp8").fit.curve.at(1e11), 0.6, 1e-9);
  ASSERT_TRUE(fit.grouped_gemm_efficiency.has_value());
  EXPECT_NEAR(fit.grouped_gemm_efficiency->value, 0.8, 1e-9);
}

TEST(TraceFit, EfficienciesAboveOneAreClamped) {
  const hardware::GpuSpec gpu = hardware::load_profile("h800-dgx").gpu;
  const double bf16 = gpu.peak_flops.at("bf16");
  const double fp8 = gpu.peak_flops.at("fp8");
  const hardware::EfficiencyCurve& dense = gpu.gemm_efficiency.at("fp8");
  SampleSet set;
  set.source = "synthetic.csv";
  for (const double f : kFlops) {
    // Attention at 1.02 of the peak (within the 5 % a boost clock allows), grouped GEMMs at
    // 1.2 times the dense curve (still below the peak).
    set.rows.push_back(fused_sample("attention", "bf16", f, gpu.kernel_launch + f / (1.02 * bf16)));
    set.rows.push_back(
        fused_sample("grouped_gemm", "fp8", f, gpu.kernel_launch + f / (1.2 * dense.at(f) * fp8)));
  }
  const CalibrationFit fit = fit_samples(set, gpu);
  ASSERT_TRUE(fit.attention_efficiency.has_value());
  EXPECT_EQ(fit.attention_efficiency->value, 1.0);
  EXPECT_NEAR(fit.attention_efficiency->measured, 1.02, 1e-9);
  EXPECT_TRUE(fit.attention_efficiency->clamped());
  ASSERT_TRUE(fit.grouped_gemm_efficiency.has_value());
  EXPECT_EQ(fit.grouped_gemm_efficiency->value, 1.0);
  EXPECT_NEAR(fit.grouped_gemm_efficiency->measured, 1.2, 1e-9);
  EXPECT_TRUE(fit.grouped_gemm_efficiency->clamped());
}

TEST(TraceFit, AboveThePeakIsRefused) {
  // Attention at twice the peak is a unit slip, not a fast GPU.
  const hardware::GpuSpec gpu = hardware::load_profile("h800-dgx").gpu;
  SampleSet set;
  set.source = "slip.csv";
  set.rows.push_back(
      fused_sample("attention", "bf16", 1e12, 1e12 / (2 * gpu.peak_flops.at("bf16"))));
  EXPECT_THROW(fit_samples(set, gpu), core::ConfigError);
}

}  // namespace
}  // namespace pipesim::calibrate
