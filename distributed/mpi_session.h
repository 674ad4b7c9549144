#pragma once
// This process's place in an MPI job running a distributed search: MPI initialised for as long as
// the object lives, the rank and the job's size, the host, and the place among the evaluator ranks
// (all but rank 0) of the same node, which picks the GPU a rank measures on.
#include <string>

namespace sculpt::distributed {

class MpiSession {
 public:
  /// Initialises MPI for threads that take turns (rank 0 talks from a thread of its own) with
  /// errors returned, not fatal. Throws std::runtime_error when MPI cannot give that.
  MpiSession();
  /// Finalises MPI, unless abandon() was called.
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& host() const { return host_; }
  /// Among the ranks above 0 on this node, this one's place from 0 (-1 on rank 0).
  int local_evaluator() const { return local_evaluator_; }

  /// Ends without finalising MPI: the job is ending (a rank died, or mpirun was interrupted, and
  /// mpirun ends every rank), and MPI_Finalize would wait for ranks that are gone.
  void abandon() { abandoned_ = true; }

 private:
  int rank_ = 0;
  int size_ = 1;
  std::string host_;
  int local_evaluator_ = -1;
  bool abandoned_ = false;
};

}  // namespace sculpt::distributed
