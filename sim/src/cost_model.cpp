#include "pipesim/sim/cost_model.hpp"

namespace pipesim::sim {

double UnitCostModel::duration(const TaskGraph& graph, TaskId id) const {
  switch (graph.task(id).kind) {
    case OpKind::Forward:
    case OpKind::Recompute:
      return costs_.forward;
    case OpKind::Backward:
      return costs_.backward;
    case OpKind::BackwardInput:
      return costs_.backward - costs_.weight;
    case OpKind::BackwardWeight:
      return costs_.weight;
    case OpKind::Transfer:
      return costs_.comm;
    // Slots of the papers' figures: synchronisation is free unless given a duration; the
    // optimizer step always is.
    case OpKind::AllReduce:
      return costs_.all_reduce;
    case OpKind::Optimizer:
      return 0.0;
  }
  return 0.0;
}

}  // namespace pipesim::sim
