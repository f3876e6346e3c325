// The kernel-name table: real kernel names of each kind, as Kineto writes them (DeepEP,
// DeepSeek's own build of it and of its grouped GEMMs in their published trace, NCCL, cuBLAS,
// FlashAttention 3, Transformer Engine, PyTorch), land in their kind.

#include "pipesim/calibrate/kernel_kind.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <set>
#include <string>
#include <string_view>

namespace pipesim::calibrate {
namespace {

struct Named {
  std::string_view name;
  KernelKind kind;
};

void expect_kinds(std::initializer_list<Named> cases) {
  for (const Named& c : cases) {
    EXPECT_EQ(kernel_kind_name(classify_kernel(c.name)), kernel_kind_name(c.kind)) << c.name;
  }
}

TEST(KernelKind, ExpertParallelCommunication) {
  expect_kinds({
      // DeepEP (deepseek-ai/DeepEP, csrc/kernels/internode.cu and intranode.cu).
      {"void deep_ep::internode::dispatch<true, 8, false, 8>(int4*, float*, long*, float*, "
       "deep_ep::internode::SourceMeta*, int4 const*, float const*, long const*, int, int)",
       KernelKind::dispatch},
      {"void deep_ep::internode::combine<__nv_bfloat16, 8, 2, 16, 24>(int4*, float*, bool "
       "const*, int4 const*, float const*, int4 const*, int, int)",
       KernelKind::combine},
      {"void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int, int const*, int*)",
       KernelKind::dispatch},
      {"void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(__nv_bfloat16*, float*)",
       KernelKind::combine},
      // DeepSeek's own build in their published trace (dpsk::ep).
      {"void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*, "
       "bool const*, int4 const*, float const*, int4 const*, int4 const*)",
       KernelKind::combine},
      {"void dpsk::ep::internode::dispatch<false, 8, false, 8>(int4*, float*, long*, float*, "
       "dpsk::ep::internode::SourceMeta*, int4 const*)",
       KernelKind::dispatch},
      {"void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, "
       "bool*, int, int, int, int)",
       KernelKind::dispatch},
      // Transformer Engine's MoE permutation (Megatron-Core's token dispatcher).
      {"moe_permute_row_map(int const*, int*, int, int, int)", KernelKind::dispatch},
      {"void moe_permute_kernel<__nv_bfloat16, float, true>(__nv_bfloat16 const*, "
       "__nv_bfloat16*, int const*, float const*, float*, int, int, int)",
       KernelKind::dispatch},
      {"void moe_unpermute_kernel<__nv_bfloat16, float, true>(__nv_bfloat16 const*, "
       "__nv_bfloat16*, int const*, float const*, int, int, int)",
       KernelKind::combine},
  });
}

TEST(KernelKind, NcclCollectives) {
  expect_kinds({
      {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
       KernelKind::collective},
      {"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
       KernelKind::collective},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", KernelKind::collective},
      {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
       KernelKind::collective},
      {"ncclKernel_SendRecv", KernelKind::collective},
  });
}

TEST(KernelKind, GemmsAndGroupedGemms) {
  expect_kinds({
      // DeepSeek's grouped GEMM library: the m-grouped kernel is grouped, the plain one dense.
      {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::"
       "GemmKernel>(dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel::Params)",
       KernelKind::grouped_gemm},
      {"dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel", KernelKind::grouped_gemm},
      {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>("
       "dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel::Params)",
       KernelKind::gemm},
      {"dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel", KernelKind::gemm},
      // CUTLASS's grouped GEMM.
      {"void cutlass::Kernel<cutlass::gemm::kernel::GemmGrouped<cutlass::gemm::threadblock::"
       "MmaMultistage<cutlass::gemm::GemmShape<128, 128, 32> > > >(Params)",
       KernelKind::grouped_gemm},
      // cuBLAS / cuBLASLt.
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
       "segment_k_off_kernel__5x_cublas",
       KernelKind::gemm},
      {"nvjet_tst_192x192_64x4_1x2_h_bz_coopA_NTN", KernelKind::gemm},
      {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn", KernelKind::gemm},
      {"void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, "
       "false>(cublasGemvParamsEx<int, float const*, float const*, float>, float, float)",
       KernelKind::gemm},
  });
}

TEST(KernelKind, FusedAttention) {
  expect_kinds({
      // FlashAttention 3 (hopper/), forward and backward with its helpers.
      {"void cutlass::device_kernel<flash::FlashAttnBwd<flash::CollectiveMainloopBwd<2, "
       "cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> > > > >(flash::FlashAttnBwd::Params)",
       KernelKind::attention},
      {"void cutlass::device_kernel<flash::FlashAttnBwdPreprocess<cute::tuple<cute::C<64>, "
       "cute::C<192> >, cutlass::bfloat16_t> >(Params)",
       KernelKind::attention},
      {"void flash::compute_attn_ws<Flash_fwd_kernel_traits<192, 128, 128, 12, 2, false, 1, "
       "cutlass::bfloat16_t, 128>, true, flash::SingleTileScheduler>(Params)",
       KernelKind::attention},
      // FlashAttention 2, PyTorch's memory-efficient kernel, cuDNN's fused attention.
      {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
       "cutlass::bfloat16_t> >(Flash_fwd_params)",
       KernelKind::attention},
      {"fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<"
       "cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
       KernelKind::attention},
      {"cudnn_generated_fort_native_sdpa_sm90_knob_7_64x128x128_4x1x1_kernel0_0",
       KernelKind::attention},
  });
}

TEST(KernelKind, NormsCastsElementwise) {
  expect_kinds({
      // Apex-style layer norm in DeepSeek's trace; PyTorch's; Transformer Engine's RMSNorm.
      {"void layer_norm::ln_fwd_kernel<layer_norm::Kernel_traits<__nv_bfloat16, __nv_bfloat16, "
       "__nv_bfloat16, __nv_bfloat16, float, unsigned int, 7168u, 1u, 1u, 16u, 4u> >("
       "layer_norm::FwdParams)",
       KernelKind::norm},
      {"void layer_norm::ln_bwd_finalize_kernel<layer_norm::Kernel_traits_finalize<512u, "
       "__nv_bfloat16, __nv_bfloat16, float, 32u> >(layer_norm::BwdParams)",
       KernelKind::norm},
      {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, "
       "float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, "
       "float*, float*, c10::BFloat16*)",
       KernelKind::norm},
      {"void transformer_engine::normalization::rmsnorm_fwd_tuned_kernel<transformer_engine::"
       "normalization::Kernel_traits<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, "
       "unsigned int, 4096u, 1u, 4u, 1u, 16u> >(transformer_engine::normalization::FwdParams)",
       KernelKind::norm},
      // Quantization for the FP8 GEMMs.
      {"void cuda::per_token_cast_to_fp8_with_channels<__nv_bfloat16, 128, false, 128, false>("
       "__nv_bfloat16 const*, int, unsigned char*, float*, int, int, int, int, bool, float, "
       "__nv_fp8_interpretation_t)",
       KernelKind::cast},
      {"void cuda::per_channel_cast_and_transpose<256, 128, false, false, false, false, "
       "false>(void const*, float const*, int const*, int const*, unsigned char*)",
       KernelKind::cast},
      {"void transformer_engine::detail::quantize_kernel<true, float, __nv_bfloat16>()",
       KernelKind::cast},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<"
       "c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<"
       "c10::BFloat16>, at::detail::Array<char*, 3>)",
       KernelKind::elementwise},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
       "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<"
       "char*, 1>)",
       KernelKind::elementwise},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::"
       "func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()("
       "at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> >(at::native::"
       "ReduceOp<float>)",
       KernelKind::elementwise},
      {"void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(at::cuda::detail::"
       "TensorInfo<float, unsigned int>, unsigned int, unsigned int, bool)",
       KernelKind::elementwise},
      {"rotary_kernel", KernelKind::elementwise},
      {"_copy_tensor_kernel", KernelKind::elementwise},
      {"void cuda::swiglu_backward<__nv_bfloat16>(void const*, void const*, void*, int, int)",
       KernelKind::elementwise},
  });
}

