#include "explorer/search_run.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <system_error>

#include "codegen/device_code.h"
#include "explorer/command.h"
#include "explorer/device_choice.h"
#include "frontend/definition.h"
#include "gpu_space/space.h"
#include "perf_model/model.h"
#include "report/html_report.h"
#include "search/gpu/code_features.h"
#include "search/gpu/device_evaluator.h"
#include "search/gpu/logged_search.h"
#include "search/session/candidate_evaluator.h"
#include "search/session/device_defaults.h"
#include "search/session/device_description.h"
#include "search/session/problem.h"
#include "search/session/stand_in_device.h"
#include "support/check.h"
#include "support/error.h"
#include "support/hash.h"
#include "zoo/zoo.h"

namespace sculpt::explorer {
namespace {

/// A --start-from log's candidates evaluated first: its fastest, as many as MCTS keeps best
/// candidates to draw neighbours from.
const std::size_t kStartsPerLog = static_cast<std::size_t>(search::MctsOptions{}.topk);

/// The kernel `request` names and its sizes: a zoo kernel, or one of the request's definitions,
/// then held in `defined`. Throws sculpt::Error.
const backbone::KernelInfo* choose_kernel(const SearchRequest& request,
                                          std::optional<backbone::KernelInfo>& defined,
                                          backbone::Sizes& sizes) {
  if (request.definition.empty()) {
    const zoo::ZooLookup lookup = zoo::lookup_kernel(request.kernel, request.size);
    if (!lookup.ok()) throw Error(Error::Kind::usage, lookup.error);
    sizes = lookup.sizes;
    return lookup.info;
  }
  frontend::DefinitionLookup lookup = frontend::lookup_definition(
      request.definition, request.definition_file, request.kernel, request.size);
  if (!lookup.ok()) throw Error(Error::Kind::usage, lookup.error);
  if (!lookup.info) {
    std::string example;
    for (const std::string& size : lookup.definition->sizes) example += "," + size + "=...";
    throw Error(Error::Kind::usage,
                "the sizes of a definition are given by name: --size " + example.substr(1));
  }
  defined = std::move(lookup.info);
  sizes = lookup.sizes;
  return &*defined;
}

}  // namespace

struct SearchRun::State {
  SearchRequest request;
  const backbone::KernelInfo* info = nullptr;
  /// The kernel of a definition, which `info` then points to.
  std::optional<backbone::KernelInfo> defined;
  backbone::Sizes sizes;
  /// The device, when this process measures on it.
  std::unique_ptr<device::Evaluator> device;
  /// As device::Evaluator says, whichever device measures.
  device::Kind device_kind = device::Kind::cpu;
  std::string device_architecture;
  std::string device_model;
  perf_model::Description description;
  std::unique_ptr<backbone::Kernel> kernel;
  std::unique_ptr<gpu_space::Candidate> root;
  std::unique_ptr<perf_model::Model> model;
  std::unique_ptr<search::CandidateEvaluator> evaluator;
  /// The session's options, its starts included, until open_folder() makes the session.
  search::SessionOptions session_options;
  /// What MCTS's learnt model reads of a candidate.
  search::CodeFeatures features;
  std::unique_ptr<search::Session> session;
  std::string what;
  std::filesystem::path dir;
  std::optional<search::RunFolder> folder;
  /// Whether this run made the folder (then a failure before its first evaluation removes it).
  bool made_dir = false;
  std::int64_t logged = 0;

  /// Adds the fastest candidates of another search of the kernel to the starts. Throws
  /// sculpt::Error for a log that cannot be read or is of another kernel.
  void add_starts(const std::filesystem::path& path) {
    search::LoggedStarts starts;
    try {
      starts = search::logged_starts(path, kStartsPerLog);
    } catch (const std::runtime_error& e) {
      throw Error(Error::Kind::usage, fmt::format("--start-from: {}", e.what()));
    }
    if (starts.kernel != info->name) {
      throw Error(Error::Kind::usage, fmt::format("--start-from {}: a search of {}, not of {}",
                                                  starts.path.string(), starts.kernel, info->name));
    }
    if (starts.actions.empty()) {
      spdlog::warn("--start-from {}: no candidate of it checked ok", starts.path.string());
    }
    for (auto& actions : starts.actions) session_options.starts.push_back(std::move(actions));
  }

