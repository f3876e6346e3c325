#pragma once
// Turns a SampleSet into the profile's fitted parameters. Each efficiency is inverted from the
// very formula the cost model predicts with (time = launch + work / (peak · efficiency)), so a
// one-kernel prediction from the calibrated profile reproduces its own measurement.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pipesim/calibrate/compute_parameters.hpp"
#include "pipesim/calibrate/efficiency_curve.hpp"
#include "pipesim/calibrate/hockney.hpp"
#include "pipesim/calibrate/samples.hpp"

namespace pipesim::calibrate {

struct LinkFit {
  HockneyFit hockney;     //!< β is nccl-tests' bus bandwidth for collectives
  std::string benchmark;  //!< which samples it came from (send_recv, peer_copy, h2d, ...)
  int gpus = 0;           //!< largest GPU count among them

  //! β in the form the profile stores (collectives.fitted: t = α + n/β, hardware/README.md):
  //! the bus bandwidth divided by the busbw factor at the measured GPU count.
  double profile_beta() const { return hockney.beta / bus_factor(benchmark, gpus); }
};

struct ThroughputFit {
  CurveFit fit;
  double max_achieved = 0.0;  //!< best measured FLOP/s (GEMM) or bytes/s (memory)
};

//! One profile scalar fitted as the median of what its samples reached, kept in (0, 1].
struct ScalarFit {
  double value = 0;     //!< what the profile gets
  double measured = 0;  //!< the median before clamping
  std::size_t samples = 0;
  bool clamped() const { return value != measured; }
};

struct CalibrationFit {
  std::optional<double> kernel_launch;         //!< median `launch` sample, seconds
  std::map<std::string, ThroughputFit> gemm;   //!< dtype → efficiency vs FLOPs
  std::optional<ThroughputFit> hbm;            //!< efficiency vs bytes (copy + triad)
  std::optional<LinkFit> intra_node;           //!< send_recv if measured, else peer_copy
  std::map<std::string, LinkFit> collectives;  //!< all_reduce, all_gather, reduce_scatter
  std::map<std::string, LinkFit> host;         //!< h2d, d2h (reported; not in the schema)
  //! Median fraction of the peak the `attention` samples reach (gpu.attention_efficiency).
  std::optional<ScalarFit> attention_efficiency;
  //! Median of the `grouped_gemm` samples' efficiency over the dense curve's at the same FLOPs
  //! (gpu.grouped_gemm_efficiency), at most 1.
  std::optional<ScalarFit> grouped_gemm_efficiency;
  std::vector<std::string> not_measured;  //!< what keeps the base profile's value, and why
};

//! Fits every parameter the samples support; `base` supplies the peaks the efficiencies are
//! relative to and the launch overhead when none was measured. Throws core::ConfigError (naming
//! the samples file) when samples exist but cannot be fitted.
CalibrationFit fit_samples(const SampleSet& samples, const ComputeParameters& base);

//! `base` with the fitted compute values put in (what the layer check predicts with).
ComputeParameters apply_fit(const ComputeParameters& base, const CalibrationFit& fit);

}  // namespace pipesim::calibrate
