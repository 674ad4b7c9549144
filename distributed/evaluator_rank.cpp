#include "distributed/evaluator_rank.h"

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "device/cutoff.h"
#include "distributed/link.h"
#include "frontend/definition.h"
#include "search/session/problem.h"
#include "zoo/zoo.h"

namespace sculpt::distributed {
namespace {

struct Job {
  std::uint64_t id = 0;
  std::future<device::Evaluation> future;
};

/// The evaluator of the problem rank 0 named, or why there is none. A kernel of one's own is
/// kept in `defined`, which must outlive the evaluator (its problem's reference refers to it).
std::unique_ptr<search::CandidateEvaluator> open_problem(
    const ProblemMessage& problem, const RankDevice& device,
    std::optional<backbone::KernelInfo>& defined, std::string* refused) {
  if (!device.open) {
    *refused = device.error;
    return nullptr;
  }
  const backbone::KernelInfo* info = nullptr;
  backbone::Sizes sizes;
  if (problem.definition.empty()) {
    const zoo::ZooLookup lookup = zoo::lookup_kernel(problem.kernel, problem.sizes);
    *refused = lookup.error;
    info = lookup.info;
    sizes = lookup.sizes;
  } else {
    frontend::DefinitionLookup lookup = frontend::lookup_definition(
        problem.definition, problem.definition_file, problem.kernel, problem.sizes);
    *refused = lookup.error;
    defined = std::move(lookup.info);
    info = defined ? &*defined : nullptr;
    sizes = lookup.sizes;
  }
  if (info == nullptr) {
    if (refused->empty()) *refused = "rank 0 sent a definition without its sizes";
    return nullptr;
  }
  const backbone::Kernel kernel = info->build(sizes);
  try {
    return device.open(search::make_problem(*info, sizes, kernel, problem.seed));
  } catch (const device::DeviceError& e) {
    *refused = e.what();
    return nullptr;
  }
}

/// What became of a finished job.
EvaluationMessage answer(Job& job, const search::CandidateEvaluator& evaluator) {
  EvaluationMessage m;
  m.job = job.id;
  try {
    m.evaluation = job.future.get();
  } catch (const std::future_error&) {
    m.outcome = EvaluationMessage::Outcome::abandoned;
  } catch (const std::exception& e) {
    m.outcome = EvaluationMessage::Outcome::failed;
    m.error = e.what();
  }
  m.times = evaluator.times();
  return m;
}

}  // namespace

void serve(MpiSession& mpi, const RankDevice& device) {
  Link link;
  link.send(
      0, Tag::hello,
      encode(Hello{mpi.host(), device.name, device.architecture, device.model, device.error}));
  std::optional<backbone::KernelInfo> defined;
  std::unique_ptr<search::CandidateEvaluator> evaluator;
  std::string refused = "rank 0 sent no problem";
  // This rank's cutoff: the lower of the best times rank 0 sends and the best measured here, so
  // that each candidate is cut against every time this rank knows when its timing starts.
  std::shared_ptr<device::Cutoff> cutoff;
  std::vector<Job> jobs;
  for (bool stopping = false; !stopping;) {
    bool busy = false;
    while (!stopping) {
      std::optional<Message> m = link.poll();
      if (!m) break;
      busy = true;
      switch (m->tag) {
        case Tag::problem:
          evaluator = open_problem(decode_problem(m->bytes), device, defined, &refused);
          break;
        case Tag::submission: {
          SubmissionMessage s = decode_submission(m->bytes);
          if (!evaluator) {
            EvaluationMessage failed{s.job, EvaluationMessage::Outcome::failed, {}, refused, {}};
            link.send(0, Tag::evaluation, encode(failed));
            break;
          }
          if (s.cutoff && !cutoff) {
            cutoff = std::make_shared<device::Cutoff>(s.cutoff->factor, s.cutoff->best_ns);
          } else if (s.cutoff && s.cutoff->best_ns) {
            cutoff->lower(*s.cutoff->best_ns);
          }
          jobs.push_back({s.job, evaluator->submit(s.submission, s.cutoff ? cutoff : nullptr)});
          break;
        }
        case Tag::cancel:
          if (evaluator) evaluator->cancel_waiting();
          break;
        case Tag::stop:
          stopping = true;
          break;
        default:
          break;
      }
    }
    for (auto it = jobs.begin(); it != jobs.end();) {
      if (it->future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        ++it;
        continue;
      }
      link.send(0, Tag::evaluation, encode(answer(*it, *evaluator)));
      it = jobs.erase(it);
      busy = true;
    }
    if (!busy) {
      // A device timing on this machine's cores (the CPU) is not disturbed by polling.
      if (evaluator) evaluator->wait_while_measuring();
      std::this_thread::sleep_for(kPoll);
    }
  }
  // What is still under way is dropped: rank 0 no longer waits for it.
  jobs.clear();
  evaluator.reset();
  link.send(0, Tag::stopped);
  while (link.sending()) {
    link.poll();
    std::this_thread::sleep_for(kPoll);
  }
}

}  // namespace sculpt::distributed
