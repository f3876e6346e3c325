#include "pipesim/calibrate/kernel_kind.hpp"

#include <string>

#include "lower_case.hpp"

namespace pipesim::calibrate {
namespace {

// A rule matches when the lower-cased kernel name contains both of its substrings.
struct Rule {
  std::string_view first, second;  // second: "" when one substring decides
  KernelKind kind;
};

// The name table, first match wins. Sources of the names: DeepEP (deep_ep::intranode/internode,
// in DeepSeek's own build dpsk::ep::), NVIDIA's HybridEP, Transformer Engine's MoE permutation
// (moe_permute / moe_unpermute), NCCL (ncclDevKernel_*, ncclKernel_*), DeepGEMM and DeepSeek's
// grouped GEMMs (m_grouped_*, GemmType::Grouped*), CUTLASS grouped GEMM (GemmGrouped),
// FlashAttention 2/3 (flash::), cuDNN fused attention (fmha, sdpa), cuBLAS/cuBLASLt (gemm,
// xmma, nvjet), Apex/TE norms, PyTorch's elementwise and reduction kernels.
constexpr Rule kRules[] = {
    {"deep_ep", "combine", KernelKind::combine},
    {"dpsk::ep", "combine", KernelKind::combine},
    {"hybrid_ep", "combine", KernelKind::combine},
    {"deep_ep", "", KernelKind::dispatch},
    {"dpsk::ep", "", KernelKind::dispatch},
    {"hybrid_ep", "", KernelKind::dispatch},
    {"unpermute", "", KernelKind::combine},
    {"moe_permute", "", KernelKind::dispatch},
    {"permute_row", "", KernelKind::dispatch},
    {"nccl", "", KernelKind::collective},
    {"utils::transpose", "", KernelKind::cast},
    {"m_grouped", "", KernelKind::grouped_gemm},
    {"gemmgrouped", "", KernelKind::grouped_gemm},
    {"groupedgemm", "", KernelKind::grouped_gemm},
    {"groupedcontiguous", "", KernelKind::grouped_gemm},
    {"groupedmasked", "", KernelKind::grouped_gemm},
    {"flash", "", KernelKind::attention},
    {"fmha", "", KernelKind::attention},
    {"sdpa", "", KernelKind::attention},
    {"attn", "", KernelKind::attention},
    {"attention", "", KernelKind::attention},
    {"gemm", "", KernelKind::gemm},
    {"gemv", "", KernelKind::gemm},
    {"nvjet", "", KernelKind::gemm},
    {"xmma", "", KernelKind::gemm},
    {"matmul", "", KernelKind::gemm},
    {"cutlass", "", KernelKind::gemm},
    {"cast", "", KernelKind::cast},
    {"quantize", "", KernelKind::cast},
    {"transpose", "", KernelKind::cast},
    {"amax", "", KernelKind::cast},
    {"fp8", "", KernelKind::cast},
    {"distributionnormal", "", KernelKind::elementwise},
    {"norm", "", KernelKind::norm},
    {"elementwise", "", KernelKind::elementwise},
    {"vectorized", "", KernelKind::elementwise},
    {"reduce", "", KernelKind::elementwise},
    {"swiglu", "", KernelKind::elementwise},
    {"silu", "", KernelKind::elementwise},
    {"gelu", "", KernelKind::elementwise},
    {"rotary", "", KernelKind::elementwise},
    {"rope", "", KernelKind::elementwise},
    {"topk", "", KernelKind::elementwise},
    {"softmax", "", KernelKind::elementwise},
    {"dropout", "", KernelKind::elementwise},
    {"fill", "", KernelKind::elementwise},
    {"copy", "", KernelKind::elementwise},
    {"scatter", "", KernelKind::elementwise},
    {"gather", "", KernelKind::elementwise},
    {"index", "", KernelKind::elementwise},
    {"expand", "", KernelKind::elementwise},
    {"mapping", "", KernelKind::elementwise},
    {"count", "", KernelKind::elementwise},
};

constexpr std::array<std::string_view, kNumKernelKinds> kNames = {
    "gemm", "grouped_gemm", "attention", "collective", "dispatch", "combine",
    "norm", "elementwise",  "cast",      "memcpy",     "memset",   "other"};

constexpr std::array<KernelKind, kNumKernelKinds> kAll = {
    KernelKind::gemm,     KernelKind::grouped_gemm, KernelKind::attention, KernelKind::collective,
    KernelKind::dispatch, KernelKind::combine,      KernelKind::norm,      KernelKind::elementwise,
    KernelKind::cast,     KernelKind::memcpy,       KernelKind::memset,    KernelKind::other};

}  // namespace

std::string_view kernel_kind_name(KernelKind kind) {
  return kNames[static_cast<std::size_t>(kind)];
}

const std::array<KernelKind, kNumKernelKinds>& all_kernel_kinds() {
  return kAll;
}

bool is_communication(KernelKind kind) {
  return kind == KernelKind::collective || kind == KernelKind::dispatch ||
         kind == KernelKind::combine;
}

KernelKind classify_kernel(std::string_view name, std::string_view category) {
  // The kernel itself, template arguments included, without its parameter list: the types of
  // its parameters (an fp8 pointer of a reduction) say nothing of what it computes.
  // "(anonymous namespace)" is part of the name, not a parameter list.
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  int depth = 0;
  std::size_t end = name.size();
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name.substr(i, kAnonymous.size()) == kAnonymous) {
      i += kAnonymous.size() - 1;
      continue;
    }
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == '(' && depth == 0) {
      end = i;
      break;
    }
  }
  const std::string lower = lower_case(name.substr(0, end));
  if (category == "gpu_memcpy" || lower.starts_with("memcpy")) return KernelKind::memcpy;
  if (category == "gpu_memset" || lower.starts_with("memset")) return KernelKind::memset;
  for (const Rule& rule : kRules) {
    if (lower.find(rule.first) != std::string::npos &&
        (rule.second.empty() || lower.find(rule.second) != std::string::npos)) {
      return rule.kind;
    }
  }
  return KernelKind::other;
}

}  // namespace pipesim::calibrate
