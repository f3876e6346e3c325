// parallel_for: every index exactly once for any thread count; the first error comes back.

#include "pipesim/sweep/thread_pool.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace pipesim::sweep {
namespace {

TEST(ThreadPool, EveryIndexOnceForAnyJobCount) {
  for (int jobs : {1, 2, 3, 8, 100}) {
    std::vector<std::atomic<int>> hits(257);
    size_t last_progress = 0;
    parallel_for(
        hits.size(), jobs, [&](size_t i) { hits[i].fetch_add(1); },
        [&](size_t done) {
          EXPECT_GE(done, last_progress);
          last_progress = done;
        });
    for (size_t i = 0; i < hits.size(); ++i)
      EXPECT_EQ(hits[i].load(), 1) << i << " jobs " << jobs;
    EXPECT_EQ(last_progress, hits.size());
  }
}

TEST(ThreadPool, NothingToDo) {
  bool called = false;
  parallel_for(0, 4, [&](size_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ThreadPool, RethrowsTheBodysException) {
  EXPECT_THROW(parallel_for(100, 2,
                            [](size_t i) {
                              if (i == 17) throw std::runtime_error("boom");
                            }),
               std::runtime_error);
}

}  // namespace
}  // namespace pipesim::sweep
