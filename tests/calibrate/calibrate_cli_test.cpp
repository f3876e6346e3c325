// `pipesim calibrate` in-process: the committed synthetic samples become a profile that loads
// back with the fitted values (YAML round trip), outputs are deterministic, the JSON carries the
// fitted parameters, and every malformed input is one line on stderr with exit code 2.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "pipesim/calibrate/calibration_fit.hpp"
#include "pipesim/calibrate/layer_check.hpp"
#include "pipesim/calibrate/profile_yaml.hpp"
#include "test_paths.hpp"
#include "../support/cli_invoke.hpp"

namespace pipesim::calibrate {
namespace {

namespace fs = std::filesystem;

using pipesim::testing::CliResult;
// One in-process CLI runner for every test (tests/support/cli_invoke.hpp).
const auto invoke = &pipesim::testing::invoke_cli;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kSamples = (testing::data_dir() / "synthetic_samples.csv").string();
const std::string kBase = (testing::data_dir() / "base-h200-sxm.yaml").string();

TEST(CalibrateCli, WritesAProfileThatLoadsBackWithTheFittedValues) {
  const fs::path dir = testing::scratch_dir();
  const fs::path out = dir / "h200-cal.yaml";
  const CliResult r =
      invoke({"calibrate", "--from-samples", kSamples, "--base", kBase, "-o", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("gemm bf16"), std::string::npos) << r.out;

  // The samples travel with the profile, byte for byte.
  EXPECT_EQ(slurp(dir / "h200-cal.samples.csv"), slurp(kSamples));
  const hardware::HardwareProfile loaded = load_base_profile(out.string());
  EXPECT_EQ(loaded.name, "h200-sxm-calibrated");
  EXPECT_EQ(loaded.provenance.source, "calibration");
  EXPECT_EQ(loaded.provenance.gpu, "synthetic (not measured)");
  EXPECT_EQ(loaded.provenance.date, "2026-11-30");
  EXPECT_EQ(loaded.provenance.tool_version, "pipesim 0.1.0");
  EXPECT_EQ(loaded.samples, "h200-cal.samples.csv");

  // Round trip: what was written is what was fitted (6 significant digits).
  const hardware::HardwareProfile base = load_base_profile(kBase);
  const CalibrationFit fit = fit_samples(read_samples(kSamples), base.gpu);
  EXPECT_NEAR(loaded.gpu.kernel_launch / *fit.kernel_launch, 1.0, 1e-5);
  for (const auto& [dtype, t] : fit.gemm) {
    const auto& got = loaded.gpu.gemm_efficiency.at(dtype).points;
    const auto& want = t.fit.curve.points;
    ASSERT_EQ(got.size(), want.size()) << dtype;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i].first / want[i].first, 1.0, 1e-5);
      EXPECT_NEAR(got[i].second / want[i].second, 1.0, 1e-5);
    }
  }
  // Not measured: copied from the base.
  EXPECT_EQ(loaded.gpu.peak_flops, base.gpu.peak_flops);
  EXPECT_EQ(loaded.gpu.memory_bytes, base.gpu.memory_bytes);
  EXPECT_EQ(loaded.inter_node.alpha, base.inter_node.alpha);
  EXPECT_EQ(loaded.inter_node.beta, base.inter_node.beta);
  EXPECT_EQ(loaded.gpus_per_node, base.gpus_per_node);
  // Measured: the fitted link and collectives (α + n/β form).
  EXPECT_NEAR(loaded.intra_node.beta / fit.intra_node->profile_beta(), 1.0, 1e-5);
  EXPECT_NEAR(loaded.fitted.at("all_reduce").at("intra_node").beta /
                  fit.collectives.at("all_reduce").profile_beta(),
              1.0, 1e-5);
  EXPECT_EQ(loaded.fitted.size(), 3u);
  EXPECT_EQ(loaded.gpu.hbm_efficiency.points.size(), fit.hbm->fit.curve.points.size());

  // Calibrating again from the calibrated profile and its copied samples is a fixed point.
  const fs::path again = dir / "again.yaml";
  ASSERT_EQ(invoke({"calibrate", "--from-samples", (dir / "h200-cal.samples.csv").string(),
                    "--base", out.string(), "-o", again.string(), "--name", "h200-sxm-calibrated"})
                .code,
            0);
  const hardware::HardwareProfile twice = load_base_profile(again.string());
  EXPECT_EQ(twice.gpu.gemm_efficiency.at("bf16").points,
            loaded.gpu.gemm_efficiency.at("bf16").points);
}

