#include "pipesim/cost/sharded_data_parallel.hpp"

#include "pipesim/cost/gradient_sync.hpp"

namespace pipesim::cost {

bool reduces_per_backward(DataParallelSharding s) {
  return s == DataParallelSharding::Gradients || s == DataParallelSharding::Params;
}

bool gathers_per_op(DataParallelSharding s) {
  return s == DataParallelSharding::Params;
}

double transient_unit_bytes(DataParallelSharding s, double unit, const ParamBytes& bytes) {
  // The unit computed and the one prefetched, in the dtype they are gathered in; the gradient
  // of the unit being reduce-scattered.
  const double params = gathers_per_op(s) ? 2.0 * unit * bytes.gathered : 0.0;
  const double gradient = reduces_per_backward(s) ? unit * bytes.gradients : 0.0;
  return params + gradient;
}

namespace {

bool same(const hardware::CommTime& a, const hardware::CommTime& b) {
  return a.latency.value == b.latency.value && a.intra.value == b.intra.value &&
         a.inter.value == b.inter.value;
}

}  // namespace

std::vector<OpCollective> unit_collectives(const hardware::HardwareProfile& hw,
                                           const ParamBytes& bytes, const ShardGroup& group,
                                           const std::vector<ShardUnit>& units, bool gather,
                                           bool reduce) {
  // Each part over its own group: the dense parameters over the data-parallel ranks, the
  // routed experts over the expert data-parallel ones; a part of no parameters costs nothing.
  const auto over_groups = [&](const ShardUnit& u, auto&& call) {
    hardware::CommTime c;
    if (u.params > 0) c = c + call(u.params, group.ranks, group.nodes);
    if (u.expert_params > 0) c = c + call(u.expert_params, group.expert_ranks, group.expert_nodes);
    return c;
  };
  const auto gather_of = [&](size_t i) {
    if (!gather || i >= units.size()) return hardware::CommTime{};
    return over_groups(
        units[i], [&](double p, int r, int n) { return param_gather_time(hw, bytes, p, r, n); });
  };
  const auto reduce_of = [&](size_t i) {
    if (!reduce || i >= units.size()) return hardware::CommTime{};
    return over_groups(units[i], [&](double p, int r, int n) {
      return hardware::reduce_scatter_time(hw, r, n, core::Bytes(p * bytes.gradients));
    });
  };
  const auto params_of = [&](size_t i) {
    return i < units.size() ? units[i].params + units[i].expert_params : 0.0;
  };
  const auto gathered = [&](size_t i) { return gather ? params_of(i) * bytes.gathered : 0.0; };
  const auto reduced = [&](size_t i) { return reduce ? params_of(i) * bytes.gradients : 0.0; };
  std::vector<OpCollective> out;
  const auto window = [&](const hardware::CommTime& comm, double hidden, double moved) {
    if (!(comm.total().value > 0)) return;
    if (!out.empty() && same(*out.back().priced, comm) && out.back().hidden == hidden) {
      out.back().calls += 1;
      return;
    }
    OpCollective c;
    c.kind = gather ? hardware::Collective::AllGather : hardware::Collective::ReduceScatter;
    c.ranks = group.ranks;
    c.nodes = group.nodes;
    c.bytes = core::Bytes(moved);
    c.calls = 1;
    c.priced = comm;
    c.hidden = hidden;
    out.push_back(c);
  };
  if (units.empty()) return out;
  // The first unit's gather has no compute before it; then each unit's compute hides the next
  // unit's gather and the previous unit's reduce-scatter; the last reduce-scatter follows.
  const size_t last = units.size() - 1;
  window(gather_of(0), 0.0, gathered(0));
  for (size_t i = 0; i < units.size(); ++i) {
    const bool after_first = i > 0;
    window(gather_of(i + 1) + (after_first ? reduce_of(i - 1) : hardware::CommTime{}),
           units[i].compute, gathered(i + 1) + (after_first ? reduced(i - 1) : 0.0));
  }
  window(reduce_of(last), 0.0, reduced(last));
  return out;
}

}  // namespace pipesim::cost
