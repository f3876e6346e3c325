#pragma once
// Bytes per parameter a GPU keeps for the whole run: weights, gradients, optimizer state, by
// training precision (Adam; docs/architecture.md §5).
//
//   fp32       4 weights + 4 gradients + 8 Adam m, v                     = 16 (no master copy)
//   fp16       2 weights + 2 gradients + 12 (fp32 master, m, v)          = 16 [R20 §3.1]
//   bf16       2 weights + 4 fp32 gradients + 12 (fp32 master, m, v)     = 18 [M-DO]
//   fp8        bf16's 18 + 2q cached low-precision weight copies           = 18 + 2q [TE]
//   mxfp8, nvfp4  the same, q = the format's bytes per element with its block scales
// The low-precision recipes keep a row-wise and a column-wise (transposed) quantized copy of
// each weight between micro-batches (the forward and the data-gradient GEMM read different
// layouts), q bytes per element each: fp8 1 (one fp32 scale per tensor, negligible), mxfp8
// 1 + 1/32 (one E8M0 scale per 32 elements), nvfp4 1/2 + 1/16 (one E4M3 scale per 16).
// With the distributed optimizer (ZeRO-1; Megatron's --use-distributed-optimizer [M-DO]) the
// optimizer part (master weights and Adam state) is sharded over the W data-parallel ranks;
// the gradient all-reduce becomes a reduce-scatter of the gradients plus an all-gather of the
// updated parameters (in the 16-bit parameter dtype; fp32 for fp32 training).
//
//  [R20]  Rajbhandari et al., "ZeRO", SC'20, §3.1 (mixed-precision Adam, 2 + 2 + 12).
//  [M-DO] NVIDIA Megatron-LM, docs/source/api-guide/dist_optimizer.md: bf16 params with fp32
//         main grads 6 + 12/d bytes per parameter with the distributed optimizer, 18 without.
//  [TE]   NVIDIA Transformer Engine, fp8 primer: bf16/fp32 master state as mixed precision,
//         fp8 casts of the weights kept between micro-batches (is_first_microbatch); its
//         recipes (DelayedScaling/Float8CurrentScaling, MXFP8BlockScaling, NVFP4BlockScaling)
//         and the OCP Microscaling Formats (MX) v1.0 spec for the block sizes and scale types.
// An explicit bytes-per-parameter B overrides the table: weights and gradients e bytes each
// (e = the precision's element size) and B − 2e of optimizer state (the shardable part).

#include "pipesim/models/model_spec.hpp"

namespace pipesim::cost {

struct ParamBytes {
  double weights = 0.0;    //!< per parameter, held by every rank
  double gradients = 0.0;  //!< per parameter, held by every rank; the all-reduce's element
  double optimizer = 0.0;  //!< per parameter, sharded over W with the distributed optimizer
  double gathered = 0.0;   //!< element bytes of the parameters all-gathered after a sharded step
  double total() const { return weights + gradients + optimizer; }
};

//! Bytes per element of one quantized copy of a low-precision recipe's GEMM operand, its block
//! scales included (q above); 0 for a 16/32-bit precision.
double quantized_bytes(models::Precision p);

//! How Megatron-Core holds them beyond the precision's table (arguments.py):
struct ParamStorage {
  //! fp8-param-gather: a low-precision recipe's parameters are the quantized tensors
  //! themselves (Transformer Engine's Float8Tensor / MXFP8Tensor, their row- and column-wise
  //! copies, 2q), no 16-bit copy; the distributed optimizer all-gathers them in q bytes.
  bool quantized_params = false;
  //! grad-reduce-in-bf16: the gradient buffer, and so its reduce, in bf16 (2 bytes) instead
  //! of fp32 main gradients.
  bool bf16_gradients = false;
};

//! The table above; `bytes_per_param` > 0 overrides it (must be ≥ 2e; checked by the caller),
//! `storage` then changes nothing.
ParamBytes param_bytes(models::Precision p, double bytes_per_param = 0.0,
                       ParamStorage storage = {});

//! HBM bytes one optimizer step moves per parameter it updates (memory-bound passes over the
//! parameters). Without a master copy (fp32): Adam reads and writes m and v, reads the gradient
//! and writes the weight, 2·opt + g + w. With mixed precision, Megatron-LM's step [M-OPT] is
//! five passes: the gradients to fp32 main gradients (g + 4; none when the gradients already
//! are fp32), fp16's loss-scale unscale with its non-finite check (4 + 4, fp16 only), the
//! global gradient norm (4), Adam on the fp32 master copy (2·opt + 4) and the master copy cast
//! back to the model's weights (4 + gathered): fp16 52, bf16 and fp8 38 bytes per parameter.
//! The clipping rescale, which runs only when the norm exceeds the threshold, is not counted.
//!  [M-OPT] NVIDIA Megatron-LM, megatron/core/optimizer/optimizer.py, MixedPrecisionOptimizer
//!          step(): _copy_model_grads_to_main_grads, _unscale_main_grads_and_check_for_nan,
//!          clip_grad_norm (multi_tensor_l2norm), the fused Adam,
//!          _copy_main_params_to_model_params.
double optimizer_step_bytes(models::Precision p, const ParamBytes& b);

}  // namespace pipesim::cost
