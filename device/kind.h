#pragma once
// The kinds of device a search measures on, by the names logs and `sculpt search --device` use.
// Everything that differs by device (the language its code is in, a search's defaults, the
// description its model reads) asks for a Kind, never compares names.
#include <optional>
#include <string>
#include <string_view>

#include "codegen/kernel_code.h"

namespace sculpt::device {

using codegen::Language;

/// `stand_in` is search/session/stand_in_device.h's device, whose times are a function of the
/// candidate; it stands in for a GPU.
enum class Kind { cpu, cuda, stand_in };

/// "cpu", "cuda", "stand-in".
std::string_view name(Kind kind);
/// The kind `name` names; nothing for a name no device has.
std::optional<Kind> kind_named(std::string_view name);
/// The names of every kind, for messages: "cpu, cuda, stand-in".
std::string kind_names();

/// Whether a device of `kind` runs the GPU's code (or stands in for a GPU).
bool is_gpu(Kind kind);
/// The language a device of `kind` compiles: PTX for CUDA, else C.
Language language_of(Kind kind);

}  // namespace sculpt::device
