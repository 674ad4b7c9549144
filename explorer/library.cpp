// The library call (sculpt.h): a search session behind a cache.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>

#include "backbone/sizes.h"
#include "explorer/kernel_cache.h"
#include "explorer/kernel_parameters.h"
#include "explorer/library.h"
#include "explorer/search_progress.h"
#include "explorer/search_run.h"
#include "frontend/definition.h"
#include "support/error.h"
#include "support/hash.h"

namespace sculpt::explorer {
namespace {

/// The session's options from the library's; throws Error for a malformed one.
search::SessionOptions session_options(const SearchOptions& o) {
  search::SessionOptions options;
  const std::optional<search::AlgorithmKind> algorithm = search::algorithm_from_string(o.algorithm);
  if (!algorithm)
    throw Error(Error::Kind::usage,
                "unknown algorithm '" + o.algorithm + "' (known: mcts, bb, random)");
  options.algorithm = *algorithm;
  if (o.evals <= 0) throw Error(Error::Kind::usage, "evals must be positive");
  options.evals = o.evals;
  if (o.threads < 1) throw Error(Error::Kind::usage, "threads must be at least 1");
  options.threads = o.threads;
  if (o.budget_s) {
    if (!(*o.budget_s > 0))
      throw Error(Error::Kind::usage, fmt::format("a budget of {} s", *o.budget_s));
    options.budget = std::chrono::duration<double>(*o.budget_s);
  }
  options.seed = o.seed;
  options.stop_requested = o.stop_requested;
  return options;
}

/// A new run folder under the cache folder: KERNEL-YYYYmmdd-HHMMSS-PID-N.
std::filesystem::path new_run_dir(const std::filesystem::path& cache_dir,
                                  const std::string& kernel) {
  // The process's own count keeps apart the searches it starts within one second.
  static std::atomic<int> searches{0};
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  return cache_dir / "runs" /
         fmt::format("{}-{:%Y%m%d-%H%M%S}-{}-{}", kernel, now, getpid(), ++searches);
}

}  // namespace

Kernel search_kernel(const std::string& kernel, const std::string& sizes,
                     const SearchOptions& options) {
  const std::filesystem::path cache_dir =
      options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
  SearchRequest request;
  request.kernel = kernel;
  request.size = sizes;
  request.device = options.device;
  request.session = session_options(options);
  request.definition = options.definition;
  request.definition_file = "definition";
  request.start_from = options.start_from;
  request.out = new_run_dir(cache_dir, kernel.empty() ? "definition" : kernel);
  try {
    SearchRun run(request);
    const KernelCache cache(cache_dir);
    // A definition's kernel is cached under its name and the hash of its text, apart from a zoo
    // kernel or another definition of the same name.
    const std::string cached_name =
        options.definition.empty()
            ? run.kernel().name
            : run.kernel().name + "-" + support::Fnv1a().add(options.definition).hex();
    const CacheKey key{cached_name, backbone::format_sizes(run.sizes()), run.device_model(),
                       run.space_hash(), run.description_hash()};
    if (options.use_cache) {
      if (std::optional<Kernel> cached = cache.find(key)) {
        cached->kernel = run.kernel().name;
        cached->parameters = parameters_of(run.backbone());
        return *cached;
      }
    }
    if (options.start_from_cache) {
      if (std::optional<Kernel> nearest = cache.nearest(key)) run.start_from(nearest->log);
    }
    run.open_folder();
    SearchOutcome outcome;
    {
      // Scoped: the progress line ends before the call returns or throws.
      std::optional<SearchProgress> shown;
      if (options.show_progress) {
        shown.emplace(request.session.evals, run.logged(), request.session.budget);
      }
      outcome = run.run([&](const SearchProgressState& s) {
        if (shown) shown->update(s);
        if (options.on_progress) {
          options.on_progress(Progress{s.evaluations, s.requested, s.best_ns});
        }
      });
    }
    if (outcome.stats.stopped_by == "stop") {
      throw Error(Error::Kind::interrupted,
                  fmt::format("{}: stopped after {} evaluations (log {})", run.what(),
                              outcome.evaluations, outcome.log.string()));
    }
    if (!outcome.best) {
      throw Error(Error::Kind::nothing_valid,
                  fmt::format("{}: no valid candidate in {} evaluations (log {})", run.what(),
                              outcome.evaluations, outcome.log.string()));
    }
    const device::KernelCode& code = *outcome.best_code;
    Kernel found;
    found.kernel = run.kernel().name;
    found.sizes = key.sizes;
    found.device = key.device;
    found.language = code.language == device::Language::ptx ? "ptx" : "c";
    found.code = code.source;
    found.entry = code.entry;
    found.launch = {code.launch.grid, code.launch.block, code.launch.shared_bytes};
    found.parameters = parameters_of(run.backbone());
    found.time_ns = *outcome.best->time_ns;
    found.run_dir = outcome.dir;
    found.log = outcome.log;
    found.id = outcome.best->id;
    cache.store(key, found);
    return found;
  } catch (const Error&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw Error(Error::Kind::environment, e.what());  // the cache cannot be written
  }
}

Definition define_kernel(const std::string& text, const std::string& name,
                         const std::string& file) {
  const frontend::DefinitionLookup found = frontend::lookup_definition(text, file, name, "");
  if (!found.ok()) throw Error(Error::Kind::input, found.error);
  return Definition{text, found.definition->name, found.definition->sizes,
                    frontend::describe(*found.definition)};
}

}  // namespace sculpt::explorer
