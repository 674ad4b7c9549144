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
#include "search/device_description.h"
#include "support/atomic_file.h"
#include "support/check.h"

namespace sculpt::explorer {
namespace {

/// A shipped figure and a measured one differ when they are more than this share apart.
constexpr double kTolerance = 0.25;

struct CharacterizeOptions {
  std::string device;
  std::string out;
  bool quick = false;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "sculpt characterize: %s\n", message.c_str());
  return kExitUsage;
}

/// Counts and sizes whole, rates to four digits.
std::string format_figure(const perf_model::NamedFigure& f) {
  const bool whole = f.name == "cores" || f.name.ends_with("_bytes");
  return whole ? fmt::format("{:.0f}", f.figure->value) : fmt::format("{:.4g}", f.figure->value);
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
  const perf_model::Description description = search::cpu_description(c);
  fmt::print("cpu: {}, {}-byte vectors, measured in {:.1f} s\n", description.about, c.simd_bytes,
             c.seconds);
  for (const perf_model::NamedFigure& f : perf_model::figures(*description.cpu)) {
    fmt::print("  {:<16} {:>10}  {}\n", f.name, format_figure(f), f.figure->source);
  }
  if (c.others_busy > device::kBusyShare) {
    fmt::print(
        "warning: other work kept the CPUs {:.0f}% busy while measuring: the rates are too low "
        "and the launch floor too high; measure an idle machine\n",
        100 * c.others_busy);
  }
  if (!o.out.empty()) {
    try {
      support::write_atomically(o.out, description.to_json(), fmt::format("{}", getpid()));
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
