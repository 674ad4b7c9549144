// `sculpt characterize`: measures this machine's CPU (device/cpu_characterization.h), prints each
// figure of its description with where it comes from, writes the description (perf_model/
// description.h) to --out, and compares it with the shipped "cpu" description, flagging the
// figures more than 25% apart.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "device/cpu_characterization.h"
#include "explorer/command.h"
#include "perf_model/description.h"
#include "support/atomic_file.h"
#include "support/check.h"

namespace sculpt::explorer {
namespace {

/// A shipped figure and a measured one differ when they are more than this share apart.
constexpr double kTolerance = 0.25;
/// Past this share of the CPUs' time taken by other work while measuring, the figures are
/// marked and a warning printed.
constexpr double kBusy = 0.05;

struct CharacterizeOptions {
  std::string device;
  std::string out;
  bool quick = false;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "sculpt characterize: %s\n", message.c_str());
  return kExitUsage;
}

/// Today, UTC: "2025-06-01".
std::string today() {
  const std::chrono::year_month_day day{
      std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now())};
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(day.year()),
                     static_cast<unsigned>(day.month()), static_cast<unsigned>(day.day()));
}

/// `x` to four significant digits, rounded up (a rate) or down (the launch floor), so that the
/// bound stays valid.
double round_outward(double x, bool up) {
  const int exponent = static_cast<int>(std::floor(std::log10(x))) - 3;
  const double scaled = x / std::pow(10.0, exponent);
  return std::stod(fmt::format("{}e{}", up ? std::ceil(scaled) : std::floor(scaled), exponent));
}

/// "16 KiB", "8 MiB": a working set.
std::string format_bytes(std::int64_t bytes) {
  if (bytes >= (std::int64_t{1} << 20)) return fmt::format("{:.4g} MiB", bytes / 1048576.0);
  return fmt::format("{:.4g} KiB", bytes / 1024.0);
}

/// Counts and sizes whole, rates to four digits.
std::string format_figure(const perf_model::NamedFigure& f) {
  const bool whole = f.name == "cores" || f.name.ends_with("_bytes");
  return whole ? fmt::format("{:.0f}", f.figure->value) : fmt::format("{:.4g}", f.figure->value);
}

std::string level_source(const device::MemoryLevel& level, const device::CpuCharacteristics& c,
                         const char* larger, const std::string& how) {
  const double fastest = std::max({level.read, level.write, level.copy});
  return fmt::format(
      "measured: {} per core on {} cores, 64-byte vectors, the fastest of read ({:.4g}), write "
      "({:.4g}) and copy ({:.4g}) bytes/s{}, {}",
      format_bytes(level.bytes_per_core), c.cores, level.read, level.write, level.copy,
      level.bandwidth > fastest ? fmt::format(", raised to the {}'s", larger) : "", how);
}

perf_model::CpuRates rates_of(const device::CpuCharacteristics& c) {
  using perf_model::Figure;
  // A busy machine gives low rates: the figures say so.
  const std::string when =
      "sculpt characterize, " + today() +
      (c.others_busy > kBusy
           ? fmt::format(", the CPUs {:.0f}% busy with other work", 100 * c.others_busy)
           : "");
  const std::string timed = fmt::format(
      "each the fastest of up to {} timed sections of {:g} ms or more in {} round{}, {}",
      c.sections, c.section_seconds * 1e3 / 2, c.rounds, c.rounds == 1 ? "" : "s", when);
  perf_model::CpuRates r;
  r.cores = {static_cast<double>(c.cores),
             "measured: the CPUs in the process's affinity mask, " + when};
  r.fp32_per_second = {
      round_outward(c.fp32_per_second, true),
      fmt::format("measured: FMAs of 10 independent chains of 16-, 32- and 64-byte vectors (the "
                  "fastest; {}-byte registers seen), on one core ({:.4g}/s) and on {} cores "
                  "({:.4g}/s), per core the larger, {}",
                  c.simd_bytes, c.fp32_one_core, c.cores, c.fp32_all_cores, timed)};
  r.l1_bytes = {static_cast<double>(c.l1_bytes),
                "measured: sysfs (/sys/devices/system/cpu/cpuN/cache), the level 1 data cache of "
                "the first CPU of the affinity mask, " +
                    when};
  r.l2_bytes = {
      static_cast<double>(c.l2_bytes),
      "measured: sysfs, the level 2 cache of the first CPU of the affinity mask, " + when};
  r.l3_bytes = {static_cast<double>(c.l3_bytes),
                "measured: sysfs, every distinct level 3 cache of the CPUs of the affinity mask "
                "together, " +
                    when};
  r.l1_bandwidth = {round_outward(c.l1.bandwidth, true), level_source(c.l1, c, "L2", timed)};
  r.l2_bandwidth = {round_outward(c.l2.bandwidth, true), level_source(c.l2, c, "L3", timed)};
  r.l3_bandwidth = {round_outward(c.l3.bandwidth, true), level_source(c.l3, c, "DRAM", timed)};
  r.dram_bandwidth = {round_outward(c.dram.bandwidth, true), level_source(c.dram, c, "", timed)};
  r.launch_floor_ns = {
      round_outward(c.launch_floor_ns, false),
      fmt::format("measured: the fastest of {} runs of an empty OpenMP parallel region, timed as "
                  "the CPU device times a candidate's run, {}",
                  c.launch_runs, when)};
  return r;
}

