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
#include <functional>
#include <nlohmann/json.hpp>

#include "backbone/zoo/zoo.h"
#include "codegen/cuda_printer.h"
#include "codegen/lower.h"
#include "device/cpu_evaluator.h"
#include "search/hand_candidate.h"
#include "search/problem.h"
#include "search/random_search.h"
#include "search/recipes.h"
#ifdef SCULPT_HAVE_CUDA
#include "device/cuda_evaluator.h"
#endif

namespace {

using namespace sculpt;

struct Case {
  std::string name;      // as in cublas_reference.py
  std::string kernel;    // zoo kernel
  std::string size;      // on the GPU
  std::string cpu_size;  // for the CPU smoke test
  std::function<void(search::HandCandidate&)> decide;
  double flops = 0;
};

std::vector<Case> cases() {
  auto mm = [](std::string name, std::string size, std::string cpu_size, double m, double n,
               double k, std::int64_t tm, std::int64_t rm, std::int64_t tn, std::int64_t rn,
               std::int64_t kt) {
    return Case{std::move(name),
                "matmul",
                std::move(size),
                std::move(cpu_size),
                [=](search::HandCandidate& c) { search::tiled_matmul(c, tm, rm, tn, rn, kt); },
                2 * m * n * k};
  };
  return {
      Case{"axpy_2^26", "axpy", "67108864", "65536", [](auto& c) { search::vector_axpy(c, 256, 4); },
           2.0 * (1 << 26)},
      mm("sgemm_1024x1024x1024", "1024x1024x1024", "128x128x32", 1024, 1024, 1024, 16, 8, 16, 8, 8),
      mm("sgemm_4096x4096x4096", "4096x4096x4096", "128x128x32", 4096, 4096, 4096, 16, 8, 16, 8, 8),
      mm("sgemm_256x256x32", "256x256x32", "64x64x32", 256, 256, 32, 16, 4, 16, 4, 8),
  };
}

}  // namespace

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
  for (const Case& c : cases()) {
    const backbone::ZooLookup lookup = backbone::lookup_kernel(c.kernel, gpu ? c.size : c.cpu_size);
    const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
    search::HandCandidate hand(kernel);
    c.decide(hand);
    const gpu_space::Candidate& candidate = hand.complete();
    const codegen::LoweredKernel lowered = codegen::lower(candidate);
    const device::KernelCode code = search::kernel_code(
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
    // The flops are those of the GPU size: the CPU smoke test has none to report.
    const double gflops = gpu && us > 0 ? c.flops / us / 1e3 : 0;
    all.push_back({{"name", c.name},
                   {"kernel", c.kernel},
                   {"size", gpu ? c.size : c.cpu_size},
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
                   {"gflops", gflops}});
    fmt::print("{:<24} {:<14} {:>10.2f} us  {:>8.1f} GFLOP/s  {}\n", c.name,
               std::string(device::to_string(e.check)), us, gflops, e.message.substr(0, 120));
  }
  std::ofstream(out / "cases.json") << all.dump(1);
  return failures == 0 ? 0 : 1;
}
