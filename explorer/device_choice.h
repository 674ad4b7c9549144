#pragma once
// The device a command measures on, as `--device` names it: auto (the GPU when one answers, else
// the CPU), cpu or cuda.
#include <memory>
#include <string>

#include "device/evaluator.h"

namespace sculpt::explorer {

/// The device `name` asks for, on GPU `gpu` (its ordinal) when it is a GPU; nullptr with a
/// message in `error` when it cannot be had.
std::unique_ptr<device::Evaluator> make_device(const std::string& name, std::string* error,
                                               int gpu = 0);

}  // namespace sculpt::explorer
