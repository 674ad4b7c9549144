// sculpt::search, the library call: a search, then the same code from the cache at once; a
// search started from another's log evaluates its best first, as does one of sizes the cache
// holds a search of the kernel near; a cache entry of another space version (or other sizes)
// misses; a bad request throws sculpt::Error with one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "explorer/kernel_cache.h"
#include "explorer/sculpt.h"
#include "tests/explorer/command_test_util.h"

namespace sculpt {
namespace {

SearchOptions small_options(const std::filesystem::path& cache) {
  SearchOptions options;
  options.device = "cpu";
  options.evals = 4;
  options.cache_dir = cache;
  return options;
}

TEST(Library, SearchesOnceThenAnswersFromTheCache) {
  const std::filesystem::path cache = explorer::fresh_dir("library_cache");
  std::int64_t progress_calls = 0;
  SearchOptions options = small_options(cache);
  options.on_progress = [&](const Progress& p) {
    ++progress_calls;
    EXPECT_EQ(p.requested, 4);
  };
  const Kernel first = search("axpy", "64", options);
  EXPECT_FALSE(first.from_cache);
  EXPECT_EQ(progress_calls, 4);
  EXPECT_EQ(first.kernel, "axpy");
  EXPECT_EQ(first.sizes, "64");
  EXPECT_EQ(first.device, "cpu");
  EXPECT_EQ(first.language, "c");
  EXPECT_EQ(first.entry, "candidate");
  EXPECT_NE(first.code.find("candidate("), std::string::npos) << first.code;
  EXPECT_GT(first.time_ns, 0);
  EXPECT_TRUE(std::filesystem::exists(first.log));
  EXPECT_EQ(first.log, first.run_dir / "log.jsonl");
  // The run folder's best file holds the same code.
  std::ifstream best(first.run_dir / "best.c");
  const std::string best_text((std::istreambuf_iterator<char>(best)), {});
  EXPECT_EQ(best_text.substr(best_text.find('\n') + 1), first.code);

  const auto start = std::chrono::steady_clock::now();
  const Kernel again = search("axpy", "64", options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.code, first.code);
  EXPECT_EQ(again.time_ns, first.time_ns);
  EXPECT_EQ(again.log, first.log);
  EXPECT_EQ(progress_calls, 4) << "no search";
  EXPECT_LT(seconds, 5) << "a cached kernel comes without a search";

  // Other sizes are another kernel.
  EXPECT_FALSE(search("axpy", "128", small_options(cache)).from_cache);
  std::filesystem::remove_all(cache);
}

TEST(Library, StartsFromAnotherSearch) {
  const std::filesystem::path cache = explorer::fresh_dir("library_start");
  const Kernel first = search("axpy", "64", small_options(cache));
  SearchOptions options = small_options(cache);
  options.use_cache = false;
  options.seed = 9;
  options.evals = 1;
  options.start_from = {first.log};
  const Kernel started = search("axpy", "64", options);
  EXPECT_EQ(started.code, first.code) << "its one evaluation is the first search's best";
  EXPECT_EQ(started.id, 0);
  std::filesystem::remove_all(cache);
}

/// The evaluation lines of a search's log (search::read_log is out of reach here: the library
/// call's name is its namespace's).
std::vector<nlohmann::json> evaluations(const std::filesystem::path& log) {
  std::vector<nlohmann::json> out;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j.value("kind", "") == "evaluation") out.push_back(std::move(j));
  }
  return out;
}

/// The decisions of a logged evaluation, in any order.
std::set<std::string> decisions(const nlohmann::json& evaluation) {
  std::set<std::string> out;
  for (const nlohmann::json& a : evaluation.at("actions")) out.insert(a.dump());
  return out;
}

