// The shipped validation suite (validation/*.yaml) predicted end to end: the bounds that make
// pipesim's predictions "right, not plausible", asserted on the deterministic
// predictions. results/validation/ shows the same table (tools/make-validation.sh).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipesim/core/text_file.hpp"
#include "pipesim/validation/prediction_range.hpp"
#include "pipesim/validation/validation.hpp"

namespace pipesim::validation {
namespace {

struct Suite {
  std::vector<ValidationRun> runs;
  std::vector<PointResult> points;
  ValidationSummary summary;
};

const Suite& suite() {
  static const Suite s = [] {
    Suite out;
    const char* root = std::getenv("PIPESIM_SOURCE_DIR");
    const std::filesystem::path dir = std::filesystem::path(root ? root : ".") / "validation";
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".yaml") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    scenario::SpecCache cache;
    for (const std::string& f : files) {
      out.runs.push_back(load_validation_run(f));
      for (PointResult& p : predict(out.runs.back(), cache))
        out.points.push_back(std::move(p));
    }
    out.summary = summarize(out.points);
    return out;
  }();
  return s;
}

// The NVIDIA NeMo and DGX Cloud recipe runs, bounded apart (NvidiaRecipesAsMeasuredToday).
bool is_nvidia_recipe(const std::string& source) {
  return source == "dgxc-benchmarking" || source == "nemo" || source == "nemo-long-sequence" ||
         source == "dgxc-benchmarking-moe" || source == "megatron-bridge";
}

// Set 3 (Megatron-Bridge's MoE runs at scale, validation/README.md): the frontier the model is
// being built for, bounded apart (MegatronBridgeMoeAsMeasuredToday), outside the suite whose
// targets were met before it.
constexpr const char* kFrontierSource = "megatron-bridge";

// The summary of the suite's points whose source `keep` accepts.
template <class Keep>
ValidationSummary summary_of(Keep keep) {
  std::vector<PointResult> points;
  for (const PointResult& p : suite().points)
    if (keep(p.source)) points.push_back(p);
  return summarize(points);
}

const ValidationSummary& existing_suite() {
  static const ValidationSummary s =
      summary_of([](const std::string& source) { return source != kFrontierSource; });
  return s;
}

// The summary of the papers' runs (every source but the NVIDIA recipes).
const ValidationSummary& first_sources() {
  static const ValidationSummary s =
      summary_of([](const std::string& source) { return !is_nvidia_recipe(source); });
  return s;
}

const PointResult& find(const std::string& id) {
  for (const PointResult& p : suite().points)
    if (p.id == id && is_speed_metric(p.metric)) return p;
  throw std::runtime_error("no speed point of validation run " + id);
}

TEST(ValidationSuite, EveryPublishedPointIsTranscribedAndEveryExpressibleOnePredicted) {
  const Suite& s = suite();
  std::map<std::string, size_t> runs;
  for (const ValidationRun& r : s.runs)
    ++runs[r.source];
  // The sources: Narayanan Table 1 (10), Table 5 + App. C (10), Megatron-Core (11), Zero Bubble
  // Tables 4, 6, 7, 10, 11 (48 + 36 + 9 + 4 + 24), Vocabulary Parallelism (48), Chimera (15).
  EXPECT_EQ(runs["narayanan"], 10u);
  EXPECT_EQ(runs["korthikanti"], 10u);
  EXPECT_EQ(runs["megatron-core"], 11u);
  EXPECT_EQ(runs["zero-bubble"], 121u);
  EXPECT_EQ(runs["vocabulary-parallelism"], 48u);
  // Chimera: Figs. 13-15 (15) and Fig. 1's memory (6).
  EXPECT_EQ(runs["chimera"], 21u);
  // NeMo / DGX Cloud dense runs: recipe tables (174: v25.04's GPT-3 175B table repeats v25.03's
  // and is held once), the 24.07 summary (8), long sequences (9).
  EXPECT_EQ(runs["dgxc-benchmarking"], 174u);
  EXPECT_EQ(runs["nemo"], 8u);
  EXPECT_EQ(runs["nemo-long-sequence"], 9u);
  // Set 3: Megatron-Bridge's DeepSeek-V3 and Qwen3-30B-A3B rows (61, one a republication held
  // once).
  EXPECT_EQ(runs[kFrontierSource], 60u);
  EXPECT_EQ(s.summary.overall.failed, 0u);
  for (const PointResult& p : s.points)
    EXPECT_TRUE(p.expressible == Expressible::No || p.predicted) << p.id << ": " << p.status;
}

// One measurement, one point: a table a later release republishes to the last digit (DGX Cloud
// v25.04's GPT-3 175B and Grok-1 tables repeat v25.03's: step time, throughput and MFU) is held
// once, or the statistics would weigh it twice. Two files with the same configuration and the
// same measured values are a republication; the one pair left is a coincidence of one row in
// tables whose other rows differ (Nemotron-4 15B, 512 GPUs, FP8: 2.12 s in v24.11.1 and v25.03).
TEST(ValidationSuite, EveryMeasurementIsHeldOnce) {
  std::map<std::string, std::vector<std::string>> files;
  for (const ValidationRun& r : suite().runs) {
    std::vector<std::pair<std::string, std::string>> options = r.run;
    std::sort(options.begin(), options.end());
    // append, not operator+: g++ 12's -Wrestrict misfires on chained string sums at -O2.
    std::string key = r.source;
    key.append("|").append(std::to_string(r.model_layers));
    for (const auto& [option, value] : options)
      key.append("|").append(option).append("=").append(value);
    for (const MeasuredPoint& m : r.measured)
      key.append("|").append(metric_name(m.metric)).append("=").append(std::to_string(m.value));
    files[key].push_back(r.id);
  }
  std::vector<std::vector<std::string>> repeated;
  for (auto& [key, ids] : files) {
    if (ids.size() < 2) continue;
    std::sort(ids.begin(), ids.end());
    repeated.push_back(ids);
  }
  const std::vector<std::vector<std::string>> coincidences = {
      {"DGXC-V24.11.1-H100-NEMOTRON4-15B-512GPU-FP8", "DGXC-V25.03-H100-NEMOTRON4-15B-512GPU-FP8"}};
  EXPECT_EQ(repeated, coincidences);
}

TEST(ValidationSuite, MedianErrorWithinTenPercentFittedOrNot) {
  const SourceSummary& all = first_sources().overall;
  EXPECT_LE(all.all.median_abs, 0.10);
  EXPECT_LE(all.held_out.median_abs, 0.10);
  EXPECT_LE(all.memory.median_abs, 0.08);
  EXPECT_GE(all.held_out.points, 190u);  // the fits use 5 runs; everything else is held out
}

// The whole suite's targets (both sets, every source): over every speed point and over the
// held-out ones, median |error| within 7%, none beyond 25%, mean signed error within 3%; per
// source the mean signed error within 5%, except the three sources still above it
// (validation/README.md, "Where the suite stands"), whose own tests bound them where they are.
// The memory median's 8% is asserted with the papers' sources (MedianErrorWithinTenPercent...):
// every memory point is theirs.
TEST(ValidationSuite, WholeSuiteWithinTargets) {
  const SourceSummary& all = existing_suite().overall;
  for (const ErrorStats* speed : {&all.all, &all.held_out}) {
    EXPECT_LE(speed->median_abs, 0.07);
    EXPECT_LE(speed->max_abs, 0.25);
    EXPECT_LE(std::abs(speed->mean_signed), 0.03);
  }
  EXPECT_EQ(all.memory.points, first_sources().overall.memory.points);
  const std::vector<std::string> open = {"dgxc-benchmarking-moe", "nemo", "nemo-long-sequence",
                                         kFrontierSource};
  size_t checked = 0;
  for (const SourceSummary& s : suite().summary.sources) {
    if (std::find(open.begin(), open.end(), s.source) != open.end()) continue;
    if (s.all.points == 0) continue;
    ++checked;
    EXPECT_LE(std::abs(s.all.mean_signed), 0.05) << s.source;
    if (s.held_out.points > 0) {
      EXPECT_LE(std::abs(s.held_out.mean_signed), 0.05) << s.source;
    }
  }
  EXPECT_EQ(checked, 7u);  // chimera, dgxc, korthikanti, megatron-core, narayanan, VP, ZB
}

// The prediction ranges hold up on runs whose source built none of them: at a nominal 80%,
// leave-one-source-out keeps at least 60% of the suite's runs inside (measured today: see
// results/validation/prediction-ranges.txt), and every run is predicted with a workload class.
TEST(ValidationSuite, PredictionRangesCoverHeldOutSources) {
  const Coverage held_out = leave_one_source_out(suite().points, 0.8);
  EXPECT_GE(held_out.runs, 400u);
  EXPECT_GE(held_out.share(), 0.6) << held_out.inside << " of " << held_out.runs;
  EXPECT_LE(held_out.share(), 0.95) << "ranges far wider than their coverage";
  const RangeTable table = prediction_ranges(suite().points, 0.8);
  for (const RatioRange& r : table.ranges) {
    EXPECT_LT(r.low, r.high) << r.basis;
    EXPECT_GE(r.runs, kMinRuns) << r.basis;
  }
  for (const PointResult& p : suite().points) {
    if (p.predicted) {
      EXPECT_FALSE(p.workload.empty()) << p.id;
    }
  }
}

// The shipped table every prediction reads its range from is the one the suite gives now:
// a change to the model or the runs that moves a range fails here until
// tools/make-validation.sh has written it again.
TEST(ValidationSuite, TheShippedPredictionRangesAreTheSuitesOwn) {
  const char* root = std::getenv("PIPESIM_SOURCE_DIR");
  const std::filesystem::path shipped =
      std::filesystem::path(root ? root : ".") / "validation" / "ranges" / "prediction-ranges.yaml";
  EXPECT_EQ(core::read_text_file(shipped),
            scenario::range_table_yaml(prediction_ranges(suite().points, 0.8)))
      << "run tools/make-validation.sh";
  const scenario::RangeTable read = scenario::read_range_table(shipped.string());
  EXPECT_EQ(read.ranges.size(), prediction_ranges(suite().points, 0.8).ranges.size());
}

// Chimera Fig. 1's memory points, bounded apart (below).
bool chimera_figure_1(const PointResult& p) {
  return p.id.rfind("CHI-F1-", 0) == 0;
}

// No point is off by more than 30%, Chimera Fig. 1's out-of-memory marks aside (below). One open
// miss: Vocabulary Parallelism's V-Half on 32 GPUs, s = 2048, V = 256K, measured out of memory,
// is predicted at 79.5 GiB, just under the A100's 80 GB: a near tie on a yes/no metric
// (validation/README.md). Listed here rather than hidden.
TEST(ValidationSuite, NoPointOffByMoreThanThirtyPercent) {
  for (const PointResult& p : suite().points) {
    if (is_nvidia_recipe(p.source)) continue;  // bounded apart, below
    const auto e = p.error();
    if (!e || (chimera_figure_1(p) && p.metric == ValidationMetric::OutOfMemory) ||
        p.id == "VOC-T6-base-32gpu-s2048-v256k") {
      continue;
    }
    EXPECT_LE(std::abs(*e), 0.30) << p.id << " " << metric_name(p.metric) << ": measured "
                                  << p.measured << ", predicted " << *p.predicted;
  }
}

// Chimera Figs. 14 and 15: every run within 20%; Chimera first, PipeDream last but one and GEMS
// last in both, Fig. 14 in the measured order throughout; the throughput of each scheme relative
// to Chimera's within 10% (median) in both. Open: in Fig. 15 GPipe is predicted above DAPPLE,
// which the paper measured 3% apart (its bars are read to ±3%).
TEST(ValidationSuite, ChimeraFiguresRankTheSchemesAsMeasured) {
  for (const char* figure : {"CHI-F14-BERT48", "CHI-F15-GPT2"}) {
    std::vector<std::pair<double, std::string>> predicted, measured;
    std::vector<double> ratio_errors;
    const PointResult& chimera = find(std::string(figure) + "-CHIMERA");
    for (const char* scheme :
         {"CHIMERA", "DAPPLE", "GEMS", "GPIPE", "PIPEDREAM-2BW", "PIPEDREAM"}) {
      const PointResult& p = find(std::string(figure) + "-" + scheme);
      ASSERT_TRUE(p.predicted) << p.id;
      EXPECT_LE(std::abs(*p.predicted / p.measured - 1), 0.20) << p.id;
      predicted.emplace_back(*p.predicted, scheme);
      measured.emplace_back(p.measured, scheme);
      if (std::string(scheme) != "CHIMERA") {
        ratio_errors.push_back(
            std::abs((*p.predicted / *chimera.predicted) / (p.measured / chimera.measured) - 1));
      }
    }
    std::sort(predicted.rbegin(), predicted.rend());
    std::sort(measured.rbegin(), measured.rend());
    EXPECT_EQ(predicted[0].second, "CHIMERA") << figure;
    EXPECT_EQ(predicted[4].second, "PIPEDREAM") << figure;
    EXPECT_EQ(predicted[5].second, "GEMS") << figure;
    std::sort(ratio_errors.begin(), ratio_errors.end());
    const double median = ratio_errors[ratio_errors.size() / 2];
    if (std::string(figure) == "CHI-F14-BERT48") {
      for (size_t i = 0; i < measured.size(); ++i)
        EXPECT_EQ(predicted[i].second, measured[i].second) << figure << " rank " << i + 1;
    }
    EXPECT_LE(median, 0.10) << figure;
  }
}

// The NVIDIA recipe runs as pipesim predicts them today (validation/README.md, "NVIDIA
// recipes"): h100-dgx with FlashAttention-2's attention efficiency, its GEMM curves fitted on
// the Llama 3 8B 8-GPU runs and its TP-overlap SM share on the Llama 3 70B 64-GPU runs,
// gb200-nvl72's curves on the Nemotron-4 340B 128-GPU runs (its TP-overlap SM share, h100-dgx's
// SMs of its 148, in place). Every run predicted; the points not fitted of each source within
// these medians, maxima and mean signed errors.
TEST(ValidationSuite, NvidiaRecipesAsMeasuredToday) {
  std::map<std::string, std::vector<double>> errors;
  for (const PointResult& p : suite().points) {
    if (!is_nvidia_recipe(p.source)) continue;
    ASSERT_TRUE(p.error()) << p.id << ": " << p.status;
    if (!p.fitted) errors[p.source].push_back(std::abs(*p.error()));
  }
  struct Bound {
    const char* source;
    double median, max, bias;
  };
  for (const Bound& b :
       {Bound{"dgxc-benchmarking", 0.05, 0.22, 0.03}, Bound{"nemo", 0.10, 0.15, 0.10},
        Bound{"nemo-long-sequence", 0.10, 0.15, 0.10}}) {
    std::vector<double>& e = errors[b.source];
    ASSERT_FALSE(e.empty()) << b.source;
    std::sort(e.begin(), e.end());
    EXPECT_LE(e[e.size() / 2], b.median) << b.source;
    EXPECT_LE(e.back(), b.max) << b.source;
    for (const SourceSummary& s : suite().summary.sources) {
      if (s.source == b.source) {
        EXPECT_LE(std::abs(s.held_out.mean_signed), b.bias) << b.source;
      }
    }
  }
  // Dense Blackwell (GB200) recipes, the points not fitted (the GB200 MoE runs are bounded with
  // the other MoE runs below).
  std::vector<double> blackwell;
  for (const PointResult& p : suite().points) {
    if (p.source == "dgxc-benchmarking" && !p.fitted && p.id.find("-GB200-") != std::string::npos)
      blackwell.push_back(std::abs(*p.error()));
  }
  ASSERT_FALSE(blackwell.empty());
  std::sort(blackwell.begin(), blackwell.end());
  EXPECT_LE(blackwell[blackwell.size() / 2], 0.05);
  EXPECT_LE(blackwell.back(), 0.12);
}

// The A100 sources as pipesim predicts them today (validation/README.md, "Why the A100 sources
// are optimistic", "Link bandwidths"): datasheet a100-dgx / a100-roce with the links at what NCCL
// reaches, nothing fitted, every GEMM at least its
// operands' HBM time, the loss as Megatron-LM's unfused cross-entropy. Held-out median |error|,
// max |error| and mean signed error per source (Zero Bubble's 1.5B runs, whose head is the
// largest share, are pessimistic by 8-17%: its median and max are looser than before); the
// standard-attention runs with head dimension 96 (Narayanan 1.7B, 3.6B) within 15%.
TEST(ValidationSuite, A100SourcesAsMeasuredToday) {
  struct Bound {
    const char* source;
    double median, max, bias;
  };
  for (const Bound& b :
       {Bound{"narayanan", 0.04, 0.14, 0.05}, Bound{"vocabulary-parallelism", 0.04, 0.15, 0.04},
        Bound{"zero-bubble", 0.05, 0.18, 0.03}, Bound{"korthikanti", 0.03, 0.055, 0.025}}) {
    bool seen = false;
    for (const SourceSummary& s : suite().summary.sources) {
      if (s.source != b.source) continue;
      seen = true;
      EXPECT_LE(s.held_out.median_abs, b.median) << b.source;
      EXPECT_LE(s.held_out.max_abs, b.max) << b.source;
      EXPECT_LE(std::abs(s.held_out.mean_signed), b.bias) << b.source;
    }
    EXPECT_TRUE(seen) << b.source;
  }
  for (const char* id : {"NAR-T1-1.7B", "NAR-T1-3.6B"}) {
    const PointResult& p = find(id);
    ASSERT_TRUE(p.error()) << id;
    EXPECT_LE(std::abs(*p.error()), 0.15) << id;
  }
}

// Megatron-Core's r0.8.0 H100 table (validation/README.md, "Narayanan and Megatron-Core"): the
// loss as r0.8.0's default unfused fp32 cross-entropy, the data-parallel sync overlapped. Every
// point within the 25% (the 1.7B run, d = 48 with four micro-batches, is the largest
// optimistic one, the 32B run the largest pessimistic one) and the bias within 5%.
TEST(ValidationSuite, MegatronCoreAsMeasuredToday) {
  bool seen = false;
  for (const SourceSummary& s : suite().summary.sources) {
    if (s.source != "megatron-core") continue;
    seen = true;
    EXPECT_LE(s.held_out.max_abs, 0.25);
    EXPECT_LE(std::abs(s.held_out.mean_signed), 0.05);
  }
  EXPECT_TRUE(seen);
}

// The DGX Cloud Grok-1 314B runs (mixture of experts, expert parallelism 2-8, context
// parallelism 2 from 64 GPUs; validation/README.md, "Mixture of experts"): the recipe runs the
// experts one by one (SequentialMLP), so nothing MoE-specific is fitted and every run is held
// out. The files carry every setting the recipes state that pipesim expresses (overlapped
// gradient reduce and parameter gather, the Llama 3 vocabulary, NeMo 1's unfused loss on the
// older H100 rows). Bounds at what pipesim reaches: median |error| <= 13%. Open (not asserted
// below the 5% per-source target): the older H100 runs are optimistic at every scale, BF16
// +10…+14%, FP8 +12…+21%; the six GB200 runs (v25.05, full model, EP 8 x ETP 4) are 8-11%
// pessimistic: their files run without TP comm overlap (which pipesim would extend to the expert
// collectives) and so pay every MoE collective exposed.
TEST(ValidationSuite, MixtureOfExpertsRecipesAsMeasuredToday) {
  size_t runs = 0;
  for (const ValidationRun& r : suite().runs)
    runs += r.source == "dgxc-benchmarking-moe" ? 1 : 0;
  // H100: 18 rows (9 GPU counts x BF16/FP8) at v24.11.1 and at v25.03 (v25.04 republishes
  // v25.03's table: held once) and the 512-GPU pair of the 25.07 release (NeMo 25.04, ETP 1);
  // GB200: 6 rows (3 GPU counts x BF16/FP8) at v25.05 (NeMo 25.04).
  EXPECT_EQ(runs, 44u);
  for (const char* gpus : {"128", "256", "512"}) {
    for (const char* precision : {"BF16", "FP8"}) {
      const std::string id =
          std::string("DGXC-V25.05-GB200-GROK1-314B-") + gpus + "GPU-" + precision;
      const PointResult& p = find(id);
      ASSERT_TRUE(p.error()) << id;
      EXPECT_LT(*p.error(), -0.07) << id << ": the open pessimism moved";
      EXPECT_GT(*p.error(), -0.13) << id;
    }
  }
  // The 25.07 H100 pair runs the GB200 rows' software (NeMo 25.04): BF16 within 5%, so the older
  // rows' optimism is not the H100 layer's cost; FP8 stays optimistic as in the older rows.
  const PointResult& bf16 = find("DGXC-V25.07-H100-GROK1-314B-512GPU-BF16");
  const PointResult& fp8 = find("DGXC-V25.07-H100-GROK1-314B-512GPU-FP8");
  ASSERT_TRUE(bf16.error() && fp8.error());
  EXPECT_LE(std::abs(*bf16.error()), 0.05);
  EXPECT_GT(*fp8.error(), 0.08);
  EXPECT_LT(*fp8.error(), 0.20);
  size_t h100 = 0;
  for (const PointResult& p : suite().points) {
    if (p.id.find("-H100-GROK1-") == std::string::npos || p.id.find("V25.07") != std::string::npos)
      continue;
    ++h100;
    ASSERT_TRUE(p.error()) << p.id;
    EXPECT_GT(*p.error(), 0.08) << p.id << ": the open optimism moved";
    EXPECT_LT(*p.error(), 0.22) << p.id;
  }
  EXPECT_EQ(h100, 36u);
  for (const SourceSummary& s : suite().summary.sources) {
    if (s.source != "dgxc-benchmarking-moe") continue;
    EXPECT_EQ(s.failed, 0u);
    EXPECT_EQ(s.fitted.points, 0u);
    EXPECT_EQ(s.held_out.points, 44u);
    EXPECT_LE(s.all.median_abs, 0.13);
    EXPECT_LE(s.held_out.median_abs, 0.13);
    EXPECT_LE(s.all.max_abs, 0.22);
    EXPECT_LE(std::abs(s.held_out.mean_signed), 0.13);
    return;
  }
  ADD_FAILURE() << "no dgxc-benchmarking-moe source in the summary";
}

// Chimera Fig. 1 (P100 16 GB, GPT-2), with what the paper's stack keeps (eager_autograd,
// stage-wide recomputation, DDP's gradient buckets, the stashing optimizer's clones beside the
// working weights; validation/chi-f1-*.yaml) and the device as the allocator sees it (the
// driver's 17.07 GB less the 721 MiB CUDA context of p100-daint's memory.reserved_bytes): the
// allocated peaks of PipeDream, GEMS and Chimera within 10%, GPipe (D = 8) and PipeDream-2BW
// (D = 16) without recomputation out of memory as measured, and the Fig. 15 runs that ran with
// recomputation, in the same configuration, predicted to fit. Open, asserted as it stands so
// that a change is seen: DAPPLE (D = 16) without recomputation, measured out of memory, is
// predicted to fit (13.9 GiB allocated of the 15.2 GiB the context leaves).
TEST(ValidationSuite, ChimeraFigureOnePeaksWithinTenPercentAndOutOfMemoryMarks) {
  size_t peaks = 0, fits = 0, oom = 0;
  bool dapple = false;
  for (const PointResult& p : suite().points) {
    if (!p.predicted) continue;
    if (chimera_figure_1(p) && p.metric == ValidationMetric::PeakMemoryGib) {
      ++peaks;
      EXPECT_LE(std::abs(*p.error()), 0.10) << p.id;
    }
    if (p.id == "CHI-F1-GPT2-GPIPE-NR" || p.id == "CHI-F1-GPT2-PIPEDREAM-2BW-NR") {
      ++oom;
      EXPECT_EQ(*p.error(), 0.0) << p.id << " is predicted to fit";
    }
    if (p.id == "CHI-F1-GPT2-DAPPLE-NR") {
      dapple = true;
      EXPECT_EQ(*p.error(), 1.0) << p.id << ": the open miss moved";
    }
    if (p.metric == ValidationMetric::OutOfMemory && p.measured == 0) {
      ++fits;
      EXPECT_EQ(*p.error(), 0.0) << p.id << " is predicted out of memory";
    }
  }
  EXPECT_EQ(peaks, 3u);
  EXPECT_EQ(fits, 3u);
  EXPECT_EQ(oom, 2u);
  EXPECT_TRUE(dapple);
}

// Set 3, Megatron-Bridge's MoE runs (validation/README.md, "Megatron-Bridge MoE runs (set 3)"),
// nothing fitted on them: every run predicted, bounded where pipesim stands, which is short of
// the targets (median |error| <= 15%, |mean signed| <= 5%). Open: every point but one is
// optimistic; DeepSeek-V3 by a median 17% in its recipes' layouts, Qwen3-30B-A3B (small
// experts: hidden 2048, expert FFN 768) by a median 36% and up to 2.9x on the H100 rows, and on
// Blackwell by 36-46% wherever the GPU, not the host, bounds the run (micro-batch 4 and 8): the
// per-kernel costs the kernel list prices too cheaply (memory-bound kernels at 2.4-5.5x
// pipesim's price in DeepSeek's own trace, calibrate/README.md).
TEST(ValidationSuite, MegatronBridgeMoeAsMeasuredToday) {
  std::map<std::string, std::vector<double>> errors;
  for (const PointResult& p : suite().points) {
    if (p.source != kFrontierSource) continue;
    ASSERT_TRUE(p.error()) << p.id << ": " << p.status;
    // Every one of these runs was measured, so it ran: its prediction must fit the GPUs.
    EXPECT_EQ(p.fits_memory, std::optional<bool>(true)) << p.id;
    errors[p.id.find("QWEN3") != std::string::npos ? "qwen3" : "deepseek"].push_back(*p.error());
  }
  struct Bound {
    const char* model;
    size_t points;
    double median, bias_low, bias_high;
  };
  for (const Bound& b :
       {Bound{"deepseek", 29, 0.17, 0.15, 0.20}, Bound{"qwen3", 31, 0.37, 0.33, 0.40}}) {
    std::vector<double>& e = errors[b.model];
    ASSERT_EQ(e.size(), b.points) << b.model;
    double sum = 0;
    for (double x : e)
      sum += x;
    const double mean = sum / static_cast<double>(e.size());
    std::vector<double> abs_errors;
    for (double x : e)
      abs_errors.push_back(std::abs(x));
    std::sort(abs_errors.begin(), abs_errors.end());
    EXPECT_LE(abs_errors[abs_errors.size() / 2], b.median) << b.model;
    // The bias bounded from both sides: a change that moves it either way shows here.
    EXPECT_GE(mean, b.bias_low) << b.model;
    EXPECT_LE(mean, b.bias_high) << b.model;
  }
}

}  // namespace
}  // namespace pipesim::validation
