// `sculpt search`: searches implementations of a zoo kernel for one problem size on a device,
// logging every evaluation to DIR/log.jsonl and saving the best candidate's code in DIR.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "backbone/zoo/zoo.h"
#include "codegen/c_printer.h"
#include "codegen/lower.h"
#include "device/cpu_evaluator.h"
#include "device/process.h"
#include "explorer/best_code.h"
#include "explorer/command.h"
#include "explorer/event_log.h"
#include "explorer/stop_on_signal.h"
#include "search/device_description.h"
#include "search/problem.h"
#include "search/random_search.h"
#include "support/duration.h"
#include "support/progress.h"
#ifdef SCULPT_HAVE_CUDA
#include "device/cuda_evaluator.h"
#endif

namespace sculpt::explorer {
namespace {

struct SearchCommandOptions {
  std::string kernel;
  std::string size;
  std::string device = "auto";
  std::string algorithm = "random";
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

/// The device the user asked for; nullptr with a message when it cannot be had.
std::unique_ptr<device::Evaluator> make_device(const std::string& name, std::string* error) {
  std::string why;
#ifdef SCULPT_HAVE_CUDA
  if (name == "cuda" || (name == "auto" && device::cuda_available(&why))) {
    try {
      return std::make_unique<device::CudaEvaluator>();
    } catch (const device::DeviceError& e) {
      *error = e.what();
      return nullptr;
    }
  }
#else
  if (name == "cuda") {
    *error = "this sculpt was built without CUDA support (cuda.h was not found at build time)";
    return nullptr;
  }
#endif
  try {
    return std::make_unique<device::CpuEvaluator>();
  } catch (const device::DeviceError& e) {
    *error = e.what();
    return nullptr;
  }
}

/// " (3 ok, 1 timeout)", or nothing when nothing was evaluated.
std::string check_counts(const std::map<std::string, std::int64_t>& counts) {
  std::string out;
  for (const auto& [check, count] : counts) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", count, check);
  return out.empty() ? out : " (" + out + ")";
}

int run_search(const SearchCommandOptions& o) {
  const backbone::ZooLookup lookup = backbone::lookup_kernel(o.kernel, o.size);
  if (!lookup.ok()) return fail(lookup.error);
  if (o.algorithm != "random") return fail("unknown algorithm '" + o.algorithm + "' (known: random)");
  if (o.evals <= 0) return fail("--evals must be positive");
  if (o.cutoff != 0 && !(o.cutoff >= 1)) {
    return fail(fmt::format("--cutoff {} is neither 0 (off) nor a factor of at least 1", o.cutoff));
  }
  std::optional<double> budget;
  if (o.budget && !(budget = support::parse_duration(*o.budget))) {
    return fail("malformed --budget '" + *o.budget +
                "' (expected numbers with s, m or h: 90s, 10m, 1h30m)");
  }
  std::string error;
  std::unique_ptr<device::Evaluator> device = make_device(o.device, &error);
  if (!device) return fail(error);

  const std::optional<perf_model::Description> description =
      search::device_description(device->name(), o.description, &error);
  if (!description) return fail(error);
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, description->limits);
  if (root->conflict()) {
    std::fprintf(stderr, "sculpt search: the space of %s is empty: %s\n", o.kernel.c_str(),
                 root->conflict()->to_string().c_str());
    return kExitNothingValid;
  }
  const std::filesystem::path dir =
      o.out.empty() ? std::filesystem::path("runs") / (o.kernel + "-" + backbone::format_sizes(lookup.sizes))
                    : std::filesystem::path(o.out);
  const std::filesystem::path log_path = dir / "log.jsonl";
  LogHeader header{1, o.kernel, lookup.sizes.entries(), device->name(), root->table().model_hash,
                   o.seed, o.algorithm};

  std::map<std::string, std::int64_t> counts;
  std::optional<LogEvaluation> best;
  // Whether `e`, logged or new, is faster than the best so far.
  const auto improves = [&best](const LogEvaluation& e) {
    return e.check == "ok" && (!best || *e.time_ns < *best->time_ns);
  };
  std::size_t best_line = 0;
  // A resumed search continues its log (of which it keeps the counts and the best); a new one
  // starts it.
  std::size_t logged = 0;
  std::optional<std::int64_t> last_id;
  std::optional<EventLog> log;
  try {
    if (o.resume) {
      LogLock lock = LogLock::acquire(log_path);  // before reading: nothing appends since
      LogContents contents = read_log(log_path, [&](LogEvaluation&& e, std::size_t line) {
        ++counts[e.check];
        if (improves(e)) {
          best_line = line;
          best = std::move(e);
        }
      });
      if (!contents.ok()) return fail(contents.error);
      if (!(contents.header == header)) {
        return fail(fmt::format("{} was written by another search (kernel, sizes, device, space or "
                                "seed differ): start a new one with another --out",
                                log_path.string()));
      }
      log.emplace(EventLog::append_to(std::move(lock), contents));
      logged = contents.evaluation_count;
      last_id = contents.last_id;
    } else {
      std::error_code folder_error;
      std::filesystem::create_directories(dir, folder_error);
      if (folder_error) {
        return fail(fmt::format("cannot create the run folder {}: {}", dir.string(),
                                folder_error.message()));
      }
      log.emplace(EventLog::create(log_path, header));
    }
  } catch (const std::exception& e) {
    return fail(e.what());
  }

