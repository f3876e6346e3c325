#include "pipesim/cost/kernel_time.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pipesim/core/config_error.hpp"

namespace pipesim::cost {

double kernel_time(const models::KernelList& kernels, const hardware::GpuSpec& gpu,
                   const std::string& dtype, double host_overhead) {
  double t = 0.0;
  for (const models::LayerKernel& k : kernels) {
    if (!k.compute_bound()) {
      const double b = static_cast<double>(k.bytes);
      if (b > 0) t += b / (gpu.hbm_bandwidth * gpu.hbm_efficiency.at(b));
      continue;
    }
    const double flops = k.flops();
    if (flops <= 0) continue;
    const auto peak = gpu.peak_flops.find(dtype);
    const auto eff = gpu.gemm_efficiency.find(dtype);
    if (peak == gpu.peak_flops.end() || eff == gpu.gemm_efficiency.end()) {
      throw core::ConfigError(
          "hardware profile",
          fmt::format("gpu.{}.{}", peak == gpu.peak_flops.end() ? "peak_flops" : "gemm_efficiency",
                      dtype),
          fmt::format("missing, and the kernels compute in {}", dtype));
    }
    // A fused attention kernel runs at its own fraction of the peak when the profile states one
    // (FlashAttention-2 runs well below cuBLAS GEMMs of the same FLOPs).
    const bool fused_attention = !k.is_gemm && gpu.attention_efficiency > 0;
    // A grouped GEMM (the local experts' linear layers in one launch: batched and linear) at
    // the profile's fraction of the dense curve.
    const bool grouped = k.grouped_gemm();
    const double fraction = fused_attention ? gpu.attention_efficiency
                            : grouped       ? gpu.grouped_gemm_efficiency * eff->second.at(flops)
                                            : eff->second.at(flops);
    const double compute = flops / (peak->second * fraction);
    // A GEMM cannot finish before its operands have crossed HBM once (the roofline: Williams et
    // al., CACM 2009; NVIDIA Deep Learning Performance Guide, "Matrix Multiplication
    // Background": a GEMM whose FLOPs per byte are below the GPU's peak-to-bandwidth ratio is
    // memory-bound). Attention's batched products with head dimension 64-128 are: QKᵀ writes
    // and AV reads the s² scores for 2·d FLOPs per element.
    const double streaming =
        k.is_gemm ? static_cast<double>(k.bytes) /
                        (gpu.hbm_bandwidth * gpu.hbm_efficiency.at(static_cast<double>(k.bytes)))
                  : 0.0;
    t += std::max(compute, streaming);
  }
  return t + static_cast<double>(kernels.size()) * (gpu.kernel_launch + host_overhead);
}

double kernel_time(const models::LayerKernel& kernel, const hardware::GpuSpec& gpu,
                   const std::string& dtype, double host_overhead) {
  return kernel_time(models::KernelList{kernel}, gpu, dtype, host_overhead);
}

}  // namespace pipesim::cost
