#pragma once
// What the ranks of a distributed search say to each other, as MPI messages (a tag and bytes):
// each evaluator rank says at start what it measures on; rank 0 sends the problem once, then
// candidates' code; evaluator ranks send back evaluations. Problem data never travels: each
// evaluator rank draws the inputs from the seed and computes the reference itself.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "device/evaluator.h"
#include "search/session/candidate_evaluator.h"
#include "support/error.h"

namespace sculpt::distributed {

/// A message's MPI tag, which says what its bytes hold.
enum class Tag : int {
  hello = 1,   ///< evaluator rank to 0, at start: Hello
  problem,     ///< 0 to evaluator ranks, once: ProblemMessage
  submission,  ///< 0 to an evaluator rank: SubmissionMessage
  evaluation,  ///< evaluator rank to 0: EvaluationMessage
  cancel,      ///< 0 to evaluator ranks: drop the submissions not yet measuring (no bytes)
  stop,        ///< 0 to evaluator ranks: stop, and say `stopped` (no bytes)
  stopped,     ///< evaluator rank to 0: nothing more comes from it (no bytes)
};

/// What an evaluator rank measures on, or why it has no device.
struct Hello {
  std::string host;
  /// As device::Evaluator names them: "cuda", "sm_90", "NVIDIA H100 80GB HBM3 (sm_90)"; empty,
  /// with `error` saying why, when the rank has no device.
  std::string name;
  std::string architecture;
  std::string model;
  std::string error;
};

/// The problem every evaluator rank measures on: a kernel at its sizes, its inputs drawn from
/// `seed`. A zoo kernel, with sizes as "256x256x256"; or a kernel of one's own, picked from the
/// text of its Tensor Comprehensions definitions (frontend/; `definition_file` names it in
/// messages), with sizes by name ("M=256,N=256,K=32").
struct ProblemMessage {
  std::string kernel;
  std::string sizes;
  std::uint64_t seed = 0;
  std::string definition;
  std::string definition_file;
};

/// The search's device::Cutoff when a candidate is sent: each evaluator rank cuts against the
/// lower of this best time and the best it measured itself.
struct CutoffState {
  double factor = 1;
  std::optional<double> best_ns;
};

struct SubmissionMessage {
  /// Rank 0's number for it, which the evaluation repeats.
  std::uint64_t job = 0;
  search::Submission submission;
  std::optional<CutoffState> cutoff;
};

struct EvaluationMessage {
  enum class Outcome : std::uint8_t {
    evaluated,
    abandoned,  ///< cancelled before it was measured
    failed,     ///< the device cannot go on (device::DeviceError), `error` says why
  };
  std::uint64_t job = 0;
  Outcome outcome = Outcome::evaluated;
  /// Without its rank, which the receiver knows.
  device::Evaluation evaluation;
  std::string error;
  /// The rank's device's times so far.
  device::DeviceTimes times;
};

/// Bytes that do not decode as the message their tag says: truncated, or from another version.
class WireError : public Error {
 public:
  explicit WireError(const std::string& message) : Error(Error::Kind::environment, message) {}
};

std::string encode(const Hello& message);
std::string encode(const ProblemMessage& message);
std::string encode(const SubmissionMessage& message);
std::string encode(const EvaluationMessage& message);

/// Each throws WireError.
Hello decode_hello(std::string_view bytes);
ProblemMessage decode_problem(std::string_view bytes);
SubmissionMessage decode_submission(std::string_view bytes);
EvaluationMessage decode_evaluation(std::string_view bytes);

}  // namespace sculpt::distributed
