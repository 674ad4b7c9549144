#include "distributed/mpi_session.h"

#include <fmt/format.h>
#include <mpi.h>

#include <stdexcept>

#include "support/error.h"

namespace sculpt::distributed {

MpiSession::MpiSession() {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
    throw Error(Error::Kind::environment, "MPI cannot start (MPI_Init_thread failed)");
  }
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw Error(Error::Kind::environment,
                "this MPI library does not let threads take turns (MPI_THREAD_SERIALIZED)");
  }
  // A failed call returns its error, which the caller turns into a message, rather than abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  host_.assign(name, static_cast<std::size_t>(length));
  // The ranks sharing this node's memory, then those of them that measure, in rank order.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm evaluators = MPI_COMM_NULL;
  MPI_Comm_split(node, rank_ == 0 ? MPI_UNDEFINED : 0, rank_, &evaluators);
  if (evaluators != MPI_COMM_NULL) {
    MPI_Comm_rank(evaluators, &local_evaluator_);
    MPI_Comm_free(&evaluators);
  }
  MPI_Comm_free(&node);
}

MpiSession::~MpiSession() {
  if (!abandoned_) MPI_Finalize();
}

}  // namespace sculpt::distributed
