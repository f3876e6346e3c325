#pragma once
// The catalogue of schedule generators, side by side with a one-line description, citation, the
// options each accepts and the constraints its parameters must meet. `pipesim list schedules`
// and the CLI's schedule option both read it; search and sweeps ask check_params() before
// simulating a point, and every generator enforces the same constraints (one source of truth).

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "pipesim/core/config_error.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim::schedules {

//! What a user can ask of a generator. Zero means "the scheme's default" where one exists.
struct ScheduleParams {
  int stages = 4;         //!< D
  int micro_batches = 8;  //!< N per iteration
  int pipelines = 0;      //!< Chimera: 2f pipelines (0 = 2)
  int chunks = 0;         //!< interleaved: v model chunks per worker (0 = 2)
  std::string strategy;   //!< Chimera N > D: direct | doubling | halving (empty = direct)
  int iterations = 0;     //!< asynchronous schedules: iterations to list (0 = scheme default)
  //! Asynchronous schedules: the pipeline fills and drains around every run of `iterations`
  //! updates (sim::Schedule::drains_each_run).
  bool epoch_drain = false;
};

using Generator = sim::Schedule (*)(const ScheduleParams&);

//! One rule on a scheme's parameters. Options are named as ScheduleParams fields ("stages",
//! "micro_batches", "pipelines", "chunks", "strategy", "iterations", "epoch_drain"), never as CLI
//! flags.
struct Constraint {
  std::string_view option;                        //!< the option blamed when the rule fails
  bool (*holds)(const ScheduleParams&);           //!< sees raw params (0 = default)
  std::string (*problem)(const ScheduleParams&);  //!< what is wrong and what is allowed
};

struct ScheduleEntry {
  std::string_view name;         //!< the registry name a run asks for
  std::string_view description;  //!< one line
  std::string_view citation;     //!< the paper or code it follows
  Generator make;
  //! Options beyond stages and micro_batches (which every scheme takes) that shape this scheme.
  std::span<const std::string_view> options;
  //! Checked in order after stages and micro_batches are in range; the first failing one is
  //! reported.
  std::span<const Constraint> constraints;
};

//! A parameter point a scheme rejects: ConfigError(source, field, problem) in words.
struct ParamError {
  std::string source;  //!< "schedule <name>", or "command line" for an unknown name
  std::string field;   //!< the option at fault
  std::string problem;
  core::ConfigError error() const { return core::ConfigError(source, field, problem); }
};

//! Every registered scheme, in catalogue order.
std::span<const ScheduleEntry> all_schedules();

//! nullptr when no scheme has that name.
const ScheduleEntry* find_schedule(std::string_view name);

//! Whether `option` (a ScheduleParams field name) shapes schedule `name`: stages and
//! micro_batches for every scheme, the others only where listed (e.g. pipelines for chimera,
//! not for 1f1b). False for an unknown schedule or option.
bool accepts(std::string_view name, std::string_view option);

//! The first constraint `params` break for schedule `name` (unknown names included), with the
//! message make_schedule() would throw; nothing when the point can be generated. Cheap: no
//! schedule is built.
std::optional<ParamError> check_params(std::string_view name, const ScheduleParams& params);

//! check_params, thrown as core::ConfigError; what every generator calls first.
void require_valid(std::string_view name, const ScheduleParams& params);

//! Generates `name`; throws core::ConfigError for an unknown name or parameters the scheme does
//! not accept (naming the option and the allowed values).
sim::Schedule make_schedule(std::string_view name, const ScheduleParams& params);

}  // namespace pipesim::schedules
