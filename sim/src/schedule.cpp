#include "pipesim/sim/schedule.hpp"

#include <numeric>

namespace pipesim::sim {

Schedule make_linear_schedule(std::string name, int workers, int micro_batches) {
  Schedule s;
  s.name = std::move(name);
  s.workers = workers;
  s.virtual_stages = workers;
  s.micro_batches = micro_batches;
  s.stage_worker.assign(1, std::vector<int>(static_cast<size_t>(workers)));
  std::iota(s.stage_worker[0].begin(), s.stage_worker[0].end(), 0);
  s.micro_batch_pipeline.assign(static_cast<size_t>(micro_batches), 0);
  s.program.resize(static_cast<size_t>(workers));
  return s;
}

}  // namespace pipesim::sim
