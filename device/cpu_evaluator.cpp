#include "device/cpu_evaluator.h"

#include <algorithm>

#include "support/check.h"

namespace sculpt::device {
namespace {

// A search works on one problem; two let a caller alternate without re-preparing each time.
constexpr std::size_t kMaxWorkspaces = 2;

int default_compile_threads() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

struct CpuEvaluator::Job {
  KernelCode code;
  std::shared_ptr<const Problem> problem;
  std::promise<Evaluation> promise;
  std::filesystem::path object;
};

CpuEvaluator::CpuEvaluator(CpuEvaluatorOptions options)
    : options_(std::move(options)),
      compiler_(options_.compiler, options_.flags, options_.cache_dir, options_.compile_timeout) {
  SCULPT_CHECK(options_.plan.min_runs >= 1 && options_.plan.max_runs >= options_.plan.min_runs)
      << "run counts " << options_.plan.min_runs << ".." << options_.plan.max_runs;
  measurer_ = std::thread([this] { measure_loop(); });
  pool_ = std::make_unique<ThreadPool>(options_.compile_threads > 0 ? options_.compile_threads
                                                                    : default_compile_threads());
}

CpuEvaluator::~CpuEvaluator() {
  pool_.reset();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    compiled_.clear();
  }
  ready_.notify_all();
  measurer_.join();
}

std::future<Evaluation> CpuEvaluator::submit(KernelCode code,
                                             std::shared_ptr<const Problem> problem) {
  SCULPT_CHECK(code.language == Language::c)
      << "the cpu device runs C; " << code.entry << " is PTX";
  SCULPT_CHECK(problem != nullptr) << "no problem given for " << code.entry;
  auto job = std::make_shared<Job>();
  job->code = std::move(code);
  job->problem = std::move(problem);
  auto future = job->promise.get_future();
  pool_->post([this, job] { compile(job); });
  return future;
}

void CpuEvaluator::compile(std::shared_ptr<Job> job) {
  CCompiler::Result result;
  try {
    result = compiler_.compile(job->code.source);
  } catch (...) {
    job->promise.set_exception(std::current_exception());
    return;
  }
  if (!result.object) {
    {
      std::lock_guard lock(mutex_);
      ++evaluations_;
    }
    Evaluation evaluation;
    evaluation.check = Check::compile_error;
    evaluation.message = std::move(result.log);
    job->promise.set_value(std::move(evaluation));
    return;
  }
  job->object = *result.object;
  {
    std::lock_guard lock(mutex_);
    compiled_.push_back(std::move(job));
  }
  ready_.notify_one();
}

void CpuEvaluator::measure_loop() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !compiled_.empty(); });
      if (stopping_) return;
      job = std::move(compiled_.front());
      compiled_.pop_front();
    }
    try {
      Evaluation evaluation = measure(*job);
      {
        std::lock_guard lock(mutex_);
        ++evaluations_;
      }
      job->promise.set_value(std::move(evaluation));
    } catch (...) {
      job->promise.set_exception(std::current_exception());
    }
  }
}

CpuEvaluator::Workspace& CpuEvaluator::workspace(const std::shared_ptr<const Problem>& problem) {
  auto found = std::find_if(workspaces_.begin(), workspaces_.end(),
                            [&](const Workspace& w) { return w.problem == problem; });
  if (found != workspaces_.end()) {
    workspaces_.splice(workspaces_.begin(), workspaces_, found);
    return workspaces_.front();
  }
  Workspace created;
  created.problem = problem;
  created.data = std::make_unique<ProblemData>(*problem);
  created.server = std::make_unique<ForkServer>(*created.data);
  {
    std::lock_guard lock(mutex_);
    ++problems_;
  }
  workspaces_.push_front(std::move(created));
  if (workspaces_.size() > kMaxWorkspaces) workspaces_.pop_back();
  return workspaces_.front();
}

Evaluation CpuEvaluator::measure(Job& job) {
  Workspace& space = workspace(job.problem);
  struct CompilationPause {
    CCompiler* compiler;
    explicit CompilationPause(CCompiler* c) : compiler(c) {
      if (compiler != nullptr) compiler->pause();
    }
    ~CompilationPause() {
      if (compiler != nullptr) compiler->resume();
    }
  };
  RunOutcome outcome;
  {
    CompilationPause pause(options_.pause_compilation_while_measuring ? &compiler_ : nullptr);
    outcome = space.server->run(job.object, job.code.entry, options_.plan);
  }
  {
    std::lock_guard lock(mutex_);
    ++runs_;
  }
  Evaluation evaluation;
  evaluation.check = outcome.check;
  evaluation.message = std::move(outcome.message);
  if (outcome.check != Check::ok) return evaluation;
  RunStatistics statistics = summarize_runs(outcome.run_ns);
  evaluation.time_ns = statistics.median_ns;
  evaluation.spread_ns = statistics.spread_ns;
  evaluation.runs = static_cast<int>(outcome.run_ns.size());
  for (std::size_t i = 0; i < space.data->size(); ++i) {
    if (!space.data->is_result(i)) continue;
    if (auto mismatch = space.data->compare(i, space.server->result(i))) {
      evaluation.check = Check::wrong;
      evaluation.message = std::move(*mismatch);
      break;
    }
  }
  return evaluation;
}

CpuEvaluatorStats CpuEvaluator::stats() const {
  std::lock_guard lock(mutex_);
  return CpuEvaluatorStats{.compiler = compiler_.stats(),
                           .evaluations = evaluations_,
                           .runs = runs_,
                           .problems = problems_};
}

}  // namespace sculpt::device
