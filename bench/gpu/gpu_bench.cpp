// Hand-fixed good candidates of the GPU space, or the best candidates of searches, for comparison
// with cuBLAS on the GPU machine: each is lowered, printed as PTX (and CUDA C, for people),
// checked and timed on the CUDA device (median of CUDA-event-timed launches), and described in
// OUT/cases.json so that compare.py can time the same PTX kernel-only under the profiler, like
// cuBLAS, beside the model's bound on its work (the bound less the launch, on the description of
// this GPU), which no kernel-only time may be below. Without a GPU it checks the candidates on the
// CPU device at small sizes instead (a smoke test of the recipes; a search's best runs at its own
// size).
//
//   bench_gpu OUT_DIR               the recipes (tests/recipes/recipes.h)
//   bench_gpu OUT_DIR RUN_DIR...    the best candidate of each search's run folder, named as
//                                   cublas_reference.py names its problem (axpy_2^26,
//                                   sgemm_MxNxK)
#include <fmt/format.h>

#include <bit>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "codegen/cuda_printer.h"
#include "codegen/device_code.h"
#include "codegen/lower.h"
#include "device/cpu_evaluator.h"
#include "perf_model/description.h"
#include "perf_model/model.h"
#include "search/log/event_log.h"
#include "search/session/candidate_evaluator.h"
#include "search/session/device_description.h"
#include "search/session/problem.h"
#include "tests/recipes/recipes.h"
#include "zoo/zoo.h"
#ifdef SCULPT_HAVE_CUDA
#include "device/cuda_evaluator.h"
#endif

using namespace sculpt;

