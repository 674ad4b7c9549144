#pragma once
// The description the performance model reads for the device a search runs on.
#include <optional>
#include <string>
#include <string_view>

#include "device/cpu_characterization.h"
#include "perf_model/description.h"
#ifdef SCULPT_HAVE_CUDA
#include "device/gpu_characterization.h"
#endif

namespace sculpt::search {

/// The description of a CPU as `characterize_cpu` measured it: each figure's source says how and
/// when; its limits are sm_90's (the CPU runs a GPU's space).
perf_model::Description cpu_description(const device::CpuCharacteristics& measured);

#ifdef SCULPT_HAVE_CUDA
/// The description of a GPU as `characterize_gpu` measured it, named after its compute
/// capability ("sm_90"): each figure's source says what was measured, how and when, but for the
/// three no benchmark measures (sector bytes, shared-memory banks, registers per thread), copied
/// from the shipped sm_90, as its limits are. Measurements err on one side only (the loop and
/// the clock reads around what is timed), so throughputs per clock are rounded up to a power of
/// two, bandwidths and the clock up, latencies and the launch floor down: the bound stays valid.
perf_model::Description gpu_description(const device::GpuCharacteristics& measured);
#endif

/// `requested` (a shipped description's name or a file) when not empty; else the description
/// of `device`: for a GPU, the shipped description of its model (`model`, as
/// device::Evaluator::model says, is its `about`: "NVIDIA H200 (sm_90)" is h200), else the one
/// named after its architecture (device::Evaluator::architecture, "sm_90"; "cuda", a log's
/// device, and "stand-in", search/stand_in_device.h: sm_90); "cpu", this machine's CPU, measured
/// once (a few seconds) and kept in the user's cache folder for the next searches.
/// Nothing, with a message, when it cannot be had (a GPU no shipped description describes).
std::optional<perf_model::Description> device_description(std::string_view device,
                                                          const std::string& requested,
                                                          std::string* error,
                                                          std::string_view model = {});

}  // namespace sculpt::search
