#include "pipesim/sweep/mpi/worker.hpp"

#include <vector>

#include "pipesim/core/assert.hpp"
#include "pipesim/sweep/mpi/block_queue.hpp"
#include "pipesim/sweep/mpi/messages.hpp"
#include "pipesim/sweep/mpi/wire.hpp"
#include "pipesim/sweep/thread_pool.hpp"

namespace pipesim::sweep::mpi {

int Worker::serve(const MakeRow& make_row, int jobs) {
  PIPESIM_ASSERT(owing_ && !verdict_, "a worker serves once");
  WireWriter message;  // first the check-in, then the rows of each block
  message.i32(jobs);
  message.text(command_);
  Tag tag = Tag::Hello;
  for (;;) {
    send(comm_, 0, tag, message.bytes());
    owing_ = false;
    const Message reply = receive(comm_, 0);
    WireReader in(reply.bytes);
    if (reply.tag == Tag::Stop) {
      verdict_ = in.i32();
      return *verdict_;
    }
    PIPESIM_ASSERT(reply.tag == Tag::Block, "rank 0 sends blocks and the end");
    owing_ = true;
    Block block;
    block.begin = in.u64();
    block.end = in.u64();
    std::vector<scenario::SweepRow> rows(block.size());
    parallel_for(rows.size(), jobs, [&](size_t k) { rows[k] = make_row(block.begin + k); });
    message = WireWriter{};
    message.u64(rows.size());
    for (size_t k = 0; k < rows.size(); ++k) {
      message.u64(block.begin + k);
      message.row(rows[k]);
    }
    tag = Tag::Rows;
  }
}

int Worker::finish(int code, const std::string& message) {
  if (verdict_) return *verdict_;
  for (;;) {
    if (owing_) {
      WireWriter left;
      left.i32(code);
      left.text(message);
      send(comm_, 0, Tag::Left, left.bytes());
      owing_ = false;
    }
    const Message reply = receive(comm_, 0);
    if (reply.tag == Tag::Stop) {
      verdict_ = WireReader(reply.bytes).i32();
      return *verdict_;
    }
    owing_ = true;  // a block sent before rank 0 knew: answered with Left like the others
  }
}

}  // namespace pipesim::sweep::mpi
