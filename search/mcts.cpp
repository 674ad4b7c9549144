#include "search/mcts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <shared_mutex>
#include <unordered_map>

#include "codegen/lower.h"
#include "search/additive_model.h"
#include "search/code_features.h"
#include "search/descent.h"
#include "support/check.h"
#include "support/hash.h"

namespace sculpt::search {

using spacegen::CandidateBase;
using spacegen::InstanceRef;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Of several walks, the one of least score (a walk that found no candidate scores infinity; of
/// those, the last is kept, to say why none found one); the others count as set aside, with
/// those they had set aside themselves (a screened rollout among the opening's).
class LeastWalk {
 public:
  void offer(Proposal p, double score) {
    if (kept_ && !(score < score_ || (std::isinf(score) && std::isinf(score_)))) {
      set_aside_.count(p);
      return;
    }
    if (kept_) set_aside_.count(*kept_);
    kept_ = std::move(p);
    score_ = score;
  }
  bool found() const { return kept_ && kept_->candidate; }
  Proposal take() {
    kept_->set_aside.add(set_aside_);
    return std::move(*kept_);
  }

 private:
  std::optional<Proposal> kept_;
  double score_ = kInfinity;
  Proposal::Walks set_aside_;
};

/// A move: a choice instance and one of its values.
std::uint64_t move_key(const InstanceRef& instance, std::uint32_t value) {
  std::uint64_t h = support::mix64(instance.choice + 1);
  for (spacegen::ObjectId o : instance.objects) h = support::mix64(h ^ (o + 0x9e3779b97f4a7c15ULL));
  return support::mix64(h ^ value);
}

/// The moves of a fully specified candidate: every decided instance with its value.
std::vector<std::uint64_t> moves_of(const CandidateBase& candidate) {
  std::vector<std::uint64_t> moves;
  for (const InstanceRef& instance : candidate.live_instances()) {
    if (candidate.table().choices[instance.choice].kind == spacegen::ChoiceKind::Counter) continue;
    const std::vector<std::uint32_t> value = candidate.domain(instance);
    if (value.size() == 1) moves.push_back(move_key(instance, value[0]));
  }
  return moves;
}

/// The learnt model's features of a fully specified candidate: the code it becomes.
std::vector<std::uint64_t> features_of(const CandidateBase& candidate) {
  const auto& c = static_cast<const gpu_space::Candidate&>(candidate);
  return code_features(codegen::lower(c), c.backbone().kernel());
}

/// Increasing times, at most `k`: inserts `t` and drops the largest beyond k.
void keep_best(std::vector<double>& times, double t, std::size_t k) {
  times.insert(std::upper_bound(times.begin(), times.end(), t), t);
  if (times.size() > k) times.pop_back();
}

}  // namespace

/// What the measured candidates' moves tell: the move statistics (MAST: for each move, the
/// candidates measured that held it and their best times, and the best times of all), and, when
/// screening asks it (`learn`), the learnt model of their times, fitted to every time
/// (candidates found again included), which a search without screening would pay for nothing.
class Mcts::Moves final : public ValuePreference {
 public:
  Moves(std::size_t topk, double exponent, bool learn)
      : topk_(topk), exponent_(exponent), learn_(learn) {}

  double weight(const InstanceRef& choice, std::uint32_t value) const override {
    std::shared_lock lock(mutex_);
    if (measured_ < topk_) return 1;  // no best times to tell moves apart yet
    const double threshold = best_.back();
    const double base = static_cast<double>(topk_) / static_cast<double>(measured_);
    double held = 0, good = 0;
    if (const auto it = stats_.find(move_key(choice, value)); it != stats_.end()) {
      held = it->second.held;
      good = static_cast<double>(
          std::upper_bound(it->second.best.begin(), it->second.best.end(), threshold) -
          it->second.best.begin());
    }
    constexpr double kPrior = 2;  // candidates at the base rate, for a move seldom measured
    const double share = (good + kPrior * base) / (held + kPrior);
    return std::pow(share / base, exponent_);
  }