TEST(CalibrateCli, OutputIsByteIdenticalAcrossRuns) {
  const fs::path dir = testing::scratch_dir();
  ASSERT_EQ(invoke({"calibrate", "--from-samples", kSamples, "--base", kBase, "-o",
                    (dir / "a.yaml").string()})
                .code,
            0);
  ASSERT_EQ(invoke({"calibrate", "--from-samples", kSamples, "--base", kBase, "-o",
                    (dir / "b.yaml").string()})
                .code,
            0);
  std::string a = slurp(dir / "a.yaml"), b = slurp(dir / "b.yaml");
  // Only the copied-samples file name differs (a.samples.csv vs b.samples.csv).
  const auto neutral = [](std::string s, const std::string& name) {
    for (size_t at = s.find(name); at != std::string::npos; at = s.find(name))
      s.replace(at, name.size(), "X.csv");
    return s;
  };
  EXPECT_EQ(neutral(a, "a.samples.csv"), neutral(b, "b.samples.csv"));
  EXPECT_NE(a, b);
}

TEST(CalibrateCli, JsonCarriesTheFittedParameters) {
  const CliResult r =
      invoke({"calibrate", "--from-samples", kSamples, "--base", kBase, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schema_version"), 1);
  EXPECT_NEAR(j.at("kernel_launch").get<double>(), 2.5e-6, 0.1e-6);
  EXPECT_NEAR(j.at("links").at("intra_node").at("beta").get<double>(), 370e9, 10e9);
  EXPECT_EQ(j.at("links").at("intra_node").at("from"), "send_recv");
  const auto& ar = j.at("collectives").at("all_reduce").at("intra_node");
  EXPECT_NEAR(ar.at("alpha").get<double>(), 15e-6, 1.5e-6);
  // Fitted as nccl-tests bus bandwidth; stored as t = α + n/β at the measured 8 GPUs, so the
  // profile's β is busbw / (2·7/8): a 256 MiB all-reduce then costs what was "measured".
  EXPECT_NEAR(ar.at("beta_bus").get<double>(), 360e9, 10e9);
  EXPECT_NEAR(ar.at("beta").get<double>(), ar.at("beta_bus").get<double>() / 1.75, 1.0);
  const double n = 256.0 * (1 << 20);
  EXPECT_NEAR(
      (ar.at("alpha").get<double>() + n / ar.at("beta").get<double>()) / (15e-6 + 1.75 * n / 360e9),
      1.0, 0.03);
  EXPECT_EQ(j.at("gemm_efficiency").size(), 4u);
  EXPECT_GT(j.at("gemm_efficiency").at("bf16").at("table").size(), 3u);
  EXPECT_EQ(j.at("provenance").at("gpu"), "synthetic (not measured)");
  EXPECT_EQ(j.at("not_measured").size(), 1u);
}

struct BadCase {
  std::string name;
  std::string samples;  //!< file content; "(none)" = file does not exist
  std::string expect;   //!< part of the one error line
};

class CalibrateCliBadSamples : public ::testing::TestWithParam<BadCase> {};

TEST_P(CalibrateCliBadSamples, OneClearLineAndExitCode2) {
  const fs::path dir = testing::scratch_dir();
  const fs::path file = dir / "samples.csv";
  if (GetParam().samples != "(none)") {
    std::ofstream(file, std::ios::binary) << GetParam().samples;
  }
  const CliResult r = invoke({"calibrate", "--from-samples", file.string(), "--base", kBase, "-o",
                              (dir / "out.yaml").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("pipesim: error: " + file.string() + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(GetParam().expect), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out.yaml")) << "no profile is written from bad samples";
}

const std::string kHeader = "benchmark,dtype,m,n,k,bytes,gpus,seconds\n";
INSTANTIATE_TEST_SUITE_P(
    Malformed, CalibrateCliBadSamples,
    ::testing::Values(BadCase{"Empty", "", "line 1: empty samples file"},
                      BadCase{"MissingColumn",
                              "benchmark,dtype,m,n,k,gpus,seconds\ncopy,fp32,0,0,0,1,1e-5\n",
                              "line 1, header: missing column 'bytes' at position 6"},
                      BadCase{"NonNumeric", kHeader + "copy,fp32,0,0,0,lots,1,1e-5\n",
                              "line 2, column 'bytes': must be a finite number, got 'lots'"},
                      BadCase{"NegativeTime",
                              kHeader + "copy,fp32,0,0,0,1e6,1,1e-5\ncopy,fp32,0,0,0,2e6,1,-3e-5\n",
                              "line 3, column 'seconds': must be in [1e-09, 3600]"},
                      BadCase{"ZeroTime", kHeader + "launch,,0,0,0,0,1,0\n",
                              "line 2, column 'seconds': must be in [1e-09, 3600]"},
                      BadCase{"Missing", "(none)", "file: cannot open: No such file or directory"}),
    [](const auto& param_info) { return param_info.param.name; });

TEST(CalibrateCli, BadBaseProfileIsOneLine) {
  const fs::path dir = testing::scratch_dir();
  const fs::path base = dir / "base.yaml";
  std::ofstream(base) << slurp(kBase).replace(slurp(kBase).find("hbm_bandwidth: 4.8e12"), 21,
                                              "hbm_bandwidth: -1");
  const CliResult r = invoke({"calibrate", "--from-samples", kSamples, "--base", base.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("pipesim: error: " + base.string() + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("hbm_bandwidth"), std::string::npos) << r.err;
}

TEST(CalibrateCli, CalibratedProfileDrivesSimulate) {
  const fs::path dir = testing::scratch_dir();
  const fs::path out = dir / "cal.yaml";
  ASSERT_EQ(
      invoke({"calibrate", "--from-samples", kSamples, "--base", kBase, "-o", out.string()}).code,
      0);
  const auto simulate = [](const std::string& hardware) {
    const CliResult r = invoke({"simulate", "--schedule", "1f1b", "-D", "4", "-N", "8", "--model",
                                "gpt2-32l", "--hardware", hardware, "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.code == 0 ? r.out : "{}");
  };
  const auto calibrated = simulate(out.string());
  const auto datasheet = simulate("h200-sxm");  // the shipped datasheet profile
  ASSERT_TRUE(calibrated.contains("iteration_time"));
  EXPECT_EQ(calibrated.at("hardware"), "h200-sxm-calibrated");
  const double t = calibrated.at("iteration_time").get<double>();
  EXPECT_GT(t, 0.0);
  EXPECT_LT(calibrated.at("mfu").get<double>(), 1.0);
  // The fitted efficiencies change the prediction.
  EXPECT_NE(t, datasheet.at("iteration_time").get<double>());
}

TEST(CalibrateCli, LayerCheckPrintsMeasuredBesidePredicted) {
  const fs::path dir = testing::scratch_dir();
  const hardware::HardwareProfile base = load_base_profile(kBase);
  const LayerShape shape{2, 1024, 2048, 16, 2};
  // SYNTHETIC layer times: the base profile's own prediction × 1.1 (so the error is −9.1 %).
  std::ofstream(dir / "layer.csv")
      << "b,s,h,heads,dtype,direction,kernel,seconds\n"
      << fmt::format("2,1024,2048,16,bf16,forward,total,{:.17g}\n",
                     1.1 * predict_layer_seconds(base.gpu, shape, LayerDirection::forward, "bf16"))
      << fmt::format(
             "2,1024,2048,16,bf16,backward,total,{:.17g}\n",
             1.1 * predict_layer_seconds(base.gpu, shape, LayerDirection::backward, "bf16"));
  const CliResult text = invoke({"calibrate", "layer-check", "--layer-times",
                                 (dir / "layer.csv").string(), "--profile", kBase});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("median absolute error (layer totals): 9.1%"), std::string::npos)
      << text.out;
  const CliResult json =
      invoke({"calibrate", "layer-check", "--layer-times", (dir / "layer.csv").string(),
              "--profile", kBase, "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j.at("rows").size(), 2u);
  EXPECT_NEAR(j.at("rows")[1].at("relative_error").get<double>(), 1 / 1.1 - 1, 1e-9);
  const CliResult bad =
      invoke({"calibrate", "layer-check", "--layer-times", kSamples, "--profile", kBase});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

TEST(CalibrateCli, RunModeRunsTheBenchmarkBinaryThenFits) {
  // A stand-in for pipesim-calibrate-bench (no GPU here): records its arguments and writes the
  // synthetic samples where --out says.
  const fs::path dir = testing::scratch_dir();
  const fs::path bench = dir / "bin" / "pipesim-calibrate-bench";
  fs::create_directories(bench.parent_path());
  std::ofstream(bench) << "#!/bin/sh\necho \"$@\" > '" << (dir / "args.txt").string() << "'\n"
                       << "while [ $# -gt 0 ]; do [ \"$1\" = --out ] && cp '" << kSamples
                       << "' \"$2\"; shift; done\n";
  fs::permissions(bench, fs::perms::owner_all);
  const fs::path out = dir / "node.yaml";
  const CliResult r = invoke({"calibrate", "--quick", "--bench-dir", bench.parent_path().string(),
                              "--base", kBase, "-o", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(dir / "args.txt"),
            "--quick --out " + (dir / "node-run" / "samples.csv").string() + "\n");
  EXPECT_EQ(slurp(dir / "node.samples.csv"), slurp(kSamples));
  EXPECT_EQ(load_base_profile(out.string()).name, "h200-sxm-calibrated");

  std::ofstream(bench) << "#!/bin/sh\nexit 3\n";
  const CliResult failed = invoke({"calibrate", "--bench-dir", bench.parent_path().string(),
                                   "--base", kBase, "-o", (dir / "other.yaml").string()});
  EXPECT_EQ(failed.code, 2);
  EXPECT_NE(failed.err.find("failed (status"), std::string::npos) << failed.err;
  EXPECT_FALSE(fs::exists(dir / "other.yaml"));
}

TEST(CalibrateCli, RunningBenchmarksNeedsACudaBuildOrSamples) {
  const fs::path dir = testing::scratch_dir();
  const CliResult r =
      invoke({"calibrate", "--base", kBase, "--bench-dir", "", "-o", (dir / "x.yaml").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(
      r.err.find("--from-samples: is required: this pipesim was built without the CUDA benchmarks"),
      std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace pipesim::calibrate
