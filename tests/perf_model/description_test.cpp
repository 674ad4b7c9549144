// Device descriptions: the shipped ones load with every figure and its source, a file loads the
// same way, and a description that cannot be used is refused with one message naming the file
// and the field.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "perf_model/description.h"
#include "search/session/device_description.h"

namespace sculpt::perf_model {
namespace {

TEST(Description, ShippedSm90HasEveryFigureAndItsSource) {
  const Description d = Description::named("sm_90");
  ASSERT_TRUE(d.gpu);
  EXPECT_FALSE(d.cpu);
  EXPECT_EQ(d.limits.compute_capability, 90);
  EXPECT_EQ(d.limits.max_threads_per_block, 1024);
  EXPECT_EQ(d.gpu->sms.value, 132);
  for (const NamedFigure& f : figures(*d.gpu)) {
    EXPECT_GT(f.figure->value, 0) << f.name;
    const std::string& source = f.figure->source;
    EXPECT_TRUE(source.starts_with("datasheet") || source.starts_with("estimate") ||
                source.starts_with("measured"))
        << f.name << ": " << source;
  }
}

/// Writes `text` to a fresh file named `name` and returns its path.
std::filesystem::path write_file(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::path(testing::TempDir()) / name;
  std::ofstream(path) << text;
  return path;
}

TEST(Description, LoadsFromAFileAsShipped) {
  const Description shipped = Description::named("sm_90");
  const std::filesystem::path path = write_file("copy.json", shipped.to_json());
  std::string error;
  const std::optional<Description> loaded = Description::load(path.string(), &error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->to_json(), shipped.to_json());
  EXPECT_EQ(loaded->limits.max_thread_level_size, shipped.limits.max_thread_level_size);
}

/// The error of loading the shipped sm_90 description once `edit` changed it.
std::string error_after(const std::function<void(nlohmann::ordered_json&)>& edit) {
  nlohmann::ordered_json json =
      nlohmann::ordered_json::parse(Description::named("sm_90").to_json());
  edit(json);
  std::string error;
  EXPECT_FALSE(Description::parse(json.dump(), "edited.json", &error));
  return error;
}

TEST(Description, ErrorsNameTheFileAndTheField) {
  EXPECT_EQ(error_after([](auto& j) { j["gpu"].erase("sms"); }),
            "edited.json: gpu: 'sms' is missing");
  EXPECT_EQ(error_after([](auto& j) { j["gpu"]["smz"] = j["gpu"]["sms"]; }),
            "edited.json: gpu.smz: no such figure");
  EXPECT_EQ(error_after([](auto& j) { j["gpu"]["sms"]["value"] = -1; }),
            "edited.json: gpu.sms.value: expected a positive number");
  EXPECT_EQ(error_after([](auto& j) { j["gpu"]["sms"]["value"] = "many"; }),
            "edited.json: gpu.sms.value: expected a positive number");
  EXPECT_EQ(error_after([](auto& j) { j["gpu"]["sms"].erase("source"); }),
            "edited.json: gpu.sms: 'source' is missing");
  EXPECT_EQ(error_after([](auto& j) { j["gpu"]["sms"]["source"] = ""; }),
            "edited.json: gpu.sms.source: expected where the figure comes from");
  EXPECT_EQ(error_after([](auto& j) { j["limits"].erase("max_unroll"); }),
            "edited.json: limits: 'max_unroll' is missing");
  EXPECT_EQ(error_after([](auto& j) { j["limits"]["max_unrolled"] = 1; }),
            "edited.json: limits.max_unrolled: no such limit");
  EXPECT_EQ(error_after([](auto& j) { j["limits"] = "sm_12"; }),
            "edited.json: limits: no shipped description 'sm_12'");
  EXPECT_EQ(error_after([](auto& j) { j["cpu"] = j["gpu"]; }),
            "edited.json: top level: expected one of 'gpu' and 'cpu'");
  EXPECT_EQ(error_after([](auto& j) { j["colour"] = "green"; }),
            "edited.json: colour: no such field (expected name, about, limits, gpu or cpu)");
  EXPECT_NE(error_after([](auto& j) {
              j["limits"]["max_unroll"] = "lots";
            }).find("edited.json: limits: "),
            std::string::npos);
}

TEST(Description, MalformedTextAndMissingFilesAreRefused) {
  std::string error;
  EXPECT_FALSE(Description::parse("{\"name\": ", "broken.json", &error));
  EXPECT_TRUE(error.starts_with("broken.json: not JSON: ")) << error;
  EXPECT_FALSE(Description::load("/no/such/description.json", &error));
  EXPECT_TRUE(error.starts_with("/no/such/description.json: neither a shipped description ("))
      << error;
  EXPECT_NE(error.find("sm_90"), std::string::npos) << error;
}

TEST(Description, LimitsMayNameAShippedDescription) {
  nlohmann::ordered_json json =
      nlohmann::ordered_json::parse(Description::named("sm_90").to_json());
  json["limits"] = "sm_90";
  std::string error;
  const std::optional<Description> d = Description::parse(json.dump(), "named.json", &error);
  ASSERT_TRUE(d) << error;
  EXPECT_EQ(d->limits.to_json(), Description::named("sm_90").limits.to_json());
  // Written back as the name, not as a copy of sm_90's limits.
  EXPECT_EQ(nlohmann::ordered_json::parse(d->to_json())["limits"], "sm_90");
}

TEST(Description, ShippedCpuRunsTheSpaceOfSm90) {
  const Description d = Description::named("cpu");
  ASSERT_TRUE(d.cpu);
  EXPECT_FALSE(d.gpu);
  EXPECT_EQ(d.limits_of, "sm_90");
  EXPECT_EQ(d.limits.to_json(), Description::named("sm_90").limits.to_json());
  for (const NamedFigure& f : figures(*d.cpu)) {
    EXPECT_GT(f.figure->value, 0) << f.name;
    EXPECT_TRUE(f.figure->source.starts_with("measured: ")) << f.name << ": " << f.figure->source;
  }
}

TEST(Description, AGpuGetsTheDescriptionOfItsModelElseOfItsArchitecture) {
  std::string error;
  // An H200 shares the H100's architecture, not its memories.
  const std::optional<Description> h200 =
      search::device_description(device::Kind::cuda, "sm_90", "", &error, "NVIDIA H200 (sm_90)");
  ASSERT_TRUE(h200) << error;
  EXPECT_EQ(h200->name, "h200");
  EXPECT_EQ(h200->limits.to_json(), Description::named("sm_90").limits.to_json());
  EXPECT_GT(h200->gpu->dram_bandwidth.value, Description::named("sm_90").gpu->dram_bandwidth.value);
  const std::optional<Description> h100 = search::device_description(
      device::Kind::cuda, "sm_90", "", &error, "NVIDIA H100 80GB HBM3 (sm_90)");
  ASSERT_TRUE(h100) << error;
  EXPECT_EQ(h100->name, "sm_90");
  // Asked for, a description wins over the GPU's own.
  const std::optional<Description> asked = search::device_description(
      device::Kind::cuda, "sm_90", "sm_90", &error, "NVIDIA H200 (sm_90)");
  ASSERT_TRUE(asked) << error;
  EXPECT_EQ(asked->name, "sm_90");
  EXPECT_FALSE(search::device_description(device::Kind::cuda, "sm_120", "", &error,
                                          "NVIDIA Blackwell (sm_120)"));
  EXPECT_NE(error.find("sculpt characterize"), std::string::npos) << error;
}

}  // namespace
}  // namespace sculpt::perf_model
