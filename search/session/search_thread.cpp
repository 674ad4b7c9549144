#include "search/session/search_thread.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "search/session/descent.h"
#include "support/check.h"

namespace sculpt::search {
namespace {

using spacegen::CandidateBase;
using spacegen::InstanceRef;

/// Adds the time from its construction to its destruction to a clock.
class Timed {
 public:
  explicit Timed(std::atomic<std::int64_t>& clock)
      : clock_(clock), start_(std::chrono::steady_clock::now()) {}
  ~Timed() {
    clock_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - start_)
                         .count(),
                     std::memory_order_relaxed);
  }
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  std::atomic<std::int64_t>& clock_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

std::optional<InstanceRef> SearchThread::next_decision(const CandidateBase& node) {
  Timed timed(context_.clocks.propagation_ns);
  return context_.order.next(node);
}

double SearchThread::bound(const CandidateBase& candidate) {
  if (context_.model == nullptr) return 0;
  Timed timed(context_.clocks.model_ns);
  return context_.model->bound(static_cast<const gpu_space::Candidate&>(candidate)).ns;
}

std::vector<Child> SearchThread::children(const CandidateBase& node, const InstanceRef& choice) {
  std::vector<Child> out;
  {
    Timed timed(context_.clocks.propagation_ns);
    for (std::uint32_t value : node.domain(choice)) {
      stop_if_asked();
      std::unique_ptr<CandidateBase> child = node.clone();
      if (child->restrict(choice, {value}) == spacegen::Status::Ok) {
        out.push_back({value, std::move(child), 0});
      }
    }
  }
  for (Child& c : out) c.bound_ns = bound(*c.candidate);
  return out;
}

void SearchThread::stop_if_asked() const {
  if (stoppable_ && context_.stop && context_.stop()) throw WalkStopped{};
}

std::unique_ptr<CandidateBase> SearchThread::random_descent(const CandidateBase& from) {
  stop_if_asked();
  Timed timed(context_.clocks.propagation_ns);
  return search::random_descent(from, rng_, &context_.order).candidate;
}

std::optional<std::size_t> SearchThread::pick_by_bound(std::span<const double> bounds,
                                                       std::span<const double> preference) {
  const double cut = this->cut();
  double largest = 0;
  for (double b : bounds) {
    if (b < cut) largest = std::max(largest, b);
  }
  std::vector<double> weights(bounds.size(), 0);
  double total = 0;
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    const double b = bounds[i];
    if (!(b < cut)) continue;
    double w = 1;
    if (std::isfinite(cut)) {
      w = std::max(1.0, std::floor(1000 * (1 - b / cut)));
    } else if (b > 0) {
      w = 1 + std::floor(10 * largest / b);
    }
    if (!preference.empty()) w *= preference[i];
    weights[i] = w;
    total += w;
  }
  if (!(total > 0)) return std::nullopt;
  double draw = std::uniform_real_distribution<double>(0, total)(rng_);
  std::size_t last = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0) continue;
    last = i;
    if (draw < weights[i]) return i;
    draw -= weights[i];
  }
  return last;  // rounding left `draw` at the total
}

std::unique_ptr<CandidateBase> SearchThread::rollout(std::unique_ptr<CandidateBase> node,
                                                     double* bound_ns, bool* pruned,
                                                     const ValuePreference* preference) {
  *pruned = false;
  while (const std::optional<InstanceRef> choice = next_decision(*node)) {
    pause_while_measuring();
    std::vector<Child> kids = children(*node, *choice);
    std::vector<double> bounds(kids.size());
    std::vector<double> preferred;
    for (std::size_t i = 0; i < kids.size(); ++i) {
      bounds[i] = kids[i].bound_ns;
      if (preference != nullptr) preferred.push_back(preference->weight(*choice, kids[i].value));
    }
    const std::optional<std::size_t> pick = pick_by_bound(bounds, preferred);
    if (!pick) {
      *pruned = !kids.empty();
      return nullptr;
    }
    *bound_ns = kids[*pick].bound_ns;
    node = std::move(kids[*pick].candidate);
  }
  return node;
}

std::vector<spacegen::Action> SearchThread::actions_to(const CandidateBase& candidate,
                                                       const CandidateBase& root) {
  Timed timed(context_.clocks.propagation_ns);
  std::vector<spacegen::Action> actions;
  const std::unique_ptr<CandidateBase> node = root.clone();
  while (const std::optional<InstanceRef> choice = context_.order.next(*node)) {
    const std::vector<std::uint32_t> value = candidate.domain(*choice);
    SCULPT_CHECK(value.size() == 1) << "a fully specified candidate has an open decision";
    actions.push_back(node->make_action(*choice, value));
    SCULPT_CHECK(node->restrict(*choice, value) == spacegen::Status::Ok)
        << "a candidate's own values conflict on replay";
  }
  return actions;
}

void SearchThread::pause_while_measuring() {
  Timed timed(context_.clocks.paused_ns);
  context_.evaluator.wait_while_measuring();
}

}  // namespace sculpt::search
