#include "device/cuda_runner.h"

#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device/cuda_driver.h"

namespace sculpt::device {
namespace {

struct Launch {
  std::array<std::uint32_t, 3> grid;
  std::array<std::uint32_t, 3> block;
  std::uint32_t shared_bytes;
  RunPlan plan;
};

// Frees host memory from cuMemAllocHost, or from new[] when `driver` is null.
struct FreeHost {
  const CudaDriver* driver = nullptr;
  void operator()(std::byte* p) const {
    if (driver != nullptr) {
      driver->cuMemFreeHost(p);
    } else {
      delete[] p;
    }
  }
};

// Host memory that copies from the GPU fill at the bus's speed: page-locked when the driver
// grants it (cuMemAllocHost), ordinary otherwise.
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(const CudaDriver& driver, std::size_t bytes) {
    void* pinned = nullptr;
    if (driver.cuMemAllocHost(&pinned, std::max<std::size_t>(bytes, 1)) == CUDA_SUCCESS) {
      data_ = {static_cast<std::byte*>(pinned), FreeHost{&driver}};
    } else {
      data_ = {new std::byte[bytes], FreeHost{}};
    }
  }
  std::byte* data() const { return data_.get(); }

 private:
  std::unique_ptr<std::byte[], FreeHost> data_;
};

// The worker's side: the problem's buffers on the GPU and a copy of their initial values that
// no kernel writes.
class RunServer {
 public:
  RunServer(CudaContext& cuda, Channel& channel) : driver_(cuda.driver), channel_(channel) {}