TEST(KernelKind, CopiesAndSetsAreToldByTheirCategory) {
  EXPECT_EQ(classify_kernel("Memcpy DtoD (Device -> Device)", "gpu_memcpy"), KernelKind::memcpy);
  EXPECT_EQ(classify_kernel("Memcpy HtoD (Pinned -> Device)", "gpu_memcpy"), KernelKind::memcpy);
  EXPECT_EQ(classify_kernel("Memset (Device)", "gpu_memset"), KernelKind::memset);
  // The category decides even for a name that would read as another kind.
  EXPECT_EQ(classify_kernel("ncclDevKernel_AllGather", "gpu_memcpy"), KernelKind::memcpy);
  EXPECT_EQ(classify_kernel("gemm", "gpu_memset"), KernelKind::memset);
  // Without the category, the name's start tells them.
  EXPECT_EQ(classify_kernel("Memcpy DtoH (Device -> Pageable)"), KernelKind::memcpy);
  EXPECT_EQ(classify_kernel("Memset (Device)"), KernelKind::memset);
  // A kernel that merely mentions a copy is elementwise, not a cudaMemcpy.
  EXPECT_EQ(classify_kernel("void at::native::direct_copy_kernel_cuda()"), KernelKind::elementwise);
}

TEST(KernelKind, UnknownNamesAreOther) {
  EXPECT_EQ(classify_kernel("cuda::aux_fi_impl(long const*, float*, int, int, int, int)"),
            KernelKind::other);
  EXPECT_EQ(classify_kernel("my_custom_kernel"), KernelKind::other);
  EXPECT_EQ(classify_kernel(""), KernelKind::other);
}

