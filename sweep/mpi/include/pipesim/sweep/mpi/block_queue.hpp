#pragma once
// Which positions rank 0 hands out next, and how many at once. Guided self-scheduling: a block
// is the rank's share of half of what is left, so blocks start large (few messages) and shrink
// as the job drains; the last ones are a position per thread, and a slow point holds back only
// the rank that drew it while the others keep asking for more. A block never reaches past the
// reorder window's horizon, so the rows held for an earlier one stay bounded.

#include <cstddef>

namespace pipesim::sweep::mpi {

struct Block {
  size_t begin = 0;
  size_t end = 0;

  bool empty() const { return begin == end; }
  size_t size() const { return end - begin; }
};

class BlockQueue {
 public:
  //! Most positions per thread in one block: rows come back at least this often, for the journal
  //! and the progress, and one message stays small (a row is a few hundred bytes).
  static constexpr size_t kMostPerThread = 32;

  //! Positions [first, end) for ranks with `threads` evaluation threads in all.
  BlockQueue(size_t first, size_t end, size_t threads);

  //! The next block for a rank with `jobs` threads, below `horizon` (the first position the
  //! reorder window cannot take yet): empty when everything was handed out or nothing fits.
  Block take(int jobs, size_t horizon);
  //! Whether every position was handed out.
  bool exhausted() const { return next_ == end_; }

 private:
  size_t next_;
  size_t end_;
  size_t threads_;
};

}  // namespace pipesim::sweep::mpi
