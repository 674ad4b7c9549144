#include "device/c_compiler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <future>
#include <optional>
#include <thread>
#include <vector>

#include "device/evaluator.h"
#include "tests/support/full_disk.h"

namespace sculpt::device {
namespace {

using namespace std::chrono_literals;

class CCompilerTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = testing::TempDir() + "sculpt-compiler-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A stand-in compiler: answers --version, waits `seconds`, then writes an empty object.
  std::string fake_compiler(const std::string& seconds) {
    auto path = dir_ / "fake-cc";
    std::ofstream(path) << "#!/bin/sh\n"
                           "if [ \"$1\" = --version ]; then echo fake-cc 1.0; exit 0; fi\n"
                           "for a; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
                           "sleep "
                        << seconds << "\n: > \"$out\"\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path.string();
  }

  std::filesystem::path dir_;
};

TEST_F(CCompilerTest, CompilesIntoTheCacheFolder) {
  CCompiler compiler("", {"-O3", "-fPIC", "-shared"}, dir_ / "cache", 60s);
  auto result = compiler.compile("int answer(void) { return 42; }\n");
  ASSERT_TRUE(result.object) << result.log;
  EXPECT_EQ(result.object->parent_path(), dir_ / "cache");
  EXPECT_TRUE(std::filesystem::exists(*result.object));
  EXPECT_FALSE(result.cache_hit);
  EXPECT_TRUE(compiler.compile("int answer(void) { return 42; }\n").cache_hit);
  EXPECT_FALSE(compiler.compile("int answer(void) { return 43; }\n").cache_hit);
}

TEST_F(CCompilerTest, FlagsIfAcceptedJoinOnlyWhenTheCompilerTakesThemAll) {
  CCompiler taken("", {"-fPIC", "-shared"}, dir_ / "cache", 60s, {"-DANSWER=42", "-w"});
  EXPECT_EQ(taken.flags(), (std::vector<std::string>{"-fPIC", "-shared", "-DANSWER=42", "-w"}));
  EXPECT_TRUE(taken.compile("int answer(void) { return ANSWER; }\n").object);

  CCompiler refused("", {"-fPIC", "-shared"}, dir_ / "cache", 60s,
                    {"-DANSWER=42", "-fno-such-option-sculpt"});
  EXPECT_EQ(refused.flags(), (std::vector<std::string>{"-fPIC", "-shared"}));
  EXPECT_TRUE(refused.compile("int x;\n").object);
}

// The source the cache keeps next to an object.
std::filesystem::path source_of(const std::filesystem::path& object) {
  return std::filesystem::path(object).replace_extension(".c");
}

TEST_F(CCompilerTest, ACacheOverItsLimitLosesItsLeastRecentlyUsedEntries) {
  const auto cache = dir_ / "cache";
  std::vector<std::filesystem::path> objects;
  {
    CCompiler compiler(fake_compiler("0"), {}, cache, 60s);
    // Three entries of 100 bytes (the fake compiler's objects are empty), used an hour apart.
    for (char c : {'a', 'b', 'c'}) {
      auto result = compiler.compile(std::string(100, c));
      ASSERT_TRUE(result.object) << result.log;
      objects.push_back(*result.object);
      const auto used = std::filesystem::file_time_type::clock::now() -
                        std::chrono::hours(4 - static_cast<int>(objects.size()));
      std::filesystem::last_write_time(*result.object, used);
      std::filesystem::last_write_time(source_of(*result.object), used);
    }
    // A hit makes the oldest the most recently used.
    EXPECT_TRUE(compiler.compile(std::string(100, 'a')).cache_hit);
  }
  std::ofstream(cache / "d.123.1.tmp") << std::string(1000, 'd');  // another process's file

  // Over 250 bytes, entries go, least recently used first, until 187 are left.
  CCompiler trimmed(fake_compiler("0"), {}, cache, 60s, /*if_accepted=*/{}, /*cache_limit=*/250);
  EXPECT_TRUE(std::filesystem::exists(objects[0]));
  EXPECT_TRUE(std::filesystem::exists(source_of(objects[0])));
  for (const auto& gone : {objects[1], objects[2]}) {
    EXPECT_FALSE(std::filesystem::exists(gone));
    EXPECT_FALSE(std::filesystem::exists(source_of(gone)));
  }
  EXPECT_TRUE(std::filesystem::exists(cache / "d.123.1.tmp"));
}

TEST_F(CCompilerTest, ACacheThatCannotBeWrittenIsADeviceError) {
  CCompiler compiler(fake_compiler("0"), {}, dir_ / "cache", 60s);
  std::string error;
  try {
    const test::FullDisk full(8);
    compiler.compile("int answer(void) { return 42; }\n");
  } catch (const DeviceError& failure) {
    error = failure.what();
  }
  EXPECT_NE(error.find("cannot write"), std::string::npos) << error;
  EXPECT_NE(error.find(std::strerror(EFBIG)), std::string::npos) << error;
  // The partial source is not left behind.
  EXPECT_TRUE(std::filesystem::is_empty(dir_ / "cache"));
}

TEST_F(CCompilerTest, CompilerThatHangsIsKilledAfterTheTimeout) {
  CCompiler compiler(fake_compiler("30"), {}, dir_ / "cache", 300ms);
  auto start = std::chrono::steady_clock::now();
  auto result = compiler.compile("int x;");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_FALSE(result.object);
  EXPECT_NE(result.log.find("did not finish within 300 ms"), std::string::npos) << result.log;
  EXPECT_EQ(compiler.stats().errors, 1);
}

TEST_F(CCompilerTest, PauseHoldsBackCompilationUntilResumed) {
  CCompiler compiler("", {"-fPIC", "-shared"}, dir_ / "cache", 60s);
  compiler.pause();
  auto result = std::async(std::launch::async, [&] { return compiler.compile("int x;\n"); });
  EXPECT_EQ(result.wait_for(300ms), std::future_status::timeout);
  compiler.resume();
  EXPECT_TRUE(result.get().object);
}

TEST_F(CCompilerTest, TimePausedDoesNotCountAgainstTheTimeout) {
  CCompiler compiler(fake_compiler("0.5"), {}, dir_ / "cache", 1000ms);
  auto start = std::chrono::steady_clock::now();
  auto result = std::async(std::launch::async, [&] { return compiler.compile("int x;\n"); });
  std::this_thread::sleep_for(100ms);
  compiler.pause();
  std::this_thread::sleep_for(1500ms);
  compiler.resume();
  auto compiled = result.get();
  EXPECT_TRUE(compiled.object) << compiled.log;
  EXPECT_GE(std::chrono::steady_clock::now() - start, 1600ms);
}

// The compiler's own writes can meet the full disk too (its object, its temporary files).
TEST_F(CCompilerTest, ACompilerOutOfDiskSpaceIsADeviceError) {
  auto path = dir_ / "full-cc";
  std::ofstream(path) << "#!/bin/sh\n"
                         "if [ \"$1\" = --version ]; then echo full-cc 1.0; exit 0; fi\n"
                         "echo 'cc1: warning: something harmless' >&2\n"
                         "echo 'ld: final link failed: No space left on device' >&2\n"
                         "echo 'collect2: error: ld returned 1 exit status' >&2\n"
                         "exit 1\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  CCompiler compiler(path.string(), {}, dir_ / "cache", 10s);
  try {
    compiler.compile("int answer(void) { return 42; }\n");
    ADD_FAILURE() << "a full disk was taken for a compile error";
  } catch (const DeviceError& error) {
    EXPECT_STREQ(error.what(),
                 "cpu device: the C compiler ran out of disk space: ld: final link failed: No "
                 "space left on device");
  }
  EXPECT_EQ(compiler.stats().errors, 1);
}

// As make's CC, the command may carry words of its own; they are part of the cache key.
TEST_F(CCompilerTest, CompilerCommandsMayHaveSeveralWords) {
  const std::string source = "int answer(void) { return ANSWER; }\n";
  CCompiler with_flag("cc -DANSWER=42", {"-fPIC", "-shared"}, dir_ / "cache", 60s);
  auto result = with_flag.compile(source);
  ASSERT_TRUE(result.object) << result.log;
  CCompiler other_flag("  cc   -DANSWER=43 ", {"-fPIC", "-shared"}, dir_ / "cache", 60s);
  auto other = other_flag.compile(source);
  ASSERT_TRUE(other.object) << other.log;
  EXPECT_FALSE(other.cache_hit);
  EXPECT_NE(*other.object, *result.object);
  // Without the definition the source does not compile, so the words reached the compiler.
  CCompiler plain("cc", {"-fPIC", "-shared"}, dir_ / "cache", 60s);
  EXPECT_FALSE(plain.compile(source).object);
}

// Environment variables set for one test and restored after it.
class ScopedEnvironment {
 public:
  void set(const char* name, const char* value) {
    const char* old = std::getenv(name);
    saved_.emplace_back(name, old != nullptr ? std::optional<std::string>(old) : std::nullopt);
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        unsetenv(it->first.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// A home that cannot be written (a service account's /nonexistent) costs the cache its
// persistence, not the search.
TEST_F(CCompilerTest, AnUnwritableHomeCachesInTheTemporaryFolder) {
  std::ofstream(dir_ / "file") << "x";
  ScopedEnvironment environment;
  environment.set("XDG_CACHE_HOME", (dir_ / "file").c_str());
  environment.set("HOME", "/nonexistent");
  CCompiler compiler("", {"-fPIC", "-shared"}, "", 60s);
  EXPECT_EQ(compiler.cache_dir(), CCompiler::temporary_cache_dir());
  EXPECT_TRUE(compiler.compile("int answer(void) { return 42; }\n").object);
}

TEST_F(CCompilerTest, CompilerThatDoesNotRunIsADeviceError) {
  EXPECT_THROW(CCompiler("/nonexistent/cc", {}, dir_, 1s), DeviceError);
  // A compiler that fails says why in one line (false prints a banner on --version and fails).
  try {
    CCompiler("false", {}, dir_, 10s);
    ADD_FAILURE() << "false ran as a compiler";
  } catch (const DeviceError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("cpu device: the C compiler 'false' does not run", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  auto not_a_folder = dir_ / "file";
  std::ofstream(not_a_folder) << "x";
  EXPECT_THROW(CCompiler("", {}, not_a_folder / "cache", 10s), DeviceError);
}

}  // namespace
}  // namespace sculpt::device
