// A GEMM's time is bounded below by its operands' HBM traffic (the roofline), so attention's
// batched products with a small head dimension are priced by their bytes, large linear GEMMs by
// their FLOPs.

#include <gtest/gtest.h>

#include "pipesim/cost/kernel_time.hpp"
#include "pipesim/hardware/profile.hpp"
#include "pipesim/models/layer_kernels.hpp"

namespace pipesim::cost {
namespace {

const hardware::GpuSpec& a100() {
  static const hardware::HardwareProfile hw = hardware::load_profile("a100-dgx");
  return hw.gpu;
}

double flop_time(const models::LayerKernel& k) {
  return k.flops() /
         (a100().peak_flops.at("fp16") * a100().gemm_efficiency.at("fp16").at(k.flops()));
}

double byte_time(const models::LayerKernel& k) {
  const double bytes = static_cast<double>(k.bytes);
  return bytes / (a100().hbm_bandwidth * a100().hbm_efficiency.at(bytes));
}

TEST(GemmRoofline, LargeLinearGemmIsPricedByItsFlops) {
  // 32768 tokens × 2304 → 9216 (an fc1 of Narayanan's 1.7B): ~1,900 FLOPs per byte, far above
  // the A100's 312 TFLOP/s / 2.04 TB/s ≈ 153.
  const models::LayerKernel fc1 =
      models::layer_detail::gemm("fc1", 32768, 9216, 2304, 1, false, true, 2);
  ASSERT_GT(flop_time(fc1), byte_time(fc1));
  EXPECT_DOUBLE_EQ(kernel_time(fc1, a100(), "fp16"), flop_time(fc1) + a100().kernel_launch);
}

TEST(GemmRoofline, AttentionScoresWithHeadDim96AreMemoryBound) {
  // QKᵀ of b·a = 16·24 heads, s = 2048, d = 96: 2·d FLOPs per 2-byte score, ~87 FLOPs per byte.
  const models::LayerKernel scores =
      models::layer_detail::gemm("scores", 2048, 2048, 96, 16 * 24, true, false, 2);
  const double intensity = scores.flops() / static_cast<double>(scores.bytes);
  ASSERT_LT(intensity, a100().peak_flops.at("fp16") / a100().hbm_bandwidth);
  ASSERT_GT(byte_time(scores), flop_time(scores));
  EXPECT_DOUBLE_EQ(kernel_time(scores, a100(), "fp16"), byte_time(scores) + a100().kernel_launch);
}

TEST(GemmRoofline, NoGemmBeatsTheBandwidthOrThePeak) {
  for (const std::int64_t k : {16, 64, 128, 1024, 8192}) {
    const models::LayerKernel g =
        models::layer_detail::gemm("g", 4096, 4096, k, 8, false, false, 2);
    const double t = kernel_time(g, a100(), "fp16");
    EXPECT_GE(t, static_cast<double>(g.bytes) / a100().hbm_bandwidth) << k;
    EXPECT_GE(t, g.flops() / a100().peak_flops.at("fp16")) << k;
  }
}

}  // namespace
}  // namespace pipesim::cost
