// calibrate wrote impossible fits with exit 0 (GEMMs at 1e9 TFLOP/s, copies faster
// than HBM, inf TB/s links, launch fitted as 1 ms) and a --name that --hardware then rejected;
// layer-check reported "+28649347800836.9%". Each is now refused, naming the bound.

#include <gtest/gtest.h>

#include "../support/cli_invoke.hpp"
#include "pipesim/calibrate/calibration_fit.hpp"
#include "pipesim/calibrate/layer_check.hpp"
#include "pipesim/calibrate/profile_yaml.hpp"
#include "pipesim/calibrate/samples.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/hardware/profile.hpp"
#include "test_paths.hpp"

namespace pipesim::calibrate {
namespace {

const std::string kHeader = "benchmark,dtype,m,n,k,bytes,gpus,seconds\n";

hardware::HardwareProfile base() {
  return hardware::load_profile((testing::data_dir() / "base-h200-sxm.yaml").string());
}

std::string fit_error(const std::string& rows) {
  try {
    fit_samples(parse_samples(kHeader + rows, "s.csv"), base().gpu);
  } catch (const core::ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(FitBounds, GemmFasterThanPeakIsRefused) {
  // 2·4096³ FLOP in 1 ns: 1.4e20 FLOP/s, ~1e5 times the H200's bf16 peak.
  EXPECT_EQ(fit_error("gemm,bf16,4096,4096,4096,0,1,1e-9\ngemm,bf16,1024,1024,1024,0,1,1e-9\n"),
            "s.csv: gemm bf16: best measured 1.37e+20 FLOP/s is above the base profile's "
            "gpu.peak_flops.bf16 = 9.89e+14 (at most 1.05x that is plausible)");
  // At 80 % of peak the same sizes fit.
  EXPECT_EQ(fit_error("gemm,bf16,4096,4096,4096,0,1,1.74e-4\ngemm,bf16,1024,1024,1024,0,1,3e-6\n"),
            "accepted");
}

TEST(FitBounds, CopiesFasterThanHbmAreRefused) {
  EXPECT_EQ(fit_error("copy,fp32,0,0,0,1e9,1,1e-6\ncopy,fp32,0,0,0,1e8,1,1e-6\n"),
            "s.csv: copy/triad: best measured 1e+15 B/s is above the base profile's "
            "gpu.hbm_bandwidth = 4.8e+12 (at most 1.05x that is plausible)");
}

TEST(FitBounds, LinksThatDoNotSlowWithSizeAreRefused) {
  // Time barely grows from 1 kB to 1 GB: the fitted bandwidth is ~1e21 B/s.
  const std::string what =
      fit_error("send_recv,,0,0,0,1000,2,1e-5\nsend_recv,,0,0,0,1e9,2,1.000001e-5\n");
  EXPECT_EQ(what.rfind("s.csv: send_recv: fitted bandwidth ", 0), 0u) << what;
  EXPECT_NE(what.find("is above the physical bound 1e+14 B/s"), std::string::npos) << what;
}

TEST(FitBounds, LaunchLongerThanTheFastestKernelIsRefused) {
  EXPECT_EQ(fit_error("launch,,0,0,0,0,1,1e-3\ngemm,bf16,4096,4096,4096,0,1,1.74e-4\n"
                      "gemm,bf16,1024,1024,1024,0,1,3e-6\n"),
            "s.csv: launch: median launch time 0.001 s is longer than the fastest gemm "
            "(3e-06 s, line 4)");
}

TEST(FitBounds, SampleTimesOutsidePlausibleRangeAreInputErrors) {
  EXPECT_EQ(fit_error("launch,,0,0,0,0,1,1e-15\n"),
            "s.csv: line 2, column 'seconds': must be in [1e-09, 3600] (or NA when not "
            "measurable), got 1e-15");
}

TEST(FitBounds, ProfileNamesFollowTheHardwareRule) {
  const hardware::HardwareProfile b = base();
  const CalibrationFit fit;
  EXPECT_THROW(calibrated_profile(b, fit, {}, "Bad Name!", "s.csv"), core::ConfigError);
  EXPECT_NO_THROW(calibrated_profile(b, fit, b.provenance, "h200-cal", "s.csv"));
  const auto dir = testing::scratch_dir();
  const auto r = pipesim::testing::invoke_cli(
      {"calibrate", "--from-samples", (testing::data_dir() / "synthetic_samples.csv").string(),
       "--base", (testing::data_dir() / "base-h200-sxm.yaml").string(), "--name", "Bad Name!", "-o",
       (dir / "p.yaml").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("command line: --name: must be 1 to 64 characters of [a-z0-9-], got "
                       "'Bad Name!'"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "p.yaml"));
}

// Fuzzing (samples_csv harness, UBSan): s = 200000000000048 overflowed int64 in the layer's
// kernel list. Shapes beyond one GPU's layer are refused with the bound, before any arithmetic.
TEST(FitBounds, LayerTimesShapesBeyondOneGpuAreRefused) {
  const std::string header = "b,s,h,heads,dtype,direction,kernel,seconds\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1,200000000000048,4096,32,bf16,forward,total,1.2e-3\n",
       "column 's': must be at most 1048576"},
      {"70000,2048,4096,32,bf16,forward,total,1.2e-3\n", "column 'b': must be at most 65536"},
      {"1,2048,1048576,32,bf16,forward,total,1.2e-3\n", "column 'h': must be at most 262144"},
      {"65536,1048576,4096,32,bf16,forward,total,1.2e-3\n", "attention scores or b·s tokens"},
  };
  for (const auto& [row, message] : cases) {
    try {
      parse_layer_times(header + row, "l.csv");
      ADD_FAILURE() << "accepted " << row;
    } catch (const core::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(parse_layer_times(header + "8,8192,8192,64,bf16,forward,total,1e-2\n", "l.csv"));
}

TEST(FitBounds, LayerCheckRefusesAbsurdErrorsInsteadOfPrintingThem) {
  const std::string csv =
      "b,s,h,heads,dtype,direction,kernel,seconds\n4,2048,8192,64,bf16,forward,total,1e-9\n";
  try {
    check_layers(base().gpu, parse_layer_times(csv, "l.csv"));
    FAIL() << "accepted a prediction 1e6 times the measurement";
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("layer times: line 2: predicted ", 0), 0u) << what;
    EXPECT_NE(what.find("more than 100x off"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace pipesim::calibrate
