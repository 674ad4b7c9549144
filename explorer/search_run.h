#pragma once
// One search of a zoo kernel for one problem size on a device (of this process, a stand-in, or
// those of an MPI job's evaluator ranks), as `sculpt search` and the library call (sculpt.h) run
// it: the device and its description, the space's root and model, the run folder (new, or
// resumed from its log), the session, and at the end the report. Preparing and running are
// separate steps so that the library can look its cache up in between, once it knows the device
// and the space.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "backbone/kernel_info.h"
#include "device/evaluator.h"
#include "search/log/run_folder.h"
#include "search/session/candidate_evaluator.h"
#include "search/session/session.h"

namespace sculpt::explorer {

/// Evaluators of candidates that this process does not hold (the evaluator ranks of an MPI
/// job, distributed/): what they measure on, and the evaluator of a problem on them.
struct RemoteDevice {
  /// As device::Evaluator says: its kind; "sm_90"; the GPU's model.
  device::Kind kind = device::Kind::cpu;
  std::string architecture;
  std::string model;
  /// The evaluator of kernel `kernel` (of the zoo, or of the request's definition) at `sizes`,
  /// its inputs drawn from `seed`. Throws sculpt::Error.
  std::function<std::unique_ptr<search::CandidateEvaluator>(
      const std::string& kernel, const backbone::Sizes& sizes, std::uint64_t seed)>
      open;
};

struct SearchRequest {
  std::string kernel;
  /// "1024x1024x1024"; empty: the kernel's defaults.
  std::string size;
  /// auto (the GPU when one answers), cpu, cuda, or stand-in (search/session/stand_in_device.h:
  /// times a known function of each candidate, for tests and benchmarks).
  std::string device = "auto";
  /// A shipped description's name or a file; empty: the device's.
  std::string description;
  search::SessionOptions session;
  /// The run folder; empty: runs/KERNEL-SIZE.
  std::filesystem::path out;
  bool resume = false;
  /// Other searches of the same kernel (logs or run folders) whose fastest candidates are
  /// evaluated first (`--start-from`; SessionOptions::starts).
  std::vector<std::filesystem::path> start_from{};
  /// How long the stand-in device takes per evaluation.
  std::chrono::microseconds stand_in_latency{0};
  /// Where candidates are measured when not on `device` in this process.
  std::optional<RemoteDevice> remote{};
  /// A kernel of one's own: the text of Tensor Comprehensions definitions
  /// (frontend/LANGUAGE.md) and the file it came from, for messages. `kernel` then picks one
  /// (empty: the only one) and `size` gives its sizes by name ("M=256,N=256,K=32").
  std::string definition{};
  std::string definition_file{};
};

/// What a search's progress shows after each evaluation.
struct SearchProgressState {
  /// Evaluations in the log, recalled ones included, and those asked for in all.
  std::int64_t evaluations = 0;
  std::int64_t requested = 0;
  /// The best time so far and its id; the first time that checked ok, for the speed-up.
  std::optional<double> best_ns;
  std::int64_t best_id = 0;
  std::optional<double> first_ok_ns;
  bool new_best = false;
};

struct SearchOutcome {
  search::SessionStats stats;
  /// Evaluations in the log by check, and in all.
  std::map<std::string, std::int64_t> counts;
  std::int64_t evaluations = 0;
  std::optional<search::LogEvaluation> best;
  /// The best candidate's code as the device ran it; its file in the run folder.
  std::optional<device::KernelCode> best_code;
  std::optional<std::filesystem::path> best_code_path;
  std::filesystem::path dir;
  std::filesystem::path log;
  /// The HTML report, when it could be written (report_error says why not).
  std::optional<std::filesystem::path> report;
  std::string report_error;
};

class SearchRun {
 public:
  /// Makes the device, the space and the run folder. Throws sculpt::Error: a usage error (exit
  /// 2: an unknown kernel, a bad option, a damaged or foreign log), a kernel whose space is
  /// empty (exit 1), or a stop requested (`request.session.stop_requested`) before the session
  /// could start (kExitInterrupted; open_folder() too, during a resume's recall).
  explicit SearchRun(const SearchRequest& request);
  ~SearchRun();
  SearchRun(const SearchRun&) = delete;
  SearchRun& operator=(const SearchRun&) = delete;

  /// "matmul 256x256x256 on cpu".
  const std::string& what() const;
  const backbone::KernelInfo& kernel() const;
  const backbone::Sizes& sizes() const;
  /// The kernel built at those sizes.
  const backbone::Kernel& backbone() const;
  /// Which device exactly (device::Evaluator::model): "NVIDIA H100 80GB HBM3 (sm_90)", "cpu".
  const std::string& device_model() const;
  /// Identifies the space (its hash) and the device description the bounds use.
  std::uint64_t space_hash() const;
  std::uint64_t description_hash() const;
  /// Evaluations the run folder held before this run (a resumed search).
  std::int64_t logged() const;

  /// Adds another search's fastest candidates to those evaluated first, as the request's
  /// `start_from` does, but only warns when the log cannot be read or is of another kernel.
  /// Before open_folder().
  void start_from(const std::filesystem::path& log);
  /// Makes the session and starts the run folder (a new one, or the resumed one with its log
  /// recalled into the session). Throws sculpt::Error as the constructor does.
  void open_folder();
  /// Searches, calling `progress` after each evaluation, then writes the report. Throws
  /// sculpt::Error when the device fails or the log cannot be written. A new run folder that a
  /// failure leaves without an evaluation (a problem the device refuses) is removed.
  SearchOutcome run(const std::function<void(const SearchProgressState&)>& progress);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace sculpt::explorer
