// `pipesim calibrate` in-process: the committed synthetic samples become a profile that loads
// back with the fitted values (YAML round trip), outputs are deterministic, the JSON carries the
// fitted parameters, and every malformed input is one line on stderr with exit code 2.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/cli_invoke.hpp"
#include "cli/commands.hpp"
#include "pipesim/calibrate/calibration_fit.hpp"
#include "pipesim/calibrate/layer_check.hpp"
#include "pipesim/calibrate/profile_yaml.hpp"
#include "pipesim/core/version.hpp"
#include "pipesim/hardware/profile.hpp"
#include "test_paths.hpp"

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
  EXPECT_EQ(j.at("pipesim_version"), std::string(pipesim::core::version));
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
  EXPECT_EQ(j.at("gemm_efficiency").size(), 5u);  // bf16, fp16, tf32, fp32, fp8
  EXPECT_GT(j.at("gemm_efficiency").at("fp8").at("table").size(), 3u);
  EXPECT_GT(j.at("gemm_efficiency").at("bf16").at("table").size(), 3u);
  EXPECT_EQ(j.at("provenance").at("gpu"), "synthetic (not measured)");
  EXPECT_EQ(j.at("not_measured").size(), 3u);  // inter-node, attention, grouped GEMMs
  EXPECT_TRUE(j.at("attention_efficiency").is_null());
  EXPECT_TRUE(j.at("grouped_gemm_efficiency").is_null());
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
  EXPECT_EQ(j.at("pipesim_version"), std::string(pipesim::core::version));
  EXPECT_NEAR(j.at("rows")[1].at("relative_error").get<double>(), 1 / 1.1 - 1, 1e-9);
  const CliResult bad =
      invoke({"calibrate", "layer-check", "--layer-times", kSamples, "--profile", kBase});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

TEST(CalibrateCli, ShippedExampleLayerTimesAreTheStatedSyntheticValues) {
  // calibrate/examples/layer_times.csv: SYNTHETIC, from make_layer_times.py's known values
  // (600 TFLOP/s achieved, 5 µs per launch, 13 forward and 19 backward kernels).
  const fs::path example = testing::source_dir() / "calibrate" / "examples" / "layer_times.csv";
  const auto rows = read_layer_times(example);
  ASSERT_EQ(rows.size(), 24u);
  for (const LayerMeasurement& m : rows) {
    const double b = static_cast<double>(m.shape.batch), s = static_cast<double>(m.shape.seq),
                 h = static_cast<double>(m.shape.hidden);
    const double flops = 24 * b * s * h * h + 4 * b * s * s * h;
    const bool forward = m.direction == LayerDirection::forward;
    const double expected = (forward ? flops : 2 * flops) / 600e12 + (forward ? 13 : 19) * 5e-6;
    EXPECT_NEAR(m.seconds / expected, 1.0, 1e-6) << "line " << m.line;
    EXPECT_EQ(m.shape.heads * 128, m.shape.hidden);
    EXPECT_EQ(m.kernel, "total");
  }
  // The documented try-out command works on it.
  const CliResult r = invoke({"calibrate", "layer-check", "--layer-times", example.string(),
                              "--profile", "h200-sxm", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("rows").size(), 24u);
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

  // No GPU: the binary's --probe exits 3 with its one line; pipesim says it in one line of its
  // own and leaves no run folder behind.
  std::ofstream(bench) << "#!/bin/sh\n"
                       << "echo 'pipesim-calibrate-bench: no CUDA device found (no NVIDIA driver "
                          "loaded)' >&2\nexit 3\n";
  const CliResult no_gpu =
      invoke({"calibrate", "--quick", "--bench-dir", bench.parent_path().string(), "-o",
              (dir / "other.yaml").string()});
  EXPECT_EQ(no_gpu.code, 2);
  EXPECT_EQ(no_gpu.err,
            "pipesim: error: " + bench.string() +
                ": device: no CUDA device found (no NVIDIA driver loaded) (measure on a "
                "GPU node with tools/gpu-calibrate.sh, then fit here with "
                "--from-samples)\n");
  EXPECT_FALSE(fs::exists(dir / "other-run"));
  EXPECT_FALSE(fs::exists(dir / "other.yaml"));

  // A device, but the measurement fails: its exit status, and no empty run folder.
  std::ofstream(bench) << "#!/bin/sh\n[ \"$1\" = --probe ] && exit 0\nexit 1\n";
  const CliResult failed = invoke({"calibrate", "--bench-dir", bench.parent_path().string(),
                                   "--base", kBase, "-o", (dir / "other.yaml").string()});
  EXPECT_EQ(failed.code, 2);
  EXPECT_NE(failed.err.find(": run: failed (exit status 1); see its output above"),
            std::string::npos)
      << failed.err;
  EXPECT_FALSE(fs::exists(dir / "other-run"));
  EXPECT_FALSE(fs::exists(dir / "other.yaml"));
}

// The synthetic samples with their `# gpu:` line replaced.
// The synthetic samples relabelled as measured on `gpu`. Their GEMM and copy rates are an H200's,
// above other GPUs' peaks (which calibrate refuses), so only the launch and link rows
// are kept.
fs::path samples_from(const fs::path& dir, const std::string& gpu) {
  std::istringstream in(slurp(kSamples));
  std::string text, row;
  while (std::getline(in, row)) {
    if (!row.starts_with("gemm,") && !row.starts_with("copy,") && !row.starts_with("triad,")) {
      text += row + "\n";
    }
  }
  const std::string line = "# gpu: synthetic (not measured)";
  text.replace(text.find(line), line.size(), "# gpu: " + gpu);
  const fs::path file = dir / "samples.csv";
  std::ofstream(file, std::ios::binary) << text;
  return file;
}

TEST(CalibrateCli, BaseIsRequiredWhenTheSamplesNameNoGpu) {
  const fs::path dir = testing::scratch_dir();
  const CliResult r =
      invoke({"calibrate", "--from-samples", kSamples, "-o", (dir / "out.yaml").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("pipesim: error: command line: --base: required: the samples " + kSamples +
                            " do not name the GPU they were measured on (gpu: synthetic (not "
                            "measured))",
                        0),
            0u)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "out.yaml"));
}

