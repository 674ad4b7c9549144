// Random fully specified candidates of every zoo kernel, at its test sizes, and of the kernels of
// frontend/examples/kernels.tc (comparisons, selects and sqrt, which no zoo kernel has, among
// them), checked by the CUDA toolkit for the GPU they target, on any machine that has the toolkit,
// GPU or not: their PTX assembled by ptxas, and their CUDA C (the printer for people) compiled by
// nvcc. Each test skips when its tool is not found or refuses a minimal input of ours (an older
// toolkit): $SCULPT_PTXAS / $SCULPT_NVCC, else the tool on PATH, in $CUDA_HOME/bin or
// /usr/local/cuda/bin. SCULPT_CANDIDATES changes the count per kernel (20 for ptxas, 3 for the
// slower nvcc by default). A failure prints the tool's messages, the candidate's decisions and
// where its code was written. ptxas also assembles the GPU characterization's microbenchmarks,
// where the CUDA device is built.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>

#include "codegen/cuda_printer.h"
#include "codegen/device_code.h"
#include "codegen/lower.h"
#include "codegen/ptx_printer.h"
#include "frontend/definition.h"
#include "gpu_space/space.h"
#include "perf_model/description.h"
#include "search/session/candidate_evaluator.h"
#include "search/session/descent.h"
#include "tests/frontend/new_kernels.h"
#include "tests/zoo/zoo_names.h"
#include "zoo/zoo.h"
#ifdef SCULPT_HAVE_CUDA
#include "device/gpu_characterization.h"
#endif

namespace sculpt::codegen {
namespace {

namespace fs = std::filesystem;

/// `tool` of the CUDA toolkit; empty when not found.
std::string find_tool(const std::string& tool, const char* variable) {
  if (const char* explicit_path = std::getenv(variable)) return explicit_path;
  std::vector<fs::path> folders;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream entries(path);
    for (std::string entry; std::getline(entries, entry, ':');) folders.emplace_back(entry);
  }
  if (const char* cuda_home = std::getenv("CUDA_HOME"))
    folders.emplace_back(fs::path(cuda_home) / "bin");
  folders.emplace_back("/usr/local/cuda/bin");
  for (const fs::path& folder : folders) {
    std::error_code error;
    if (!folder.empty() && fs::is_regular_file(folder / tool, error)) return folder / tool;
  }
  return "";
}

struct ToolRun {
  bool ok = false;
  std::string log;  // what the tool printed
};

/// Runs `command` (stderr joined to stdout).
ToolRun run_tool(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {false, "cannot run " + command};
  ToolRun result;
  std::array<char, 4096> buffer;
  for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) {
    result.log.append(buffer.data(), n);
  }
  const int status = pclose(pipe);
  result.ok = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return result;
}

/// A folder of this process's own (ctest runs the kernels in parallel).
fs::path scratch_folder() {
  return fs::path(testing::TempDir()) / ("sculpt_toolkit_" + std::to_string(getpid()));
}

fs::path write_file(const std::string& name, const std::string& text) {
  fs::create_directories(scratch_folder());
  std::ofstream(scratch_folder() / name) << text;
  return scratch_folder() / name;
}

/// One toolkit check: which tool, how it takes a file, and the code it takes.
struct Tool {
  std::string name;      // "ptxas"
  const char* variable;  // that overrides the search for it
  std::string extension;
  /// The command line that compiles `file` for sm_<cc>, its output thrown away.
  std::function<std::string(const std::string& tool, const fs::path& file, int cc)> command;
  /// The smallest input of ours: an older toolkit refuses its header or target.
  std::function<std::string(int cc)> minimal;
  std::function<std::string(const gpu_space::Candidate&)> code;
  int candidates = 0;  // per kernel, unless SCULPT_CANDIDATES says
};

int compute_capability() {
  return perf_model::Description::named("sm_90").limits.compute_capability;
}

const Tool kPtxas{"ptxas",
                  "SCULPT_PTXAS",
                  ".ptx",
                  [](const std::string& tool, const fs::path& file, int cc) {
                    return fmt::format("'{}' -arch=sm_{} -o /dev/null '{}'", tool, cc,
                                       file.string());
                  },
                  [](int cc) {
                    return fmt::format(".version {}\n.target sm_{}\n.address_size 64\n",
                                       PtxOptions{}.version, cc);
                  },
                  [](const gpu_space::Candidate& c) {
                    return codegen::kernel_code(c, device::Language::ptx, "candidate").source;
                  },
                  20};

const Tool kNvcc{"nvcc",
                 "SCULPT_NVCC",
                 ".cu",
                 [](const std::string& tool, const fs::path& file, int cc) {
                   return fmt::format("'{}' -arch=sm_{} -c -o /dev/null '{}'", tool, cc,
                                      file.string());
                 },
                 [](int) { return std::string("extern \"C\" __global__ void candidate() {}\n"); },
                 [](const gpu_space::Candidate& c) { return print_cuda(lower(c), "candidate"); },
                 3};

