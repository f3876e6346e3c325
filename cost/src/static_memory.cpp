#include "pipesim/cost/static_memory.hpp"

#include <algorithm>

#include "pipesim/models/transformer.hpp"

namespace pipesim::cost {

double quantized_bytes(models::Precision p) {
  return models::quantized_element_bytes(p);
}

namespace {

ParamBytes precision_table(models::Precision p) {
  switch (p) {
    case models::Precision::FP32:
      return {4, 4, 8, 4};
    case models::Precision::FP16:
      return {2, 2, 12, 2};
    case models::Precision::BF16:
      return {2, 4, 12, 2};
    case models::Precision::FP8:
    case models::Precision::MXFP8:
    case models::Precision::NVFP4:
      return {2 + 2 * quantized_bytes(p), 4, 12, 2};
  }
  return {};
}

}  // namespace

ParamBytes param_bytes(models::Precision p, double bytes_per_param, ParamStorage storage) {
  const double e = models::precision_bytes(p);
  if (bytes_per_param > 0) return {e, e, bytes_per_param - 2 * e, e};
  ParamBytes b = precision_table(p);
  if (storage.quantized_params && quantized_bytes(p) > 0) {
    b.weights = 2 * quantized_bytes(p);
    b.gathered = quantized_bytes(p);
  }
  if (storage.bf16_gradients) b.gradients = std::min(b.gradients, 2.0);
  return b;
}

double optimizer_step_bytes(models::Precision p, const ParamBytes& b) {
  constexpr double kFp32 = 4;
  // fp32 training keeps no master copy. (Told by the precision, not the weight bytes: a
  // low-precision recipe's weights include their quantized copies.)
  if (p == models::Precision::FP32) return 2 * b.optimizer + b.gradients + b.weights;
  const double to_main_grads = b.gradients < kFp32 ? b.gradients + kFp32 : 0.0;
  const double unscale = p == models::Precision::FP16 ? 2 * kFp32 : 0.0;
  const double grad_norm = kFp32;
  const double adam = 2 * b.optimizer + kFp32;
  const double to_model_weights = kFp32 + b.gathered;
  return to_main_grads + unscale + grad_norm + adam + to_model_weights;
}

}  // namespace pipesim::cost
