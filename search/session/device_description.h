#pragma once
// The description the performance model reads for the device a search runs on.
#include <optional>
#include <string>
#include <string_view>

#include "device/kind.h"
#include "perf_model/description.h"

namespace sculpt::search {

/// `requested` (a shipped description's name or a file) when not empty; else the description
/// of a device of `kind`: for a GPU, the shipped description of its model (`model`, as
/// device::Evaluator::model says, is its `about`: "NVIDIA H200 (sm_90)" is h200), else the one
/// named after its `architecture` (device::Evaluator::architecture, "sm_90"; sm_90 when it is not
/// known, as in a log, and for the stand-in device, search/session/stand_in_device.h); for the CPU,
/// this machine's, measured once (a few seconds) and kept in the user's cache folder for the next
/// searches. Nothing, with a message, when it cannot be had (a GPU no shipped description
/// describes).
std::optional<perf_model::Description> device_description(device::Kind kind,
                                                          std::string_view architecture,
                                                          const std::string& requested,
                                                          std::string* error,
                                                          std::string_view model = {});

}  // namespace sculpt::search
