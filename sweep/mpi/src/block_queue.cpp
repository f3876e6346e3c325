#include "pipesim/sweep/mpi/block_queue.hpp"

#include <algorithm>

namespace pipesim::sweep::mpi {

BlockQueue::BlockQueue(size_t first, size_t end, size_t threads)
    : next_(std::min(first, end)), end_(end), threads_(std::max<size_t>(threads, 1)) {}

Block BlockQueue::take(int jobs, size_t horizon) {
  const size_t limit = std::min(end_, horizon);
  if (next_ >= limit) return {next_, next_};
  const size_t per_thread = std::clamp<size_t>((end_ - next_) / (2 * threads_), 1, kMostPerThread);
  const size_t size = per_thread * static_cast<size_t>(std::max(jobs, 1));
  const Block block{next_, std::min(limit, next_ + size)};
  next_ = block.end;
  return block;
}

}  // namespace pipesim::sweep::mpi
