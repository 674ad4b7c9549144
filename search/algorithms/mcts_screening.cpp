// MCTS's rollouts and their screening by the learnt model (mcts.h): each rollout the one of
// several the model predicts fastest, and wide screening from the root.
#include <limits>
#include <random>

#include "search/algorithms/least_walk.h"
#include "search/algorithms/mcts_nodes.h"
#include "search/algorithms/move_statistics.h"
#include "search/session/descent.h"

namespace sculpt::search {

using spacegen::CandidateBase;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

std::optional<Proposal> Mcts::wide(SearchThread& thread) {
  {
    std::lock_guard lock(mutex_);
    if (options_.wide <= 0 || !moves_->learns() ||
        measured_ < static_cast<std::size_t>(options_.screen_after))
      return {};
    if (std::uniform_real_distribution<double>(0, 1)(thread.rng()) >= options_.wide) return {};
  }
  thread.pause_while_measuring();
  const double bound_ns = thread.bound(*root_candidate_);
  return roll_out(thread, root_candidate_->clone(), bound_ns, std::make_shared<Memo>(),
                  options_.wide_screen);
}

Proposal Mcts::roll_out(SearchThread& thread, std::unique_ptr<CandidateBase> start, double bound_ns,
                        std::shared_ptr<Memo> memo, int draws) {
  Screened screened = roll_out(thread, std::move(start), bound_ns, draws);
  if (screened.again) {
    screened.again->path = memo->path;
    learn(*screened.again, screened.again_ns);
  }
  return noted(std::move(screened.proposal), std::move(memo));
}

Mcts::Screened Mcts::roll_out(SearchThread& thread, std::unique_ptr<CandidateBase> start,
                              double bound_ns, int draws) {
  const ValuePreference* preference = options_.mast > 0 ? moves_.get() : nullptr;
  if (draws == 0) {
    draws = moves_->measured() >= static_cast<std::size_t>(options_.screen_after)
                ? options_.screened()
                : 1;
  }
  // A candidate evaluated before ranks after every new one: the session would not measure it
  // again, only tell its time again, and the model, which learnt that time, predicts the best
  // of them fastest (a stand-in search of matmul 1024^3 found 26 candidates again per
  // evaluation, a thousand walks per evaluation). Where one is the favourite, the search hears
  // its time again, as the session would have told it.
  constexpr double kEvaluatedBefore = 1e6;  // log times differ by tens at most
  Screened out;
  double favourite = kInfinity;
  bool found_new = false;
  LeastWalk fastest;
  for (int i = 0; i < draws; ++i) {
    Proposal p = rollout_proposal(thread, i + 1 < draws ? start->clone() : std::move(start),
                                  bound_ns, preference);
    double score = 0;
    if (!p.candidate) {
      score = kInfinity;
    } else if (draws > 1) {
      // The features go with the draw (its memo), so that noted() need not compute them again.
      auto drawn = std::make_shared<Memo>();
      drawn->features = moves_->features(*p.candidate);
      score = moves_->predict(drawn->features);
      std::optional<double> time_ns;
      const bool again = moves_->was_evaluated(p.candidate->hash(), &time_ns);
      if (score < favourite) {
        favourite = score;
        out.again.reset();
        if (again) {
          out.again = Memo{{}, p.candidate->clone(), moves_of(*p.candidate), drawn->features};
          out.again_ns = time_ns;
        }
      }
      if (again) score += kEvaluatedBefore;
      found_new = found_new || !again;
      p.memo = std::move(drawn);
    }
    fastest.offer(std::move(p), score);
  }
  // Where every draw was evaluated before, the favourite is proposed: the session tells its time.
  if (!found_new) out.again.reset();
  out.proposal = fastest.take();
  return out;
}

Proposal Mcts::noted(Proposal p, std::shared_ptr<Memo> memo) const {
  if (p.candidate) {
    memo->moves = moves_of(*p.candidate);
    // A screened rollout brings the features its screening computed.
    const auto drawn = std::static_pointer_cast<Memo>(p.memo);
    memo->features = drawn ? std::move(drawn->features) : moves_->features(*p.candidate);
    memo->candidate = p.candidate->clone();
  }
  p.memo = std::move(memo);
  return p;
}

}  // namespace sculpt::search