TEST(CalibrateCli, BaseIsInferredFromTheMeasuredGpu) {
  // A100 samples without a base: the shipped a100-dgx profile, its 80 GiB and its name.
  const fs::path dir = testing::scratch_dir();
  const fs::path samples = samples_from(dir, "NVIDIA A100-SXM4-80GB");
  const fs::path out = dir / "a100.yaml";
  const CliResult r = invoke({"calibrate", "--from-samples", samples.string(), "-o", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const hardware::HardwareProfile a100 = hardware::load_profile("a100-dgx");
  const hardware::HardwareProfile cal = load_base_profile(out.string());
  EXPECT_EQ(cal.name, "a100-dgx-calibrated");
  EXPECT_EQ(cal.gpu.memory_bytes, a100.gpu.memory_bytes);
  EXPECT_EQ(cal.gpu.peak_flops, a100.gpu.peak_flops);
  EXPECT_EQ(cal.provenance.gpu, "NVIDIA A100-SXM4-80GB");

  // A GPU no shipped profile is for: the base must be given.
  const CliResult unknown = invoke(
      {"calibrate", "--from-samples", samples_from(dir, "NVIDIA L4").string(), "--format", "json"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("command line: --base: required: no shipped profile is for 'NVIDIA "
                             "L4', the GPU of the samples (shipped: a100-dgx (NVIDIA "
                             "A100-SXM4-80GB), "),
            std::string::npos)
      << unknown.err;
}

TEST(CalibrateCli, ABaseForAnotherGpuIsRefused) {
  // A trap once fallen into: A100 samples fitted onto the H200 base gave an "h200-sxm-calibrated"
  // profile with 141 GB.
  const fs::path dir = testing::scratch_dir();
  const fs::path samples = samples_from(dir, "NVIDIA A100-SXM4-80GB");
  const fs::path out = dir / "out.yaml";
  const CliResult r = invoke(
      {"calibrate", "--from-samples", samples.string(), "--base", kBase, "-o", out.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "pipesim: error: " + samples.string() +
                       ": gpu: measured on 'NVIDIA A100-SXM4-80GB', but the base profile "
                       "'h200-sxm' is for 'NVIDIA H200' (its memory, peaks and links would be "
                       "another GPU's); use a base profile for 'NVIDIA A100-SXM4-80GB' (shipped: "
                       "a100-dgx)\n");
  EXPECT_FALSE(fs::exists(out));
  // The matching base is accepted.
  EXPECT_EQ(invoke({"calibrate", "--from-samples", samples.string(), "--base", "a100-dgx", "-o",
                    out.string()})
                .code,
            0);
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
