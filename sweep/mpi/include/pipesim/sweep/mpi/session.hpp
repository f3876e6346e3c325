#pragma once
// MPI for the length of one pipesim run. A plain `pipesim sweep` never initialises MPI (it would
// cost a launch and, started outside mpirun, may try to spawn a runtime); MPI starts only when a
// launcher started this process, which launched_by_mpi() tells from the environment.

#include <mpi.h>

namespace pipesim::sweep::mpi {

//! Whether an MPI launcher started this process: Open MPI's mpirun (OMPI_COMM_WORLD_SIZE),
//! Hydra-based ones (MPICH, Intel MPI, MVAPICH: PMI_SIZE) or a PMIx launcher (PMIX_RANK: Open MPI
//! 5, srun --mpi=pmix). Read before MPI_Init, which is called only when this is true. Not with
//! PIPESIM_MPI=0: a pipesim that an MPI program starts inherits its launcher's variables, and
//! must not join that program's job.
bool launched_by_mpi();

//! MPI_Init_thread in the constructor, MPI_Finalize in the destructor, and a communicator of
//! pipesim's own (a duplicate of MPI_COMM_WORLD), so its messages never meet another library's.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  //! Ranks on this machine (MPI_COMM_TYPE_SHARED), which share its hardware threads.
  int local_size() const { return local_size_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int local_size_ = 1;
};

}  // namespace pipesim::sweep::mpi
