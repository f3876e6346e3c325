#pragma once
// A hardware profile (docs/architecture.md §8): one GPU type, its node and network, as YAML
// schema_version 1 — the contract with calibrate/ (hardware/README.md documents every field).

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pipesim::hardware {

//! A fraction-of-peak curve: piecewise linear in log10(size), clamped at both ends.
struct EfficiencyCurve {
  std::vector<std::pair<double, double>> points;  //!< (size, fraction), sizes increasing

  //! The fraction at `size` (> 0).
  double at(double size) const;
};

//! Hockney's model of one link tier: t(n) = alpha + n / beta (Hockney, Parallel Computing 20,
//! 1994).
struct Hockney {
  double alpha = 0.0;  //!< seconds
  double beta = 0.0;   //!< bytes per second (the link)
  //! Fraction of beta the communication library reaches on this tier, (0, 1] (optional,
  //! default 1): NCCL over NVLink/InfiniBand ≈ 1 of the bus bandwidth; GLOO over TCP much
  //! less. Every formula uses beta · efficiency.
  double efficiency = 1.0;
  double effective_beta() const { return beta * efficiency; }
};

struct Provenance {
  std::string source;  //!< datasheet | calibration
  std::vector<std::string> references;
  std::string gpu, driver, cuda, date, tool_version;
  //! Where each efficiency curve comes from: its key (gemm_efficiency.<dtype>, hbm_efficiency,
  //! attention_efficiency, grouped_gemm_efficiency) → "<kind>: <source>", kind one of
  //! kCurveProvenanceKinds. A curve left out is unstated.
  std::map<std::string, std::string> curves;
};

//! measured: published or own kernel measurements fitted by calibrate; derived: computed from
//! another profile's curve or a published figure by a stated rule; fitted: scaled to end-to-end
//! runs of the validation suite (named); assumed: a judgement, no data.
inline constexpr const char* kCurveProvenanceKinds[] = {"measured", "derived", "fitted", "assumed"};

struct HardwareProfile;
//! The curve keys `p` has (gemm_efficiency.<dtype> for each of its dtypes, hbm_efficiency,
//! attention_efficiency, grouped_gemm_efficiency), in that order.
std::vector<std::string> curve_keys(const HardwareProfile& p);
//! The kind of a stated provenance ("measured" of "measured: DeepGEMM ..."), "unstated" if none.
std::string curve_provenance_kind(const HardwareProfile& p, const std::string& key);

struct GpuSpec {
  double memory_bytes = 0.0;
  //! dtype → dense FLOP/s; dtypes fp32, tf32, bf16, fp16, fp8 and Blackwell's block-scaled
  //! mxfp8 (OCP MX, one E8M0 scale per 32) and nvfp4 (E2M1, one E4M3 scale per 16).
  std::map<std::string, double> peak_flops;
  std::map<std::string, EfficiencyCurve> gemm_efficiency;  //!< dtype → fraction vs GEMM FLOPs
  double hbm_bandwidth = 0.0;                              //!< bytes/s
  EfficiencyCurve hbm_efficiency;                          //!< fraction vs bytes moved
  double kernel_launch = 0.0;                              //!< seconds per launch
  //! The fraction of the peak a fused attention kernel (FlashAttention) reaches, forward and
  //! backward together; 0 = priced on the GEMM curve. Fused attention runs below cuBLAS GEMMs
  //! (online softmax, causal masking, the backward's recomputation and atomics).
  double attention_efficiency = 0.0;
  //! A grouped GEMM's (the experts of a mixture-of-experts layer, one launch) fraction of the
  //! dense GEMM curve at its total FLOPs, (0, 1]. Default 1: the assumption that one launch
  //! filling the GPU with every local expert's tiles runs as a dense GEMM of that size does
  //! (hardware/README.md, "Grouped GEMMs"); a calibration that times grouped GEMMs replaces it.
  double grouped_gemm_efficiency = 1.0;
};

//! What the training framework pays per operation on the host (optional; default 0).
struct FrameworkOverhead {
  //! Seconds of host-side dispatch per kernel launch beyond the GPU's kernel_launch (PyTorch
  //! eager mode: operator dispatch, autograd bookkeeping), exposed when the GPU waits for it.
  double op_overhead = 0.0;
  //! Kernels the framework launches per kernel of pipesim's layer list (models/layer_kernels.hpp),
  //! in the attention part and in the MLP (router, experts, shared experts) part: each listed
  //! kernel costs this many dispatches of op_overhead (a real framework launches casts, copies,
  //! reshapes and bookkeeping kernels the list folds into its larger ones), >= 1.
  double attention_launches = 1.0;
  double mlp_launches = 1.0;
  //! The framework issues a grouped GEMM (the local experts' linear layer) as one GEMM per
  //! expert, each with its own dispatch (Transformer Engine's GroupedLinear: a cuBLAS call and
  //! its operands' quantization per expert): the listed grouped kernel costs its dispatches
  //! once per local expert. Off: one launch for all experts (DeepGEMM's grouped kernels).
  bool grouped_gemm_per_expert = false;
  //! Fraction of the GPU's SMs the tensor-parallel overlap kernels hold while a linear layer's
  //! GEMM runs beside its all-gather or reduce-scatter (Transformer Engine userbuffers: the
  //! GEMM is launched on the SMs left, so it runs at 1 − this of its speed), [0, 1).
  double tp_overlap_sm_fraction = 0.0;
};

//! Memory a GPU loses besides the model's tensors (optional; default 0).
struct MemoryOverhead {
  double reserved_bytes = 0.0;  //!< CUDA context, library workspaces, communicator buffers
  double fragmentation = 0.0;   //!< caching-allocator overhead as a fraction of the peak, [0, 1)
};

//! collectives.all_reduce.algorithm: the algorithm of every collective the profile prices
//! (hardware/collectives.hpp); `Tree` is NCCL's double binary tree.
enum class AllReduceAlgorithm { Ring, Rabenseifner, Hierarchical, Tree };
const char* algorithm_name(AllReduceAlgorithm a);

struct HardwareProfile {
  int schema_version = 1;
  std::string name;  //!< [a-z0-9-]+
  std::string description;
  Provenance provenance;
  GpuSpec gpu;
  //! GPUs sharing the intra-node link tier: the NVLink domain (8 on a DGX, 72 on an NVL72 rack).
  int gpus_per_node = 1;
  //! Extension of schema 1 (optional, default 1): inter-node NICs per node, each serving
  //! gpus_per_node / nics_per_node GPUs (DGX A100/H100, NVL72: one per GPU; Piz Daint: one).
  int nics_per_node = 1;
  //! Optional (default gpus_per_node): the GPUs of one host, what a scheduler allocates as a
  //! node (a DGX; one 4-GPU compute tray of an NVL72 rack). A job takes whole hosts, so the GPUs
  //! it uses in one NVLink domain are a multiple of this (cost/domain_slice.hpp).
  int gpus_per_host = 0;
  //! Optional (default true): the inter-node NICs do RDMA (InfiniBand, RoCE), which DeepEP's and
  //! HybridEP's internode kernels need (NVSHMEM over GPUDirect RDMA).
  bool rdma_nics = true;
  int host_gpus() const { return gpus_per_host > 0 ? gpus_per_host : gpus_per_node; }
  Hockney intra_node, inter_node;
  //! Optional `links.host_link`: one GPU's link to host memory, per direction (the two
  //! directions are independent; PCIe or NVLink-C2C). What activation offload copies over;
  //! unset, offload is refused.
  std::optional<Hockney> host_link;
  AllReduceAlgorithm all_reduce = AllReduceAlgorithm::Ring;
  //! Measured Hockney fits that override the link-based formula: collective → tier → fit
  //! (collectives: all_reduce, all_gather, reduce_scatter; tiers: intra_node, inter_node).
  std::map<std::string, std::map<std::string, Hockney>> fitted;
  double interference = 0.0;    //!< fraction compute slows during a gradient all-reduce, [0, 1)
  FrameworkOverhead framework;  //!< optional `framework:` section
  MemoryOverhead memory;        //!< optional `memory:` section
  std::string samples;          //!< optional calibration samples file, relative to the YAML
  std::string source;           //!< the file it was read from (not written back)
};

//! Physical bounds every profile value is checked against (well above the fastest shipped
//! hardware): a value outside them is a unit slip (GB for B, TFLOP/s for FLOP/s).
namespace bounds {
inline constexpr double kMaxFlops = 1e17;      //!< FLOP/s per GPU per dtype (GB300 nvfp4: 1.5e16)
inline constexpr double kMaxBandwidth = 1e14;  //!< B/s, HBM and links (H200 HBM: 4.8e12)
inline constexpr double kMinBandwidth = 1e3;   //!< B/s: below this nothing would ever finish
inline constexpr double kMinMemory = 1 << 20;  //!< bytes per GPU
inline constexpr double kMaxMemory = 1e15;     //!< bytes per GPU
inline constexpr double kMaxLatency = 1.0;     //!< seconds, link alpha
inline constexpr double kMaxLaunch = 1e-3;     //!< seconds per kernel launch (real: 2e-6..2e-5)
}  // namespace bounds

//! The one rule for profile names (the `name` field, and what calibration may write): 1 to 64
//! characters of [a-z0-9-]. "" when `name` follows it, else the problem, for a ConfigError.
std::string check_profile_name(const std::string& name);

//! Values inside the bounds but outside what real GPUs of the last decade have (memory < 1 GiB,
//! peak < 1 TFLOP/s, HBM < 1e11 B/s, a link below 1e8 B/s or above 1 ms latency, launch above
//! 100 µs): one line each, "field: value is ...", for the caller to print as warnings. The
//! profile is still valid (a user may model a hypothetical machine on purpose).
std::vector<std::string> plausibility_warnings(const HardwareProfile& p);

//! Parses a profile document; strict (plus physical bounds: peak FLOP/s in (0, 1e17], HBM and
//! link bandwidths in [1e3, 1e14] B/s, memory in [1 MiB, 1e15] B and whole, link latency in
//! [0, 1] s, kernel launch in [0, 1e-3] s, efficiencies in (0, 1]); also strict (unknown keys,
//! missing fields, wrong types, sizes ≤ 0 → core::ConfigError(source, field, problem)).
HardwareProfile parse_profile(const std::string& yaml_text, const std::string& source);
//! A shipped profile name (hardware/<name>.yaml) or a path.
HardwareProfile load_profile(const std::string& name_or_path);
//! The YAML document (schema_version 1); parse_profile(to_yaml(p)) == p.
std::string to_yaml(const HardwareProfile& p);
//! Writes to_yaml(p) atomically.
void save_profile(const HardwareProfile& p, const std::string& path);

std::vector<std::string> shipped_profiles();

}  // namespace pipesim::hardware
