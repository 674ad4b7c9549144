// The pipeline every device shares: each candidate is measured with its cutoff as it stands when
// its measurement starts, which ok times lower; cancel_waiting abandons the evaluations that have
// not started running, at once, stops their compilations, and lets the one being measured
// finish.
#include "device/pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

namespace sculpt::device {
namespace {

using namespace std::chrono_literals;
using CutoffValue = std::optional<std::chrono::nanoseconds>;

// A gate the measuring thread waits at until the test opens it.
struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool open = false;
  int arrived = 0;

  void pass() {
    std::unique_lock lock(mutex);
    ++arrived;
    changed.notify_all();
    changed.wait(lock, [this] { return open; });
  }
  void wait_for_arrivals(int n) {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return arrived >= n; });
  }
  void release() {
    std::lock_guard lock(mutex);
    open = true;
    changed.notify_all();
  }
};

KernelCode code_named(const std::string& entry) {
  KernelCode code;
  code.entry = entry;
  return code;
}

TEST(Pipeline, CancelWaitingAbandonsAllButTheMeasurementUnderWay) {
  Gate measuring;
  std::atomic<int> measured = 0;
  Pipeline<int> pipeline(
      2, [](const KernelCode&, std::stop_token) -> Pipeline<int>::CompileResult { return 0; },
      [&](const KernelCode&, const std::shared_ptr<const Problem>&, int&, const CutoffSnapshot&) {
        measuring.pass();
        ++measured;
        Evaluation e;
        e.time_ns = 1.0;
        return e;
      });
  std::vector<std::future<Evaluation>> futures;
  for (int i = 0; i < 4; ++i) futures.push_back(pipeline.submit(code_named("k"), nullptr));
  measuring.wait_for_arrivals(1);

  pipeline.cancel_waiting();
  // The three waiting ones are settled at once, before the measurement ends.
  int abandoned = 0;
  for (auto& f : futures) {
    if (f.wait_for(0s) != std::future_status::ready) continue;
    EXPECT_THROW(f.get(), std::future_error);
    ++abandoned;
  }
  EXPECT_EQ(abandoned, 3);

  measuring.release();
  int finished = 0;
  for (auto& f : futures) {
    if (!f.valid()) continue;
    EXPECT_EQ(f.get().time_ns, 1.0);
    ++finished;
  }
  EXPECT_EQ(finished, 1);
  EXPECT_EQ(measured.load(), 1);

  // The pipeline goes on with what is submitted afterwards.
  EXPECT_EQ(pipeline.submit(code_named("after"), nullptr).get().time_ns, 1.0);
  EXPECT_EQ(pipeline.evaluations(), 2);
}

TEST(Pipeline, CancelWaitingThrowsAwayACompilationUnderWay) {
  Gate compiling;
  std::atomic<int> measured = 0;
  Pipeline<int> pipeline(
      1,
      [&](const KernelCode&, std::stop_token) -> Pipeline<int>::CompileResult {
        compiling.pass();
        return 0;
      },
      [&](const KernelCode&, const std::shared_ptr<const Problem>&, int&, const CutoffSnapshot&) {
        ++measured;
        return Evaluation{};
      });
  auto future = pipeline.submit(code_named("k"), nullptr);
  compiling.wait_for_arrivals(1);
  pipeline.cancel_waiting();
  EXPECT_THROW(future.get(), std::future_error);
  compiling.release();
  // The compiled candidate is not measured: the next submission is the only one.
  pipeline.submit(code_named("after"), nullptr).get();
  EXPECT_EQ(measured.load(), 1);
}

TEST(Pipeline, ACandidateIsMeasuredWithItsCutoffAsItStandsAndOkTimesLowerIt) {
  // Measures candidate "ok" at 1 us and the others as wrong at 0.1 us, recording the cutoffs.
  std::vector<CutoffValue> seen;
  Pipeline<int> pipeline(
      2, [](const KernelCode&, std::stop_token) -> Pipeline<int>::CompileResult { return 0; },
      [&](const KernelCode& code, const std::shared_ptr<const Problem>&, int&,
          const CutoffSnapshot& snapshot) {
        seen.push_back(snapshot.cutoff);
        Evaluation e;
        e.check = code.entry == "ok" ? Check::ok : Check::wrong;
        e.time_ns = code.entry == "ok" ? 1000 : 100;
        return e;
      });
  auto cutoff = std::make_shared<Cutoff>(2.0);
  pipeline.submit(code_named("ok"), nullptr, cutoff).get();
  pipeline.submit(code_named("wrong"), nullptr, cutoff).get();
  pipeline.submit(code_named("wrong"), nullptr, cutoff).get();
  pipeline.submit(code_named("ok"), nullptr).get();
  EXPECT_EQ(seen, (std::vector<CutoffValue>{std::nullopt, 2000ns, 2000ns, std::nullopt}));
}

// A queued candidate whose lower bound the cutoff fell to while it waited would be cut short
// before its timing began: it is not measured. A search that found its bounds wrong widens that.
TEST(Pipeline, ACandidateBoundPastTheCutoffIsNotMeasured) {
  std::vector<std::string> measured;
  Pipeline<int> pipeline(
      1, [](const KernelCode&, std::stop_token) -> Pipeline<int>::CompileResult { return 0; },
      [&](const KernelCode& code, const std::shared_ptr<const Problem>&, int&,
          const CutoffSnapshot&) {
        measured.push_back(code.entry);
        Evaluation e;
        e.time_ns = 1000;
        return e;
      });
  auto cutoff = std::make_shared<Cutoff>(2.0);
  // Nothing is past a cutoff before the first time.
  pipeline.submit(code_named("first"), nullptr, cutoff, 1e9).get();
  EXPECT_THROW(pipeline.submit(code_named("past"), nullptr, cutoff, 2000).get(), PastTheCutoff);
  pipeline.submit(code_named("below"), nullptr, cutoff, 1999).get();
  pipeline.submit(code_named("unbounded"), nullptr, cutoff).get();
  cutoff->widen(3);
  pipeline.submit(code_named("within the slack"), nullptr, cutoff, 5999).get();
  EXPECT_THROW(pipeline.submit(code_named("past the slack"), nullptr, cutoff, 6000).get(),
               PastTheCutoff);
  EXPECT_EQ(measured,
            (std::vector<std::string>{"first", "below", "unbounded", "within the slack"}));
  EXPECT_EQ(pipeline.evaluations(), 4);
}

