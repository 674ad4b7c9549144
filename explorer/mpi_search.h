#pragma once
// `sculpt search` started by mpirun (or another MPI launcher): rank 0 searches and writes the
// log, measuring its candidates on the other ranks (distributed/), each an evaluator with one
// device: its GPU, picked by its place among the evaluator ranks of its node, or the CPU.
#include <functional>

#include "explorer/search_run.h"

namespace sculpt::explorer {

/// Whether an MPI launcher started this process.
bool launched_by_mpi();

/// This process's part of the search `request` in an MPI job. Rank 0 runs `search` with the
/// request measuring on the other ranks and returns its exit code; the others serve it and
/// return 0, so that mpirun's exit code is rank 0's. Exits with 2 and one message (from rank 0)
/// when the ranks cannot search together, or when this sculpt was built without MPI.
int run_mpi_search(SearchRequest request, const std::function<int(const SearchRequest&)>& search);

}  // namespace sculpt::explorer
