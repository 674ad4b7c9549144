#include "device/cuda_worker.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "device/cuda_driver.h"
#include "device/evaluator.h"
#include "device/process.h"

namespace sculpt::device {

CudaWorker::CudaWorker(const CudaWorkerConfig& config, int channels, const Serve& serve,
                       std::stop_token cancel) {
  SCULPT_CHECK(channels >= 1) << "a CUDA worker needs a channel";
  std::vector<Channel> theirs;
  std::vector<int> kept;
  for (int i = 0; i < channels; ++i) {
    auto [ours, their] = Channel::pair();
    channels_.push_back(std::move(ours));
    kept.push_back(their.fd());
    theirs.push_back(std::move(their));
  }
  pid_ = fork_server_process(
      kept,
      [&] {
        std::string why;
        std::optional<CudaContext> context =
            open_cuda_context(config.driver_library, config.device, &why);
        if (!context) {
          theirs[0].send(Frame<WorkerStart>{.kind = WorkerStart::failed, .value = 0, .data = why});
          return;
        }
        if (!theirs[0].send(Frame<WorkerStart>{
                .kind = WorkerStart::ready, .value = 0, .data = context->description}))
          return;
        serve(*context, theirs);
      },
      "cuda");
  theirs.clear();

  // Waited for in slices, so that a stop request is seen within one.
  constexpr std::chrono::milliseconds kSlice(50);
  const auto deadline = std::chrono::steady_clock::now() + kWorkerSetupTimeout;
  const auto left = [&] {
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now()));
  };
  while (left().count() > 0 && !channels_[0].readable(std::min(left(), kSlice))) {
    if (cancel.stop_requested()) {
      stop();
      throw Abandoned{};
    }
  }
  Frame<WorkerStart> reply;
  Channel::Received received = channels_[0].receive(reply, left());
  if (received == Channel::Received::frame && reply.kind == WorkerStart::ready) {
    description_ = std::move(reply.data);
    return;
  }
  stop();
  if (received == Channel::Received::frame && reply.kind == WorkerStart::failed) {
    throw DeviceError(reply.data);
  }
  throw DeviceError(received == Channel::Received::timeout
                        ? fmt::format("cuda device: the worker did not open a CUDA context "
                                      "within {} s",
                                      kWorkerSetupTimeout.count() / 1000)
                        : "cuda device: the worker died while opening a CUDA context");
}

CudaWorker::~CudaWorker() { stop(); }

void CudaWorker::stop() {
  if (pid_ < 0) return;
  kill_and_reap(pid_);
  pid_ = -1;
}

}  // namespace sculpt::device
