// The validation suite's machinery: strict run files, the sources' FLOP formulas against their
// closed forms, and the statistics against hand-computed values.

#include "pipesim/validation/validation.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipesim/core/config_error.hpp"
#include "pipesim/models/model_spec.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::validation {
namespace {

class ValidationFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("pipesim-validation-" + std::to_string(::getpid()) + "-" +
                       std::to_string(counter_++) + ".yaml");
    std::ofstream(path) << text;
    paths_.push_back(path);
    return path.string();
  }
  void TearDown() override {
    for (const auto& p : paths_)
      std::filesystem::remove(p);
  }

 private:
  int counter_ = 0;
  std::vector<std::filesystem::path> paths_;
};

const char* kGood = R"(id: T-1
source: test
citation: "a paper"
expressible: exact
flops: korthikanti
peak_flops: 312.0e12
measured:
  - {metric: mfu_percent, value: 40}
  - {metric: peak_memory_gib, value: 10}
run:
  schedule: 1f1b
  model: gpt2-32l
  hardware: a100-dgx
  stages: 4
  micro_batches: 8
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST_F(ValidationFile, AGoodFileKeepsEveryField) {
  const ValidationRun run = load_validation_run(write(kGood));
  EXPECT_EQ(run.id, "T-1");
  EXPECT_EQ(run.flops, FlopsFormula::Korthikanti);
  EXPECT_DOUBLE_EQ(run.peak_flops, 312e12);
  ASSERT_EQ(run.measured.size(), 2u);
  EXPECT_EQ(run.measured[1].metric, ValidationMetric::PeakMemoryGib);
  ASSERT_EQ(run.run.size(), 5u);
  EXPECT_EQ(run.run[3], (std::pair<std::string, std::string>{"stages", "4"}));
  EXPECT_FALSE(run.fitted);
  EXPECT_EQ(run.reading_error, 0.0);
  const ValidationRun read = load_validation_run(
      write(replaced(kGood, "flops: korthikanti", "flops: korthikanti\nreading_error: 0.03")));
  EXPECT_DOUBLE_EQ(read.reading_error, 0.03);
}

// Each bad file is one ConfigError naming the file and the field.
TEST_F(ValidationFile, BadFilesNameTheFieldAndTheRule) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {replaced(kGood, "  stages: 4", "  stagez: 4"), "run.stagez"},
      {replaced(kGood, "expressible: exact", "expressible: approximated"), "approximation"},
      {replaced(kGood, "peak_flops: 312.0e12\n", ""), "peak_flops"},
      {replaced(kGood, "flops: korthikanti", "flops: none"), "flops"},
      {replaced(kGood, "metric: mfu_percent", "metric: mfu"), "measured[0].metric"},
      {replaced(kGood, "value: 40", "value: -40"), "measured[0].value"},
      {replaced(kGood, "value: 40}", "value: 40, unit: x}"), "measured[0].unit"},
      {replaced(kGood, "{metric: peak_memory_gib, value: 10}",
                "{metric: out_of_memory, value: maybe}"),
       "measured[1].value"},
      {replaced(kGood, "citation: \"a paper\"\n", ""), "citation"},
      {replaced(kGood, "flops: korthikanti", "flops: korthikanti\nreading_error: 0.7"),
       "reading_error"},
      {std::string(kGood) + "extra: 1\n", "extra"},
      // A misspelt key leaves the required one missing: named.
      {std::string(kGood) + "model_override: {layerz: 8}\n", "model_override.layers"},
      {std::string(kGood) + "model_override: {layers: 0}\n", "model_override.layers"},
  };
  for (const auto& [text, field] : cases) {
    const std::string path = write(text);
    try {
      load_validation_run(path);
      ADD_FAILURE() << "accepted a file with a bad " << field;
    } catch (const core::ConfigError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find(field), std::string::npos) << what;
    }
  }
}

// Narayanan counts 4 passes (full recomputation), Korthikanti 3; both count the LM head as
// 6·B̂·s·h·V (its GEMM forward and two backward GEMMs, never recomputed).
TEST(ValidationFlops, FormulasAreTheirClosedForms) {
  const double B = 512, s = 2048, l = 24, h = 2304, V = 51200;
  const double layers = 24 * B * s * l * h * h * (1 + s / (6 * h));
  const double head = 6 * B * s * h * V;
  EXPECT_NEAR(source_flops(FlopsFormula::Narayanan, B, s, l, h, V), 4 * layers + head,
              1e-12 * layers);
  EXPECT_NEAR(source_flops(FlopsFormula::Korthikanti, B, s, l, h, V), 3 * layers + head,
              1e-12 * layers);
  EXPECT_EQ(source_flops(FlopsFormula::None, B, s, l, h, V), 0);
}

