#pragma once
// Whether an MPI launcher (mpirun, mpiexec, srun) started this process, read from the environment
// the launcher sets: before MPI is initialised, and in a build without MPI, which then refuses to
// take part rather than run one whole search per rank.
#include <optional>

namespace sculpt::distributed {

/// Whether this process is one rank of an MPI job.
bool launched_by_mpi();
/// This process's rank as its launcher gives it, when it does.
std::optional<int> launcher_rank();
/// Whether this sculpt was built with MPI (libopenmpi-dev).
bool mpi_support();

}  // namespace sculpt::distributed
