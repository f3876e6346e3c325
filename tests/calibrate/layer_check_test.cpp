// The layer check: the kernel list matches the published FLOP counts, the prediction is the
// cost model's formula kernel by kernel, and measured-vs-predicted errors are reported right.

#include "pipesim/calibrate/layer_check.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "pipesim/calibrate/efficiency_curve.hpp"
#include "pipesim/core/config_error.hpp"

namespace pipesim::calibrate {
namespace {

ComputeParameters simple_profile() {
  ComputeParameters p;
  p.peak_flops["bf16"] = 1e15;
  p.gemm_efficiency["bf16"] = EfficiencyCurve{{{1e9, 0.5}, {1e11, 0.8}}};
  p.hbm_bandwidth = 4e12;
  p.hbm_efficiency = EfficiencyCurve{{{1e6, 0.4}, {1e8, 0.9}}};
  p.kernel_launch = 3e-6;
  return p;
}

double sum_flops(const std::vector<LayerKernel>& ks) {
  double f = 0;
  for (const auto& k : ks)
    f += k.flops();
  return f;
}

TEST(LayerKernels, FlopsMatchNarayananEtAl) {
  for (const LayerShape& shape : {LayerShape{1, 2048, 4096, 32, 2}, LayerShape{4, 512, 1024, 8, 2},
                                  LayerShape{2, 1024, 8192, 64, 2}}) {
    const double b = static_cast<double>(shape.batch), s = static_cast<double>(shape.seq),
                 h = static_cast<double>(shape.hidden);
    const double forward = 24 * b * s * h * h + 4 * b * s * s * h;
    EXPECT_DOUBLE_EQ(sum_flops(layer_kernels(shape, LayerDirection::forward)), forward);
    EXPECT_DOUBLE_EQ(sum_flops(layer_kernels(shape, LayerDirection::backward)), 2 * forward);
  }
}

TEST(LayerKernels, CountsAndMemoryKernelBytes) {
  const LayerShape shape{2, 128, 256, 2, 2};
  const auto fwd = layer_kernels(shape, LayerDirection::forward);
  const auto bwd = layer_kernels(shape, LayerDirection::backward);
  EXPECT_EQ(fwd.size(), 13u);
  EXPECT_EQ(bwd.size(), 19u);
  const std::int64_t e = 2 * 128 * 256;  // b·s·h elements
  EXPECT_EQ(fwd[0].name, "ln1");
  EXPECT_EQ(fwd[0].bytes, 2 * e * 2 + 8 * 2 * 128);      // read + write, fp32 mean/rstd
  EXPECT_EQ(fwd[7].bytes, e * (3 * 2 + 1));              // x, residual, out, 1-byte mask
  EXPECT_EQ(fwd[3].bytes, 2 * (2 * 2 * 128 * 128) * 2);  // softmax over b·a·s² elements
}

TEST(LayerPrediction, IsTheCostModelFormulaPerKernel) {
  const ComputeParameters p = simple_profile();
  LayerKernel gemm;
  gemm.is_gemm = true;
  gemm.m = gemm.n = gemm.k = 1000;  // 2e9 FLOPs: efficiency 0.5 + 0.3·(log10 2e9 − 9)/2
  const double eff = 0.5 + 0.3 * (std::log10(2e9) - 9.0) / 2.0;
  EXPECT_NEAR(predict_kernel_seconds(p, gemm, "bf16"), 2e9 / (1e15 * eff) + 3e-6, 1e-15);
  LayerKernel mem;
  mem.bytes = 1'000'000'000;  // clamped at the last point: 0.9
  EXPECT_NEAR(predict_kernel_seconds(p, mem, "bf16"), 1e9 / (4e12 * 0.9) + 3e-6, 1e-15);
  EXPECT_THROW(predict_kernel_seconds(p, gemm, "fp8"), core::ConfigError);

  // A layer: GEMMs each at their own efficiency or HBM time, each memory-bound kernel at the HBM
  // efficiency of its own bytes, one launch per kernel (the performance model's op formula).
  const LayerShape shape{1, 1024, 2048, 16, 2};
  double gemms = 0, memory = 0;
  int launches = 0;
  for (const auto& k : layer_kernels(shape, LayerDirection::backward)) {
    ++launches;
    if (k.is_gemm) {
      // each GEMM no faster than its operands' HBM traffic (the roofline)
      const double b = static_cast<double>(k.bytes);
      gemms += std::max(k.flops() / (1e15 * p.gemm_efficiency.at("bf16").at(k.flops())),
                        b / (4e12 * p.hbm_efficiency.at(b)));
    } else if (k.bytes > 0) {
      const double b = static_cast<double>(k.bytes);
      memory += b / (4e12 * p.hbm_efficiency.at(b));
    }
  }
  const double expected = gemms + memory + launches * 3e-6;
  EXPECT_NEAR(predict_layer_seconds(p, shape, LayerDirection::backward, "bf16") / expected, 1.0,
              1e-12);
  EXPECT_EQ(launches, 19);
}

TEST(LayerCheck, ReportsSignedErrorsAndTheMedianAbsoluteError) {
  const ComputeParameters p = simple_profile();
  std::string csv = "# SYNTHETIC for the test\nb,s,h,heads,dtype,direction,kernel,seconds,spread\n";
  const double factors[] = {1.25, 0.8, 1.1};  // measured = predicted × factor
  const LayerShape shapes[] = {
      {1, 1024, 1024, 8, 2}, {2, 2048, 2048, 16, 2}, {4, 512, 4096, 32, 2}};
  for (int i = 0; i < 3; ++i) {
    const double t =
        predict_layer_seconds(p, shapes[i], LayerDirection::forward, "bf16") * factors[i];
    csv += fmt::format("{},{},{},{},bf16,forward,total,{:.17g},0.01\n", shapes[i].batch,
                       shapes[i].seq, shapes[i].hidden, shapes[i].heads, t);
  }
  const double qkv =
      predict_kernel_seconds(p, layer_kernels(shapes[0], LayerDirection::forward)[1], "bf16");
  csv += fmt::format("1,1024,1024,8,bf16,forward,qkv,{:.17g},0.01\n", qkv * 2);
  const auto measured = parse_layer_times(csv, "layer.csv");
  ASSERT_EQ(measured.size(), 4u);

  const LayerCheck totals = check_layers(p, measured);
  ASSERT_EQ(totals.rows.size(), 3u);
  EXPECT_NEAR(totals.rows[0].relative_error, 1 / 1.25 - 1, 1e-9);  // −20 %
  EXPECT_NEAR(totals.rows[1].relative_error, 1 / 0.8 - 1, 1e-9);   // +25 %
  EXPECT_NEAR(totals.median_abs_error, 0.2, 1e-9);                 // of {0.2, 0.25, 0.0909}

  const LayerCheck with_kernels = check_layers(p, measured, true);
  ASSERT_EQ(with_kernels.rows.size(), 4u);
  EXPECT_NEAR(with_kernels.rows[3].relative_error, -0.5, 1e-9);
  EXPECT_NEAR(with_kernels.median_abs_error, 0.2, 1e-9);  // kernels do not enter the median
}

TEST(LayerCheck, MalformedLayerFilesNameLineAndColumn) {
  const auto error_of = [](const std::string& text) -> std::string {
    try {
      parse_layer_times(text, "layer.csv");
    } catch (const core::ConfigError& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string header = "b,s,h,heads,dtype,direction,kernel,seconds\n";
  EXPECT_EQ(error_of(""), "layer.csv: line 1: no layer measurements");
  EXPECT_EQ(error_of(header + "1,1024,1024,8,bf16,sideways,total,1e-3\n"),
            "layer.csv: line 2, column 'direction': must be forward or backward, got 'sideways'");
  EXPECT_EQ(error_of(header + "1,1024,1000,7,bf16,forward,total,1e-3\n"),
            "layer.csv: line 2, column 'heads': b, s, heads must be >= 1 and heads must divide h");
  EXPECT_EQ(error_of(header + "1,1024,1024,8,bf16,forward,total,-1e-3\n"),
            "layer.csv: line 2, column 'seconds': must be in [1e-09, 3600], got -1e-3");
  EXPECT_EQ(error_of("b,s,h,heads,dtype,kernel,seconds\n"),
            "layer.csv: line 1, header: missing column 'direction' at position 6 (the header must "
            "start with b,s,h,heads,dtype,direction,kernel,seconds)");
}

}  // namespace
}  // namespace pipesim::calibrate