namespace {

/// A candidate to time: a recipe's, or a search's best.
struct Case {
  std::string name;
  std::string kernel;
  std::string sizes;
  std::unique_ptr<gpu_space::Candidate> root;  // owns what `candidate` points into
  std::unique_ptr<recipes::HandCandidate> hand_owner;
  std::unique_ptr<spacegen::CandidateBase> replayed;
  const gpu_space::Candidate* candidate = nullptr;
  double flops = 0;
};

/// The name cublas_reference.py gives a problem: axpy_2^26, sgemm_MxNxK, else KERNEL_SIZES.
std::string reference_name(const std::string& kernel, const backbone::Sizes& sizes) {
  const auto& e = sizes.entries();
  if (kernel == "axpy" && e.size() == 1 &&
      std::has_single_bit(static_cast<std::uint64_t>(e[0].second))) {
    return fmt::format("axpy_2^{}", std::countr_zero(static_cast<std::uint64_t>(e[0].second)));
  }
  const std::string x = backbone::format_sizes(sizes);
  return (kernel == "matmul" ? "sgemm" : kernel) + "_" + x;
}

/// The best candidate of a search's run folder, replayed on today's space; exits with a message
/// when the folder has none.
Case best_of_run(const std::filesystem::path& dir) {
  const search::LogContents log = search::read_log(dir / "log.jsonl");
  if (!log.ok()) {
    std::fprintf(stderr, "bench_gpu: %s\n", log.error.c_str());
    std::exit(2);
  }
  const search::LogEvaluation* best = nullptr;
  for (const search::LogEvaluation& e : log.evaluations) {
    if (e.check == "ok" && (best == nullptr || *e.time_ns < *best->time_ns)) best = &e;
  }
  if (best == nullptr) {
    std::fprintf(stderr, "bench_gpu: %s holds no valid candidate\n", dir.c_str());
    std::exit(2);
  }
  std::string size;
  for (const auto& [name, value] : log.header.sizes)
    size += (size.empty() ? "" : "x") + std::to_string(value);
  const zoo::ZooLookup lookup = zoo::lookup_kernel(log.header.kernel, size);
  Case c;
  c.name = reference_name(log.header.kernel, lookup.sizes);
  c.kernel = log.header.kernel;
  c.sizes = size;
  c.root = gpu_space::make_root(lookup.info->build(lookup.sizes),
                                perf_model::Description::named("sm_90").limits);
  c.replayed = c.root->clone();
  if (c.replayed->apply(best->actions) != spacegen::Status::Ok ||
      c.replayed->first_open_instance()) {
    std::fprintf(stderr, "bench_gpu: %s: candidate %lld does not replay\n", dir.c_str(),
                 static_cast<long long>(best->id));
    std::exit(2);
  }
  c.candidate = static_cast<const gpu_space::Candidate*>(c.replayed.get());
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_gpu OUT_DIR [RUN_DIR...]\n");
    return 2;
  }
  const std::filesystem::path out = argv[1];
  std::filesystem::create_directories(out);
  std::unique_ptr<device::Evaluator> device;
  bool gpu = false;
#ifdef SCULPT_HAVE_CUDA
  std::string why;
  if (device::cuda_available(&why)) {
    device = std::make_unique<device::CudaEvaluator>();
    gpu = true;
  } else {
    std::fprintf(stderr, "no GPU (%s): checking the candidates on the CPU\n", why.c_str());
  }
#endif
  if (!device) device = std::make_unique<device::CpuEvaluator>();
  std::string error;
  const std::optional<perf_model::Description> description = search::device_description(
      device->kind(), device->architecture(), "", &error, device->model());
  if (!description) std::fprintf(stderr, "no bounds: %s\n", error.c_str());
  std::vector<Case> cases;
  if (argc > 2) {
    for (int i = 2; i < argc; ++i) cases.push_back(best_of_run(argv[i]));
  } else {
    for (const recipes::Recipe& recipe : recipes::benchmark_recipes()) {
      Case c;
      c.name = recipe.name;
      c.kernel = recipe.kernel;
      c.sizes = gpu ? recipe.sizes : recipe.small_sizes;
      c.flops = gpu ? recipe.flops : 0;  // the CPU smoke test's sizes have none to report
      const zoo::ZooLookup lookup = zoo::lookup_kernel(recipe.kernel, c.sizes);
      c.hand_owner = std::make_unique<recipes::HandCandidate>(lookup.info->build(lookup.sizes));
      recipe.decide(*c.hand_owner);
      c.candidate = &c.hand_owner->complete();
      cases.push_back(std::move(c));
    }
  }
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  int failures = 0;
  for (const Case& c : cases) {
    const zoo::ZooLookup lookup = zoo::lookup_kernel(c.kernel, c.sizes);
    const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
    const gpu_space::Candidate& candidate = *c.candidate;
    const codegen::LoweredKernel lowered = codegen::lower(candidate);
    const device::KernelCode code = codegen::kernel_code(
        candidate, gpu ? device::Language::ptx : device::Language::c, "sculpt_" + c.kernel);
    std::ofstream(out / (c.name + (gpu ? ".ptx" : ".c"))) << code.source;
    std::ofstream(out / (c.name + ".cu")) << codegen::print_cuda(lowered, "sculpt_" + c.kernel);
    std::ofstream(out / (c.name + ".txt")) << lowered.dump();
    const auto problem = search::make_problem(*lookup.info, lookup.sizes, kernel, 1);
    const device::Evaluation e = device->evaluate(code, problem);
    failures += e.check != device::Check::ok;
    nlohmann::ordered_json params = nlohmann::ordered_json::array();
    for (const device::Param& p : problem->params) {
      if (const auto* a = std::get_if<device::ArrayParam>(&p)) {
        params.push_back({{"name", a->name},
                          {"array", std::string(device::to_string(a->type))},
                          {"count", a->count}});
      } else {
        const auto& s = std::get<device::ScalarParam>(p);
        std::visit(
            [&](auto value) {
              params.push_back({{"name", s.name},
                                {"scalar", std::string(device::to_string(s.type()))},
                                {"value", value}});
            },
            s.value);
      }
    }
    const double us = e.time_ns ? *e.time_ns / 1e3 : 0;
    const double gflops = us > 0 ? c.flops / us / 1e3 : 0;
    double work_us = 0;
    if (description) {
      const perf_model::Bound b = perf_model::Model(kernel, *description).bound(candidate);
      work_us = (b.ns - b.launch_ns) / 1e3;
    }
    all.push_back({{"name", c.name},
                   {"kernel", c.kernel},
                   {"size", c.sizes},
                   {"file", c.name + (gpu ? ".ptx" : ".c")},
                   {"entry", code.entry},
                   {"grid", code.launch.grid},
                   {"block", code.launch.block},
                   {"shared_bytes", code.launch.shared_bytes},
                   {"params", params},
                   {"check", std::string(device::to_string(e.check))},
                   {"message", e.message},
                   {"event_us", us},
                   {"spread_us", e.spread_ns / 1e3},
                   {"gflops", gflops},
                   {"bound_work_us", work_us}});
    fmt::print("{:<24} {:<14} {:>10.2f} us  {:>8.1f} GFLOP/s  {}\n", c.name,
               std::string(device::to_string(e.check)), us, gflops, e.message.substr(0, 120));
  }
  std::ofstream(out / "cases.json") << all.dump(1);
  return failures == 0 ? 0 : 1;
}
