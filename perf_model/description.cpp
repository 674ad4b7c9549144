#include "perf_model/description.h"

#include <fmt/format.h>

#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>

#include "perf_model/shipped_descriptions.h"
#include "support/check.h"
#include "support/input_file.h"

namespace sculpt::perf_model {
namespace {

using Json = nlohmann::ordered_json;

template <typename Rates>
struct FigureField {
  std::string_view name;
  Figure Rates::*member;
};

constexpr std::array<FigureField<GpuRates>, 28> kGpuFields = {{
    {"sms", &GpuRates::sms},
    {"clock_hz", &GpuRates::clock_hz},
    {"warp_size", &GpuRates::warp_size},
    {"issue_per_clock", &GpuRates::issue_per_clock},
    {"fp32_per_clock", &GpuRates::fp32_per_clock},
    {"fp64_per_clock", &GpuRates::fp64_per_clock},
    {"special_per_clock", &GpuRates::special_per_clock},
    {"memory_per_clock", &GpuRates::memory_per_clock},
    {"fp32_latency", &GpuRates::fp32_latency},
    {"fp64_latency", &GpuRates::fp64_latency},
    {"special_latency", &GpuRates::special_latency},
    {"shared_latency", &GpuRates::shared_latency},
    {"global_latency", &GpuRates::global_latency},
    {"l2_latency", &GpuRates::l2_latency},
    {"barrier_latency", &GpuRates::barrier_latency},
    {"l1_bytes_per_clock", &GpuRates::l1_bytes_per_clock},
    {"sector_bytes", &GpuRates::sector_bytes},
    {"shared_banks", &GpuRates::shared_banks},
    {"l2_bytes", &GpuRates::l2_bytes},
    {"l2_bandwidth", &GpuRates::l2_bandwidth},
    {"dram_bandwidth", &GpuRates::dram_bandwidth},
    {"max_threads_per_sm", &GpuRates::max_threads_per_sm},
    {"max_blocks_per_sm", &GpuRates::max_blocks_per_sm},
    {"registers_per_sm", &GpuRates::registers_per_sm},
    {"max_registers_per_thread", &GpuRates::max_registers_per_thread},
    {"shared_bytes_per_sm", &GpuRates::shared_bytes_per_sm},
    {"launch_floor_ns", &GpuRates::launch_floor_ns},
    {"block_rate", &GpuRates::block_rate},
}};

constexpr std::array<FigureField<CpuRates>, 10> kCpuFields = {{
    {"cores", &CpuRates::cores},
    {"fp32_per_second", &CpuRates::fp32_per_second},
    {"l1_bytes", &CpuRates::l1_bytes},
    {"l2_bytes", &CpuRates::l2_bytes},
    {"l3_bytes", &CpuRates::l3_bytes},
    {"l1_bandwidth", &CpuRates::l1_bandwidth},
    {"l2_bandwidth", &CpuRates::l2_bandwidth},
    {"l3_bandwidth", &CpuRates::l3_bandwidth},
    {"dram_bandwidth", &CpuRates::dram_bandwidth},
    {"launch_floor_ns", &CpuRates::launch_floor_ns},
}};

/// A description that cannot be used: its message, located in its file.
struct Invalid {
  std::string message;
};

[[noreturn]] void invalid(std::string_view origin, std::string_view where, std::string_view what) {
  throw Invalid{fmt::format("{}: {}: {}", origin, where, what)};
}

const Json& member(const Json& object, std::string_view key, std::string_view origin,
                   std::string_view where) {
  const auto found = object.find(key);
  if (found == object.end()) invalid(origin, where, fmt::format("'{}' is missing", key));
  return *found;
}

template <typename Rates, std::size_t N>
Rates parse_rates(const Json& json, const std::array<FigureField<Rates>, N>& fields,
                  std::string_view origin, std::string_view where) {
  if (!json.is_object()) invalid(origin, where, "not an object");
  for (const auto& [key, value] : json.items()) {
    const bool known = std::any_of(fields.begin(), fields.end(),
                                   [&](const FigureField<Rates>& f) { return f.name == key; });
    if (!known) invalid(origin, fmt::format("{}.{}", where, key), "no such figure");
  }
  Rates rates;
  for (const FigureField<Rates>& f : fields) {
    const std::string at = fmt::format("{}.{}", where, f.name);
    const Json& figure = member(json, f.name, origin, where);
    if (!figure.is_object()) invalid(origin, at, "expected {\"value\": number, \"source\": text}");
    const Json& value = member(figure, "value", origin, at);
    const Json& source = member(figure, "source", origin, at);
    if (!value.is_number() || !(value.get<double>() > 0)) {
      invalid(origin, at + ".value", "expected a positive number");
    }
    if (!source.is_string() || source.get<std::string>().empty()) {
      invalid(origin, at + ".source", "expected where the figure comes from");
    }
    rates.*f.member = Figure{value.get<double>(), source.get<std::string>()};
  }
  return rates;
}

template <typename Rates, std::size_t N>
Json rates_json(const Rates& rates, const std::array<FigureField<Rates>, N>& fields) {
  Json out = Json::object();
  for (const FigureField<Rates>& f : fields) {
    const Figure& figure = rates.*f.member;
    out[std::string(f.name)] = {{"value", figure.value}, {"source", figure.source}};
  }
  return out;
}

template <typename Rates, std::size_t N>
std::vector<NamedFigure> named(const Rates& rates,
                               const std::array<FigureField<Rates>, N>& fields) {
  std::vector<NamedFigure> out;
  for (const FigureField<Rates>& f : fields) out.push_back({f.name, &(rates.*f.member)});
  return out;
}

gpu_space::DeviceDescription parse_limits(const Json& json, std::string_view origin) {
  if (json.is_string()) {
    const std::string other = json.get<std::string>();
    const std::optional<std::string_view> text = shipped_description(other);
    if (!text) invalid(origin, "limits", fmt::format("no shipped description '{}'", other));
    std::string error;
    const std::optional<Description> d = Description::parse(*text, other, &error);
    SCULPT_CHECK(d) << "shipped description " << other << ": " << error;
    return d->limits;
  }
  if (!json.is_object()) invalid(origin, "limits", "expected an object or a description's name");
  // Every limit is written out: a default would be another device's figure.
  const Json every = Json::parse(gpu_space::DeviceDescription{}.to_json());
  for (const auto& [key, value] : every.items()) (void)member(json, key, origin, "limits");
  for (const auto& [key, value] : json.items()) {
    if (!every.contains(key)) invalid(origin, "limits." + key, "no such limit");
  }
  std::string error;
  const std::optional<gpu_space::DeviceDescription> limits =
      gpu_space::DeviceDescription::from_json(json.dump(), &error);
  if (!limits) invalid(origin, "limits", error);
  return *limits;
}

}  // namespace

std::optional<Description> Description::parse(std::string_view text, std::string_view origin,
                                              std::string* error) {
  try {
    Json json;
    try {
      json = Json::parse(text);
    } catch (const Json::parse_error& e) {
      throw Invalid{fmt::format("{}: not JSON: {}", origin, e.what())};
    }
    if (!json.is_object()) invalid(origin, "top level", "expected an object");
    Description d;
    const Json& name = member(json, "name", origin, "top level");
    if (!name.is_string()) invalid(origin, "name", "expected text");
    d.name = name.get<std::string>();
    if (json.contains("about") && json["about"].is_string())
      d.about = json["about"].get<std::string>();
    const Json& limits = member(json, "limits", origin, "top level");
    d.limits = parse_limits(limits, origin);
    if (limits.is_string()) d.limits_of = limits.get<std::string>();
    const bool gpu = json.contains("gpu");
    if (gpu == json.contains("cpu"))
      invalid(origin, "top level", "expected one of 'gpu' and 'cpu'");
    if (gpu) {
      d.gpu = parse_rates(json["gpu"], kGpuFields, origin, "gpu");
    } else {
      d.cpu = parse_rates(json["cpu"], kCpuFields, origin, "cpu");
    }
    for (const auto& [key, value] : json.items()) {
      if (key != "name" && key != "about" && key != "limits" && key != "gpu" && key != "cpu") {
        invalid(origin, key, "no such field (expected name, about, limits, gpu or cpu)");
      }
    }
    return d;
  } catch (const Invalid& e) {
    if (error != nullptr) *error = e.message;
  } catch (const Json::exception& e) {
    if (error != nullptr) *error = fmt::format("{}: {}", origin, e.what());
  }
  return std::nullopt;
}

std::optional<Description> Description::load(std::string_view name_or_path, std::string* error) {
  if (const std::optional<std::string_view> text = shipped_description(name_or_path)) {
    return parse(*text, name_or_path, error);
  }
  // A description file is a few kilobytes of JSON.
  constexpr std::uintmax_t kMaxFileSize = std::uintmax_t{1} << 20;
  const std::filesystem::path path{std::string(name_or_path)};
  std::string why;
  const std::optional<std::string> text = support::read_input_file(path, kMaxFileSize, &why);
  if (!text) {
    if (error != nullptr) {
      std::string names;
      for (const std::string& n : shipped()) names += (names.empty() ? "" : ", ") + n;
      *error = why == "no such file"
                   ? fmt::format("{}: neither a shipped description ({}) nor a readable file",
                                 name_or_path, names)
                   : fmt::format("cannot read the description {}: {}", name_or_path, why);
    }
    return std::nullopt;
  }
  return parse(*text, name_or_path, error);
}

std::vector<std::string> Description::shipped() { return shipped_description_names(); }

Description Description::named(std::string_view name) {
  std::string error;
  const std::optional<std::string_view> text = shipped_description(name);
  SCULPT_CHECK(text) << "no shipped description " << name;
  std::optional<Description> d = parse(*text, name, &error);
  SCULPT_CHECK(d) << error;
  return std::move(*d);
}

std::optional<Description> Description::of_gpu(std::string_view model) {
  for (const std::string& name : shipped()) {
    Description d = named(name);
    if (d.gpu && !model.empty() && d.about == model) return d;
  }
  return std::nullopt;
}

std::string Description::to_json() const {
  Json out = {{"name", name},
              {"about", about},
              {"limits", limits_of.empty() ? Json::parse(limits.to_json()) : Json(limits_of)}};
  if (gpu) out["gpu"] = rates_json(*gpu, kGpuFields);
  if (cpu) out["cpu"] = rates_json(*cpu, kCpuFields);
  return out.dump(2) + "\n";
}

std::vector<NamedFigure> figures(const GpuRates& rates) { return named(rates, kGpuFields); }
std::vector<NamedFigure> figures(const CpuRates& rates) { return named(rates, kCpuFields); }

}  // namespace sculpt::perf_model
