#include "pipesim/schedules/params_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace pipesim::schedules {
namespace {

constexpr std::array kBasic{
    Constraint{"stages",
               [](const ScheduleParams& p) { return p.stages >= 1 && p.stages <= kMaxStages; },
               [](const ScheduleParams& p) {
                 return fmt::format("must be in [1, {}], got {}", kMaxStages, p.stages);
               }},
    Constraint{"micro_batches",
               [](const ScheduleParams& p) {
                 return p.micro_batches >= 1 && p.micro_batches <= kMaxMicroBatches;
               },
               [](const ScheduleParams& p) {
                 return fmt::format("must be in [1, {}], got {}", kMaxMicroBatches,
                                    p.micro_batches);
               }},
};

}  // namespace

std::string option_field(std::string_view option) {
  std::string flag = fmt::format("--{}", option);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::span<const Constraint> basic_constraints() {
  return kBasic;
}

}  // namespace pipesim::schedules
