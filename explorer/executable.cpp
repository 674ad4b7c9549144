// sculpt::load and Executable (executable.h): a found kernel's arguments checked against its
// parameters and laid out as its code's ABI takes them, then run by the device's loaded kernel.
#include "explorer/executable.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>

#include "device/loaded_kernel.h"
#ifdef SCULPT_HAVE_CUDA
#include "device/cuda_loaded_kernel.h"
#endif

namespace sculpt {

struct Executable::Loaded {
  Kernel kernel;
  /// The arrays and scalars, in order: what a run's arguments are for.
  std::vector<Parameter> arguments;
  std::unique_ptr<device::LoadedKernel> code;
};

namespace {

std::size_t bytes_of(const std::string& type) { return type == "f64" ? 8 : 4; }

/// "matmul 256x256x256".
std::string what(const Kernel& kernel) { return kernel.kernel + " " + kernel.sizes; }

/// A scalar argument's value as the parameter's type, in `storage`.
void convert_scalar(const Kernel& kernel, const Parameter& param, std::size_t index,
                    const Argument& argument, std::array<std::byte, 8>& storage) {
  const double value = std::visit(
      [](auto v) -> double {
        if constexpr (std::is_same_v<decltype(v), std::monostate>) {
          return 0;
        } else {
          return static_cast<double>(v);
        }
      },
      argument.scalar());
  if (param.type == "f32") {
    const float v = static_cast<float>(value);
    std::memcpy(storage.data(), &v, sizeof v);
  } else if (param.type == "f64") {
    std::memcpy(storage.data(), &value, sizeof value);
  } else {
    if (value != std::trunc(value) || std::abs(value) > 2147483647.0) {
      throw Error(Error::Kind::usage, fmt::format("{}: argument {} ({}) is an i32 scalar, not {}",
                                                  what(kernel), index + 1, param.name, value));
    }
    const auto v = static_cast<std::int32_t>(value);
    std::memcpy(storage.data(), &v, sizeof v);
  }
}

}  // namespace

Executable load(const Kernel& kernel, const LoadOptions& options) {
  if (kernel.parameters.empty()) {
    throw Error(Error::Kind::usage, fmt::format("{}: the kernel has no parameters: load() takes "
                                                "what sculpt::search returned",
                                                what(kernel)));
  }
  auto loaded = std::make_shared<Executable::Loaded>();
  loaded->kernel = kernel;
  for (const Parameter& param : kernel.parameters) {
    if (param.kind != Parameter::Kind::size) loaded->arguments.push_back(param);
  }
  codegen::KernelCode code;
  code.source = kernel.code;
  code.entry = kernel.entry;
  code.launch = {kernel.launch.grid, kernel.launch.block, kernel.launch.shared_bytes};
  if (kernel.language == "c") {
    code.language = codegen::Language::c;
    loaded->code = device::load_c(code);
  } else if (kernel.language == "ptx") {
    code.language = codegen::Language::ptx;
#ifdef SCULPT_HAVE_CUDA
    loaded->code = device::load_ptx(code, options.cuda_library, options.gpu);
#else
    (void)options;
    throw Error(Error::Kind::environment,
                what(kernel) +
                    ": a GPU kernel, and this sculpt was built without CUDA support "
                    "(cuda.h was not found at build time)");
#endif
  } else {
    throw Error(Error::Kind::usage,
                fmt::format("{}: unknown language '{}' (c or ptx)", what(kernel), kernel.language));
  }
  return Executable(std::move(loaded));
}

void Executable::run(std::span<const Argument> arguments, void* stream) const {
  const Kernel& kernel = loaded_->kernel;
  const std::vector<Parameter>& expected = loaded_->arguments;
  if (arguments.size() != expected.size()) {
    std::string names;
    for (const Parameter& param : expected) names += (names.empty() ? "" : ", ") + param.name;
    throw Error(Error::Kind::usage, fmt::format("{} takes {} arguments ({}), not {}", what(kernel),
                                                expected.size(), names, arguments.size()));
  }
  // Every parameter's value, and what params[i] points to: sizes are the kernel's own.
  std::vector<std::array<std::byte, 8>> values(kernel.parameters.size());
  std::vector<void*> params(kernel.parameters.size());
  std::size_t next = 0;
  for (std::size_t i = 0; i < kernel.parameters.size(); ++i) {
    const Parameter& param = kernel.parameters[i];
    params[i] = values[i].data();
    if (param.kind == Parameter::Kind::size) {
      const auto v = static_cast<std::int32_t>(param.value);
      std::memcpy(values[i].data(), &v, sizeof v);
      continue;
    }
    const std::size_t index = next++;
    const Argument& argument = arguments[index];
    const std::string which =
        fmt::format("{}: argument {} ({})", what(kernel), index + 1, param.name);
    if (param.kind == Parameter::Kind::scalar) {
      if (argument.is_array()) {
        throw Error(Error::Kind::usage, which + " is a scalar of " + param.type + ", not an array");
      }
      convert_scalar(kernel, param, index, argument, values[i]);
      continue;
    }
    if (!argument.is_array()) {
      throw Error(Error::Kind::usage, which + " is an array of " + param.type + ", not a scalar");
    }
    if (*argument.type() != '\0' && param.type != argument.type()) {
      throw Error(Error::Kind::usage, fmt::format("{} is an array of {}, not of {}", which,
                                                  param.type, argument.type()));
    }
    const std::size_t bytes = static_cast<std::size_t>(param.elements) * bytes_of(param.type);
    if (argument.bytes() != bytes) {
      throw Error(Error::Kind::usage,
                  fmt::format("{} holds {} elements of {} ({} bytes), not {} bytes", which,
                              param.elements, param.type, bytes, argument.bytes()));
    }
    if (param.role != Parameter::Role::input && !argument.writable()) {
      throw Error(Error::Kind::usage, which + " is written by the kernel: it cannot be const");
    }
    void* data = argument.data();
    std::memcpy(values[i].data(), &data, sizeof data);
  }
  loaded_->code->run(params.data(), stream);
}

const Kernel& Executable::kernel() const { return loaded_->kernel; }

const std::vector<Parameter>& Executable::arguments() const { return loaded_->arguments; }

}  // namespace sculpt
