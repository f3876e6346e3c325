#include "pipesim/cost/context_parallel.hpp"

namespace pipesim::cost {

core::Bytes cp_kv_block_bytes(const models::ModelSpec& rank, const models::LayerConfig& c) {
  const models::LayerShape shape = models::layer_shape(rank, c, models::LayerKind::Dense);
  const models::layer_detail::LayerDims x = models::layer_detail::dims(shape);
  // K and V of the rank's b·(s/c) tokens, this GPU's a_kv/t heads (MLA: its a/t heads' keys
  // and values).
  return core::Bytes(static_cast<double>(x.bs) * static_cast<double>(x.k + x.v) *
                     static_cast<double>(x.e));
}

int cp_group_nodes(const hardware::HardwareProfile& hw, const models::LayerConfig& c) {
  const int group = c.tensor_parallel * c.context_parallel;
  return group <= hw.gpus_per_node ? 1 : (group + hw.gpus_per_node - 1) / hw.gpus_per_node;
}

std::vector<OpCollective> cp_ring(const hardware::HardwareProfile& hw,
                                  const models::ModelSpec& rank, const models::LayerConfig& c,
                                  bool backward, double attention_seconds, double calls) {
  const int ranks = c.context_parallel;
  if (ranks <= 1 || calls <= 0) return {};
  OpCollective ring;
  ring.ranks = ranks;
  ring.nodes = cp_group_nodes(hw, c);
  ring.bytes = cp_kv_block_bytes(rank, c) * (backward ? 2.0 : 1.0);
  ring.calls = calls;
  ring.ring_exchange = true;
  ring.hidden = attention_seconds / ranks;
  return {ring};
}

}  // namespace pipesim::cost
