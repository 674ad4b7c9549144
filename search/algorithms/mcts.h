#pragma once
// Monte-Carlo tree search over a space (the primary paper's section 5): a tree of partially
// specified candidates grows by one node per descent; below the tree, a rollout picks each
// child with a probability weighted by how far its bound is below the cut. A node keeps its
// bound and is ignored once the bound is at least the best time measured; a node whose children
// are all dead dies, one whose children are all dead or cut is cut until the cut rises (when the
// bound proves wrong and the cut widens past its error), and a fully specified one dies once
// proposed, so the search never proposes a leaf twice and ends when the root is dead or cut.
//
// Tree policies:
// - TAG, Threshold Ascent on Graph (the paper's default): each edge keeps the best `topk` times
//   of the candidates found through it; the threshold is the k-th best time among a node's
//   edges, and the edge maximising an upper confidence bound on its share of times under the
//   threshold is taken (Streeter and Smith's Threshold Ascent, with confidence `delta`).
// - UCT: the edge maximising best_time_of_all / best_time_of_edge + c sqrt(ln N / n).
// Under both, edges never visited are taken first, by the rollout rule; a visit counts when the
// descent passes, before its candidate is measured, so that concurrent descents spread out.
//
// Move statistics: decisions commute, so what a value of a decision is worth can be learnt from
// every candidate that holds it, wherever in the tree it was found (the move-average sampling of
// general game playing, MAST). For each (choice instance, value), the search keeps how many
// measured candidates held it and their best times; the rollout rule's weight of a child is
// multiplied by (p / base)^mast, where p is the share of its value's candidates among the
// node-independent topk best times (with a prior of two candidates at the base rate), and base
// is topk over the candidates measured. Below the tree, where TAG has no statistics, rollouts
// thus favour values that held good candidates elsewhere; `mast` 0 gives the paper's rule alone.
//
// Opening: before any time is measured, the bound is all a search knows, and the rollout rule
// (without a cut) barely prefers low bounds: a search's first candidates were often thousands of
// times slower than its best (on an H200, matmul 1024^3's first ran 10 s, until killed, of a
// 2-minute search; its best 0.15 ms). So until the first time comes, each proposal is the
// lowest bound of `opening` rollouts from the root; it feeds the move statistics and the best
// candidates, not the tree.
//
// Screening: once `screen_after` candidates are measured, a rollout is the one of `screen`
// rollouts from the same start that a model learnt from every measured time predicts fastest
// (additive_model.h: log time as a sum of one weight per feature of the code the candidate
// becomes, code_features.h), of those not evaluated before when any is (the search hears the
// time of a favourite evaluated before again). The move statistics weigh one decision at a time
// by the best few times; the model compares whole candidates by all of them, which the bound
// cannot do where it ties (on the CPU, most of matmul's space sits at the fp32 floor).
//
// Wide screening: a rollout from a tree node keeps the decisions above it, the first ones of the
// order, which make a candidate's family (on the CPU, its dimension mappings and memory spaces);
// the tree learns them from the times of the families it has measured only (six of sixteen
// searches of matmul 256x256x32 on the CPU never came within 10% of its best time by their
// 150th evaluation). Once screening has started, a share `wide` of the proposals are the one of
// `wide_screen` rollouts from the root that the model predicts fastest: the model reads the
// code, not the decisions, so it judges a family never measured by the loops that made others
// fast (with both, 12 and 14 of those sixteen came within 10% in two scans; with the code's
// features alone 9, with wide screening by a model of moves 10).
//
// Neighbours of the best: once `local_after` candidates are measured, a share `local` of the
// proposals start from one of the `topk` best candidates measured instead of the tree: its
// decisions (those a descent in the search's order takes) but one to three, chosen at random,
// replayed on the root, one of the dropped decisions kept off its old value, and a rollout
// completes the rest. A tree learns its first decisions well but rarely revisits the last ones of
// its best branches; a neighbour changes any decision of a good candidate while keeping what made
// it good (on the CPU, where the bound tells candidates apart least, MCTS's best came late and by
// luck without them). Neighbours feed the move statistics and the best candidates, not the tree.
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "search/model/features.h"
#include "search/session/algorithm.h"