PointResult point(std::string id, double measured, std::optional<double> predicted,
                  bool fitted = false, std::string group = "") {
  PointResult p;
  p.id = std::move(id);
  p.source = p.id.substr(0, 1);
  p.metric = ValidationMetric::SequencesPerSec;
  p.measured = measured;
  p.predicted = predicted;
  p.fitted = fitted;
  p.compare_group = std::move(group);
  return p;
}

TEST(ValidationSummary, MedianMaxAndHeldOutAsComputedByHand) {
  // Errors: a1 +10%, a2 −20%, a3 +5% (fitted), b1 +50%, b2 not predicted.
  const std::vector<PointResult> points = {point("a1", 100, 110), point("a2", 100, 80),
                                           point("a3", 100, 105, true), point("b1", 10, 15),
                                           point("b2", 10, std::nullopt)};
  const ValidationSummary s = summarize(points);
  ASSERT_EQ(s.sources.size(), 2u);
  EXPECT_EQ(s.sources[0].source, "a");
  EXPECT_EQ(s.sources[0].all.points, 3u);
  EXPECT_NEAR(s.sources[0].all.median_abs, 0.10, 1e-12);
  EXPECT_NEAR(s.sources[0].all.max_abs, 0.20, 1e-12);
  EXPECT_EQ(s.sources[0].all.worst, "a2");
  EXPECT_EQ(s.sources[0].held_out.points, 2u);
  EXPECT_NEAR(s.sources[0].held_out.median_abs, 0.15, 1e-12);
  EXPECT_EQ(s.sources[1].failed, 1u);
  EXPECT_EQ(s.overall.all.points, 4u);
  EXPECT_NEAR(s.overall.all.median_abs, (0.10 + 0.20) / 2, 1e-12);
  EXPECT_NEAR(s.overall.all.max_abs, 0.50, 1e-12);
}

TEST(ValidationSummary, RankingAgreementCountsPairs) {
  // Measured order x > y > z; predicted swaps y and z: 2 concordant, 1 discordant pair.
  const std::vector<PointResult> points = {point("x", 30, 300, false, "g"),
                                           point("y", 20, 100, false, "g"),
                                           point("z", 10, 150, false, "g")};
  const ValidationSummary s = summarize(points);
  ASSERT_EQ(s.rankings.size(), 1u);
  EXPECT_FALSE(s.rankings[0].same_order);
  EXPECT_NEAR(s.rankings[0].kendall_tau, 1.0 / 3.0, 1e-12);
  // Relative to the measured best (x): y measured 2/3, predicted 1/3 → −50%; z measured 1/3,
  // predicted 1/2 → +50%.
  EXPECT_NEAR(s.rankings[0].median_ratio_error, 0.5, 1e-12);
  const ValidationSummary same =
      summarize({point("x", 30, 31, false, "g"), point("y", 20, 19, false, "g")});
  EXPECT_TRUE(same.rankings[0].same_order);
  EXPECT_DOUBLE_EQ(same.rankings[0].kendall_tau, 1.0);
}

// The bias: the mean of the signed errors, which |error| hides; fitted points apart.
TEST(ValidationSummary, MeanSignedErrorAndFittedPointsAsComputedByHand) {
  // Errors: a1 +10%, a2 −20%, a3 +5% (fitted): mean signed (0.10 − 0.20 + 0.05) / 3.
  const std::vector<PointResult> points = {point("a1", 100, 110), point("a2", 100, 80),
                                           point("a3", 100, 105, true)};
  const ValidationSummary s = summarize(points);
  EXPECT_NEAR(s.overall.all.mean_signed, (0.10 - 0.20 + 0.05) / 3, 1e-12);
  EXPECT_NEAR(s.overall.held_out.mean_signed, (0.10 - 0.20) / 2, 1e-12);
  EXPECT_EQ(s.overall.fitted.points, 1u);
  EXPECT_NEAR(s.overall.fitted.mean_signed, 0.05, 1e-12);
  EXPECT_NEAR(s.overall.fitted.median_abs, 0.05, 1e-12);
}

TEST(ValidationSummary, StatisticsPerGpuGeneration) {
  std::vector<PointResult> points = {point("a1", 100, 110), point("a2", 100, 80),
                                     point("b1", 10, 15)};
  points[0].gpu_generation = "pascal";
  points[1].gpu_generation = "ampere";
  points[2].gpu_generation = "pascal";
  const ValidationSummary s = summarize(points);
  ASSERT_EQ(s.generations.size(), 2u);
  EXPECT_EQ(s.generations[0].source, "pascal");
  EXPECT_EQ(s.generations[0].all.points, 2u);
  EXPECT_NEAR(s.generations[0].all.mean_signed, (0.10 + 0.50) / 2, 1e-12);
  EXPECT_EQ(s.generations[1].source, "ampere");
  EXPECT_NEAR(s.generations[1].all.max_abs, 0.20, 1e-12);
}

