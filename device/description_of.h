#pragma once
// The description the performance model reads (perf_model::Description) of a device as its
// characterization measured it: each figure with its source, saying how and when.
#include "device/cpu_characterization.h"
#include "perf_model/description.h"
#ifdef SCULPT_HAVE_CUDA
#include "device/gpu_characterization.h"
#endif

namespace sculpt::device {

/// The description of a CPU as `characterize_cpu` measured it: each figure's source says how and
/// when; its limits are sm_90's (the CPU runs a GPU's space).
perf_model::Description cpu_description(const CpuCharacteristics& measured);

#ifdef SCULPT_HAVE_CUDA
/// The description of a GPU as `characterize_gpu` measured it, named after its compute
/// capability ("sm_90"): each figure's source says what was measured, how and when, but for the
/// three no benchmark measures (sector bytes, shared-memory banks, registers per thread), copied
/// from the shipped sm_90, as its limits are. Measurements err on one side only (the loop and
/// the clock reads around what is timed), so throughputs per clock are rounded up to a power of
/// two, bandwidths and the clock up, latencies and the launch floor down: the bound stays valid.
perf_model::Description gpu_description(const GpuCharacteristics& measured);
#endif

}  // namespace sculpt::device
