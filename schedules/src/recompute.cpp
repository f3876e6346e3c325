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
      if (op.kind != backward) {
        out.push_back(op);
        continue;
      }
      // R takes the backward's place in an overlapped unit; the backward then follows it in
      // the same half.
      sim::Op r = op;
      r.kind = sim::OpKind::Recompute;
      out.push_back(r);
      sim::Op b = op;
      if (b.join != sim::Join::None) b.join = sim::Join::Half;
      out.push_back(b);
    }
    ops = std::move(out);
  }
  return s;
}

}  // namespace pipesim::schedules
