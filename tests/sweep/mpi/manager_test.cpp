// Rank 0's loop on its own (one rank: MPI started as a singleton, no launcher): the rows of a job
// reach a reorder window much smaller than the job in position order, never more than its
// capacity held, while rank 0's threads wait for it; a resumed job starts at its first
// position; a failing writer stops the job with its error; the end of a run with no other rank
// keeps rank 0's exit status. The ranks exchanging messages are tests/mpi/'s scripts.

#include "pipesim/sweep/mpi/manager.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include "pipesim/sweep/mpi/session.hpp"
#include "pipesim/sweep/reorder_window.hpp"

namespace pipesim::sweep::mpi {
namespace {

struct Outcome {
  std::string text;  //!< what reached the writer
  size_t peak = 0;   //!< the most rows the window held
  size_t progress = 0;
};

// Positions [first, end) whose rows take up to 300 µs each, through a window of `capacity`
// into a text of one line per position; the writer throws at `fail_at`.
Outcome run_job(size_t first, size_t end, size_t capacity, int jobs, size_t fail_at = SIZE_MAX) {
  Outcome run;
  ReorderWindow window(first, capacity, [&](std::string_view rows) { run.text += rows; });
  RowJob job;
  job.first = first;
  job.end = end;
  job.make_row = [](size_t position) {
    thread_local std::mt19937 random(static_cast<unsigned>(position));
    std::this_thread::sleep_for(std::chrono::microseconds(random() % 300));
    scenario::SweepRow row;
    row.inputs = {std::to_string(position)};
    return row;
  };
  job.put = [&](size_t position, scenario::SweepRow row) {
    if (position == fail_at) throw std::runtime_error("disk full");
    window.put(position, row.inputs[0] + "\n");
  };
  job.window = &window;
  job.jobs = jobs;
  job.on_progress = [&](size_t done) { run.progress = done; };
  Manager(MPI_COMM_SELF, "sweep").run(job);
  run.peak = window.peak_held();
  return run;
}

std::string lines(size_t first, size_t end) {
  std::string text;
  for (size_t p = first; p < end; ++p)
    text += std::to_string(p) + "\n";
  return text;
}

TEST(Manager, OneRankWritesInOrderThroughASmallWindow) {
  const Outcome run = run_job(0, 300, 4, 3);
  EXPECT_EQ(run.text, lines(0, 300));
  EXPECT_LE(run.peak, 4u);
  EXPECT_EQ(run.progress, 300u);
}

TEST(Manager, AResumedJobStartsAtItsFirstPosition) {
  const Outcome run = run_job(40, 90, 8, 2);
  EXPECT_EQ(run.text, lines(40, 90));
  EXPECT_EQ(run.progress, 50u);
}

TEST(Manager, AFailingWriterStopsTheJob) {
  try {
    run_job(0, 200, 16, 2, 50);
    FAIL() << "the writer's error was lost";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "disk full");
  }
}

TEST(Manager, AnEmptyJobAndTheEndOfARunWithoutWorkers) {
  EXPECT_EQ(run_job(5, 5, 4, 2).text, "");
  Manager manager(MPI_COMM_SELF, "sweep");
  const Ending ending = manager.finish(3);
  EXPECT_EQ(ending.code, 3);
  EXPECT_EQ(ending.failure, "");
}

}  // namespace
}  // namespace pipesim::sweep::mpi

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // MPI once for every test here: it cannot start again in a process once finalized.
  const pipesim::sweep::mpi::Session session(argc, argv);
  return RUN_ALL_TESTS();
}
