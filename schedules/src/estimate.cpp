#include "pipesim/schedules/estimate.hpp"

#include <algorithm>

namespace pipesim::schedules {

double estimate_tasks(std::string_view name, const ScheduleParams& p) {
  const bool split_backward = name.starts_with("zb-") || name.starts_with("dualpipe");
  const bool asynchronous = name.starts_with("pipedream");
  double chunks = 1.0;
  if (name == "interleaved") chunks = p.chunks == 0 ? 2.0 : std::max(p.chunks, 1);
  if (name == "zb-v" || name == "dualpipev") chunks = 2.0;
  const double iterations =
      asynchronous ? (p.iterations == 0 ? 4.0 : std::max(p.iterations, 1)) : 1.0;
  const double micro = static_cast<double>(std::max(p.micro_batches, 1)) * iterations;
  const double stages = static_cast<double>(std::max(p.stages, 1)) * chunks;
  const double kinds = split_backward ? 3.0 : 2.0;
  // Compute ops, at most one transfer after each, and a few per stage and worker at the ends.
  return micro * stages * kinds * 2.0 + 2.0 * (stages + std::max(p.stages, 1));
}

}  // namespace pipesim::schedules
