#pragma once
// The validation suite: published measurements of real training runs (validation/*.yaml, one
// file per run) re-predicted by pipesim. A run file names its source, the measured points
// (TFLOP/s per GPU, MFU, iteration time, samples/s, peak memory, out of memory), how the
// source counted FLOPs, and the configuration as scenario option names. predict() simulates
// the configuration once and turns the simulated iteration into each measured metric the way
// the source computed it, so only pipesim's time and memory are compared, never a FLOP
// convention. summarize() gives per-source, per-GPU-generation and overall median and max
// |error| and the mean signed error (the bias), apart for the points whose profile parameters
// were fitted on them, and the ranking agreement within each group of runs measured side by
// side, where two measured values within their reading error are a tie, not a ranking.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipesim/scenario/prediction_range.hpp"
#include "pipesim/scenario/spec_cache.hpp"

namespace pipesim::validation {

enum class ValidationMetric {
  TflopsPerGpu,         //!< tflops_per_gpu: source-counted FLOPs / time / GPUs, in 10^12/s
  MfuPercent,           //!< mfu_percent: the same over the source's per-GPU peak, in %
  IterationTime,        //!< iteration_time_s
  SamplesPerGpuPerSec,  //!< samples_per_gpu_per_s
  SequencesPerSec,      //!< sequences_per_s: the whole job
  PeakMemoryGib,        //!< peak_memory_gib: the most any GPU holds, in 2^30 bytes
  OutOfMemory,          //!< out_of_memory: the run did not fit (value 1)
};

//! How a source turns a run into FLOPs (B̂ samples of s tokens, l layers, hidden h, vocab V).
enum class FlopsFormula {
  None,         //!< the metric needs no FLOP count
  Narayanan,    //!< 96·B̂·s·l·h²(1 + s/6h + V/16lh): full recomputation counted (SC'21 App.)
  Korthikanti,  //!< 72·B̂·s·l·h²(1 + s/6h + V/12lh): model FLOPs, no recomputation (MLSys'23)
};

enum class Expressible {
  Exact,         //!< pipesim runs the measured configuration
  Approximated,  //!< something differs (named in `approximation`); predicted, reported apart
  No,            //!< pipesim cannot express it yet; listed, not predicted
};

struct MeasuredPoint {
  ValidationMetric metric;
  double value = 0;
};

struct ValidationRun {
  std::string path;
  std::string id;
  std::string source;  //!< e.g. "narayanan"; points are summarised per source
  std::string citation;
  Expressible expressible = Expressible::Exact;
  std::string approximation;
  FlopsFormula flops = FlopsFormula::None;
  double peak_flops = 0;  //!< per GPU, for mfu_percent
  //! A profile parameter was fitted on this run: its error is reported apart (held-out points
  //! are the evidence).
  bool fitted = false;
  //! Runs measured side by side (one table row, one figure): predictions must rank them as
  //! measured. Empty = not part of a ranking.
  std::string compare_group;
  //! The source's reading error as a fraction of each value (optional field `reading_error`,
  //! default 0: printed in a table): values read off a bar chart are known to ±3% (0.03).
  double reading_error = 0;
  //! > 0: the run trained the model with this many layers instead of its file's (optional
  //! field `model_override: {layers: L}`): a source's proxy of a model cut to fit fewer GPUs.
  //! At most the file's layer count.
  int model_layers = 0;
  std::vector<MeasuredPoint> measured;
  std::vector<std::string> assumptions;
  std::vector<std::pair<std::string, std::string>> run;  //!< scenario option → text
};

std::string_view metric_name(ValidationMetric metric);
std::string_view metric_unit(ValidationMetric metric);
std::string_view expressible_name(Expressible e);

//! Reads one run file strictly; throws core::ConfigError naming the file and field.
ValidationRun load_validation_run(const std::string& path);

//! FLOPs of one iteration of `samples` sequences by `formula`.
double source_flops(FlopsFormula formula, double samples, double sequence, double layers,
                    double hidden, double vocabulary);

struct PointResult {
  std::string id;
  std::string source;
  std::string compare_group;
  Expressible expressible = Expressible::Exact;
  bool fitted = false;
  double reading_error = 0;  //!< the run's, as a fraction of `measured`
  //! The GPU generation of the run's hardware profile (gpu_generation()); "" before predict.
  std::string gpu_generation;
  double gpus = 0;  //!< GPUs of the predicted run (t·D·W); 0 when not predicted
  //! What the predicted run trains: "moe" (a mixture-of-experts model), "context-parallel" (a
  //! dense one with C > 1) or "dense"; "" when not predicted.
  std::string workload;
  ValidationMetric metric = ValidationMetric::IterationTime;
  double measured = 0;
  std::optional<double> predicted;  //!< none when not expressible or the run failed
  //! Whether the predicted run fits its GPUs' memory; none when not predicted. A run measured
  //! for its speed ran, so false there is a memory prediction that the measurement refutes.
  std::optional<bool> fits_memory;
  std::string status;  //!< "ok", "not expressible", or the error
  //! The relative error, + when the prediction is optimistic: predicted / measured − 1 for
  //! throughput-type metrics, 1 − predicted / measured for time and memory (lower is better);
  //! out_of_memory: 0 when predicted as measured, 1 otherwise.
  std::optional<double> error() const;
};

//! Simulates `run` (models and profiles through `cache`) and returns one result per measured
//! point. A configuration pipesim rejects gives results with that status, never a throw.
std::vector<PointResult> predict(const ValidationRun& run, scenario::SpecCache& cache);

//! The architecture generation of a profile's GPU (scenario/prediction_range.hpp).
using scenario::gpu_generation;

//! Whether two measured values are equal within their reading errors (fractions): the
//! intervals v·(1 ± e) overlap, |a − b| ≤ e_a·a + e_b·b. Exact equality is always a tie.
bool within_reading_error(double a, double error_a, double b, double error_b);

struct ErrorStats {
  size_t points = 0;
  double median_abs = 0;  //!< median |error|
  double max_abs = 0;
  //! Mean of the signed errors (PointResult::error(), + = optimistic): the bias, which |error|
  //! hides.
  double mean_signed = 0;
  std::string worst;  //!< id of the point with the largest |error|
};

//! Two runs of a group whose measured values lie within their reading errors.
struct TiedPair {
  std::string first, second;  //!< run ids, in the group's order
  double first_measured = 0, second_measured = 0;
};

struct RankingAgreement {
  std::string group;
  std::string metric;
  size_t runs = 0;
  //! The predicted order agrees with the measured one on every pair not tied in measurement.
  bool same_order = false;
  //! Kendall's τ_b (Kendall 1945: (C − D) / √((n₀ − n₁)(n₀ − n₂)), n₁ and n₂ the pairs tied
  //! in measurement and in prediction): 1 = same order, −1 reversed; 0 when every pair ties.
  double kendall_tau = 0;
  std::vector<TiedPair> ties;  //!< the pairs tied in measurement (within_reading_error)
  //! Median over the group's other runs of |(predicted / predicted best) / (measured /
  //! measured best) − 1|, the best being the run measured fastest: relative speed-ups.
  double median_ratio_error = 0;
};

struct SourceSummary {
  std::string source;
  ErrorStats all;       //!< throughput-type points (not memory), exact and approximated
  ErrorStats held_out;  //!< the same, not fitted
  ErrorStats fitted;    //!< the same, fitted (a profile parameter was fitted on them)
  ErrorStats exact;     //!< throughput-type points of exactly expressed runs
  ErrorStats memory;    //!< peak_memory_gib points
  size_t not_expressible = 0;
  size_t failed = 0;  //!< expressible points that pipesim could not predict
};

struct ValidationSummary {
  std::vector<SourceSummary> sources;  //!< in order of first appearance
  //! The same statistics per GPU generation (`source` holds the generation), in order of
  //! first appearance.
  std::vector<SourceSummary> generations;
  SourceSummary overall;
  std::vector<RankingAgreement> rankings;
};

//! Whether a metric measures speed (throughput, time) rather than memory.
bool is_speed_metric(ValidationMetric metric);

//! Whether a smaller value of the metric is the better one (time, memory).
bool lower_is_better(ValidationMetric metric);

ValidationSummary summarize(const std::vector<PointResult>& points);

//! Every point of `files` (run files; none: every shipped one, validation/*.yaml) predicted,
//! and their statistics. Every file is read before anything is simulated, so a typo in the
//! 50th file is reported at once. Throws core::ConfigError for a file that cannot be read.
struct Validation {
  std::vector<PointResult> points;
  ValidationSummary summary;
};
Validation validate(const std::vector<std::string>& files = {});

}  // namespace pipesim::validation
