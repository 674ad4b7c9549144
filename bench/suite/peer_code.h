#pragma once
// A peer of the suite (a library call, or a plain OpenMP loop where no library has the kernel)
// as a C kernel the CPU device runs as it runs a candidate: the same entry signature
// (`void ENTRY(void** params)`), the same problem, its result checked against the same
// reference, its time taken the same way.
#include <string>

#include "device/evaluator.h"
#include "device/problem.h"

namespace sculpt::bench {

/// The libraries a peer calls; each brings its C helpers (peer_code.cpp).
enum class Library { openblas, onednn, openmp };

std::string to_string(Library library);

struct Peer {
  /// "openblas_sgemm": the table's name for it, and its entry's.
  std::string name;
  Library library = Library::openmp;
  /// C statements over the kernel's parameters, which are declared by their names with their
  /// types (sizes and scalars by value, inputs `const float* restrict`, outputs `float*
  /// restrict`).
  std::string body;
  /// File-scope C placed before the entry: the state a library keeps between calls.
  std::string helpers{};
};

/// The peer's C source for `problem`'s parameters: its library's helpers, `peer.helpers`, then
/// the entry, which names the parameters and runs `peer.body`.
device::KernelCode peer_code(const Peer& peer, const device::Problem& problem);

/// The link flags the peers' libraries need, for the evaluator that runs them. OpenBLAS is
/// linked even where a peer calls nothing of it so that its kernel is reported (below).
std::vector<std::string> peer_link_flags();

/// The environment variables the peers' helpers write what their library chose to, when set:
/// the OpenBLAS kernel ("SkylakeX"), and each oneDNN primitive's implementation
/// ("brg:avx512_core"), a line per primitive made.
inline constexpr const char* kOpenBlasReportVariable = "SCULPT_SUITE_OPENBLAS_REPORT";
inline constexpr const char* kOneDnnReportVariable = "SCULPT_SUITE_ONEDNN_REPORT";

}  // namespace sculpt::bench