  /// A measured candidate: its moves and, when learning, its features (features_of).
  void record(const std::vector<std::uint64_t>& moves, const std::vector<std::uint64_t>& features,
              double time_ns) {
    std::unique_lock lock(mutex_);
    ++measured_;
    keep_best(best_, time_ns, topk_);
    for (std::uint64_t m : moves) {
      Stats& s = stats_[m];
      ++s.held;
      keep_best(s.best, time_ns, topk_);
    }
    if (learn_) model_.add(features, time_ns);
  }

  /// A candidate evaluated (its hash) and its time, if it checked ok: the session never
  /// measures it again.
  void evaluated(std::uint64_t hash, std::optional<double> time_ns) {
    std::unique_lock lock(mutex_);
    evaluated_.try_emplace(hash, time_ns);
  }
  /// Whether the candidate of `hash` was evaluated, with its time in `*time_ns`.
  bool was_evaluated(std::uint64_t hash, std::optional<double>* time_ns) const {
    std::shared_lock lock(mutex_);
    const auto it = evaluated_.find(hash);
    if (it == evaluated_.end()) return false;
    *time_ns = it->second;
    return true;
  }

  bool learns() const { return learn_; }
  /// What the model reads of `candidate` (features_of) when there is a model, nothing otherwise.
  std::vector<std::uint64_t> features(const CandidateBase& candidate) const {
    return learn_ ? features_of(candidate) : std::vector<std::uint64_t>{};
  }
  /// The learnt model's log time for a candidate of `features`.
  double predict(const std::vector<std::uint64_t>& features) const {
    std::shared_lock lock(mutex_);
    SCULPT_CHECK(learn_) << "a model asked that was not learnt";
    return model_.predict(features);
  }
  std::size_t measured() const {
    std::shared_lock lock(mutex_);
    return measured_;
  }

