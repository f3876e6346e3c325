#include "pipesim/sweep/mpi/messages.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <thread>

namespace pipesim::sweep::mpi {

std::string command_line(int argc, const char* const* argv) {
  std::string line;
  for (int i = 1; i < argc; ++i) {
    if (i > 1) line += '\0';
    line += argv[i];
  }
  return line;
}

void send(MPI_Comm comm, int dest, Tag tag, std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw std::length_error("pipesim MPI message over 2 GiB");  // blocks are far smaller
  }
  // MPI_Send does not write the buffer; the C API predates const.
  MPI_Send(const_cast<char*>(bytes.data()), static_cast<int>(bytes.size()), MPI_BYTE, dest,
           static_cast<int>(tag), comm);
}

std::optional<Message> poll(MPI_Comm comm, int source) {
  int arrived = 0;
  MPI_Status status;
  MPI_Iprobe(source, MPI_ANY_TAG, comm, &arrived, &status);
  if (arrived == 0) return std::nullopt;
  int size = 0;
  MPI_Get_count(&status, MPI_BYTE, &size);
  Message message;
  message.source = status.MPI_SOURCE;
  message.tag = static_cast<Tag>(status.MPI_TAG);
  message.bytes.resize(static_cast<size_t>(size));
  MPI_Recv(message.bytes.data(), size, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm,
           MPI_STATUS_IGNORE);
  return message;
}

Message receive(MPI_Comm comm, int source) {
  Backoff backoff;
  for (;;) {
    if (auto message = poll(comm, source)) return std::move(*message);
    backoff.wait();
  }
}

void Backoff::wait() {
  std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
  sleep_us_ = std::min(2 * sleep_us_, kMostUs);
}

}  // namespace pipesim::sweep::mpi
