// `sculpt estimate`: the size of a kernel's implementation space at one problem size (the
// number of fully specified candidates), by Knuth's random descents and Chen's heuristic
// sampling (search/estimate/estimate.h), each with its 95% interval, the rate of dead ends, the
// time taken and the rate of samples. Samples are drawn on every hardware thread unless --jobs says
// otherwise; the estimate depends on the seed alone. A Ctrl-C keeps the samples finished.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "device/process.h"
#include "explorer/command.h"
#include "explorer/stop_on_signal.h"
#include "gpu_space/space.h"
#include "perf_model/model.h"
#include "search/estimate/estimate.h"
#include "support/duration.h"
#include "support/progress.h"
#include "zoo/zoo.h"

namespace sculpt::explorer {
namespace {

/// A probe of Chen's expands every stratum's children at every depth: seconds per probe and core
/// on matmul 1024^3, a minute on mlp2. Unless asked, a handful (whose interval says how close).
constexpr std::int64_t kDefaultProbes = 10;

struct EstimateOptions {
  std::string kernel;
  std::string size;
  std::string method = "both";
  std::int64_t samples = 1000;
  /// Chen's probes; absent: `samples`, at most kDefaultProbes.
  std::optional<std::int64_t> probes;
  std::uint64_t seed = 1;
  std::int64_t jobs = 0;
  std::string description = "sm_90";
  /// Cut: the share of nodes at `depth` whose lower bound is below `cut`.
  std::optional<std::string> cut;
  std::int64_t depth = 10;
};

/// Three significant digits, exponents written as in the paper (1.83e21); small counts whole.
std::string format_count(double count) {
  if (count < 1e6) return fmt::format("{:.6g}", count);
  const std::string text = fmt::format("{:.2e}", count);
  const std::size_t e = text.find('e');
  return text.substr(0, e) + "e" + std::to_string(std::stoi(text.substr(e + 1)));
}

/// The mean and its interval; one sample shows no spread, so it gets no interval. The largest
/// sample's share of the sum says how far to trust the interval: near 100%, one sample makes the
/// mean, which more samples can still move by orders of magnitude.
std::string format_interval(const search::MeanEstimate& estimate) {
  if (estimate.samples < 2) return format_count(estimate.mean) + "  (no interval)";
  return fmt::format("{}  [{}, {}] 95%, largest sample {:.0f}% of the sum",
                     format_count(estimate.mean), format_count(estimate.low),
                     format_count(estimate.high), 100 * estimate.largest_share);
}

/// "1000 samples", or "312 of 1000 samples" when a stop request cut them short.
std::string count_of(std::size_t done, std::size_t asked, std::string_view what) {
  return fmt::format("{}{} {}{}", done < asked ? fmt::format("{} of ", done) : "", asked, what,
                     asked == 1 ? "" : "s");
}

/// Runs `estimate` with a progress bar of `count` `what`, until done or `stop` is requested, and
/// returns its result with the seconds it took.
template <typename F>
auto timed(const EstimateOptions& options, const StopOnSignal& stop, std::size_t count,
           std::string_view what, F&& estimate) {
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  search::Sampling sampling{options.seed, static_cast<std::size_t>(options.jobs), {}, [&stop] {
                              return stop.requested();
                            }};
  auto result = [&] {
    support::Progress progress(static_cast<std::int64_t>(count));
    sampling.on_sample = [&](std::size_t done) {
      progress.update(static_cast<std::int64_t>(done),
                      fmt::format("{}, {:.1f} s", what, seconds()));
    };
    return estimate(sampling);
  }();
  return std::pair{std::move(result), seconds()};
}

int run_estimate(const EstimateOptions& options) {
  const bool knuth = options.method == "knuth" || options.method == "both";
  const bool chen = options.method == "chen" || options.method == "both";
  if (!knuth && !chen) {
    fmt::print(stderr, "sculpt estimate: --method is '{}', not knuth, chen or both\n",
               options.method);
    return kExitUsage;
  }
  // Without --probes, Chen takes as many as Knuth, up to kDefaultProbes: --samples alone is
  // checked.
  const std::int64_t chen_probes =
      options.probes.value_or(std::min(options.samples, kDefaultProbes));
  for (const auto& [name, count] :
       {std::pair{"--samples", options.samples}, std::pair{"--probes", chen_probes}}) {
    if (count <= 0) {
      fmt::print(stderr, "sculpt estimate: {} is {}, not a positive number\n", name, count);
      return kExitUsage;
    }
  }
  // TBB's arenas fail past 65536 threads; no machine needs near that many.
  constexpr std::int64_t kMaxJobs = 1024;
  if (options.jobs < 0 || options.jobs > kMaxJobs) {
    fmt::print(stderr,
               "sculpt estimate: --jobs is {}, not 0 (every hardware thread) or a count up to "
               "{}\n",
               options.jobs, kMaxJobs);
    return kExitUsage;
  }
  const zoo::ZooLookup lookup = zoo::lookup_kernel(options.kernel, options.size);
  if (!lookup.ok()) {
    fmt::print(stderr, "sculpt estimate: {}\n", lookup.error);
    return kExitUsage;
  }
  std::optional<double> cut;
  if (options.cut && !(cut = support::parse_duration(*options.cut))) {
    fmt::print(stderr, "sculpt estimate: malformed --cut '{}' (expected a time: 55.5us, 1.2ms)\n",
               *options.cut);
    return kExitUsage;
  }
  if (options.depth < 0) {
    fmt::print(stderr, "sculpt estimate: --depth is {}, not a number of decisions\n",
               options.depth);
    return kExitUsage;
  }
  std::string error;
  const std::optional<perf_model::Description> description =
      perf_model::Description::load(options.description, &error);
  if (!description) {
    fmt::print(stderr, "sculpt estimate: {}\n", error);
    return kExitUsage;
  }
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, description->limits);
  fmt::print("{} {} on {}: {} open choices at the root\n", lookup.info->name,
             backbone::format_sizes(lookup.sizes), description->name, root->open_instance_count());
  std::fflush(stdout);  // before the progress bar on stderr
  if (root->conflict()) fmt::print("the space is empty: {}\n", root->conflict()->to_string());
  const auto samples = static_cast<std::size_t>(options.samples);
  const auto probes = static_cast<std::size_t>(chen_probes);
  // A Ctrl-C stops the sampling: the estimates of the samples finished are printed.
  const StopOnSignal stop;
  if (knuth) {
    const auto [estimate, seconds] =
        timed(options, stop, samples, "knuth descents", [&](const search::Sampling& sampling) {
          return search::knuth_estimate(*root, samples, sampling);
        });
    const std::size_t done = estimate.leaves.samples;
    const search::Proportion& dead = estimate.dead_ends;
    if (done == 0) {
      fmt::print("knuth  no sample finished\n");
    } else {
      fmt::print(
          "knuth  {}, {}, dead ends {:.1f}% [{:.1f}%, {:.1f}%], mean depth {:.1f}, "
          "{:.1f} s, {:.1f} samples/s\n",
          format_interval(estimate.leaves), count_of(done, samples, "sample"), 100 * dead.rate,
          100 * dead.low, 100 * dead.high, estimate.mean_depth, seconds,
          static_cast<double>(done) / seconds);
    }
  }
  if (cut && !stop.requested()) {
    const perf_model::Model model(kernel, *description);
    const double cut_ns = *cut * 1e9;
    const auto keep = [&](const spacegen::CandidateBase& node) {
      return model.bound(static_cast<const gpu_space::Candidate&>(node)).ns < cut_ns;
    };
    const auto depth = static_cast<std::size_t>(options.depth);
    const auto [estimate, seconds] =
        timed(options, stop, samples, "cut descents", [&](const search::Sampling& sampling) {
          return search::cut_estimate(*root, depth, keep, samples, sampling);
        });
    const std::size_t done = estimate.nodes.samples;
    if (done == 0) {
      fmt::print("cut    no sample finished\n");
    } else {
      fmt::print(
          "cut    at {} on depth {} ({}, {:.1f} s): {} nodes [{}, {}], {:.3g}% of them with "
          "a bound below the cut; of the {} candidates, {} below those\n",
          support::format_ns(cut_ns), depth, count_of(done, samples, "sample"), seconds,
          format_count(estimate.nodes.mean), format_count(estimate.nodes.low),
          format_count(estimate.nodes.high),
          estimate.nodes.mean > 0 ? 100 * estimate.kept_nodes.mean / estimate.nodes.mean : 0.0,
          format_count(estimate.leaves.mean), format_interval(estimate.kept_leaves));
    }
  }
  if (chen && !stop.requested()) {
    const auto [estimate, seconds] =
        timed(options, stop, probes, "chen probes", [&](const search::Sampling& sampling) {
          return search::chen_estimate(*root, probes, sampling);
        });
    const std::size_t done = estimate.leaves.samples;
    if (done == 0) {
      fmt::print("chen   no probe finished\n");
    } else {
      fmt::print("chen   {}, {}, {:.1f} nodes expanded per probe, {:.1f} s, {:.2f} probes/s\n",
                 format_interval(estimate.leaves), count_of(done, probes, "probe"),
                 estimate.mean_expanded, seconds, static_cast<double>(done) / seconds);
    }
  }
  if (stop.requested()) {
    std::fflush(stdout);
    fmt::print(stderr,
               "sculpt estimate: interrupted by {}; the estimates are of the samples "
               "finished\n",
               device::describe_signal(stop.signal()));
    return kExitInterrupted + stop.signal();
  }
  return kExitOk;
}

}  // namespace