TEST(ValidationSummary, GpuGenerationFromTheProfilesGpuName) {
  EXPECT_EQ(gpu_generation("NVIDIA Tesla P100-PCIE-16GB", "p100-daint"), "pascal");
  EXPECT_EQ(gpu_generation("Tesla V100-SXM2-32GB", ""), "volta");
  EXPECT_EQ(gpu_generation("", "a100-dgx"), "ampere");  // no device name: the profile's name
  EXPECT_EQ(gpu_generation("NVIDIA H200", "x"), "hopper");
  EXPECT_EQ(gpu_generation("", "h800-dgx"), "hopper");  // the export variants
  EXPECT_EQ(gpu_generation("NVIDIA A800-SXM4-80GB", ""), "ampere");
  EXPECT_EQ(gpu_generation("NVIDIA GB200", "gb200-nvl72"), "blackwell");
  EXPECT_EQ(gpu_generation("", "my-cluster"), "other");
}

// Two values read off a chart to ±3% are a tie when their intervals overlap.
TEST(ValidationSummary, ReadingErrorIntervalsOverlap) {
  EXPECT_TRUE(within_reading_error(360, 0.03, 370, 0.03));   // 10 ≤ 10.8 + 11.1
  EXPECT_FALSE(within_reading_error(100, 0.03, 107, 0.03));  // 7 > 3 + 3.21
  EXPECT_TRUE(within_reading_error(100, 0.0, 100, 0.0));     // equal values always tie
  EXPECT_FALSE(within_reading_error(100, 0.0, 101, 0.0));    // a printed table: no tolerance
  EXPECT_TRUE(within_reading_error(100, 0.05, 104, 0.0));    // one side's error suffices
}

// Planted ties: w and x measured within ±3% of each other are not ranked, whichever order
// pipesim predicts; y and z are 10% apart and are.
TEST(ValidationSummary, PairsWithinReadingErrorAreTiedNotRanked) {
  std::vector<PointResult> points = {
      point("w", 370, 300, false, "g"), point("x", 360, 320, false, "g"),  // tie, reversed
      point("y", 200, 150, false, "g"), point("z", 180, 140, false, "g")};
  for (PointResult& p : points)
    p.reading_error = 0.03;
  const ValidationSummary s = summarize(points);
  ASSERT_EQ(s.rankings.size(), 1u);
  const RankingAgreement& r = s.rankings[0];
  EXPECT_TRUE(r.same_order);
  ASSERT_EQ(r.ties.size(), 1u);
  EXPECT_EQ(r.ties[0].first, "w");
  EXPECT_EQ(r.ties[0].second, "x");
  EXPECT_EQ(r.ties[0].first_measured, 370);
  // 6 pairs, 1 tied in measurement, none in prediction, 5 concordant: τ_b = 5 / √(5·6).
  EXPECT_NEAR(r.kendall_tau, 5 / std::sqrt(30.0), 1e-12);
  // Without a reading error the same prediction is a discordant pair.
  for (PointResult& p : points)
    p.reading_error = 0;
  const ValidationSummary strict = summarize(points);
  EXPECT_FALSE(strict.rankings[0].same_order);
  EXPECT_TRUE(strict.rankings[0].ties.empty());
  EXPECT_NEAR(strict.rankings[0].kendall_tau, (5.0 - 1.0) / 6.0, 1e-12);
}

// One sign for every metric: a prediction 20% faster than measured is +, whether the source
// measured a throughput (predicted 1.2× measured) or a time (predicted 1/1.2 of measured), and
// a peak memory predicted below the measured one is + (optimistic) as well.
TEST(ValidationPredict, ErrorIsPositiveWhenThePredictionIsOptimisticForEveryMetric) {
  PointResult rate = point("r", 100, 120);
  EXPECT_NEAR(*rate.error(), 0.20, 1e-12);
  PointResult time = point("t", 10, 10 / 1.2);
  time.metric = ValidationMetric::IterationTime;
  EXPECT_NEAR(*time.error(), 1 - 1 / 1.2, 1e-12);
  EXPECT_GT(*time.error(), 0);
  time.predicted = 12;  // too slow
  EXPECT_NEAR(*time.error(), -0.20, 1e-12);
  PointResult memory = point("m", 40, 30);
  memory.metric = ValidationMetric::PeakMemoryGib;
  EXPECT_NEAR(*memory.error(), 0.25, 1e-12);
  // The bias of a too-fast time point and a too-fast throughput point adds up, not cancels.
  time.predicted = 8;
  const ValidationSummary s = summarize({rate, time});
  EXPECT_NEAR(s.overall.all.mean_signed, (0.20 + 0.20) / 2, 1e-12);
  EXPECT_TRUE(lower_is_better(ValidationMetric::IterationTime));
  EXPECT_FALSE(lower_is_better(ValidationMetric::TflopsPerGpu));
}