class CudaToolkit : public testing::TestWithParam<std::string> {
 protected:
  /// Skips the test unless `tool` is found and compiles its minimal input.
  void find(const Tool& tool) {
    path_ = find_tool(tool.name, tool.variable);
    if (path_.empty()) GTEST_SKIP() << "no " << tool.name << " (CUDA toolkit) found";
    const fs::path file =
        write_file("minimal" + tool.extension, tool.minimal(compute_capability()));
    const ToolRun probe = run_tool(tool.command(path_, file, compute_capability()));
    if (!probe.ok) GTEST_SKIP() << path_ << " refuses a minimal input of ours:\n" << probe.log;
  }

  /// The test's kernel: a zoo kernel at its test sizes, or a definition of kernels.tc.
  static std::optional<backbone::Kernel> kernel_of(const std::string& name) {
    if (const backbone::KernelInfo* zoo = zoo::find_kernel(name)) {
      return zoo->build(backbone::test_sizes(zoo->sizes));
    }
    const frontend::DefinitionLookup lookup = frontend::testing::lookup_new_kernel(name);
    EXPECT_TRUE(lookup.ok()) << lookup.error;
    if (!lookup.ok()) return std::nullopt;
    return lookup.info->build(lookup.sizes);
  }

  /// Random candidates of the test's kernel through `tool`: no error, no warning.
  void check_candidates(const Tool& tool) {
    const std::optional<backbone::Kernel> found = kernel_of(GetParam());
    ASSERT_TRUE(found);
    const backbone::Kernel& kernel = *found;
    const auto root = gpu_space::make_root(kernel, perf_model::Description::named("sm_90").limits);
    ASSERT_FALSE(root->conflict()) << root->conflict()->to_string();
    std::mt19937_64 rng(std::hash<std::string>()(kernel.name()) + 2);
    int compiled = 0;
    int failures = 0;
    const char* count = std::getenv("SCULPT_CANDIDATES");
    const int candidates = count != nullptr ? std::atoi(count) : tool.candidates;
    for (int i = 0; i < candidates; ++i) {
      search::Descent descent = search::random_descent(*root, rng);
      if (!descent.candidate) continue;
      const fs::path file =
          write_file(kernel.name() + "_" + std::to_string(i) + tool.extension,
                     tool.code(static_cast<const gpu_space::Candidate&>(*descent.candidate)));
      const ToolRun result = run_tool(tool.command(path_, file, compute_capability()));
      if (result.ok && result.log.find("warning") == std::string::npos) {
        ++compiled;
        continue;
      }
      if (++failures > 3) continue;  // the first few say enough
      std::string actions;
      for (const spacegen::Action& a : descent.actions) actions += spacegen::to_json(a) + "\n";
      ADD_FAILURE() << kernel.name() << ": " << tool.name << (result.ok ? " warned" : " failed")
                    << " on " << file << ":\n"
                    << result.log << "decisions:\n"
                    << actions;
    }
    EXPECT_EQ(failures, 0) << failures << " candidates did not compile cleanly";
    RecordProperty("compiled", compiled);
  }

  // A failure keeps the code it names.
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(scratch_folder());
  }

  std::string path_;
};

TEST_P(CudaToolkit, PtxOfRandomCandidatesAssembles) {
  find(kPtxas);
  if (IsSkipped()) return;
  check_candidates(kPtxas);
}

TEST_P(CudaToolkit, CudaCOfRandomCandidatesCompiles) {
  find(kNvcc);
  if (IsSkipped()) return;
  check_candidates(kNvcc);
}

INSTANTIATE_TEST_SUITE_P(Zoo, CudaToolkit, testing::ValuesIn(zoo::zoo_names()),
                         [](const auto& param) { return param.param; });

INSTANTIATE_TEST_SUITE_P(Definitions, CudaToolkit,
                         testing::Values("relu", "threshold", "clamp", "layernorm"),
                         [](const auto& param) { return param.param; });

#ifdef SCULPT_HAVE_CUDA
// The GPU characterization's microbenchmarks are hand-written PTX: checked here where no GPU is.
class CudaToolkitCharacterization : public CudaToolkit {};

TEST_F(CudaToolkitCharacterization, MicrobenchmarksAssemble) {
  find(kPtxas);
  if (IsSkipped()) return;
  const fs::path file = write_file("gpu_benchmarks.ptx", device::gpu_benchmarks_ptx());
  const ToolRun result = run_tool(kPtxas.command(path_, file, compute_capability()));
  EXPECT_TRUE(result.ok && result.log.find("warning") == std::string::npos) << result.log;
}
#endif

}  // namespace
}  // namespace sculpt::codegen
