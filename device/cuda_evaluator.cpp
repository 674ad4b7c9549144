#include "device/cuda_evaluator.h"

#include <algorithm>

#include "support/check.h"

namespace sculpt::device {
namespace {

// A search works on one problem; two let a caller alternate without recomputing references.
// The run worker holds one problem's buffers at a time.
constexpr std::size_t kMaxWorkspaces = 2;

// Opens a context in a worker that then exits; its description, or DeviceError.
std::string probe(const CudaWorkerConfig& config) {
  CudaWorker worker(config, 1, [](CudaContext&, std::vector<Channel>&) {});
  return worker.description();
}

}  // namespace

bool cuda_available(std::string* why, const CudaWorkerConfig& config) {
  try {
    probe(config);
    return true;
  } catch (const DeviceError& error) {
    if (why != nullptr) *why = error.what();
    return false;
  }
}

CudaEvaluator::CudaEvaluator(CudaEvaluatorOptions options)
    : options_(std::move(options)),
      description_(probe(options_.worker)),
      compiler_(options_.worker, compile_threads_or_default(options_.compile_threads),
                options_.compile_timeout),
      workspaces_(kMaxWorkspaces),
      runner_(options_.worker) {
  options_.plan.validate();
  // The workers start on the pool's threads and the measuring thread, which live as long as
  // this object: a worker dies with the thread that started it.
  pipeline_ = std::make_unique<Pipeline<CudaImage>>(
      compile_threads_or_default(options_.compile_threads),
      [this](const KernelCode& code, std::stop_token stop) { return compile(code, stop); },
      [this](const KernelCode& code, const std::shared_ptr<const Problem>& problem,
             CudaImage& image,
             const CutoffSnapshot& cutoff) { return measure(code, problem, image, cutoff); });
}

CudaEvaluator::~CudaEvaluator() {
  // The pipeline waits for the measurement under way: not for a worker opening its context.
  runner_.cancel();
}

std::future<Evaluation> CudaEvaluator::queue(KernelCode code,
                                             std::shared_ptr<const Problem> problem,
                                             std::shared_ptr<Cutoff> cutoff, double bound_ns) {
  SCULPT_CHECK(code.language == Language::ptx)
      << "the cuda device runs PTX; " << code.entry << " is C";
  SCULPT_CHECK(problem != nullptr) << "no problem given for " << code.entry;
  return pipeline_->submit(std::move(code), std::move(problem), std::move(cutoff), bound_ns);
}

Pipeline<CudaImage>::CompileResult CudaEvaluator::compile(const KernelCode& code,
                                                          std::stop_token stop) {
  CudaCompiler::Result result = compiler_.compile(code.source, std::move(stop));
  if (result.image) return std::move(*result.image);
  return Evaluation{.check = Check::compile_error, .message = std::move(result.log)};
}

Evaluation CudaEvaluator::measure(const KernelCode& code,
                                  const std::shared_ptr<const Problem>& problem,
                                  const CudaImage& image, const CutoffSnapshot& cutoff) {
  Workspace& space = workspaces_.get(problem, [&] {
    // The data, and in the worker the expected results and room for what a run leaves; what
    // is left holds the initial values of arrays the GPU has no room to keep twice.
    const std::uint64_t host_room = require_host_memory(*problem, {.data = 1, .results = 2},
                                                        "cuda device", options_.host_memory);
    Workspace created{.problem = problem,
                      .data = std::make_unique<ProblemData>(*problem),
                      .host_room = host_room};
    std::lock_guard lock(mutex_);
    created.id = static_cast<std::uint64_t>(++problems_);
    return created;
  });
  const RunPlan plan = options_.plan.with_cutoff(cutoff);
  RunOutcome outcome = runner_.run(space.id, *space.data, space.host_room, image, code, plan);
  {
    std::lock_guard lock(mutex_);
    ++runs_;
    if (outcome.check == Check::fault) ++faults_;
    if (outcome.check == Check::timeout) ++timeouts_;
  }
  return evaluation_of(std::move(outcome), plan);
}

std::string CudaEvaluator::architecture() const {
  const std::size_t open = description_.rfind("(sm_");
  const std::size_t close = description_.rfind(')');
  SCULPT_CHECK(open != std::string::npos && close > open)
      << "a GPU's description without its compute capability: " << description_;
  return description_.substr(open + 1, close - open - 1);
}

CudaEvaluatorStats CudaEvaluator::stats() const {
  std::lock_guard lock(mutex_);
  return CudaEvaluatorStats{.compiler = compiler_.stats(),
                            .evaluations = pipeline_->evaluations(),
                            .compiled_while_measuring = pipeline_->compiled_while_measuring(),
                            .runs = runs_,
                            .faults = faults_,
                            .timeouts = timeouts_,
                            .worker_restarts = std::max(runner_.workers_started() - 1, 0),
                            .restart_cost_ns = runner_.restart_cost().count(),
                            .problems = problems_,
                            .arrays_restored_from_host = runner_.arrays_restored_from_host()};
}

}  // namespace sculpt::device
