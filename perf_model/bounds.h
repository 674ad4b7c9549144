#pragma once
// The bound on each kind of device (internal to perf_model): each adds its terms and counts to
// `out`; model.cpp takes the largest.
#include "perf_model/candidate_view.h"
#include "perf_model/model.h"

namespace sculpt::perf_model {

void gpu_bound(const CandidateView& view, const GpuRates& rates, Layers layers, Counting counting,
               Bound& out);
void cpu_bound(const CandidateView& view, const CpuRates& rates, Layers layers, Bound& out);

}  // namespace sculpt::perf_model
