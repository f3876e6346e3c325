#include "pipesim/cost/gradient_sync.hpp"

#include <algorithm>
#include <cmath>

#include "pipesim/cost/sharded_data_parallel.hpp"

namespace pipesim::cost {

hardware::CommTime gradient_reduce_time(const hardware::HardwareProfile& hw,
                                        const TrainingSetup& setup, const ParamBytes& bytes,
                                        double params, int ranks, int nodes) {
  const core::Bytes grads(params * bytes.gradients);
  return sharding_of(setup) != DataParallelSharding::None
             ? hardware::reduce_scatter_time(hw, ranks, nodes, grads)
             : hardware::all_reduce_time(hw, ranks, nodes, grads);
}

hardware::CommTime param_gather_time(const hardware::HardwareProfile& hw, const ParamBytes& bytes,
                                     double params, int ranks, int nodes) {
  return hardware::all_gather_time(hw, ranks, nodes, core::Bytes(params * bytes.gathered));
}

hardware::CommTime gradient_sync_time(const hardware::HardwareProfile& hw,
                                      const TrainingSetup& setup, const ParamBytes& bytes,
                                      double params, int ranks, int nodes) {
  const core::Bytes grads(params * bytes.gradients);
  hardware::CommTime c;
  const DataParallelSharding level = sharding_of(setup);
  // ZeRO-1: reduce-scatter the gradients, all-gather the updated parameters. Sharded gradients
  // were reduce-scattered by each backward and sharded parameters are gathered by each op
  // (sharded_data_parallel.hpp): the sync keeps what is left of the two.
  if (!reduces_per_backward(level))
    c = gradient_reduce_time(hw, setup, bytes, params, ranks, nodes);
  if (level != DataParallelSharding::None && !gathers_per_op(level))
    c = c + param_gather_time(hw, bytes, params, ranks, nodes);
  if (setup.grad_bucket_bytes > 0 && grads.value > 0)
    c.latency = c.latency * std::ceil(grads.value / setup.grad_bucket_bytes);
  return c;
}

int gradient_buckets(const TrainingSetup& setup, const ParamBytes& bytes, double params) {
  const double grads = params * bytes.gradients;
  if (!(grads > 0)) return 1;
  double k = 1;
  if (setup.grad_bucket_bytes > 0) {
    k = std::ceil(grads / setup.grad_bucket_bytes);
  } else if (setup.overlap_grad_reduce) {
    const double d = static_cast<double>(setup.data_parallel) * setup.context_parallel;
    k = std::ceil(params / std::max(4e7, 1e6 * d));
  }
  return static_cast<int>(std::clamp(k, 1.0, 1e6));
}

}  // namespace pipesim::cost
