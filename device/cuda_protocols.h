#pragma once
// The protocols the CUDA evaluator speaks with its worker processes (device/cuda_worker.h), one
// enum class each: every worker first says whether it opened a CUDA context (WorkerStart), then
// its channel speaks the protocol of the work it serves. The comment of each kind says what the
// frame's value and data hold.
#include <cstdint>

#include "device/cuda_channel.h"

namespace sculpt::device {

/// The first frame of every worker, on its first channel.
enum class WorkerStart : std::int32_t {
  ready,   ///< data: the device's description
  failed,  ///< data: why no context could be opened
  last = failed,
};

/// A compilation worker's channels (device/cuda_compiler.cpp).
enum class CompileMessage : std::int32_t {
  compile,   ///< request; data: PTX text
  compiled,  ///< reply; data: cubin, info log
  failed,    ///< reply; data: the failing call and the error log
  last = failed,
};

/// A run worker's channel (device/cuda_runner.cpp). A problem travels a parameter at a time, so
/// that neither process holds it twice: `upload` with what the parameters are, then (once the
/// worker has their buffers) an `upload_values` per parameter.
enum class RunMessage : std::int32_t {
  // Requests.
  upload,         ///< data: host memory allowed, the parameters, their sizes
  upload_values,  ///< data: a parameter's initial (and expected) values
  run,            ///< data: Launch, entry, cubin
  // Replies.
  upload_ready,   ///< the buffers are allocated, values next
  uploaded,       ///< value: arrays whose initial values stay on the host
  upload_failed,  ///< data: why
  load_error,     ///< data: why the image or its entry did not load
  started,        ///< inputs restored, warm-up launch next
  warmed_up,      ///< value: warm-up time in ns
  copied,         ///< the warm-up's results copied back, timed runs next
  timed_run,      ///< value: time in ns
  checking,       ///< timed runs over, the results' check finishing
  done,           ///< value: 1 when a result mismatches; data: the mismatch
  fault,          ///< value: 1 when the context is lost; data: what failed
  last = fault,
};

/// The GPU characterization's worker (device/gpu_characterization.cpp): one reply.
enum class CharacterizeMessage : std::int32_t {
  characterized,  ///< data: GpuAttributes, then GpuMeasurements
  failed,         ///< data: why, in one line
  last = failed,
};

}  // namespace sculpt::device
