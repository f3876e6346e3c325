#include "pipesim/sweep/mpi/session.hpp"

#include <cstdlib>
#include <initializer_list>
#include <string_view>

namespace pipesim::sweep::mpi {

bool launched_by_mpi() {
  if (const char* opt = std::getenv("PIPESIM_MPI"); opt != nullptr && std::string_view(opt) == "0")
    return false;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

Session::Session(int& argc, char**& argv) {
  // FUNNELED: only the main thread calls MPI; rank 0's evaluation threads never do.
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
}

Session::~Session() {
  MPI_Comm_free(&comm_);
  MPI_Finalize();
}

}  // namespace pipesim::sweep::mpi
