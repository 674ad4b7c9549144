// `sculpt replay`: rebuilds logged candidates from their actions on today's space and prints their
// code, or checks and times them again on a device (a CPU search's candidates on a GPU included).
#include <fmt/format.h>

#include <cstdio>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "codegen/cuda_printer.h"
#include "codegen/device_code.h"
#include "codegen/lower.h"
#include "explorer/command.h"
#include "explorer/device_choice.h"
#include "search/gpu/logged_search.h"
#include "search/log/best_code.h"
#include "search/session/candidate_evaluator.h"
#include "search/session/problem.h"
#include "support/duration.h"

namespace sculpt::explorer {
namespace {

struct ReplayOptions {
  std::string log;
  std::optional<std::int64_t> best;
  std::optional<std::int64_t> id;
  std::string emit;
  bool measure = false;
  std::string device = "auto";
  std::string description;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "sculpt replay: %s\n", message.c_str());
  return kExitUsage;
}

/// The logged device's own language: what its best file holds.
std::string logged_language(const search::LoggedSearch& logged) {
  return device::language_of(logged.log().header.device) == device::Language::ptx ? "ptx" : "c";
}

/// The code of `candidate` in `language` (c, ptx or cuda), as a best file holds it below its
/// header line.
std::string listing(const gpu_space::Candidate& candidate, const std::string& language) {
  if (language == "cuda") {
    const codegen::LoweredKernel lowered = codegen::lower(candidate);
    return search::launch_comment("candidate", codegen::launch_config(lowered)) +
           codegen::print_cuda(lowered, "candidate");
  }
  return search::code_listing(codegen::kernel_code(
      candidate, language == "ptx" ? device::Language::ptx : device::Language::c, "candidate"));
}

/// "ok, 1.21 ms (spread 0.01 ms over 10 runs)", or the check and its message.
std::string describe(const device::Evaluation& e) {
  std::string text(device::to_string(e.check));
  if (e.time_ns) {
    const auto [scale, unit] = support::duration_unit(*e.time_ns);
    text += fmt::format(", {} (spread {:.2g} {} over {} runs)", support::format_ns(*e.time_ns),
                        e.spread_ns / scale, unit, e.runs);
  }
  if (!e.message.empty()) text += ": " + e.message.substr(0, e.message.find('\n'));
  return text;
}

/// Measures the candidates on the device `o.device` names, one line each; false when one of them
/// did not check ok. Throws device::DeviceError when the device fails.
bool measure(const search::LoggedSearch& logged,
             const std::vector<std::pair<const search::LogEvaluation*,
                                         std::unique_ptr<gpu_space::Candidate>>>& candidates,
             device::Evaluator& device) {
  const std::shared_ptr<const device::Problem> problem = search::make_problem(
      logged.info(), logged.sizes(), logged.kernel(), logged.log().header.seed);
  const device::Language language = device::language_of(device.kind());
  std::vector<std::future<device::Evaluation>> evaluations;
  for (const auto& [e, candidate] : candidates)
    evaluations.push_back(
        device.submit(codegen::kernel_code(*candidate, language, "candidate"), problem));
  bool all_ok = true;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const search::LogEvaluation& e = *candidates[i].first;
    const device::Evaluation now = evaluations[i].get();
    all_ok = all_ok && now.check == device::Check::ok;
    fmt::print("candidate {} on {}: {}; logged on {}: {}{}\n", e.id, device.name(), describe(now),
               device::name(logged.log().header.device), e.check,
               e.time_ns ? ", " + support::format_ns(*e.time_ns) : std::string());
  }
  return all_ok;
}

int run_replay(const ReplayOptions& o) {
  if (o.best && *o.best < 1) return fail("--best must be at least 1");
  std::optional<search::LoggedSearch> logged;
  try {
    logged.emplace(search::LoggedSearch::open(o.log, o.description));
  } catch (const std::runtime_error& e) {
    return fail(e.what());
  }
  // A search killed while writing a line: the log is left as it is, for --resume to mend.
  if (const std::string warning = logged->truncation_warning(); !warning.empty()) {
    std::fprintf(stderr, "sculpt replay: warning: %s\n", warning.c_str());
  }

  std::vector<const search::LogEvaluation*> chosen;
  try {
    if (o.id) {
      chosen.push_back(&logged->find(*o.id));
    } else {
      chosen = logged->fastest(static_cast<std::size_t>(o.best.value_or(1)));
      if (chosen.empty()) {
        return fail(fmt::format("{}: no candidate checked ok (--id replays another)",
                                logged->path().string()));
      }
    }
  } catch (const std::runtime_error& e) {
    return fail(e.what());
  }
  std::vector<std::pair<const search::LogEvaluation*, std::unique_ptr<gpu_space::Candidate>>>
      candidates;
  try {
    for (const search::LogEvaluation* e : chosen) candidates.emplace_back(e, logged->rebuild(*e));
  } catch (const std::runtime_error& e) {
    return fail(e.what());
  }

  // The code alone for one candidate (what its best file holds below the header line), a
  // header line before each of several.
  if (!o.measure || !o.emit.empty()) {
    const std::string language = o.emit.empty() ? logged_language(*logged) : o.emit;
    for (const auto& [e, candidate] : candidates) {
      if (candidates.size() > 1) {
        fmt::print("// sculpt replay: candidate {} of {}{}\n", e->id, logged->what(),
                   e->time_ns ? ", " + support::format_ns(*e->time_ns) : std::string());
      }
      fmt::print("{}", listing(*candidate, language));
    }
  }
  if (!o.measure) return kExitOk;
  std::string error;
  const std::unique_ptr<device::Evaluator> device = make_device(o.device, &error);
  if (!device) return fail(error);
  try {
    return measure(*logged, candidates, *device) ? kExitOk : kExitNothingValid;
  } catch (const device::DeviceError& e) {
    return fail(std::string("the device failed: ") + e.what());
  }
}

}  // namespace

Command add_replay_command(CLI::App& sculpt) {
  auto o = std::make_shared<ReplayOptions>();
  CLI::App* app = sculpt.add_subcommand(
      "replay", "Rebuild logged candidates from a search's log: print their code, or time them");
  app->add_option("log", o->log, "A search's run folder, or its log.jsonl")->required();
  CLI::Option* best =
      app->add_option("--best", o->best, "The N fastest candidates (default: the best)")
          ->transform(decimal_int64());
  app->add_option("--id", o->id, "The candidate of this id")
      ->transform(decimal_int64())
      ->excludes(best);
  app->add_option("--emit", o->emit,
                  "Code to print: c, ptx or cuda (default: the logged device's, as in the run "
                  "folder's best file; with --measure, none unless asked)")
      ->check(CLI::IsMember({"c", "ptx", "cuda"}));
  app->add_flag("--measure", o->measure,
                "Check and time the candidates again on a device (exit 1 when one is not ok)");
  app->add_option("--device", o->device,
                  "With --measure: auto (the GPU when one answers), cpu "
                  "or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  app->add_option("--description", o->description,
                  "Device description the space is rebuilt with: a shipped one (sm_90, cpu) or a "
                  "file (default: the logged device's)");
  return Command{app, [o] { return run_replay(*o); }};
}

}  // namespace sculpt::explorer
