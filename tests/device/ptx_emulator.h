#pragma once
// Runs the PTX that sculpt's printer writes on the host, one thread after another between
// barriers, so that candidates' PTX is checked for what it computes where there is no GPU. It
// knows the subset of PTX the printer emits, and the clocks that the GPU characterization's
// microbenchmarks read (and tells a line it does not know), and reports what a GPU would fault
// on (an address outside every allocation, a misaligned access) and what a GPU would silently
// get wrong: results that depend on the order in which threads run (a data race: two threads
// touch the same memory, one of them writing, with no barrier between them), and a barrier not
// every thread of a block reaches. On request it also counts what a launch executed, as a GPU's
// warps issue it (warp instructions by class, global sectors, shared wavefronts), so that a
// performance model's counts can be checked against it. It is a test instrument: it checks
// semantics, not speed. Its clocks are deterministic: %clock64 reads the instructions the
// thread executed in its block so far, %globaltimer the same as nanoseconds.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "perf_model/instruction_class.h"

namespace sculpt::ptx_emulator {

/// PTX the emulator does not know, with its line.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Fault {
  none,
  /// A launch the driver refuses: a block other than the kernel's `.reqntid`. Or, counting, one
  /// the emulator cannot count: a warp whose lanes diverge (a GPU would run it).
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

/// What the PTX lines of one backbone instruction (those whose comment names it) executed.
struct InstructionCounts {
  std::array<std::uint64_t, perf_model::kInstrClasses> warp_instructions{};
  std::uint64_t sectors = 0;
  std::uint64_t wavefronts = 0;
  /// Memory warp instructions with at least one active lane.
  std::uint64_t active_accesses = 0;
};

/// What a launch executed, as warps of 32 consecutive threads of a block issue it in lockstep.
/// A warp instruction is issued, and counted, whether its guard holds for all, some or none of
/// the warp's lanes; its memory accesses are those of the lanes whose guard holds.
struct Counts {
  /// By perf_model::InstrClass.
  std::array<std::uint64_t, perf_model::kInstrClasses> warp_instructions{};
  /// perf_model::global_sectors of each global warp access, summed. They depend on where the
  /// allocations lie: align them as cuMemAlloc does (256 bytes), as the module's arrays are.
  std::uint64_t global_sectors = 0;
  /// perf_model::shared_wavefronts of each shared warp access, summed.
  std::uint64_t shared_wavefronts = 0;
  /// The bar.sync a block passes (the most over blocks).
  std::uint64_t barriers_per_block = 0;
  /// By the backbone instruction a PTX line's comment names (`// load0`: the text after `//`,
  /// trimmed); lines without a comment are left out.
  std::map<std::string, InstructionCounts> by_instruction;
};

struct Outcome {
  Fault fault = Fault::none;
  /// What happened where: the PTX line, the thread, the address.
  std::string message;
  /// When the launch asked for them and ran without fault.
  Counts counts{};  // {}: so that an Outcome written {fault, message} draws no warning
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
  /// Count what the launch executes (Outcome::counts), in a further run in warp lockstep.
  bool count = false;
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
