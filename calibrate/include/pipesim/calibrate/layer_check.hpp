#pragma once
// The layer check: one transformer layer's measured kernel times (from the CUDA layer
// benchmark, calibrate/bench/layer_bench.cu) beside the cost model's prediction.
//
// Prediction, the performance model's formula for an op (docs/architecture.md §4; hardware/
// TrainingCostModel::compute_time):
//   Σ_gemm flops / (peak_flops[dtype] · gemm_efficiency[dtype](flops))
//   + memory_bytes / (hbm_bandwidth · hbm_efficiency(memory_bytes))  (memory-bound kernels summed)
//   + launches · kernel_launch
// over the kernels of layer_kernels() (layer_kernels.hpp), the same list the benchmark runs.
// A single kernel (--kernels) is priced by the same formula applied to it alone.
//
// Layer CSV: b,s,h,heads,dtype,direction,kernel,seconds[,extra...]; kernel "total" is the whole
// forward or backward timed as one sequence.

#include <filesystem>
#include <string>
#include <vector>

#include "pipesim/calibrate/compute_parameters.hpp"
#include "pipesim/calibrate/layer_kernels.hpp"

namespace pipesim::calibrate {

//! Predicted seconds of one kernel alone. Throws core::ConfigError when the profile lacks the
//! dtype.
double predict_kernel_seconds(const ComputeParameters& p, const LayerKernel& kernel,
                              const std::string& dtype);
//! Predicted seconds of a layer's forward or backward (the op formula above).
double predict_layer_seconds(const ComputeParameters& p, const LayerShape& shape,
                             LayerDirection direction, const std::string& dtype);

struct LayerMeasurement {
  LayerShape shape;
  std::string dtype;
  LayerDirection direction = LayerDirection::forward;
  std::string kernel;  //!< "total" or a kernel name from layer_kernels()
  double seconds = 0.0;
  int line = 0;
};

//! Reads a layer CSV; errors name file, line and column (core::ConfigError).
std::vector<LayerMeasurement> read_layer_times(const std::filesystem::path& path);
std::vector<LayerMeasurement> parse_layer_times(std::string_view text, const std::string& source);

struct LayerComparison {
  LayerMeasurement measured;
  double predicted = 0.0;
  double relative_error = 0.0;  //!< (predicted − measured) / measured
};

struct LayerCheck {
  std::vector<LayerComparison> rows;  //!< the "total" rows, in file order
  double median_abs_error = 0.0;      //!< median of |relative_error| over rows
};

//! Compares the "total" rows (per-kernel rows with `include_kernels`).
LayerCheck check_layers(const ComputeParameters& p, const std::vector<LayerMeasurement>& measured,
                        bool include_kernels = false);

std::string direction_name(LayerDirection d);

}  // namespace pipesim::calibrate
