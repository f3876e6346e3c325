#include "pipesim/sim/cost_model.hpp"

namespace pipesim::sim {

double UnitCostModel::duration(const TaskGraph& graph, TaskId id) const {
  switch (graph.task(id).kind) {
    case OpKind::Forward:
    case OpKind::Recompute: return costs_.forward;
    case OpKind::Backward: return costs_.backward;
    case OpKind::BackwardInput: return costs_.backward - costs_.weight;
    case OpKind::BackwardWeight: return costs_.weight;
    case OpKind::Transfer: return costs_.comm;
    // Unit-cost mode counts slots only: synchronisation is free, as in the papers' figures.
    case OpKind::AllReduce:
    case OpKind::Optimizer: return 0.0;
  }
  return 0.0;
}

}  // namespace pipesim::sim
