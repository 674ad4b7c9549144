// `sculpt bound`: the lower bound of a candidate with its breakdown, from a search's log (the
// candidate rebuilt from its actions, its measured time beside the bound), or of a kernel's whole
// space (the root).
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "explorer/command.h"
#include "perf_model/model.h"
#include "search/gpu/logged_search.h"
#include "search/session/device_description.h"
#include "support/duration.h"
#include "zoo/zoo.h"

namespace sculpt::explorer {
namespace {

using search::LogEvaluation;

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

/// The bound of a kernel's whole space.
int bound_of_space(const BoundOptions& o) {
  const zoo::ZooLookup lookup = zoo::lookup_kernel(o.kernel, o.size);
  if (!lookup.ok()) return fail(lookup.error);
  std::string error;
  const std::optional<perf_model::Description> description =
      search::device_description(device::Kind::cuda, {}, o.description, &error);
  if (!description) return fail(error);
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, description->limits);
  if (root->conflict()) return fail("the space is empty: " + root->conflict()->to_string());
  const perf_model::Bound bound = perf_model::Model(kernel, *description).bound(*root);
  fmt::print("{} {} on {}, every candidate:\n{}", lookup.info->name,
             backbone::format_sizes(lookup.sizes), description->name, bound.explain());
  if (o.counts) print_counts(bound);
  return kExitOk;
}

/// The bound of a logged candidate: `--id`, else the best, else the last.
int bound_of_logged(const BoundOptions& o) {
  try {
    const search::LoggedSearch logged = search::LoggedSearch::open(o.log, o.description);
    if (const std::string warning = logged.truncation_warning(); !warning.empty()) {
      std::fprintf(stderr, "sculpt bound: warning: %s\n", warning.c_str());
    }
    const std::vector<LogEvaluation>& all = logged.log().evaluations;
    if (all.empty()) return fail(fmt::format("{} has no candidate", logged.path().string()));
    const std::vector<const LogEvaluation*> best = logged.fastest(1);
    const LogEvaluation& e = o.id ? logged.find(*o.id) : best.empty() ? all.back() : *best[0];
    const perf_model::Bound bound = logged.model().bound(*logged.rebuild(e));
    fmt::print("{} {} on {}, candidate {} of {}: {}{}\n{}", logged.info().name,
               backbone::format_sizes(logged.sizes()), logged.description().name, e.id,
               logged.path().string(),
               e.time_ns ? "measured " + support::format_ns(*e.time_ns) : "not measured",
               e.check == "ok" ? "" : " (" + e.check + ")", bound.explain());
    if (e.time_ns) fmt::print("measured / bound: {:.3g}\n", *e.time_ns / bound.ns);
    if (o.counts) print_counts(bound);
    return kExitOk;
  } catch (const std::runtime_error& e) {
    return fail(e.what());
  }
}

int run_bound(const BoundOptions& o) {
  if (o.log.empty() == o.kernel.empty()) {
    return fail("give a search's log (or its run folder), or --kernel for a kernel's whole space");
  }
  if (!o.log.empty() && !o.size.empty()) return fail("--size goes with --kernel, not with a log");
  return o.log.empty() ? bound_of_space(o) : bound_of_logged(o);
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