  [[noreturn]] void serve() {
    // Created once: a context that fails is never used again.
    if (driver_.cuEventCreate(&start_, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
        driver_.cuEventCreate(&stop_, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
      _exit(1);
    }
    for (;;) {
      Frame<RunMessage> request;
      if (channel_.receive(request) != Channel::Received::frame) _exit(0);
      Reader reader(request.data);
      if (request.kind == RunMessage::upload) {
        upload(reader);
      } else {
        SCULPT_CHECK(request.kind == RunMessage::run)
            << "unexpected request " << encode(request.kind);
        run(reader);
      }
    }
  }

 private:
  struct Parameter {
    bool array = false;
    Role role = Role::input;
    std::string name{};
    std::size_t bytes = 0;
    CUdeviceptr buffer = 0;
    /// An array's initial values, which no kernel writes: a second device buffer, restored at
    /// the GPU's copy speed, when the GPU has room for it after every array's buffer ...
    CUdeviceptr initial = 0;
    /// ... or else host memory. A scalar's value, which the launch reads.
    std::string host{};
    /// For results: what the warm-up must leave (`values` reads `expected_values`), and room
    /// for what it left.
    ExpectedResult expected{};
    std::vector<std::byte> expected_values{};
    HostBuffer got{};
    bool result() const { return array && role != Role::input; }
  };

  void reply(RunMessage kind, std::int64_t value = 0, std::string data = {}) {
    if (!channel_.send(Frame<RunMessage>{.kind = kind, .value = value, .data = std::move(data)}))
      _exit(0);
  }

  void free_buffers() {
    for (Parameter& param : params_) {
      if (param.buffer != 0) driver_.cuMemFree(param.buffer);
      if (param.initial != 0) driver_.cuMemFree(param.initial);
    }
    params_.clear();
  }

  void upload(Reader& reader) {
    free_buffers();
    // For the initial values the GPU has no room to keep twice.
    auto host_room = reader.get<std::uint64_t>();
    auto count = reader.get<std::uint32_t>();
    for (std::uint32_t i = 0; i < count; ++i) {
      Parameter& param = params_.emplace_back();
      param.array = reader.get<std::uint8_t>() != 0;
      param.role = reader.get<Role>();
      param.name = reader.get_string();
      param.bytes = reader.get<std::uint64_t>();
      if (param.result()) {
        param.expected = ExpectedResult{.index = i,
                                        .param = ArrayParam{.name = param.name,
                                                            .type = reader.get<ElementType>(),
                                                            .count = reader.get<std::int64_t>(),
                                                            .role = param.role},
                                        .tolerance = reader.get<double>(),
                                        .scale = reader.get<double>()};
      }
    }
    // Every array's buffer first: the copies of the initial values only get the room left.
    for (Parameter& param : params_) {
      if (!param.array) continue;
      // Never managed memory: the inputs are copied in explicitly before every candidate.
      CUresult result = driver_.cuMemAlloc(&param.buffer, std::max<std::size_t>(param.bytes, 1));
      if (result != CUDA_SUCCESS) {
        std::string why = fmt::format("cuMemAlloc of {} bytes for '{}' returned {}", param.bytes,
                                      param.name, driver_.describe(result));
        param.buffer = 0;
        free_buffers();
        reply(RunMessage::upload_failed, 0, why);
        return;
      }
    }
    reply(RunMessage::upload_ready);
    // The initial values go where the GPU still has room: copies of hundreds of megabytes
    // from host memory before every candidate would take longer than most candidates run.
    std::int64_t on_host = 0;
    std::optional<std::string> failed;
    for (Parameter& param : params_) {
      Frame<RunMessage> frame;
      if (channel_.receive(frame) != Channel::Received::frame) _exit(0);
      SCULPT_CHECK(frame.kind == RunMessage::upload_values)
          << "unexpected request " << encode(frame.kind);
      Reader values(frame.data);
      const std::string_view initial = values.get_string();
      SCULPT_CHECK(initial.size() == param.bytes) << "values of the wrong size for " << param.name;
      if (param.result()) {
        const std::string_view expected = values.get_string();
        const auto* bytes = reinterpret_cast<const std::byte*>(expected.data());
        param.expected_values.assign(bytes, bytes + expected.size());
        param.expected.values = param.expected_values;
        param.got = HostBuffer(driver_, param.bytes);
      }
      if (!param.array) {
        param.host = initial;
      } else if (param.bytes == 0 || failed) {
        continue;
      } else if (driver_.cuMemAlloc(&param.initial, param.bytes) != CUDA_SUCCESS) {
        param.initial = 0;
        if (param.bytes > host_room) {
          failed = fmt::format(
              "no room there for a second copy of '{}' ({} bytes), nor in the {} bytes of host "
              "memory left",
              param.name, param.bytes, host_room);
          continue;
        }
        host_room -= param.bytes;
        param.host = initial;
        ++on_host;
      } else if (CUresult result = driver_.cuMemcpyHtoD(param.initial, initial.data(), param.bytes);
                 result != CUDA_SUCCESS) {
        failed = fmt::format("cuMemcpyHtoD of the initial values of '{}' returned {}", param.name,
                             driver_.describe(result));
      }
    }
    if (failed) {
      free_buffers();
      reply(RunMessage::upload_failed, 0, *failed);
      return;
    }
    reply(RunMessage::uploaded, on_host);
  }

  // Copies the initial values into the arrays: all of them, or only the inout ones. Returns
  // what failed, if anything.
  std::optional<std::string> restore(bool all) {
    for (const Parameter& param : params_) {
      if (!param.array || param.bytes == 0 || !(all || param.role == Role::inout)) continue;
      const bool on_gpu = param.initial != 0;
      const CUresult result =
          on_gpu ? driver_.cuMemcpyDtoD(param.buffer, param.initial, param.bytes)
                 : driver_.cuMemcpyHtoD(param.buffer, param.host.data(), param.bytes);
      if (result != CUDA_SUCCESS) {
        return fmt::format("{} of the initial values of '{}' returned {}",
                           on_gpu ? "cuMemcpyDtoD" : "cuMemcpyHtoD", param.name,
                           driver_.describe(result));
      }
    }
    return std::nullopt;
  }

  // Reports a failure; a worker whose context is lost (sticky errors) has nothing left to do.
  void fail(std::string what) {
    bool lost = driver_.cuCtxSynchronize() != CUDA_SUCCESS;
    reply(RunMessage::fault, lost ? 1 : 0, std::move(what));
    if (lost) _exit(0);
  }

  TimedLaunch timed(CUfunction function, const Launch& launch, std::vector<void*>& args) {
    return timed_launch(driver_, start_, stop_, function, launch.grid, launch.block,
                        launch.shared_bytes, args.data());
  }

  static std::int64_t ns(const TimedLaunch& t) {
    return std::llround(static_cast<double>(t.milliseconds) * 1e6);
  }

  std::string describe_failure(const TimedLaunch& timed, const Launch& launch) const {
    if (!timed.rejected) return "the kernel failed: " + driver_.describe(timed.result);
    return fmt::format(
        "cuLaunchKernel rejected grid {}x{}x{}, block {}x{}x{}, {} bytes of dynamic "
        "shared memory: {}",
        launch.grid[0], launch.grid[1], launch.grid[2], launch.block[0], launch.block[1],
        launch.block[2], launch.shared_bytes, driver_.describe(timed.result));
  }

  void run(Reader& reader) {
    auto launch = reader.get<Launch>();
    std::string entry(reader.get_string());
    std::string_view cubin = reader.get_string();
    // The driver reads the image's ELF structures in place, and the frame gives no alignment;
    // the extra zero word ends the image like a string, as text images must be.
    std::vector<std::uint64_t> image(cubin.size() / sizeof(std::uint64_t) + 1, 0);
    std::memcpy(image.data(), cubin.data(), cubin.size());

    JitLogs logs;
    CUmodule module = nullptr;
    CUresult result = driver_.cuModuleLoadDataEx(&module, image.data(), logs.count(),
                                                 logs.options(), logs.values());
    if (result != CUDA_SUCCESS) {
      reply(RunMessage::load_error, 0,
            fmt::format("cuModuleLoadDataEx returned {}\n{}", driver_.describe(result),
                        logs.error()));
      return;
    }
    struct Unload {
      const CudaDriver& driver;
      CUmodule module;
      ~Unload() { driver.cuModuleUnload(module); }
    } unload{driver_, module};
    CUfunction function = nullptr;
    result = driver_.cuModuleGetFunction(&function, module, entry.c_str());
    if (result != CUDA_SUCCESS) {
      reply(RunMessage::load_error, 0,
            fmt::format("no entry point '{}' in the module: {}", entry, driver_.describe(result)));
      return;
    }
    result = allow_dynamic_shared(driver_, function, launch.shared_bytes);
    if (result != CUDA_SUCCESS) {
      return fail(fmt::format("cannot allow {} bytes of dynamic shared memory: {}",
                              launch.shared_bytes, driver_.describe(result)));
    }
    std::vector<void*> args;
    bool has_inout = false;
    for (Parameter& param : params_) {
      args.push_back(param.array ? static_cast<void*>(&param.buffer) : param.host.data());
      has_inout = has_inout || (param.array && param.role == Role::inout);
    }

    // Every array, inputs included: a candidate may have written anywhere.
    if (std::optional<std::string> failed = restore(true)) return fail(*failed);
    reply(RunMessage::started);
    TimedLaunch warm_up = timed(function, launch, args);
    if (warm_up.result != CUDA_SUCCESS) return fail(describe_failure(warm_up, launch));
    reply(RunMessage::warmed_up, ns(warm_up));

    for (Parameter& param : params_) {
      if (!param.result() || param.bytes == 0) continue;
      result = driver_.cuMemcpyDtoH(param.got.data(), param.buffer, param.bytes);
      if (result != CUDA_SUCCESS) return fail("cuMemcpyDtoH returned " + driver_.describe(result));
    }
    reply(RunMessage::copied);
    // Checked here, where the results are (they never cross to the evaluator), while the GPU
    // runs the timed launches: checking axpy 2^26's 64M floats takes 45 ms on one core.
    std::future<std::optional<std::string>> check =
        std::async(std::launch::async, [this] { return first_mismatch(); });

    std::vector<std::int64_t> run_ns;
    while (launch.plan.wants_another(run_ns)) {
      if (has_inout) {
        if (std::optional<std::string> failed = restore(false)) return fail(*failed);
      }
      const TimedLaunch run = timed(function, launch, args);
      if (run.result != CUDA_SUCCESS) return fail(describe_failure(run, launch));
      run_ns.push_back(ns(run));
      reply(RunMessage::timed_run, ns(run));
    }
    reply(RunMessage::checking);
    const std::optional<std::string> mismatch = check.get();
    reply(RunMessage::done, mismatch ? 1 : 0, mismatch.value_or(""));
  }

  // The first result of the warm-up (copied to `got`) that is not what the reference left.
  std::optional<std::string> first_mismatch() const {
    for (const Parameter& param : params_) {
      if (!param.result() || param.bytes == 0) continue;
      if (std::optional<std::string> found = mismatch(param.expected, param.got.data())) {
        return found;
      }
    }
    return std::nullopt;
  }

  const CudaDriver& driver_;
  Channel& channel_;
  std::vector<Parameter> params_;
  CUevent start_ = nullptr;
  CUevent stop_ = nullptr;
};

enum class Stage { set_up, warm_up, results, timed, check };

std::string describe(Stage stage, std::size_t runs) {
  switch (stage) {
    case Stage::set_up:
      return "the set-up of the warm-up run";
    case Stage::warm_up:
      return "the warm-up run";
    case Stage::results:
      return "the copy of the warm-up results";
    case Stage::timed:
      return fmt::format("timed run {}", runs + 1);
    case Stage::check:
      return "the check of the warm-up results";
  }
  return {};
}

}  // namespace

void serve_runs(CudaContext& context, std::vector<Channel>& channels) {
  RunServer(context, channels.at(0)).serve();
}

CudaRunner::CudaRunner(CudaWorkerConfig config) : config_(std::move(config)) {}

CudaRunner::~CudaRunner() = default;

void CudaRunner::stop() {
  worker_.reset();
  uploaded_.reset();
}

void CudaRunner::upload(const ProblemData& data, std::uint64_t host_room) {
  const auto& params = data.problem().params;
  Channel& channel = worker_->channel(0);
  auto lost = [&] {
    stop();
    return DeviceError(fmt::format("cuda device: the worker died while receiving problem '{}'",
                                   data.problem().name));
  };
  auto send = [&](RunMessage kind, std::string bytes) {
    if (!channel.send(Frame<RunMessage>{.kind = kind, .value = 0, .data = std::move(bytes)}))
      throw lost();
  };
  // The worker's answer: `expected`, or RunMessage::upload_failed with why.
  auto await = [&](RunMessage expected) {
    Frame<RunMessage> reply;
    if (channel.receive(reply, kWorkerSetupTimeout) != Channel::Received::frame) throw lost();
    if (reply.kind == RunMessage::upload_failed) {
      throw DeviceError(fmt::format("cuda device: problem '{}' does not fit on the GPU: {}",
                                    data.problem().name, reply.data));
    }
    SCULPT_CHECK(reply.kind == expected) << "unexpected reply " << encode(reply.kind);
    return reply;
  };
  Writer header;
  header.put(host_room).put(static_cast<std::uint32_t>(params.size()));
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto* array = std::get_if<ArrayParam>(&params[i]);
    header.put<std::uint8_t>(array != nullptr ? 1 : 0)
        .put(array != nullptr ? array->role : Role::input)
        .put_string(array != nullptr ? array->name : std::get<ScalarParam>(params[i]).name)
        .put(static_cast<std::uint64_t>(data.bytes(i)));
    if (data.is_result(i)) {
      const ExpectedResult expected = data.expected(i);
      header.put(expected.param.type)
          .put(expected.param.count)
          .put(expected.tolerance)
          .put(expected.scale);
    }
  }
  send(RunMessage::upload, header.take());
  await(RunMessage::upload_ready);
  for (std::size_t i = 0; i < params.size(); ++i) {
    Writer values;
    values.put_filled(data.bytes(i), [&](std::byte* to) { data.write_initial(i, to); });
    if (data.is_result(i)) {
      const std::span<const std::byte> expected = data.expected(i).values;
      values.put_string({reinterpret_cast<const char*>(expected.data()), expected.size()});
    }
    send(RunMessage::upload_values, values.take());
  }
  const Frame<RunMessage> reply = await(RunMessage::uploaded);
  arrays_restored_from_host_ = static_cast<int>(reply.value);
  if (reply.value != 0) {
    spdlog::warn(
        "cuda device: problem '{}': no room on the GPU for a second copy of {} of its arrays; "
        "their initial values are restored from host memory before each candidate (slower)",
        data.problem().name, reply.value);
  }
}

Channel& CudaRunner::ready_worker(std::uint64_t problem_id, const ProblemData& data,
                                  std::uint64_t host_room) {
  // Timed, from the fork to the problem in place: what killing this worker will cost.
  const auto elapsed_ns = [](std::chrono::steady_clock::time_point since) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                since)
        .count();
  };
  if (worker_ == nullptr) {
    const auto start = std::chrono::steady_clock::now();
    worker_ = std::make_unique<CudaWorker>(config_, 1, serve_runs, cancel_.get_token());
    ++workers_started_;
    start_ns_ = elapsed_ns(start);
  }
  if (uploaded_ != problem_id) {
    const auto start = std::chrono::steady_clock::now();
    uploaded_.reset();
    upload(data, host_room);
    uploaded_ = problem_id;
    upload_ns_ = elapsed_ns(start);
  }
  return worker_->channel(0);
}