  const auto problem = search::make_problem(*lookup.info, lookup.sizes, kernel, o.seed);
  search::SearchOptions options;
  options.evals = o.evals - static_cast<std::int64_t>(logged);
  options.seed = o.seed + logged;  // a resumed search draws other candidates
  options.first_id = last_id ? *last_id + 1 : 0;
  if (budget) options.budget = std::chrono::duration<double>(*budget);
  options.cutoff = o.cutoff;
  if (best) options.best_ns = best->time_ns;
  const perf_model::Model model(kernel, *description);
  options.model = &model;
  const device::Language language =
      device->name() == "cuda" ? device::Language::ptx : device::Language::c;
  const std::string what =
      fmt::format("{} {} on {}", o.kernel, backbone::format_sizes(lookup.sizes), device->name());
  // The best of a resumed log must replay on this space. Its code is written again when the run
  // folder's best file holds another candidate (a crash between the log line and the file, or
  // a deleted file).
  if (best) {
    const std::unique_ptr<spacegen::CandidateBase> replayed = root->clone();
    if (replayed->apply(best->actions) == spacegen::Status::Conflict ||
        replayed->first_open_instance()) {
      return fail(fmt::format(
          "{}:{}: candidate {} does not replay on this space: {}", log_path.string(), best_line,
          best->id,
          replayed->conflict() ? replayed->conflict()->to_string() : "it is not fully specified"));
    }
    if (best_code_id(dir, language) != best->id) {
      try {
        write_best_code(dir,
                        search::kernel_code(static_cast<const gpu_space::Candidate&>(*replayed),
                                            language, "candidate"),
                        best->id, what, support::format_ns(*best->time_ns));
      } catch (const std::runtime_error& e) {
        return fail(e.what());
      }
    }
  }

  if (o.resume && options.evals <= 0) {
    std::fprintf(stderr,
                 "sculpt search: the log holds %zu evaluations, --evals asks for %lld in all: "
                 "nothing to evaluate (raise --evals to go on)\n",
                 logged, static_cast<long long>(o.evals));
  }

  StopOnSignal stop;
  options.stop_requested = [&stop] { return stop.requested(); };
  std::int64_t done = static_cast<std::int64_t>(logged);
  search::SearchStats stats;
  std::string search_error;
  {
    // Scoped: the bar ends its line before the summary or an error is printed.
    support::Progress progress(o.evals);
    try {
      stats = search::random_search(
          *root, *device, language, problem, options, [&](search::Evaluated&& e) {
            LogEvaluation entry;
            entry.id = e.id;
            entry.actions = std::move(e.actions);
            entry.bound_ns = e.bound_ns;
            entry.time_ns = e.evaluation.time_ns;
            entry.check = std::string(device::to_string(e.evaluation.check));
            entry.t = e.t;
            entry.spread_ns = e.evaluation.spread_ns;
            entry.runs = e.evaluation.runs;
            entry.cut_short = e.evaluation.cut_short;
            entry.message = e.evaluation.message.substr(0, 2000);
            log->write(entry);
            ++counts[entry.check];
            if (improves(entry)) {
              best = entry;
              write_best_code(dir, e.code, entry.id, what, support::format_ns(*entry.time_ns));
            }
            progress.update(
                ++done, best ? fmt::format("best {} (#{})", support::format_ns(*best->time_ns), best->id)
                             : std::string("no valid candidate yet"));
          });
    } catch (const device::DeviceError& e) {
      search_error = std::string("the device failed: ") + e.what();
    } catch (const std::runtime_error& e) {
      search_error = e.what();  // the log cannot be written
    }
  }
  if (!search_error.empty()) return fail(search_error);

  fmt::print("{}: {} evaluated{}, {} dead end{}{}{}; log {}\n", what,
             logged + static_cast<std::size_t>(stats.evaluated), check_counts(counts),
             stats.dead_ends, stats.dead_ends == 1 ? "" : "s",
             stats.cut_short > 0
                 ? fmt::format(", {} cut short past {:g}x the best time ({} killed)",
                               stats.cut_short, o.cutoff, stats.killed)
                 : std::string(),
             stats.abandoned > 0 ? fmt::format(", {} left unrun at the {}", stats.abandoned,
                                               stop.requested() ? "interruption" : "budget")
                                 : std::string(),
             log_path.string());
  if (!best) {
    fmt::print("no valid candidate\n");
  } else {
    const auto [scale, unit] = support::duration_unit(*best->time_ns);
    fmt::print("best: candidate {}, {} (spread {:.2g} {} over {} runs){}\n", best->id,
               support::format_ns(*best->time_ns), best->spread_ns / scale, unit, best->runs,
               best_code_id(dir, language) == best->id
                   ? fmt::format(", code in {}", best_code_path(dir, language).string())
                   : "");
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
  app->add_option("--algorithm", o->algorithm, "Search algorithm: random")->capture_default_str();
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
