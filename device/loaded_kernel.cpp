#include "device/loaded_kernel.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

#include "device/c_compiler.h"
#include "support/check.h"

namespace sculpt::device {
namespace {

class LoadedC final : public LoadedKernel {
 public:
  using Entry = void (*)(void**);
  LoadedC(void* handle, Entry entry) : handle_(handle), entry_(entry) {}
  ~LoadedC() override { dlclose(handle_); }
  LoadedC(const LoadedC&) = delete;
  LoadedC& operator=(const LoadedC&) = delete;

  void run(void** params, void*) const override {
    const std::lock_guard lock(running_);
    entry_(params);
  }

 private:
  void* handle_;
  Entry entry_;
  /// The code may keep temporaries in static arrays of its own: one run at a time.
  mutable std::mutex running_;
};

}  // namespace

std::unique_ptr<LoadedKernel> load_c(const codegen::KernelCode& code,
                                     const CpuEvaluatorOptions& options) {
  SCULPT_CHECK(code.language == codegen::Language::c) << "load_c takes C";
  CCompiler compiler(options.compiler, options.flags, options.cache_dir, options.compile_timeout,
                     options.flags_if_accepted);
  const CCompiler::Result compiled = compiler.compile(code.source);
  if (!compiled.object) {
    throw DeviceError(fmt::format("the kernel's C does not compile with {}: {}",
                                  compiler.compiler(), compiled.log));
  }
  // Never unloaded: the OpenMP runtime it brings keeps its idle threads after a run, and
  // unloading it under them would crash the process.
  void* handle = dlopen(compiled.object->c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    throw DeviceError(fmt::format("cannot load {}: {}", compiled.object->string(), dlerror()));
  }
  auto entry = reinterpret_cast<LoadedC::Entry>(dlsym(handle, code.entry.c_str()));
  if (entry == nullptr) {
    dlclose(handle);
    throw DeviceError(fmt::format("no function '{}' in the kernel's C", code.entry));
  }
  return std::make_unique<LoadedC>(handle, entry);
}

}  // namespace sculpt::device
