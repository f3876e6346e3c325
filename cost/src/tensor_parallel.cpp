#include "pipesim/cost/tensor_parallel.hpp"

namespace pipesim::cost {

core::Bytes tp_buffer_bytes(const models::ModelSpec& m, const models::LayerConfig& c) {
  return core::Bytes(static_cast<double>(c.micro_batch_size) * m.sequence * m.hidden *
                     models::activation_element_bytes(m.precision));
}

double tp_collective_time(const hardware::HardwareProfile& hw, const models::ModelSpec& m,
                          const models::LayerConfig& c) {
  const int t = c.tensor_parallel;
  if (t <= 1) return 0.0;
  const core::Bytes n = tp_buffer_bytes(m, c);
  if (c.sequence_parallel) {
    return hardware::all_gather_time(hw, t, 1, n).total().value +
           hardware::reduce_scatter_time(hw, t, 1, n).total().value;
  }
  return hardware::all_reduce_time(hw, t, 1, n).total().value;
}

core::Bytes tp_layer_traffic(const models::ModelSpec& m, const models::LayerConfig& c) {
  const double t = c.tensor_parallel;
  return tp_buffer_bytes(m, c) *
         ((kTpCollectivesForward + kTpCollectivesBackward) * 2.0 * (t - 1) / t);
}

}  // namespace pipesim::cost
