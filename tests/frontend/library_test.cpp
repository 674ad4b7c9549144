// sculpt::search with a definition: a kernel of one's own searched, then found in the cache,
// apart from another definition of the same name; a definition with a mistake throws.
#include <gtest/gtest.h>

#include <filesystem>

#include "explorer/sculpt.h"
#include "tests/explorer/command_test_util.h"

namespace sculpt {
namespace {

TEST(DefinedKernel, TheLibraryCallTakesADefinition) {
  const std::filesystem::path cache = explorer::fresh_dir("defined_library");
  SearchOptions options;
  options.device = "cpu";
  options.evals = 2;
  options.cache_dir = cache;
  options.definition = "def twice(float(N) X) -> (Y) { Y(i) = 2 * X(i) }";
  const Kernel first = sculpt::search("", "N=64", options);
  EXPECT_EQ(first.kernel, "twice");
  EXPECT_FALSE(first.from_cache);
  const Kernel again = sculpt::search("twice", "N=64", options);
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.kernel, "twice");
  // Another definition of the same name is another kernel.
  options.definition = "def twice(float(N) X) -> (Y) { Y(i) = X(i) + X(i) }";
  EXPECT_FALSE(sculpt::search("twice", "N=64", options).from_cache);
  options.definition = "def twice(float(N) X) -> (Y) { Y(i) = 2 * Z(i) }";
  EXPECT_THROW(sculpt::search("", "N=64", options), Error);
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace sculpt
