#include "pipesim/sim/cost_model.hpp"

namespace pipesim::sim {

namespace {

double unit_duration(const UnitCosts& costs, OpKind kind) {
  switch (kind) {
    case OpKind::Forward:
    case OpKind::Recompute:
      return costs.forward;
    case OpKind::Backward:
      return costs.backward;
    case OpKind::BackwardInput:
      return costs.backward - costs.weight_part();
    case OpKind::BackwardWeight:
      return costs.weight_part();
    case OpKind::Transfer:
      return costs.comm;
    // Slots of the papers' figures: synchronisation is free unless given a duration; the
    // optimizer step always is.
    case OpKind::AllReduce:
      return costs.all_reduce;
    case OpKind::Optimizer:
      return 0.0;
    // Unit-cost mode lowers no collectives (they come with tensor parallelism, a real-cost
    // option): one would take no slot.
    case OpKind::Collective:
      return 0.0;
    // Nor activation offload (its copies are priced by bytes over the host link): none
    // takes a slot.
    case OpKind::Offload:
    case OpKind::Reload:
      return 0.0;
  }
  return 0.0;
}

}  // namespace

UnitCostModel::UnitCostModel(UnitCosts costs) : costs_(costs) {
  static_assert(static_cast<int>(OpKind::Reload) + 1 == kNumOpKinds);
  for (int k = 0; k < kNumOpKinds; ++k)
    by_kind_[static_cast<size_t>(k)] = unit_duration(costs_, static_cast<OpKind>(k));
}

double UnitCostModel::duration(const TaskGraph& graph, TaskId id) const {
  return by_kind_[static_cast<size_t>(graph.kinds()[id])];
}

}  // namespace pipesim::sim
