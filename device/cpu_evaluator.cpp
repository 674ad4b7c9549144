#include "device/cpu_evaluator.h"

#include "support/check.h"

namespace sculpt::device {
namespace {

// A search works on one problem; two let a caller alternate without re-preparing each time.
constexpr std::size_t kMaxWorkspaces = 2;

}  // namespace

CpuEvaluator::CpuEvaluator(CpuEvaluatorOptions options)
    : options_(std::move(options)),
      compiler_(options_.compiler, options_.flags, options_.cache_dir, options_.compile_timeout,
                options_.flags_if_accepted),
      workspaces_(kMaxWorkspaces) {
  options_.plan.validate();
  pipeline_ = std::make_unique<Pipeline<std::filesystem::path>>(
      compile_threads_or_default(options_.compile_threads),
      [this](const KernelCode& code, std::stop_token stop) { return compile(code, stop); },
      [this](const KernelCode& code, const std::shared_ptr<const Problem>& problem,
             std::filesystem::path& object,
             const CutoffSnapshot& cutoff) { return measure(code, problem, object, cutoff); });
}

CpuEvaluator::~CpuEvaluator() = default;

std::future<Evaluation> CpuEvaluator::queue(KernelCode code, std::shared_ptr<const Problem> problem,
                                            std::shared_ptr<Cutoff> cutoff, double bound_ns) {
  SCULPT_CHECK(code.language == Language::c)
      << "the cpu device runs C; " << code.entry << " is PTX";
  SCULPT_CHECK(problem != nullptr) << "no problem given for " << code.entry;
  return pipeline_->submit(std::move(code), std::move(problem), std::move(cutoff), bound_ns);
}

Pipeline<std::filesystem::path>::CompileResult CpuEvaluator::compile(const KernelCode& code,
                                                                     std::stop_token stop) {
  CCompiler::Result result = compiler_.compile(code.source, std::move(stop));
  if (result.object) return *result.object;
  return Evaluation{.check = Check::compile_error, .message = std::move(result.log)};
}

Evaluation CpuEvaluator::measure(const KernelCode& code,
                                 const std::shared_ptr<const Problem>& problem,
                                 const std::filesystem::path& object,
                                 const CutoffSnapshot& cutoff) {
  Workspace& space = workspaces_.get(problem, [&] {
    // The data, and the run server's working arrays (no larger).
    require_host_memory(*problem, {.data = 2}, "cpu device", options_.host_memory);
    Workspace created;
    created.problem = problem;
    created.data = std::make_unique<ProblemData>(*problem);
    created.server = std::make_unique<ForkServer>(*created.data);
    std::lock_guard lock(mutex_);
    ++problems_;
    return created;
  });
  struct CompilationPause {
    CCompiler* compiler;
    explicit CompilationPause(CCompiler* c) : compiler(c) {
      if (compiler != nullptr) compiler->pause();
    }
    ~CompilationPause() {
      if (compiler != nullptr) compiler->resume();
    }
  };
  const RunPlan plan = options_.plan.with_cutoff(cutoff);
  RunOutcome outcome;
  {
    CompilationPause pause(options_.pause_compilation_while_measuring ? &compiler_ : nullptr);
    outcome = space.server->run(object, code.entry, plan);
  }
  {
    std::lock_guard lock(mutex_);
    ++runs_;
  }
  return evaluation_of(std::move(outcome), plan);
}

CpuEvaluatorStats CpuEvaluator::stats() const {
  std::lock_guard lock(mutex_);
  return CpuEvaluatorStats{.compiler = compiler_.stats(),
                           .evaluations = pipeline_->evaluations(),
                           .runs = runs_,
                           .problems = problems_};
}

}  // namespace sculpt::device
