// `sculpt search`: searches implementations of a zoo kernel for one problem size on a device,
// logging every evaluation to DIR/log.jsonl and saving the best candidate's code in DIR.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "backbone/zoo/zoo.h"
#include "device/process.h"
#include "explorer/command.h"
#include "explorer/device_choice.h"
#include "explorer/stop_on_signal.h"
#include "search/device_description.h"
#include "search/problem.h"
#include "search/run_folder.h"
#include "search/session.h"
#include "support/check.h"
#include "support/duration.h"
#include "support/progress.h"

namespace sculpt::explorer {
namespace {

struct SearchCommandOptions {
  std::string kernel;
  std::string size;
  std::string device = "auto";
  std::string algorithm = "mcts";
  std::string policy = "tag";
  std::string order;
  int threads = 1;
  std::int64_t evals = 100;
  std::optional<std::string> budget;
  std::uint64_t seed = 1;
  double cutoff = 4;
  std::string out;
  bool resume = false;
  std::string description;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "sculpt search: %s\n", message.c_str());
  return kExitUsage;
}

/// " (3 ok, 1 timeout)", or nothing when nothing was evaluated.
std::string check_counts(const std::map<std::string, std::int64_t>& counts) {
  std::string out;
  for (const auto& [check, count] : counts)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", count, check);
  return out.empty() ? out : " (" + out + ")";
}

/// The session's options from the command's; nothing with a message for a malformed one.
std::optional<search::SessionOptions> session_options(const SearchCommandOptions& o,
                                                      std::string* error) {
  search::SessionOptions options;
  const std::optional<search::AlgorithmKind> algorithm = search::algorithm_from_string(o.algorithm);
  if (!algorithm) {
    *error = "unknown algorithm '" + o.algorithm + "' (known: mcts, bb, random)";
    return std::nullopt;
  }
  options.algorithm = *algorithm;
  options.mcts.policy =
      o.policy == "uct" ? search::MctsOptions::Policy::uct : search::MctsOptions::Policy::tag;
  if (!o.order.empty()) options.order = o.order;
  if (o.evals <= 0) {
    *error = "--evals must be positive";
    return std::nullopt;
  }
  options.evals = o.evals;
  if (o.threads < 1) {
    *error = "--threads must be at least 1";
    return std::nullopt;
  }
  options.threads = o.threads;
  if (o.cutoff != 0 && !(o.cutoff >= 1)) {
    *error = fmt::format("--cutoff {} is neither 0 (off) nor a factor of at least 1", o.cutoff);
    return std::nullopt;
  }
  options.cutoff = o.cutoff;
  if (o.budget) {
    const std::optional<double> budget = support::parse_duration(*o.budget);
    if (!budget) {
      *error = "malformed --budget '" + *o.budget +
               "' (expected numbers with s, m or h: 90s, 10m, 1h30m)";
      return std::nullopt;
    }
    options.budget = std::chrono::duration<double>(*budget);
  }
  options.seed = o.seed;
  return options;
}

int run_search(const SearchCommandOptions& o) {
  const backbone::ZooLookup lookup = backbone::lookup_kernel(o.kernel, o.size);
  if (!lookup.ok()) return fail(lookup.error);
  std::string error;
  std::optional<search::SessionOptions> options = session_options(o, &error);
  if (!options) return fail(error);
  std::unique_ptr<device::Evaluator> device = make_device(o.device, &error);
  if (!device) return fail(error);
  const std::optional<perf_model::Description> description =
      search::device_description(device->architecture(), o.description, &error);
  if (!description) return fail(error);

  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, description->limits);
  if (root->conflict()) {
    std::fprintf(stderr, "sculpt search: the space of %s is empty: %s\n", o.kernel.c_str(),
                 root->conflict()->to_string().c_str());
    return kExitNothingValid;
  }
  StopOnSignal stop;
  options->stop_requested = [&stop] { return stop.requested(); };
  const perf_model::Model model(kernel, *description);
  search::DeviceEvaluator evaluator(
      *device, search::make_problem(*lookup.info, lookup.sizes, kernel, o.seed));
  std::optional<search::Session> session;
  try {
    session.emplace(*root, evaluator, &model, *options);
  } catch (const std::invalid_argument& e) {
    return fail(e.what());
  }

  const std::string sizes = backbone::format_sizes(lookup.sizes);
  const std::filesystem::path dir = o.out.empty()
                                        ? std::filesystem::path("runs") / (o.kernel + "-" + sizes)
                                        : std::filesystem::path(o.out);
  search::RunFolder::Identity identity{{1, o.kernel, lookup.sizes.entries(), device->name(),
                                        root->table().model_hash, o.seed, o.algorithm},
                                       evaluator.language(),
                                       fmt::format("{} {} on {}", o.kernel, sizes, device->name())};
  // A resumed search replays its log into the session (the tree, the cut, what was measured)
  // and mends the best file if a crash left it behind the log.
  std::optional<search::RunFolder> folder;
  try {
    if (o.resume) {
      folder.emplace(search::RunFolder::resume(
          dir, identity, [&](const search::LogEvaluation& e, std::size_t) {
            std::string why;
            session->recall(e.id, e.actions, e.check == "ok" ? e.time_ns : std::nullopt, &why);
            return why;
          }));
      if (folder->best_code_stale()) {
        const std::unique_ptr<spacegen::CandidateBase> best = root->clone();
        SCULPT_CHECK(best->apply(folder->best()->actions) == spacegen::Status::Ok)
            << "a recalled candidate does not replay";
        folder->write_best_code(search::kernel_code(static_cast<const gpu_space::Candidate&>(*best),
                                                    evaluator.language(), "candidate"));
      }
    } else {
      folder.emplace(search::RunFolder::create(dir, identity));
    }
  } catch (const std::runtime_error& e) {
    return fail(e.what());
  }
  const std::int64_t logged = folder->evaluations();
  if (o.resume && o.evals <= logged) {
    std::fprintf(stderr,
                 "sculpt search: the log holds %lld evaluations, --evals asks for %lld in all: "
                 "nothing to evaluate (raise --evals to go on)\n",
                 static_cast<long long>(logged), static_cast<long long>(o.evals));
  }