// A candidate whose bound the cutoff has reached by the time a compiler is free for it is not
// compiled either: the compiler's time goes to the next one.
TEST(Pipeline, ACandidateBoundPastTheCutoffIsNotCompiled) {
  std::mutex mutex;
  std::vector<std::string> compiled;
  Pipeline<int> pipeline(
      1,
      [&](const KernelCode& code, std::stop_token) -> Pipeline<int>::CompileResult {
        std::lock_guard lock(mutex);
        compiled.push_back(code.entry);
        return 0;
      },
      [](const KernelCode&, const std::shared_ptr<const Problem>&, int&, const CutoffSnapshot&) {
        Evaluation e;
        e.time_ns = 1000;
        return e;
      });
  auto cutoff = std::make_shared<Cutoff>(2.0);
  pipeline.submit(code_named("first"), nullptr, cutoff, 10).get();
  EXPECT_THROW(pipeline.submit(code_named("past"), nullptr, cutoff, 2000).get(), PastTheCutoff);
  pipeline.submit(code_named("below"), nullptr, cutoff, 1999).get();
  EXPECT_EQ(compiled, (std::vector<std::string>{"first", "below"}));
  EXPECT_EQ(pipeline.not_compiled(), 1);
}

TEST(Pipeline, AMeasurementSeesTheBestTimeBesideTheCutoff) {
  std::vector<CutoffSnapshot> seen;
  Pipeline<int> pipeline(
      1, [](const KernelCode&, std::stop_token) -> Pipeline<int>::CompileResult { return 0; },
      [&](const KernelCode&, const std::shared_ptr<const Problem>&, int&,
          const CutoffSnapshot& snapshot) {
        seen.push_back(snapshot);
        Evaluation e;
        e.time_ns = 1000;
        return e;
      });
  auto cutoff = std::make_shared<Cutoff>(3.0);
  pipeline.submit(code_named("first"), nullptr, cutoff).get();
  pipeline.submit(code_named("second"), nullptr, cutoff).get();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_FALSE(seen[0].cutoff);
  EXPECT_FALSE(seen[0].best);
  EXPECT_EQ(seen[1].cutoff, 3000ns);
  EXPECT_EQ(seen[1].best, 1000ns);
}

// A compiler that runs until its candidate is abandoned: what a compiler that can be stopped
// (a process to kill) does.
struct EndlessCompiler {
  Gate started;
  std::atomic<int> stopped = 0;

  Pipeline<int>::CompileResult operator()(const KernelCode&, std::stop_token stop) {
    started.pass();
    std::mutex mutex;
    std::condition_variable_any wake;
    std::unique_lock lock(mutex);
    wake.wait(lock, stop, [] { return false; });
    ++stopped;
    return Evaluation{.check = Check::compile_error, .message = "abandoned"};
  }
};

TEST(Pipeline, CancelWaitingStopsTheCompilationsUnderWay) {
  EndlessCompiler compiler;
  compiler.started.release();  // passes at once
  std::atomic<int> measured = 0;
  Pipeline<int> pipeline(
      2, [&](const KernelCode& code, std::stop_token stop) { return compiler(code, stop); },
      [&](const KernelCode&, const std::shared_ptr<const Problem>&, int&, const CutoffSnapshot&) {
        ++measured;
        return Evaluation{};
      });
  auto first = pipeline.submit(code_named("a"), nullptr);
  auto second = pipeline.submit(code_named("b"), nullptr);
  compiler.started.wait_for_arrivals(2);
  const auto start = std::chrono::steady_clock::now();
  pipeline.cancel_waiting();
  EXPECT_THROW(first.get(), std::future_error);
  EXPECT_THROW(second.get(), std::future_error);
  // The compilers were told to stop, and did.
  while (compiler.stopped.load() < 2 && std::chrono::steady_clock::now() - start < 5s) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(compiler.stopped.load(), 2);
  EXPECT_EQ(measured.load(), 0);
  EXPECT_EQ(pipeline.evaluations(), 0);
}

TEST(Pipeline, DestructionStopsTheCompilationsUnderWay) {
  EndlessCompiler compiler;
  compiler.started.release();
  auto pipeline = std::make_unique<Pipeline<int>>(
      1, [&](const KernelCode& code, std::stop_token stop) { return compiler(code, stop); },
      [&](const KernelCode&, const std::shared_ptr<const Problem>&, int&, const CutoffSnapshot&) {
        return Evaluation{};
      });
  auto future = pipeline->submit(code_named("a"), nullptr);
  auto queued = pipeline->submit(code_named("queued"), nullptr);
  compiler.started.wait_for_arrivals(1);
  const auto start = std::chrono::steady_clock::now();
  pipeline.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(compiler.stopped.load(), 1);
  EXPECT_THROW(future.get(), std::future_error);
  EXPECT_THROW(queued.get(), std::future_error);
}

}  // namespace
}  // namespace sculpt::device
