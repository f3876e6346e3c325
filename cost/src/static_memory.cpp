#include "pipesim/cost/static_memory.hpp"

namespace pipesim::cost {

ParamBytes param_bytes(models::Precision p, double bytes_per_param) {
  const double e = models::precision_bytes(p);
  if (bytes_per_param > 0) return {e, e, bytes_per_param - 2 * e, e};
  switch (p) {
    case models::Precision::FP32:
      return {4, 4, 8, 4};
    case models::Precision::FP16:
      return {2, 2, 12, 2};
    case models::Precision::BF16:
      return {2, 4, 12, 2};
    case models::Precision::FP8:
      return {3, 4, 12, 2};
  }
  return {};
}

}  // namespace pipesim::cost