namespace sculpt::search {

class MoveStatistics;

struct MctsOptions {
  enum class Policy { tag, uct };
  Policy policy = Policy::tag;
  /// TAG: times kept per edge, and the confidence of its bound.
  int topk = 10;
  double delta = 1;
  /// UCT: weight of the exploration term.
  double exploration = std::sqrt(2.0);
  /// The exponent of the move statistics' factor in rollouts; 0: none.
  double mast = 0.5;
  /// The share of proposals that are neighbours of the best candidates; 0: none. They start
  /// once `local_after` candidates are measured: the best of fewer are seldom worth staying near.
  double local = 0.25;
  int local_after = 50;
  /// Until a first time is measured, each proposal is the lowest bound of this many rollouts
  /// from the root; 1: the tree's, as after. Unset: the device's (device_defaults.h).
  std::optional<int> opening;
  /// Once `screen_after` candidates are measured, each rollout is the one of `screen` rollouts
  /// from its start that the learnt model (additive_model.h) predicts fastest; 1: none. Unset:
  /// the device's (device_defaults.h).
  std::optional<int> screen;
  int screen_after = 20;
  /// Once screening has started, the share of proposals screened from the root: the one of
  /// `wide_screen` rollouts from the root that the learnt model predicts fastest; 0: none.
  double wide = 0.25;
  int wide_screen = 32;
  /// The rollouts a screening compares (1 while `screen` is unset); above 1, the search learns
  /// the model.
  int screened() const { return screen.value_or(1); }
};

class Mcts final : public Algorithm {
 public:
  /// `features` (not owned) is what the learnt model reads; needed when `options` screen.
  Mcts(const spacegen::CandidateBase& root, SearchThread& thread, MctsOptions options = {},
       const Features* features = nullptr);
  ~Mcts() override;
  std::string_view name() const override { return "mcts"; }
  Proposal propose(SearchThread& thread) override;
  void observe(const Proposal& proposal, std::optional<double> time_ns) override;
  /// Grows the tree along a logged candidate's path as its descent did: one node.
  void recall(SearchThread& thread, const spacegen::CandidateBase& candidate,
              std::optional<double> time_ns) override;

  /// Nodes in the tree (tests and statistics).
  std::size_t size() const;

 private:
  struct Node;
  struct Edge;
  struct Memo;
  /// The edges a descent passed, root first.
  using Path = std::vector<Edge*>;

  /// Expands `node` (under `lock`, released while its children are computed).
  void expand(Node& node, SearchThread& thread, std::unique_lock<std::mutex>& lock);
  /// The edge the policy takes among `node`'s live ones; null when none is live.
  Edge* pick(Node& node, SearchThread& thread);
  static bool alive(const Node& node, double cut);
  void record(const Path& path, std::optional<double> time_ns);
  /// A neighbour of one of the best candidates (see above); nothing when none is known yet or
  /// the dice say to descend the tree.
  std::optional<Proposal> neighbour(SearchThread& thread);
  /// The opening's proposal (see above); nothing once a time is known, or when none of its
  /// rollouts found a candidate.
  std::optional<Proposal> opening(SearchThread& thread);
  /// A proposal of wide screening (see above); nothing before screening starts, or when the
  /// dice say to descend the tree.
  std::optional<Proposal> wide(SearchThread& thread);
  /// A rollout from `start` (whose bound is `bound_ns`) to the proposal it finds, with the
  /// move statistics' preference, screened among `draws` rollouts (0: as screening says),
  /// `memo` holding its candidate and moves.
  Proposal roll_out(SearchThread& thread, std::unique_ptr<spacegen::CandidateBase> start,
                    double bound_ns, std::shared_ptr<Memo> memo, int draws = 0);
  /// A rollout's proposal, and the favourite of its screening when that was evaluated before and
  /// a new candidate is proposed instead (`again`, its time `again_ns`).
  struct Screened;
  Screened roll_out(SearchThread& thread, std::unique_ptr<spacegen::CandidateBase> start,
                    double bound_ns, int draws);
  /// What a candidate's time teaches: the move statistics, the model, its tree path, the best.
  void learn(const Memo& memo, std::optional<double> time_ns);
  /// `p` with `memo` holding its candidate, its moves and, when the search learns a model, its
  /// features (those its screening computed, carried in `p.memo`, when it was screened).
  Proposal noted(Proposal p, std::shared_ptr<Memo> memo) const;
  /// Counts a measured candidate and keeps it among the best when it is (under mutex_).
  void remember(std::shared_ptr<const spacegen::CandidateBase> candidate, double time_ns);

  struct Best;

  MctsOptions options_;
  std::unique_ptr<MoveStatistics> moves_;
  /// The root as given, for replaying decisions on it.
  std::unique_ptr<spacegen::CandidateBase> root_candidate_;
  /// The best candidates measured, fastest first, at most topk (under mutex_).
  std::vector<std::shared_ptr<Best>> best_;
  std::size_t measured_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable expanded_;
  std::unique_ptr<Node> root_;
  std::size_t nodes_ = 1;
  double best_ns_;  // UCT's reference: the best time recorded
};

}  // namespace sculpt::search
