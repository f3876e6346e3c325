#pragma once
// The catalogue of schedule generators, side by side with a one-line description and citation.
// `pipesim list schedules` and `--schedule NAME` both read it.

#include <span>
#include <string>
#include <string_view>

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
};

using Generator = sim::Schedule (*)(const ScheduleParams&);

struct ScheduleEntry {
  std::string_view name;         //!< what --schedule takes
  std::string_view description;  //!< one line
  std::string_view citation;     //!< the paper or code it follows
  Generator make;
};

//! Every registered scheme, in catalogue order.
std::span<const ScheduleEntry> all_schedules();

//! nullptr when no scheme has that name.
const ScheduleEntry* find_schedule(std::string_view name);

//! Generates `name`; throws core::ConfigError for an unknown name or parameters the scheme does
//! not accept (naming the option and the allowed values).
sim::Schedule make_schedule(std::string_view name, const ScheduleParams& params);

}  // namespace pipesim::schedules
