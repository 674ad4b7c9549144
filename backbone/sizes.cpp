#include "backbone/sizes.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include <fmt/format.h>

#include "support/check.h"

namespace sculpt::backbone {

void Sizes::set(std::string name, int64_t value) {
  for (auto& entry : entries_) {
    if (entry.first == name) {
      entry.second = value;
      return;
    }
  }
  entries_.emplace_back(std::move(name), value);
}

std::optional<int64_t> Sizes::find(std::string_view name) const {
  for (const auto& entry : entries_) {
    if (entry.first == name) return entry.second;
  }
  return std::nullopt;
}

int64_t Sizes::at(std::string_view name) const {
  const std::optional<int64_t> value = find(name);
  SCULPT_CHECK(value) << "no size named " << name;
  return *value;
}

std::string Sizes::to_string() const {
  std::string out;
  for (const auto& [name, value] : entries_) {
    if (!out.empty()) out += " ";
    out += name + "=" + std::to_string(value);
  }
  return out;
}

Sizes default_sizes(std::span<const SizeSpec> specs) {
  Sizes sizes;
  for (const SizeSpec& spec : specs) sizes.set(spec.name, spec.default_value);
  return sizes;
}

Sizes scaled_down(Sizes sizes, int64_t max_points) {
  std::vector<std::pair<std::string, int64_t>> entries = sizes.entries();
  const auto product = [&] {
    int64_t p = 1;
    for (const auto& [name, value] : entries) p *= value;
    return p;
  };
  while (product() > max_points) {
    auto largest =
        std::max_element(entries.begin(), entries.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    if (largest->second <= 1) break;
    largest->second /= 2;
  }
  Sizes scaled;
  for (auto& [name, value] : entries) scaled.set(std::move(name), value);
  return scaled;
}

Sizes test_sizes(std::span<const SizeSpec> specs) {
  Sizes sizes;
  for (const SizeSpec& spec : specs) sizes.set(spec.name, spec.test_value);
  return sizes;
}

namespace {
std::string expected_form(std::span<const SizeSpec> specs) {
  std::string form;
  for (const SizeSpec& spec : specs) form += (form.empty() ? "" : "x") + spec.name;
  return form;
}
}  // namespace

SizeParse parse_sizes(std::string_view text, std::span<const SizeSpec> specs) {
  SizeParse result;
  if (text.empty()) {
    result.sizes = default_sizes(specs);
    return result;
  }
  std::vector<std::string_view> fields;
  for (size_t start = 0;;) {
    const size_t end = text.find('x', start);
    fields.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  const std::string usage =
      " (expected " + expected_form(specs) + ", e.g. " + format_sizes(default_sizes(specs)) + ")";
  if (fields.size() != specs.size()) {
    result.error = "size '" + std::string(text) + "' has " + std::to_string(fields.size()) +
                   " field" + (fields.size() == 1 ? "" : "s") + ", the kernel takes " +
                   std::to_string(specs.size()) + usage;
    return result;
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    int64_t value = 0;
    const std::string_view field = fields[i];
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    // Sizes are i32 kernel parameters.
    if (field.empty() || ec != std::errc() || end != field.data() + field.size() || value <= 0 ||
        value > INT32_MAX) {
      result.error = "size '" + std::string(text) + "': field " + std::to_string(i + 1) + " (" +
                     specs[i].name + ") is '" + std::string(field) +
                     "', not a positive 32-bit integer" + usage;
      result.sizes = Sizes();
      return result;
    }
    result.sizes.set(specs[i].name, value);
  }
  // Every array a kernel indexes spans a product of some of its sizes (times a stride of at most
  // 32 in the zoo): under this bound, element counts, byte counts and index arithmetic stay far
  // from 64-bit overflow.
  long double points = 1;
  for (const auto& entry : result.sizes.entries()) points *= static_cast<long double>(entry.second);
  if (points > static_cast<long double>(kMaxIterationPoints)) {
    result.error = fmt::format(
        "size '{}' spans {:.4g} points (the product of its fields); 64-bit index arithmetic "
        "leaves room for 2^52 ({:.4g}) at most",
        text, static_cast<double>(points), static_cast<double>(kMaxIterationPoints));
    result.sizes = Sizes();
  }
  return result;
}

std::string format_sizes(const Sizes& sizes) {
  std::string out;
  for (const auto& entry : sizes.entries()) {
    out += (out.empty() ? "" : "x") + std::to_string(entry.second);
  }
  return out;
}

}  // namespace sculpt::backbone