  search::SessionStats stats;
  std::string search_error;
  {
    // Scoped: the bar ends its line before the summary or an error is printed.
    support::Progress progress(o.evals);
    try {
      stats = session->run([&](search::Evaluated&& e) {
        folder->record(e);
        const auto& best = folder->best();
        progress.update(
            folder->evaluations(),
            best ? fmt::format("best {} (#{})", support::format_ns(*best->time_ns), best->id)
                 : std::string("no valid candidate yet"));
      });
      folder->record(stats);
    } catch (const device::DeviceError& e) {
      search_error = std::string("the device failed: ") + e.what();
    } catch (const std::runtime_error& e) {
      search_error = e.what();  // the log cannot be written
    }
  }
  if (!search_error.empty()) return fail(search_error);

  fmt::print(
      "{}: {} evaluated{}, {} dead end{}{}{}; log {}\n", identity.what, folder->evaluations(),
      check_counts(folder->counts()), stats.dead_ends, stats.dead_ends == 1 ? "" : "s",
      stats.cut_short > 0 ? fmt::format(", {} cut short past {:g}x the best time ({} killed)",
                                        stats.cut_short, o.cutoff, stats.killed)
                          : std::string(),
      stats.abandoned > 0 ? fmt::format(", {} left unrun at the {}", stats.abandoned,
                                        stop.requested() ? "interruption" : "budget")
                          : std::string(),
      folder->log_path().string());
  fmt::print("{}\n", stats.summary());
  const std::optional<search::LogEvaluation>& best = folder->best();
  if (!best) {
    fmt::print("no valid candidate{}\n",
               stats.exhausted ? " (the space holds no other candidate below the cut)" : "");
  } else {
    const auto [scale, unit] = support::duration_unit(*best->time_ns);
    const std::optional<std::filesystem::path> code = folder->best_code_path();
    fmt::print("best: candidate {}, {} (spread {:.2g} {} over {} runs){}\n", best->id,
               support::format_ns(*best->time_ns), best->spread_ns / scale, unit, best->runs,
               code ? fmt::format(", code in {}", code->string()) : "");
  }
  if (stop.requested()) {
    std::fprintf(stderr, "sculpt search: interrupted by %s; --resume continues the search\n",
                 device::describe_signal(stop.signal()).c_str());
    return kExitInterrupted + stop.signal();
  }
  return best ? kExitOk : kExitNothingValid;
}

}  // namespace

Command add_search_command(CLI::App& sculpt) {
  auto o = std::make_shared<SearchCommandOptions>();
  CLI::App* app = sculpt.add_subcommand("search", "Search implementations of a zoo kernel");
  app->add_option("--kernel", o->kernel, "Kernel of the zoo (see `sculpt kernels`)")->required();
  add_size_option(*app, o->size);
  app->add_option("--device", o->device, "auto (the GPU when one answers), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  app->add_option("--algorithm", o->algorithm,
                  "Search algorithm: mcts (Monte-Carlo tree search), bb (branch-and-bound in bound "
                  "order) or random (uniform descents)")
      ->capture_default_str();
  app->add_option("--policy", o->policy, "MCTS tree policy: tag (Threshold Ascent) or uct")
      ->check(CLI::IsMember({"tag", "uct"}))
      ->capture_default_str();
  app->add_option("--order", o->order,
                  fmt::format("Choices decided first, in order, separated by commas (default on "
                              "a GPU: {}; on the CPU: {})",
                              search::DecisionOrder::kDefault, search::DecisionOrder::kDefaultCpu));
  app->add_option("--threads", o->threads, "Searching threads")->capture_default_str();
  app->add_option("--evals", o->evals, "Candidates to evaluate (in total, when resuming)")
      ->transform(decimal_int64())
      ->capture_default_str();
  app->add_option("--budget", o->budget,
                  "Wall-clock budget: 90s, 10m, 1h30m (a Ctrl-C also stops the search; --resume "
                  "continues it)");
  add_seed_option(*app, o->seed, "Seed of the search and of the input data");
  app->add_option("--cutoff", o->cutoff,
                  "Stop timing a candidate once its runs average over this many times the best "
                  "time so far, and kill a run that lasts 10 times that (0: time each fully)")
      ->capture_default_str();
  app->add_option("--out", o->out, "Run folder (default runs/KERNEL-SIZE)")
      ->check(not_empty("runs/KERNEL-SIZE"));
  app->add_flag("--resume", o->resume, "Continue the log in the run folder");
  app->add_option("--description", o->description,
                  "Device description the lower bounds use: a shipped one (sm_90, cpu) or a file "
                  "(default: sm_90 on a GPU; on the CPU, this machine's, measured once)");
  return Command{app, [o] { return run_search(*o); }};
}

}  // namespace sculpt::explorer