RunOutcome CudaRunner::run(std::uint64_t problem_id, const ProblemData& data,
                           std::uint64_t host_room, const CudaImage& image, const KernelCode& code,
                           const RunPlan& requested) {
  RunPlan plan = requested;
  Launch launch{.grid = code.launch.grid,
                .block = code.launch.block,
                .shared_bytes = code.launch.shared_bytes,
                .plan = plan};
  Frame<RunMessage> request{
      .kind = RunMessage::run,
      .value = 0,
      .data = Writer().put(launch).put_string(code.entry).put_string(image.cubin).take()};
  Channel* channel = &ready_worker(problem_id, data, host_room);
  if (!channel->send(request)) {
    // The worker died while idle (killed from outside): start another once.
    stop();
    channel = &ready_worker(problem_id, data, host_room);
    if (!channel->send(request)) {
      stop();
      throw DeviceError("cuda device: the run worker dies before it can run anything");
    }
  }

  // Known now: the worker and its problem are in place.
  plan.restart_cost = restart_cost();

  RunOutcome outcome;
  Stage stage = Stage::set_up;
  auto run_limit = std::chrono::ceil<std::chrono::milliseconds>(plan.run_limit());
  for (;;) {
    bool kernel_running = stage == Stage::warm_up || stage == Stage::timed;
    auto limit = kernel_running ? run_limit : kWorkerSetupTimeout;
    Frame<RunMessage> reply;
    Channel::Received received = channel->receive(reply, limit);
    std::string phase = describe(stage, outcome.run_ns.size());
    if (received == Channel::Received::timeout) {
      // A kernel cannot be interrupted: only its process can go.
      stop();
      outcome = kernel_running ? killed_at_run_limit(phase, plan) : killed_after(phase, limit);
      break;
    }
    if (received == Channel::Received::closed) {
      stop();
      outcome.check = Check::fault;
      outcome.message = fmt::format("the CUDA worker was lost during {}", phase);
      break;
    }
    if (reply.kind == RunMessage::load_error) {
      outcome.check = Check::compile_error;
      outcome.message = "cannot load the compiled image: " + reply.data;
      break;
    }
    if (reply.kind == RunMessage::fault) {
      bool lost = reply.value != 0;
      if (lost) stop();
      outcome.check = Check::fault;
      outcome.message = fmt::format("{} during {}", reply.data, phase);
      // A refused launch is about resources: the JIT's report says what the kernel uses.
      if (!lost && !image.info_log.empty()) outcome.message += "\n" + image.info_log;
      break;
    }
    if (reply.kind == RunMessage::started) {
      stage = Stage::warm_up;
    } else if (reply.kind == RunMessage::warmed_up) {
      stage = Stage::results;
    } else if (reply.kind == RunMessage::copied) {
      stage = Stage::timed;
    } else if (reply.kind == RunMessage::timed_run) {
      outcome.run_ns.push_back(reply.value);
    } else if (reply.kind == RunMessage::checking) {
      stage = Stage::check;
    } else {
      SCULPT_CHECK(reply.kind == RunMessage::done) << "unexpected reply " << encode(reply.kind);
      outcome.check = Check::ok;
      if (reply.value != 0) outcome.mismatch = std::move(reply.data);
      break;
    }
  }
  if (outcome.check != Check::ok) outcome.run_ns.clear();
  return outcome;
}

}  // namespace sculpt::device
