#include "pipesim/explore/mpi/chunk_queue.hpp"

#include <algorithm>

namespace pipesim::explore::mpi {

ChunkQueue::ChunkQueue(size_t first, size_t end, size_t threads)
    : next_(std::min(first, end)), end_(end), threads_(std::max<size_t>(threads, 1)) {}

Chunk ChunkQueue::take(int jobs, size_t horizon) {
  const size_t limit = std::min(end_, horizon);
  if (next_ >= limit) return {next_, next_};
  const size_t per_thread = std::clamp<size_t>((end_ - next_) / (2 * threads_), 1, kMostPerThread);
  const size_t size = per_thread * static_cast<size_t>(std::max(jobs, 1));
  const Chunk chunk{next_, std::min(limit, next_ + size)};
  next_ = chunk.end;
  return chunk;
}

}  // namespace pipesim::explore::mpi