TEST(Library, StartsFromTheCachesSearchOfTheNearestSizes) {
  const std::filesystem::path cache = explorer::fresh_dir("library_nearest");
  search("axpy", "64", small_options(cache));
  SearchOptions options = small_options(cache);
  options.seed = 2;
  const Kernel near = search("axpy", "1024", options);
  options.seed = 9;
  options.evals = 1;
  const Kernel started = search("axpy", "2048", options);
  // Its one evaluation is the fastest of the search at 1024, the nearest sizes.
  const std::vector<nlohmann::json> log = evaluations(started.log);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_TRUE(log[0].value("start", false));
  const std::vector<nlohmann::json> near_log = evaluations(near.log);
  const auto fastest = std::find_if(near_log.begin(), near_log.end(),
                                    [&](const nlohmann::json& e) { return e.at("id") == near.id; });
  ASSERT_NE(fastest, near_log.end());
  EXPECT_EQ(decisions(log[0]), decisions(*fastest));

  options.start_from_cache = false;
  const Kernel fresh = search("axpy", "4096", options);
  EXPECT_FALSE(evaluations(fresh.log).at(0).value("start", false));
  std::filesystem::remove_all(cache);
}

TEST(KernelCache, NearestIsOfTheSameKernelAndDeviceWithItsLogStillThere) {
  const std::filesystem::path dir = explorer::fresh_dir("kernel_cache_nearest");
  const explorer::KernelCache cache(dir);
  const auto entry = [&](const std::string& kernel, const std::string& sizes,
                         const std::string& device, bool with_log) {
    Kernel k;
    k.log = dir / (kernel + "-" + sizes + "-" + device + ".jsonl");
    if (with_log) std::ofstream(k.log) << "{}\n";
    cache.store({kernel, sizes, device, 1, 2}, k);
    return k.log;
  };
  entry("matmul", "64x64x64", "cpu", true);
  const std::filesystem::path near = entry("matmul", "256x256x64", "cpu", true);
  entry("matmul", "256x256x32", "cpu", false);    // its log is gone
  entry("matmul", "256x256x32", "NVIDIA", true);  // another device
  entry("matmul_ta", "256x256x32", "cpu", true);  // another kernel
  const std::optional<Kernel> found = cache.nearest({"matmul", "256x256x32", "cpu", 3, 4});
  ASSERT_TRUE(found);
  EXPECT_EQ(found->log, near);
  EXPECT_FALSE(cache.nearest({"mv", "256x256", "cpu", 1, 2}));
  std::filesystem::remove_all(dir);
}

TEST(Library, AnotherSpaceVersionMisses) {
  const std::filesystem::path cache = explorer::fresh_dir("library_space");
  const Kernel first = search("axpy", "64", small_options(cache));
  // The entry as an older space would have left it: same file, another space hash.
  std::filesystem::path file;
  for (const auto& entry : std::filesystem::directory_iterator(cache / "kernels"))
    file = entry.path();
  ASSERT_FALSE(file.empty());
  nlohmann::json j = nlohmann::json::parse(std::ifstream(file));
  j["key"]["space_hash"] = "0123456789abcdef";
  std::ofstream(file, std::ios::trunc) << j.dump();
  const Kernel again = search("axpy", "64", small_options(cache));
  EXPECT_FALSE(again.from_cache);
  EXPECT_NE(again.run_dir, first.run_dir);
  // The new search replaced the entry.
  EXPECT_TRUE(search("axpy", "64", small_options(cache)).from_cache);
  std::filesystem::remove_all(cache);
}

TEST(Library, ABadRequestThrowsOneLine) {
  const std::filesystem::path cache = explorer::fresh_dir("library_bad");
  try {
    search("no_such_kernel", "", small_options(cache));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown kernel 'no_such_kernel'"), std::string::npos)
        << e.what();
  }
  SearchOptions options = small_options(cache);
  options.algorithm = "annealing";
  EXPECT_THROW(search("axpy", "64", options), Error);
  EXPECT_THROW(search("axpy", "64x64", small_options(cache)), Error);
  EXPECT_FALSE(std::filesystem::exists(cache / "runs")) << "no run folder for a refused request";
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace sculpt
