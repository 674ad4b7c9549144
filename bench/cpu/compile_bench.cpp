// bench_compile: what compiling a candidate costs on the CPU device, per compiler and flags, and
// what the code each one makes runs at. The candidates are a fixed set: random descents (seeded)
// of a zoo kernel's space on the CPU description, in the CPU device's decision order, printed as
// C, as a search prints them. Each configuration compiles every candidate once into a cache of
// its own (no hits), one at a time, then runs each on the problem (warm-up, check, timed runs,
// cut at 4 times the best as a search cuts):
//
//   bench_compile [--kernel=matmul] [--size=256x256x256] [--candidates=40] [--seed=1]
//                 [--compilers=gcc,clang] [--levels=-O3,-O2]
//
// Prints a table: per configuration the compile time of an empty entry (the floor every
// compilation pays: the driver, the compiler's start, the assembler and the linker), the compile
// time's mean, median, 90th percentile and maximum, the best kernel time, and the geometric mean
// of the kernel times relative to the first configuration over the candidates both timed in full.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/device_code.h"
#include "device/c_compiler.h"
#include "device/cpu_evaluator.h"
#include "device/cutoff.h"
#include "gpu_space/space.h"
#include "search/session/decision_order.h"
#include "search/session/descent.h"
#include "search/session/device_defaults.h"
#include "search/session/device_description.h"
#include "search/session/problem.h"
#include "zoo/zoo.h"

namespace sculpt::bench {
namespace {

struct Options {
  std::string kernel = "matmul";
  std::string size = "256x256x256";  // the main job's size on the CPU
  int candidates = 40;
  std::uint64_t seed = 1;
  std::vector<std::string> compilers = {"gcc", "clang"};
  std::vector<std::string> levels = {"-O3", "-O2"};
};

struct Configuration {
  std::string compiler;
  std::string level;
  std::string name() const { return compiler + " " + level; }
};

struct Outcome {
  std::vector<double> compile_s;                 // per candidate compiled
  std::vector<std::optional<double>> kernel_ns;  // per candidate: timed in full, and ok
  double floor_s = 0;  // median compile time of an empty entry: what every compilation pays
  std::string flags;
  int failures = 0;
};

/// Seconds `compiler` takes over `source`.
double time_compile(device::CCompiler& compiler, const std::string& source) {
  const auto start = std::chrono::steady_clock::now();
  const auto compiled = compiler.compile(source);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return compiled.object ? seconds : NAN;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const auto at = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size()))) - 1;
  return values[std::min(at, values.size() - 1)];
}

/// The C code of `count` fully specified candidates from seeded random descents.
std::vector<device::KernelCode> candidates(const gpu_space::Candidate& root, int count,
                                           std::uint64_t seed) {
  const search::DecisionOrder order =
      search::DecisionOrder::standard(root.table(), search::defaults_for(device::Kind::cpu).order);
  std::mt19937_64 rng(seed);
  std::vector<device::KernelCode> codes;
  for (int tries = 0; static_cast<int>(codes.size()) < count && tries < 100 * count; ++tries) {
    search::Descent descent = search::random_descent(root, rng, &order);
    if (!descent.candidate) continue;
    codes.push_back(
        codegen::kernel_code(static_cast<const gpu_space::Candidate&>(*descent.candidate),
                             device::Language::c, "candidate"));
  }
  return codes;
}

Outcome run(const Configuration& configuration, const std::vector<device::KernelCode>& codes,
            const std::shared_ptr<const device::Problem>& problem) {
  device::CpuEvaluatorOptions options;
  options.compiler = configuration.compiler;
  std::replace(options.flags.begin(), options.flags.end(), std::string("-O3"), configuration.level);
  options.cache_dir =
      std::filesystem::temp_directory_path() / fmt::format("sculpt-bench-compile-{}", getpid());
  std::filesystem::remove_all(options.cache_dir);
  options.compile_threads = 1;
  Outcome outcome;
  {
    device::CpuEvaluator evaluator(options);
    const device::CCompiler& compiler = evaluator.compiler();
    for (const auto& flag : compiler.flags())
      outcome.flags += (outcome.flags.empty() ? "" : " ") + flag;
    // A compiler of its own on the same cache: its objects are the evaluator's cache hits.
    device::CCompiler timing(options.compiler, options.flags, options.cache_dir,
                             options.compile_timeout, options.flags_if_accepted);
    std::vector<double> floor;
    for (int i = 0; i < 5; ++i) {
      // The headers a candidate includes and an entry that does nothing; the comment keeps the
      // cache from answering.
      floor.push_back(
          time_compile(timing, fmt::format("// floor {}\n#include <math.h>\n#include <stdint.h>\n"
                                           "void candidate(void** params) {{ (void)params; }}\n",
                                           i)));
    }
    outcome.floor_s = quantile(floor, 0.5);
    for (const auto& code : codes) {
      if (const double seconds = time_compile(timing, code.source); !std::isnan(seconds)) {
        outcome.compile_s.push_back(seconds);
      }
    }
    auto cutoff = std::make_shared<device::Cutoff>(4.0);
    for (const auto& code : codes) {
      const device::Evaluation e = evaluator.submit(code, problem, cutoff).get();
      const bool full = e.check == device::Check::ok && e.time_ns && !e.cut_short;
      if (e.check != device::Check::ok) ++outcome.failures;
      outcome.kernel_ns.push_back(full ? e.time_ns : std::nullopt);
    }
  }
  std::filesystem::remove_all(options.cache_dir);
  return outcome;
}

}  // namespace
}  // namespace sculpt::bench

