// The shipped profiles against what can be checked without a GPU: the datasheets' structure
// (each halving of the precision doubles the tensor-core rate), the memory the GPUs report, the
// NVLink domain of the NVL72 racks as the engine sees it, the rule the Blackwell efficiency curves
// are derived by, errors in the block-scaled dtypes, and the fuzz seeds.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "pipesim/core/config_error.hpp"
#include "pipesim/hardware/collectives.hpp"
#include "pipesim/hardware/placement.hpp"
#include "pipesim/hardware/profile.hpp"
#include "profile_text.hpp"

namespace pipesim::hardware {
namespace {

const std::vector<std::string> kBlackwell{"b200-dgx", "b300-dgx", "gb200-nvl72", "gb300-nvl72"};
const std::vector<std::string> kNvl72{"gb200-nvl72", "gb300-nvl72"};
using core::Bytes;

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kMiB = 1024.0 * 1024;

TEST(ShippedProfiles, BlackwellPeaksFollowTheDatasheetsPrecisionLadder) {
  for (const std::string& name : kBlackwell) {
    const auto& peak = load_profile(name).gpu.peak_flops;
    // Block-scaled fp8 runs at the fp8 rate; fp4 at least doubles it (B300/GB300 more).
    EXPECT_EQ(peak.at("mxfp8"), peak.at("fp8")) << name;
    EXPECT_GE(peak.at("nvfp4"), 2 * peak.at("fp8")) << name;
    EXPECT_GT(peak.at("nvfp4"), peak.at("mxfp8")) << name;
    EXPECT_DOUBLE_EQ(peak.at("fp8"), 2 * peak.at("bf16")) << name;
    EXPECT_EQ(peak.at("fp16"), peak.at("bf16")) << name;
    EXPECT_DOUBLE_EQ(peak.at("bf16"), 2 * peak.at("tf32")) << name;
    EXPECT_GT(peak.at("tf32"), peak.at("fp32")) << name;
  }
  // Blackwell Ultra adds fp4 throughput only; the rack parts run 1200 W against 1000 W.
  const auto b200 = load_profile("b200-dgx").gpu.peak_flops;
  const auto b300 = load_profile("b300-dgx").gpu.peak_flops;
  const auto gb200 = load_profile("gb200-nvl72").gpu.peak_flops;
  const auto gb300 = load_profile("gb300-nvl72").gpu.peak_flops;
  EXPECT_EQ(b300.at("bf16"), b200.at("bf16"));
  EXPECT_GT(b300.at("nvfp4"), b200.at("nvfp4"));
  EXPECT_EQ(gb300.at("bf16"), gb200.at("bf16"));
  EXPECT_DOUBLE_EQ(gb300.at("nvfp4"), 1.5 * gb200.at("nvfp4"));
  EXPECT_GT(gb200.at("bf16"), b200.at("bf16"));
}

TEST(ShippedProfiles, OnlyBlackwellListsTheBlockScaledDtypes) {
  for (const std::string& name : shipped_profiles()) {
    const GpuSpec gpu = load_profile(name).gpu;
    const bool blackwell =
        std::find(kBlackwell.begin(), kBlackwell.end(), name) != kBlackwell.end();
    for (const char* dtype : {"mxfp8", "nvfp4"}) {
      EXPECT_EQ(gpu.peak_flops.contains(dtype), blackwell) << name << " " << dtype;
      EXPECT_EQ(gpu.gemm_efficiency.contains(dtype), blackwell) << name << " " << dtype;
    }
  }
}

TEST(ShippedProfiles, MemoryIsWithinOnePercentOfWhatTheGpuReports) {
  // Totals the driver reports (nvidia-smi memory.total, cudaDeviceProp::totalGlobalMem), as
  // published with the sources the profiles cite; a datasheet "GB" read in the wrong unit is
  // off by 7%.
  const std::vector<std::pair<std::string, double>> reported{
      {"h100-dgx", 81559 * kMiB},    // H100 80GB HBM3
      {"h200-sxm", 143771 * kMiB},   // H200
      {"b200-dgx", 178.35 * kGiB},   // B200
      {"b300-dgx", 275040 * kMiB},   // B300 SXM6 AC
      {"p100-daint", 17071734784}};  // P100-PCIE-16GB (deviceQuery, NVML)
  for (const auto& [name, bytes] : reported) {
    EXPECT_NEAR(load_profile(name).gpu.memory_bytes / bytes, 1.0, 0.01) << name;
  }
}

TEST(ShippedProfiles, H200IsTheH100NodeWithMoreAndFasterMemory) {
  const HardwareProfile h100 = load_profile("h100-dgx"), h200 = load_profile("h200-sxm");
  EXPECT_EQ(h200.gpu.peak_flops, h100.gpu.peak_flops);  // "same compute as H100 SXM"
  EXPECT_EQ(h200.gpu.memory_bytes, 141 * kGiB);
  EXPECT_EQ(h200.gpu.hbm_bandwidth, 4.8e12);
  EXPECT_EQ(h200.gpus_per_node, h100.gpus_per_node);
  EXPECT_EQ(h200.nics_per_node, h100.nics_per_node);
  EXPECT_EQ(h200.all_reduce, h100.all_reduce);
  EXPECT_EQ(h200.intra_node.beta, h100.intra_node.beta);
  EXPECT_EQ(h200.inter_node.beta, h100.inter_node.beta);
}

TEST(ShippedProfiles, H800IsTheH100WithTheNarrowerNvlink) {
  const HardwareProfile h100 = load_profile("h100-dgx"), h800 = load_profile("h800-dgx");
  EXPECT_EQ(h800.gpu.peak_flops, h100.gpu.peak_flops);  // H800 datasheet: the H100 SXM's
  EXPECT_EQ(h800.gpu.memory_bytes, h100.gpu.memory_bytes);
  EXPECT_EQ(h800.gpu.hbm_bandwidth, h100.gpu.hbm_bandwidth);
  EXPECT_EQ(h800.gpus_per_node, 8);
  EXPECT_EQ(h800.nics_per_node, 8);
  // NVLink 400 GB/s in all, 200 per direction; the DeepSeek-V3 report's 160 GB/s achieved.
  EXPECT_EQ(h800.intra_node.beta, 160e9);
  EXPECT_LT(h800.intra_node.beta, 200e9);
  EXPECT_EQ(h800.inter_node.beta, h100.inter_node.beta);  // one 400 Gb/s NIC per GPU
}

TEST(ShippedProfiles, Nvl72RacksAreOneNodeOfSeventyTwoGpusWithANicEach) {
  for (const std::string& name : kNvl72) {
    const HardwareProfile p = load_profile(name);
    ASSERT_EQ(p.gpus_per_node, 72) << name;
    ASSERT_EQ(p.nics_per_node, 72) << name;
    // Two racks' worth of workers (D = 72, W = 2): replica 0 fills rack 0, each GPU on its own
    // NIC; replica 1 is rack 1.
    const Placement place{72, 2, p.gpus_per_node, p.nics_per_node, PlacementMode::PipelineMajor, 1};
    for (int w = 0; w < 72; ++w) {
      EXPECT_EQ(place.node(0, w), 0) << name << " worker " << w;
      EXPECT_EQ(place.node(1, w), 1) << name << " worker " << w;
      EXPECT_EQ(place.nic(0, w), w) << name << " worker " << w;
      EXPECT_EQ(place.replicas_on_nic(w), 1) << name << " worker " << w;
    }
    // An all-reduce over the rack is a ring on NVLink; over two racks, hierarchical: 72-way
    // reduce-scatter and all-gather on NVLink around a 2-rack ring of 1/72 of the buffer.
    const double n = 1e9, g = 72;
    const CommTime rack = all_reduce_time(p, 72, 1, Bytes(n));
    EXPECT_DOUBLE_EQ(rack.latency.value, 2 * (g - 1) * p.intra_node.alpha) << name;
    EXPECT_DOUBLE_EQ(rack.intra.value, 2 * (g - 1) / g * n / p.intra_node.beta) << name;
    EXPECT_EQ(rack.inter.value, 0.0) << name;
    const CommTime two = all_reduce_time(p, 144, 2, Bytes(n));
    EXPECT_DOUBLE_EQ(two.intra.value, rack.intra.value) << name;
    EXPECT_DOUBLE_EQ(two.inter.value, 2 * (2 - 1) / 2.0 * (n / g) / p.inter_node.beta) << name;
  }
  // The same 72 GPUs as DGX B200 nodes span 9 nodes, and their all-reduce leaves NVLink.
  const HardwareProfile dgx = load_profile("b200-dgx");
  EXPECT_GT(all_reduce_time(dgx, 72, 9, Bytes(1e9)).inter.value, 0.0);
}

// The Blackwell curves are the H100's at the same ideal duration: a GEMM (or copy) of size s on a
// GPU r times faster than the H100 runs as long at peak as s / r does on the H100, and reaches
// the same fraction (launch, prologue and tail overheads are times, not FLOPs).
// A fitted curve is the assumed one times its profile's scale k (validation/README.md).
void expect_scaled(const EfficiencyCurve& curve, const EfficiencyCurve& h100, double r,
                   const std::string& what, double k = 1.0) {
  for (double s = 1e5; s <= 1e15; s *= std::sqrt(10.0)) {
    EXPECT_NEAR(curve.at(s * r), k * h100.at(s), 2e-3) << what << " at " << s;
  }
}

TEST(ShippedProfiles, BlackwellCurvesAreTheH100CurvesAtTheSameIdealDuration) {
  GpuSpec h100 = load_profile("h100-dgx").gpu;
  // The assumed H100 bf16 and fp8 curves, before h100-dgx's fit (its references): the
  // Blackwell profiles start from these.
  h100.gemm_efficiency.at("bf16") = EfficiencyCurve{{{1e9, 0.25}, {1e11, 0.65}, {1e13, 0.80}}};
  h100.gemm_efficiency.at("fp8") = EfficiencyCurve{{{1e9, 0.20}, {1e11, 0.55}, {1e13, 0.70}}};
  // gb200-nvl72's bf16 and fp8 curves are scaled by the k its references give.
  const std::map<std::string, double> gb200_fit{{"bf16", 0.709}, {"fp8", 0.682}};
  for (const std::string& name : kBlackwell) {
    const GpuSpec gpu = load_profile(name).gpu;
    ASSERT_EQ(gpu.gemm_efficiency.size(), gpu.peak_flops.size()) << name;
    for (const auto& [dtype, curve] : gpu.gemm_efficiency) {
      const std::string base = dtype == "mxfp8" || dtype == "nvfp4" ? "fp8" : dtype;
      const auto fit = gb200_fit.find(dtype);
      const double k = name == "gb200-nvl72" && fit != gb200_fit.end() ? fit->second : 1.0;
      expect_scaled(curve, h100.gemm_efficiency.at(base),
                    gpu.peak_flops.at(dtype) / h100.peak_flops.at(base), name + " " + dtype, k);
    }
    expect_scaled(gpu.hbm_efficiency, h100.hbm_efficiency, gpu.hbm_bandwidth / h100.hbm_bandwidth,
                  name + " hbm");
  }
}

// The message for gb200-nvl72.yaml with `from` replaced by `to` ("accepted" when it loads).
std::string error_after(const std::string& from, const std::string& to) {
  return test_support::error_after_edit(test_support::shipped_text("gb200-nvl72"), from, to,
                                        "g.yaml");
}

TEST(ShippedProfiles, BadBlockScaledAndDomainValuesNameFileAndField) {
  EXPECT_EQ(error_after("nvfp4: 10.0e15}", "nvfp4: 0}"),
            "g.yaml: gpu.peak_flops.nvfp4: must be in (0, 1e+17], got 0");
  EXPECT_EQ(error_after("mxfp8: 5.0e15,", "mxfp8: 5.0e18,"),
            "g.yaml: gpu.peak_flops.mxfp8: must be in (0, 1e+17], got 5e+18");
  EXPECT_EQ(error_after("mxfp8: 5.0e15,", "mxfp4: 5.0e15,"),
            "g.yaml: gpu.peak_flops.mxfp4: unknown dtype (allowed: fp32, tf32, bf16, fp16, fp8, "
            "mxfp8, nvfp4)");
  EXPECT_EQ(error_after(", nvfp4: 10.0e15}", "}"),
            "g.yaml: gpu.gemm_efficiency.nvfp4: has no gpu.peak_flops entry (efficiency is a "
            "fraction of that peak)");
  const std::string curve = error_after("[5.053e13, 0.70]", "[5.053e13, 1.5]");
  EXPECT_EQ(curve.rfind("g.yaml: gpu.gemm_efficiency.nvfp4[2]: ", 0), 0u) << curve;
  EXPECT_EQ(error_after("nics_per_node: 72", "nics_per_node: 71"),
            "g.yaml: node.nics_per_node: must divide gpus_per_node = 72, got 71");
  const std::string domain = error_after("gpus_per_node: 72", "gpus_per_node: 1025");
  EXPECT_EQ(domain.rfind("g.yaml: node.gpus_per_node: ", 0), 0u) << domain;
  EXPECT_NE(domain.find("1024"), std::string::npos) << domain;
  for (const std::string& message : {curve, domain})
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(ShippedProfiles, FuzzSeedsLoadAndRoundTripOrFailWithAConfigError) {
  const std::filesystem::path seeds =
      test_support::source_dir() + "/tests/fuzz/corpus/hardware_yaml";
  int accepted = 0;
  for (const auto& entry : std::filesystem::directory_iterator(seeds)) {
    const std::string name = entry.path().filename().string();
    try {
      const HardwareProfile p = parse_profile(test_support::read_text(entry.path().string()), name);
      EXPECT_EQ(to_yaml(parse_profile(to_yaml(p), "again.yaml")), to_yaml(p)) << name;
      ++accepted;
    } catch (const core::ConfigError&) {
      EXPECT_NE(name, "b200-dgx.yaml");  // the seeds of the shipped profiles load
      EXPECT_NE(name, "gb200-nvl72.yaml");
    }
  }
  EXPECT_GE(accepted, 2);
}

}  // namespace
}  // namespace pipesim::hardware
