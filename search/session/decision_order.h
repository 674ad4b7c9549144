#pragma once
// The order in which a search decides choices: a search option, not the order of `include`s in
// the space. Every choice of the space is decided; the order only says which open instance is
// fixed next, so it changes the shape of the search tree, never which candidates are valid
// (propagation is sound, and a full assignment is checked whatever the order it was made in).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spacegen/runtime/candidate.h"

namespace sculpt::search {

class DecisionOrder {
 public:
  /// `names`: choices separated by commas, decided in that order; the space's other decision
  /// choices follow in declaration order. Nothing with a message in `error` for a name that is
  /// not a decision of the space (counters are computed, never decided) or one named twice.
  /// Names the default lists that the space lacks are skipped only in the default.
  static std::optional<DecisionOrder> parse(const spacegen::SpaceTable& table,
                                            std::string_view names, std::string* error);
  /// A device's default order over `table` (DeviceDefaults::order, `names`): as parse(), but
  /// the names the space lacks are skipped.
  static DecisionOrder standard(const spacegen::SpaceTable& table, std::string_view names);
  /// Declaration order (the order of `include`s): what first_open_instance() decides.
  static DecisionOrder declaration(const spacegen::SpaceTable& table);

  /// The next decision of `candidate`; nothing when it is fully specified.
  std::optional<spacegen::InstanceRef> next(const spacegen::CandidateBase& candidate) const {
    return candidate.first_open_instance(choices_);
  }
  /// The choices in order, by id.
  const std::vector<std::uint32_t>& choices() const { return choices_; }
  /// The choices' names joined by commas, as parse() reads them.
  std::string to_string(const spacegen::SpaceTable& table) const;

 private:
  explicit DecisionOrder(std::vector<std::uint32_t> choices) : choices_(std::move(choices)) {}
  std::vector<std::uint32_t> choices_;
};

}  // namespace sculpt::search
