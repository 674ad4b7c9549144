#pragma once
// Runs the PTX that sculpt's printer writes on the host, one thread after another between
// barriers, so that candidates' PTX is checked for what it computes where there is no GPU. It
// knows the subset of PTX the printer emits (and tells a line it does not know), and reports
// what a GPU would fault on (an address outside every allocation, a misaligned access) and what
// a GPU would silently get wrong: results that depend on the order in which threads run (a data
// race: two threads touch the same memory, one of them writing, with no barrier between them),
// and a barrier not every thread of a block reaches. It is a test instrument: it checks
// semantics, not speed.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sculpt::ptx_emulator {

/// PTX the emulator does not know, with its line.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Fault {
  none,
  /// A launch the driver refuses: a block other than the kernel's `.reqntid`.
  refused,
  illegal_address,
  misaligned_address,
  /// The results depend on the order of threads: two of them access the same bytes, one
  /// writing, unordered by a barrier, and what they leave in memory differs.
  race,
  /// Some threads of a block wait at a barrier that others never reach.
  barrier,
  /// More instructions than the launch allows: a kernel that does not end.
  too_long,
};

struct Outcome {
  Fault fault = Fault::none;
  /// What happened where: the PTX line, the thread, the address.
  std::string message;
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  std::uint64_t count() const { return std::uint64_t{x} * y * z; }
};

struct Launch {
  Dim3 grid;
  Dim3 block;
  /// As cuLaunchKernel takes them: a pointer to each parameter's value.
  void** params = nullptr;
  /// Global memory (the module's arrays aside): (address, bytes) of each allocation.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> allocations;
  std::uint64_t max_instructions = std::uint64_t{1} << 32;
};

/// A parsed module: its global arrays live as long as it does.
class Module {
 public:
  /// Throws Unsupported.
  explicit Module(const std::string& ptx);
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// Runs entry `name` (which must exist) to its end or its first fault.
  Outcome run(const std::string& name, const Launch& launch);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sculpt::ptx_emulator
