// The installed package: `cmake --install` of this build, then the README's example program
// (tests/package/example) configured with find_package(sculpt), built, and run twice on the CPU:
// a search, then the same kernel from the cache. The README shows that program verbatim.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs `command` in a shell: its exit status and its output, stderr included.
std::pair<int, std::string> run(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  char buffer[4096];
  for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST(Package, TheReadmeExampleBuildsAgainstTheInstalledPackageAndRuns) {
  const std::filesystem::path source = SCULPT_SOURCE_DIR;
  const std::filesystem::path work =
      std::filesystem::temp_directory_path() / ("sculpt_package_" + std::to_string(getpid()));
  std::filesystem::remove_all(work);
  const std::string prefix = (work / "prefix").string();

  auto [code, out] =
      run("cmake --install " + std::string(SCULPT_BINARY_DIR) + " --prefix " + prefix);
  ASSERT_EQ(code, 0) << out;
  std::tie(code, out) = run("cmake -S " + (source / "tests/package/example").string() + " -B " +
                            (work / "build").string() + " -G Ninja -DCMAKE_BUILD_TYPE=Release" +
                            " -DCMAKE_PREFIX_PATH=" + prefix);
  ASSERT_EQ(code, 0) << out;
  std::tie(code, out) = run("cmake --build " + (work / "build").string());
  ASSERT_EQ(code, 0) << out;

  const std::string example =
      "XDG_CACHE_HOME=" + (work / "cache").string() + " " + (work / "build" / "example").string();
  std::tie(code, out) = run(example);
  ASSERT_EQ(code, 0) << out;
  // A line of its own, after the warnings of the first measure of this machine's CPU (the cache
  // folder is new).
  EXPECT_NE(("\n" + out).find("\nmatmul 128x128x128 on cpu: "), std::string::npos) << out;
  EXPECT_NE(out.find("(searched, log " + (work / "cache" / "sculpt" / "runs").string()),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("largest difference from a plain loop: "), std::string::npos) << out;
  std::tie(code, out) = run(example);
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("(from the cache)"), std::string::npos) << out;

#ifdef SCULPT_PYTHON
  // The Python module, installed beside it, imports from there and finds the cached kernel.
  std::tie(code, out) =
      run("cd " + work.string() + " && XDG_CACHE_HOME=" + (work / "cache").string() +
          " PYTHONPATH=" + prefix + "/" + SCULPT_PYTHON_INSTALL_DIR + " " + SCULPT_PYTHON +
          " -c 'import sculpt; k = sculpt.search(\"matmul\", \"128x128x128\", device=\"cpu\","
          " evals=10, budget=60); print(k.from_cache, sculpt.__file__)'");
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("True " + prefix + "/"), std::string::npos) << out;
#endif

  // The README shows the program as it is here.
  const std::string readme = read_file(source / "README.md");
  EXPECT_NE(readme.find(read_file(source / "tests/package/example/example.cpp")), std::string::npos)
      << "README.md does not show tests/package/example/example.cpp as it is";
  std::filesystem::remove_all(work);
}

}  // namespace