TEST(KernelKind, NamesAreCaseInsensitive) {
  EXPECT_EQ(classify_kernel("NCCLDEVKERNEL_ALLREDUCE_SUM_BF16_RING_LL"), KernelKind::collective);
  EXPECT_EQ(classify_kernel("Void Deep_EP::Internode::Combine<8>"), KernelKind::combine);
  EXPECT_EQ(classify_kernel("NVJET_TST_192X192_64X4_1X2_H_BZ_COOPA_NTN"), KernelKind::gemm);
  EXPECT_EQ(classify_kernel("M_Grouped_GEMM"), KernelKind::grouped_gemm);
  EXPECT_EQ(classify_kernel("RMSNorm_Forward"), KernelKind::norm);
  EXPECT_EQ(classify_kernel("FLASH_FWD_KERNEL"), KernelKind::attention);
  EXPECT_EQ(classify_kernel("MEMCPY DtoD"), KernelKind::memcpy);
}

TEST(KernelKind, EveryKindHasADistinctNameInEnumOrder) {
  const auto& kinds = all_kernel_kinds();
  ASSERT_EQ(kinds.size(), kNumKernelKinds);
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kinds[i]), i);
    const std::string_view name = kernel_kind_name(kinds[i]);
    EXPECT_FALSE(name.empty());
    names.insert(name);
  }
  EXPECT_EQ(names.size(), kNumKernelKinds);
  EXPECT_EQ(kernel_kind_name(KernelKind::grouped_gemm), "grouped_gemm");
  EXPECT_EQ(kernel_kind_name(KernelKind::other), "other");
}

TEST(KernelKind, CommunicationKinds) {
  std::set<KernelKind> communication;
  for (const KernelKind kind : all_kernel_kinds()) {
    if (is_communication(kind)) communication.insert(kind);
  }
  EXPECT_EQ(communication, (std::set<KernelKind>{KernelKind::collective, KernelKind::dispatch,
                                                 KernelKind::combine}));
}

}  // namespace
}  // namespace pipesim::calibrate
