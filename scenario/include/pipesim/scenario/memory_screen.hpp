#pragma once
// A run's peak memory per GPU bounded from below before anything is costed, so that search's
// table (RowDetail::FittingOnly) can call a run out of memory without building its cost model,
// lowering it or tracking it. A worker's memory changes only at its own compute ops, which run
// in program order whatever their (positive) durations (sim::track_memory_untimed), so at the
// point of its op order where the most activation sets are live it holds at least
//   static + Σ over those sets of the set's bytes,
// static being every (pipeline, stage) copy it holds (weights × versions + gradients +
// optimizer state; 0 for the optimizer with the distributed optimizer, whose shards need the
// expert layout). Both per-stage figures are the cost model's own formulas
// (cost::stage_params, cost::stage_memory) on its partition of the model; what the bound leaves
// out (recomputation buffers, workspace, multi-token prediction layers, the optimizer shards)
// only adds to the true peak. Then the profile's overheads, as the cost model applies them.
//
// The op order depends only on the scheme and its parameters (D, N, the scheme's options), not
// on the layout, B or recomputation, so it is read once per parameter set and shared by every
// row that has it (a search regenerates the same schedule for each layout and mode otherwise).

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipesim/hardware/profile.hpp"
#include "pipesim/scenario/op_precedence.hpp"
#include "pipesim/scenario/row.hpp"
#include "pipesim/scenario/scenario.hpp"
#include "pipesim/sim/memory.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim::scenario {

//! What a schedule's op order fixes about memory, whatever the costs.
struct ActivationProfile {
  //! The schedule without its program: workers, stages, pipelines, flags, stage → worker map.
  sim::Schedule shape;
  //! held[w]: the virtual stage of every (pipeline, stage) copy worker w holds.
  std::vector<std::vector<int>> held;
  //! live[w]: (virtual stage, sets) live on worker w at the first point of its op order where
  //! the most activation sets are (after a forward's allocation, before later releases).
  std::vector<std::vector<std::pair<int, int>>> live;
};

//! The profile of `schedule`'s op order (activations allocated at F, freed at B, or at W for a
//! split backward, as sim::track_memory does).
ActivationProfile activation_profile(const sim::Schedule& schedule);

//! max over workers of static + the live sets' activations, with the profile's overheads;
//! `stages[s]`: bytes of virtual stage s.
double peak_lower_bound(const ActivationProfile& profile,
                        const std::vector<sim::StageMemory>& stages,
                        const hardware::MemoryOverhead& overhead);

//! Lower bounds on the bytes of each virtual stage of `schedule` for a real-cost scenario (its
//! model and hardware attached), by the cost model's formulas; throws core::ConfigError where
//! the cost model would refuse the setup.
std::vector<sim::StageMemory> stage_memory_lower_bound(const Scenario& s,
                                                       const sim::Schedule& schedule);

//! A parameter set's schedule, generated and validated once, its profile and its ops'
//! precedence (run_bounds).
struct GeneratedSchedule {
  sim::Schedule schedule;
  ActivationProfile profile;
  OpPrecedence precedence;
};

//! Screens real-cost runs, each schedule (and its profile) kept per parameter set, so a run the
//! screen lets through is simulated from it (simulate_generated). Thread-safe.
class MemoryScreen {
 public:
  //! The row simulate() would give `s` (given point `point`) when its peak's lower bound is
  //! above the GPU's memory: used_point inputs, status oom, fits_memory false, no other metric;
  //! nullopt when the bound fits, or when the run could fail for another reason first (a scheme
  //! rule, the run budget, a cyclic order, a setup the cost model refuses, options the screen
  //! does not model: activation offload, a hand-written layout, a non-default gradient or
  //! optimizer synchronisation), which simulate() then reports as it does.
  std::optional<SweepRow> screen(const Scenario& s, const Point& point);

  //! The same, with `s`'s schedule already at hand (generated(s), not null).
  static std::optional<SweepRow> screen(const Scenario& s, const Point& point,
                                        const GeneratedSchedule& generated);

  //! Whether screen(s, point, generated) gives a row: the peak's lower bound is above the GPU's
  //! memory.
  static bool exceeds(const Scenario& s, const GeneratedSchedule& generated);

  //! The peak's lower bound, bytes per GPU with the profile's overheads; 0 where the cost
  //! model refuses the setup.
  static double peak_bound(const Scenario& s, const GeneratedSchedule& generated);

  //! Whether a peak bound of `bound` bytes is above `s`'s GPU memory (a rounding margin kept).
  static bool exceeds(const Scenario& s, double bound);

  //! The row of a run known to be out of memory without simulating it: used_inputs, status
  //! oom, fits_memory false, no other metric.
  static SweepRow out_of_memory_row(const Scenario& s, const Point& point,
                                    const GeneratedSchedule& generated);

  //! The inputs a row of `s` (given point `point`) reports, as a simulated one would
  //! (used_point: the scheme's resolved options, the shape `generated` has).
  static Point used_inputs(const Scenario& s, const Point& point,
                           const GeneratedSchedule& generated);

  //! make_schedule(s.schedule, s.params), generated once per parameter set; null when it does
  //! not generate or is not valid (simulate() then says why) or the screen does not model `s`.
  std::shared_ptr<const GeneratedSchedule> generated(const Scenario& s);

 private:
  struct Generation {
    std::once_flag once;
    std::shared_ptr<const GeneratedSchedule> schedule;  // null: the set does not generate
  };
  std::mutex mutex_;
  //! By schedule and parameters.
  std::map<std::string, std::shared_ptr<Generation>> generated_;
};

}  // namespace pipesim::scenario
