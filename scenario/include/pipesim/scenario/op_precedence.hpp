#pragma once
// A run's compute ops with the precedence the replay honours whatever the costs: a worker runs
// its ops in program order, and a micro-batch's ops follow its chain (F of stage s after F of
// s - 1; the last stage's backward after its forward, a backward after the backward of stage
// s + 1; W after the same stage's backward input). Transfers and waits only add to a path, so
// with each op weighing a lower bound on its time, a path's length bounds the replay's times
// from below. Depends on the schedule only: built once, weighed per run.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "pipesim/sim/schedule.hpp"

namespace pipesim::scenario {

class OpPrecedence {
 public:
  //! An end no path from the source reaches (OpPrecedence::ends with a source).
  static constexpr double kUnreached = -std::numeric_limits<double>::infinity();

  explicit OpPrecedence(const sim::Schedule& schedule);

  //! Whether every op can run (no cycle of precedence).
  bool complete() const { return steps_.size() == ops_.size(); }

  //! The end of each op when each starts as soon as its predecessors end, op i taking
  //! weight[i]: from 0, or, given `source`, counted from the source's end (kUnreached for an
  //! op the source does not precede).
  std::vector<double> ends(const std::vector<double>& weight,
                           std::optional<size_t> source = std::nullopt) const;

  //! Per op: whether it precedes op `b` (b itself included).
  std::vector<bool> ancestors(size_t b) const;

  //! Ops are numbered worker by worker, each worker's in program order.
  size_t size() const { return ops_.size(); }
  const sim::Op& op(size_t i) const { return ops_[i]; }
  size_t workers() const { return first_.size() - 1; }
  //! Worker w's first op, and one past its last.
  size_t begin_of(size_t w) const { return first_[w]; }
  size_t end_of(size_t w) const { return first_[w + 1]; }

 private:
  std::vector<sim::Op> ops_;
  std::vector<size_t> first_;  // worker → its first op; one more entry: the total
  struct Step {
    std::uint32_t op;
    std::int32_t previous;  // the op before it in its program, or -1
    std::int32_t chain;     // the op its chain waits for, or -1
  };
  std::vector<Step> steps_;  // a topological order, each op with its predecessors
};

}  // namespace pipesim::scenario
