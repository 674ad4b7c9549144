#include "device/kind.h"

#include <array>
#include <utility>

namespace sculpt::device {

namespace {

constexpr std::array<std::pair<Kind, std::string_view>, 3> kNames = {
    {{Kind::cpu, "cpu"}, {Kind::cuda, "cuda"}, {Kind::stand_in, "stand-in"}}};

}  // namespace

std::string_view name(Kind kind) {
  for (const auto& [k, n] : kNames) {
    if (k == kind) return n;
  }
  return {};
}

std::optional<Kind> kind_named(std::string_view name) {
  for (const auto& [k, n] : kNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

std::string kind_names() {
  std::string names;
  for (const auto& [k, n] : kNames) names += (names.empty() ? "" : ", ") + std::string(n);
  return names;
}

bool is_gpu(Kind kind) { return kind != Kind::cpu; }

Language language_of(Kind kind) { return kind == Kind::cuda ? Language::ptx : Language::c; }

}  // namespace sculpt::device
