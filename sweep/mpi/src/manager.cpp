#include "pipesim/sweep/mpi/manager.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "pipesim/core/assert.hpp"
#include "pipesim/sweep/mpi/block_queue.hpp"
#include "pipesim/sweep/mpi/wire.hpp"
#include "pipesim/sweep/thread_pool.hpp"

namespace pipesim::sweep::mpi {
namespace {

// The first position the job's reorder window cannot take yet (none: the job's end).
size_t horizon(const RowJob& job) {
  return job.window != nullptr ? job.window->horizon() : job.end;
}

}  // namespace

Manager::Manager(MPI_Comm comm, std::string command) : comm_(comm), command_(std::move(command)) {
  int size = 1;
  MPI_Comm_size(comm_, &size);
  peers_.resize(static_cast<size_t>(size));
}

RemoteError Manager::failure(int rank) const {
  const Peer& peer = peers_[static_cast<size_t>(rank)];
  const int code = peer.code != 0 ? peer.code : 1;
  if (peer.message.empty()) {
    return RemoteError(code, fmt::format("rank {}: stopped before evaluating its rows (exit "
                                         "status {})",
                                         rank, peer.code));
  }
  return RemoteError(code, fmt::format("rank {}: {}", rank, peer.message));
}

size_t Manager::take(const Message& message, const RowJob* job) {
  Peer& peer = peers_[static_cast<size_t>(message.source)];
  PIPESIM_ASSERT(peer.state == State::Owing, "a worker sends only what it owes");
  WireReader in(message.bytes);
  switch (message.tag) {
    case Tag::Hello: {
      peer.jobs = in.i32();
      const std::string command = in.text();
      peer.state = State::Waiting;
      if (command == command_) return 0;
      // Another command's rows would be rows of other positions: refused before any is asked.
      const auto shown = [](std::string text) {
        std::replace(text.begin(), text.end(), '\0', ' ');
        return text;
      };
      peer.state = State::Left;
      peer.code = 2;
      peer.message = fmt::format(
          "command line: runs 'pipesim {}' where rank 0 runs 'pipesim {}': every rank must run "
          "the same command",
          shown(command), shown(command_));
      return 0;
    }
    case Tag::Rows: {
      peer.state = State::Waiting;
      const size_t rows = in.u64();
      for (size_t i = 0; i < rows; ++i) {
        const size_t position = in.u64();
        scenario::SweepRow row = in.row();
        if (job != nullptr) job->put(position, std::move(row));
      }
      return rows;
    }
    case Tag::Left:
      peer.state = State::Left;
      peer.code = in.i32();
      peer.message = in.text();
      return 0;
    default:
      PIPESIM_ASSERT(false, "a worker sends Hello, Rows or Left");
      return 0;
  }
}

void Manager::receive_owed(const RowJob* job) {
  for (size_t rank = 1; rank < peers_.size(); ++rank) {
    if (peers_[rank].state != State::Owing) continue;
    take(receive(comm_, static_cast<int>(rank)), job);
  }
}

void Manager::run(const RowJob& job) {
  // Every worker has parsed the same command line and loaded the same files by now, or says
  // why not: no work is handed out before all of them accepted the input. (A later job finds
  // every worker waiting: the last one ended once all its rows had come back.)
  receive_owed(nullptr);
  for (size_t rank = 1; rank < peers_.size(); ++rank) {
    if (peers_[rank].state == State::Left) throw failure(static_cast<int>(rank));
  }
  const size_t total = job.end > job.first ? job.end - job.first : 0;
  size_t threads = static_cast<size_t>(std::max(job.jobs, 1));
  for (size_t rank = 1; rank < peers_.size(); ++rank)
    threads += static_cast<size_t>(peers_[rank].jobs);

  // Shared with the local evaluation thread: the queue under the mutex, the count atomically.
  std::mutex mutex;
  BlockQueue queue(job.first, job.end, threads);
  std::atomic<size_t> done{0};
  std::exception_ptr local_error;
  const auto next_block = [&](int jobs) {
    const std::lock_guard lock(mutex);
    return queue.take(jobs, horizon(job));
  };
  // The workers have waited longest: their first blocks go out before this rank takes any, so
  // every worker evaluates some rows however the threads here are scheduled.
  hand_out(next_block);
  // This rank's share: blocks from the same queue, evaluated on job.jobs threads. Destroyed
  // (stopped and joined) before anything above it, on every way out of run().
  std::jthread local([&](const std::stop_token& stop) {
    try {
      Backoff backoff;
      while (!stop.stop_requested()) {
        const Block block = next_block(job.jobs);
        if (block.empty()) {
          {
            const std::lock_guard lock(mutex);
            if (queue.exhausted()) return;
          }
          backoff.wait();  // the window is full: an earlier row, elsewhere, is still running
          continue;
        }
        backoff.reset();
        parallel_for(block.size(), job.jobs, [&](size_t k) {
          if (stop.stop_requested()) return;
          const size_t position = block.begin + k;
          job.put(position, job.make_row(position));
          done.fetch_add(1);
        });
      }
    } catch (...) {
      const std::lock_guard lock(mutex);
      local_error = std::current_exception();
    }
  });

  using Clock = std::chrono::steady_clock;
  auto reported = Clock::now();
  Backoff idle;
  for (;;) {
    bool moved = false;
    while (auto message = poll(comm_)) {
      const size_t rows = take(*message, &job);
      if (message->tag == Tag::Left) throw failure(message->source);
      done.fetch_add(rows);
      moved = true;
    }
    {
      const std::lock_guard lock(mutex);
      if (local_error) std::rethrow_exception(local_error);
    }
    moved = hand_out(next_block) || moved;
    if (done.load() >= total) break;
    if (job.on_progress && Clock::now() - reported > std::chrono::milliseconds(200)) {
      job.on_progress(done.load());
      reported = Clock::now();
    }
    if (moved) {
      idle.reset();
    } else {
      idle.wait();
    }
  }
  local.join();
  if (local_error) std::rethrow_exception(local_error);
  if (job.on_progress) job.on_progress(done.load());
}

bool Manager::hand_out(const std::function<Block(int jobs)>& next_block) {
  bool sent = false;
  for (size_t rank = 1; rank < peers_.size(); ++rank) {
    Peer& peer = peers_[rank];
    if (peer.state != State::Waiting) continue;
    const Block block = next_block(peer.jobs);
    if (block.empty()) continue;  // nothing left, or the window is full: it waits
    WireWriter out;
    out.u64(block.begin);
    out.u64(block.end);
    send(comm_, static_cast<int>(rank), Tag::Block, out.bytes());
    peer.state = State::Owing;
    sent = true;
  }
  return sent;
}

Ending Manager::finish(int code) {
  receive_owed(nullptr);
  Ending ending{code, ""};
  for (size_t rank = 1; rank < peers_.size() && ending.code == 0; ++rank) {
    const Peer& peer = peers_[rank];
    if (peer.state == State::Left && peer.code != 0) {
      const RemoteError error = failure(static_cast<int>(rank));
      ending = {error.code(), error.what()};
    }
  }
  WireWriter stop;
  stop.i32(ending.code);
  for (size_t rank = 1; rank < peers_.size(); ++rank) {
    if (peers_[rank].state == State::Stopped) continue;
    send(comm_, static_cast<int>(rank), Tag::Stop, stop.bytes());
    peers_[rank].state = State::Stopped;
  }
  return ending;
}

}  // namespace pipesim::sweep::mpi
