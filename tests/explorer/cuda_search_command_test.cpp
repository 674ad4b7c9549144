// `sculpt search --device cuda` end to end where there is no GPU: CTest puts the fake CUDA
// driver (tests/device/cuda_fake_driver.cpp, which runs candidates' PTX on its emulator) first on
// the library path as libcuda.so.1, so the command finds it as it would the real one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "device/cuda_evaluator.h"
#include "search/log/event_log.h"
#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"

namespace sculpt::explorer {
namespace {

using namespace search;

TEST(CudaSearchCommand, SearchesOnTheCudaDeviceAndWritesItsBestPtx) {
  std::string why;
  if (!device::cuda_available(&why)) {
    GTEST_SKIP() << "no CUDA driver answers (CTest puts the fake one on the library path): " << why;
  }
  const std::filesystem::path dir = fresh_dir("cuda_search");
  const Outcome o = run_sculpt({"search", "--kernel", "axpy", "--size", "4096", "--device", "cuda",
                                "--evals", "6", "--seed", "2", "--out", dir.string()});
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_NE(o.out.find("axpy 4096 on cuda: 6 evaluated"), std::string::npos) << o.out;
  // No description is of the fake GPU: the search says whose it reads instead (a warning, on
  // the default logger here).
  EXPECT_NE((o.err + o.out)
                .find("sculpt ships no description of the Fake GPU (sm_90): the model reads "
                      "sm_90's"),
            std::string::npos)
      << o.err << o.out;
  EXPECT_NE(o.out.find("code in " + (dir / "best.ptx").string()), std::string::npos) << o.out;

  LogContents log = read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  EXPECT_EQ(log.header.device, device::Kind::cuda);
  EXPECT_EQ(log.header.model, "Fake GPU (sm_90)");
  ASSERT_EQ(log.evaluations.size(), 6u);
  for (const LogEvaluation& e : log.evaluations) {
    // Some are timed less than planned (past the cutoff), none is wrong or faults.
    EXPECT_TRUE(e.check == "ok" || e.check == "timeout") << e.check << ": " << e.message;
  }

  std::ifstream file(dir / "best.ptx");
  std::stringstream best;
  best << file.rdbuf();
  EXPECT_TRUE(best.str().starts_with("// sculpt search: candidate ")) << best.str();
  EXPECT_NE(best.str().find("\n// launch candidate: grid "), std::string::npos) << best.str();
  EXPECT_NE(best.str().find(".visible .entry candidate("), std::string::npos) << best.str();

  // Its best replays to the same PTX.
  const Outcome replay = run_sculpt({"replay", dir.string()});
  ASSERT_EQ(replay.code, kExitOk) << replay.err;
  EXPECT_EQ(replay.out, best.str().substr(best.str().find('\n') + 1));
}

// A GPU sculpt ships a description of is searched with it, and its log is read with it again.
TEST(CudaSearchCommand, AnH200IsSearchedWithItsOwnDescription) {
  std::string why;
  if (!device::cuda_available(&why)) {
    GTEST_SKIP() << "no CUDA driver answers (CTest puts the fake one on the library path): " << why;
  }
  ASSERT_EQ(setenv("SCULPT_FAKE_CUDA_NAME", "NVIDIA H200", 1), 0);
  const std::filesystem::path dir = fresh_dir("cuda_search_h200");
  const Outcome o = run_sculpt({"search", "--kernel", "axpy", "--size", "4096", "--device", "cuda",
                                "--evals", "2", "--out", dir.string()});
  unsetenv("SCULPT_FAKE_CUDA_NAME");
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_EQ((o.err + o.out).find("ships no description"), std::string::npos) << o.err << o.out;
  const LogContents log = read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  EXPECT_EQ(log.header.model, "NVIDIA H200 (sm_90)");
  const Outcome bound = run_sculpt({"bound", dir.string()});
  ASSERT_EQ(bound.code, kExitOk) << bound.err;
  EXPECT_TRUE(bound.out.starts_with("axpy 4096 on h200, candidate ")) << bound.out;
}

// A CPU search's best, checked and timed again on the GPU.
TEST(CudaSearchCommand, ACpuLogReplaysOnTheGpu) {
  std::string why;
  if (!device::cuda_available(&why)) {
    GTEST_SKIP() << "no CUDA driver answers (CTest puts the fake one on the library path): " << why;
  }
  const std::filesystem::path dir = fresh_dir("cpu_to_cuda");
  const Outcome o = run_sculpt(small_search(dir, "4"));
  ASSERT_EQ(o.code, kExitOk) << o.err;
  const Outcome replay =
      run_sculpt({"replay", dir.string(), "--best", "2", "--measure", "--device", "cuda"});
  ASSERT_EQ(replay.code, kExitOk) << replay.out << replay.err;
  EXPECT_NE(replay.out.find(" on cuda: ok"), std::string::npos) << replay.out;
  EXPECT_NE(replay.out.find("; logged on cpu: ok, "), std::string::npos) << replay.out;
  EXPECT_EQ(std::count(replay.out.begin(), replay.out.end(), '\n'), 2) << replay.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sculpt::explorer
