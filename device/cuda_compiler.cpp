#include "device/cuda_compiler.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <thread>
#include <tuple>

#include "device/cuda_driver.h"
#include "device/evaluator.h"

namespace sculpt::device {
namespace {

Frame<CompileMessage> compile_in_worker(CudaContext& cuda, const std::string& ptx) {
  const CudaDriver& driver = cuda.driver;
  JitLogs logs;
  CUlinkState state = nullptr;
  CUresult result = driver.cuLinkCreate(logs.count(), logs.options(), logs.values(), &state);
  const char* call = "cuLinkCreate";
  Frame<CompileMessage> reply;
  if (result == CUDA_SUCCESS) {
    // PTX input must end with its NUL.
    result = driver.cuLinkAddData(state, CU_JIT_INPUT_PTX, const_cast<char*>(ptx.c_str()),
                                  ptx.size() + 1, "candidate.ptx", 0, nullptr, nullptr);
    call = "cuLinkAddData";
  }
  if (result == CUDA_SUCCESS) {
    void* cubin = nullptr;
    std::size_t size = 0;
    result = driver.cuLinkComplete(state, &cubin, &size);
    call = "cuLinkComplete";
    // The image belongs to the link state: copy it before destroying that.
    if (result == CUDA_SUCCESS) {
      reply.kind = CompileMessage::compiled;
      reply.data = Writer()
                       .put_string({static_cast<const char*>(cubin), size})
                       .put_string(logs.info())
                       .take();
    }
  }
  if (state != nullptr) driver.cuLinkDestroy(state);
  if (result != CUDA_SUCCESS) {
    reply.kind = CompileMessage::failed;
    reply.data = fmt::format("{} returned {}\n{}", call, driver.describe(result), logs.error());
  }
  return reply;
}

}  // namespace

void serve_compilations(CudaContext& context, std::vector<Channel>& channels) {
  std::vector<std::thread> threads;
  for (Channel& channel : channels) {
    threads.emplace_back([&context, &channel] {
      context.driver.cuCtxSetCurrent(context.context);
      for (;;) {
        Frame<CompileMessage> request;
        // The evaluator closed its end: nothing more to compile, in any thread.
        if (channel.receive(request) != Channel::Received::frame) _exit(0);
        SCULPT_CHECK(request.kind == CompileMessage::compile)
            << "unexpected request " << encode(request.kind);
        if (!channel.send(compile_in_worker(context, request.data))) _exit(0);
      }
    });
  }
  for (auto& thread : threads) thread.join();
}

CudaCompiler::CudaCompiler(CudaWorkerConfig config, int threads, std::chrono::milliseconds timeout)
    : config_(std::move(config)), threads_(threads), timeout_(timeout) {
  SCULPT_CHECK(threads_ >= 1) << "a compiler needs a thread";
}

CudaCompiler::~CudaCompiler() = default;

std::pair<std::shared_ptr<CudaWorker>, std::size_t> CudaCompiler::acquire(std::stop_token stop) {
  std::unique_lock lock(mutex_);
  if (worker_ == nullptr) {
    worker_ = std::make_shared<CudaWorker>(config_, threads_, serve_compilations, stop);
    if (workers_started_++ > 0) ++stats_.worker_restarts;
    free_channels_.resize(static_cast<std::size_t>(threads_));
    std::iota(free_channels_.begin(), free_channels_.end(), 0);
  }
  freed_.wait(lock, [this] { return !free_channels_.empty(); });
  std::size_t channel = free_channels_.back();
  free_channels_.pop_back();
  stats_.peak_concurrent = std::max(stats_.peak_concurrent, ++running_);
  return {worker_, channel};
}

void CudaCompiler::release(const std::shared_ptr<CudaWorker>& worker, std::size_t channel) {
  {
    std::lock_guard lock(mutex_);
    --running_;
    if (worker != worker_) return;
    free_channels_.push_back(channel);
  }
  freed_.notify_one();
}

void CudaCompiler::lose(const std::shared_ptr<CudaWorker>& worker) {
  std::lock_guard lock(mutex_);
  worker->stop();
  if (worker != worker_) return;
  worker_.reset();
  free_channels_.clear();
}

void CudaCompiler::abandon(const std::shared_ptr<CudaWorker>& worker) {
  std::lock_guard lock(mutex_);
  worker->stop();
  ++abandoned_kills_;
  if (worker != worker_) return;
  worker_.reset();
  free_channels_.clear();
}

CudaCompiler::Result CudaCompiler::compile(const std::string& ptx, std::stop_token stop) {
  const auto abandoned = [] {
    return Result{.image = std::nullopt, .log = "the compilation was abandoned"};
  };
  for (int attempt = 0;; ++attempt) {
    if (stop.stop_requested()) return abandoned();
    std::int64_t abandoned_kills = 0;
    {
      std::lock_guard lock(mutex_);
      abandoned_kills = abandoned_kills_;
    }
    std::shared_ptr<CudaWorker> worker;
    std::size_t index = 0;
    try {
      std::tie(worker, index) = acquire(stop);
    } catch (const CudaWorker::Abandoned&) {
      return abandoned();
    }
    Channel& channel = worker->channel(index);
    Frame<CompileMessage> reply;
    Channel::Received received = Channel::Received::closed;
    {
      // The JIT cannot be interrupted: an abandoned compilation takes its worker with it.
      std::stop_callback on_stop(stop, [this, held = worker] { abandon(held); });
      if (channel.send(
              Frame<CompileMessage>{.kind = CompileMessage::compile, .value = 0, .data = ptx})) {
        received = channel.receive(reply, timeout_);
      }
    }
    release(worker, index);
    if (received != Channel::Received::frame && stop.stop_requested()) {
      lose(worker);
      return abandoned();
    }
    if (received == Channel::Received::frame) {
      Result result;
      if (reply.kind == CompileMessage::compiled) {
        Reader reader(reply.data);
        CudaImage image;
        image.cubin = reader.get_string();
        image.info_log = reader.get_string();
        result.image = std::move(image);
      } else {
        SCULPT_CHECK(reply.kind == CompileMessage::failed)
            << "unexpected reply " << encode(reply.kind);
        result.log = std::move(reply.data);
      }
      std::lock_guard lock(mutex_);
      ++stats_.compilations;
      if (!result.image) ++stats_.errors;
      return result;
    }
    lose(worker);
    if (received == Channel::Received::timeout) {
      std::lock_guard lock(mutex_);
      ++stats_.compilations;
      ++stats_.errors;
      return Result{.image = std::nullopt,
                    .log = fmt::format("PTX compilation took longer than {} s; stopped",
                                       std::chrono::ceil<std::chrono::seconds>(timeout_).count())};
    }
    // Another thread's timeout or abandoned compilation, or a crash in the JIT: try once more
    // on a new worker. A worker killed for an abandoned compilation is no try.
    {
      std::lock_guard lock(mutex_);
      if (abandoned_kills_ != abandoned_kills) --attempt;
    }
    if (attempt > 0) throw DeviceError("cuda device: the compile worker died twice in a row");
  }
}

CudaCompilerStats CudaCompiler::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace sculpt::device
