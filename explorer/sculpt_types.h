#pragma once
// The types of sculpt's library call (sculpt.h), apart from the call itself: sculpt's own code
// includes them where a `sculpt::search` function would clash with its namespace of that name.
// Installed as <sculpt/sculpt_types.h>; needs nothing but the standard library and sculpt's
// error type (support/error.h, installed beside it): a bad request or a search that found no
// valid candidate throws sculpt::Error.
#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/error.h"

namespace sculpt {

/// How far a search has come, after each evaluation.
struct Progress {
  std::int64_t evaluations = 0;  // in the log, in all
  std::int64_t requested = 0;
  std::optional<double> best_ns;
};

struct SearchOptions {
  /// "auto" (the GPU when one answers, else the CPU), "cpu" or "cuda".
  std::string device = "auto";
  /// "mcts" (Monte-Carlo tree search), "bb" (branch-and-bound) or "random".
  std::string algorithm = "mcts";
  /// Candidates to evaluate, and a wall-clock budget in seconds: the first reached ends the
  /// search.
  std::int64_t evals = 100;
  std::optional<double> budget_s;
  std::uint64_t seed = 1;
  /// Searching threads.
  int threads = 1;
  /// The folder of the cache and of its searches' run folders; empty: $XDG_CACHE_HOME/sculpt,
  /// else ~/.cache/sculpt.
  std::filesystem::path cache_dir;
  /// false: search even when the cache holds the kernel (the result replaces it).
  bool use_cache = true;
  /// Other searches of the kernel to start from (run folders or logs: a Kernel's `log`, of
  /// other sizes or another device too): their 10 fastest candidates are evaluated first, each
  /// as far as its decisions apply (`sculpt search --start-from`).
  std::vector<std::filesystem::path> start_from;
  /// Also start from the cache's search of the kernel on the device at the sizes nearest these
  /// (another size's best implementation often holds for these too, or nearly): its 10
  /// fastest candidates, evaluated first as start_from's are. false: a search from scratch.
  bool start_from_cache = true;
  /// Called after each evaluation, on the calling thread.
  std::function<void(const Progress&)> on_progress;
  /// Also show the search's progress on stderr as `sculpt search` does: one line redrawn on a
  /// terminal, a line at each new best when piped.
  bool show_progress = false;
  /// Polled while the search runs, from any of its threads: true stops it as its budget would,
  /// and the call throws sculpt::Error (interrupted) without caching what it found.
  std::function<bool()> stop_requested;
  /// A kernel of one's own: the text of kernel definitions in the Tensor Comprehensions
  /// notation, "def mm(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,k) * B(k,n) }" (see
  /// sculpt's frontend/LANGUAGE.md). The call's `kernel` then picks one by name (empty: the
  /// only one) and its `sizes` name every size: "M=256,N=256,K=32".
  std::string definition;
};

/// A GPU launch: grid and block sizes, dynamic shared memory.
struct Launch {
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
  std::uint32_t shared_bytes = 0;
};

/// A parameter of a found kernel's code, in the order the code takes them.
struct Parameter {
  /// A size is bound to the value it was searched for (a run passes it itself); a scalar and
  /// an array are the arguments of a run.
  enum class Kind { size, scalar, array };
  /// How the kernel uses an array: read, written (every element), or read then written.
  enum class Role { input, output, inout };
  std::string name;
  Kind kind = Kind::array;
  /// "f32", "f64" or "i32".
  std::string type = "f32";
  Role role = Role::input;
  /// Arrays: the shape, the elements between consecutive indices of each dimension (row-major,
  /// unless the kernel says otherwise), and the elements of the buffer.
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  std::int64_t elements = 0;
  /// Sizes: the value.
  std::int64_t value = 0;
};

/// The best implementation found.
struct Kernel {
  std::string kernel;
  std::string sizes;  // "1024x1024x1024"
  /// The device it was measured on: a GPU's name ("NVIDIA H100 80GB HBM3 (sm_90)") or "cpu".
  std::string device;
  /// "ptx" (launch `entry` with `launch`) or "c" (`entry` takes the kernel's parameters and
  /// runs the whole grid).
  std::string language;
  std::string code;
  std::string entry;
  Launch launch;
  /// What the code takes: every size, scalar and array of the kernel.
  std::vector<Parameter> parameters;
  /// Its measured time (median of the timed runs).
  double time_ns = 0;
  /// The search that found it: its run folder and log, the candidate's id in the log.
  std::filesystem::path run_dir;
  std::filesystem::path log;
  std::int64_t id = 0;
  /// Whether it came from the cache, without a search.
  bool from_cache = false;
};

/// A kernel of one's own, parsed and checked (sculpt::define).
struct Definition {
  /// The text of the definitions it is one of (what SearchOptions::definition takes).
  std::string text;
  std::string name;
  /// Its sizes' names, in the order `sizes` strings give them ("M=256,N=256,K=32").
  std::vector<std::string> sizes;
  /// What `sculpt kernels --def` prints: its statements, signature and inferred ranges.
  std::string description;
};

}  // namespace sculpt
