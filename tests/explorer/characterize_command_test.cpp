// `sculpt characterize`: a quick measurement of the CPU writes a description that loads back,
// prints each figure with its source and compares it with the shipped one; the user errors (an
// --out that cannot be written) exit with the usage code and one message before anything is
// measured. The GPU's: cuda_characterize_command_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "perf_model/description.h"
#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"

namespace sculpt::explorer {
namespace {

Outcome run_characterize(std::vector<std::string> args) {
  args.insert(args.begin(), "characterize");
  return run_sculpt(std::move(args));
}

TEST(CharacterizeCommand, WritesADescriptionThatLoads) {
  const std::filesystem::path dir = fresh_dir("characterize");
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "cpu.json";
  const Outcome outcome = run_characterize({"--device", "cpu", "--quick", "--out", file.string()});
  ASSERT_EQ(outcome.code, kExitOk) << outcome.err;
  EXPECT_EQ(outcome.err, "");
  EXPECT_NE(outcome.out.find("\n  l1_bandwidth "), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("wrote " + file.string() + "\n"), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("against the shipped description 'cpu'"), std::string::npos)
      << outcome.out;

  std::string error;
  const std::optional<perf_model::Description> loaded =
      perf_model::Description::load(file.string(), &error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->name, "cpu");
  EXPECT_FALSE(loaded->gpu);
  ASSERT_TRUE(loaded->cpu);
  for (const perf_model::NamedFigure& f : perf_model::figures(*loaded->cpu)) {
    EXPECT_GT(f.figure->value, 0) << f.name;
    EXPECT_EQ(f.figure->source.rfind("measured: ", 0), 0u) << f.name << ": " << f.figure->source;
  }
  EXPECT_GE(loaded->cpu->l1_bandwidth.value, loaded->cpu->dram_bandwidth.value);
  // The CPU runs sm_90's space: the file names those limits rather than copying them.
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\"limits\": \"sm_90\""), std::string::npos) << text.str();
  EXPECT_EQ(loaded->limits.to_json(), perf_model::Description::named("sm_90").limits.to_json());
  // Written through a temporary file and a rename: nothing else is left in the folder.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1);
  std::filesystem::remove_all(dir);
}

// perf_model/devices/cpu.json, written by `sculpt characterize --device cpu --out`.
TEST(CharacterizeCommand, TheShippedDescriptionLoads) {
  std::string error;
  const std::optional<perf_model::Description> shipped =
      perf_model::Description::load("cpu", &error);
  ASSERT_TRUE(shipped) << error;
  EXPECT_EQ(shipped->name, "cpu");
  ASSERT_TRUE(shipped->cpu);
  EXPECT_EQ(shipped->limits.to_json(), perf_model::Description::named("sm_90").limits.to_json());
}

TEST(CharacterizeCommand, WithoutOutItOnlyPrints) {
  const Outcome outcome = run_characterize({"--device", "cpu", "--quick"});
  ASSERT_EQ(outcome.code, kExitOk) << outcome.err;
  EXPECT_NE(outcome.out.find("\n  fp32_per_second "), std::string::npos) << outcome.out;
  EXPECT_EQ(outcome.out.find("wrote "), std::string::npos) << outcome.out;
}

struct BadCharacterize {
  std::string name;
  std::vector<std::string> args;
  std::string message;
};

class CharacterizeCommandErrors : public testing::TestWithParam<BadCharacterize> {};

TEST_P(CharacterizeCommandErrors, OneMessageAndUsageExitBeforeMeasuring) {
  const Outcome outcome = run_characterize(GetParam().args);
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_EQ(outcome.err, "sculpt characterize: " + GetParam().message + "\n");
  EXPECT_EQ(outcome.out, "");
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, CharacterizeCommandErrors,
    testing::Values(
        BadCharacterize{
            "CudaNoSuchFolder",
            {"--device", "cuda", "--out", "/nonexistent/sculpt/sm_90.json"},
            "cannot write /nonexistent/sculpt/sm_90.json: no folder /nonexistent/sculpt"},
        BadCharacterize{"NoSuchFolder",
                        {"--device", "cpu", "--quick", "--out", "/nonexistent/sculpt/cpu.json"},
                        "cannot write /nonexistent/sculpt/cpu.json: no folder /nonexistent/sculpt"},
        BadCharacterize{"OutIsAFolder",
                        {"--device", "cpu", "--quick", "--out", "/tmp"},
                        "cannot write /tmp: a folder, not a regular file"}),
    [](const testing::TestParamInfo<BadCharacterize>& info) { return info.param.name; });

}  // namespace
}  // namespace sculpt::explorer