  /// Whether a stop was requested (a Ctrl-C) before the session runs, which then sees it itself.
  bool stop_requested() const {
    return request.session.stop_requested && request.session.stop_requested();
  }
  /// Throws sculpt::Error (kExitInterrupted) when a stop was requested: a step before the session
  /// (making the device, the space, a resume's recall) ends there rather than let the search
  /// start.
  void stop_if_asked() const {
    if (stop_requested()) {
      throw Error(Error::Kind::interrupted, "before the search started");
    }
  }

  /// The code of a logged candidate, rebuilt from its actions.
  device::KernelCode code_of(const std::vector<spacegen::Action>& actions) const {
    const std::unique_ptr<spacegen::CandidateBase> candidate = root->clone();
    SCULPT_CHECK(candidate->apply(actions) == spacegen::Status::Ok)
        << "a recalled candidate does not replay";
    return codegen::kernel_code(static_cast<const gpu_space::Candidate&>(*candidate),
                                device::language_of(device_kind), "candidate");
  }
};

SearchRun::SearchRun(const SearchRequest& request) : s_(std::make_unique<State>()) {
  State& s = *s_;
  s.request = request;
  s.info = choose_kernel(request, s.defined, s.sizes);
  std::string error;
  if (request.remote) {
    s.device_kind = request.remote->kind;
    s.device_architecture = request.remote->architecture;
    s.device_model = request.remote->model;
  } else if (device::kind_named(request.device) == device::Kind::stand_in) {
    s.device_kind = device::Kind::stand_in;
    s.device_architecture = s.device_model = device::name(device::Kind::stand_in);
  } else {
    s.device = make_device(request.device, &error);
    if (!s.device) throw Error(Error::Kind::environment, error);
    s.device_kind = s.device->kind();
    s.device_architecture = s.device->architecture();
    s.device_model = s.device->model();
  }
  s.stop_if_asked();
  if (const std::int64_t points = search::defaults_for(s.device_kind).default_points;
      request.size.empty() && points > 0) {
    s.sizes = backbone::scaled_down(s.sizes, points);
  }
  std::optional<perf_model::Description> description = search::device_description(
      s.device_kind, s.device_architecture, request.description, &error, s.device_model);
  if (!description) throw Error(Error::Kind::usage, error);
  s.description = std::move(*description);
  s.stop_if_asked();
  if (s.device_kind == device::Kind::cuda && request.description.empty() &&
      s.device_model != s.description.about) {
    spdlog::warn(
        "sculpt ships no description of the {}: the model reads {}'s ({}), whose bounds may "
        "misjudge it; `sculpt characterize --device cuda --out FILE` measures it for "
        "--description FILE",
        s.device_model, s.description.name, s.description.about);
  }
  s.kernel = std::make_unique<backbone::Kernel>(s.info->build(s.sizes));
  s.root = gpu_space::make_root(*s.kernel, s.description.limits);
  s.stop_if_asked();
  if (s.root->conflict()) {
    throw Error(
        Error::Kind::nothing_valid,
        fmt::format("the space of {} is empty: {}", s.info->name, s.root->conflict()->to_string()));
  }
  s.model = std::make_unique<perf_model::Model>(*s.kernel, s.description);
  if (request.remote) {
    s.evaluator = request.remote->open(s.info->name, s.sizes, request.session.seed);
  } else if (s.device) {
    s.evaluator = std::make_unique<search::DeviceEvaluator>(
        *s.device, search::make_problem(*s.info, s.sizes, *s.kernel, request.session.seed));
  } else {
    s.evaluator = std::make_unique<search::StandInDevice>(request.stand_in_latency);
  }
  s.session_options = request.session;
  s.session_options.features = &s.features;
  for (const std::filesystem::path& path : request.start_from) {
    s.add_starts(path);
    s.stop_if_asked();
  }
  const std::string sizes = backbone::format_sizes(s.sizes);
  s.what = fmt::format("{} {} on {}", s.info->name, sizes, device::name(s.device_kind));
  s.dir = request.out.empty() ? std::filesystem::path("runs") / (s.info->name + "-" + sizes)
                              : request.out;
}

SearchRun::~SearchRun() = default;

const std::string& SearchRun::what() const { return s_->what; }
const backbone::KernelInfo& SearchRun::kernel() const { return *s_->info; }
const backbone::Sizes& SearchRun::sizes() const { return s_->sizes; }
const backbone::Kernel& SearchRun::backbone() const { return *s_->kernel; }
const std::string& SearchRun::device_model() const { return s_->device_model; }
std::uint64_t SearchRun::space_hash() const { return s_->root->table().model_hash; }
std::uint64_t SearchRun::description_hash() const {
  return support::Fnv1a().add(s_->description.to_json()).value();
}
std::int64_t SearchRun::logged() const { return s_->logged; }

void SearchRun::start_from(const std::filesystem::path& log) {
  SCULPT_CHECK(!s_->session) << "start_from() before open_folder()";
  try {
    s_->add_starts(log);
  } catch (const Error& e) {
    spdlog::warn("{}; the search starts without it", e.what());
  }
}

void SearchRun::open_folder() {
  State& s = *s_;
  s.session =
      std::make_unique<search::Session>(*s.root, *s.evaluator, s.model.get(), s.session_options);
  const search::SessionOptions& options = s.request.session;
  search::RunFolder::Identity identity{
      {1, s.info->name, s.sizes.entries(), s.device_kind, space_hash(), options.seed,
       std::string(search::to_string(options.algorithm)), s.device_model},
      device::language_of(s.device_kind),
      s.what};
  try {
    if (s.request.resume) {
      // The log is replayed into the session (the tree, the cut, what was measured), and the
      // best file mended if a crash left it behind the log.
      s.folder.emplace(search::RunFolder::resume(
          s.dir, identity, [&](const search::LogEvaluation& e, std::size_t) {
            // A stop refuses the rest of the log; the catch below says why.
            if (s.stop_requested()) return std::string("interrupted");
            std::string why;
            s.session->recall(e.id, e.actions, e.check == "ok" ? e.time_ns : std::nullopt, &why);
            return why;
          }));
      if (s.folder->best_code_stale())
        s.folder->write_best_code(s.code_of(s.folder->best()->actions));
    } else {
      std::error_code error;
      s.made_dir = !std::filesystem::exists(s.dir, error);
      s.folder.emplace(search::RunFolder::create(s.dir, identity));
      // What `sculpt report` and `sculpt replay` rebuild a definition's kernel from.
      if (!s.request.definition.empty()) {
        frontend::save_definition(s.dir, s.request.definition);
      }
    }
  } catch (const std::runtime_error& e) {
    s.stop_if_asked();
    throw Error(Error::Kind::usage, e.what());
  }
  s.logged = s.folder->evaluations();
}

SearchOutcome SearchRun::run(const std::function<void(const SearchProgressState&)>& progress) {
  State& s = *s_;
  SCULPT_CHECK(s.folder) << "open_folder() first";
  search::RunFolder& folder = *s.folder;
  SearchOutcome outcome;
  SearchProgressState state;
  state.requested = s.request.session.evals;
  if (folder.best()) state.first_ok_ns = folder.best()->time_ns;
  std::string failure;
  try {
    outcome.stats = s.session->run([&](search::Evaluated&& e) {
      folder.record(e);
      const std::optional<search::LogEvaluation>& best = folder.best();
      state.evaluations = folder.evaluations();
      state.new_best = best && best->id == e.id;
      if (state.new_best) outcome.best_code = e.code;
      if (!state.first_ok_ns && e.evaluation.check == device::Check::ok)
        state.first_ok_ns = e.evaluation.time_ns;
      if (best) {
        state.best_ns = best->time_ns;
        state.best_id = best->id;
      }
      progress(state);
    });
    folder.record(outcome.stats);
  } catch (const device::DeviceError& e) {
    failure = std::string("the device failed: ") + e.what();
  } catch (const std::runtime_error& e) {
    failure = e.what();  // the log cannot be written
  }
  if (!failure.empty()) {
    // A problem the device refuses fails before its first evaluation: the folder goes, so that
    // it is not in the way of the next search.
    if (s.made_dir && folder.evaluations() == 0) {
      const std::filesystem::path dir = folder.dir();
      s.folder.reset();
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
    throw Error(Error::Kind::environment, failure);
  }
  outcome.counts = folder.counts();
  outcome.evaluations = folder.evaluations();
  outcome.best = folder.best();
  outcome.best_code_path = folder.best_code_path();
  if (outcome.best && !outcome.best_code) {
    // The best was found by an earlier run of a resumed search.
    outcome.best_code = s.code_of(outcome.best->actions);
  }
  outcome.dir = folder.dir();
  outcome.log = folder.log_path();
  try {
    const std::filesystem::path report = folder.dir() / "report.html";
    report::write_report(search::LoggedSearch::open(folder.log_path(), s.request.description),
                         report);
    outcome.report = report;
  } catch (const std::runtime_error& e) {
    outcome.report_error = e.what();
  }
  return outcome;
}

}  // namespace sculpt::explorer
