#include "search/session/decision_order.h"

#include <fmt/format.h>

#include <algorithm>

#include "support/check.h"

namespace sculpt::search {
namespace {

using spacegen::ChoiceKind;
using spacegen::SpaceTable;

std::vector<std::string_view> split_names(std::string_view names) {
  std::vector<std::string_view> out;
  while (!names.empty()) {
    const std::size_t comma = names.find(',');
    std::string_view name = names.substr(0, comma);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    out.push_back(name);
    if (comma == std::string_view::npos) break;
    names.remove_prefix(comma + 1);
  }
  return out;
}

std::string decision_names(const SpaceTable& table) {
  std::string out;
  for (const spacegen::ChoiceTable& c : table.choices) {
    if (c.kind != ChoiceKind::Counter) out += (out.empty() ? "" : ", ") + c.name;
  }
  return out;
}

/// `first` then the remaining decisions in declaration order.
std::vector<std::uint32_t> completed(const SpaceTable& table, std::vector<std::uint32_t> first) {
  for (std::uint32_t c = 0; c < table.choices.size(); ++c) {
    if (table.choices[c].kind != ChoiceKind::Counter &&
        std::find(first.begin(), first.end(), c) == first.end()) {
      first.push_back(c);
    }
  }
  return first;
}

}  // namespace

std::optional<DecisionOrder> DecisionOrder::parse(const SpaceTable& table, std::string_view names,
                                                  std::string* error) {
  std::vector<std::uint32_t> first;
  for (std::string_view name : split_names(names)) {
    const auto it = std::find_if(table.choices.begin(), table.choices.end(),
                                 [&](const spacegen::ChoiceTable& c) { return c.name == name; });
    std::string why;
    if (it == table.choices.end()) {
      why = "is not a choice of the space";
    } else if (it->kind == ChoiceKind::Counter) {
      why = "is a counter: propagation computes it, no search decides it";
    } else if (std::find(first.begin(), first.end(), it - table.choices.begin()) != first.end()) {
      why = "is named twice";
    }
    if (!why.empty()) {
      *error = fmt::format("decision order: '{}' {} (decisions of {}: {})", name, why, table.name,
                           decision_names(table));
      return std::nullopt;
    }
    first.push_back(static_cast<std::uint32_t>(it - table.choices.begin()));
  }
  return DecisionOrder(completed(table, std::move(first)));
}

DecisionOrder DecisionOrder::standard(const SpaceTable& table, std::string_view names) {
  std::vector<std::uint32_t> first;
  for (std::string_view name : split_names(names)) {
    for (std::uint32_t c = 0; c < table.choices.size(); ++c) {
      if (table.choices[c].name == name && table.choices[c].kind != ChoiceKind::Counter) {
        first.push_back(c);
      }
    }
  }
  return DecisionOrder(completed(table, std::move(first)));
}

DecisionOrder DecisionOrder::declaration(const SpaceTable& table) {
  return DecisionOrder(completed(table, {}));
}

std::string DecisionOrder::to_string(const SpaceTable& table) const {
  std::string out;
  for (std::uint32_t c : choices_) out += (out.empty() ? "" : ",") + table.choices[c].name;
  return out;
}

}  // namespace sculpt::search
