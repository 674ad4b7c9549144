// `sculpt search`: searches implementations of a zoo kernel, or of a kernel defined in the
// Tensor Comprehensions notation (--def, --expr), for one problem size on a device, logging every
// evaluation to DIR/log.jsonl and saving the best candidate's code in DIR.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>

#include "device/process.h"
#include "explorer/command.h"
#include "explorer/mpi_search.h"
#include "explorer/search_progress.h"
#include "explorer/search_run.h"
#include "explorer/stop_on_signal.h"
#include "frontend/definition.h"
#include "search/session/device_defaults.h"
#include "search/session/session.h"
#include "search/session/stand_in_device.h"
#include "support/duration.h"
#include "support/error.h"

namespace sculpt::explorer {
namespace {

constexpr std::int64_t kDefaultEvals = 100;

struct SearchCommandOptions {
  std::string kernel;
  /// A file of definitions, or one definition (frontend/LANGUAGE.md).
  std::string def;
  std::string expr;
  std::string size;
  std::string device = "auto";
  std::string algorithm = "mcts";
  std::string policy = "tag";
  double local = search::MctsOptions{}.local;
  double wide = search::MctsOptions{}.wide;
  /// Left out: the session's default for the device.
  std::optional<int> screen;
  std::string order;
  int threads = 1;
  /// Left out: 100, or as many as the budget allows when there is one.
  std::optional<std::int64_t> evals;
  std::optional<std::string> budget;
  std::uint64_t seed = 1;
  double cutoff = 4;
  std::string out;
  bool resume = false;
  std::string description;
  std::vector<std::string> start_from;
  /// With --device stand-in.
  std::optional<std::string> stand_in_latency;
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
  for (const auto& [flag, share] : {std::pair{"--local", o.local}, std::pair{"--wide", o.wide}}) {
    if (!(share >= 0 && share <= 1)) {
      *error = fmt::format("{} {} is not a share between 0 and 1", flag, share);
      return std::nullopt;
    }
  }
  options.mcts.local = o.local;
  options.mcts.wide = o.wide;
  if (o.screen && *o.screen < 1) {
    *error = "--screen must be at least 1";
    return std::nullopt;
  }
  options.mcts.screen = o.screen;
  if (!o.order.empty()) options.order = o.order;
  if (o.evals && *o.evals <= 0) {
    *error = "--evals must be positive";
    return std::nullopt;
  }
  options.evals = o.evals    ? *o.evals
                  : o.budget ? std::numeric_limits<std::int64_t>::max()
                             : kDefaultEvals;
  if (o.threads < 1 || o.threads > search::SessionOptions::kMaxThreads) {
    *error = fmt::format("--threads must be between 1 and {}", search::SessionOptions::kMaxThreads);
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
    if (*budget <= 0) {
      *error = "--budget must be positive, not '" + *o.budget + "'";
      return std::nullopt;
    }
    options.budget = std::chrono::duration<double>(*budget);
  }
  options.seed = o.seed;
  return options;
}

/// The stand-in device's latency; nothing with a message for a malformed one, or one given for
/// another device.
std::optional<std::chrono::microseconds> stand_in_latency(const SearchCommandOptions& o,
                                                          std::string* error) {
  if (!o.stand_in_latency) return std::chrono::microseconds(0);
  if (device::kind_named(o.device) != device::Kind::stand_in) {
    *error = "--stand-in-latency is for --device stand-in only";
    return std::nullopt;
  }
  const std::optional<double> seconds = support::parse_duration(*o.stand_in_latency);
  if (!seconds || !(*seconds <= 3600)) {
    *error = "malformed --stand-in-latency '" + *o.stand_in_latency +
             "' (expected a duration of an hour at most: 200ms, 1s)";
    return std::nullopt;
  }
  return std::chrono::microseconds(std::llround(*seconds * 1e6));
}

/// "as many evaluations as asked", "the budget (2m)": what ended a search, in words.
std::string stopped_by(const search::SessionStats& stats, const SearchCommandOptions& o) {
  if (stats.stopped_by == "budget") return "the budget (" + *o.budget + ")";
  if (stats.stopped_by == "exhausted") return "the space, exhausted below the cut";
  if (stats.stopped_by == "stop") return "an interruption";
  return o.evals ? fmt::format("--evals {}", *o.evals)
                 : fmt::format("{} evaluations (the default --evals)", kDefaultEvals);
}

/// Runs the search `request` and prints its outcome: the whole command in one process, rank 0's
/// part under mpirun.
int search_and_report(const SearchCommandOptions& o, SearchRequest request) {
  StopOnSignal stop;
  request.session.stop_requested = [&stop] { return stop.requested(); };
  const search::SessionOptions& options = request.session;
  SearchOutcome outcome;
  std::string what;
  try {
    SearchRun run(request);
    run.open_folder();
    what = run.what();
    if (o.resume && options.evals <= run.logged()) {
      std::fprintf(stderr,
                   "sculpt search: the log holds %lld evaluations, --evals asks for %lld in all: "
                   "nothing to evaluate (raise --evals to go on)\n",
                   static_cast<long long>(run.logged()), static_cast<long long>(options.evals));
    }
    // Scoped: the progress line ends before the summary or an error is printed.
    SearchProgress progress(options.evals, run.logged(), options.budget);
    outcome = run.run([&](const SearchProgressState& state) { progress.update(state); });
  } catch (const Error& e) {
    if (e.kind() == Error::Kind::interrupted) {
      std::fprintf(stderr, "sculpt search: interrupted by %s %s; nothing was evaluated\n",
                   device::describe_signal(stop.signal()).c_str(), e.what());
      return kExitInterrupted + stop.signal();
    }
    std::fprintf(stderr, "sculpt search: %s\n", e.what());
    return e.exit_code();
  }

  const search::SessionStats& stats = outcome.stats;
  fmt::print(
      "{}: {} evaluated{}, {} dead end{}{}{}; stopped by {}\n", what, outcome.evaluations,
      check_counts(outcome.counts), stats.dead_ends, stats.dead_ends == 1 ? "" : "s",
      stats.cut_short > 0
          ? fmt::format(", {} cut short past {:g}x the best time ({} killed{})", stats.cut_short,
                        o.cutoff, stats.killed,
                        stats.sampled > 0 ? fmt::format(", {} of them by a sample", stats.sampled)
                                          : std::string())
          : std::string(),
      stats.abandoned > 0 ? fmt::format(", {} left unrun at the {}", stats.abandoned,
                                        stop.requested() ? "interruption" : "budget")
                          : std::string(),
      stopped_by(stats, o));
  fmt::print("{}\n", stats.summary());
  const std::optional<search::LogEvaluation>& best = outcome.best;
  if (!best) {
    fmt::print("no valid candidate{}\n",
               stats.exhausted ? " (the space holds no other candidate below the cut)" : "");
  } else {
    const auto [scale, unit] = support::duration_unit(*best->time_ns);
    fmt::print("best: candidate {}, {} (spread {:.2g} {} over {} runs){}\n", best->id,
               support::format_ns(*best->time_ns), best->spread_ns / scale, unit, best->runs,
               outcome.best_code_path
                   ? fmt::format(", code in {}", outcome.best_code_path->string())
                   : "");
  }
  fmt::print("log: {}\n", outcome.log.string());
  if (outcome.report) {
    fmt::print("report: {}\n", outcome.report->string());
  } else {
    std::fprintf(stderr, "sculpt search: no report: %s\n", outcome.report_error.c_str());
  }
  if (stop.requested()) {
    std::fprintf(stderr, "sculpt search: interrupted by %s; --resume continues the search\n",
                 device::describe_signal(stop.signal()).c_str());
    return kExitInterrupted + stop.signal();
  }
  return best ? kExitOk : kExitNothingValid;
}

int run_search(const SearchCommandOptions& o) {
  std::string error;
  const std::optional<search::SessionOptions> options = session_options(o, &error);
  if (!options) return fail(error);
  const std::optional<std::chrono::microseconds> latency = stand_in_latency(o, &error);
  if (!latency) return fail(error);
  SearchRequest request{o.kernel, o.size, o.device, o.description,
                        *options, o.out,  o.resume, {o.start_from.begin(), o.start_from.end()},
                        *latency};
  if (!o.def.empty()) {
    const std::optional<std::string> text = frontend::read_definition_file(o.def, &error);
    if (!text) return fail(error);
    request.definition = *text;
    request.definition_file = o.def;
  } else if (!o.expr.empty()) {
    request.definition = o.expr;
    request.definition_file = "--expr";
  } else if (o.kernel.empty()) {
    return fail("--kernel, --def or --expr is required");
  }
  if (launched_by_mpi()) {
    return run_mpi_search(std::move(request),
                          [&o](const SearchRequest& r) { return search_and_report(o, r); });
  }
  return search_and_report(o, std::move(request));
}

}  // namespace

Command add_search_command(CLI::App& sculpt) {
  auto o = std::make_shared<SearchCommandOptions>();
  CLI::App* app = sculpt.add_subcommand("search", "Search implementations of a kernel");
  app->add_option("--kernel", o->kernel,
                  "Kernel of the zoo (see `sculpt kernels`), or the definition of --def to search");
  CLI::Option* def = app->add_option("--def", o->def,
                                     "File of kernel definitions in the Tensor Comprehensions "
                                     "notation (frontend/LANGUAGE.md); --size gives the sizes by "
                                     "name: M=256,N=256,K=32");
  app->add_option("--expr", o->expr, "One kernel definition, as in --def")->excludes(def);
  add_size_option(*app, o->size)
      ->description(
          "Problem size: 1024x1024x1024 for a zoo kernel (default: its sizes), M=256,N=256,K=32 "
          "for a definition");
  app->add_option("--device", o->device,
                  "auto (the GPU when one answers), cpu or cuda; stand-in (no device: each "
                  "candidate's time a function of its bound, for tests and benchmarks). Under "
                  "mpirun, the device of every rank but 0, which searches")
      ->check(CLI::IsMember({"auto", "cpu", "cuda", "stand-in"}))
      ->capture_default_str();
  app->add_option("--stand-in-latency", o->stand_in_latency,
                  "With --device stand-in: how long each evaluation takes (200ms; default 0)");
  app->add_option("--algorithm", o->algorithm,
                  "Search algorithm: mcts (Monte-Carlo tree search), bb (branch-and-bound in bound "
                  "order) or random (uniform descents)")
      ->capture_default_str();
  app->add_option("--policy", o->policy, "MCTS tree policy: tag (Threshold Ascent) or uct")
      ->check(CLI::IsMember({"tag", "uct"}))
      ->capture_default_str();
  app->add_option("--local", o->local,
                  "MCTS: the share of candidates found by changing one to three decisions of one "
                  "of the best measured (0: none)")
      ->check(decimal_number())
      ->capture_default_str();
  app->add_option("--wide", o->wide,
                  "MCTS, with screening: the share of candidates the model picks among rollouts "
                  "from the root (0: none)")
      ->check(decimal_number())
      ->capture_default_str();
  app->add_option("--screen", o->screen,
                  fmt::format("MCTS: each rollout is the fastest of this many by the model it "
                              "learns from the times measured (1: none; default {} on the CPU, "
                              "{} on a GPU)",
                              search::defaults_for(device::Kind::cpu).screen,
                              search::defaults_for(device::Kind::cuda).screen))
      ->transform(decimal_int());
  app->add_option("--order", o->order,
                  fmt::format("Choices decided first, in order, separated by commas (default on "
                              "a GPU: {}; on the CPU: {})",
                              search::defaults_for(device::Kind::cuda).order,
                              search::defaults_for(device::Kind::cpu).order));
  app->add_option(
         "--threads", o->threads,
         fmt::format("Searching threads (at most {})", search::SessionOptions::kMaxThreads))
      ->transform(decimal_int())
      ->capture_default_str();
  app->add_option("--evals", o->evals,
                  fmt::format("Candidates to evaluate, in total when resuming (default: {}, or "
                              "as many as --budget allows)",
                              kDefaultEvals))
      ->transform(decimal_int64());
  app->add_option("--budget", o->budget,
                  "Wall-clock budget: 90s, 10m, 1h30m (a Ctrl-C also stops the search; --resume "
                  "continues it)");
  add_seed_option(*app, o->seed, "Seed of the search and of the input data");
  app->add_option("--cutoff", o->cutoff,
                  "Stop timing a candidate once its runs average over this many times the best "
                  "time so far, and kill a run that lasts 10 times that (0: time each fully)")
      ->check(decimal_number())
      ->capture_default_str();
  app->add_option("--out", o->out, "Run folder (default runs/KERNEL-SIZE)")
      ->check(not_empty("runs/KERNEL-SIZE"));
  app->add_flag("--resume", o->resume, "Continue the log in the run folder");
  app->add_option("--start-from", o->start_from,
                  "Other searches of the kernel (run folders or logs; other sizes or devices "
                  "too): their 10 fastest candidates are evaluated first, each replayed as far as "
                  "its decisions apply here, and the search goes on from them");
  app->add_option("--description", o->description,
                  "Device description the lower bounds use: a shipped one (sm_90, cpu) or a file "
                  "(default: sm_90 on a GPU; on the CPU, this machine's, measured once)");
  return Command{app, [o] { return run_search(*o); }};
}

}  // namespace sculpt::explorer
