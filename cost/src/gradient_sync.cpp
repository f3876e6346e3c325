#include "pipesim/cost/gradient_sync.hpp"

#include <cmath>

namespace pipesim::cost {

hardware::CommTime gradient_sync_time(const hardware::HardwareProfile& hw,
                                      const TrainingSetup& setup, const ParamBytes& bytes,
                                      double params, int ranks, int nodes) {
  const core::Bytes grads(params * bytes.gradients);
  hardware::CommTime c =
      !setup.distributed_optimizer
          ? hardware::all_reduce_time(hw, ranks, nodes, grads)
          // ZeRO-1: reduce-scatter the gradients, all-gather the updated parameters.
          : hardware::reduce_scatter_time(hw, ranks, nodes, grads) +
                hardware::all_gather_time(hw, ranks, nodes, core::Bytes(params * bytes.gathered));
  if (setup.grad_bucket_bytes > 0 && grads.value > 0)
    c.latency = c.latency * std::ceil(grads.value / setup.grad_bucket_bytes);
  return c;
}

}  // namespace pipesim::cost
