// `sculpt bound`: the lower bound of a candidate with its breakdown, from a search's log (the
// candidate rebuilt from its actions, its measured time beside the bound), or of a kernel's whole
// space (the root).
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "backbone/zoo/zoo.h"
#include "explorer/command.h"
#include "perf_model/model.h"
#include "search/device_description.h"
#include "search/event_log.h"
#include "support/duration.h"

namespace sculpt::explorer {
namespace {

using search::LogContents;
using search::LogEvaluation;
using search::read_log;

struct BoundOptions {
  std::string log;
  std::optional<std::int64_t> id;
  std::string kernel;
  std::string size;
  std::string description;
  bool counts = false;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "sculpt bound: %s\n", message.c_str());
  return kExitUsage;
}

/// The evaluation `id` of a log, else its best (the fastest correct one), else its last.
const LogEvaluation* pick(const LogContents& log, const std::optional<std::int64_t>& id) {
  const LogEvaluation* best = nullptr;
  for (const LogEvaluation& e : log.evaluations) {
    if (id) {
      if (e.id == *id) return &e;
      continue;
    }
    if (e.check == "ok" && (!best || *e.time_ns < *best->time_ns)) best = &e;
  }
  if (id) return nullptr;
  return best != nullptr || log.evaluations.empty() ? best : &log.evaluations.back();
}

/// Per instruction, what the model charges.
void print_counts(const perf_model::Bound& bound) {
  fmt::print("charged per instruction (warp instructions, global sectors, shared wavefronts):\n");
  for (const perf_model::InstructionCounts& c : bound.counts.instructions) {
    double instructions = 0;
    for (double n : c.charged) instructions += n;
    fmt::print("  {:<12} {:>12.4g} {:>12.4g} {:>12.4g}{}\n", c.name, instructions,
               c.charged_sectors, c.charged_wavefronts, c.exact ? "" : "  (at least)");
  }
  fmt::print("barriers per block {:g}, blocks {:g}, threads per block {:g} (at least)\n",
             bound.counts.barriers_per_block, bound.counts.blocks, bound.counts.threads_per_block);
}

int run_bound(const BoundOptions& o) {
  if (o.log.empty() == o.kernel.empty()) {
    return fail("give a search's log (or its run folder), or --kernel for a kernel's whole space");
  }
  if (!o.log.empty() && !o.size.empty()) return fail("--size goes with --kernel, not with a log");
  std::string kernel_name = o.kernel;
  std::string size = o.size;
  std::string device = "cuda";
  std::optional<LogContents> log;
  std::filesystem::path path;
  if (!o.log.empty()) {
    path = std::filesystem::is_directory(o.log) ? std::filesystem::path(o.log) / "log.jsonl"
                                                : std::filesystem::path(o.log);
    log = read_log(path);
    if (!log->ok()) return fail(log->error);
    kernel_name = log->header.kernel;
    size.clear();
    for (const auto& [name, value] : log->header.sizes) {
      size += (size.empty() ? "" : "x") + std::to_string(value);
    }
    device = log->header.device;
  }
  const backbone::ZooLookup lookup = backbone::lookup_kernel(kernel_name, size);
  if (!lookup.ok())
    return fail(log ? fmt::format("{}: {}", path.string(), lookup.error) : lookup.error);
  std::string error;
  const std::optional<perf_model::Description> description =
      search::device_description(device, o.description, &error);
  if (!description) return fail(error);
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, description->limits);
  if (root->conflict()) return fail("the space is empty: " + root->conflict()->to_string());
  const perf_model::Model model(kernel, *description);
  const std::string what = fmt::format("{} {} on {}", lookup.info->name,
                                       backbone::format_sizes(lookup.sizes), description->name);
  if (!log) {
    const perf_model::Bound bound = model.bound(*root);
    fmt::print("{}, every candidate:\n{}", what, bound.explain());
    if (o.counts) print_counts(bound);
    return kExitOk;
  }
  const LogEvaluation* e = pick(*log, o.id);
  if (e == nullptr) {
    return fail(o.id ? fmt::format("{} has no candidate {}", path.string(), *o.id)
                     : fmt::format("{} has no candidate", path.string()));
  }
  const std::unique_ptr<spacegen::CandidateBase> candidate = root->clone();
  if (candidate->apply(e->actions) == spacegen::Status::Conflict) {
    return fail(fmt::format("{}: candidate {} does not replay on this space: {}", path.string(),
                            e->id, candidate->conflict()->to_string()));
  }
  const perf_model::Bound bound = model.bound(static_cast<const gpu_space::Candidate&>(*candidate));
  fmt::print("{}, candidate {} of {}: {}{}\n{}", what, e->id, path.string(),
             e->time_ns ? "measured " + support::format_ns(*e->time_ns) : "not measured",
             e->check == "ok" ? "" : " (" + e->check + ")", bound.explain());
  if (e->time_ns) fmt::print("measured / bound: {:.3g}\n", *e->time_ns / bound.ns);
  if (o.counts) print_counts(bound);
  return kExitOk;
}

}  // namespace

Command add_bound_command(CLI::App& sculpt) {
  auto o = std::make_shared<BoundOptions>();
  CLI::App* app = sculpt.add_subcommand(
      "bound", "The lower bound on a candidate's time, with its breakdown, from a search's log");
  app->add_option("log", o->log,
                  "A search's log.jsonl, or its run folder (the candidate: --id, else the best)");
  app->add_option("--id", o->id, "The candidate of the log")->transform(decimal_int64());
  app->add_option("--kernel", o->kernel, "Instead of a log: a zoo kernel's whole space (its root)");
  add_size_option(*app, o->size);
  app->add_option("--description", o->description,
                  "Device description: a shipped one (sm_90, cpu) or a file (default: the log's "
                  "device, the GPU's sm_90 without a log)");
  app->add_flag("--counts", o->counts, "Also list what the model charges each instruction");
  return Command{app, [o] { return run_bound(*o); }};
}

}  // namespace sculpt::explorer
