// `sculpt characterize`: measures this machine's CPU (device/cpu_characterization.h) or its GPU 0
// (device/gpu_characterization.h), prints each figure of its description with where it comes
// from, writes the description (perf_model/description.h) to --out, and compares it with the
// shipped description of the same GPU ("h200"), else of the same name ("cpu", "sm_90"),
// flagging the figures more than 25% apart.
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
#include "device/description_of.h"
#include "explorer/command.h"
#include "perf_model/description.h"
#include "search/session/device_description.h"
#include "support/atomic_file.h"
#include "support/check.h"
#ifdef SCULPT_HAVE_CUDA
#include "device/gpu_characterization.h"
#endif

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
  const double value = f.figure->value;
  const bool whole = f.name.ends_with("_bytes") || (value == std::round(value) && value < 1e6);
  return whole ? fmt::format("{:.0f}", value) : fmt::format("{:.4g}", value);
}

std::vector<perf_model::NamedFigure> figures_of(const perf_model::Description& d) {
  return d.gpu ? perf_model::figures(*d.gpu) : perf_model::figures(*d.cpu);
}

/// Prints how far each measured figure is from the shipped description of the same GPU (whose
/// `about` is the measured one's), else of the same name.
void compare_with_shipped(const perf_model::Description& measured) {
  const std::vector<std::string> shipped_names = perf_model::Description::shipped();
  std::string name = measured.name;
  if (measured.gpu) {
    if (const std::optional<perf_model::Description> own =
            perf_model::Description::of_gpu(measured.about))
      name = own->name;
  }
  if (std::find(shipped_names.begin(), shipped_names.end(), name) == shipped_names.end()) {
    fmt::print("no shipped description '{}' to compare with\n", name);
    return;
  }
  const perf_model::Description shipped = perf_model::Description::named(name);
  SCULPT_CHECK(shipped.gpu.has_value() == measured.gpu.has_value())
      << "the shipped description '" << name << "' is of another kind of device";
  fmt::print("against the shipped description '{}' ({}):\n", shipped.name, shipped.about);
  const std::vector<perf_model::NamedFigure> old_figures = figures_of(shipped);
  const std::vector<perf_model::NamedFigure> new_figures = figures_of(measured);
  int differing = 0;
  for (std::size_t i = 0; i < new_figures.size(); ++i) {
    const double before = old_figures[i].figure->value, now = new_figures[i].figure->value;
    const double change = (now - before) / before;
    const bool differs = std::abs(change) > kTolerance;
    differing += differs ? 1 : 0;
    fmt::print("  {:<24} {:>10} shipped, {:>10} measured, {:+.1f}%{}\n", new_figures[i].name,
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

/// Prints each figure with its source (then `warning`, when not empty), writes the description
/// to --out and compares it with the shipped one.
int report(const CharacterizeOptions& o, const perf_model::Description& description,
           const std::string& warning) {
  for (const perf_model::NamedFigure& f : figures_of(description)) {
    fmt::print("  {:<24} {:>10}  {}\n", f.name, format_figure(f), f.figure->source);
  }
  if (!warning.empty()) fmt::print("warning: {}\n", warning);
  if (!o.out.empty()) {
    try {
      support::write_atomically(o.out, description.to_json(), fmt::format("{}", getpid()));
    } catch (const std::runtime_error& e) {
      return fail(e.what());
    }
    fmt::print("wrote {}\n", o.out);
  }
  compare_with_shipped(description);
  return kExitOk;
}

int characterize_cpu(const CharacterizeOptions& o) {
  fmt::print("measuring this machine's CPU{}...\n", o.quick ? " (quick: rough figures)" : "");
  std::fflush(stdout);
  device::CpuCharacteristics c;
  try {
    c = device::characterize_cpu({.quick = o.quick});
  } catch (const device::DeviceError& e) {
    return fail(e.what());
  }
  const perf_model::Description description = device::cpu_description(c);
  fmt::print("cpu: {}, {}-byte vectors, measured in {:.1f} s\n", description.about, c.simd_bytes,
             c.seconds);
  return report(o, description,
                c.others_busy > device::kBusyShare
                    ? fmt::format("other work kept the CPUs {:.0f}% busy while measuring: the "
                                  "rates are too low and the launch floor too high; measure an "
                                  "idle machine",
                                  100 * c.others_busy)
                    : "");
}

int characterize_cuda(const CharacterizeOptions& o) {
#ifdef SCULPT_HAVE_CUDA
  fmt::print("measuring GPU 0{}...\n", o.quick ? " (quick: rough figures)" : "");
  std::fflush(stdout);
  device::GpuCharacteristics c;
  try {
    c = device::characterize_gpu({.quick = o.quick});
  } catch (const device::DeviceError& e) {
    return fail(e.what());
  }
  fmt::print("gpu: {}, measured in {:.1f} s\n", c.device, c.seconds);
  return report(o, device::gpu_description(c), "");
#else
  (void)o;
  return fail("this sculpt was built without CUDA support (cuda.h was not found at build time)");
#endif
}

int run_characterize(const CharacterizeOptions& o) {
  // Checked before measuring, which takes a while: the write itself can still fail (a full disk).
  if (!o.out.empty()) {
    const std::filesystem::path out(o.out);
    const std::filesystem::path folder = out.has_parent_path() ? out.parent_path() : ".";
    if (!std::filesystem::is_directory(folder)) {
      return fail(fmt::format("cannot write {}: no folder {}", o.out, folder.string()));
    }
    if (const std::string why = support::not_replaceable(out); !why.empty()) {
      return fail(fmt::format("cannot write {}: {}", o.out, why));
    }
  }
  return device::kind_named(o.device) == device::Kind::cuda ? characterize_cuda(o)
                                                            : characterize_cpu(o);
}

}  // namespace

Command add_characterize_command(CLI::App& sculpt) {
  auto o = std::make_shared<CharacterizeOptions>();
  CLI::App* app = sculpt.add_subcommand(
      "characterize", "Measure this machine's rates and write its device description");
  app->add_option("--device", o->device, "The device to measure: cpu, or cuda (GPU 0)")
      ->required()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app->add_option("--out", o->out, "Write the description (JSON) to this file")
      ->check(not_empty("no file: the figures are only printed"));
  app->add_flag("--quick", o->quick, "Rough figures in a few seconds (for tests)");
  return Command{app, [o] { return run_characterize(*o); }};
}

}  // namespace sculpt::explorer
