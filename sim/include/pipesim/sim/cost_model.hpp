#pragma once
// How long each task takes. The simulator asks a CostModel once per task before it runs.

#include <array>
#include <optional>

#include "pipesim/sim/task_graph.hpp"

namespace pipesim::sim {

class CostModel {
 public:
  virtual ~CostModel() = default;
  //! Seconds the task occupies its stream (a stream-less task: its pure delay). Never negative.
  virtual double duration(const TaskGraph& graph, TaskId id) const = 0;
  //! When a task's duration depends on its kind alone (unit cost): the duration of each kind,
  //! which a replay then looks up itself instead of asking task by task. Otherwise null.
  virtual const std::array<double, kNumOpKinds>* durations_by_kind() const { return nullptr; }
};

//! Unit-cost mode (docs/architecture.md §4): durations in the papers' slot units, of the ops of
//! one task as the model runs them (scenario::simulate passes each chunk's share of a stage's).
struct UnitCosts {
  double forward = 1.0;   //!< F (and R, a recomputed forward)
  double backward = 2.0;  //!< whole backward B = I + W
  //! The W part of a split backward, I = backward − W; unset: half of it (the Zero Bubble
  //! paper's figures take t_I = t_W).
  std::optional<double> weight;
  double comm = 0.0;  //!< delay on every edge between ops on different workers
  //! a gradient all-reduce (a pure delay, like comm; 0: synchronisation is free, as in the
  //! papers' slot figures)
  double all_reduce = 0.0;

  //! W as a split backward runs it.
  double weight_part() const { return weight.value_or(backward / 2); }
};

class UnitCostModel final : public CostModel {
 public:
  explicit UnitCostModel(UnitCosts costs);
  double duration(const TaskGraph& graph, TaskId id) const override;
  const std::array<double, kNumOpKinds>* durations_by_kind() const override { return &by_kind_; }
  const UnitCosts& costs() const { return costs_; }

 private:
  UnitCosts costs_;
  // The duration of each OpKind, looked up rather than switched on: consecutive tasks
  // alternate kinds, and a jump per task mispredicts.
  std::array<double, kNumOpKinds> by_kind_{};
};

}  // namespace pipesim::sim