 private:
  struct Stats {
    double held = 0;
    std::vector<double> best;
  };
  std::size_t topk_;
  double exponent_;
  bool learn_;
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, Stats> stats_;
  std::unordered_map<std::uint64_t, std::optional<double>> evaluated_;
  std::vector<double> best_;
  std::size_t measured_ = 0;
  AdditiveModel model_;
};

/// What a descent leaves in its proposal: the edges it passed, its candidate, its moves and, when
/// the search learns a model, its features.
struct Mcts::Memo {
  Path path;
  std::shared_ptr<const CandidateBase> candidate;
  std::vector<std::uint64_t> moves;
  std::vector<std::uint64_t> features;
};

struct Mcts::Screened {
  Proposal proposal;
  std::optional<Memo> again;
  std::optional<double> again_ns;
};

/// One of the best candidates measured, with its decisions once a neighbour needed them.
struct Mcts::Best {
  double time_ns = 0;
  std::shared_ptr<const CandidateBase> candidate;
  std::mutex mutex;
  std::vector<spacegen::Action> decisions;
};

struct Mcts::Node {
  /// Kept until the node is expanded: its children then hold what the search needs.
  std::unique_ptr<CandidateBase> candidate;
  double bound_ns = 0;
  enum class State { fresh, expanding, expanded };
  State state = State::fresh;
  /// Nothing below it is left to propose: a dead end, a candidate proposed, or dead children.
  bool dead = false;
  /// The cut at which every child was found dead or cut: the node stays cut while the cut is
  /// at most this (the cut only decreases, unless the bound proves wrong and the cut widens).
  double cut_at = 0;
  /// The decision its edges take; nothing for a fully specified candidate.
  std::optional<InstanceRef> decision;
  std::vector<Edge> edges;
};

struct Mcts::Edge {
  std::uint32_t value = 0;
  std::unique_ptr<Node> child;
  int visits = 0;
  /// The best times measured below it, increasing, at most topk (TAG).
  std::vector<double> top;
  double best_ns = kInfinity;
};

/// Whether a descent may still find a candidate below `cut` under `node`.
bool Mcts::alive(const Node& node, double cut) {
  return !node.dead && node.bound_ns < cut && cut > node.cut_at;
}

Mcts::Mcts(const CandidateBase& root, SearchThread& thread, MctsOptions options)
    : options_(options),
      moves_(std::make_unique<Moves>(static_cast<std::size_t>(options.topk), options.mast,
                                     options.screened() > 1)),
      root_candidate_(root.clone()),
      root_(std::make_unique<Node>()),
      best_ns_(kInfinity) {
  root_->candidate = root.clone();
  root_->bound_ns = thread.bound(root);
}

Mcts::~Mcts() = default;

std::size_t Mcts::size() const {
  std::lock_guard lock(mutex_);
  return nodes_;
}

void Mcts::expand(Node& node, SearchThread& thread, std::unique_lock<std::mutex>& lock) {
  node.state = Node::State::expanding;
  std::unique_ptr<CandidateBase> candidate = std::move(node.candidate);
  lock.unlock();
  thread.pause_while_measuring();
  std::optional<InstanceRef> decision = thread.next_decision(*candidate);
  std::vector<Child> children;
  try {
    if (decision) children = thread.children(*candidate, *decision);
  } catch (const WalkStopped&) {
    // The session stops: the node is fresh again, for whichever walk reaches it next.
    lock.lock();
    node.candidate = std::move(candidate);
    node.state = Node::State::fresh;
    expanded_.notify_all();
    throw;
  }
  lock.lock();
  node.decision = std::move(decision);
  node.edges.reserve(children.size());
  for (Child& c : children) {
    Edge edge;
    edge.value = c.value;
    edge.child = std::make_unique<Node>();
    edge.child->candidate = std::move(c.candidate);
    edge.child->bound_ns = c.bound_ns;
    node.edges.push_back(std::move(edge));
  }
  nodes_ += children.size();
  // A fully specified node was proposed by the rollout that reached it first; one without valid
  // children is a dead end.
  if (node.edges.empty()) node.dead = true;
  node.state = Node::State::expanded;
  // The root of a space with a single candidate is proposed here, once.
  if (!node.decision && &node == root_.get()) node.candidate = std::move(candidate);
  expanded_.notify_all();
}

double Mcts::tag_score(const Edge& edge, double threshold, int visits, int live) const {
  if (edge.visits == 0) return kInfinity;
  const auto successes = static_cast<double>(
      std::upper_bound(edge.top.begin(), edge.top.end(), threshold) - edge.top.begin());
  const double alpha =
      std::max(0.0, std::log(2.0 * static_cast<double>(visits) * live / options_.delta));
  return (successes + alpha + std::sqrt(alpha * (2 * successes + alpha))) / edge.visits;
}

Mcts::Edge* Mcts::pick(Node& node, SearchThread& thread) {
  const double cut = thread.cut();
  std::vector<Edge*> live;
  for (Edge& e : node.edges) {
    if (alive(*e.child, cut)) live.push_back(&e);
  }
  if (live.empty()) return nullptr;
  std::vector<Edge*> unvisited;
  std::vector<double> bounds;
  for (Edge* e : live) {
    if (e->visits == 0) {
      unvisited.push_back(e);
      bounds.push_back(e->child->bound_ns);
    }
  }
  if (!unvisited.empty()) {
    std::vector<double> preferred;
    if (options_.mast > 0) {
      for (Edge* e : unvisited) preferred.push_back(moves_->weight(*node.decision, e->value));
    }
    return unvisited[*thread.pick_by_bound(bounds, preferred)];
  }

  int visits = 0;
  for (const Edge* e : live) visits += e->visits;
  std::vector<double> scores(live.size());
  if (options_.policy == MctsOptions::Policy::tag) {
    // The threshold: the topk-th best time of the node's live edges (of all of them when fewer).
    std::vector<double> times;
    for (const Edge* e : live) times.insert(times.end(), e->top.begin(), e->top.end());
    double threshold = kInfinity;
    if (!times.empty()) {
      const std::size_t k = std::min(times.size(), static_cast<std::size_t>(options_.topk)) - 1;
      std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(k), times.end());
      threshold = times[k];
    }
    for (std::size_t i = 0; i < live.size(); ++i) {
      scores[i] = tag_score(*live[i], threshold, visits, static_cast<int>(live.size()));
    }
  } else {
    for (std::size_t i = 0; i < live.size(); ++i) {
      const Edge& e = *live[i];
      const double value = std::isfinite(e.best_ns) ? best_ns_ / e.best_ns : 0;
      scores[i] = value + options_.exploration * std::sqrt(std::log(visits) / e.visits);
    }
  }
  return live[static_cast<std::size_t>(std::max_element(scores.begin(), scores.end()) -
                                       scores.begin())];
}