/// The description's JSON. The CPU runs the space of sm_90: its limits are named, not copied.
std::string description_json(const perf_model::Description& description) {
  nlohmann::ordered_json json = nlohmann::ordered_json::parse(description.to_json());
  json["limits"] = "sm_90";
  std::string text = json.dump(2) + "\n";
  std::string error;
  SCULPT_CHECK(perf_model::Description::parse(text, "the measured description", &error)) << error;
  return text;
}

/// Prints how far each measured figure is from the shipped "cpu" description's.
void compare_with_shipped(const perf_model::CpuRates& measured) {
  const std::vector<std::string> shipped_names = perf_model::Description::shipped();
  if (std::find(shipped_names.begin(), shipped_names.end(), "cpu") == shipped_names.end()) {
    fmt::print("no shipped description 'cpu' to compare with\n");
    return;
  }
  const perf_model::Description shipped = perf_model::Description::named("cpu");
  SCULPT_CHECK(shipped.cpu) << "the shipped description 'cpu' has no cpu rates";
  fmt::print("against the shipped description 'cpu' ({}):\n", shipped.about);
  const std::vector<perf_model::NamedFigure> old_figures = perf_model::figures(*shipped.cpu);
  const std::vector<perf_model::NamedFigure> new_figures = perf_model::figures(measured);
  int differing = 0;
  for (std::size_t i = 0; i < new_figures.size(); ++i) {
    const double before = old_figures[i].figure->value, now = new_figures[i].figure->value;
    const double change = (now - before) / before;
    const bool differs = std::abs(change) > kTolerance;
    differing += differs ? 1 : 0;
    fmt::print("  {:<16} {:>10} shipped, {:>10} measured, {:+.1f}%{}\n", new_figures[i].name,
               format_figure(old_figures[i]), format_figure(new_figures[i]), 100 * change,
               differs ? fmt::format("  differs by more than {:.0f}%", 100 * kTolerance) : "");
  }
  if (differing == 0) {
    fmt::print("every figure within {:.0f}% of the shipped one\n", 100 * kTolerance);
  } else {
    fmt::print("{} figure{} differ{} by more than {:.0f}%\n", differing, differing == 1 ? "" : "s",
               differing == 1 ? "s" : "", 100 * kTolerance);
  }
}

int run_characterize(const CharacterizeOptions& o) {
  if (o.device == "cuda") return fail("--device cuda is not available yet");
  // Checked before measuring, which takes a while: the write itself can still fail (a full disk).
  if (!o.out.empty()) {
    const std::filesystem::path out(o.out);
    const std::filesystem::path folder = out.has_parent_path() ? out.parent_path() : ".";
    if (!std::filesystem::is_directory(folder)) {
      return fail(fmt::format("cannot write {}: no folder {}", o.out, folder.string()));
    }
    if (std::filesystem::is_directory(out)) {
      return fail(fmt::format("cannot write {}: it is a folder", o.out));
    }
  }
  fmt::print("measuring this machine's CPU{}...\n", o.quick ? " (quick: rough figures)" : "");
  std::fflush(stdout);
  device::CpuCharacteristics c;
  try {
    c = device::characterize_cpu({.quick = o.quick});
  } catch (const device::DeviceError& e) {
    return fail(e.what());
  }
  perf_model::Description description;
  description.name = "cpu";
  description.about = fmt::format(
      "{}, {} cores", c.model_name.empty() ? "unknown processor" : c.model_name, c.cores);
  description.cpu = rates_of(c);
  fmt::print("cpu: {}, {}-byte vectors, measured in {:.1f} s\n", description.about, c.simd_bytes,
             c.seconds);
  for (const perf_model::NamedFigure& f : perf_model::figures(*description.cpu)) {
    fmt::print("  {:<16} {:>10}  {}\n", f.name, format_figure(f), f.figure->source);
  }
  if (c.others_busy > kBusy) {
    fmt::print(
        "warning: other work kept the CPUs {:.0f}% busy while measuring: the rates are too low "
        "and the launch floor too high; measure an idle machine\n",
        100 * c.others_busy);
  }
  if (!o.out.empty()) {
    try {
      support::write_atomically(o.out, description_json(description), fmt::format("{}", getpid()));
    } catch (const std::runtime_error& e) {
      return fail(e.what());
    }
    fmt::print("wrote {}\n", o.out);
  }
  compare_with_shipped(*description.cpu);
  return kExitOk;
}

}  // namespace

Command add_characterize_command(CLI::App& sculpt) {
  auto o = std::make_shared<CharacterizeOptions>();
  CLI::App* app = sculpt.add_subcommand(
      "characterize", "Measure this machine's rates and write its device description");
  app->add_option("--device", o->device, "The device to measure: cpu (cuda to come)")
      ->required()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app->add_option("--out", o->out, "Write the description (JSON) to this file")
      ->check(not_empty("no file: the figures are only printed"));
  app->add_flag("--quick", o->quick, "Rough figures in under 3 seconds (for tests)");
  return Command{app, [o] { return run_characterize(*o); }};
}

}  // namespace sculpt::explorer
