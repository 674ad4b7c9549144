#include "search/algorithms/mcts.h"

#include <algorithm>
#include <limits>

#include "search/algorithms/mcts_nodes.h"
#include "search/algorithms/move_statistics.h"
#include "search/algorithms/tree_policy.h"
#include "support/check.h"

namespace sculpt::search {

using spacegen::CandidateBase;
using spacegen::InstanceRef;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

/// Whether a descent may still find a candidate below `cut` under `node`.
bool Mcts::alive(const Node& node, double cut) {
  return !node.dead && node.bound_ns < cut && cut > node.cut_at;
}

Mcts::Mcts(const CandidateBase& root, SearchThread& thread, MctsOptions options,
           const Features* features)
    : options_(options),
      moves_(std::make_unique<MoveStatistics>(static_cast<std::size_t>(options.topk), options.mast,
                                              options.screened() > 1 ? features : nullptr)),
      root_candidate_(root.clone()),
      root_(std::make_unique<Node>()),
      best_ns_(kInfinity) {
  SCULPT_CHECK(options.screened() <= 1 || features) << "screening without a model's features";
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
  std::vector<EdgeStats> stats;
  for (const Edge* e : live) stats.push_back({e->visits, &e->top, e->best_ns});
  return live[pick_visited(options_, stats, best_ns_)];
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