Proposal Mcts::propose(SearchThread& thread) {
  if (std::optional<Proposal> o = opening(thread)) return std::move(*o);
  if (std::optional<Proposal> n = neighbour(thread)) return std::move(*n);
  if (std::optional<Proposal> w = wide(thread)) return std::move(*w);
  Proposal p;
  std::unique_lock lock(mutex_);
  for (;;) {
    if (!alive(*root_, thread.cut())) {
      p.kind = Proposal::Kind::exhausted;
      return p;
    }
    auto memo = std::make_shared<Memo>();
    Path* path = &memo->path;
    Node* node = root_.get();
    for (;;) {
      if (node->state == Node::State::fresh) {
        expand(*node, thread, lock);
        if (node == root_.get() && node->candidate) {  // a space of one candidate
          p.kind = Proposal::Kind::candidate;
          p.candidate = std::move(node->candidate);
          p.bound_ns = node->bound_ns;
          node->dead = true;
          return noted(std::move(p), std::move(memo));
        }
      }
      if (node->state == Node::State::expanding) {
        expanded_.wait(lock, [node] { return node->state != Node::State::expanding; });
        if (node->state == Node::State::fresh) continue;  // its expansion was stopped
      }
      const double cut = thread.cut();
      if (!alive(*node, cut)) break;
      Edge* edge = pick(*node, thread);
      if (edge == nullptr) {
        // Every child is dead or cut: so is this node.
        const bool all_dead = std::all_of(node->edges.begin(), node->edges.end(),
                                          [](const Edge& e) { return e.child->dead; });
        if (all_dead) {
          node->dead = true;
        } else {
          node->cut_at = cut;
        }
        break;
      }
      path->push_back(edge);
      if (edge->visits++ == 0) {
        // A new node: a rollout from it finds the candidate.
        std::unique_ptr<CandidateBase> start = edge->child->candidate->clone();
        const double bound_ns = edge->child->bound_ns;
        lock.unlock();
        return roll_out(thread, std::move(start), bound_ns, std::move(memo));
      }
      node = edge->child.get();
    }
  }
}

void Mcts::record(const Path& path, std::optional<double> time_ns) {
  if (!time_ns) return;
  best_ns_ = std::min(best_ns_, *time_ns);
  for (Edge* e : path) {
    e->best_ns = std::min(e->best_ns, *time_ns);
    e->top.insert(std::upper_bound(e->top.begin(), e->top.end(), *time_ns), *time_ns);
    if (e->top.size() > static_cast<std::size_t>(options_.topk)) e->top.pop_back();
  }
}

void Mcts::observe(const Proposal& proposal, std::optional<double> time_ns) {
  const auto memo = std::static_pointer_cast<Memo>(proposal.memo);
  if (memo) learn(*memo, time_ns);
}

void Mcts::learn(const Memo& memo, std::optional<double> time_ns) {
  if (memo.candidate) moves_->evaluated(memo.candidate->hash(), time_ns);
  if (time_ns) moves_->record(memo.moves, memo.features, *time_ns);
  std::lock_guard lock(mutex_);
  record(memo.path, time_ns);
  if (time_ns && memo.candidate) remember(memo.candidate, *time_ns);
}

void Mcts::remember(std::shared_ptr<const CandidateBase> candidate, double time_ns) {
  ++measured_;
  const auto at = std::upper_bound(best_.begin(), best_.end(), time_ns,
                                   [](double t, const auto& b) { return t < b->time_ns; });
  if (at - best_.begin() >= options_.topk) return;
  auto entry = std::make_shared<Best>();
  entry->time_ns = time_ns;
  entry->candidate = std::move(candidate);
  best_.insert(at, std::move(entry));
  if (best_.size() > static_cast<std::size_t>(options_.topk)) best_.pop_back();
}

std::optional<Proposal> Mcts::opening(SearchThread& thread) {
  {
    std::lock_guard lock(mutex_);
    if (options_.opening.value_or(1) <= 1 || measured_ > 0) return {};
  }
  const double bound_ns = thread.bound(*root_candidate_);
  LeastWalk lowest;
  for (int i = 0; i < *options_.opening; ++i) {
    Proposal p = roll_out(thread, root_candidate_->clone(), bound_ns, 0).proposal;
    const double bound = p.candidate ? p.bound_ns : kInfinity;
    lowest.offer(std::move(p), bound);
  }
  if (!lowest.found()) return {};
  return noted(lowest.take(), std::make_shared<Memo>());
}