int main(int argc, char** argv) {
  using namespace sculpt;
  using namespace sculpt::bench;
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto equals = arg.find('=');
    const std::string name = arg.substr(0, equals),
                      value = equals == std::string::npos ? "" : arg.substr(equals + 1);
    if (name == "--kernel")
      options.kernel = value;
    else if (name == "--size")
      options.size = value;
    else if (name == "--candidates")
      options.candidates = std::atoi(value.c_str());
    else if (name == "--seed")
      options.seed = std::strtoull(value.c_str(), nullptr, 10);
    else if (name == "--compilers")
      options.compilers = split(value);
    else if (name == "--levels")
      options.levels = split(value);
    else {
      fmt::print(stderr, "bench_compile: unknown option {}\n", arg);
      return 2;
    }
  }
  if (options.candidates < 1 || options.compilers.empty() || options.levels.empty()) {
    fmt::print(stderr, "bench_compile: nothing to compile\n");
    return 2;
  }
  const zoo::ZooLookup lookup = zoo::lookup_kernel(options.kernel, options.size);
  if (!lookup.ok()) {
    fmt::print(stderr, "bench_compile: {}\n", lookup.error);
    return 2;
  }
  std::string error;
  const auto description = search::device_description(device::Kind::cpu, {}, "", &error);
  if (!description) {
    fmt::print(stderr, "bench_compile: {}\n", error);
    return 1;
  }
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, description->limits);
  const auto problem = search::make_problem(*lookup.info, lookup.sizes, kernel, options.seed);
  const auto codes = candidates(*root, options.candidates, options.seed);
  std::size_t bytes = 0;
  for (const auto& code : codes) bytes += code.source.size();
  fmt::print("{} {}: {} candidates (seed {}), {:.1f} KB of C on average\n", options.kernel,
             options.size, codes.size(), options.seed,
             static_cast<double>(bytes) / 1e3 / static_cast<double>(codes.size()));

  std::vector<Configuration> configurations;
  for (const auto& compiler : options.compilers) {
    for (const auto& level : options.levels) configurations.push_back({compiler, level});
  }
  std::vector<Outcome> outcomes;
  fmt::print("{:<12} {:>9} {:>9} {:>9} {:>9} {:>9} {:>12} {:>10} {:>6}  flags\n", "compiler",
             "floor s", "mean s", "median s", "p90 s", "max s", "best us", "vs first", "failed");
  for (const auto& configuration : configurations) {
    try {
      outcomes.push_back(run(configuration, codes, problem));
    } catch (const device::DeviceError& e) {
      fmt::print("{:<12} {}\n", configuration.name(), e.what());
      outcomes.emplace_back();
      continue;
    }
    const Outcome& o = outcomes.back();
    double best = INFINITY, log_ratio = 0;
    int both = 0;
    for (std::size_t i = 0; i < o.kernel_ns.size(); ++i) {
      if (!o.kernel_ns[i]) continue;
      best = std::min(best, *o.kernel_ns[i]);
      const auto& first = outcomes.front().kernel_ns;
      if (i < first.size() && first[i]) {
        log_ratio += std::log(*o.kernel_ns[i] / *first[i]);
        ++both;
      }
    }
    double sum = 0;
    for (const double seconds : o.compile_s) sum += seconds;
    fmt::print(
        "{:<12} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>12.1f} {:>10.3f} {:>6}  {}\n",
        configuration.name(), o.floor_s, sum / static_cast<double>(o.compile_s.size()),
        quantile(o.compile_s, 0.5), quantile(o.compile_s, 0.9), quantile(o.compile_s, 1.0),
        best / 1e3, both ? std::exp(log_ratio / both) : NAN, o.failures, o.flags);
  }
  return 0;
}