TEST(ValidationPredict, AnOutOfMemoryMarkIsComparedWithFitsMemory) {
  PointResult p = point("m", 1, 1);
  p.metric = ValidationMetric::OutOfMemory;
  EXPECT_EQ(*p.error(), 0.0);
  p.predicted = 0;
  EXPECT_EQ(*p.error(), 1.0);
}

// A configuration pipesim refuses is a failed point with the reason, not an exception.
TEST_F(ValidationFile, ARefusedConfigurationIsAFailedPoint) {
  const ValidationRun run =
      load_validation_run(write(replaced(kGood, "  stages: 4", "  stages: 64")));
  scenario::SpecCache cache;
  const auto points = predict(run, cache);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_FALSE(points[0].predicted);
  EXPECT_NE(points[0].status.find("stages"), std::string::npos) << points[0].status;
  const ValidationSummary s = summarize(points);
  EXPECT_EQ(s.overall.failed, 2u);
}

// The metrics are the simulated run's, converted as the source converts them.
TEST_F(ValidationFile, MetricsAreTheSimulatedRunsInTheSourcesUnits) {
  const ValidationRun run = load_validation_run(write(kGood));
  scenario::SpecCache cache;
  const auto points = predict(run, cache);
  ASSERT_TRUE(points[0].predicted && points[1].predicted) << points[0].status;
  scenario::Scenario s = scenario::make_scenario(run.run);
  const scenario::Result r = scenario::simulate(s);
  const auto& p = *r.perf;
  const double flops =
      source_flops(FlopsFormula::Korthikanti, p.samples_per_iteration, p.model.sequence,
                   p.model.layers, p.model.hidden, p.model.vocabulary);
  EXPECT_NEAR(*points[0].predicted, 100 * flops / (r.metrics.iteration_time * p.gpus * 312e12),
              1e-9);
  EXPECT_NEAR(*points[1].predicted, p.peak_memory / std::pow(2.0, 30), 1e-9);
}

// A proxy run (`model_override: {layers: L}`) is the run of a model file with L layers: the same
// iteration time, and an MFU counted over the L layers.
TEST_F(ValidationFile, AModelOverrideRunsTheModelWithThatManyLayers) {
  const ValidationRun run =
      load_validation_run(write(std::string(kGood) + "model_override: {layers: 16}\n"));
  EXPECT_EQ(run.model_layers, 16);
  scenario::SpecCache cache;
  const auto points = predict(run, cache);
  ASSERT_TRUE(points[0].predicted) << points[0].status;
  // The oracle: gpt2-32l's file with 16 layers, simulated as a plain scenario.
  std::ifstream shipped(models::load_model("gpt2-32l").source);
  std::stringstream text;
  text << shipped.rdbuf();
  const std::string cut = write(replaced(text.str(), "\nlayers: 32\n", "\nlayers: 16\n"));
  auto options = run.run;
  for (auto& [name, value] : options)
    if (name == "model") value = cut;
  scenario::Scenario s = scenario::make_scenario(options);
  const scenario::Result r = scenario::simulate(s);
  const auto& p = *r.perf;
  ASSERT_EQ(p.model.layers, 16);
  const double flops = source_flops(FlopsFormula::Korthikanti, p.samples_per_iteration,
                                    p.model.sequence, 16, p.model.hidden, p.model.vocabulary);
  EXPECT_NEAR(*points[0].predicted, 100 * flops / (r.metrics.iteration_time * p.gpus * 312e12),
              1e-9);
  EXPECT_NEAR(*points[1].predicted, p.peak_memory / std::pow(2.0, 30), 1e-9);
  // More layers than the model has is a failed point naming the field.
  const auto too_many = predict(
      load_validation_run(write(std::string(kGood) + "model_override: {layers: 33}\n")), cache);
  EXPECT_FALSE(too_many[0].predicted);
  EXPECT_NE(too_many[0].status.find("model_override.layers"), std::string::npos)
      << too_many[0].status;
}

}  // namespace
}  // namespace pipesim::validation
