#include "device/cpu_evaluator.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "device/cutoff.h"
#include "tests/device/axpy_problem.h"

namespace sculpt::device {
namespace {

using std::chrono::milliseconds;

constexpr std::int32_t kAxpySize = 100000;

const char* const kAxpy = R"(
#include <stdint.h>
void axpy(void** params) {
  int32_t n = *(int32_t*)params[0];
  float a = *(float*)params[1];
  const float* x = *(float**)params[2];
  float* y = *(float**)params[3];
  #pragma omp parallel for
  for (int32_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
)";

std::shared_ptr<const Problem> axpy_problem() { return testing_problems::axpy_problem(kAxpySize); }

constexpr std::int32_t kRows = 96, kInner = 80, kColumns = 64;

// C = A * B, rows split across OpenMP threads.
const char* const kMatmul = R"(
#include <stdint.h>
void matmul(void** params) {
  int32_t m = *(int32_t*)params[0], k = *(int32_t*)params[1], n = *(int32_t*)params[2];
  const double* a = *(double**)params[3];
  const double* b = *(double**)params[4];
  double* c = *(double**)params[5];
  #pragma omp parallel for
  for (int32_t i = 0; i < m; ++i) {
    for (int32_t j = 0; j < n; ++j) c[i * n + j] = 0;
    for (int32_t p = 0; p < k; ++p)
      for (int32_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
  }
}
)";

std::shared_ptr<const Problem> matmul_problem() {
  auto problem = std::make_shared<Problem>();
  problem->name = "matmul";
  problem->params = {
      ScalarParam{"m", kRows},
      ScalarParam{"k", kInner},
      ScalarParam{"n", kColumns},
      ArrayParam{.name = "a", .type = ElementType::f64, .count = kRows * kInner},
      ArrayParam{.name = "b", .type = ElementType::f64, .count = kInner * kColumns},
      ArrayParam{
          .name = "c", .type = ElementType::f64, .count = kRows * kColumns, .role = Role::output}};
  problem->reference = [](const Arguments& args) {
    auto a = args.array<double>(3);
    auto b = args.array<double>(4);
    auto c = args.array<double>(5);
    for (int i = 0; i < kRows; ++i) {
      for (int j = 0; j < kColumns; ++j) {
        double sum = 0;
        for (int p = 0; p < kInner; ++p) sum += a[i * kInner + p] * b[p * kColumns + j];
        c[i * kColumns + j] = sum;
      }
    }
  };
  problem->tolerance = Tolerance{.type = ElementType::f64, .reduction_length = kInner};
  return problem;
}

KernelCode c_code(std::string source, std::string entry) {
  KernelCode code;
  code.source = std::move(source);
  code.entry = std::move(entry);
  return code;
}

// The axpy kernel with `body` replacing its loop's statement.
KernelCode axpy_variant(const std::string& body) {
  std::string source = kAxpy;
  std::string statement = "y[i] = a * x[i] + y[i];";
  source.replace(source.find(statement), statement.size(), body);
  return c_code(source, "axpy");
}

class CpuEvaluatorTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = testing::TempDir() + "sculpt-device-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    cache_dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(cache_dir_); }

  CpuEvaluatorOptions options() const {
    CpuEvaluatorOptions options;
    options.cache_dir = cache_dir_;
    options.compile_threads = 2;
    options.plan.run_timeout = milliseconds(1500);
    options.plan.budget = milliseconds(20);
    options.plan.min_runs = 3;
    options.plan.max_runs = 50;
    return options;
  }

  std::filesystem::path cache_dir_;
};

TEST_F(CpuEvaluatorTest, AxpyIsCorrectAndTimed) {
  CpuEvaluator evaluator(options());
  EXPECT_EQ(evaluator.name(), "cpu");
  Evaluation result = evaluator.evaluate(c_code(kAxpy, "axpy"), axpy_problem());
  ASSERT_EQ(result.check, Check::ok) << result.message;
  ASSERT_TRUE(result.time_ns);
  // 100k multiply-adds take between a microsecond and a tenth of a second on any machine.
  EXPECT_GT(*result.time_ns, 1e3);
  EXPECT_LT(*result.time_ns, 1e8);
  EXPECT_GE(result.runs, 3);
  EXPECT_LE(result.runs, 50);
  EXPECT_GE(result.spread_ns, 0);
}

TEST_F(CpuEvaluatorTest, MatmulWithOpenMpOverRowsIsCorrect) {
  CpuEvaluator evaluator(options());
  Evaluation result = evaluator.evaluate(c_code(kMatmul, "matmul"), matmul_problem());
  ASSERT_EQ(result.check, Check::ok) << result.message;
  ASSERT_TRUE(result.time_ns);
  EXPECT_GT(*result.time_ns, 1e3);
  EXPECT_LT(*result.time_ns, 1e9);
}

TEST_F(CpuEvaluatorTest, WrongResultGivesItsIndex) {
  CpuEvaluator evaluator(options());
  Evaluation result = evaluator.evaluate(
      axpy_variant("y[i] = a * x[i] + y[i] + (i == 4321 ? 0.5f : 0.0f);"), axpy_problem());
  EXPECT_EQ(result.check, Check::wrong);
  EXPECT_NE(result.message.find("'y' (parameter 3) mismatch at index 4321"), std::string::npos)
      << result.message;
  EXPECT_NE(result.message.find("1 of 100000 elements differ"), std::string::npos)
      << result.message;
  // It ran to the end, so it has a time.
  EXPECT_TRUE(result.time_ns);
}

// A candidate's OpenMP threads are bound one to a core (unbound, two could share one, and each
// parallel region then waited a scheduler slice): this axpy is right only when they are.
TEST_F(CpuEvaluatorTest, ACandidatesOpenMpThreadsAreBoundToCores) {
  CpuEvaluator evaluator(options());
  KernelCode code = axpy_variant(
      "y[i] = a * x[i] + y[i] + (omp_get_proc_bind() == omp_proc_bind_false ? 1.0f : 0.0f);");
  code.source.insert(0, "#include <omp.h>\n");
  const Evaluation result = evaluator.evaluate(code, axpy_problem());
  EXPECT_EQ(result.check, Check::ok) << result.message;
}

TEST_F(CpuEvaluatorTest, UnwrittenOutputIsCaught) {
  CpuEvaluator evaluator(options());
  std::string source = kMatmul;
  source.replace(source.find("i < m;"), 6, "i < m - 1;");
  Evaluation result = evaluator.evaluate(c_code(source, "matmul"), matmul_problem());
  EXPECT_EQ(result.check, Check::wrong);
  std::string first_unwritten = std::to_string((kRows - 1) * kColumns);
  EXPECT_NE(result.message.find("index " + first_unwritten + ": got nan"), std::string::npos)
      << result.message;
}

TEST_F(CpuEvaluatorTest, SegfaultIsAFaultAndTheNextEvaluationWorks) {
  CpuEvaluator evaluator(options());
  auto problem = axpy_problem();
  Evaluation crash = evaluator.evaluate(axpy_variant("y[i] = x[i + ((int64_t)1 << 40)];"), problem);
  EXPECT_EQ(crash.check, Check::fault);
  EXPECT_NE(crash.message.find("SIGSEGV"), std::string::npos) << crash.message;
  EXPECT_NE(crash.message.find("warm-up"), std::string::npos) << crash.message;
  EXPECT_FALSE(crash.time_ns);

  Evaluation abort_result = evaluator.evaluate(
      c_code("#include <stdlib.h>\nvoid k(void** p) { (void)p; abort(); }", "k"), problem);
  EXPECT_EQ(abort_result.check, Check::fault);
  EXPECT_NE(abort_result.message.find("SIGABRT"), std::string::npos) << abort_result.message;

  Evaluation next = evaluator.evaluate(c_code(kAxpy, "axpy"), problem);
  EXPECT_EQ(next.check, Check::ok) << next.message;
}

TEST_F(CpuEvaluatorTest, ACandidateThatKillsItsServerIsAFault) {
  CpuEvaluator evaluator(options());
  auto problem = axpy_problem();
  Evaluation result =
      evaluator.evaluate(c_code("#include <signal.h>\n#include <unistd.h>\n"
                                "void k(void** p) { (void)p; kill(getppid(), SIGKILL); pause(); }",
                                "k"),
                         problem);
  EXPECT_EQ(result.check, Check::fault);
  EXPECT_NE(result.message.find("run server was lost"), std::string::npos) << result.message;
  EXPECT_EQ(evaluator.evaluate(c_code(kAxpy, "axpy"), problem).check, Check::ok);
}

TEST_F(CpuEvaluatorTest, InfiniteLoopTimesOut) {
  CpuEvaluator evaluator(options());
  auto start = std::chrono::steady_clock::now();
  Evaluation result = evaluator.evaluate(
      c_code("void spin(void** p) { (void)p; volatile int go = 1; while (go) {} }", "spin"),
      axpy_problem());
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(result.check, Check::timeout);
  EXPECT_NE(result.message.find("longer than 1500 ms"), std::string::npos) << result.message;
  EXPECT_FALSE(result.time_ns);
  // The run limit plus compilation, not more.
  EXPECT_LT(elapsed, std::chrono::seconds(8));
  EXPECT_EQ(evaluator.evaluate(c_code(kAxpy, "axpy"), axpy_problem()).check, Check::ok);
}

TEST_F(CpuEvaluatorTest, ARunFarPastTheCutoffIsKilled) {
  CpuEvaluator evaluator(options());  // run_timeout 1.5 s
  auto start = std::chrono::steady_clock::now();
  // Cutoff 20 ms: runs are killed at 10 cutoffs, 200 ms.
  Evaluation result = evaluator
                          .submit(c_code("void spin(void** p) { (void)p; volatile int go = 1; "
                                         "while (go) {} }",
                                         "spin"),
                                  axpy_problem(), std::make_shared<Cutoff>(1.0, 20e6))
                          .get();
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(result.check, Check::timeout);
  EXPECT_TRUE(result.cut_short);
  EXPECT_NE(result.message.find(
                "the warm-up run took longer than 200 ms (10 times the cutoff of 20 ms); killed"),
            std::string::npos)
      << result.message;
  EXPECT_LT(elapsed, std::chrono::milliseconds(1500) + std::chrono::seconds(6));
  EXPECT_EQ(evaluator.evaluate(c_code(kAxpy, "axpy"), axpy_problem()).check, Check::ok);
}

// The axpy kernel whose object runs `body` when it is loaded, before any run.
KernelCode axpy_loading_with(const std::string& body) {
  return c_code(std::string(kAxpy) +
                    "#include <unistd.h>\n__attribute__((constructor)) static void load(void) { " +
                    body + " }\n",
                "axpy");
}

TEST_F(CpuEvaluatorTest, LoadingIsNoPartOfARun) {
  CpuEvaluator evaluator(options());
  // A cutoff of 1 us: runs are killed at the 100 ms floor, less than loading takes.
  Evaluation result = evaluator
                          .submit(axpy_loading_with("usleep(300000);"), axpy_problem(),
                                  std::make_shared<Cutoff>(1.0, 1000))
                          .get();
  EXPECT_EQ(result.check, Check::ok) << result.message;
  EXPECT_TRUE(result.time_ns);
}

TEST_F(CpuEvaluatorTest, AnObjectThatNeverLoadsTimesOut) {
  CpuEvaluator evaluator(options());  // run_timeout 1.5 s
  Evaluation result = evaluator
                          .submit(axpy_loading_with("volatile int go = 1; while (go) {}"),
                                  axpy_problem(), std::make_shared<Cutoff>(1.0, 1000))
                          .get();
  EXPECT_EQ(result.check, Check::timeout);
  EXPECT_FALSE(result.cut_short);
  EXPECT_EQ(result.message, "loading the compiled object took longer than 1500 ms; killed");
  EXPECT_EQ(evaluator.evaluate(c_code(kAxpy, "axpy"), axpy_problem()).check, Check::ok);
}

TEST_F(CpuEvaluatorTest, SyntaxErrorIsACompileErrorWithTheLog) {
  CpuEvaluator evaluator(options());
  Evaluation result =
      evaluator.evaluate(c_code("void broken(void** p) { int x = ; }", "broken"), axpy_problem());
  EXPECT_EQ(result.check, Check::compile_error);
  EXPECT_NE(result.message.find("error"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("expected expression"), std::string::npos) << result.message;
  EXPECT_FALSE(result.time_ns);
  EXPECT_EQ(evaluator.stats().compiler.errors, 1);
}

TEST_F(CpuEvaluatorTest, MissingEntryPointIsACompileError) {
  CpuEvaluator evaluator(options());
  Evaluation result = evaluator.evaluate(c_code(kAxpy, "saxpy"), axpy_problem());
  EXPECT_EQ(result.check, Check::compile_error);
  EXPECT_NE(result.message.find("no entry point 'saxpy'"), std::string::npos) << result.message;
}

TEST_F(CpuEvaluatorTest, SecondEvaluationHitsTheCache) {
  auto problem = axpy_problem();
  {
    CpuEvaluator evaluator(options());
    EXPECT_EQ(evaluator.evaluate(c_code(kAxpy, "axpy"), problem).check, Check::ok);
    EXPECT_EQ(evaluator.evaluate(c_code(kAxpy, "axpy"), problem).check, Check::ok);
    auto stats = evaluator.stats();
    EXPECT_EQ(stats.compiler.compilations, 1);
    EXPECT_EQ(stats.compiler.cache_hits, 1);
    EXPECT_EQ(stats.evaluations, 2);
    EXPECT_EQ(stats.problems, 1);
  }
  // The cache is on disk: another evaluator (another process alike) finds it too.
  CpuEvaluator again(options());
  EXPECT_EQ(again.evaluate(c_code(kAxpy, "axpy"), problem).check, Check::ok);
  EXPECT_EQ(again.stats().compiler.compilations, 0);
  EXPECT_EQ(again.stats().compiler.cache_hits, 1);
  // Other flags are another key.
  auto other_options = options();
  other_options.flags.push_back("-DVARIANT=1");
  CpuEvaluator other(other_options);
  EXPECT_EQ(other.evaluate(c_code(kAxpy, "axpy"), problem).check, Check::ok);
  EXPECT_EQ(other.stats().compiler.compilations, 1);
}

TEST_F(CpuEvaluatorTest, CompilesConcurrentlyOnThePool) {
  auto opts = options();
  opts.compile_threads = 4;
  // Measuring the first candidate would otherwise hold back the compilers not yet started.
  opts.pause_compilation_while_measuring = false;
  CpuEvaluator evaluator(opts);
  auto problem = axpy_problem();
  std::vector<std::future<Evaluation>> futures;
  for (int variant = 0; variant < 4; ++variant) {
    // Distinct sources, so each one is compiled.
    futures.push_back(evaluator.submit(
        axpy_variant("y[i] = a * x[i] + y[i]; /* variant " + std::to_string(variant) + " */"),
        problem));
  }
  for (auto& future : futures) EXPECT_EQ(future.get().check, Check::ok);
  auto stats = evaluator.stats();
  EXPECT_EQ(stats.compiler.compilations, 4);
  EXPECT_GE(stats.compiler.peak_concurrent, 2);
  EXPECT_EQ(stats.runs, 4);
}

TEST_F(CpuEvaluatorTest, RepetitionsAdaptToTheBudgetAndLongRunsAreTimed) {
  auto opts = options();
  opts.plan.min_runs = 1;
  opts.plan.run_timeout = milliseconds(3000);
  opts.plan.budget = milliseconds(100);
  CpuEvaluator evaluator(opts);
  auto problem = axpy_problem();
  // A fast kernel repeats up to max_runs within the budget. Single-threaded, so that a busy
  // machine cannot stall it at an OpenMP barrier.
  std::string sequential = kAxpy;
  sequential.erase(sequential.find("#pragma"), std::string("#pragma omp parallel for").size());
  Evaluation fast = evaluator.evaluate(c_code(sequential, "axpy"), problem);
  ASSERT_EQ(fast.check, Check::ok) << fast.message;
  EXPECT_EQ(fast.runs, 50);
  // A run over a second: one timed run after the warm-up, timed to the nanosecond.
  std::string slow = kAxpy;
  slow.insert(slow.find("#pragma"), "struct timespec t = {1, 200000000}; nanosleep(&t, 0);\n");
  slow.insert(0, "#define _POSIX_C_SOURCE 199309L\n#include <time.h>\n");
  Evaluation long_run = evaluator.evaluate(c_code(slow, "axpy"), problem);
  ASSERT_EQ(long_run.check, Check::ok) << long_run.message;
  EXPECT_EQ(long_run.runs, 1);
  ASSERT_TRUE(long_run.time_ns);
  EXPECT_GE(*long_run.time_ns, 1.2e9);
  EXPECT_LT(*long_run.time_ns, 2.0e9);
}

TEST_F(CpuEvaluatorTest, TheCutoffStopsTimingACandidateSlowerThanIt) {
  CpuEvaluator evaluator(options());  // 3 runs at least, budget 20 ms
  auto problem = axpy_problem();
  // Single-threaded, so that a busy machine cannot stall it at an OpenMP barrier.
  std::string fast = kAxpy;
  fast.erase(fast.find("#pragma"), std::string("#pragma omp parallel for").size());
  std::string slow = kAxpy;  // 200 ms a run
  slow.insert(slow.find("#pragma"), "struct timespec t = {0, 200000000}; nanosleep(&t, 0);\n");
  slow.insert(0, "#define _POSIX_C_SOURCE 199309L\n#include <time.h>\n");

  // The fast kernel's time lowers the cutoff it was submitted with.
  auto cutoff = std::make_shared<Cutoff>(4.0);
  Evaluation first = evaluator.submit(c_code(fast, "axpy"), problem, cutoff).get();
  ASSERT_EQ(first.check, Check::ok) << first.message;
  EXPECT_FALSE(first.cut_short);
  ASSERT_TRUE(first.time_ns);
  EXPECT_EQ(cutoff->get(), std::chrono::nanoseconds(std::llround(4 * *first.time_ns)));

  // A cutoff of 150 ms: the slow kernel is timed twice, as one run decides nothing (and not
  // killed: that is at 1500 ms; its warm-up is under two cutoffs).
  Evaluation cut =
      evaluator.submit(c_code(slow, "axpy"), problem, std::make_shared<Cutoff>(1.0, 150e6)).get();
  ASSERT_EQ(cut.check, Check::ok) << cut.message;
  EXPECT_EQ(cut.runs, RunPlan::kDecisive);
  EXPECT_TRUE(cut.cut_short);
  ASSERT_TRUE(cut.time_ns);
  EXPECT_GE(*cut.time_ns, 200e6);

  // A cutoff of 50 ms: its warm-up, over two cutoffs and 100 ms, is its only run, and checked.
  Evaluation warm_up_only =
      evaluator.submit(c_code(slow, "axpy"), problem, std::make_shared<Cutoff>(1.0, 50e6)).get();
  ASSERT_EQ(warm_up_only.check, Check::ok) << warm_up_only.message;
  EXPECT_EQ(warm_up_only.runs, 0);
  EXPECT_TRUE(warm_up_only.cut_short);
  ASSERT_TRUE(warm_up_only.time_ns);
  EXPECT_GE(*warm_up_only.time_ns, 200e6);
  std::string wrong = slow;
  wrong.replace(wrong.find("a * x[i] + y[i]"), std::string("a * x[i] + y[i]").size(), "x[i]");
  EXPECT_EQ(evaluator.submit(c_code(wrong, "axpy"), problem, std::make_shared<Cutoff>(1.0, 50e6))
                .get()
                .check,
            Check::wrong);

  Evaluation under =
      evaluator.submit(c_code(slow, "axpy"), problem, std::make_shared<Cutoff>(1.0, 1e9)).get();
  ASSERT_EQ(under.check, Check::ok) << under.message;
  EXPECT_EQ(under.runs, 3);
  EXPECT_FALSE(under.cut_short);
}

TEST_F(CpuEvaluatorTest, OnlyCandidatesNearTheBestAreTimedPrecisely) {
  auto opts = options();  // 3 runs at least, 50 at most
  opts.plan.budget = milliseconds(300);
  CpuEvaluator evaluator(opts);
  auto problem = axpy_problem();
  // 50 ms a run, single-threaded, so that a busy machine cannot stall it at an OpenMP barrier.
  std::string slow = kAxpy;
  slow.replace(slow.find("#pragma omp parallel for"),
               std::string("#pragma omp parallel for").size(),
               "struct timespec t = {0, 50000000}; nanosleep(&t, 0);");
  slow.insert(0, "#define _POSIX_C_SOURCE 199309L\n#include <time.h>\n");
  // Its time on this machine as it is now: the whole plan, 300 ms of runs.
  Evaluation alone = evaluator.evaluate(c_code(slow, "axpy"), problem);
  ASSERT_EQ(alone.check, Check::ok) << alone.message;
  ASSERT_TRUE(alone.time_ns);
  EXPECT_GE(alone.runs, 5);
  const double time = *alone.time_ns;

  // 1.5 times the best (the cutoff is 4 times): min_runs runs, and not cut short.
  Evaluation far =
      evaluator.submit(c_code(slow, "axpy"), problem, std::make_shared<Cutoff>(4.0, time / 1.5))
          .get();
  ASSERT_EQ(far.check, Check::ok) << far.message;
  EXPECT_EQ(far.runs, 3);
  EXPECT_FALSE(far.cut_short);

  // 1.05 times the best: the whole plan.
  Evaluation near =
      evaluator.submit(c_code(slow, "axpy"), problem, std::make_shared<Cutoff>(4.0, time / 1.05))
          .get();
  ASSERT_EQ(near.check, Check::ok) << near.message;
  EXPECT_GE(near.runs, 5) << *near.time_ns << " ns, alone " << time << " ns";
  EXPECT_FALSE(near.cut_short);
}

// Axpy over a grid of 256 blocks that sleep 2 ms each, with the sampled entry codegen::print_c
// gives every candidate; blocks from `abort_from` on abort.
KernelCode sampled_axpy(int abort_from = 256) {
  return c_code(fmt::format(R"(
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
static void block(int64_t b, void** params) {{
  if (b >= {}) abort();
  struct timespec t = {{0, 2000000}};
  nanosleep(&t, 0);
  int32_t n = *(int32_t*)params[0];
  float a = *(float*)params[1];
  const float* x = *(float**)params[2];
  float* y = *(float**)params[3];
  const int64_t chunk = (n + 255) / 256;
  for (int64_t i = b * chunk; i < n && i < (b + 1) * chunk; ++i) y[i] = a * x[i] + y[i];
}}
void axpy_blocks(void** params, const int64_t blocks) {{
  #pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < blocks; ++b) block(b, params);
}}
const int64_t axpy_grid = 256;
void axpy(void** params) {{ axpy_blocks(params, axpy_grid); }}
)",
                            abort_from),
                "axpy");
}

TEST_F(CpuEvaluatorTest, ACandidateItsSamplePutsPastTheCutoffNeverRunsInFull) {
  CpuEvaluator evaluator(options());
  // Blocks past the grid's first half abort: a full run would be a fault. Its 256 blocks of 2 ms
  // take over 100 ms on any number of threads up to 4; the cutoff is 20 ms.
  const Evaluation cut =
      evaluator.submit(sampled_axpy(128), axpy_problem(), std::make_shared<Cutoff>(1.0, 20e6))
          .get();
  EXPECT_EQ(cut.check, Check::timeout) << cut.message;
  EXPECT_TRUE(cut.cut_short);
  EXPECT_FALSE(cut.time_ns);
  ASSERT_TRUE(cut.estimate_ns);
  EXPECT_GT(*cut.estimate_ns, 20e6);
  EXPECT_NE(cut.message.find("estimated at"), std::string::npos) << cut.message;
  EXPECT_NE(cut.message.find("not run in full"), std::string::npos) << cut.message;
  // Without a cutoff there is no sample: the whole grid runs, and aborts.
  EXPECT_EQ(evaluator.evaluate(sampled_axpy(128), axpy_problem()).check, Check::fault);
}

TEST_F(CpuEvaluatorTest, ASampleUnderTheCutoffGoesOnToACheckedRunThatItEstimated) {
  CpuEvaluator evaluator(options());
  const Evaluation e =
      evaluator.submit(sampled_axpy(), axpy_problem(), std::make_shared<Cutoff>(1.0, 10e9)).get();
  // The sample added a * x to y's first blocks twice: the warm-up starts from the initial y
  // again, or its check would fail.
  ASSERT_EQ(e.check, Check::ok) << e.message;
  ASSERT_TRUE(e.time_ns);
  ASSERT_TRUE(e.estimate_ns);
  EXPECT_GT(*e.estimate_ns / *e.time_ns, 0.5) << *e.estimate_ns << " ns for " << *e.time_ns;
  EXPECT_LT(*e.estimate_ns / *e.time_ns, 2.0) << *e.estimate_ns << " ns for " << *e.time_ns;
  // Without a cutoff, no sample.
  const Evaluation no_sample = evaluator.evaluate(sampled_axpy(), axpy_problem());
  ASSERT_EQ(no_sample.check, Check::ok) << no_sample.message;
  EXPECT_FALSE(no_sample.estimate_ns);
}

// A C compiler that takes 30 s over anything but its --version, in the test's folder.
std::string slow_compiler(const std::filesystem::path& dir) {
  const std::filesystem::path script = dir / "slow-cc";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\ncase \"$1\" in --version) exec cc --version;; esac\nsleep 30\nexec cc "
           "\"$@\"\n";
  }
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  return script.string();
}

// Waits until `evaluator` has started compiling (at most 10 s).
void wait_for_a_compilation(const CpuEvaluator& evaluator) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (evaluator.stats().compiler.compilations == 0 &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  // Past the count, the compiler starts: give it the time to.
  std::this_thread::sleep_for(milliseconds(200));
}

TEST_F(CpuEvaluatorTest, CancellingKillsTheCompilerUnderWay) {
  auto opts = options();
  opts.compiler = slow_compiler(cache_dir_);
  opts.compile_threads = 1;
  CpuEvaluator evaluator(opts);
  auto future = evaluator.submit(c_code(kAxpy, "axpy"), axpy_problem());
  wait_for_a_compilation(evaluator);
  const auto start = std::chrono::steady_clock::now();
  evaluator.cancel_waiting();
  EXPECT_THROW(future.get(), std::future_error);
  EXPECT_EQ(evaluator.stats().compiler.errors, 0);
  EXPECT_EQ(evaluator.stats().compiler.compilations, 1);
  // The compiler is gone: the pool's one thread starts the next candidate's at once, not in
  // 30 s (that one is killed as the evaluator goes).
  auto next = evaluator.submit(axpy_variant("y[i] = x[i] + y[i];"), axpy_problem());
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (evaluator.stats().compiler.compilations < 2 &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_EQ(evaluator.stats().compiler.compilations, 2);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(CpuEvaluatorTest, DestroyingKillsTheCompilerUnderWay) {
  auto opts = options();
  opts.compiler = slow_compiler(cache_dir_);
  auto evaluator = std::make_unique<CpuEvaluator>(opts);
  auto future = evaluator->submit(c_code(kAxpy, "axpy"), axpy_problem());
  wait_for_a_compilation(*evaluator);
  const auto start = std::chrono::steady_clock::now();
  evaluator.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_THROW(future.get(), std::future_error);
}

TEST_F(CpuEvaluatorTest, TheCallerNeverLoadsCandidateCode) {
  CpuEvaluator evaluator(options());
  ASSERT_EQ(evaluator.evaluate(c_code(kMatmul, "matmul"), matmul_problem()).check, Check::ok);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    EXPECT_EQ(line.find(cache_dir_.string()), std::string::npos) << line;
    EXPECT_EQ(line.find("libgomp"), std::string::npos) << line;
  }
}

TEST_F(CpuEvaluatorTest, AProblemLargerThanTheHostMemoryItMayUseIsADeviceError) {
  auto opts = options();
  const auto problem = axpy_problem();
  // The data and the run server's working arrays, less a byte.
  opts.host_memory = 2 * data_bytes(*problem) - 1;
  CpuEvaluator evaluator(opts);
  try {
    evaluator.evaluate(c_code(kAxpy, "axpy"), problem);
    FAIL() << "used more host memory than it may";
  } catch (const DeviceError& error) {
    EXPECT_NE(std::string(error.what()).find("cpu device: problem 'axpy' needs "),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("GB it may use"), std::string::npos) << error.what();
  }
  opts.host_memory = 2 * data_bytes(*problem);
  CpuEvaluator enough(opts);
  EXPECT_EQ(enough.evaluate(c_code(kAxpy, "axpy"), problem).check, Check::ok);
}

TEST_F(CpuEvaluatorTest, MissingCompilerIsADeviceError) {
  auto opts = options();
  opts.compiler = "/nonexistent/cc";
  EXPECT_THROW(CpuEvaluator evaluator(opts), DeviceError);
}

}  // namespace
}  // namespace sculpt::device