std::optional<Proposal> Mcts::neighbour(SearchThread& thread) {
  std::shared_ptr<Best> from;
  {
    std::lock_guard lock(mutex_);
    if (options_.local <= 0 || measured_ < static_cast<std::size_t>(options_.local_after))
      return {};
    if (std::uniform_real_distribution<double>(0, 1)(thread.rng()) >= options_.local) return {};
    // The best itself half of the time, else any of the best few.
    const bool fastest = std::uniform_int_distribution<int>(0, 1)(thread.rng()) == 0;
    from = best_[fastest ? 0
                         : std::uniform_int_distribution<std::size_t>(
                               0, best_.size() - 1)(thread.rng())];
  }
  std::vector<spacegen::Action> decisions;
  {
    std::lock_guard lock(from->mutex);
    if (from->decisions.empty()) {
      from->decisions = thread.actions_to(*from->candidate, *root_candidate_);
    }
    decisions = from->decisions;
  }
  if (decisions.empty()) return {};
  // Drop one to three decisions; the first dropped is kept off its old value.
  const std::size_t n = decisions.size();
  const std::size_t drops =
      std::min<std::size_t>(n, 1 + std::uniform_int_distribution<std::size_t>(0, 2)(thread.rng()));
  std::vector<bool> dropped(n, false);
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < drops;) {
    const std::size_t i = std::uniform_int_distribution<std::size_t>(0, n - 1)(thread.rng());
    if (dropped[i]) continue;
    dropped[i] = true;
    order.push_back(i);
    ++k;
  }
  thread.pause_while_measuring();
  std::vector<spacegen::Action> kept;
  for (std::size_t i = 0; i < n; ++i) {
    if (!dropped[i]) kept.push_back(decisions[i]);
  }
  // Decisions on objects that a dropped one created (a lowering) no longer name anything; a
  // subset of a candidate's decisions cannot conflict: propagation is sound.
  Replay replay = replay_what_applies(*root_candidate_, kept);
  SCULPT_CHECK(replay.refused == 0) << "a subset of a candidate's decisions conflicts";
  std::unique_ptr<CandidateBase> start = std::move(replay.candidate);
  std::string unresolved;
  if (const auto old = start->resolve(decisions[order[0]], &unresolved);
      old && start->is_live(old->first)) {
    std::vector<std::uint32_t> others = start->domain(old->first);
    std::erase_if(others, [&](std::uint32_t v) {
      return std::find(old->second.begin(), old->second.end(), v) != old->second.end();
    });
    if (!others.empty()) {
      std::unique_ptr<CandidateBase> moved = start->clone();
      if (moved->restrict(old->first, others) != spacegen::Status::Conflict) {
        start = std::move(moved);
      }
    }
  }
  const double bound_ns = thread.bound(*start);
  return roll_out(thread, std::move(start), bound_ns, std::make_shared<Memo>());
}

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
      drawn->features = features_of(*p.candidate);
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

void Mcts::recall(SearchThread& thread, const CandidateBase& candidate,
                  std::optional<double> time_ns) {
  moves_->evaluated(candidate.hash(), time_ns);
  if (time_ns) {
    moves_->record(moves_of(candidate), moves_->features(candidate), *time_ns);
  }
  std::unique_lock lock(mutex_);
  if (time_ns) remember(candidate.clone(), *time_ns);
  Path path;
  Node* node = root_.get();
  for (;;) {
    if (node->state == Node::State::fresh) expand(*node, thread, lock);
    if (!node->decision) break;
    const std::vector<std::uint32_t> values = candidate.domain(*node->decision);
    const auto edge = std::find_if(node->edges.begin(), node->edges.end(), [&](const Edge& e) {
      return values.size() == 1 && e.value == values[0];
    });
    if (edge == node->edges.end()) break;
    path.push_back(&*edge);
    if (edge->visits++ == 0) break;
    node = edge->child.get();
  }
  record(path, time_ns);
}

}  // namespace sculpt::search
