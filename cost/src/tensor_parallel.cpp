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

std::vector<OpCollective> tp_collectives(const models::ModelSpec& m, const models::LayerConfig& c,
                                         double points) {
  const int t = c.tensor_parallel;
  if (t <= 1 || points <= 0) return {};
  const core::Bytes n = tp_buffer_bytes(m, c);
  if (c.sequence_parallel) {
    return {{hardware::Collective::AllGather, t, 1, n, points},
            {hardware::Collective::ReduceScatter, t, 1, n, points}};
  }
  return {{hardware::Collective::AllReduce, t, 1, n, points}};
}

core::Bytes tp_layer_traffic(const models::ModelSpec& m, const models::LayerConfig& c) {
  const double t = c.tensor_parallel;
  return tp_buffer_bytes(m, c) *
         ((kTpCollectivesForward + kTpCollectivesBackward) * 2.0 * (t - 1) / t);
}

}  // namespace pipesim::cost
