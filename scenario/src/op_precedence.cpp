#include "pipesim/scenario/op_precedence.hpp"

#include <algorithm>

namespace pipesim::scenario {

OpPrecedence::OpPrecedence(const sim::Schedule& schedule) {
  const sim::OpKind backward =
      schedule.split_backward ? sim::OpKind::BackwardInput : sim::OpKind::Backward;
  const auto chained = [&](sim::OpKind kind) {
    if (kind == sim::OpKind::Forward) return 0;
    if (kind == backward) return 1;
    if (kind == sim::OpKind::BackwardWeight) return 2;
    return -1;
  };
  int pipelines = 1, micro_batches = 1;
  std::vector<size_t> worker;  // op → its worker
  for (const std::vector<sim::Op>& program : schedule.program) {
    first_.push_back(ops_.size());
    for (const sim::Op& op : program) {
      ops_.push_back(op);
      worker.push_back(first_.size() - 1);
      pipelines = std::max(pipelines, op.pipeline + 1);
      micro_batches = std::max(micro_batches, op.micro_batch + 1);
    }
  }
  first_.push_back(ops_.size());
  const int stages = std::max(1, schedule.virtual_stages);
  // Chained ops by (kind, pipeline, micro-batch, stage).
  const auto slot = [&](int kind, const sim::Op& op, int stage) -> std::optional<size_t> {
    if (kind < 0 || stage < 0 || stage >= stages || op.pipeline < 0 || op.micro_batch < 0) {
      return std::nullopt;
    }
    return ((static_cast<size_t>(kind) * static_cast<size_t>(pipelines) +
             static_cast<size_t>(op.pipeline)) *
                static_cast<size_t>(micro_batches) +
            static_cast<size_t>(op.micro_batch)) *
               static_cast<size_t>(stages) +
           static_cast<size_t>(stage);
  };
  std::vector<int> at(3 * static_cast<size_t>(pipelines) * static_cast<size_t>(micro_batches) *
                          static_cast<size_t>(stages),
                      -1);
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (const auto s = slot(chained(ops_[i].kind), ops_[i], ops_[i].stage)) {
      at[*s] = static_cast<int>(i);
    }
  }
  std::vector<int> chain(ops_.size(), -1);  // op → the op its chain waits for, or -1
  for (size_t i = 0; i < ops_.size(); ++i) {
    const sim::Op& op = ops_[i];
    std::optional<size_t> s;
    switch (chained(op.kind)) {
      case 0:
        s = slot(0, op, op.stage - 1);
        break;
      case 1:
        s = op.stage == stages - 1 ? slot(0, op, op.stage) : slot(1, op, op.stage + 1);
        break;
      case 2:
        s = slot(1, op, op.stage);
        break;
      default:
        break;
    }
    if (s) chain[i] = at[*s];
  }
  // A topological order (Kahn's): an op is ready once its program predecessor and its chain
  // predecessor have run; both edges point forward, to at most one program successor and to
  // the ops each chain feeds.
  std::vector<int> waiting(ops_.size(), 0);
  std::vector<size_t> fed_from(ops_.size() + 1, 0);  // CSR of chain successors
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (i > first_[worker[i]]) ++waiting[i];
    if (chain[i] >= 0) {
      ++waiting[i];
      ++fed_from[static_cast<size_t>(chain[i]) + 1];
    }
  }
  for (size_t i = 0; i < ops_.size(); ++i)
    fed_from[i + 1] += fed_from[i];
  std::vector<size_t> fed(fed_from.back());
  std::vector<size_t> fill(fed_from.begin(), fed_from.end() - 1);
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (chain[i] >= 0) fed[fill[static_cast<size_t>(chain[i])]++] = i;
  }
  std::vector<size_t> order;
  order.reserve(ops_.size());
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (waiting[i] == 0) order.push_back(i);
  }
  for (size_t next = 0; next < order.size(); ++next) {
    const size_t i = order[next];
    const auto release = [&](size_t j) {
      if (--waiting[j] == 0) order.push_back(j);
    };
    if (i + 1 < first_[worker[i] + 1]) release(i + 1);
    for (size_t k = fed_from[i]; k < fed_from[i + 1]; ++k)
      release(fed[k]);
  }
  // The order with each op's two predecessors beside it: ends() reads it front to back.
  steps_.reserve(order.size());
  for (const size_t i : order) {
    const std::int32_t previous = i > first_[worker[i]] ? static_cast<std::int32_t>(i - 1) : -1;
    steps_.push_back({static_cast<std::uint32_t>(i), previous, chain[i]});
  }
}

std::vector<double> OpPrecedence::ends(const std::vector<double>& weight,
                                       std::optional<size_t> source) const {
  std::vector<double> end(ops_.size(), kUnreached);
  const auto latest = [&](const Step& step, double ready) {
    if (step.previous >= 0) ready = std::max(ready, end[static_cast<size_t>(step.previous)]);
    if (step.chain >= 0) ready = std::max(ready, end[static_cast<size_t>(step.chain)]);
    return ready;
  };
  if (!source) {
    for (const Step& step : steps_)
      end[step.op] = latest(step, 0.0) + weight[step.op];
    return end;
  }
  for (const Step& step : steps_) {
    if (step.op == *source) {
      end[step.op] = 0.0;
      continue;
    }
    const double ready = latest(step, kUnreached);
    end[step.op] = ready == kUnreached ? kUnreached : ready + weight[step.op];
  }
  return end;
}

std::vector<bool> OpPrecedence::ancestors(size_t b) const {
  std::vector<bool> marked(ops_.size(), false);
  marked[b] = true;
  for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
    if (!marked[it->op]) continue;
    if (it->previous >= 0) marked[static_cast<size_t>(it->previous)] = true;
    if (it->chain >= 0) marked[static_cast<size_t>(it->chain)] = true;
  }
  return marked;
}

}  // namespace pipesim::scenario
