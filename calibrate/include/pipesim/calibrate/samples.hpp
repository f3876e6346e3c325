#pragma once
// The samples CSV written by the CUDA benchmarks (calibrate/bench) and read by the fits.
//
//   # key: value                      provenance lines (gpu, driver, cuda_runtime, date, ...)
//   benchmark,dtype,m,n,k,bytes,gpus,seconds[,extra columns...]
//   gemm,bf16,4096,12288,4096,...,1,1.9e-4,...
//
// `seconds` is the median time of one operation; `NA` marks a benchmark that could not be
// measured on this machine (e.g. peer copies with one GPU) and is skipped by the fits. Any other
// malformed cell is a core::ConfigError naming the file, line and column.
//
// Two optional columns after these: `flops`, the work of a row that is not one m×n×k GEMM
// (fused attention, several kernels measured together; empty: 2mnk), and `source`, where a
// measurement came from (a trace and its phase). The benchmarks `attention` and
// `grouped_gemm` (rows from profiler traces) fit the profile's attention_efficiency and
// grouped_gemm_efficiency.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipesim::calibrate {

struct Sample {
  std::string benchmark;  //!< gemm, copy, triad, h2d, d2h, peer_copy, all_reduce, ... launch
  std::string dtype;      //!< fp32, tf32, bf16, fp16 (GEMM, collectives); empty otherwise
  std::int64_t m = 0, n = 0, k = 0;
  double bytes = 0.0;  //!< bytes moved (memory, copies) or message size (collectives)
  int gpus = 1;
  std::optional<double> seconds;  //!< median seconds per operation; nullopt = not measurable
  int line = 0;                   //!< 1-based line in the source file, for messages
  std::optional<double> flops;    //!< the `flops` column, when given
  std::string source;             //!< the `source` column ("" when absent)

  //! The work: the `flops` column, else 2mnk.
  double gemm_flops() const {
    return flops ? *flops
                 : 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  }
};

struct SampleSet {
  std::string source;                           //!< file name, for messages
  std::map<std::string, std::string> metadata;  //!< from the `# key: value` lines
  std::vector<Sample> rows;

  //! Measured rows of one benchmark (and dtype, when given).
  std::vector<Sample> measured(std::string_view benchmark, std::string_view dtype = {}) const;
  //! The metadata value, or `fallback` when the samples do not carry it.
  std::string meta(const std::string& key, const std::string& fallback) const;
};

//! Parses CSV text; `source` names it in errors. Throws core::ConfigError.
SampleSet parse_samples(std::string_view text, const std::string& source);
//! Reads and parses a file. Throws core::ConfigError (also when it cannot be read).
SampleSet read_samples(const std::filesystem::path& path);
//! The samples as CSV text: metadata lines, then the eight columns, `flops` and `source`
//! (parse_samples reads it back to the same rows).
std::string samples_to_csv(const SampleSet& samples);

}  // namespace pipesim::calibrate
