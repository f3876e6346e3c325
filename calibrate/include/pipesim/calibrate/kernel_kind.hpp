#pragma once
// What a GPU kernel of a profiler trace computes, read from its name: the one table of name
// patterns (kernel_kind.cpp) that the trace reader, the report and the samples share. Patterns
// are lower-case substrings tried in table order, the first match deciding, so a specific
// pattern ("m_grouped") stands above a general one ("gemm"). A name no pattern matches is
// `other`, and the report lists it by name.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace pipesim::calibrate {

enum class KernelKind : std::uint8_t {
  gemm,          //!< cuBLAS / cuBLASLt / CUTLASS / nvjet / DeepGEMM dense GEMMs
  grouped_gemm,  //!< one launch over many experts' GEMMs (DeepGEMM m_grouped, CUTLASS grouped)
  attention,     //!< FlashAttention, cuDNN fused attention, their backward helpers
  collective,    //!< NCCL all-reduce, all-gather, reduce-scatter, send/recv, all-to-all
  dispatch,      //!< MoE token dispatch: DeepEP, HybridEP, Megatron's permute
  combine,       //!< MoE token combine: DeepEP, HybridEP, Megatron's unpermute
  norm,          //!< LayerNorm, RMSNorm and their backward
  elementwise,   //!< activations, rotary, top-k, reductions, copies, fills
  cast,          //!< quantization and transposes for low-precision GEMMs
  memcpy,        //!< copies issued by cudaMemcpy*
  memset,        //!< cudaMemset*
  other,         //!< not recognised: listed by name
};

inline constexpr std::size_t kNumKernelKinds = 12;

//! "grouped_gemm", "dispatch", ...: the names the reports and samples use.
std::string_view kernel_kind_name(KernelKind kind);
//! Every kind in enum order.
const std::array<KernelKind, kNumKernelKinds>& all_kernel_kinds();

//! Whether the kind computes (its time is the compute stream's) or communicates.
bool is_communication(KernelKind kind);

//! The kind of a kernel called `name`. `category` is the trace event's `cat` ("kernel",
//! "gpu_memcpy", "gpu_memset"): copies and sets are told by it first.
KernelKind classify_kernel(std::string_view name, std::string_view category = "kernel");

}  // namespace pipesim::calibrate
