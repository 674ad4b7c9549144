#pragma once
// What a search algorithm plugs into a Session: it proposes fully specified candidates, walking
// the space with a SearchThread's tools (children with their bounds, rollouts, the cut), and
// hears what became of each one. The session owns everything else: the evaluator, ids, the cut,
// the budget, the log, statistics.
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "search/session/search_thread.h"

namespace sculpt::search {

struct Proposal {
  enum class Kind {
    /// A fully specified candidate whose bound was below the cut when it was found.
    candidate,
    /// The walk reached a candidate with no valid child (propagation had not seen the conflict).
    dead_end,
    /// The walk found nothing below the cut (a leaf whose bound is not below it, or every branch
    /// it tried cut).
    pruned,
    /// Nothing is left to propose: every candidate of the space was proposed or cut.
    exhausted,
  };
  Kind kind = Kind::dead_end;
  std::unique_ptr<spacegen::CandidateBase> candidate;
  double bound_ns = 0;
  /// The algorithm's own record of how it found the candidate, given back to observe().
  std::shared_ptr<void> memo;
  /// The other walks the algorithm took and set aside for this one (MCTS's opening and
  /// screening choose among several), by how they ended: the statistics count them too.
  struct Walks {
    int candidates = 0;
    int dead_ends = 0;
    int pruned = 0;
    /// Counts `p`'s walk and those it had set aside.
    void count(const Proposal& p) {
      (p.kind == Kind::candidate ? candidates : p.kind == Kind::dead_end ? dead_ends : pruned) += 1;
      add(p.set_aside);
    }
    void add(const Walks& other) {
      candidates += other.candidates;
      dead_ends += other.dead_ends;
      pruned += other.pruned;
    }
    int total() const { return candidates + dead_ends + pruned; }
  };
  Walks set_aside;
};

/// The proposal a rollout from `start` (whose bound is `bound_ns`) finds: its candidate, or why
/// it found none. `preference` weighs values as SearchThread::rollout says.
inline Proposal rollout_proposal(SearchThread& thread,
                                 std::unique_ptr<spacegen::CandidateBase> start, double bound_ns,
                                 const ValuePreference* preference = nullptr) {
  Proposal p;
  p.bound_ns = bound_ns;
  bool pruned = false;
  p.candidate = thread.rollout(std::move(start), &p.bound_ns, &pruned, preference);
  p.kind = p.candidate ? Proposal::Kind::candidate
           : pruned    ? Proposal::Kind::pruned
                       : Proposal::Kind::dead_end;
  return p;
}

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual std::string_view name() const = 0;
  /// The next candidate. Called by every searching thread, concurrently.
  virtual Proposal propose(SearchThread& thread) = 0;
  /// What became of a proposed candidate: its time when it checked ok, nothing otherwise.
  virtual void observe(const Proposal& proposal, std::optional<double> time_ns) = 0;
  /// A candidate the algorithm did not propose: one evaluated before this session started (a
  /// resumed search's log, in log order, before any propose()), or a start the session
  /// evaluated first (SessionOptions::starts; concurrently with propose()).
  virtual void recall(SearchThread& /*thread*/, const spacegen::CandidateBase& /*candidate*/,
                      std::optional<double> /*time_ns*/) {}
};

}  // namespace sculpt::search
