#include "pipesim/schedules/recompute.hpp"

namespace pipesim::schedules {

sim::Schedule with_recomputation(sim::Schedule s) {
  if (s.recompute) return s;
  s.recompute = true;
  const sim::OpKind backward =
      s.split_backward ? sim::OpKind::BackwardInput : sim::OpKind::Backward;
  for (auto& ops : s.program) {
    std::vector<sim::Op> out;
    out.reserve(ops.size() * 3 / 2 + 1);
    for (const sim::Op& op : ops) {
      if (op.kind == backward) {
        sim::Op r = op;
        r.kind = sim::OpKind::Recompute;
        out.push_back(r);
      }
      out.push_back(op);
    }
    ops = std::move(out);
  }
  return s;
}

}  // namespace pipesim::schedules
