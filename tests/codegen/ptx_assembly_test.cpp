// Random fully specified candidates of every zoo kernel, at its test sizes, printed as PTX and
// assembled by the CUDA toolkit's ptxas for the GPU they target: the PTX printer is checked on
// any machine with the toolkit, GPU or not. Skips when no ptxas that takes our PTX is found
// ($SCULPT_PTXAS, else ptxas on PATH, in $CUDA_HOME/bin or in /usr/local/cuda/bin).
// SCULPT_CANDIDATES changes the count (20 by default). A failure prints ptxas's messages, the
// candidate's decisions and where its PTX was written.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "backbone/zoo/zoo.h"
#include "codegen/ptx_printer.h"
#include "gpu_space/space.h"
#include "search/descent.h"
#include "search/random_search.h"
#include "tests/backbone/zoo_names.h"

namespace sculpt::codegen {
namespace {

namespace fs = std::filesystem;

int candidates_per_kernel() {
  const char* count = std::getenv("SCULPT_CANDIDATES");
  return count != nullptr ? std::atoi(count) : 20;
}

std::string find_ptxas() {
  if (const char* explicit_path = std::getenv("SCULPT_PTXAS")) return explicit_path;
  std::vector<fs::path> folders;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream entries(path);
    for (std::string entry; std::getline(entries, entry, ':');) folders.emplace_back(entry);
  }
  if (const char* cuda_home = std::getenv("CUDA_HOME"))
    folders.push_back(fs::path(cuda_home) / "bin");
  folders.emplace_back("/usr/local/cuda/bin");
  for (const fs::path& folder : folders) {
    std::error_code error;
    if (!folder.empty() && fs::is_regular_file(folder / "ptxas", error)) return folder / "ptxas";
  }
  return "";
}

struct Assembled {
  bool ok = false;
  std::string log;  // what ptxas printed
};

/// Runs `ptxas -arch=sm_<cc> -o /dev/null <file>` (the machine code is not kept).
Assembled assemble(const std::string& ptxas, const fs::path& file, int compute_capability) {
  const std::string command = "'" + ptxas + "' -arch=sm_" + std::to_string(compute_capability) +
                              " -o /dev/null '" + file.string() + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {false, "cannot run " + command};
  Assembled result;
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
  return fs::path(testing::TempDir()) / ("sculpt_ptx_" + std::to_string(getpid()));
}

fs::path write_file(const std::string& name, const std::string& text) {
  fs::create_directories(scratch_folder());
  std::ofstream(scratch_folder() / name) << text;
  return scratch_folder() / name;
}

/// Random candidates of one zoo kernel; skipped unless a ptxas takes the PTX header we print.
class PtxAssembly : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ptxas_ = find_ptxas();
    if (ptxas_.empty()) GTEST_SKIP() << "no ptxas (CUDA toolkit) found to assemble PTX with";
    compute_capability_ = gpu_space::DeviceDescription::sm90().compute_capability;
    // The smallest module with our header: an older toolkit refuses the PTX version or target.
    const codegen::PtxOptions header;
    const fs::path probe = write_file(
        "ptx_assembly_probe.ptx", ".version " + header.version + "\n.target sm_" +
                                      std::to_string(compute_capability_) + "\n.address_size 64\n");
    const Assembled probed = assemble(ptxas_, probe, compute_capability_);
    if (!probed.ok) GTEST_SKIP() << ptxas_ << " does not take our PTX header:\n" << probed.log;
  }

  // A failure keeps the PTX it names.
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(scratch_folder());
  }

  std::string ptxas_;
  int compute_capability_ = 0;
};

TEST_P(PtxAssembly, RandomCandidatesAssembleWithoutWarnings) {
  const backbone::KernelInfo& info = *backbone::find_kernel(GetParam());
  const backbone::Kernel kernel = info.build(backbone::test_sizes(info.sizes));
  const auto root = gpu_space::make_root(kernel, gpu_space::DeviceDescription::sm90());
  ASSERT_FALSE(root->conflict()) << root->conflict()->to_string();
  std::mt19937_64 rng(std::hash<std::string>()(info.name) + 2);
  int assembled = 0;
  int failures = 0;
  for (int i = 0; i < candidates_per_kernel(); ++i) {
    search::Descent descent = search::random_descent(*root, rng);
    if (!descent.candidate) continue;
    const device::KernelCode code =
        search::kernel_code(static_cast<const gpu_space::Candidate&>(*descent.candidate),
                            device::Language::ptx, "candidate");
    const fs::path file = write_file(info.name + "_" + std::to_string(i) + ".ptx", code.source);
    const Assembled result = assemble(ptxas_, file, compute_capability_);
    if (result.ok && result.log.find("warning") == std::string::npos) {
      ++assembled;
      continue;
    }
    if (++failures > 3) continue;  // the first few say enough
    std::string actions;
    for (const spacegen::Action& a : descent.actions) actions += spacegen::to_json(a) + "\n";
    ADD_FAILURE() << info.name << ": ptxas " << (result.ok ? "warned" : "failed") << " on " << file
                  << ":\n"
                  << result.log << "decisions:\n"
                  << actions;
  }
  EXPECT_EQ(failures, 0) << failures << " candidates did not assemble cleanly";
  RecordProperty("assembled", assembled);
}

INSTANTIATE_TEST_SUITE_P(Zoo, PtxAssembly, testing::ValuesIn(backbone::zoo_names()),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace sculpt::codegen
