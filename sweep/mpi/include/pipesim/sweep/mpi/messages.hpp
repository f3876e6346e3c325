#pragma once
// The five messages between rank 0 (the manager) and the other ranks (the workers), all on the
// session's own communicator:
//
//   worker → 0  Hello    i32 jobs, text command line: its check-in, ready to evaluate on `jobs`
//                        threads the rows of that command line (rank 0 refuses another one)
//   worker → 0  Rows     u64 n, n × (u64 position, row): the rows of its last block, and a
//                        request for the next
//   worker → 0  Left     i32 exit status, text message: it stopped without serving to the end
//                        (an error, or a command that never evaluates rows, such as --help)
//   0 → worker  Block    u64 begin, u64 end: positions to evaluate
//   0 → worker  Stop     i32 exit status: the run is over; the status every rank exits with
//
// A worker always owes rank 0 exactly one message (Hello or Left first, then Rows or Left after
// every Block), so rank 0 can end the run at any moment by receiving what each worker owes and
// answering Stop: no rank is left waiting, and MPI_Abort is not needed.

#include <mpi.h>

#include <optional>
#include <string>
#include <string_view>

namespace pipesim::sweep::mpi {

enum class Tag : int { Hello = 1, Rows = 2, Left = 3, Block = 4, Stop = 5 };

struct Message {
  int source = 0;
  Tag tag = Tag::Hello;
  std::string bytes;
};

//! argv[1..] as Hello carries it: the arguments joined by '\0'.
std::string command_line(int argc, const char* const* argv);

void send(MPI_Comm comm, int dest, Tag tag, std::string_view bytes);

//! The next message from `source` (or MPI_ANY_SOURCE) if one has arrived.
std::optional<Message> poll(MPI_Comm comm, int source = MPI_ANY_SOURCE);

//! Waits for the next message from `source`. It polls with short sleeps rather than blocking in
//! MPI_Recv, which in Open MPI spins a core: a waiting rank would take CPU from the ranks still
//! evaluating on the same machine.
Message receive(MPI_Comm comm, int source);

//! Sleeps between polls: 20 µs at first, doubling up to 500 µs while nothing happens, so a busy
//! exchange is answered at once and an idle rank costs next to nothing.
class Backoff {
 public:
  void wait();
  void reset() { sleep_us_ = kFirstUs; }

 private:
  static constexpr int kFirstUs = 20;
  static constexpr int kMostUs = 500;
  int sleep_us_ = kFirstUs;
};

}  // namespace pipesim::sweep::mpi
