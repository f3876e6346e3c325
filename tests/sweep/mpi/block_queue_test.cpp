// Rank 0's scheduling (sweep/mpi/block_queue.hpp): blocks cover the positions once, in order,
// shrink as the job drains, give every thread of a rank a position, and never pass the reorder
// window's horizon; and which environments count as launched by MPI.

#include "pipesim/sweep/mpi/block_queue.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <vector>

#include "pipesim/sweep/mpi/session.hpp"
#include "pipesim/sweep/reorder_window.hpp"

namespace pipesim::sweep::mpi {
namespace {

TEST(BlockQueue, CoversThePositionsOnceInOrderWithShrinkingBlocks) {
  BlockQueue queue(10, 1010, 4);
  std::vector<size_t> sizes;
  size_t next = 10;
  while (!queue.exhausted()) {
    const Block block = queue.take(1, 1010);
    ASSERT_FALSE(block.empty());
    EXPECT_EQ(block.begin, next);
    next = block.end;
    sizes.push_back(block.size());
  }
  EXPECT_EQ(next, 1010u);
  // 1000 left over 4 threads: half of a thread's share at first, capped; one at the end.
  EXPECT_EQ(sizes.front(), BlockQueue::kMostPerThread);
  EXPECT_EQ(sizes.back(), 1u);
  for (size_t i = 1; i < sizes.size(); ++i)
    EXPECT_LE(sizes[i], sizes[i - 1]);
  EXPECT_TRUE(queue.take(1, 1010).empty());
}

TEST(BlockQueue, GivesEachThreadOfARankAPosition) {
  BlockQueue queue(0, 6, 8);
  EXPECT_EQ(queue.take(4, 6).size(), 4u);  // 6 / 16 rounds to 0: one per thread
  EXPECT_EQ(queue.take(4, 6).size(), 2u);  // what is left
  EXPECT_TRUE(queue.exhausted());
}

TEST(BlockQueue, StopsAtTheWindowsHorizon) {
  ReorderWindow window(0, 5, [](std::string_view) {});
  EXPECT_EQ(window.horizon(), 5u);
  BlockQueue queue(0, 100, 1);
  EXPECT_EQ(queue.take(1, window.horizon()).end, 5u);  // 32 wanted, the window holds 5
  EXPECT_TRUE(queue.take(1, window.horizon()).empty());
  EXPECT_FALSE(queue.exhausted());
  window.put(0, "row 0\n");  // the window moves on by one
  EXPECT_EQ(window.horizon(), 6u);
  const Block block = queue.take(1, window.horizon());
  EXPECT_EQ(block.begin, 5u);
  EXPECT_EQ(block.end, 6u);
}

TEST(BlockQueue, AnEmptyJobIsExhausted) {
  EXPECT_TRUE(BlockQueue(7, 7, 2).exhausted());
  EXPECT_TRUE(BlockQueue(9, 7, 2).take(1, 100).empty());
}

TEST(Session, LaunchedByMpiReadsTheLaunchersVariables) {
  // ctest does not run this under a launcher; the variables are restored as found (none).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PIPESIM_MPI"})
    ASSERT_EQ(getenv(name), nullptr) << name;
  EXPECT_FALSE(launched_by_mpi());
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    setenv(name, "2", 1);
    EXPECT_TRUE(launched_by_mpi()) << name;
    setenv("PIPESIM_MPI", "0", 1);  // a plain run all the same
    EXPECT_FALSE(launched_by_mpi()) << name;
    unsetenv("PIPESIM_MPI");
    unsetenv(name);
  }
  EXPECT_FALSE(launched_by_mpi());
}

}  // namespace
}  // namespace pipesim::sweep::mpi
