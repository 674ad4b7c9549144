#include "distributed/evaluator_pool.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <thread>

#include "support/check.h"

namespace sculpt::distributed {

EvaluatorPool::EvaluatorPool(MpiSession& mpi) : mpi_(mpi) {
  SCULPT_CHECK(mpi.rank() == 0 && mpi.size() >= 2) << "rank 0 of a job with evaluator ranks";
  for (int rank = 1; rank < mpi.size(); ++rank) ranks_.push_back({rank, ""});
  std::vector<std::pair<int, Hello>> hellos;
  try {
    while (hellos.size() < ranks_.size()) {
      Message m = link_.receive();
      if (m.tag == Tag::hello) hellos.emplace_back(m.source, decode_hello(m.bytes));
    }
  } catch (const std::runtime_error& e) {  // LinkError, WireError
    refusal_ = fmt::format("the evaluator ranks cannot be heard: {}", e.what());
    broken_->store(true);
    return;
  }
  std::sort(hellos.begin(), hellos.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [rank, hello] : hellos) ranks_[rank - 1].host = hello.host;
  refusal_ = refusal_of(hellos);
  device_ = hellos.front().second;
}

std::string EvaluatorPool::refusal_of(const std::vector<std::pair<int, Hello>>& hellos) {
  std::vector<std::string> missing;
  for (const auto& [rank, hello] : hellos) {
    if (!hello.error.empty())
      missing.push_back(fmt::format("rank {} on {}: {}", rank, hello.host, hello.error));
  }
  if (!missing.empty()) {
    return fmt::format("{} without a device: {}",
                       missing.size() == 1 ? "an evaluator rank is" : "evaluator ranks are",
                       fmt::join(missing, "; "));
  }
  // The ranks of each device, in the order of their first rank.
  std::vector<std::pair<std::string, std::vector<std::string>>> devices;
  for (const auto& [rank, hello] : hellos) {
    const std::string device =
        hello.name == hello.model ? hello.name : fmt::format("{} ({})", hello.name, hello.model);
    auto it = std::find_if(devices.begin(), devices.end(),
                           [&](const auto& d) { return d.first == device; });
    if (it == devices.end()) it = devices.insert(devices.end(), {device, {}});
    it->second.push_back(fmt::format("{} on {}", rank, hello.host));
  }
  if (devices.size() == 1) {
    const std::string& name = hellos.front().second.name;
    if (device::kind_named(name)) return "";
    return fmt::format("the evaluator ranks measure on a device this sculpt does not know: {} ({})",
                       name, device::kind_names());
  }
  std::vector<std::string> groups;
  for (const auto& [device, ranks] : devices) {
    groups.push_back(
        fmt::format("rank{} {}: {}", ranks.size() == 1 ? "" : "s", fmt::join(ranks, ", "), device));
  }
  return fmt::format(
      "the evaluator ranks measure on different devices ({}): one search measures on one kind of "
      "device, one GPU model or CPUs only",
      fmt::join(groups, "; "));
}

EvaluatorPool::~EvaluatorPool() {
  if (broken_->load()) {
    mpi_.abandon();
    return;
  }
  try {
    for (const EvaluatorRank& r : ranks_) link_.send(r.rank, Tag::stop);
    std::set<int> running;
    for (const EvaluatorRank& r : ranks_) running.insert(r.rank);
    // Evaluations still coming (a search that failed with candidates in flight) are dropped.
    while (!running.empty() || link_.sending()) {
      if (std::optional<Message> m = link_.poll()) {
        if (m->tag == Tag::stopped) running.erase(m->source);
        continue;
      }
      std::this_thread::sleep_for(kPoll);
    }
  } catch (const LinkError&) {
    mpi_.abandon();
  }
}

std::unique_ptr<search::CandidateEvaluator> EvaluatorPool::open(const ProblemMessage& problem) {
  const std::string bytes = encode(problem);
  for (const EvaluatorRank& r : ranks_) link_.send(r.rank, Tag::problem, bytes);
  return std::make_unique<MpiEvaluator>(link_, ranks_, device_kind(), broken_);
}

device::Kind EvaluatorPool::device_kind() const {
  const std::optional<device::Kind> kind = device::kind_named(device_.name);
  SCULPT_CHECK(kind) << "a pool with a refusal has no device";
  return *kind;
}

}  // namespace sculpt::distributed
