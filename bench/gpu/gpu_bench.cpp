// Hand-fixed good candidates of the GPU space, for comparison with cuBLAS on the GPU machine:
// each is lowered, printed as PTX (and CUDA C, for people), checked and timed on the CUDA
// device (median of CUDA-event-timed launches), and described in OUT/cases.json so that
// compare.py can time the same PTX kernel-only under the profiler, like cuBLAS. Without a GPU it
// checks the candidates on the CPU device at small sizes instead (a smoke test of the recipes).
//
//   bench_gpu OUT_DIR
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backbone/zoo/zoo.h"
#include "codegen/cuda_printer.h"
#include "codegen/lower.h"
#include "device/cpu_evaluator.h"
#include "search/candidate_evaluator.h"
#include "search/problem.h"
#include "search/recipes.h"
#ifdef SCULPT_HAVE_CUDA
#include "device/cuda_evaluator.h"
#endif

using namespace sculpt;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_gpu OUT_DIR\n");
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
    std::fprintf(stderr, "no GPU (%s): checking the recipes on the CPU at small sizes\n",
                 why.c_str());
  }
#endif
  if (!device) device = std::make_unique<device::CpuEvaluator>();
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  int failures = 0;
  for (const search::Recipe& recipe : search::benchmark_recipes()) {
    const std::string& sizes = gpu ? recipe.sizes : recipe.small_sizes;
    const backbone::ZooLookup lookup = backbone::lookup_kernel(recipe.kernel, sizes);
    const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
    search::HandCandidate hand(kernel);
    recipe.decide(hand);
    const gpu_space::Candidate& candidate = hand.complete();
    const codegen::LoweredKernel lowered = codegen::lower(candidate);
    const device::KernelCode code = search::kernel_code(
        candidate, gpu ? device::Language::ptx : device::Language::c, "sculpt_" + recipe.kernel);
    std::ofstream(out / (recipe.name + (gpu ? ".ptx" : ".c"))) << code.source;
    std::ofstream(out / (recipe.name + ".cu"))
        << codegen::print_cuda(lowered, "sculpt_" + recipe.kernel);
    std::ofstream(out / (recipe.name + ".txt")) << lowered.dump();
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
    // The flops are those of the GPU size: the CPU smoke test has none to report.
    const double gflops = gpu && us > 0 ? recipe.flops / us / 1e3 : 0;
    all.push_back({{"name", recipe.name},
                   {"kernel", recipe.kernel},
                   {"size", sizes},
                   {"file", recipe.name + (gpu ? ".ptx" : ".c")},
                   {"entry", code.entry},
                   {"grid", code.launch.grid},
                   {"block", code.launch.block},
                   {"shared_bytes", code.launch.shared_bytes},
                   {"params", params},
                   {"check", std::string(device::to_string(e.check))},
                   {"message", e.message},
                   {"event_us", us},
                   {"spread_us", e.spread_ns / 1e3},
                   {"gflops", gflops}});
    fmt::print("{:<24} {:<14} {:>10.2f} us  {:>8.1f} GFLOP/s  {}\n", recipe.name,
               std::string(device::to_string(e.check)), us, gflops, e.message.substr(0, 120));
  }
  std::ofstream(out / "cases.json") << all.dump(1);
  return failures == 0 ? 0 : 1;
}