Command add_estimate_command(CLI::App& sculpt) {
  auto options = std::make_shared<EstimateOptions>();
  CLI::App* app = sculpt.add_subcommand(
      "estimate", "Estimate the number of fully specified candidates of a kernel's space");
  app->add_option("--kernel", options->kernel, "Zoo kernel (see `sculpt kernels`)")->required();
  add_size_option(*app, options->size);
  app->add_option("--method", options->method, "knuth, chen or both")->capture_default_str();
  app->add_option("--samples", options->samples,
                  "Knuth descents, and Chen probes unless --probes (the paper took 100000 and "
                  "1000)")
      ->transform(decimal_int64())
      ->capture_default_str();
  app->add_option("--probes", options->probes,
                  fmt::format("Chen probes (default: --samples, at most {})", kDefaultProbes))
      ->transform(decimal_int64());
  add_seed_option(*app, options->seed, "Seed of the random choices");
  app->add_option("--jobs,-j", options->jobs, "Threads drawing samples (0: every hardware thread)")
      ->transform(decimal_int64())
      ->capture_default_str();
  app->add_option("--description", options->description,
                  "Device description: a shipped one (sm_90, cpu) or a file")
      ->capture_default_str();
  app->add_option("--cut", options->cut,
                  "Also estimate, with --samples Knuth descents, the nodes at --depth whose lower "
                  "bound is below this time (55.5us), and the candidates below them");
  app->add_option("--depth", options->depth, "Depth of the cut, in decisions")
      ->transform(decimal_int64())
      ->capture_default_str();
  return Command{app, [options] { return run_estimate(*options); }};
}

}  // namespace sculpt::explorer
