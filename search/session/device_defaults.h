#pragma once
// What a search does differently on each kind of device, in one place: the options a user
// leaves unset are filled in from here (Session, for the decision order and MCTS's opening and
// screening; the search runner, for a kernel's default sizes), and `sculpt search --help`
// quotes them.
#include <cstdint>
#include <string_view>

#include "device/kind.h"

namespace sculpt::search {

struct DeviceDefaults {
  /// The choices decided first, in order (DecisionOrder::standard).
  std::string_view order;
  /// MctsOptions::opening: rollouts from the root whose lowest bound is each proposal until a
  /// first time is measured.
  int opening = 1;
  /// MctsOptions::screen: rollouts the learnt model picks each rollout among.
  int screen = 1;
  /// Points at most of a kernel's default sizes (backbone::scaled_down); 0: as they are.
  std::int64_t default_points = 0;
};

const DeviceDefaults& defaults_for(device::Kind kind);

}  // namespace sculpt::search
